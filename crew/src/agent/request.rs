//! Asking the board for an item (DESIGN section 5.6, "Addressing").
//!
//! A request names at most k teammates (the board config's `ring`, default 4). In a crew
//! of k + 1 bots or fewer that is everyone, so the request goes to `all`. In a larger crew the first ring is the k teammates most worth
//! asking, and when every one of them answers `CANNOT_SUPPLY` the next k are asked at
//! once, without a fallback or a cooldown in between: it is the same escalation, carried
//! on. Only when every teammate has refused does the agent fall back as DESIGN section
//! 5.7 says. A timeout ends the escalation at once: a ring that does not answer is a
//! crew that does not answer in time.
//!
//! Who is worth asking comes from what the agent itself knows: teammates it saw offer
//! the item on the board come first, teammates it saw refuse it last; within each, the
//! nearest work region (the centre of the teammate's share of the blueprint, public from
//! the split) first, then the lower id. A ring is picked in one pass over the crew
//! (O(crew x k)), so a request costs O(k) messages and the agent O(crew) time.

use std::sync::Arc;

use gatecrew_gating::Issue;
use gatecrew_protocol::{
    Addressees, AgentId, BoardMessage, Count, IssueId, ItemId, Pos, Recipient, RequestReason, Standing,
};

use super::{AgentCore, Awaiting, StepOutput};
use crate::plan::{NodeKind, Task, TaskGraph};

impl AgentCore {
    /// Opens a window for the issue's item, addressed to the first ring.
    pub(super) fn escalate(&mut self, id: IssueId, issue: Issue, out: &mut StepOutput) {
        let Some((item, n)) = issue.requestable() else {
            return;
        };
        let reason = match issue {
            Issue::MissingTool { .. } => RequestReason::MissingTool,
            _ => RequestReason::MissingMaterial,
        };
        let Some(to) = self.next_ring(item, &[]) else {
            return;
        };
        let aw = Awaiting {
            key: issue.key(),
            issue: Some(id),
            reason,
            since: self.now,
            count: n,
            window: None,
            deadline: self.now,
            offers: Standing::default(),
            asked: Vec::new(),
        };
        self.ask(item, to, aw, out);
    }

    /// After every addressee of `aw`'s window refused: asks the next ring, if any
    /// teammate is left to ask, and says whether it did.
    pub(super) fn ask_next_ring(&mut self, item: ItemId, aw: Awaiting, out: &mut StepOutput) -> bool {
        // A request to `all` (or the manager's assignment) has no next ring.
        if aw.asked.is_empty() {
            return false;
        }
        let Some(to) = self.next_ring(item, &aw.asked) else {
            return false;
        };
        self.ask(item, to, aw, out);
        true
    }

    /// After a transfer smaller than the request: asks for the `rest`, the same
    /// escalation carried on (as for the next ring), from the first ring again.
    pub(super) fn ask_rest(&mut self, item: ItemId, mut aw: Awaiting, rest: u32, out: &mut StepOutput) {
        let Some(to) = self.next_ring(item, &[]) else {
            return;
        };
        aw.count = rest;
        aw.asked.clear();
        self.ask(item, to, aw, out);
    }

    fn ask(&mut self, item: ItemId, to: Recipient, mut aw: Awaiting, out: &mut StepOutput) {
        let Ok(count) = Count::new(i64::from(aw.count)) else {
            return;
        };
        if let Recipient::Agents(ring) = to {
            aw.asked.extend_from_slice(ring.as_slice());
            aw.asked.sort_unstable();
        }
        let msg = BoardMessage::RequestMaterial { from: self.id, to, item, count, reason: aw.reason };
        out.posts.push((msg, aw.issue));
        aw.window = None;
        aw.offers = Standing::default();
        aw.deadline = self.now + self.ctx.board_cfg.window_ticks + 1;
        self.blocker.awaiting.insert(item, aw);
    }

    /// The addressees of the next request for `item`, given the teammates already asked
    /// (sorted): `all` while the crew fits in one ring, else up to k teammates not yet
    /// asked, best first (see the module docs); `None` when nobody is left.
    pub(super) fn next_ring(&self, item: ItemId, asked: &[AgentId]) -> Option<Recipient> {
        let k = self.ctx.board_cfg.ring.get();
        if self.ctx.crew.len() <= k + 1 {
            return asked.is_empty().then_some(Recipient::All);
        }
        let here = self.region_of(self.id);
        let offered = self.knowledge.offered.get(&item);
        let refused = self.knowledge.refused.get(&item);
        let rank = |a: AgentId| {
            let tier = if offered.is_some_and(|s| s.contains(&a)) {
                0u8
            } else if refused.is_some_and(|s| s.contains(&a)) {
                2
            } else {
                1
            };
            (tier, self.region_of(a).dist_sq(here), a)
        };
        // The k best, kept sorted: one pass, no sort of the whole crew.
        let mut best: Vec<(u8, i64, AgentId)> = Vec::with_capacity(k + 1);
        for &a in self.ctx.crew.iter() {
            if a == self.id || asked.binary_search(&a).is_ok() {
                continue;
            }
            let r = rank(a);
            if best.len() == k && r >= best[k - 1] {
                continue;
            }
            let at = best.partition_point(|b| *b < r);
            best.insert(at, r);
            best.truncate(k);
        }
        Addressees::new(best.into_iter().map(|(_, _, a)| a)).ok().map(Recipient::Agents)
    }

    pub(super) fn region_of(&self, a: AgentId) -> Pos {
        self.ctx.regions.get(a.index()).copied().unwrap_or(self.pos)
    }
}

/// The centre of each agent's share of the blueprint (the mean of its place cells,
/// rounded toward zero), indexed by agent; an agent with no share is placed at its start.
/// Computed once for the crew and shared: every agent knows the split.
pub fn work_regions(plan: &TaskGraph, starts: &[Pos]) -> Arc<[Pos]> {
    starts
        .iter()
        .enumerate()
        .map(|(i, &start)| {
            let Some(root) = plan.agent_root(AgentId(i as u32)) else {
                return start;
            };
            let (mut sum, mut n) = ([0i64; 3], 0i64);
            for c in plan.children_iter(root) {
                if let NodeKind::Task(Task::Place { pos, .. }) = plan.node(c).kind {
                    sum[0] += i64::from(pos.x);
                    sum[1] += i64::from(pos.y);
                    sum[2] += i64::from(pos.z);
                    n += 1;
                }
            }
            if n == 0 {
                return start;
            }
            let c = |s: i64| i32::try_from(s / n).unwrap_or(0);
            Pos::new(c(sum[0]), c(sum[1]), c(sum[2]))
        })
        .collect()
}
