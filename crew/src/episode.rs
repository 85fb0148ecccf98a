//! The episode core: the world, the clock and every agent's schedule, advanced in
//! lockstep (DESIGN section 2). It knows nothing of how agents and the board are
//! reached: it says what it needs next ([`Episode::poll`]) and a driver answers
//! ([`Episode::answer`]); the order of a round is written once, in [`round`]. The four
//! drivers are the synchronous [`stepper`], the actor runtime, the Minecraft driver and
//! the interactive one.
//!
//! Time jumps: a 40-tick walk costs one step, not forty. Board news is delivered one
//! tick after posting. Trace events accumulate in order and are drained with
//! [`Episode::drain`].
//!
//! With an external tier-3 adjudicator, agents' gray-zone consults are recorded here
//! with the tick at which their verdicts enter (see [`consult`]); the driver resolves
//! them in between, however long that takes, and the trace does not depend on it.

mod channel;
pub mod consult;
mod exec;
mod external;
mod faults;
pub mod oracle;
mod parts;
pub(crate) mod probe;
mod record;
mod repairs;
pub mod replay;
mod round;
mod sight;
pub mod stepper;

use std::sync::Arc;

use gatecrew_protocol::trace::{Event, EventKind, TRACE_VERSION};
use gatecrew_protocol::{AgentId, BoardError, BoardMessage, IssueId, Receipt as BoardReceipt, Tick, WindowClosed};
use gatecrew_world::World;

use crate::agent::{BoardNews, Intent, StepInput, StepOutput};
use crate::setup::Setup;

pub use gatecrew_protocol::trace::EndReason;
pub use probe::WorldProbe;
pub use round::{Answer, Finished, Need, STEP_BATCH, Stepped};
pub use sight::Sight;

/// Blocks in place so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Correct blocks at correct positions.
    pub correct: u32,
    /// Blueprint blocks.
    pub total: u32,
    /// The tick they were counted at.
    pub tick: u64,
    /// Blocks bots placed outside the blueprint that are still standing (scaffolds not
    /// taken down); one left in a blueprint cell counts as a wrong block there instead.
    pub scaffold_left: u32,
    /// Wrong blocks dug out of blueprint cells and replaced by the cell's own block.
    pub blocks_replaced: u32,
}

/// The episode core, in its parts (see `parts.rs`). See the module docs.
#[derive(Debug, Clone)]
pub struct Episode {
    /// What the trace says of the episode, and its buffer.
    trace: parts::Trace,
    /// The clock and why the episode ended.
    clock: parts::Clock,
    /// The world and what is built in it.
    site: parts::Site,
    /// Every agent's schedule.
    crew: parts::Crew,
    /// How the crew coordinates beside the board.
    coord: parts::Coordination,
    faults: faults::Faults,
    /// The `llm` executor's state (`None`: scripted).
    exec: Option<crate::executor::state::ExecState>,
    phase: round::Phase,
}

impl Episode {
    /// A new episode from a setup; nothing happened yet.
    pub fn new(setup: &Setup) -> Self {
        let n = setup.world.agent_count();
        let mut slots = vec![parts::Slot::default(); n];
        for c in &setup.faults.crash {
            if let Some(s) = slots.get_mut(c.agent as usize) {
                s.crash_at = Some(Tick(c.tick));
            }
        }
        let style = crate::style::of(setup.policy);
        Episode {
            trace: parts::Trace {
                id: setup.name.clone(),
                seed: setup.seed,
                config_hash: setup.config_hash.clone(),
                labels: setup.labels.clone(),
                policy_kind: setup.policy,
                experiment: setup.gate.spec().experiment,
                events: Vec::new(),
                window_issue: Default::default(),
                oracle_ticks: setup.oracle_ticks,
                scorer: setup.scorer.clone(),
                probe: setup.probe.clone(),
            },
            clock: parts::Clock {
                tick: Tick(0),
                tick_limit: setup.tick_limit,
                started: false,
                ended: None,
                held_open: false,
            },
            site: parts::Site {
                data: setup.data.clone(),
                blueprint: setup.blueprint.clone(),
                world: Arc::new(setup.world.clone()),
                external: None,
                repairs: repairs::Repairs::default(),
            },
            crew: parts::Crew {
                slots,
                muted: (0..n).map(|i| setup.faults.mute.contains(&(i as u32))).collect(),
                completed: 0,
                defer_views: false,
            },
            coord: parts::Coordination {
                style,
                channel: style.channel(setup),
                tier3: consult::Tier3::for_setup(setup),
            },
            faults: faults::Faults::new(&setup.faults, setup.seed),
            exec: setup.executor.model().map(|m| crate::executor::state::ExecState::new(m.clone(), setup.seed, n)),
            phase: round::Phase::default(),
        }
    }

