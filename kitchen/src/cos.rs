//! Episodes and the Collaboration Score.
//!
//! The paper (MindAgent, section 3) defines CoS as the mean over M = 5 task intervals of
//! `completed / (completed + failed)`. MindAgent's experiment script
//! (`agents/gpt_agent.py`) divides by `success + failed + len(current_task_list)`:
//! orders still pending at the episode's end count as failures. Both are reported,
//! named for what they do: [`CosRow::cos_pending_excluded`] (the paper's formula) and
//! [`CosRow::cos_pending_failed`] (the script's).
//!
//! The episode length is MindAgent's: 60 steps (`max_steps = 60` in the experiment
//! script, and `World`'s default "assume every action is 4 seconds, and we have in total
//! 4 minutes"; the paper's level 9 demonstration shows "maximum game steps: 60"). A
//! level's own `max_steps`, when its file sets one, wins, as in MindAgent's `World`.
//! MindAgent ran 3 episodes per factor; one seed here is one episode per factor.
//!
//! A run's [`RunSpec::executor`] says whether the policies' decisions are the actions
//! (`scripted`) or model calls that can go wrong ([`crate::executor`]); the outcome
//! counts the calls, tokens, mistakes and model time ([`ModelUse`]).

use std::sync::Arc;

use gatecrew_gating::GateParams;
use serde::{Deserialize, Serialize};

mod built;
mod episode;
mod run;

pub use built::{Built, cos_row_with};
pub use episode::{EpisodeCore, Mode, Trace, Turn, Turned, decide};
pub use run::{executor_seed, run_with, run_with_exec};

use crate::error::Error;
use crate::executor::{Executor, ModelUse};
use crate::level::Level;
use crate::load::Cuisine;
use crate::policy::{Counters, Decider, PolicyKind, Split};
use crate::recipe::RecipeBook;
use crate::trace::{TraceDir, TraceWriteError};
use crate::world::World;

/// The five interval factors (the paper's appendix E.4: "We pick the value tau ranging
/// from 1.0, 1.5, 2.0, 2.5 and 3.0"; MindAgent's script `alphas`).
pub const FACTORS: [f64; 5] = [1.0, 1.5, 2.0, 2.5, 3.0];

/// MindAgent's episode length in steps (see the module docs).
pub const DEFAULT_HORIZON: u32 = 60;

/// Where an episode's order interval and lifetimes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingMode {
    /// The level file: interval `ceil(factor x task_interval)`, lifetimes as written.
    File,
    /// MindAgent's experiment script: interval and lifetimes from the recipe graph
    /// ([`Level::oracle_timing`]) with alpha = the factor.
    Oracle,
}

/// How to run: crew size, seed, length, timing, executor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSpec {
    /// Agents in the kitchen.
    pub agents: usize,
    /// The world's seed (the order draws).
    pub seed: u64,
    /// Steps per episode, unless the level sets `max_steps`.
    pub horizon: u32,
    /// Interval and lifetimes.
    pub timing: TimingMode,
    /// Scripted decisions, or model calls ([`crate::executor`]).
    pub executor: Executor,
}

impl RunSpec {
    /// `agents` agents, seed, MindAgent's horizon, the file's timing, the scripted executor.
    pub fn new(agents: usize, seed: u64) -> Self {
        RunSpec { agents, seed, horizon: DEFAULT_HORIZON, timing: TimingMode::File, executor: Executor::Scripted }
    }
}

/// What one episode produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpisodeOutcome {
    /// The level.
    pub level: String,
    /// The policy's name.
    pub policy: String,
    /// The interval factor.
    pub factor: f64,
    /// The order interval in force.
    pub interval: u32,
    /// Steps run.
    pub steps: u32,
    /// Orders completed.
    pub completed: u32,
    /// Orders whose lifetime ran out.
    pub failed: u32,
    /// Orders still pending at the end.
    pub pending: u32,
    /// Arrivals skipped because six orders were pending.
    pub skipped: u32,
    /// Actions the world refused.
    pub refused: u32,
    /// The policy's counts.
    pub counters: Counters,
    /// The model's calls, tokens, mistakes and time (zero under `scripted`).
    #[serde(flatten)]
    pub model: ModelUse,
}

