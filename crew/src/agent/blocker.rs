//! B, what holds a bot back (DESIGN section 4): its open issues, one per blocker and
//! kind, the waits on them, the local recovery in progress, items nobody supplied,
//! escalations in flight and issues parked for a verdict. The methods here touch this
//! part alone; deciding what to do about a blocker is the agent's.

use std::collections::BTreeMap;

use gatecrew_gating::{Features, Issue, IssueKey};
use gatecrew_protocol::trace::{IssueName, ResolvedBy};
use gatecrew_protocol::{AgentId, IssueId, ItemId, Standing, Tick, WindowId};

use super::{AgentTuning, Note, consult, explore, given_up, recover};
use crate::plan::NodeId;

/// What a blocker is about: an item (material or tool) or one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Blocker {
    Item(ItemId),
    Node(NodeId),
}

/// An issue not yet resolved: one per blocker and kind of issue (DESIGN section 8: a
/// re-detection of the same blocker is the same issue, whatever its features are now).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct OpenIssue {
    pub(super) id: IssueId,
    kind: IssueName,
    /// For an item blocker: how many of the item the agent must hold for the blocker to
    /// be gone (what it held at detection plus what was missing). Items that arrive any
    /// way at all (a hand-over outside a window, a pick-up, its own recovery) clear it.
    clears_at: u32,
}

/// A blocker being waited out: retried at `retry_at` (for a set-aside node, only once
/// the agent has nothing else to do); given up after too many attempts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Block {
    pub(super) retry_at: Tick,
    pub(super) when_idle: bool,
    pub(super) attempts: u32,
    pub(super) why: String,
    /// Set aside because a local recovery failed: the gate's decision (recover) stands,
    /// and the revisit carries it out again, with what the bot has learnt since (the
    /// source it went for may be gone from its memory), rather than only setting the
    /// blocker aside again.
    pub(super) recover_again: bool,
    /// A wait for a teammate's block. Given up by count like any other, so that the bot
    /// builds around it; but the teammate may be slow rather than gone, so the bot keeps
    /// watching, and takes the node up again when the block appears.
    pub(super) teammate: bool,
    /// Given up because its support was: taken up again once the support stands.
    pub(super) until_supported: bool,
}

/// A poll's back-off doubles at most this many times: 20 ticks grow to 1,280, so a slow
/// teammate is looked at again about once a minute of game time.
pub(super) const MAX_DOUBLINGS: u32 = 6;

/// How a blocker is waited out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Retry {
    /// `LOCAL_SKIP`: set aside and revisited when independent work runs out.
    WhenIdle,
    /// Poll again with exponential back-off (a busy cell, a pillar that failed).
    Poll,
    /// Look again, with the same back-off, for a teammate's block this node stands on.
    Teammate,
}

/// An escalation in flight.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Awaiting {
    pub(super) key: IssueKey,
    /// The issue that escalated: every ring's request carries it (`None` for the
    /// manager's assignment under central_dag).
    pub(super) issue: Option<IssueId>,
    pub(super) reason: gatecrew_protocol::RequestReason,
    pub(super) since: Tick,
    pub(super) count: u32,
    pub(super) window: Option<WindowId>,
    pub(super) deadline: Tick,
    /// The offers standing in its window, as the board's news told them (the board
    /// keeps the same record).
    pub(super) offers: Standing,
    /// Teammates named by earlier rings of this escalation, sorted (empty when the
    /// request went to `all`).
    pub(super) asked: Vec<AgentId>,
}

