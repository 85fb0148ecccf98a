//! Choosing the tier-3 adjudicator of a run: recorded verdicts (`--replay-adjudications`)
//! or a live endpoint (`--llm-url`, or a `[llm]` section). Without consults nothing here
//! is used and the run is the deterministic adjudicator's, byte for byte.

use std::path::Path;
use std::sync::Arc;

use gatecrew_actors::Consultant;
use gatecrew_crew::{ByAdjudicator, Replay, Resolver, Setup};
use gatecrew_gating::Deterministic;
use gatecrew_gating::llm::{BlockingLlm, LlmClient};

use crate::BadInput;

/// Where a run's consults go.
pub enum Tier3 {
    /// The deterministic adjudicator (no consults, or nothing else configured).
    Deterministic(Deterministic),
    /// Recorded verdicts.
    Replay(Replay),
    /// A live endpoint.
    Live(Box<LlmClient>),
}

impl Tier3 {
    /// The adjudicator for `setup`, checking a replayed trace against it.
    pub fn for_run(setup: &Setup, replay: Option<&Path>) -> anyhow::Result<Tier3> {
        let det = Deterministic { midpoint: setup.gate.midpoint() };
        if let Some(path) = replay {
            if !setup.consults() {
                return Err(BadInput(format!(
                    "--replay-adjudications needs the gated policy (this run uses {})",
                    setup.policy.as_str()
                ))
                .into());
            }
            let r = Replay::load(path).map_err(|e| BadInput(e.to_string()))?;
            if r.config_hash() != Some(setup.config_hash.as_str()) {
                return Err(BadInput(format!(
                    "{}: recorded with config hash {}, this run has {}: replay with the same config, seed and flags",
                    path.display(),
                    r.config_hash().unwrap_or("(none)"),
                    setup.config_hash
                ))
                .into());
            }
            return Ok(Tier3::Replay(r));
        }
        match &setup.llm {
            Some(spec) if setup.consults() => {
                let client = LlmClient::new(spec.clone(), det).map_err(|e| BadInput(e.to_string()))?;
                Ok(Tier3::Live(Box::new(client)))
            }
            _ => Ok(Tier3::Deterministic(det)),
        }
    }

    /// As a synchronous resolver, for the stepper.
    pub fn into_resolver(self) -> anyhow::Result<Box<dyn Resolver>> {
        Ok(match self {
            Tier3::Deterministic(d) => Box::new(ByAdjudicator(d)),
            Tier3::Replay(r) => Box::new(r),
            Tier3::Live(c) => Box::new(ByAdjudicator(BlockingLlm::new(*c)?)),
        })
    }

    /// As the actor runtime's consultant.
    pub fn into_consultant(self) -> Consultant {
        match self {
            Tier3::Deterministic(d) => Consultant::Sync(Box::new(ByAdjudicator(d))),
            Tier3::Replay(r) => Consultant::Sync(Box::new(r)),
            Tier3::Live(c) => Consultant::Live(Arc::new(*c)),
        }
    }
}
