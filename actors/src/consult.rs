//! How the world actor resolves tier-3 consults. A live endpoint gets every consult of
//! a tick at once, each on its own tokio task, so adjudications from different agents
//! are in flight concurrently while the simulation goes on; the world awaits a result
//! only at the tick its verdict enters, and never longer than the client's timeout
//! (plus a guard margin).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gatecrew_crew::{ConsultRequest, ResolveError, Resolver};
use gatecrew_gating::Adjudication;
use gatecrew_gating::llm::{FallbackReason, LlmClient};
use gatecrew_protocol::IssueId;
use tokio::task::JoinHandle;

use crate::hosted::Staged;

/// Margin over the client's own timeout before the world stops waiting for a task.
const GUARD: Duration = Duration::from_millis(500);

/// The tier-3 adjudicator of an actor run.
pub enum Consultant {
    /// Resolved synchronously when due: the deterministic adjudicator, a replay.
    Sync(Box<dyn Resolver + Send + Sync>),
    /// A live endpoint: every consult starts a call at once.
    Live(Arc<LlmClient>),
}

impl std::fmt::Debug for Consultant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Consultant::Sync(_) => f.write_str("Consultant::Sync"),
            Consultant::Live(c) => f.debug_tuple("Consultant::Live").field(c).finish(),
        }
    }
}

/// A consultant and its calls in flight.
pub(crate) struct Consults {
    consultant: Consultant,
    in_flight: BTreeMap<IssueId, JoinHandle<Adjudication>>,
}

impl Consults {
    pub(crate) fn new(consultant: Consultant) -> Self {
        Consults { consultant, in_flight: BTreeMap::new() }
    }

    /// Starts the calls of the consults made this tick.
    pub(crate) fn start<S: Staged>(&mut self, episode: &mut S) {
        let Consultant::Live(client) = &self.consultant else {
            return;
        };
        for req in episode.new_consults() {
            let client = client.clone();
            let task = tokio::spawn(async move { client.adjudicate(&req.card, req.score).await });
            self.in_flight.insert(req.issue_id, task);
        }
    }

    /// Resolves the consults whose verdicts enter at the next advance: a live call
    /// started earlier is awaited, never longer than the client's timeout.
    pub(crate) async fn resolve(
        &mut self,
        reqs: Vec<ConsultRequest>,
    ) -> Result<Vec<(IssueId, Adjudication)>, ResolveError> {
        let mut out = Vec::with_capacity(reqs.len());
        for req in reqs {
            let adj = match &mut self.consultant {
                Consultant::Sync(r) => r.resolve(&req)?,
                Consultant::Live(client) => {
                    let client = client.clone();
                    let task = match self.in_flight.remove(&req.issue_id) {
                        Some(t) => t,
                        None => {
                            let (c, r) = (client.clone(), req.clone());
                            tokio::spawn(async move { c.adjudicate(&r.card, r.score).await })
                        }
                    };
                    let limit = client.spec().timeout() + GUARD;
                    await_guarded(task, &req, &client, limit).await
                }
            };
            out.push((req.issue_id, adj));
        }
        Ok(out)
    }

    /// Stops calls whose verdicts will never enter (the episode ended).
    pub(crate) fn abort_all(&mut self) {
        for (_, t) in std::mem::take(&mut self.in_flight) {
            t.abort();
        }
    }
}

async fn await_guarded(
    task: JoinHandle<Adjudication>,
    req: &ConsultRequest,
    client: &LlmClient,
    limit: Duration,
) -> Adjudication {
    let abort = task.abort_handle();
    match tokio::time::timeout(limit, task).await {
        Ok(Ok(adj)) => adj,
        Ok(Err(e)) => {
            tracing::warn!(issue = %req.issue_id, error = %e, "adjudication task failed; falling back");
            client.fallback(&req.card, req.score, FallbackReason::Transport, 0)
        }
        Err(_) => {
            abort.abort();
            tracing::warn!(issue = %req.issue_id, "adjudication task overran its timeout; falling back");
            let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
            client.fallback(&req.card, req.score, FallbackReason::Timeout, ms)
        }
    }
}
