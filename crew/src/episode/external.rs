//! The episode against a real world (a Minecraft server through a bridge). The
//! simulator prices an action and applies it at its completion tick; a real server runs
//! it for as long as it takes. So, in external mode:
//!
//! * applying an agent's output still prices an action on the episode's world (the driver's
//!   mirror of the server) but does not schedule it: it queues it for the driver,
//!   which takes it with [`Episode::take_started`] and runs it on the server;
//! * the driver turns what the bot observed into a verified [`Outcome`] and hands it
//!   back with [`Episode::deliver`] at the tick it completed (game time, 20 ticks a
//!   second); the round's advance then applies it instead of the simulator's;
//! * [`Episode::next_due`] tells the driver when the next timer is due, so it can
//!   sleep until then or until an outcome arrives, whichever comes first;
//! * [`Episode::fail_agent`] takes an agent out for good (its bot was kicked, the
//!   bridge died): the trace gets an `agent_failed` event, and the crew goes on
//!   without it; when every agent failed, the episode ends as `agents_failed`.
//!
//! A driver waits for the next due tick while answering [`crate::Need::Deadline`]. The
//! default (simulated) path never enters this module.

use std::sync::Arc;

use gatecrew_protocol::trace::EventKind;
use gatecrew_protocol::{AgentId, Tick};
use gatecrew_world::{Action, Outcome, Pending, Receipt, World};

use super::Episode;
use crate::setup::Setup;

/// A verified outcome, and the receipt of a `give`'s receiver.
pub(super) type Delivered = (Outcome, Option<(AgentId, Receipt)>);

/// The external world's side of the episode, per agent: the action running there,
/// its verified outcome once delivered, and whether the agent's bot is gone for good.
#[derive(Debug, Clone)]
pub(super) struct External {
    /// Actions started since the driver last looked.
    started: Vec<(AgentId, Action)>,
    running: Vec<Option<Pending>>,
    pub(super) ready: Vec<Option<Delivered>>,
    failed: Vec<bool>,
}

impl External {
    fn new(agents: usize) -> Self {
        External {
            started: Vec::new(),
            running: vec![None; agents],
            ready: vec![None; agents],
            failed: vec![false; agents],
        }
    }

    /// An agent started an action: it runs outside until its outcome is delivered.
    pub(super) fn start(&mut self, agent: AgentId, action: Action, pending: Pending) {
        self.running[agent.index()] = Some(pending);
        self.started.push((agent, action));
    }
}

impl Episode {
    /// An episode whose actions run in an external world. The setup's world becomes
    /// the driver's mirror: it prices actions, answers observations and the oracle,
    /// and the driver keeps it in step with what the bots observe
    /// ([`Self::world_mut`]).
    pub fn new_external(setup: &Setup) -> Self {
        let mut e = Episode::new(setup);
        e.site.external = Some(External::new(e.crew.slots.len()));
        // The executor model stands in for a language model's costs in the simulator;
        // a real server's bots take the time they take.
        e.exec = None;
        e
    }

    /// The world, to change: the episode's own actions go through it, and an external
    /// world's driver brings the mirror in line with observations through it.
    pub fn world_mut(&mut self) -> &mut World {
        // Copied only if a clone of the episode or a view still being taken shares it:
        // the runtimes take every view of a round before the round's outputs change
        // the world (`Sight`).
        Arc::make_mut(&mut self.site.world)
    }

    /// Actions the agents started since the last call, in order, for the driver to run.
    pub fn take_started(&mut self) -> Vec<(AgentId, Action)> {
        self.site.external.as_mut().map(|o| std::mem::take(&mut o.started)).unwrap_or_default()
    }

    /// Actions running in the external world whose outcome has not been delivered.
    pub fn in_flight(&self) -> usize {
        self.site.external.as_ref().map_or(0, |x| x.running.iter().filter(|r| r.is_some()).count())
    }

    /// Whether an agent is out of the episode.
    pub fn is_failed(&self, agent: AgentId) -> bool {
        agent.index() < self.crew.slots.len() && self.failed(agent.index())
    }

    /// The earliest tick at which the round's advance has something to do (`None`:
    /// nothing is scheduled; then only a delivered outcome can move the episode on, or,
    /// with nothing in flight either, `advance` ends it).
    pub fn next_due(&self, board_deadline: Option<Tick>) -> Option<Tick> {
        if !self.clock.started || self.clock.ended.is_some() || self.work_over() {
            return Some(self.clock.tick);
        }
        self.next_event(board_deadline)
    }

    /// Hands over the verified outcome of `agent`'s action in flight, completed at
    /// `at` (not before now), and the receipt of a `give`'s receiver. Ignored when the
    /// agent has nothing in flight (it failed meanwhile).
    pub fn deliver(&mut self, agent: AgentId, outcome: Outcome, receipt: Option<(AgentId, Receipt)>, at: Tick) {
        let now = self.clock.tick;
        let (Some(x), Some(s)) = (&mut self.site.external, self.crew.slots.get_mut(agent.index())) else {
            return;
        };
        let Some(pending) = x.running[agent.index()].take() else {
            return;
        };
        s.pending = Some((at.max(now), pending));
        x.ready[agent.index()] = Some((outcome, receipt));
    }

    /// Cancels `agent`'s action running in the external world (a person told the bot
    /// to stop), `elapsed` ticks after it was sent: it is recorded now as interrupted,
    /// as [`Episode::interrupt`] records one in the simulator, and the agent wakes with
    /// that outcome. The driver stops the bot in the game; the command's own reply,
    /// when it comes, only brings the mirror in line (nothing is running to deliver it
    /// to). `false` when nothing runs there.
    pub fn interrupt_running(&mut self, agent: AgentId, elapsed: u64) -> bool {
        let i = agent.index();
        let Some(pending) = self.site.external.as_mut().and_then(|x| x.running.get_mut(i)).and_then(Option::take)
        else {
            return false;
        };
        let outcome = self.world_mut().interrupt(agent, pending, elapsed);
        self.record_action(agent, &outcome);
        let s = &mut self.crew.slots[i];
        s.outcome = Some(outcome);
        s.wake = true;
        true
    }

    /// Takes an agent out for good: its bot is gone. Records why; its action in flight
    /// is dropped, it is never woken again, and at the end it still reports its
    /// unfinished work. A second call for the same agent changes nothing.
    pub fn fail_agent(&mut self, agent: AgentId, cause: &str) {
        let i = agent.index();
        let (Some(x), Some(s)) = (&mut self.site.external, self.crew.slots.get_mut(i)) else {
            return;
        };
        if x.failed[i] {
            return;
        }
        x.failed[i] = true;
        x.running[i] = None;
        x.ready[i] = None;
        s.done = true;
        s.pending = None;
        s.wait_until = None;
        s.wake = false;
        metrics::counter!("gatecrew_agents_failed_total").increment(1);
        tracing::warn!(%agent, cause, "agent failed");
        self.push(EventKind::AgentFailed { agent, cause: cause.to_owned() });
    }

    /// Nothing in flight for agent `i`, in the simulator or in the external world.
    pub(super) fn idle(&self, i: usize) -> bool {
        self.crew.slots[i].pending.is_none() && self.site.external.as_ref().is_none_or(|x| x.running[i].is_none())
    }

    /// Whether agent `i`'s bot is gone for good (only ever in an external world).
    pub(super) fn failed(&self, i: usize) -> bool {
        self.site.external.as_ref().is_some_and(|x| x.failed[i])
    }
}
