//! The episode loop, with or without a trace: one loop for both, so that a traced
//! episode is the untraced one (the recorder only reads what the loop already has).

use std::sync::Arc;

use super::{EpisodeOutcome, RunSpec, TimingMode};
use crate::executor::{EpisodeExec, Executor};
use crate::level::Level;
use crate::policy::{Policy, PolicyKind};
use crate::recipe::RecipeBook;
use crate::trace::{Recorder, StartInfo, TraceDir, TraceWriteError, episode_id};
use crate::world::World;

/// The policy builder of a run (the gated crew's may carry its gate's parameters).
pub(super) type Build<'a> = &'a dyn Fn(&World) -> Box<dyn Policy>;

fn start_info<'a>(policy: PolicyKind, factor: f64, spec: &'a RunSpec, level: &Level) -> StartInfo<'a> {
    StartInfo {
        policy,
        factor,
        timing: spec.timing,
        steps: level.max_steps.unwrap_or(spec.horizon),
        seed: spec.seed,
        executor: &spec.executor,
    }
}

/// One episode; with `rec`, its trace is written as it runs.
pub(super) fn run_built(
    book: &Arc<RecipeBook>,
    level: &Arc<Level>,
    policy: PolicyKind,
    factor: f64,
    spec: &RunSpec,
    build: Build<'_>,
    mut rec: Option<&mut Recorder>,
) -> EpisodeOutcome {
    let timing = match spec.timing {
        TimingMode::File => level.file_timing(factor),
        TimingMode::Oracle => level.oracle_timing(book, factor),
    };
    let world = World::new(Arc::clone(level), Arc::clone(book), spec.agents, timing, spec.seed);
    let mut pol = build(&world);
    let info = start_info(policy, factor, spec, level);
    let steps = info.steps;
    let mut exec = match &spec.executor {
        Executor::Scripted => None,
        Executor::Llm(m) => {
            Some(EpisodeExec::new(Arc::clone(m), executor_seed(spec.seed, &level.name, factor), spec.agents, steps))
        }
    };
    if let Some(r) = rec.as_deref_mut() {
        r.start(&world, &info);
    }
    run_loop(world, pol.as_mut(), policy.as_str(), factor, steps, exec.as_mut(), rec)
}

/// One episode whose trace goes to `<traces>/<episode>.jsonl`.
pub(super) fn run_traced(
    book: &Arc<RecipeBook>,
    level: &Arc<Level>,
    policy: PolicyKind,
    factor: f64,
    spec: &RunSpec,
    build: Build<'_>,
    traces: &TraceDir,
) -> Result<EpisodeOutcome, TraceWriteError> {
    let id = episode_id(&level.name, spec.agents, &start_info(policy, factor, spec, level));
    let (mut rec, path) = traces.recorder(id)?;
    let out = run_built(book, level, policy, factor, spec, build, Some(&mut rec));
    rec.finish().map_err(|source| TraceWriteError { path, source })?;
    Ok(out)
}

/// The executor's seed for one episode: the run's seed, the level and the factor (so
/// that episodes do not share their draws), never the policy (so that every policy
/// draws the same numbers).
pub fn executor_seed(seed: u64, level: &str, factor: f64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in level.bytes().chain(factor.to_bits().to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    seed ^ h
}

/// Runs `steps` steps of a prepared world under any policy (a scripted one in tests),
/// with the scripted executor.
pub fn run_with(world: World, policy: &mut dyn Policy, name: &str, factor: f64, steps: u32) -> EpisodeOutcome {
    run_loop(world, policy, name, factor, steps, None, None)
}

/// Runs `steps` steps of a prepared world under any policy; with `exec`, every
/// decision goes through the `llm` executor's calls (which `exec` keeps).
pub fn run_with_exec(
    world: World,
    policy: &mut dyn Policy,
    name: &str,
    factor: f64,
    steps: u32,
    exec: Option<&mut EpisodeExec>,
) -> EpisodeOutcome {
    run_loop(world, policy, name, factor, steps, exec, None)
}

fn run_loop(
    mut world: World,
    policy: &mut dyn Policy,
    name: &str,
    factor: f64,
    steps: u32,
    mut exec: Option<&mut EpisodeExec>,
    mut rec: Option<&mut Recorder>,
) -> EpisodeOutcome {
    let (mut completed, mut failed, mut refused) = (0u32, 0u32, 0u32);
    let central = policy.central();
    let agents = world.agents().len();
    for _ in 0..steps {
        let intended = policy.decide(&world);
        let lines = policy.lines();
        if let Some(r) = rec.as_deref_mut() {
            r.decided(&world, central, &intended, &lines);
        }
        let actions = match exec.as_deref_mut() {
            Some(x) => x.step(&world, central, &intended, &lines),
            None => intended.clone(),
        };
        if let (Some(r), Some(x)) = (rec.as_deref_mut(), exec.as_deref()) {
            r.calls(agents, x.calls());
        }
        let report = world.step(&actions);
        if let Some(r) = rec.as_deref_mut() {
            r.stepped(&world, &intended, &report);
        }
        if let Some(x) = exec.as_deref_mut() {
            x.observe(&world, central, &report);
        }
        completed += report.completed.len() as u32;
        failed += report.failed.len() as u32;
        refused += report.outcomes.iter().filter(|(_, r)| r.is_err()).count() as u32;
        policy.observe(&world, &report);
    }
    let outcome = EpisodeOutcome {
        level: world.level().name.clone(),
        policy: name.to_owned(),
        factor,
        interval: world.timing().interval,
        steps,
        completed,
        failed,
        pending: world.pending().len() as u32,
        skipped: world.skipped_arrivals(),
        refused,
        counters: policy.counters(),
        model: exec.map(|x| x.usage()).unwrap_or_default(),
    };
    if let Some(r) = rec {
        r.end(&outcome);
    }
    outcome
}