/// B: open issues by blocker and the waits on them, the features each was last decided
/// on, the local recovery in progress, items nobody supplied and the search for them,
/// escalations in flight, issues parked for a verdict, the fallbacks decided while
/// reading news (for this step's trace), and the own cells given up until something is
/// laid near them.
#[derive(Debug, Clone, Default)]
pub(super) struct Blockers {
    pub(super) issues: BTreeMap<Blocker, Vec<OpenIssue>>,
    pub(super) blocks: BTreeMap<Blocker, Block>,
    pub(super) last_features: BTreeMap<Blocker, Features>,
    next_issue: u32,
    pub(super) recovery: Option<recover::Recovery>,
    pub(super) unsourced: BTreeMap<ItemId, explore::Unsourced>,
    pub(super) explore: Option<explore::Exploration>,
    pub(super) awaiting: BTreeMap<ItemId, Awaiting>,
    pub(super) parked: BTreeMap<IssueId, consult::Parked>,
    pub(super) fallbacks: Vec<Note>,
    pub(super) given_up: given_up::GivenUp,
}

impl Blockers {
    /// The issue of `agent` for a blocker just detected: the open one when this blocker
    /// was detected before with the same kind of issue and has not cleared (`None`: no
    /// new issue; the gate runs again under its id), else a new one, which `held` (what
    /// the bot holds of the issue's item) says when it clears.
    pub(super) fn open(&mut self, agent: AgentId, issue: Issue, blocker: Blocker, held: u32) -> (IssueId, bool) {
        let kind = issue.name();
        let open = self.issues.entry(blocker).or_default();
        if let Some(i) = open.iter().find(|i| i.kind == kind) {
            return (i.id, false);
        }
        let id = IssueId::new(agent, self.next_issue);
        self.next_issue += 1;
        let clears_at = issue.requestable().map_or(0, |(_, n)| held.saturating_add(n));
        open.push(OpenIssue { id, kind, clears_at });
        (id, true)
    }

    /// Item blockers the bot now holds enough for (`held`: its count of an item).
    pub(super) fn cleared(&self, held: impl Fn(ItemId) -> u32) -> Vec<Blocker> {
        self.issues
            .iter()
            .filter_map(|(b, open)| match *b {
                Blocker::Item(item) => {
                    let held = held(item);
                    open.iter().any(|i| i.clears_at > 0 && held >= i.clears_at).then_some(*b)
                }
                Blocker::Node(_) => None,
            })
            .collect()
    }

    /// The blocker is gone: it no longer holds anything back; the issues about it,
    /// resolved.
    pub(super) fn resolve(&mut self, blocker: Blocker, by: ResolvedBy, notes: &mut Vec<Note>) {
        self.blocks.remove(&blocker);
        if let Some(open) = self.issues.remove(&blocker) {
            notes.extend(open.into_iter().map(|i| Note::Resolved { id: i.id, by }));
        }
    }

    /// The first open issue about a blocker.
    pub(super) fn first_issue(&self, blocker: Blocker) -> Option<IssueId> {
        self.issues.get(&blocker).and_then(|v| v.first()).map(|i| i.id)
    }

    /// Sets a blocker aside at `now`; after too many attempts the nodes behind it are
    /// given up.
    pub(super) fn hold(&mut self, blocker: Blocker, retry: Retry, why: String, now: Tick, tuning: &AgentTuning) {
        let b = self.blocks.entry(blocker).or_insert(Block {
            retry_at: now,
            when_idle: false,
            attempts: 0,
            why: String::new(),
            recover_again: false,
            teammate: false,
            until_supported: false,
        });
        b.attempts += 1;
        b.recover_again = false;
        b.teammate = retry == Retry::Teammate;
        b.until_supported = b.teammate;
        let delay = match retry {
            Retry::WhenIdle => tuning.revisit_ticks,
            // 20, 40, 80, ... ticks: a teammate gets time to finish what this waits for.
            Retry::Poll | Retry::Teammate => tuning.poll_ticks.saturating_mul(1 << (b.attempts - 1).min(MAX_DOUBLINGS)),
        };
        b.retry_at = now + delay;
        b.when_idle = retry == Retry::WhenIdle;
        b.why = why;
    }

    /// Whether the blocker was held more than `max_attempts` times.
    pub(super) fn exhausted(&self, blocker: Blocker, max_attempts: u32) -> bool {
        self.blocks.get(&blocker).is_some_and(|b| b.attempts > max_attempts)
    }
}
