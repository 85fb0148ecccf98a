//! `gatecrew run`: one episode, on the actor runtime (default) or the stepper.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use gatecrew_crew::{Finished, Observer, Overrides, Policy, Progress, Setup};
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::text::escape;
use gatecrew_protocol::trace::{Event, EventKind, TaskScores, TraceWriter};
use indicatif::{ProgressBar, ProgressStyle};

use crate::BadInput;
use crate::adjudications::Tally;
use crate::paths;
use crate::report::{Report, print_table};
use crate::tier3::Tier3;
use crate::watch::TraceFile;

/// Coordination policies selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    /// All three gate tiers.
    #[value(name = "gated")]
    Gated,
    /// Rules and score, no gray zone: one threshold at the midpoint of the two.
    #[value(name = "rule_score")]
    RuleScore,
    /// Rules only; everything the rules leave is escalated.
    #[value(name = "rule_only")]
    RuleOnly,
    /// Every issue the protocol can carry is escalated.
    #[value(name = "no_gate")]
    NoGate,
    /// The gate, but every public message interrupts the agent (baseline).
    #[value(name = "no_partition")]
    NoPartition,
    /// MindCraft-like free chat (baseline).
    #[value(name = "flatcomm")]
    Flatcomm,
    /// VillagerAgent-like central manager (baseline).
    #[value(name = "central_dag")]
    CentralDag,
    /// flatcomm's chat behind the gate: a bot chats about an issue only when its gate escalates.
    #[value(name = "gated_flatcomm")]
    GatedFlatcomm,
    /// central_dag's manager behind the gate: a bot reports an issue only when its gate escalates.
    #[value(name = "gated_central_dag")]
    GatedCentralDag,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Self {
        match p {
            PolicyArg::Gated => Policy::Gated,
            PolicyArg::RuleScore => Policy::RuleScore,
            PolicyArg::RuleOnly => Policy::RuleOnly,
            PolicyArg::NoGate => Policy::NoGate,
            PolicyArg::NoPartition => Policy::NoPartition,
            PolicyArg::Flatcomm => Policy::Flatcomm,
            PolicyArg::CentralDag => Policy::CentralDag,
            PolicyArg::GatedFlatcomm => Policy::GatedFlatcomm,
            PolicyArg::GatedCentralDag => Policy::GatedCentralDag,
        }
    }
}

