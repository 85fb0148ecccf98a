//! `gatecrew suite generate` and `gatecrew suite run`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_protocol::metrics::{EpisodeMetrics, GroupMetrics};
use gatecrew_protocol::trace::{Event, Split, SuiteClass, TraceWriter};
use gatecrew_suite::Manifest;
use gatecrew_world::GameData;
use rayon::prelude::*;

use crate::BadInput;
use crate::paths;

mod model;

/// `gatecrew suite ...`
#[derive(Debug, clap::Subcommand)]
pub enum SuiteCmd {
    /// Write the 200-episode suite (plus the standard split) as files.
    Generate(GenerateArgs),
    /// Run every episode of a split under one or more policies, one trace per episode.
    Run(Box<RunArgs>),
}

/// Arguments of `gatecrew suite generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Output folder [default: configs/suite, or configs/suite-v2 for --suite-version 2]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// 1: one shortage per episode on a quiet world; 2: two or three shortages of
    /// different classes, sources out of view, background faults, MineCollab time limits
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::counts::between::<u32>(1, 2))]
    suite_version: u32,
    /// Game data file [default: configs/data/minecraft-1.20.4.json]
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Print one JSON object (counts by split, class and crew size) instead of the sentence
    #[arg(long)]
    json: bool,
}

/// Arguments of `gatecrew suite run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Suite folder (with suite.toml) [default: configs/suite-v2; suite v1 is configs/suite]
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
    /// A file of a `[gate]` table only, laid over every episode's gate (e.g. configs/gates/boundary-wide.toml)
    #[arg(long, value_name = "FILE.toml")]
    gate: Option<PathBuf>,
    /// calibration, test, standard or all
    #[arg(long, default_value = "test")]
    split: String,
    /// Comma-separated policies
    #[arg(long, value_delimiter = ',', default_value = "gated")]
    policy: Vec<String>,
    /// Where the traces go: OUT/<policy>/<episode>.jsonl
    #[arg(long, value_name = "DIR", default_value = "runs/suite")]
    out: PathBuf,
    /// Worker threads, at most 4 per core [default: all cores; 1 with a live --bots model
    /// endpoint, whose calls would otherwise queue behind each other on a one-slot server]
    #[arg(long, value_name = "N", value_parser = crate::jobs::parse)]
    jobs: Option<usize>,
    /// Only episodes whose id contains this text
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    #[command(flatten)]
    exec: crate::executor::ExecutorArgs,
    #[command(flatten)]
    bots: model::ModelArgs,
    #[command(flatten)]
    metrics: crate::watch::MetricsArgs,
    #[command(flatten)]
    linger: crate::watch::LingerArgs,
    /// Print one JSON object (the run and each policy's pooled metrics) instead of the lines
    #[arg(long)]
    json: bool,
}

/// Runs `gatecrew suite ...`.
pub fn run(cmd: SuiteCmd, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    match cmd {
        SuiteCmd::Generate(a) => generate(a, out),
        SuiteCmd::Run(a) => run_suite(*a, out, err),
    }
}