    /// Keeps the episode from ending because nothing is left to do while a person may
    /// still give a partner work (`gatecrew run --interactive`); the tick limit still
    /// ends it. The driver then passes the next tick it needs as a deadline.
    pub fn hold_open(&mut self, open: bool) {
        self.clock.held_open = open;
    }

    /// Wakes an agent at the current tick (a person's line changed its plan). Only
    /// for an agent with no action in flight.
    pub fn nudge(&mut self, agent: AgentId) {
        if let Some(s) = self.crew.slots.get_mut(agent.index()) {
            s.wake = true;
            s.done = false;
        }
    }

    /// Appends an event from outside the cores (a human partner's) at the current tick.
    pub fn record_external(&mut self, kind: EventKind) {
        self.push(kind);
    }

    /// Cancels `agent`'s action in flight in the simulator (a person told the bot to
    /// stop): a walk ends where the bot has got to, anything else is not done
    /// ([`World::interrupt`]). The action is recorded with its ticks so far and the
    /// `interrupted` reason, and the agent wakes now with that outcome. `false` when
    /// nothing is in flight here (an action on a real server runs to its end).
    pub fn interrupt(&mut self, agent: AgentId) -> bool {
        let now = self.clock.tick;
        let Some(s) = self.crew.slots.get_mut(agent.index()) else { return false };
        let Some((end, pending)) = s.pending.take() else { return false };
        // Reading costs may have pushed the end back: those ticks were not walked.
        let elapsed = pending.ticks.saturating_sub(end.0.saturating_sub(now.0));
        if let Some(x) = &mut self.site.external {
            x.ready[agent.index()] = None;
        }
        let outcome = self.world_mut().interrupt(agent, pending, elapsed);
        self.record_action(agent, &outcome);
        let s = &mut self.crew.slots[agent.index()];
        s.outcome = Some(outcome);
        s.wake = true;
        true
    }

    /// Whether `agent` has an action in flight.
    pub fn acting(&self, agent: AgentId) -> bool {
        agent.index() < self.crew.slots.len() && !self.idle(agent.index())
    }

    /// The episode's clock: the tick of the round in progress (or the last one).
    pub fn tick(&self) -> Tick {
        self.clock.tick
    }

    /// The world as it is now.
    pub fn world(&self) -> &World {
        &self.site.world
    }

    /// Why it ended, once it has.
    pub fn ended(&self) -> Option<EndReason> {
        self.clock.ended
    }

    fn push(&mut self, kind: EventKind) {
        self.trace.events.push(Event { v: TRACE_VERSION, ep: self.trace.id.clone(), t: self.clock.tick.0, kind });
    }

    /// Trace events so far, in order; the buffer is emptied. The setup's
    /// [`WorldProbe`], if any, sees the world first: every driver drains once per step.
    pub fn drain(&mut self) -> Vec<Event> {
        if let Some(p) = &self.trace.probe {
            p.step(self.clock.tick, &self.site.world, &self.trace.events);
        }
        std::mem::take(&mut self.trace.events)
    }