/// Arguments of `gatecrew run`.
#[derive(Debug, clap::Args)]
// `--linger` needs --serve or --metrics or both (the group clap would make by itself
// allows only one of its members).
#[command(group(clap::ArgGroup::new("served").multiple(true)))]
pub struct RunArgs {
    /// Crew config (TOML) [default: configs/crew.toml]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Build this blueprint instead of the config's
    #[arg(long, value_name = "FILE")]
    blueprint: Option<PathBuf>,
    /// Run a MindCraft (MineCollab) or VillagerBench task file instead of a crew config
    #[arg(long, value_name = "FILE", conflicts_with_all = ["config", "blueprint"])]
    task: Option<PathBuf>,
    /// The task to run from a file holding several (without it, they are listed)
    #[arg(long, value_name = "ID", requires = "task")]
    task_id: Option<String>,
    /// Episode seed (the world's RNG)
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Crew size; inventories are pooled and dealt out by share when it differs from the config
    #[arg(long, value_name = "N", value_parser = crate::counts::between::<u16>(1, 10_000))]
    agents: Option<u16>,
    /// Coordination policy
    #[arg(long, value_enum)]
    policy: Option<PolicyArg>,
    /// Gate parameters from a file with a [gate] table (e.g. calibrate's best-gate.toml)
    #[arg(long, value_name = "FILE")]
    gate: Option<PathBuf>,
    /// Fault settings replacing the config's [faults], as TOML pairs, e.g. "action_failure_rate = 0.05, message_drop_rate = 0.1" (what `gatecrew soak` prints to reproduce a finding)
    #[arg(long, value_name = "TOML", value_parser = parse_faults)]
    faults: Option<gatecrew_crew::FaultSpec>,
    /// Where to write the JSON Lines trace [default: runs/<episode>-<policy>-s<seed>.jsonl]
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// Print one JSON object with the figures instead of the table
    #[arg(long)]
    json: bool,
    /// Run on the synchronous stepper instead of the actor runtime (same trace)
    #[arg(long)]
    stepper: bool,
    /// Worker threads for the actors (1 = one thread) [default: 1 below 400 bots, every core from 400]
    #[arg(long, value_name = "N", value_parser = crate::counts::between::<u16>(1, 1024), conflicts_with = "stepper")]
    workers: Option<u16>,
    /// No progress bar and no board messages
    #[arg(long, short)]
    quiet: bool,
    /// Settle the gray zone with this OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1;
    /// with --bots model, the bots' endpoint, and it may be given several times (bot i's
    /// calls go to the (i mod k)-th)
    #[arg(long, value_name = "URL")]
    llm_url: Vec<String>,
    /// Model name for --llm-url
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// Re-run with the adjudications recorded in this trace (no server); same config, seed and flags
    #[arg(long, value_name = "TRACE", conflicts_with_all = ["llm_url", "model"])]
    replay_adjudications: Option<PathBuf>,
    /// How long one tier-3 call to --llm-url may take, in ms [default: the config's
    /// llm.timeout_ms, else 2000]. Not an episode term: the verdict enters the episode
    /// llm.verdict_delay_ticks after the consult however long the call took, so a
    /// recording made on a slow machine replays like one made on a fast one
    #[arg(long, value_name = "MS", requires = "llm_url", value_parser = crate::counts::between::<u64>(1, 600_000))]
    llm_timeout_ms: Option<u64>,
    /// With --bots model: calls in flight at once per --llm-url [default: the server's
    /// slots, from llama.cpp's /props or /slots, else 1]
    #[arg(long, value_name = "N", requires = "llm_url", value_parser = crate::bots::parse_concurrency)]
    llm_concurrency: Option<usize>,
    #[command(flatten)]
    exec: crate::executor::ExecutorArgs,
    /// Who decides at the bots' decision points: `scripted` (the agent core) or `model`
    /// (a language model at --llm-url / --model: next cell, what to do about an issue,
    /// how to answer a request) [default: the config's [bots], else scripted]
    #[arg(long, value_name = "KIND", value_parser = crate::bots::parse_kind)]
    bots: Option<gatecrew_crew::bots::BotsKind>,
    /// Re-run a --bots model episode with the model calls recorded in this trace (no
    /// server); same config, seed and flags
    #[arg(long, value_name = "TRACE", conflicts_with_all = ["llm_url", "model", "replay_adjudications"])]
    replay_model: Option<PathBuf>,
    #[command(flatten)]
    mc: crate::minecraft::McArgs,
    /// A person in the loop.
    #[command(flatten)]
    hitl: crate::interactive::InteractiveArgs,
    #[command(flatten)]
    metrics: crate::watch::MetricsArgs,
    #[command(flatten)]
    serve: crate::watch::ServeArgs,
    /// With --serve: show the run at this many ticks per second (20 is Minecraft's speed);
    /// the crew is never slowed, the page follows behind [default: as fast as it runs]
    #[arg(long, value_name = "TPS", requires = "serve", value_parser = positive)]
    pace: Option<f64>,
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("expected a positive number of ticks per second, got \"{s}\"")),
    }
}

/// Watches the run: progress bar, board lines, metrics.
struct Watch<'o> {
    bar: Option<ProgressBar>,
    board_lines: bool,
    metrics: EpisodeMetrics,
    tally: Tally,
    scores: TaskScores,
    out: &'o mut dyn Write,
    /// `--metrics`: this episode's trace-derived series.
    trace_metrics: Option<gatecrew_viewer::metrics::TraceMetrics>,
}

impl Watch<'_> {
    fn line(&mut self, text: String) {
        match &self.bar {
            Some(bar) => bar.suspend(|| writeln!(self.out, "{text}")).unwrap_or(()),
            None => {
                let _ = writeln!(self.out, "{text}");
            }
        }
    }
}

impl crate::interactive::Console for Watch<'_> {
    fn line(&mut self, text: String) {
        // The bot's lines follow the board lines' switch (off with --json or --quiet).
        if self.board_lines {
            Watch::line(self, text);
        }
    }
}

