//! `gatecrew cos`: MindAgent's Collaboration Score on the CuisineWorld kitchen (issue
//! 21). Each level runs at the five interval factors under each policy and crew size;
//! the table shows each factor's completion rate and the two CoS variants, named for
//! what they do with orders still pending at the end (the paper's formula leaves them
//! out, MindAgent's script counts them as failed).
//!
//! `--executor llm` runs every policy under the kitchen's language-model executor
//! (`gatecrew_kitchen::executor`): each decision is a call with counted tokens and a
//! seeded chance of a wrong command, from the built-in GPT-4o profile (or
//! `--llm-profile FILE`), its error rates times `--error-scale`; the tables add the
//! calls, tokens, mistakes and model time.
//!
//! `--llm-url URL --model NAME` lets a real model be the dispatcher ([`live`]): each
//! step one request, the reply parsed into every agent's command; the tables add the
//! calls, tokens, invalid commands and fallbacks, and stderr shows each episode's.
//!
//! `--trace DIR` writes each episode's trace (`gatecrew_kitchen::trace`) into DIR;
//! the tables and `--json` are the same with and without it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use gatecrew_analyze::table;
use gatecrew_kitchen::trace::TraceDir;
use gatecrew_kitchen::{
    CosRow, CosTraceError, Cuisine, DEFAULT_HORIZON, Executor, ExecutorKind, FACTORS, LlmModel, PolicyKind, RunSpec,
    TimingMode,
};
use serde::Serialize;

use crate::BadInput;

mod live;
mod means;
mod runtime;

use means::{Mean, means};
pub use runtime::Runtime;