impl EpisodeOutcome {
    /// `completed / (completed + failed)`, 0 when nothing was resolved.
    pub fn rate_pending_excluded(&self) -> f64 {
        ratio(self.completed, self.completed + self.failed)
    }

    /// `completed / (completed + failed + pending)`, 0 when no order came.
    pub fn rate_pending_failed(&self) -> f64 {
        ratio(self.completed, self.completed + self.failed + self.pending)
    }
}

/// `a / b`, 0 when `b` is 0: CoS with nothing resolved (shared by the trace's fold).
pub(crate) fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 { 0.0 } else { f64::from(a) / f64::from(b) }
}

/// Runs one episode of `level` under `policy` at an interval factor.
pub fn run_episode(
    book: &Arc<RecipeBook>,
    level: &Arc<Level>,
    policy: PolicyKind,
    factor: f64,
    spec: &RunSpec,
) -> EpisodeOutcome {
    match run::run_built(book, level, policy, factor, spec, &|w| policy.split(w, spec.agents), None) {
        Ok(out) => out,
        Err(e) => unreachable!("an untraced episode writes nothing: {e}"),
    }
}

/// CoS of the gated crew with its gate's parameters (weights, thresholds) set, one
/// episode at each factor: the call behind the transfer study (the construction
/// suite's calibrated gate applied to the kitchen).
pub fn cos_gated(book: &Arc<RecipeBook>, level: &Arc<Level>, spec: &RunSpec, params: GateParams) -> CosRow {
    let build = |w: &World| Split::crew(crate::policy::gated::crew_with(w, spec.agents, params));
    let run = |f: f64| match run::run_built(book, level, PolicyKind::Gated, f, spec, &build, None) {
        Ok(out) => out,
        Err(e) => unreachable!("an untraced episode writes nothing: {e}"),
    };
    let episodes = FACTORS.iter().map(|&f| run(f)).collect();
    CosRow::from_episodes(&level.name, PolicyKind::Gated, spec.clone(), episodes)
}

/// One level under one policy at the five factors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CosRow {
    /// The level.
    pub level: String,
    /// The policy.
    pub policy: PolicyKind,
    /// Crew size, seed, horizon and timing.
    pub spec: RunSpec,
    /// One episode per factor, in [`FACTORS`] order.
    pub episodes: Vec<EpisodeOutcome>,
    /// The paper's CoS: mean of `completed / (completed + failed)`.
    pub cos_pending_excluded: f64,
    /// MindAgent's script's CoS: mean of `completed / (completed + failed + pending)`.
    pub cos_pending_failed: f64,
    /// Messages over the five episodes.
    pub messages: u64,
    /// The model's calls, tokens, mistakes and time over the five episodes.
    #[serde(flatten)]
    pub model: ModelUse,
}

impl CosRow {
    /// The row for a set of episodes (one per factor).
    pub fn from_episodes(level: &str, policy: PolicyKind, spec: RunSpec, episodes: Vec<EpisodeOutcome>) -> Self {
        let n = episodes.len().max(1) as f64;
        let mean = |f: fn(&EpisodeOutcome) -> f64| episodes.iter().map(f).sum::<f64>() / n;
        CosRow {
            level: level.to_owned(),
            policy,
            spec,
            cos_pending_excluded: mean(EpisodeOutcome::rate_pending_excluded),
            cos_pending_failed: mean(EpisodeOutcome::rate_pending_failed),
            messages: episodes.iter().map(|e| e.counters.messages).sum(),
            model: episodes.iter().fold(ModelUse::default(), |mut a, e| {
                a += e.model;
                a
            }),
            episodes,
        }
    }
}

/// CoS of `level` under `policy`: one episode at each of the five factors.
pub fn cos(book: &Arc<RecipeBook>, level: &Arc<Level>, policy: PolicyKind, spec: &RunSpec) -> CosRow {
    let episodes = FACTORS.iter().map(|&f| run_episode(book, level, policy, f, spec)).collect();
    CosRow::from_episodes(&level.name, policy, spec.clone(), episodes)
}