impl Observer for Watch<'_> {
    fn event(&mut self, ev: &Event) {
        self.metrics.observe(ev);
        self.tally.observe(ev);
        if let Some(m) = &mut self.trace_metrics {
            m.observe(ev);
        }
        if let EventKind::EpisodeEnd { scores, .. } = &ev.kind {
            self.scores = *scores;
        }
        if !self.board_lines {
            return;
        }
        match &ev.kind {
            EventKind::Board { msg, window, from, to, item, count, .. } => {
                let to = to.to_string();
                let count = count.map(|c| format!(" x{c}")).unwrap_or_default();
                self.line(format!("  t={:<6} {window:<4} {msg:<17} {from} -> {to:<5} {item}{count}", ev.t));
            }
            EventKind::Window { window, outcome: Some(outcome), .. } => {
                self.line(format!("  t={:<6} {window:<4} window closed: {outcome}", ev.t));
            }
            EventKind::Restart { agent, cause } => {
                self.line(format!("  t={:<6} {agent} restarted after: {}", ev.t, escape(cause)))
            }
            _ => {}
        }
    }

    fn progress(&mut self, p: Progress) {
        if let Some(m) = &mut self.trace_metrics {
            m.progress(p.correct, p.total);
        }
        if let Some(bar) = &self.bar {
            bar.set_length(u64::from(p.total));
            bar.set_position(u64::from(p.correct));
            bar.set_message(format!("tick {}", p.tick));
        }
    }
}