fn generate(a: GenerateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let version = gatecrew_suite::Version::from_number(a.suite_version)
        .ok_or_else(|| BadInput(format!("--suite-version {}: 1 or 2", a.suite_version)))?;
    let dir = a.out.unwrap_or_else(|| match version {
        gatecrew_suite::Version::V1 => paths::default_suite(),
        _ => paths::default_suite().with_file_name("suite-v2"),
    });
    let data = match a.data {
        Some(d) => d,
        None => paths::default_data()
            .ok_or_else(|| BadInput("no configs/data/minecraft-1.20.4.json here; pass --data FILE".into()))?,
    };
    let started = Instant::now();
    let m = gatecrew_suite::generate(&dir, &data, version)
        .with_context(|| format!("generating the suite into {}", dir.display()))?;
    let count = |f: &dyn Fn(&gatecrew_suite::Entry) -> bool| m.episode.iter().filter(|e| f(e)).count();
    let seconds = started.elapsed().as_secs_f64();
    let (calibration, test, standard) = (
        count(&|e| e.split == Split::Calibration),
        count(&|e| e.split == Split::Test),
        count(&|e| e.split == Split::Standard),
    );
    let classes = [
        ("A", count(&|e| e.class == SuiteClass::A)),
        ("B", count(&|e| e.class == SuiteClass::B)),
        ("C", count(&|e| e.class == SuiteClass::C)),
        ("D", count(&|e| matches!(e.class, SuiteClass::D | SuiteClass::DImpossible))),
        ("D-impossible", count(&|e| e.class == SuiteClass::DImpossible)),
    ];
    // Crew sizes of the calibration and test splits (the standard split is MineCollab's).
    let (two, three) = (
        count(&|e| e.split != Split::Standard && e.agents == 2),
        count(&|e| e.split != Split::Standard && e.agents == 3),
    );
    if a.json {
        let v = serde_json::json!({
            "episodes": m.episode.len(),
            "suite_version": m.version,
            "out": dir.display().to_string(),
            "seconds": seconds,
            "splits": { "calibration": calibration, "test": test, "standard": standard },
            "classes": classes.iter().map(|(k, n)| ((*k).to_owned(), serde_json::Value::from(*n))).collect::<serde_json::Map<_, _>>(),
            "crews": { "2": two, "3": three },
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    let c = |k: &str| classes.iter().find(|(n, _)| *n == k).map_or(0, |(_, v)| *v);
    writeln!(
        out,
        "wrote {} episodes (suite version {}) into {} in {seconds:.1} s: {calibration} calibration, {test} test, {standard} standard; classes A {} B {} C {} D {} (D-impossible {}); {two} with 2 bots, {three} with 3",
        m.episode.len(),
        m.version,
        dir.display(),
        c("A"),
        c("B"),
        c("C"),
        c("D"),
        c("D-impossible"),
    )?;
    Ok(())
}

/// One finished episode.
struct Done {
    policy: Policy,
    metrics: EpisodeMetrics,
}

fn run_suite(a: RunArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let dir = a.suite.unwrap_or_else(paths::default_suite_v2);
    let gate = match &a.gate {
        Some(p) => Some(
            crate::run::gate_only(p)?
                .ok_or_else(|| BadInput(format!("--gate {}: not a file of a `[gate]` table only", p.display())))?,
        ),
        None => None,
    };
    if gate.is_some_and(|g| g.experiment) {
        writeln!(err, "experiment gate (`experiment = true` in [gate]): the weight hierarchy is not enforced")?;
    }
    a.bots.check()?;
    let manifest = Manifest::load(&dir).map_err(|e| BadInput(e.to_string()))?;
    let policies: Vec<Policy> =
        a.policy.iter().map(|p| p.parse::<Policy>().map_err(|e| BadInput(e.to_string()))).collect::<Result<_, _>>()?;
    // `all` is a selector, not a split.
    let split = match a.split.as_str() {
        "all" => None,
        s => Some(s.parse::<Split>().map_err(|e| BadInput(format!("--split: {e}, or all")))?),
    };
    let entries: Vec<_> =
        manifest.split(split).filter(|e| a.filter.as_deref().is_none_or(|f| e.id.contains(f))).cloned().collect();
    if entries.is_empty() {
        return Err(BadInput(format!("no episodes in split \"{}\" of {}", a.split, dir.display())).into());
    }
    let data_path =
        paths::default_data().ok_or_else(|| BadInput("no configs/data/minecraft-1.20.4.json found".into()))?;
    let data = Arc::new(GameData::load(&data_path).map_err(|e| BadInput(e.to_string()))?);
    let jobs: Vec<(Policy, &gatecrew_suite::Entry)> =
        policies.iter().flat_map(|p| entries.iter().map(move |e| (*p, e))).collect();
    for p in &policies {
        let d = a.out.join(p.as_str());
        std::fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let executor = a.exec.resolve()?;
    let exporter = a.metrics.start(err)?;
    let bar = crate::progress::bar(jobs.len() as u64, "episodes");
    let threads = a.jobs.unwrap_or(if a.bots.live() { 1 } else { 0 });
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("starting the worker pool")?;
    let started = Instant::now();
    let results: Vec<anyhow::Result<Done>> = pool.install(|| {
        jobs.par_iter()
            .map(|(policy, e)| {
                let r = run_one(&dir, e, *policy, gate, executor.as_ref(), &a.bots, &a.out, &data, exporter.as_ref());
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    let wall = started.elapsed();
    let mut done = Vec::with_capacity(results.len());
    for r in results {
        done.push(r?);
    }
    let pooled: Vec<(Policy, GroupMetrics)> = policies
        .iter()
        .map(|p| (*p, GroupMetrics::pool(done.iter().filter(|d| d.policy == *p).map(|d| &d.metrics))))
        .collect();
    if a.json {
        let v = serde_json::json!({
            "episodes": done.len(),
            "split": a.split,
            "suite": dir.display().to_string(),
            "out": a.out.display().to_string(),
            "wall_seconds": wall.as_secs_f64(),
            "policies": pooled.iter().map(|(p, g)| serde_json::json!({
                "policy": p.as_str(),
                "episodes": g.episodes,
                "tsr": g.tsr,
                "complete_share": g.complete_share,
                "cs": g.cs,
                "msg": g.msg,
                "lrr": g.lrr,
                "uer": g.uer,
                "ecr": g.ecr,
                "rsr": g.rsr,
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{v}")?;
        out.flush()?;
        a.linger.after_metrics(exporter.as_ref(), "suite run", err)?;
        return Ok(());
    }
    writeln!(
        out,
        "ran {} episodes ({} policies x {} episodes of split {}) in {:.2} s wall; traces in {}",
        done.len(),
        policies.len(),
        entries.len(),
        a.split,
        wall.as_secs_f64(),
        a.out.display()
    )?;
    for (p, g) in &pooled {
        let pct = |v: Option<f64>| v.map_or("-".into(), |v| format!("{:.1}%", v * 100.0));
        writeln!(
            out,
            "  {:<17} n={:<4} TSR {:.3}  complete {:.0}%  CS {:.1}  Msg {:.2}  LRR {}  UER {}  ECR {}  RSR {}",
            p.as_str(),
            g.episodes,
            g.tsr,
            g.complete_share * 100.0,
            g.cs,
            g.msg,
            pct(g.lrr),
            pct(g.uer),
            pct(g.ecr),
            pct(g.rsr)
        )?;
    }
    writeln!(out, "analyse with: gatecrew analyze {}", a.out.display())?;
    out.flush()?;
    a.linger.after_metrics(exporter.as_ref(), "suite run", err)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_one(
    dir: &Path,
    e: &gatecrew_suite::Entry,
    policy: Policy,
    gate: Option<gatecrew_gating::GateSpec>,
    executor: Option<&gatecrew_crew::Executor>,
    bots: &model::ModelArgs,
    out: &Path,
    data: &Arc<GameData>,
    exporter: Option<&gatecrew_viewer::metrics::Exporter>,
) -> anyhow::Result<Done> {
    let cfg = dir.join(&e.file);
    let ov = Overrides {
        policy: Some(policy),
        gate,
        executor: executor.cloned(),
        bots: bots.kind(),
        ..Overrides::default()
    };
    let mut setup = Setup::load_with_data(&cfg, &ov, data.clone()).map_err(|err| BadInput(err.to_string()))?;
    let rel = Path::new(policy.as_str()).join(format!("{}.jsonl", paths::file_stem(&e.id)));
    let seat = bots.attach(&mut setup, &rel).with_context(|| format!("episode {}", e.id))?;
    let path = out.join(&rel);
    let partial = crate::output::PartialFile::create(&path)?;
    let file = partial.file()?;
    let mut w = TraceWriter::new(file);
    let mut metrics = EpisodeMetrics::default();
    let mut error = None;
    let mut series = crate::watch::episode_metrics(exporter, false);
    gatecrew_crew::run(&setup, &mut |ev: &Event| {
        metrics.observe(ev);
        if let Some(s) = &mut series {
            s.observe(ev);
        }
        if error.is_none() {
            if let Err(err) = w.write(ev) {
                error = Some(err);
            }
        }
    });
    if let Some(err) = error {
        return Err(err).with_context(|| format!("writing {}", path.display()));
    }
    w.flush().with_context(|| format!("writing {}", path.display()))?;
    drop(w);
    // A replay that went another way than its recording leaves no trace behind.
    seat.check().with_context(|| format!("episode {} under {}", e.id, policy.as_str()))?;
    partial.commit()?;
    Ok(Done { policy, metrics })
}
