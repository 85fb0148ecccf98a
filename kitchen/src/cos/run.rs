//! Kitchen episodes on the synchronous stepper (`gatecrew_engine::stepper`), with or
//! without a trace, and the step every runtime applies: one episode core for all, so a
//! traced episode is the untraced one (the log only reads what the step already has)
//! and the actor runtime's episode is the stepper's.

use std::sync::Arc;

use gatecrew_engine::stepper::{NoBoard, NoConsults, drive};
use gatecrew_engine::{Agent, Scenario, Stepped};
use gatecrew_protocol::AgentId;

use super::episode::{EpisodeCore, Mode, Trace, Turn, Turned, one};
use super::{EpisodeOutcome, RunSpec, TimingMode};
use crate::dispatch::LiveCall;
use crate::executor::{EpisodeExec, Executor, ModelUse};
use crate::level::Level;
use crate::policy::{Counters, Line, Policy, PolicyKind, Split};
use crate::recipe::RecipeBook;
use crate::trace::{Log, StartInfo, TraceDir, TraceFile, TraceWriteError};
use crate::world::{Action, StepReport, World};

/// The policy builder of a run (the gated crew's may carry its gate's parameters).
pub(super) type Build<'a> = &'a dyn Fn(&World) -> Split;

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

/// Drives `core` to its end with `deciders` on the stepper; its events go to `file`.
pub(super) fn drive_core<A: Agent<Turn, Turned>>(
    mut core: EpisodeCore,
    deciders: &mut [A],
    mut file: Option<&mut TraceFile>,
) -> EpisodeOutcome {
    let mut flush = |core: &mut EpisodeCore, _: &[A]| {
        let events = core.drain();
        if let Some(f) = file.as_deref_mut() {
            f.write(&events);
        }
    };
    match drive(&mut core, deciders, &mut NoBoard, &mut NoConsults, &mut flush) {
        Ok(out) => out,
        Err(e) => unreachable!("the kitchen never consults an adjudicator: {e}"),
    }
}

/// One episode of `level` under `policy` (built by `build`) on the stepper; with
/// `traces`, its trace goes to `<traces>/<episode>.jsonl`.
pub(super) fn run_built(
    book: &Arc<RecipeBook>,
    level: &Arc<Level>,
    policy: PolicyKind,
    factor: f64,
    spec: &RunSpec,
    build: Build<'_>,
    traces: Option<&TraceDir>,
) -> Result<EpisodeOutcome, TraceWriteError> {
    let trace = Trace { on: traces.is_some(), live_model: None };
    let (core, mut deciders) = EpisodeCore::new(book, level, policy, factor, spec, build, trace);
    let mut file = traces.map(|t| t.file(&EpisodeCore::id(level, policy, factor, spec))).transpose()?;
    let out = drive_core(core, &mut deciders, file.as_mut());
    if let Some(f) = file {
        f.finish()?;
    }
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

/// Any policy as the one decider of a world, borrowed for the episode.
struct Lent<'a>(&'a mut dyn Policy);

impl Agent<Turn, Turned> for Lent<'_> {
    fn step(&mut self, id: AgentId, turn: Turn) -> Stepped<Turned> {
        Stepped::ok(id, one(self.0, turn))
    }
}

/// Runs `steps` steps of a prepared world under any policy (a scripted one in tests),
/// with the scripted executor.
pub fn run_with(world: World, policy: &mut dyn Policy, name: &str, factor: f64, steps: u32) -> EpisodeOutcome {
    run_with_exec(world, policy, name, factor, steps, None)
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
    let mode = Mode::One { central: policy.central() };
    let core = EpisodeCore::prepared(world, name, factor, steps, mode, exec.as_deref().cloned());
    let (out, used) = drive_core_exec(core, &mut [Lent(policy)]);
    if let (Some(x), Some(used)) = (exec, used) {
        *x = used;
    }
    out
}

/// [`drive_core`] for a core built from a prepared world: the outcome and the
/// executor's state at the end.
fn drive_core_exec(mut core: EpisodeCore, deciders: &mut [Lent<'_>]) -> (EpisodeOutcome, Option<EpisodeExec>) {
    let mut flush = |_: &mut EpisodeCore, _: &[Lent<'_>]| {};
    let out = match drive(&mut core, deciders, &mut NoBoard, &mut NoConsults, &mut flush) {
        Ok(out) => out,
        Err(e) => unreachable!("the kitchen never consults an adjudicator: {e}"),
    };
    (out, core.take_exec())
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
/// while deciding: logged, passed through the executor, applied.
pub(super) fn step_once(
    world: &mut World,
    d: Decided<'_>,
    mut exec: Option<&mut EpisodeExec>,
    log: &mut Log,
    tally: &mut Tally,
) -> StepReport {
    let Decided { central, intended, lines, live } = d;
    let agents = world.agents().len();
    log.decided(world, central, &intended, lines);
    log.live_calls(live);
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
    if let Some(x) = exec.as_deref() {
        log.calls(agents, x.calls());
    }
    let report = world.step(&actions);
    log.stepped(world, &intended, &report);
    if let Some(x) = exec {
        x.observe(world, central, &report);
    }
    tally.completed += report.completed.len() as u32;
    tally.failed += report.failed.len() as u32;
    tally.refused += report.outcomes.iter().filter(|(_, r)| r.is_err()).count() as u32;
    report
}

/// The episode's outcome after its last step; the trace's last line is logged here.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    world: &World,
    name: &str,
    factor: f64,
    steps: u32,
    tally: Tally,
    counters: Counters,
    exec: Option<&EpisodeExec>,
    log: &mut Log,
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
    log.end(&outcome);
    outcome
}