/// Runs `gatecrew run`.
pub fn run(args: RunArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let mc = args.mc.options(args.stepper)?;
    let default_config =
        || paths::default_config().ok_or_else(|| BadInput("no configs/crew.toml here; pass --config FILE".into()));
    // A file holding only a [gate] table (what `gatecrew calibrate` writes) overlays the
    // default crew; any other file is a full crew config.
    let (config, gate_overlay) = match &args.config {
        Some(c) => match gate_only(c)? {
            Some(spec) => (Some(default_config()?), Some(spec)),
            None => (Some(c.clone()), None),
        },
        None => (None, None),
    };
    let gate_overlay = match &args.gate {
        Some(g) => Some(
            gate_only(g)?
                .ok_or_else(|| BadInput(format!("{}: expected a file with only a [gate] table", g.display())))?,
        ),
        None => gate_overlay,
    };
    let overrides = Overrides {
        blueprint: args.blueprint.clone(),
        seed: args.seed,
        agents: args.agents.map(usize::from),
        policy: args.policy.map(Policy::from),
        gate: gate_overlay,
        llm_url: args.llm_url.first().cloned(),
        llm_model: args.model.clone(),
        consult: args.replay_adjudications.is_some(),
        faults: args.faults.clone(),
        executor: args.exec.resolve()?,
        bots: if args.replay_model.is_some() { Some(gatecrew_crew::bots::BotsKind::Model) } else { args.bots },
    };
    if (mc.is_some() || args.task.is_some() || args.hitl.interactive)
        && (overrides.bots == Some(gatecrew_crew::bots::BotsKind::Model))
    {
        return Err(BadInput(
            "--bots model needs a crew config on the embedded world (not --task, --world minecraft or --interactive)"
                .into(),
        )
        .into());
    }
    if mc.is_some() && args.exec.executor.is_some() {
        // The executor model stands in for a language model's costs in the simulator.
        return Err(BadInput("--executor does not go with --world minecraft".into()).into());
    }
    if mc.is_some() && (!args.llm_url.is_empty() || args.model.is_some() || args.replay_adjudications.is_some()) {
        // The Minecraft driver settles the gray zone with the deterministic adjudicator.
        return Err(
            BadInput("--llm-url, --model and --replay-adjudications do not go with --world minecraft".into()).into()
        );
    }
    if mc.is_some() && args.hitl.interactive {
        crate::interactive::check_minecraft(&args.hitl)?;
    }
    if args.task.is_some() && (!args.llm_url.is_empty() || args.model.is_some() || args.replay_adjudications.is_some())
    {
        // A task file has no [llm] section and its own config hash; not wired yet.
        return Err(
            BadInput("--llm-url, --model and --replay-adjudications need a crew config, not --task".into()).into()
        );
    }
    let (mut setup, notes) = match &args.task {
        Some(file) => {
            let targs = crate::task::TaskArgs {
                file,
                id: args.task_id.as_deref(),
                seed: args.seed,
                policy: overrides.policy,
                agents: overrides.agents,
            };
            let mut t = crate::task::load(&targs, out)?;
            if let Some(e) = &overrides.executor {
                t.setup.set_executor(e.clone());
            }
            let notes = t.notes.iter().map(|n| format!("{}: {n}", t.format)).collect();
            (t.setup, notes)
        }
        None => {
            let config = match config {
                Some(c) => c,
                None => default_config()?,
            };
            (Setup::load(&config, &overrides).map_err(|e| BadInput(e.to_string()))?, Vec::new())
        }
    };
    if setup.gate.spec().experiment {
        let kept = if setup.gate.keeps_hierarchy() { "kept" } else { "broken" };
        writeln!(
            err,
            "experiment gate (`experiment = true` in [gate]): the weight hierarchy is not enforced ({kept} here)"
        )?;
    }
    if let (Some(ms), Some(spec)) = (args.llm_timeout_ms, setup.llm.as_mut()) {
        spec.timeout_ms = ms;
    }
    if let (Some(ms), Some(t)) = (args.llm_timeout_ms, setup.model_bots.as_mut()) {
        // Not in the config hash: a timeout shapes the replies, and they are recorded.
        t.timeout_ms = ms;
    }
    if args.llm_url.len() > 1 && setup.model_bots.is_none() {
        return Err(BadInput("--llm-url given more than once: several endpoints serve only --bots model".into()).into());
    }
    let to =
        crate::bots::Endpoints { urls: &args.llm_url, model: args.model.as_deref(), concurrency: args.llm_concurrency };
    let seat = crate::bots::attach(&mut setup, to, args.replay_model.as_deref())?;
    // A replayed model-driven episode replays its adjudications from the same trace.
    let replay_t3 = args.replay_adjudications.as_deref().or(args.replay_model.as_deref().filter(|_| setup.consults()));
    let tier3 = Tier3::for_run(&setup, replay_t3)?;
    let trace =
        args.trace.clone().unwrap_or_else(|| paths::default_trace(&setup.name, setup.policy.as_str(), setup.seed));
    if let Some(dir) = trace.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    if args.hitl.interactive {
        // Checked before anything is written (a typo in --partner must lose nothing).
        crate::interactive::check(&args.hitl, &setup)?;
    }
    // Written as `TRACE.partial` and renamed when the episode has ended: an existing
    // trace of that name stays whole until then.
    let partial = crate::output::PartialFile::create(&trace)
        .with_context(|| format!("cannot write the trace to {}", trace.display()))?;
    let file = partial.file()?;
    let interactive = !args.json && !args.quiet && std::io::stderr().is_terminal();
    let bar = interactive.then(|| {
        let bar = ProgressBar::new(setup.blueprint.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(if crate::term::colors().stderr {
                "{spinner} [{bar:40.cyan/blue}] {pos}/{len} blocks  {msg}"
            } else {
                "{spinner} [{bar:40}] {pos}/{len} blocks  {msg}"
            })
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let mut watch = Watch {
        bar,
        board_lines: !args.json && !args.quiet,
        metrics: EpisodeMetrics::default(),
        tally: Tally::default(),
        scores: Default::default(),
        out,
        trace_metrics: None,
    };
    let exporter = args.metrics.start(err)?;
    watch.trace_metrics = crate::watch::episode_metrics(exporter.as_ref(), true);
    // The viewer runs on the same tokio runtime as the actors (or on one of its own
    // beside the stepper); the crew only ever sends to it.
    let rt = match (args.serve.serve, args.stepper || args.hitl.interactive) {
        (None, _) => None,
        (Some(_), true) => Some(crate::watch::runtime()?),
        // The actors' runtime, chosen as without a server: the page is served whenever
        // the episode awaits, which it does every step.
        (Some(_), false) => Some(actor_runtime(&setup, args.workers)?),
    };
    let mut server = None;
    let mut feed = None;
    if let (Some(addr), Some(rt)) = (args.serve.serve, &rt) {
        let scene = gatecrew_viewer::crew::scene(&setup);
        let pace = args.pace;
        let (f, bound) = rt.block_on(async move {
            let (feed, live) = gatecrew_viewer::hub::start(scene, pace);
            let bound = gatecrew_viewer::server::bind(addr, gatecrew_viewer::server::Source::Live(live)).await?;
            Ok::<_, gatecrew_viewer::server::ServeError>((feed, bound))
        })?;
        args.serve.announce(bound.addr(), err)?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = rt.spawn(bound.serve(async move {
            let _ = stopped.await;
        }));
        server = Some((stop, task));
        // Every driver drains the episode's events through the setup's probe: the hub
        // gets them with the world's inventories in between, whatever runs the crew.
        setup.probe = Some(gatecrew_viewer::crew::ViewProbe::feeding(setup.data.clone(), f.clone()));
        feed = Some(f);
    }
    if watch.board_lines {
        watch.line(format!(
            "gatecrew: {} bots build \"{}\" ({} blocks), policy {}, seed {}",
            setup.world.agent_count(),
            escape(&setup.blueprint.name),
            setup.blueprint.len(),
            setup.policy.as_str(),
            setup.seed
        ));
        for n in notes {
            watch.line(format!("  note: {}", escape(&n)));
        }
        for w in &setup.labels.warnings {
            watch.line(format!("  warning: {}", escape(w)));
        }
        let bots = setup.labels.builders(setup.world.agent_count());
        for (i, h) in setup.labels.humans.iter().enumerate() {
            let seat = bots + i;
            let person = args.hitl.interactive && i == 0 && args.hitl.partner.is_none_or(|p| p as usize == seat);
            let played = if person {
                "played by you: answer each request with give or no"
            } else {
                "played by a deterministic stand-in that builds nothing and hands over its items on request"
            };
            watch.line(format!("  participant {seat} is {}, a human: {played}", escape(h)));
        }
    }
    // With --serve the hub gets the events as the trace's lines: the run only copies
    // bytes it has written anyway.
    let file = TraceFile::new(file, feed.as_ref());
    let mut mc_summary = None;
    let finished = if let Some(opts) = &mc {
        let (finished, summary) = match args.hitl.interactive {
            true => crate::interactive::run_minecraft(&args.hitl, &setup, opts, file, &mut watch)?,
            false => crate::minecraft::run(&setup, opts, file, &mut watch)?,
        };
        mc_summary = Some(summary);
        finished
    } else if args.hitl.interactive {
        crate::interactive::run(&args.hitl, &setup, file, &mut watch, tier3)?
    } else if args.stepper {
        run_stepper(&setup, file, &mut watch, tier3)?
    } else {
        run_actors(&setup, file, &mut watch, tier3, rt.as_ref(), args.workers)?
    };
    // The feed ends with the episode: the hub publishes the last state and keeps it.
    if let Some(f) = feed {
        f.finish();
    }
    seat.check()?;
    partial.commit()?;
    if let Some(bar) = &watch.bar {
        bar.finish_and_clear();
    }
    let runtime = if mc.is_some() {
        "minecraft"
    } else if args.stepper || args.hitl.interactive {
        "stepper"
    } else {
        "actors"
    };
    let mut report = Report::new(&setup, &watch.metrics, finished, &trace, runtime);
    report.adjudication = setup.consults().then(|| watch.tally.summary());
    report.scores = watch.scores;
    report.minecraft = mc_summary.clone();
    let first_human = setup.labels.builders(setup.world.agent_count());
    report.human_seat_interactive = args.hitl.interactive
        && !setup.labels.humans.is_empty()
        && args.hitl.partner.is_none_or(|p| p as usize == first_human);
    let out = watch.out;
    if args.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        print_table(&report, out)?;
    }
    if let (Some((stop, task)), Some(rt)) = (server, &rt) {
        out.flush()?;
        match args.serve.linger.linger {
            Some(d) => writeln!(err, "viewer: the episode is over; serving its last state for {} s", d.as_secs_f64())?,
            None => writeln!(err, "viewer: the episode is over; serving its last state until Ctrl-C")?,
        }
        rt.block_on(crate::watch::ServeArgs::until_done(args.serve.linger.linger));
        let _ = stop.send(());
        // Open websockets are not waited for past a moment.
        let _ = rt.block_on(async { tokio::time::timeout(std::time::Duration::from_secs(2), task).await });
    } else {
        out.flush()?;
        args.serve.linger.after_metrics(exporter.as_ref(), "episode", err)?;
    }
    match &mc_summary {
        Some(s) => crate::minecraft::all_failed(&finished, s),
        None => Ok(()),
    }
}

fn run_stepper(setup: &Setup, file: TraceFile, watch: &mut Watch<'_>, tier3: Tier3) -> anyhow::Result<Finished> {
    let mut writer = TraceWriter::new(file);
    let mut error: Option<std::io::Error> = None;
    let mut resolver = tier3.into_resolver()?;
    let finished = {
        let mut observer = Tee { watch, writer: &mut writer, error: &mut error };
        gatecrew_crew::run_with(setup, &mut observer, resolver.as_mut()).map(|(f, _)| f)
    };
    writer.flush().context("writing the trace")?;
    let finished = finished?;
    if let Some(e) = error {
        return Err(e).context("writing the trace");
    }
    Ok(finished)
}

/// Writes each event to the trace and shows it.
struct Tee<'a, 'o> {
    watch: &'a mut Watch<'o>,
    writer: &'a mut TraceWriter<TraceFile>,
    error: &'a mut Option<std::io::Error>,
}

impl Observer for Tee<'_, '_> {
    fn event(&mut self, ev: &Event) {
        if self.error.is_none() {
            if let Err(e) = self.writer.write(ev) {
                *self.error = Some(e);
            }
        }
        self.watch.event(ev);
    }
    fn progress(&mut self, p: Progress) {
        self.watch.progress(p);
    }
}

fn run_actors(
    setup: &Setup,
    file: TraceFile,
    watch: &mut Watch<'_>,
    tier3: Tier3,
    shared: Option<&tokio::runtime::Runtime>,
    workers: Option<u16>,
) -> anyhow::Result<Finished> {
    let own;
    let rt = match shared {
        Some(rt) => rt,
        None => {
            own = actor_runtime(setup, workers)?;
            &own
        }
    };
    rt.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let out: Box<dyn Write + Send> = Box::new(file);
        let run = gatecrew_actors::run_episode_with(setup, out, Some(tx), tier3.into_consultant());
        tokio::pin!(run);
        let finished = loop {
            tokio::select! {
                biased;
                Some(tap) = rx.recv() => handle_tap(watch, tap),
                r = &mut run => break r,
            }
        };
        while let Ok(tap) = rx.try_recv() {
            handle_tap(watch, tap);
        }
        Ok(finished?)
    })
}

