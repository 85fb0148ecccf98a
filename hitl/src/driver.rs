//! The interactive episode driver: the synchronous stepper's loop (episode core, board
//! core, agent cores) with a person's lines entering between lockstep rounds and the
//! partner bot stepped through its [`Partner`]. A line enters at a tick: a scripted
//! line at its own tick (the driver stops the clock there), a live line at the tick the
//! episode has reached when it arrives. Interactive runs use this driver, not the
//! actor runtime: the person's lines have to enter between rounds, and the stepper is
//! the reference the actors reproduce anyway.

use std::collections::VecDeque;

use gatecrew_crew::agent::{AgentCore, StepOutput};
use gatecrew_crew::episode::stepper::step_supervised;
use gatecrew_crew::{EndReason, Episode, Finished, Observer, ResolveError, Resolver, Setup};
use gatecrew_protocol::{AgentId, Board, Tick};

use crate::script::Script;
use crate::seat::Seat;
use crate::session::Partner;

/// Where the run goes: trace events and progress (as for any run), and the partner's
/// lines to the person.
pub trait Output: Observer {
    /// A line the partner said at `t`.
    fn said(&mut self, t: Tick, agent: AgentId, text: &str);
}

/// The driver. See the module docs.
pub struct Driver {
    episode: Episode,
    board: Board,
    agents: Vec<AgentCore>,
    partner: Partner,
    resolver: Box<dyn Resolver + Send>,
    /// Item names, for the seat's questions.
    items: std::sync::Arc<gatecrew_protocol::ItemRegistry>,
    /// The person sits in a human participant's seat: the partner's offers wait for them.
    seat: Option<Seat>,
    started: bool,
    ended: bool,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("tick", &self.episode.tick())
            .field("partner", &self.partner)
            .finish_non_exhaustive()
    }
}

impl Driver {
    /// A driver for `setup` with `partner` speaking for one of its bots.
    pub fn new(setup: &Setup, partner: Partner, resolver: Box<dyn Resolver + Send>) -> Self {
        // The humans of a task are the last agents; a partner among them is that human.
        let human = partner.agent().index() >= setup.labels.builders(setup.world.agent_count());
        Driver {
            episode: Episode::new(setup),
            board: Board::new(setup.roster(), setup.data.items().clone(), setup.board),
            agents: setup.agents(),
            partner,
            resolver,
            items: setup.data.items().clone(),
            seat: human.then(Seat::default),
            started: false,
            ended: false,
        }
    }

    /// Whether the person sits in a human participant's seat (the partner speaks for one
    /// of the task's humans): its answers to requests wait for the person's yes or no.
    pub fn seated(&self) -> bool {
        self.seat.is_some()
    }

    /// Now.
    pub fn tick(&self) -> Tick {
        self.episode.tick()
    }

    /// The world as it is now (where the bots stand, what is built).
    pub fn world(&self) -> &gatecrew_world::World {
        self.episode.world()
    }

    /// The partner.
    pub fn partner(&self) -> &Partner {
        &self.partner
    }

    /// Whether the episode is over.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Keeps the episode open while a person may still talk (or not).
    pub fn hold_open(&mut self, open: bool) {
        self.episode.hold_open(open);
    }

    /// A line from the person, entering now.
    pub fn hear(&mut self, line: &str) {
        let now = self.episode.tick();
        self.partner.hear(now, line);
        self.halt();
    }

    /// A stop was heard: the partner's action in flight is cancelled now (the bot
    /// wakes with the interrupted outcome).
    fn halt(&mut self) {
        if self.partner.take_halt() {
            let me = self.partner.agent();
            let cut = self.episode.interrupt(me);
            tracing::debug!(agent = %me, cut, "stop: action in flight cancelled");
        }
    }

