//! Tier-3 consults as a driver sees them (DESIGN 5.4): a scenario hands out the
//! consults whose verdicts are due ([`crate::Need::Adjudicate`]) and the driver
//! resolves them however it likes; the synchronous way is a [`Resolver`].

use gatecrew_gating::{Adjudication, Adjudicator, DecisionCard};
use gatecrew_protocol::{AgentId, IssueId, Tick};

/// A consult for the driver to resolve.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsultRequest {
    /// Who asked.
    pub agent: AgentId,
    /// The issue (unique within an episode).
    pub issue_id: IssueId,
    /// What the adjudicator is shown: the features, the rule context, the score.
    pub card: DecisionCard,
    /// The unrounded score.
    pub score: f64,
    /// The tick at which the verdict enters.
    pub due: Tick,
}

/// A consult that could not be resolved: the run cannot go on faithfully.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// A replayed trace has no adjudication for this issue.
    #[error("the replayed trace has no adjudication for issue {0}: it was recorded with another config or seed")]
    Missing(IssueId),
    /// The replayed episode asked about another card than the recorded one.
    #[error("the episode diverged from the replayed trace at issue {issue}: recorded card {recorded}, now {now}")]
    Diverged {
        /// The first issue whose card differs.
        issue: IssueId,
        /// The card in the trace.
        recorded: String,
        /// The card asked now.
        now: String,
    },
}

/// Resolves consults synchronously (the stepper's way).
pub trait Resolver {
    /// The adjudication of one consult.
    fn resolve(&mut self, req: &ConsultRequest) -> Result<Adjudication, ResolveError>;
}

/// Any [`Adjudicator`] as a resolver: the deterministic one, or a blocking LLM client.
#[derive(Debug, Clone)]
pub struct ByAdjudicator<A>(pub A);

impl<A: Adjudicator> Resolver for ByAdjudicator<A> {
    fn resolve(&mut self, req: &ConsultRequest) -> Result<Adjudication, ResolveError> {
        Ok(self.0.adjudicate(&req.card, req.score))
    }
}