/// `--workers N`, or the choice by crew size (`gatecrew_actors::runtime`).
fn actor_runtime(setup: &Setup, workers: Option<u16>) -> anyhow::Result<tokio::runtime::Runtime> {
    match workers {
        Some(n) => gatecrew_actors::runtime::with_workers(n.into()),
        None => gatecrew_actors::runtime::for_crew(setup.roster().len()),
    }
    .context("starting the tokio runtime")
}

fn handle_tap(watch: &mut Watch<'_>, tap: gatecrew_actors::Tap) {
    match tap {
        gatecrew_actors::Tap::Events(events) => events.iter().for_each(|e| watch.event(e)),
        gatecrew_actors::Tap::Progress(p) => watch.progress(p),
    }
}

/// `--faults "key = value, ..."`: the pairs of a `[faults]` table.
fn parse_faults(s: &str) -> Result<gatecrew_crew::FaultSpec, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Wrap {
        faults: gatecrew_crew::FaultSpec,
    }
    let w: Wrap = toml::from_str(&format!("faults = {{ {s} }}")).map_err(|e| e.message().to_owned())?;
    w.faults.check().map_err(|(key, why)| format!("{key}: {why}"))?;
    Ok(w.faults)
}

/// The gate spec of a file that holds only a `[gate]` table, `None` for a crew config.
pub(crate) fn gate_only(path: &std::path::Path) -> anyhow::Result<Option<gatecrew_gating::GateSpec>> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct GateFile {
        gate: gatecrew_gating::GateSpec,
    }
    let text = gatecrew_protocol::limits::read_text_file(path)
        .map_err(|e| BadInput(format!("{}: cannot read: {e}", path.display())))?;
    // A file past the key limit is no gate file; the crew loader names the line.
    let limit = gatecrew_protocol::limits::MAX_TOML_KEYS;
    if gatecrew_protocol::limits::count_keys(&text, limit).is_err() {
        return Ok(None);
    }
    let Ok(value) = text.parse::<toml::Table>() else { return Ok(None) };
    if value.len() != 1 || !value.contains_key("gate") {
        return Ok(None);
    }
    let f: GateFile = toml::from_str(&text).map_err(|e| BadInput(format!("{}: {e}", path.display())))?;
    gatecrew_gating::GateParams::new(f.gate)
        .map_err(|e| BadInput(format!("{}: key `{}`: {e}", path.display(), e.key())))?;
    Ok(Some(f.gate))
}
