//! Tier 3 with an external adjudicator (a language model). The agent core never waits:
//! a gray-zone issue becomes a [`Consult`] in the step's output and is parked — its
//! node (or the recovery that needed a tool) stays blocked while the agent does other
//! work. The verdict comes back in a later [`StepInput`](super::StepInput), at the tick
//! the episode defined; only then is the issue's single `gate` event (tier 3) recorded
//! and acted on.

use gatecrew_gating::{DecisionCard, GateQuery, Issue, Verdict};
use gatecrew_protocol::trace::Decision;
use gatecrew_protocol::{IssueId, ItemId};

use super::{AgentCore, Blocker, OracleQuery, StepOutput};
use crate::plan::NodeId;

/// A gray-zone case for the adjudicator.
#[derive(Debug, Clone, PartialEq)]
pub struct Consult {
    /// The issue that waits for the verdict (it is parked until then).
    pub issue_id: IssueId,
    /// What the adjudicator sees.
    pub card: DecisionCard,
    /// The unrounded normalised score (for the deterministic fallback).
    pub score: f64,
}

/// A parked issue: everything needed to settle it when the verdict arrives.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Parked {
    issue: Issue,
    node: Option<NodeId>,
    q: GateQuery,
    score: f64,
    oracle: OracleQuery,
}

impl AgentCore {
    /// Puts a gray-zone issue to the adjudicator.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn park(
        &mut self,
        id: IssueId,
        issue: Issue,
        node: Option<NodeId>,
        q: GateQuery,
        score: f64,
        oracle: OracleQuery,
        out: &mut StepOutput,
    ) {
        let requested = issue.requestable();
        let item = requested.map(|(i, _)| self.ctx.data.item_name(i).to_owned());
        let card = DecisionCard::new(issue.name(), item, requested.map(|(_, n)| n), q.features, score);
        tracing::debug!(agent = %self.id, issue = %id, card = %card.to_json(), "consulting the adjudicator");
        out.consults.push(Consult { issue_id: id, card, score });
        self.blocker.parked.insert(id, Parked { issue, node, q, score, oracle });
    }

    /// Whether an issue about `item` waits for a verdict.
    pub(super) fn parked_item(&self, item: ItemId) -> bool {
        self.blocker.parked.values().any(|p| p.issue.requestable().is_some_and(|(i, _)| i == item))
    }

    /// A verdict entered: record the tier-3 decision and act on it.
    pub(super) fn on_verdict(&mut self, id: IssueId, verdict: Verdict, out: &mut StepOutput) {
        let Some(p) = self.blocker.parked.remove(&id) else {
            tracing::warn!(agent = %self.id, issue = %id, "verdict for an issue that is not waiting for one");
            return;
        };
        let decision = self.gate.settle(p.q, p.score, verdict.decision);
        self.record_gate(id, decision, p.q, p.oracle, out);
        let Some((item, _)) = p.issue.requestable() else {
            return;
        };
        // The blocker may have cleared while the question was out (the items turned up):
        // then there is nothing left to act on.
        let open = self.blocker.issues.get(&Blocker::Item(item)).is_some_and(|v| v.iter().any(|i| i.id == id));
        let in_recovery =
            p.node.is_none() && self.blocker.recovery.as_ref().is_some_and(|r| r.paused_for() == Some(item));
        match (open, in_recovery, decision.decision) {
            (false, true, _) | (true, true, Decision::StayLocal) => {
                // The recovery that needed this tool goes on with its local alternatives.
                if let Some(r) = &mut self.blocker.recovery {
                    r.unpause(item);
                }
            }
            (true, true, Decision::Escalate) => self.escalate(id, p.issue, out),
            (true, false, d) => self.act_on(id, p.issue, p.node, d, decision.action, out),
            (false, false, _) => {}
        }
    }
}
