//! The interactive episode driver: the synchronous stepper's loop (episode core, board
//! core, agent cores) with a person's lines entering between lockstep rounds and the
//! partner bot stepped through its [`Partner`]. A line enters at a tick: a scripted
//! line at its own tick (the driver stops the clock there), a live line at the tick the
//! episode has reached when it arrives. Interactive runs use this driver, not the
//! actor runtime: the person's lines have to enter between rounds, and the stepper is
//! the reference the actors reproduce anyway.

use std::collections::VecDeque;

use gatecrew_crew::agent::{AgentCore, StepInput};
use gatecrew_crew::episode::stepper::{step_all, step_supervised};
use gatecrew_crew::{Answer, Episode, Finished, Need, Observer, ResolveError, Resolver, Setup, Stepped};
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

    /// The episode's clock: the tick a person's line enters at.
    pub fn tick(&self) -> Tick {
        self.episode.tick()
    }

    /// The world as it is now (where the bots stand, what is built).
    pub fn world(&self) -> &gatecrew_world::World {
        self.episode.world()
    }

    /// The partner core (its plan, its memory, what it said), for the front end.
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
        loop {
            let answer = match self.episode.poll() {
                Need::Deadline => Answer::Deadline(
                    [self.board.next_deadline(), until, self.partner.due()].into_iter().flatten().min(),
                ),
                Need::Adjudicate(reqs) => {
                    let adjs = reqs.iter().map(|r| Ok((r.issue_id, self.resolver.resolve(r)?)));
                    Answer::Adjudicated(adjs.collect::<Result<_, ResolveError>>()?)
                }
                Need::Expire(now) => Answer::Expired(self.board.expire(now)),
                Need::Post { from, msg, now } => Answer::Posted(self.board.post(from, msg, now)),
                Need::Outside(now) => {
                    self.outside(now, lines, out);
                    Answer::Ready
                }
                Need::Step(inputs) => Answer::Stepped(self.step(inputs, out)),
                Need::Flush => {
                    self.flush(out);
                    self.episode.answer(Answer::Ready);
                    return Ok(true);
                }
                // Answered by `finish`, after the partner's own ending.
                Need::Over(_) | Need::Done(_) => {
                    self.ended = true;
                    return Ok(false);
                }
            };
            self.episode.answer(answer);
        }
    }

    /// Before anyone is woken: the partner starts (first round), the seat's questions
    /// that no longer stand are withdrawn, the person's lines enter (a yes or no to the
    /// seat's question is posted at once), the partner's clock ticks.
    fn outside(&mut self, now: Tick, lines: &mut dyn FnMut(Tick) -> Vec<String>, out: &mut dyn Output) {
        if !self.started {
            self.started = true;
            self.partner.start(now);
        }
        let me = self.partner.agent();
        if let Some(seat) = &mut self.seat {
            let board = &self.board;
            for line in seat.expire(|w| board.window(w).is_some_and(|w| w.is_open() && w.offer().is_none())) {
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
    }

    /// Steps the awake agents; the partner's bot through the partner, or, in a human's
    /// seat, by the bot's own rules with its offers held for the person.
    fn step(&mut self, inputs: Vec<(AgentId, StepInput)>, out: &mut dyn Output) -> Vec<Stepped> {
        let me = self.partner.agent();
        let now = self.episode.tick();
        inputs
            .into_iter()
            .map(|(id, input)| {
                if id != me {
                    return step_supervised(&mut self.agents[id.index()], id, input);
                }
                let Some(seat) = &mut self.seat else {
                    return Stepped::ok(id, self.partner.step(&mut self.agents[id.index()], input));
                };
                // A human's seat: the bot's own rules deliver what the person agreed to
                // give (its share of the build is empty); its offers wait for the person.
                let mut s = step_supervised(&mut self.agents[id.index()], id, input);
                for ask in seat.hold(&mut s.output.posts, &self.items) {
                    out.said(now, me, &ask);
                }
                s
            })
            .collect()
    }

    fn flush(&mut self, out: &mut dyn Output) {
        self.flush_partner(out);
        for ev in self.episode.drain() {
            out.event(&ev);
        }
        out.progress(self.episode.progress());
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
        if !self.ended {
            // Stopped between rounds (the person quit): the episode ends here.
            self.episode.stop();
            let need = self.episode.poll();
            debug_assert!(matches!(need, Need::Over(_)), "stopped between rounds: {need:?}");
        }
        self.partner.finish(self.episode.tick());
        self.flush_partner(out);
        self.episode.answer(Answer::Ready);
        loop {
            let answer = match self.episode.poll() {
                Need::Step(inputs) => Answer::Stepped(step_all(&mut self.agents, inputs)),
                Need::Flush => {
                    for ev in self.episode.drain() {
                        out.event(&ev);
                    }
                    out.progress(self.episode.progress());
                    Answer::Ready
                }
                Need::Done(finished) => return (finished, self.partner),
                other => unreachable!("after the end the episode needs only last steps and a flush: {other:?}"),
            };
            self.episode.answer(answer);
        }
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
