//! `gatecrew reproduce 004`: the runs paper 004's Tables 2, 3, 4, 7, 8, 9 and 10 need,
//! on suite v2, and `docs/paper-004.md` written from their traces: each of the paper's
//! figures beside ours, the paired differences, the episode counts, the commands, and
//! one sentence per table on whether its finding holds here and why.
//!
//! Every run is an ordinary `gatecrew` command, run in-process and printed in the
//! document, so any table can be re-run by hand. A finding that does not hold is
//! reported as such; it never fails the command. Nothing here is tuned toward a paper
//! figure: every policy runs with the defaults DESIGN gives, the gates named in the
//! commands are the shipped files.

mod model;
mod paper;
mod tables;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use gatecrew_analyze::{By, Ci, Paired, Report, read_traces};
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::Split;

use crate::BadInput;
use crate::paths;
use gatecrew_crew::bots::BotsKind;
pub(crate) use model::Bots;

/// Arguments of `gatecrew reproduce`.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// The paper to reproduce (`004`: partitioned state and gated escalation for Minecraft crews)
    #[arg(value_name = "PAPER")]
    paper: String,
    /// Suite folder [default: configs/suite-v2]
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
    /// Where the runs' traces go (one folder per run)
    #[arg(long, value_name = "DIR", default_value = "runs/reproduce-004")]
    out: PathBuf,
    /// The document written
    #[arg(long, value_name = "FILE", default_value = "docs/paper-004.md")]
    doc: PathBuf,
    /// Worker threads, at most 4 per core [default: all cores]
    #[arg(long, value_name = "N", value_parser = crate::jobs::parse)]
    jobs: Option<usize>,
    /// 95% intervals: `none`, or the number of bootstrap resamples
    #[arg(long, value_name = "none|N", default_value = "2000", value_parser = crate::analyze::parse_ci)]
    ci: Ci,
    /// What drives the bots in every run: `scripted` (the default) or `model` (a language
    /// model at --llm-url / --model; Table 8 then runs as `suite run`s, since calibrate's
    /// decision replay drives scripted bots only)
    #[arg(long, value_name = "KIND", value_parser = crate::bots::parse_kind)]
    bots: Option<BotsKind>,
    /// With --bots model: the OpenAI-compatible endpoint, passed to every run
    #[arg(long, value_name = "URL", requires = "bots")]
    llm_url: Option<String>,
    /// With --bots model: the model name, passed to every run
    #[arg(long, value_name = "NAME", requires = "bots")]
    model: Option<String>,
    /// With --bots model: one call's timeout in ms, passed to every run [default: each
    /// episode's [bots] timeout_ms]
    #[arg(long, value_name = "MS", value_parser = crate::counts::between::<u64>(1, 600_000))]
    llm_timeout_ms: Option<u64>,
    /// Re-run an earlier `reproduce 004 --bots model` from its traces (DIR is its --out:
    /// each run replays DIR/<run>), with no server; same suite and flags. Implies --bots model
    #[arg(long, value_name = "DIR", conflicts_with_all = ["llm_url", "model"])]
    replay_model: Option<PathBuf>,
    /// Only episodes whose id contains this text, in every run (e.g. `s0`, the first seed)
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
}

/// One run of the reproduction: what it is for, and its command line.
pub(crate) struct Step {
    /// Its folder under `--out`.
    pub name: &'static str,
    /// What the tables take from it.
    pub purpose: &'static str,
    /// The splits its episodes come from.
    pub splits: &'static [Split],
    /// The command, without the program name.
    pub args: Vec<String>,
}

/// Every policy, for the custom split's main run.
const ALL_POLICIES: &str =
    "gated,rule_score,rule_only,no_gate,no_partition,flatcomm,central_dag,gated_flatcomm,gated_central_dag";