/// The levels by name (`None`: all), in the order given.
fn chosen<'a>(cuisine: &'a Cuisine, levels: Option<&[String]>) -> Result<Vec<&'a Arc<Level>>, Error> {
    match levels {
        None => Ok(cuisine.levels.iter().collect()),
        Some(names) => names.iter().map(|n| cuisine.level(n)).collect(),
    }
}

/// Every (level, policy, crew size) combination, levels by name (`None`: all), in the
/// order given. The call behind `gatecrew cos`.
pub fn cos_table(
    cuisine: &Cuisine,
    levels: Option<&[String]>,
    policies: &[PolicyKind],
    agents: &[usize],
    spec: &RunSpec,
) -> Result<Vec<CosRow>, Error> {
    let mut rows = Vec::new();
    for level in chosen(cuisine, levels)? {
        for &policy in policies {
            for &n in agents {
                rows.push(cos(&cuisine.book, level, policy, &RunSpec { agents: n, ..spec.clone() }));
            }
        }
    }
    Ok(rows)
}

/// Why a traced CoS table could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CosTraceError {
    /// A level or recipe file problem (an unknown level name).
    #[error(transparent)]
    Level(#[from] Error),
    /// A trace could not be written.
    #[error("writing a kitchen trace: {0}")]
    Write(#[from] TraceWriteError),
    /// The runtime an episode ran on failed (an actor that could not start or stopped).
    #[error("running a kitchen episode: {0}")]
    Runtime(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Runs an [`EpisodeCore`] to its end on some runtime with its deciders, writing its
/// events to the trace file if there is one: the episode's outcome.
pub type EpisodeRunner<'a> = dyn FnMut(
        EpisodeCore,
        Vec<Decider>,
        Option<crate::trace::TraceFile>,
    ) -> Result<EpisodeOutcome, Box<dyn std::error::Error + Send + Sync>>
    + 'a;

/// [`cos_table`] (or with `traces`, [`cos_table_traced`]) with every episode run by
/// `run` (the actor runtime's `gatecrew cos --runtime actors`): same rows, same files.
pub fn cos_table_on(
    cuisine: &Cuisine,
    levels: Option<&[String]>,
    policies: &[PolicyKind],
    agents: &[usize],
    spec: &RunSpec,
    traces: Option<&TraceDir>,
    run: &mut EpisodeRunner<'_>,
) -> Result<Vec<CosRow>, CosTraceError> {
    let mut rows = Vec::new();
    for level in chosen(cuisine, levels)? {
        for &policy in policies {
            for &n in agents {
                let spec = RunSpec { agents: n, ..spec.clone() };
                let mut episodes = Vec::new();
                for &f in &FACTORS {
                    let file = traces.map(|t| t.file(&EpisodeCore::id(level, policy, f, &spec))).transpose()?;
                    let trace = Trace { on: file.is_some(), live_model: None };
                    let build = |w: &World| policy.split(w, n);
                    let (core, deciders) = EpisodeCore::new(&cuisine.book, level, policy, f, &spec, &build, trace);
                    episodes.push(run(core, deciders, file).map_err(CosTraceError::Runtime)?);
                }
                rows.push(CosRow::from_episodes(&level.name, policy, spec, episodes));
            }
        }
    }
    Ok(rows)
}

/// [`cos_table`], writing each episode's trace into `traces` (`gatecrew cos --trace`).
/// The rows are the same as without traces: recording only reads the episode.
pub fn cos_table_traced(
    cuisine: &Cuisine,
    levels: Option<&[String]>,
    policies: &[PolicyKind],
    agents: &[usize],
    spec: &RunSpec,
    traces: &TraceDir,
) -> Result<Vec<CosRow>, CosTraceError> {
    let mut rows = Vec::new();
    for level in chosen(cuisine, levels)? {
        for &policy in policies {
            for &n in agents {
                let spec = RunSpec { agents: n, ..spec.clone() };
                let build = |w: &World| policy.split(w, n);
                let episodes = FACTORS
                    .iter()
                    .map(|&f| run::run_built(&cuisine.book, level, policy, f, &spec, &build, Some(traces)))
                    .collect::<Result<Vec<_>, _>>()?;
                rows.push(CosRow::from_episodes(&level.name, policy, spec, episodes));
            }
        }
    }
    Ok(rows)
}