    /// Blocks in place.
    pub fn progress(&self) -> Progress {
        let correct = self.site.blueprint.cells().iter().filter(|c| self.site.world.has_cell(c)).count() as u32;
        let scaffold_left = self.site.world.scaffold_left(&self.site.blueprint).len() as u32;
        let blocks_replaced = self.site.repairs.replaced();
        Progress {
            correct,
            total: self.site.blueprint.len() as u32,
            tick: self.clock.tick.0,
            scaffold_left,
            blocks_replaced,
        }
    }

    /// Advances to the next tick at which something happens and applies the actions
    /// completing then. Returns `false` once the episode is over (call
    /// [`Self::final_inputs`] and [`Self::end`]).
    pub(super) fn advance(&mut self, board_deadline: Option<Tick>) -> bool {
        if self.clock.ended.is_some() {
            return false;
        }
        if !self.clock.started {
            self.clock.started = true;
            self.start();
            return true;
        }
        if self.work_over() {
            self.clock.ended = Some(self.judge(EndReason::Stalled));
            return false;
        }
        let Some(next) = self.next_event(board_deadline) else {
            self.clock.ended = Some(self.judge(EndReason::Stalled));
            return false;
        };
        if next.0 > self.clock.tick_limit {
            self.clock.tick = Tick(self.clock.tick_limit);
            self.clock.ended = Some(self.judge(EndReason::TickLimit));
            return false;
        }
        self.clock.tick = next.max(self.clock.tick);
        let now = self.clock.tick;
        for i in 0..self.crew.slots.len() {
            let due = matches!(&self.crew.slots[i].pending, Some((t, _)) if *t <= now);
            if due {
                let (_, pending) = self.crew.slots[i].pending.take().expect("checked above");
                let agent = AgentId(i as u32);
                let delivered = self.site.external.as_mut().and_then(|x| x.ready[i].take());
                let mistaken = std::mem::take(&mut self.crew.slots[i].mistaken);
                let (outcome, receipt) = match (delivered, mistaken) {
                    (Some(delivered), _) => delivered,
                    (None, Some(pick)) => self.mistaken_outcome(agent, pending, pick),
                    (None, None) => self.world_mut().complete(agent, pending),
                };
                self.record_action(agent, &outcome);
                self.crew.slots[i].outcome = Some(outcome);
                self.crew.slots[i].wake = true;
                if let Some((to, r)) = receipt {
                    if let Some(s) = self.crew.slots.get_mut(to.index()) {
                        s.receipts.push(r);
                        s.wake = true;
                    }
                }
            }
        }
        self.enter_verdicts();
        for s in &mut self.crew.slots {
            if s.wait_until.is_some_and(|t| t <= now) {
                s.wait_until = None;
                s.wake = true;
            }
            if s.news_due.is_some_and(|t| t <= now) {
                s.news_due = None;
                s.wake = true;
            }
            if s.delivery_due.is_some_and(|t| t <= now) {
                s.delivery_due = None;
                s.wake = true;
            }
        }
        self.channel_expire(now);
        true
    }

    /// Every agent is done, or the blueprint is complete with no action in flight.
    fn work_over(&self) -> bool {
        if self.clock.held_open {
            return false;
        }
        let all_idle = (0..self.crew.slots.len()).all(|i| self.idle(i));
        let all_done = all_idle && self.crew.slots.iter().all(|s| s.done);
        // A finished blueprint ends the episode only once the scaffolds are down too.
        let p = self.progress();
        all_done || p.correct == p.total && p.scaffold_left == 0 && all_idle
    }

