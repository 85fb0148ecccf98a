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

mod paper;
mod tables;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use gatecrew_analyze::{By, Ci, Paired, Report, read_traces};
use gatecrew_protocol::metrics::EpisodeMetrics;

use crate::BadInput;
use crate::paths;

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
    /// What drives the bots, passed to every `suite run` (`scripted`, the default, or
    /// `model`, where the build has model-driven bots)
    #[arg(long, value_name = "KIND")]
    bots: Option<String>,
    /// With --bots model: the OpenAI-compatible server, passed to every `suite run`
    #[arg(long, value_name = "URL", requires = "bots")]
    llm_url: Option<String>,
    /// With --bots model: the model name, passed to every `suite run`
    #[arg(long, value_name = "NAME", requires = "bots")]
    model: Option<String>,
}

/// One run of the reproduction: what it is for, and its command line.
pub(crate) struct Step {
    /// Its folder under `--out` (empty for the perturbation table's calibrate run).
    pub name: &'static str,
    /// What the tables take from it.
    pub purpose: &'static str,
    /// The command, without the program name.
    pub args: Vec<String>,
}

/// Every policy, for the custom split's main run.
const ALL_POLICIES: &str =
    "gated,rule_score,rule_only,no_gate,no_partition,flatcomm,central_dag,gated_flatcomm,gated_central_dag";

fn steps(a: &ReproduceArgs, suite: &Path) -> Vec<Step> {
    let out = |name: &str| a.out.join(name).display().to_string();
    let jobs: Vec<String> = a.jobs.map(|j| vec!["--jobs".into(), j.to_string()]).unwrap_or_default();
    let mut bots = Vec::new();
    if let Some(b) = &a.bots {
        bots.extend(["--bots".to_owned(), b.clone()]);
    }
    if let Some(u) = &a.llm_url {
        bots.extend(["--llm-url".to_owned(), u.clone()]);
    }
    if let Some(m) = &a.model {
        bots.extend(["--model".to_owned(), m.clone()]);
    }
    let gate = |name: &str| {
        paths::configs_file(&format!("gates/{name}.toml")).map_or(name.into(), |p| p.display().to_string())
    };
    let suite_run = |name: &'static str, purpose: &'static str, split: &str, policy: &str, extra: &[String]| {
        let mut args: Vec<String> = ["suite", "run", "--suite", &suite.display().to_string(), "--split", split]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(["--policy".into(), policy.into(), "--out".into(), out(name)]);
        args.extend(extra.iter().cloned());
        args.extend(jobs.iter().cloned());
        args.extend(bots.iter().cloned());
        Step { name, purpose, args }
    };
    let mut v = vec![
        suite_run("custom", "Tables 2, 3, 4, 7, 9, 10: every policy on the test split", "test", ALL_POLICIES, &[]),
        suite_run(
            "standard",
            "Tables 2 and 3, standard setting: the baselines and their gated variants on the standard split",
            "standard",
            "flatcomm,gated_flatcomm,central_dag,gated_central_dag",
            &[],
        ),
        suite_run(
            "llm-executor",
            "Table 7: the gray zone settled by a modelled language model (the llm executor's consults) against none",
            "test",
            "rule_score,gated",
            &["--executor".into(), "llm".into()],
        ),
    ];
    for (name, file) in
        [("boundary-narrow", "boundary-narrow"), ("boundary-wide", "boundary-wide"), ("boundary-all", "boundary-all")]
    {
        v.push(suite_run(name, "Table 9: the gray zone's width", "test", "gated", &["--gate".into(), gate(file)]));
    }
    v.push(suite_run(
        "transfer",
        "Table 10: the gate calibrated on the protocol's crews, applied zero-shot in front of the central manager",
        "test",
        "gated_central_dag",
        &["--gate".into(), gate("construction-calibrated")],
    ));
    let mut perturb: Vec<String> =
        ["calibrate", "--perturb", "--suite", &suite.display().to_string(), "--out", &out("perturb")]
            .iter()
            .map(|s| s.to_string())
            .collect();
    perturb.extend(jobs.iter().cloned());
    v.push(Step {
        name: "perturb",
        purpose: "Table 8: the four weight perturbations of the calibrated gate",
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

/// Reports by run folder and paired differences by name.
type Analysed = (Vec<(&'static str, Report)>, Vec<(&'static str, Paired)>);

fn analyse(a: &ReproduceArgs, steps: &[Step], err: &mut dyn Write) -> anyhow::Result<Analysed> {
    let mut eps: Vec<(&'static str, Vec<EpisodeMetrics>)> = Vec::new();
    for s in steps.iter().filter(|s| s.name != "perturb") {
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
    Ok((reports, paired))
}

/// Runs `gatecrew reproduce`.
pub fn run(a: ReproduceArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    if a.paper != "004" {
        return Err(BadInput(format!("reproduce {}: the papers this command reproduces are: 004", a.paper)).into());
    }
    let suite = a.suite.clone().unwrap_or_else(paths::default_suite_v2);
    let started = Instant::now();
    let steps = steps(&a, &suite);
    let mut commands = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let line = format!("gatecrew {}", s.args.join(" "));
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
    let (reports, paired) = analyse(&a, &steps, err)?;
    let perturb_path = a.out.join("perturb").join("perturbation.json");
    let perturb = std::fs::read_to_string(&perturb_path)
        .ok()
        .map(|t| serde_json::from_str(&t))
        .transpose()
        .with_context(|| format!("reading {}", perturb_path.display()))?;
    let runs = Runs { reports, paired, perturb, commands, suite, seconds };
    let doc = tables::document(&runs);
    if let Some(d) = a.doc.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    std::fs::write(&a.doc, &doc).with_context(|| format!("writing {}", a.doc.display()))?;
    for line in tables::verdicts(&runs) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "wrote {} ({} runs in {seconds:.0} s; traces in {})", a.doc.display(), steps.len(), a.out.display())?;
    Ok(())
}