/// The runs, in order. `perturb_gates`: under model bots, Table 8's runs and the gate
/// each reads; otherwise Table 8 is one `calibrate --perturb`.
fn steps(a: &ReproduceArgs, suite: &Path, bots: &Bots, perturb_gates: &[(&'static str, PathBuf)]) -> Vec<Step> {
    let out = |name: &str| a.out.join(name).display().to_string();
    let mut common: Vec<String> = a.jobs.map(|j| vec!["--jobs".into(), j.to_string()]).unwrap_or_default();
    if let Some(f) = &a.filter {
        common.extend(["--filter".into(), f.clone()]);
    }
    let gate = |name: &str| {
        paths::configs_file(&format!("gates/{name}.toml")).map_or(name.into(), |p| p.display().to_string())
    };
    let suite_run = |name: &'static str, purpose: &'static str, split: Split, policy: &str, extra: &[String]| {
        let splits: &'static [Split] = if split == Split::Standard { &[Split::Standard] } else { &[Split::Test] };
        let split = split.to_string();
        let mut args: Vec<String> = ["suite", "run", "--suite", &suite.display().to_string(), "--split", &split]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(["--policy".into(), policy.into(), "--out".into(), out(name)]);
        args.extend(extra.iter().cloned());
        args.extend(common.iter().cloned());
        args.extend(bots.flags(a, name));
        Step { name, purpose, splits, args }
    };
    let mut v = vec![
        suite_run("custom", "Tables 2, 3, 4, 7, 9, 10: every policy on the test split", Split::Test, ALL_POLICIES, &[]),
        suite_run(
            "standard",
            "Tables 2 and 3, standard setting: the baselines and their gated variants on the standard split",
            Split::Standard,
            "flatcomm,gated_flatcomm,central_dag,gated_central_dag",
            &[],
        ),
        suite_run(
            "llm-executor",
            "Table 7: the gray zone settled by a modelled language model (the llm executor's consults) against none",
            Split::Test,
            "rule_score,gated",
            &["--executor".into(), "llm".into()],
        ),
    ];
    for (name, file) in
        [("boundary-narrow", "boundary-narrow"), ("boundary-wide", "boundary-wide"), ("boundary-all", "boundary-all")]
    {
        v.push(suite_run(name, "Table 9: the gray zone's width", Split::Test, "gated", &["--gate".into(), gate(file)]));
    }
    v.push(suite_run(
        "transfer",
        "Table 10: the gate calibrated on the protocol's crews, applied zero-shot in front of the central manager",
        Split::Test,
        "gated_central_dag",
        &["--gate".into(), gate("construction-calibrated")],
    ));
    if bots.model() {
        for (name, file) in perturb_gates {
            v.push(suite_run(
                name,
                "Table 8: one weight perturbation of the calibrated gate, `gated` on the test split",
                Split::Test,
                "gated",
                &["--gate".into(), file.display().to_string()],
            ));
        }
        return v;
    }
    let mut perturb: Vec<String> =
        ["calibrate", "--perturb", "--suite", &suite.display().to_string(), "--out", &out("perturb")]
            .iter()
            .map(|s| s.to_string())
            .collect();
    perturb.extend(common.iter().cloned());
    v.push(Step {
        name: "perturb",
        purpose: "Table 8: the four weight perturbations of the calibrated gate",
        splits: &[Split::Test, Split::Calibration],
        args: perturb,
    });
    v
}

/// What the tables are built from.
pub(crate) struct Runs {
    /// Per run folder: its report (by policy).
    pub reports: Vec<(&'static str, Report)>,
    /// Paired differences, by name (`custom/flatcomm`: the custom run against flatcomm;
    /// `boundary/gated`: the boundary runs, named by their folders, against the custom
    /// run's gated).
    pub paired: Vec<(&'static str, Paired)>,
    /// The perturbation table.
    pub perturb: Option<gatecrew_calibrate::Perturbation>,
    /// The commands, in order: the run's folder, the command line, what it is for.
    pub commands: Vec<(&'static str, String, &'static str)>,
    /// The suite folder.
    pub suite: PathBuf,
    /// Seconds the runs took.
    pub seconds: f64,
    /// Who drove the bots.
    pub bots: Bots,
}

impl Runs {
    /// The report of a run folder.
    pub fn report(&self, name: &str) -> Option<&Report> {
        self.reports.iter().find(|r| r.0 == name).map(|r| &r.1)
    }

    /// Paired differences by name.
    pub fn paired(&self, name: &str) -> Option<&Paired> {
        self.paired.iter().find(|r| r.0 == name).map(|r| &r.1)
    }
}

/// Episodes of a run folder, their policy renamed (a run of one policy under another
/// gate, compared with the same policy's run under the defaults).
fn renamed(eps: &[EpisodeMetrics], name: &str) -> Vec<EpisodeMetrics> {
    eps.iter()
        .cloned()
        .map(|mut e| {
            e.policy = name.to_owned();
            e
        })
        .collect()
}

/// Episodes by run folder.
type Episodes = Vec<(&'static str, Vec<EpisodeMetrics>)>;

/// Reports by run folder, paired differences by name, and the episodes they came from.
type Analysed = (Vec<(&'static str, Report)>, Vec<(&'static str, Paired)>, Episodes);

fn analyse(a: &ReproduceArgs, steps: &[Step], ran: &[&str], err: &mut dyn Write) -> anyhow::Result<Analysed> {
    let mut eps: Episodes = Vec::new();
    for s in steps.iter().filter(|s| s.name != "perturb" && ran.contains(&s.name)) {
        let read = read_traces(&[a.out.join(s.name)]).map_err(|e| BadInput(e.to_string()))?;
        for w in &read.warnings {
            writeln!(err, "warning: {w}")?;
        }
        eps.push((s.name, read.episodes));
    }
    let of = |name: &str| eps.iter().find(|e| e.0 == name).map(|e| e.1.as_slice()).unwrap_or_default();
    let reports = eps.iter().map(|(n, e)| (*n, Report::build_with(e, By::Policy, a.ci))).collect();
    let pair = |e: &[EpisodeMetrics], base: &str| Paired::build(e, base, By::Class, a.ci).ok();
    let mut boundary = of("custom").to_vec();
    for name in ["boundary-narrow", "boundary-wide", "boundary-all"] {
        boundary.extend(renamed(of(name), name));
    }
    let mut transfer = of("custom").to_vec();
    transfer.extend(renamed(of("transfer"), "gated_central_dag (calibrated)"));
    let wanted: [(&'static str, Option<Paired>); 7] = [
        ("custom/flatcomm", pair(of("custom"), "flatcomm")),
        ("custom/central_dag", pair(of("custom"), "central_dag")),
        ("custom/gated", pair(of("custom"), "gated")),
        ("standard/flatcomm", pair(of("standard"), "flatcomm")),
        ("standard/central_dag", pair(of("standard"), "central_dag")),
        ("llm-executor/rule_score", pair(of("llm-executor"), "rule_score")),
        ("boundary/gated", pair(&boundary, "gated")),
    ];
    let mut paired: Vec<(&'static str, Paired)> = wanted.into_iter().filter_map(|(n, p)| p.map(|p| (n, p))).collect();
    if let Some(p) = pair(&transfer, "central_dag") {
        paired.push(("transfer/central_dag", p));
    }
    let mut reports: Vec<(&'static str, Report)> = reports;
    reports.push(("boundary", Report::build_with(&boundary, By::Policy, a.ci)));
    reports.push(("transfer-all", Report::build_with(&transfer, By::Policy, a.ci)));
    Ok((reports, paired, eps))
}

/// Runs `gatecrew reproduce`.
pub fn run(a: ReproduceArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    if a.paper != "004" {
        return Err(BadInput(format!("reproduce {}: the papers this command reproduces are: 004", a.paper)).into());
    }
    let bots = Bots::from_args(&a)?;
    let suite = a.suite.clone().unwrap_or_else(paths::default_suite_v2);
    let started = Instant::now();
    let calibrated = paths::configs_file("gates/construction-calibrated.toml");
    let perturb_gates = match (&calibrated, bots.model()) {
        (Some(f), true) => model::gate_files(f, &a.out.join("perturb").join("gates"))?,
        (None, true) => return Err(BadInput("no configs/gates/construction-calibrated.toml to perturb".into()).into()),
        (_, false) => Vec::new(),
    };
    let steps = steps(&a, &suite, &bots, &perturb_gates);
    let manifest = gatecrew_suite::Manifest::load(&suite).map_err(|e| BadInput(e.to_string()))?;
    let episodes_of = |s: &Step| {
        manifest
            .episode
            .iter()
            .filter(|e| s.splits.contains(&e.split) && a.filter.as_deref().is_none_or(|f| e.id.contains(f)))
            .count()
    };
    let mut commands = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let mut line = format!("gatecrew {}", s.args.join(" "));
        if episodes_of(s) == 0 {
            // A filter meant for one split (`s0`) leaves the standard split empty: that
            // table goes without, the others are still worth having.
            let splits: Vec<String> = s.splits.iter().map(|s| s.to_string()).collect();
            line = format!(
                "# skipped, no episode of split {} matches --filter {}: {line}",
                splits.join(" or "),
                a.filter.as_deref().unwrap_or("")
            );
            writeln!(out, "[{}/{}] {line}", i + 1, steps.len())?;
            commands.push((s.name, line, s.purpose));
            continue;
        }
        writeln!(out, "[{}/{}] {line}", i + 1, steps.len())?;
        out.flush()?;
        let mut argv = vec!["gatecrew".to_owned()];
        argv.extend(s.args.iter().cloned());
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let code = crate::main_with(argv, &mut o, &mut e);
        if code != std::process::ExitCode::SUCCESS {
            return Err(anyhow::anyhow!(
                "{line} failed:\n{}{}",
                String::from_utf8_lossy(&o),
                String::from_utf8_lossy(&e)
            ));
        }
        err.write_all(&e)?;
        commands.push((s.name, line, s.purpose));
    }
    let seconds = started.elapsed().as_secs_f64();
    writeln!(out, "analysing the runs ...")?;
    let ran: Vec<&str> = commands.iter().filter(|c| !c.1.starts_with('#')).map(|c| c.0).collect();
    let (reports, paired, eps) = analyse(&a, &steps, &ran, err)?;
    let perturb = match (&calibrated, bots.model()) {
        (Some(f), true) => {
            let base = crate::run::gate_only(f)?
                .ok_or_else(|| BadInput(format!("{}: not a file of a `[gate]` table only", f.display())))?;
            let of = |name: &str| eps.iter().find(|e| e.0 == name).map(|e| e.1.clone()).unwrap_or_default();
            Some(model::perturbation(base, &suite, &of))
        }
        _ if !ran.contains(&"perturb") => None,
        _ => {
            let perturb_path = a.out.join("perturb").join("perturbation.json");
            std::fs::read_to_string(&perturb_path)
                .ok()
                .map(|t| serde_json::from_str(&t))
                .transpose()
                .with_context(|| format!("reading {}", perturb_path.display()))?
        }
    };
    let runs = Runs { reports, paired, perturb, commands, suite, seconds, bots };
    let doc = tables::document(&runs);
    if let Some(d) = a.doc.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    gatecrew_protocol::replace::replace(&a.doc, doc.as_bytes())
        .with_context(|| format!("writing {}", a.doc.display()))?;
    for line in tables::verdicts(&runs) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "wrote {} ({} runs in {seconds:.0} s; traces in {})", a.doc.display(), steps.len(), a.out.display())?;
    Ok(())
}