/// Arguments of `gatecrew cos`.
#[derive(Debug, clap::Args)]
pub struct CosArgs {
    /// Levels by name (`level_0,level_3`), or `all`
    #[arg(long, value_delimiter = ',', default_value = "all")]
    levels: Vec<String>,
    /// Kitchen policies: dispatcher, gated, flatcomm
    #[arg(long, value_delimiter = ',', default_value = "dispatcher,gated,flatcomm")]
    policy: Vec<PolicyKind>,
    /// Crew sizes
    #[arg(long, value_delimiter = ',', default_value = "2")]
    agents: Vec<usize>,
    /// The order draws' seed (one episode per factor and seed)
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Steps per episode, unless a level sets max_steps (MindAgent's 60)
    #[arg(long, default_value_t = DEFAULT_HORIZON)]
    horizon: u32,
    /// Order interval and lifetimes: `file` (the level file's, the interval times the factor) or `oracle` (MindAgent's script: from the recipe graph)
    #[arg(long, default_value = "file", value_parser = parse_timing)]
    timing: TimingMode,
    /// The folder with recipe.json and tasks_level_final.json (default: $GATECREW_CUISINEWORLD, else configs/cuisineworld, MindAgent's files as shipped)
    #[arg(long, value_name = "DIR")]
    tasks: Option<PathBuf>,
    /// Print JSON (every row with its episodes, and the means) instead of tables
    #[arg(long)]
    json: bool,
    /// Who decides: `scripted` (the policies' decisions, free) or `llm` (each decision a model call that costs tokens and time and can go wrong)
    #[arg(long, default_value = "scripted")]
    executor: ExecutorKind,
    /// The llm executor's latency and error profile (default: the built-in GPT-4o profile)
    #[arg(long, value_name = "FILE")]
    llm_profile: Option<PathBuf>,
    /// Multiplies the profile's error rates (llm executor; default 1)
    #[arg(long, value_name = "X")]
    error_scale: Option<f64>,
    /// Write one JSON Lines trace per episode into DIR (`gatecrew analyze DIR` reads them)
    #[arg(long, value_name = "DIR")]
    trace: Option<PathBuf>,
    /// Where the episodes run: `stepper` (one synchronous loop) or `actors` (ractor: a world actor, a cook per agent, the dispatcher); same rows, same traces
    #[arg(long, value_enum, default_value = "stepper")]
    runtime: Runtime,
    #[command(flatten)]
    live: live::LiveArgs,
}

fn parse_timing(s: &str) -> Result<TimingMode, String> {
    match s {
        "file" => Ok(TimingMode::File),
        "oracle" => Ok(TimingMode::Oracle),
        other => Err(format!("unknown timing {other:?}: file or oracle")),
    }
}

/// The executor the flags name; a profile that cannot be used is bad input (exit 2)
/// naming the file and the key.
fn executor(args: &CosArgs) -> anyhow::Result<Executor> {
    if args.executor == ExecutorKind::Scripted {
        if args.llm_profile.is_some() || args.error_scale.is_some() {
            return Err(BadInput("--llm-profile and --error-scale need --executor llm".into()).into());
        }
        return Ok(Executor::Scripted);
    }
    let scale = args.error_scale.unwrap_or(1.0);
    if !scale.is_finite() || scale < 0.0 {
        return Err(BadInput(format!("--error-scale {scale}: a finite factor >= 0")).into());
    }
    let model = match &args.llm_profile {
        Some(path) => LlmModel::load(path, scale),
        None => LlmModel::builtin(scale),
    }
    .map_err(|e| BadInput(e.to_string()))?;
    Ok(Executor::llm(model))
}

/// Runs `gatecrew cos`.
pub fn run(args: CosArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    if args.agents.iter().any(|&n| n == 0 || n > 64) {
        return Err(BadInput(format!("--agents {:?}: each crew size must be in 1..=64", args.agents)).into());
    }
    if args.horizon == 0 {
        return Err(BadInput("--horizon 0: an episode needs at least one step".into()).into());
    }
    let executor = executor(&args)?;
    live::check(&args.live, &args.policy, &executor, args.runtime)?;
    let live = args.live.on();
    let llm = executor.kind() == ExecutorKind::Llm || live;
    let dir = args.tasks.clone().unwrap_or_else(gatecrew_kitchen::default_dir);
    // Shown as the folder it is, not as the build's relative path to it.
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let cuisine = Cuisine::load(&dir).map_err(|e| BadInput(e.to_string()))?;
    let levels = match args.levels.as_slice() {
        [all] if all == "all" => None,
        names => Some(names),
    };
    let spec = RunSpec { agents: 0, seed: args.seed, horizon: args.horizon, timing: args.timing, executor };
    // A folder that cannot be made is the user's to fix (exit 2); a write that fails
    // midway is a failure of the run (exit 1).
    let traces = match &args.trace {
        None => None,
        Some(dir) => Some(TraceDir::create(dir).map_err(|e| BadInput(e.to_string()))?),
    };
    let rows = if live {
        live::table(&args.live, &cuisine, levels, &args.agents, &spec, traces.as_ref(), err)?
    } else {
        runtime::table(args.runtime, &cuisine, levels, &args.policy, &args.agents, &spec, traces.as_ref())?.map_err(
            |e| match e {
                CosTraceError::Level(e) => anyhow::Error::from(BadInput(e.to_string())),
                e => anyhow::Error::from(e),
            },
        )?
    };
    let means = means(&rows, &args.policy, &args.agents, live);
    // The factors run: MindAgent's five, unless `--factors` (with `--llm-url`) chose some.
    let factors: Vec<f64> = rows.first().map_or(FACTORS.to_vec(), |r| r.episodes.iter().map(|e| e.factor).collect());
    if args.json {
        #[derive(Serialize)]
        struct Report<'a> {
            tasks: &'a std::path::Path,
            factors: &'a [f64],
            executor: &'a Executor,
            rows: &'a [CosRow],
            means: &'a [Mean],
        }
        let report = Report { tasks: &dir, factors: &factors, executor: &spec.executor, rows: &rows, means: &means };
        serde_json::to_writer_pretty(&mut *out, &report).context("writing the report")?;
        writeln!(out)?;
        return Ok(());
    }
    let timing = match args.timing {
        TimingMode::File => "the level file's interval x factor and lifetimes",
        TimingMode::Oracle => "MindAgent's script's (oracle) interval and lifetimes",
    };
    writeln!(out, "CoS on {} ({timing}), seed {}, one episode per factor", dir.display(), args.seed)?;
    if live {
        writeln!(out, "{}", args.live.describe())?;
    }
    if let Executor::Llm(m) = &spec.executor {
        let (p0, p1) = m.profile().errors.as_ref().map_or((0.0, 0.0), |e| (e.p0, e.p1));
        writeln!(
            out,
            "executor llm: {}, mistake p = {} x ({p0} + {p1} x prompt tokens / 1000); calls cost no game step (turn-based)",
            m.profile().model,
            m.error_scale()
        )?;
    }
    let mut head = vec!["level".to_owned(), "policy".into(), "crew".into()];
    head.extend(factors.iter().map(|f| format!("x{f}")));
    // Headers and cells on several lines, so that the table fits 100 columns.
    head.extend(["CoS\npending\nexcluded".into(), "CoS\npending\n= failed".into(), "msgs".into()]);
    if live {
        head.extend(["calls".into(), "prompt\ntok/call".into(), "invalid".into(), "fall-\nbacks".into()]);
    } else if llm {
        head.extend(["calls".into(), "prompt\ntok/call".into(), "mis-\ntakes".into()]);
    }
    let mut t = table::new(head);
    for r in &rows {
        let mut cells = vec![r.level.clone(), r.policy.to_string(), r.spec.agents.to_string()];
        cells.extend(
            r.episodes
                .iter()
                .map(|e| format!("{:.2}\n{}/{}/{}", e.rate_pending_excluded(), e.completed, e.failed, e.pending)),
        );
        cells.extend([
            format!("{:.3}", r.cos_pending_excluded),
            format!("{:.3}", r.cos_pending_failed),
            r.messages.to_string(),
        ]);
        let per_call = r.model.prompt_tokens as f64 / (r.model.calls.max(1) as f64);
        if live {
            let m = &r.model;
            cells.extend([
                m.calls.to_string(),
                format!("{per_call:.0}"),
                m.invalid_commands.to_string(),
                m.fallbacks.to_string(),
            ]);
        } else if llm {
            cells.extend([r.model.calls.to_string(), format!("{per_call:.0}"), r.model.mistakes.to_string()]);
        }
        t.add_row(cells);
    }
    writeln!(out, "{t}")?;
    writeln!(
        out,
        "each factor: completed / (completed + failed), and below it completed/failed/pending orders; \
         CoS pending excluded: the paper's formula; pending = failed: completed / (completed + failed + pending), \
         MindAgent's script"
    )?;
    let mut head: Vec<&str> =
        vec!["policy", "agents", "levels", "CoS\npending\nexcluded", "CoS\npending\n= failed", "messages\n/episode"];
    if llm {
        head.extend([
            "calls\n/episode",
            "prompt\ntok/call",
            "completion\ntok/call",
            "mistakes\n/episode",
            "model s\n/episode",
            "wait s\n/episode",
        ]);
    }
    if live {
        head.extend(["invalid\n/episode", "fallbacks\n/episode"]);
    }
    let mut m = table::new(head);
    for x in &means {
        let mut cells = vec![
            x.policy.to_string(),
            x.agents.to_string(),
            x.levels.to_string(),
            format!("{:.3}", x.cos_pending_excluded),
            format!("{:.3}", x.cos_pending_failed),
            format!("{:.1}", x.messages_per_episode),
        ];
        if llm {
            cells.extend([
                format!("{:.1}", x.calls_per_episode),
                format!("{:.0}", x.prompt_tokens_per_call),
                format!("{:.1}", x.completion_tokens_per_call),
                format!("{:.1}", x.mistakes_per_episode),
                format!("{:.0}", x.model_seconds_per_episode),
                format!("{:.0}", x.wait_seconds_per_episode),
            ]);
        }
        if live {
            cells.extend([
                format!("{:.1}", x.invalid_commands_per_episode.unwrap_or(0.0)),
                format!("{:.1}", x.fallbacks_per_episode.unwrap_or(0.0)),
            ]);
        }
        m.add_row(cells);
    }
    writeln!(out, "{m}")?;
    Ok(())
}
