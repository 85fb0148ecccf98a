//! The episode loop, with or without a trace: one loop for both, so that a traced
//! episode is the untraced one (the recorder only reads what the loop already has).

use std::sync::Arc;

use super::{EpisodeOutcome, RunSpec, TimingMode};
use crate::dispatch::LiveCall;
use crate::executor::{EpisodeExec, Executor, ModelUse};
use crate::level::Level;
use crate::policy::{Counters, Line, Policy, PolicyKind};
use crate::recipe::RecipeBook;
use crate::trace::{Recorder, StartInfo, TraceDir, TraceWriteError, episode_id};
use crate::world::{Action, StepReport, World};

/// The policy builder of a run (the gated crew's may carry its gate's parameters).
pub(super) type Build<'a> = &'a dyn Fn(&World) -> Box<dyn Policy>;

pub(super) fn start_info<'a>(policy: PolicyKind, factor: f64, spec: &'a RunSpec, level: &Level) -> StartInfo<'a> {
    StartInfo {
        policy,
        factor,
        timing: spec.timing,
        steps: level.max_steps.unwrap_or(spec.horizon),
        seed: spec.seed,
        executor: &spec.executor,
        live_model: None,
    }
}

/// The world, the steps and the executor of one episode.
pub(super) fn prepare(
    book: &Arc<RecipeBook>,
    level: &Arc<Level>,
    factor: f64,
    spec: &RunSpec,
) -> (World, u32, Option<EpisodeExec>) {
    let timing = match spec.timing {
        TimingMode::File => level.file_timing(factor),
        TimingMode::Oracle => level.oracle_timing(book, factor),
    };
    let world = World::new(Arc::clone(level), Arc::clone(book), spec.agents, timing, spec.seed);
    let steps = level.max_steps.unwrap_or(spec.horizon);
    let exec = match &spec.executor {
        Executor::Scripted => None,
        Executor::Llm(m) => {
            Some(EpisodeExec::new(Arc::clone(m), executor_seed(spec.seed, &level.name, factor), spec.agents, steps))
        }
    };
    (world, steps, exec)
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
    let (world, steps, mut exec) = prepare(book, level, factor, spec);
    let mut pol = build(&world);
    if let Some(r) = rec.as_deref_mut() {
        r.start(&world, &start_info(policy, factor, spec, level));
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

pub(super) fn run_loop(
    mut world: World,
    policy: &mut dyn Policy,
    name: &str,
    factor: f64,
    steps: u32,
    mut exec: Option<&mut EpisodeExec>,
    mut rec: Option<&mut Recorder>,
) -> EpisodeOutcome {
    let mut tally = Tally::default();
    let central = policy.central();
    for _ in 0..steps {
        let intended = policy.decide(&world);
        let lines = policy.lines();
        let live = policy.live_calls();
        let report = step_once(
            &mut world,
            Decided { central, intended, lines: &lines, live: &live },
            exec.as_deref_mut(),
            rec.as_deref_mut(),
            &mut tally,
        );
        policy.observe(&world, &report);
    }
    finish(&world, name, factor, steps, tally, policy.counters(), exec.as_deref(), rec)
}

/// What the loop counts from the step reports.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Tally {
    completed: u32,
    failed: u32,
    refused: u32,
    /// A real model's calls (the dispatcher over a real model), beside the executor's.
    live: ModelUse,
}

/// What a policy decided for one step: the actions it means, the lines it wrote, the
/// real model calls it made.
pub(super) struct Decided<'a> {
    pub central: bool,
    pub intended: Vec<Action>,
    pub lines: &'a [Line],
    pub live: &'a [LiveCall],
}

/// One step of the world from the policy's intended actions and the lines it wrote
/// while deciding: recorded, passed through the executor, applied. The stepper and the
/// actor runtime's world both call this, so their traces are the same bytes.
pub(super) fn step_once(
    world: &mut World,
    d: Decided<'_>,
    mut exec: Option<&mut EpisodeExec>,
    mut rec: Option<&mut Recorder>,
    tally: &mut Tally,
) -> StepReport {
    let Decided { central, intended, lines, live } = d;
    let agents = world.agents().len();
    if let Some(r) = rec.as_deref_mut() {
        r.decided(world, central, &intended, lines);
        r.live_calls(live);
    }
    for c in live {
        tally.live.calls += 1;
        tally.live.prompt_tokens += u64::from(c.prompt_tokens);
        tally.live.completion_tokens += u64::from(c.completion_tokens);
        tally.live.model_seconds += c.latency_s;
        tally.live.invalid_commands += c.invalid.len() as u64;
        tally.live.fallbacks += u64::from(c.fallback.is_some());
    }
    // One central call a step: the step waits for the slowest, which is the one.
    tally.live.wait_seconds += live.iter().map(|c| c.latency_s).fold(0.0, f64::max);
    let actions = match exec.as_deref_mut() {
        Some(x) => x.step(world, central, &intended, lines),
        None => intended.clone(),
    };
    if let (Some(r), Some(x)) = (rec.as_deref_mut(), exec.as_deref()) {
        r.calls(agents, x.calls());
    }
    let report = world.step(&actions);
    if let Some(r) = rec {
        r.stepped(world, &intended, &report);
    }
    if let Some(x) = exec {
        x.observe(world, central, &report);
    }
    tally.completed += report.completed.len() as u32;
    tally.failed += report.failed.len() as u32;
    tally.refused += report.outcomes.iter().filter(|(_, r)| r.is_err()).count() as u32;
    report
}

/// The episode's outcome after its last step; the trace's last line is written here.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    world: &World,
    name: &str,
    factor: f64,
    steps: u32,
    tally: Tally,
    counters: Counters,
    exec: Option<&EpisodeExec>,
    rec: Option<&mut Recorder>,
) -> EpisodeOutcome {
    let outcome = EpisodeOutcome {
        level: world.level().name.clone(),
        policy: name.to_owned(),
        factor,
        interval: world.timing().interval,
        steps,
        completed: tally.completed,
        failed: tally.failed,
        pending: world.pending().len() as u32,
        skipped: world.skipped_arrivals(),
        refused: tally.refused,
        counters,
        model: {
            let mut m = exec.map(|x| x.usage()).unwrap_or_default();
            m += tally.live;
            m
        },
    };
    if let Some(r) = rec {
        r.end(&outcome);
    }
    outcome
}