    /// One lockstep round, stopping the clock no later than `until` (a scripted line's
    /// tick, a live session's wall-clock tick). `lines` gives the person's lines due at
    /// the round's tick. Returns `false` once the episode is over.
    pub fn round(
        &mut self,
        until: Option<Tick>,
        lines: &mut dyn FnMut(Tick) -> Vec<String>,
        out: &mut dyn Output,
    ) -> Result<bool, ResolveError> {
        if self.ended {
            return Ok(false);
        }
        let bd = self.board.next_deadline();
        for req in self.episode.consults_due(bd) {
            let adj = self.resolver.resolve(&req)?;
            self.episode.adjudicated(req.issue_id, adj);
        }
        let due = [self.board.next_deadline(), until, self.partner.due()].into_iter().flatten().min();
        if !self.episode.advance(due) {
            self.ended = true;
            return Ok(false);
        }
        let now = self.episode.tick();
        let closed = self.board.expire(now);
        self.episode.board_closed(closed);
        for (id, msg, issue) in self.episode.released() {
            let result = self.board.post(id, msg.clone(), now);
            self.episode.posted(id, msg, issue, result);
        }
        if !self.started {
            self.started = true;
            self.partner.start(now);
        }
        let me = self.partner.agent();
        if let Some(seat) = &mut self.seat {
            let board = &self.board;
            for line in seat.expire(|w| board.window(w).is_some_and(|w| w.is_open() && w.offer.is_none())) {
                out.said(now, me, &line);
            }
        }
        for l in lines(now) {
            if let Some(seat) = self.seat.as_mut().filter(|s| s.waiting()) {
                if let Some(r) = crate::seat::reply(&l) {
                    if let Some((msg, issue, said)) = seat.answer(r, me, &self.items) {
                        let result = self.board.post(me, msg.clone(), now);
                        self.episode.posted(me, msg, issue, result);
                        out.said(now, me, &said);
                    }
                    continue;
                }
            }
            self.partner.hear(now, &l);
        }
        self.partner.tick(now);
        self.halt();
        self.flush_partner(out);
        if self.partner.wants_wake() {
            self.episode.nudge(me);
        }
        let inputs = self.episode.wakes();
        let mut outputs: Vec<(AgentId, StepOutput)> = Vec::with_capacity(inputs.len());
        for (id, input) in inputs {
            let step = if id == me && self.seat.is_some() {
                // A human's seat: the bot's own rules deliver what the person agreed to
                // give (its share of the build is empty); its offers wait for the person.
                let mut o = step_supervised(&mut self.agents[id.index()], input, &mut self.episode);
                if let Some(seat) = &mut self.seat {
                    for ask in seat.hold(&mut o.posts, &self.items) {
                        out.said(now, me, &ask);
                    }
                }
                o
            } else if id == me {
                self.partner.step(&mut self.agents[id.index()], input)
            } else {
                step_supervised(&mut self.agents[id.index()], input, &mut self.episode)
            };
            outputs.push((id, step));
        }
        for (id, o) in outputs {
            for (msg, issue) in self.episode.apply(id, o) {
                let result = self.board.post(id, msg.clone(), self.episode.tick());
                self.episode.posted(id, msg, issue, result);
            }
        }
        self.flush_partner(out);
        for ev in self.episode.drain() {
            out.event(&ev);
        }
        out.progress(self.episode.progress());
        Ok(true)
    }

    fn flush_partner(&mut self, out: &mut dyn Output) {
        let now = self.episode.tick();
        for kind in self.partner.drain_events() {
            self.episode.record_external(kind);
        }
        let me = self.partner.agent();
        for line in self.partner.drain_said() {
            out.said(now, me, &line);
        }
    }

    /// Ends the episode: every bot reports its unfinished work, the partner's open plan
    /// goes to task memory as interrupted, `episode_end` is written.
    pub fn finish(mut self, out: &mut dyn Output) -> (Finished, Partner) {
        self.partner.finish(self.episode.tick());
        self.flush_partner(out);
        for (id, input) in self.episode.final_inputs() {
            let o = self.agents[id.index()].step(input);
            self.episode.apply(id, o);
        }
        let progress = self.episode.end();
        for ev in self.episode.drain() {
            out.event(&ev);
        }
        out.progress(progress);
        let finished = Finished { progress, reason: self.episode.ended().unwrap_or(EndReason::Stalled) };
        (finished, self.partner)
    }
}

/// Runs a scripted session: each line enters at its tick; the episode stays open until
/// the last line has been handled, then runs to its end.
pub fn run_script(
    setup: &Setup,
    partner: Partner,
    script: &Script,
    resolver: Box<dyn Resolver + Send>,
    out: &mut dyn Output,
) -> Result<(Finished, Partner), ResolveError> {
    let _span = tracing::info_span!("interactive", id = %setup.name, lines = script.lines.len()).entered();
    let mut d = Driver::new(setup, partner, resolver);
    let mut queue: VecDeque<(Tick, String)> = script.lines.iter().cloned().collect();
    loop {
        let open = !queue.is_empty() || d.partner.holding();
        d.hold_open(open);
        let next = queue.front().map(|(t, _)| *t);
        let mut take = |now: Tick| {
            let mut v = Vec::new();
            while queue.front().is_some_and(|(t, _)| *t <= now) {
                if let Some((_, l)) = queue.pop_front() {
                    v.push(l);
                }
            }
            v
        };
        if !d.round(next, &mut take, out)? {
            break;
        }
    }
    Ok(d.finish(out))
}