    /// The next tick at which something happens, if any.
    fn next_event(&self, board_deadline: Option<Tick>) -> Option<Tick> {
        let mut next: Option<Tick> = board_deadline;
        let mut consider = |t: Tick| next = Some(next.map_or(t, |n| n.min(t)));
        for s in &self.crew.slots {
            if let Some((t, _)) = &s.pending {
                consider(*t);
            }
            // A bot that only watches for teammates' blocks and has looked since the last
            // action completed has nothing new to see: its wake-up alone does not keep
            // the episode going (the blocks it waits for cannot come any more).
            if let Some(t) = s.wait_until.filter(|_| !(s.watching && s.looked == self.crew.completed)) {
                consider(t);
            }
            if let Some(t) = s.news_due {
                consider(t);
            }
            if let Some(t) = s.delivery_due {
                consider(t);
            }
        }
        if let Some(t) = self.coord.channel.as_ref().and_then(|c| c.next_deadline()) {
            consider(t);
        }
        if let Some(t) = self.coord.tier3.as_ref().and_then(consult::Tier3::next_due) {
            consider(t);
        }
        if let Some(t) = self.faults.next_due() {
            consider(t);
        }
        next
    }

    /// A complete blueprint is a complete episode, whatever else was going on.
    fn judge(&self, otherwise: EndReason) -> EndReason {
        if self.progress().correct == self.site.blueprint.len() as u32 {
            EndReason::Complete
        } else if !self.crew.slots.is_empty() && (0..self.crew.slots.len()).all(|i| self.failed(i)) {
            EndReason::AgentsFailed
        } else {
            otherwise
        }
    }

    fn start(&mut self) {
        let agents = (0..self.crew.slots.len() as u32).map(AgentId).collect();
        self.push(EventKind::EpisodeStart {
            policy: self.trace.policy_kind,
            seed: self.trace.seed,
            config_hash: self.trace.config_hash.clone(),
            agents,
            blueprint_blocks: self.site.blueprint.len() as u32,
            class: self.trace.labels.class,
            template: self.trace.labels.template.clone(),
            split: self.trace.labels.split,
            warnings: self.trace.labels.warnings.clone(),
            cells_dropped: (self.trace.labels.cells_dropped > 0).then_some(self.trace.labels.cells_dropped),
            humans: self.trace.labels.humans.clone(),
            blueprint: Some(self.site.blueprint.name.clone()),
            executor: self.exec.as_ref().map(|x| x.model().label()),
            experiment: self.trace.experiment,
        });
        for s in &mut self.crew.slots {
            s.wake = true;
        }
    }

    /// Windows the board closed at this tick: recorded, and news for everyone.
    pub(super) fn board_closed(&mut self, closed: Vec<WindowClosed>) {
        for c in closed {
            self.record_close(&c);
            self.broadcast(BoardNews::Closed(c));
        }
    }

    /// News for every agent but the muted: a mute fault cuts a bot off the board both
    /// ways, so it neither hears a request nor answers or hands anything over.
    fn broadcast(&mut self, news: BoardNews) {
        let due = self.clock.tick + 1;
        for (s, _) in self.crew.slots.iter_mut().zip(&self.crew.muted).filter(|(_, muted)| !**muted) {
            s.news.push(news.clone());
            s.news_due = Some(s.news_due.map_or(due, |d| d.min(due)));
        }
    }

    /// The inputs of the agents to wake now, in id order, from agent index `from` on and
    /// at most [`STEP_BATCH`](round::STEP_BATCH) of them; and where the next batch starts,
    /// if any agent is left to look at.
    pub(super) fn wakes(&mut self, from: usize) -> (Vec<(AgentId, StepInput)>, Option<usize>) {
        let now = self.clock.tick;
        let mut out = Vec::new();
        for i in from..self.crew.slots.len() {
            if out.len() == round::STEP_BATCH {
                return (out, Some(i));
            }
            if !self.crew.slots[i].wake || self.failed(i) {
                continue;
            }
            let agent = AgentId(i as u32);
            let view = self.view_for(agent);
            let random_crash = self.faults.crashes();
            let s = &mut self.crew.slots[i];
            s.wake = false;
            s.reading = crate::style::reading_ticks(self.coord.style, agent, &s.news);
            self.exec_wake(i, &view);
            let s = &mut self.crew.slots[i];
            let chosen_crash = s.crash_at.is_some_and(|t| t <= now);
            if chosen_crash {
                s.crash_at = None;
            }
            // A real server's bots are not crash-drilled (docs/minecraft.md); the draw is
            // still made, so the fault stream stays the simulator's.
            let crash = (chosen_crash || random_crash) && self.site.external.is_none();
            out.push((
                agent,
                StepInput {
                    tick: now,
                    outcome: s.outcome.take(),
                    receipts: std::mem::take(&mut s.receipts),
                    board: std::mem::take(&mut s.news),
                    view,
                    verdicts: std::mem::take(&mut s.verdicts),
                    final_call: false,
                    crash,
                    style: std::mem::take(&mut s.deliveries),
                },
            ));
        }
        (out, None)
    }

