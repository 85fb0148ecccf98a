//! H, what happened to the bot (DESIGN section 4): the gate's per-issue escalation
//! history, from which the H feature and the cooldowns come, and the last few verified
//! outcomes.

use std::collections::VecDeque;

use gatecrew_protocol::Tick;
use gatecrew_protocol::trace::ActionName;

/// H: the escalation history and the short history of verified outcomes.
#[derive(Debug, Clone, Default)]
pub(super) struct History {
    /// Per issue key: refusals (and their cooldowns), zero-yield asks, timeouts.
    pub(super) gate: gatecrew_gating::History,
    /// The last verified outcomes, oldest first.
    recent: VecDeque<(Tick, ActionName, bool)>,
}

impl History {
    /// A verified outcome at `now`; the oldest beyond `len` is forgotten.
    pub(super) fn remember(&mut self, now: Tick, action: ActionName, ok: bool, len: usize) {
        self.recent.push_back((now, action, ok));
        while self.recent.len() > len {
            self.recent.pop_front();
        }
    }

    /// The last verified outcomes, oldest first.
    pub(super) fn recent(&self) -> impl Iterator<Item = &(Tick, ActionName, bool)> + '_ {
        self.recent.iter()
    }
}
