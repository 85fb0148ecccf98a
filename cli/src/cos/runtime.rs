//! `gatecrew cos --runtime`: the kitchen's episodes on the synchronous stepper (the
//! default) or on the actor runtime (`gatecrew_actors::run_kitchen_episode`). Both give the same
//! rows and the same trace bytes.

use anyhow::Context;
use gatecrew_kitchen::trace::{TraceDir, TraceFile};
use gatecrew_kitchen::{CosRow, CosTraceError, Cuisine, Decider, EpisodeCore, PolicyKind, RunSpec};

/// Where the episodes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Runtime {
    /// The synchronous stepper: one loop calling the policy.
    Stepper,
    /// ractor actors: a world actor, a cook per agent and their desk, or the dispatcher.
    Actors,
}

/// The CoS table on `runtime`, with traces into `traces` when given.
pub fn table(
    runtime: Runtime,
    cuisine: &Cuisine,
    levels: Option<&[String]>,
    policies: &[PolicyKind],
    agents: &[usize],
    spec: &RunSpec,
    traces: Option<&TraceDir>,
) -> anyhow::Result<Result<Vec<CosRow>, CosTraceError>> {
    Ok(match (runtime, traces) {
        (Runtime::Stepper, None) => {
            gatecrew_kitchen::cos_table(cuisine, levels, policies, agents, spec).map_err(CosTraceError::Level)
        }
        (Runtime::Stepper, Some(t)) => gatecrew_kitchen::cos_table_traced(cuisine, levels, policies, agents, spec, t),
        (Runtime::Actors, traces) => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("starting the tokio runtime")?;
            let mut run = |core: EpisodeCore, deciders: Vec<Decider>, file: Option<TraceFile>| {
                let (out, pending) = match file.map(TraceFile::into_parts) {
                    Some((w, pending)) => (Some(Box::new(w) as Box<dyn std::io::Write + Send>), Some(pending)),
                    None => (None, None),
                };
                let outcome = rt.block_on(gatecrew_actors::run_kitchen_episode(core, deciders, out));
                let fail = |e: &dyn std::fmt::Display| -> Box<dyn std::error::Error + Send + Sync> {
                    match &pending {
                        Some(p) => format!("{}: {e}", p.path().display()).into(),
                        None => e.to_string().into(),
                    }
                };
                let outcome = outcome.map_err(|e| fail(&e))?;
                // The recorder flushed the trace before the run returned: it goes in place.
                if let Some(p) = pending {
                    p.commit()?;
                }
                Ok(outcome)
            };
            gatecrew_kitchen::cos_table_on(cuisine, levels, policies, agents, spec, traces, &mut run)
        }
    })
}