    /// The last inputs, asking every agent for its unfinished work, from agent index
    /// `from` on, a batch at a time like [`Episode::wakes`].
    pub(super) fn final_inputs(&mut self, from: usize) -> (Vec<(AgentId, StepInput)>, Option<usize>) {
        let now = self.clock.tick;
        let to = self.crew.slots.len().min(from + round::STEP_BATCH);
        let inputs = (from..to)
            .map(|i| {
                let agent = AgentId(i as u32);
                let view = self.view_for(agent);
                let s = &mut self.crew.slots[i];
                s.reading = crate::style::reading_ticks(self.coord.style, agent, &s.news);
                let input = StepInput {
                    tick: now,
                    outcome: s.outcome.take(),
                    receipts: std::mem::take(&mut s.receipts),
                    board: std::mem::take(&mut s.news),
                    view,
                    verdicts: std::mem::take(&mut s.verdicts),
                    final_call: true,
                    crash: false,
                    style: std::mem::take(&mut s.deliveries),
                };
                (agent, input)
            })
            .collect();
        (inputs, (to < self.crew.slots.len()).then_some(to))
    }

    /// The supervisor restarted an agent from its snapshot.
    pub(super) fn agent_restarted(&mut self, agent: AgentId, cause: &str) {
        self.push(EventKind::Restart { agent, cause: cause.to_owned() });
    }

    /// Takes one agent's output: records its notes, schedules its intent, and returns
    /// its board messages for the driver to post, in order.
    pub(super) fn apply(&mut self, agent: AgentId, out: StepOutput) -> Vec<(BoardMessage, Option<IssueId>)> {
        let StepOutput { notes, posts, consults, style, intent } = out;
        for note in notes {
            self.record_note(agent, note);
        }
        for c in consults {
            self.consult(agent, c);
        }
        let muted = self.crew.muted.get(agent.index()).copied().unwrap_or(false);
        let (style, posts) = if muted {
            (style, posts)
        } else {
            let (style, posts, lost) = self.exec_write(agent, style, posts);
            for issue in lost {
                self.channel_lost(agent, issue);
            }
            (style, posts)
        };
        if !muted {
            for aside in style {
                self.hear(agent, aside);
            }
        } else {
            // Nothing a muted bot says arrives; an issue it hands the style's channel is
            // lost like a dropped one.
            for issue in style.iter().filter_map(crate::style::Aside::issue) {
                self.channel_lost(agent, issue);
            }
        }
        let now = self.clock.tick;
        let Some(slot) = self.crew.slots.get(agent.index()) else {
            return Vec::new();
        };
        let _ = slot;
        self.crew.slots[agent.index()].watching = false;
        match intent {
            Intent::Continue => {}
            Intent::Act(action) => {
                let pending = self.world_mut().begin(agent, action);
                let (think, mistaken) = self.exec_act(agent, &action);
                let s = &mut self.crew.slots[agent.index()];
                match &mut self.site.external {
                    // On a real server the action runs there; its outcome is delivered.
                    Some(x) => x.start(agent, action, pending),
                    None => {
                        s.pending = Some((now + think + pending.ticks, pending));
                        s.mistaken = mistaken;
                    }
                }
                s.wait_until = None;
                s.done = false;
            }
            Intent::Wait(until) => {
                let s = &mut self.crew.slots[agent.index()];
                s.wait_until = until.map(|t| t.max(now + 1));
                s.done = false;
            }
            Intent::Watch(until) => {
                let s = &mut self.crew.slots[agent.index()];
                s.wait_until = Some(until.max(now + 1));
                s.done = false;
                s.watching = true;
                s.looked = self.crew.completed;
            }
            Intent::Done => {
                let s = &mut self.crew.slots[agent.index()];
                s.wait_until = None;
                s.done = true;
            }
        }
        // Reading messages costs the baselines work time: the action in flight (or the
        // wait) ends that much later.
        let s = &mut self.crew.slots[agent.index()];
        let reading = std::mem::take(&mut s.reading);
        if reading > 0 {
            if let Some((t, _)) = &mut s.pending {
                *t = *t + reading;
            } else if let Some(t) = &mut s.wait_until {
                *t = *t + reading;
            }
        }
        // A muted agent (a fault) is cut off the board: nothing it posts reaches it.
        if muted { Vec::new() } else { self.transmit(agent, posts) }
    }

    /// The board's answer to a message `agent` posted.
    pub fn posted(
        &mut self,
        agent: AgentId,
        msg: BoardMessage,
        issue: Option<IssueId>,
        result: Result<BoardReceipt, BoardError>,
    ) {
        match result {
            Ok(receipt) => {
                let window = receipt.posted.window;
                // A style whose board is free chat (flatcomm) records the exchange as its
                // chat lines.
                if !self.channel_posted(receipt.posted.msg.from(), receipt.posted.msg.to()) {
                    self.record_board(&receipt.posted.msg, window);
                }
                if matches!(msg, BoardMessage::RequestMaterial { .. }) {
                    if let Some(id) = issue {
                        self.trace.window_issue.insert(window, id);
                    }
                    self.push(EventKind::Window {
                        window,
                        event: gatecrew_protocol::trace::WindowEvent::Open,
                        issue_id: issue,
                        outcome: None,
                    });
                }
                self.broadcast(BoardNews::Posted { window, msg: receipt.posted.msg.clone() });
                if let Some(c) = receipt.closed {
                    self.board_closed(vec![c]);
                }
            }
            Err(e) => {
                self.record_reject(agent, &msg, &e);
                // A copy of an accepted message changed nothing: the sender's view of the
                // original stands, and telling it "rejected" would undo what it did.
                if e.kind() == gatecrew_protocol::RejectKind::Duplicate {
                    return;
                }
                let due = self.clock.tick + 1;
                if let Some(s) = self.crew.slots.get_mut(agent.index()) {
                    s.news.push(BoardNews::Rejected { msg, error: e.kind() });
                    s.news_due = Some(s.news_due.map_or(due, |d| d.min(due)));
                }
            }
        }
    }

    /// Writes `episode_end`; returns the final progress.
    pub(super) fn end(&mut self) -> Progress {
        let reason = self.clock.ended.unwrap_or(EndReason::Stalled);
        let p = self.progress();
        metrics::histogram!("gatecrew_episode_ticks").record(p.tick as f64);
        metrics::counter!("gatecrew_episodes_total", "reason" => reason.as_str()).increment(1);
        tracing::info!(episode = %self.trace.id, reason = reason.as_str(), correct = p.correct, total = p.total, ticks = p.tick, "episode ended");
        let tsr = if p.total == 0 { 1.0 } else { f64::from(p.correct) / f64::from(p.total) };
        let scores = self.trace.scorer.as_ref().map(|s| s.score(&self.site.world)).unwrap_or_default();
        self.push(EventKind::EpisodeEnd {
            tsr,
            complete: p.correct == p.total,
            correct_blocks: p.correct,
            blueprint_blocks: p.total,
            reason,
            blocks_replaced: (p.blocks_replaced > 0).then_some(p.blocks_replaced),
            scores,
        });
        p
    }
}
