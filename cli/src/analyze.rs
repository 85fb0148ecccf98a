//! `gatecrew analyze`: metrics from traces, per policy and class, side by side; for
//! kitchen traces (`gatecrew cos --trace`), CoS per level, policy and crew size.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use gatecrew_analyze::{By, Ci, KitchenReport, Paired, Report, read_traces};

use crate::BadInput;

/// How to group episodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ByArg {
    /// Suite class (A-D, standard), policies side by side.
    Class,
    /// Policy only.
    Policy,
    /// Crew size, policies side by side.
    Agents,
}

/// Arguments of `gatecrew analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Trace files or folders (searched for *.jsonl)
    #[arg(required = true, value_name = "DIR")]
    paths: Vec<PathBuf>,
    /// Grouping besides the policy
    #[arg(long, value_enum, default_value = "class")]
    by: ByArg,
    /// Print one JSON object instead of tables
    #[arg(long)]
    json: bool,
    /// Draw the main metrics to FILE.svg or FILE.png
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// 95% intervals: `none` (estimates only), or the number of bootstrap resamples
    #[arg(long, value_name = "none|N", default_value = "2000", value_parser = parse_ci)]
    ci: Ci,
    /// Also report every other policy's paired difference from BASELINE on the episodes
    /// both ran (per metric and group, with a paired bootstrap interval)
    #[arg(long, value_name = "BASELINE")]
    paired: Option<String>,
}

pub(crate) fn parse_ci(s: &str) -> Result<Ci, String> {
    if s == "none" {
        return Ok(Ci::None);
    }
    match s.parse::<std::num::NonZeroUsize>() {
        Ok(n) => Ok(Ci::Bootstrap(n)),
        Err(_) => Err(format!("expected `none` or a number of resamples above 0, got `{s}`")),
    }
}

/// Runs `gatecrew analyze`.
pub fn run(a: AnalyzeArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let read = read_traces(&a.paths).map_err(|e| BadInput(e.to_string()))?;
    for w in &read.warnings {
        writeln!(err, "warning: {}", gatecrew_protocol::text::escape(w))?;
    }
    let by = match a.by {
        ByArg::Class => By::Class,
        ByArg::Policy => By::Policy,
        ByArg::Agents => By::Agents,
    };
    // Construction traces are reported as always; kitchen traces (`gatecrew cos
    // --trace`) add a section of their own, only when there are some.
    let construction = !read.episodes.is_empty();
    let kitchen = (!read.kitchen.is_empty()).then(|| KitchenReport::build(&read.kitchen));
    if a.plot.is_some() && !construction {
        return Err(
            BadInput("--plot draws construction metrics; these traces hold kitchen episodes only".into()).into()
        );
    }
    if a.paired.is_some() && !construction {
        return Err(BadInput(
            "--paired compares construction episodes; these traces hold kitchen episodes only".into(),
        )
        .into());
    }
    let report = construction.then(|| Report::build_with(&read.episodes, by, a.ci));
    let paired = match &a.paired {
        Some(b) => Some(Paired::build(&read.episodes, b, by, a.ci).map_err(|e| BadInput(e.to_string()))?),
        None => None,
    };
    let secs = started.elapsed().as_secs_f64();
    if let (Some(p), Some(report)) = (&a.plot, &report) {
        gatecrew_analyze::plot::plot(report, p).map_err(|e| BadInput(e.to_string()))?;
    }
    if a.json {
        let mut v = serde_json::json!({
            "files": read.files,
            "episodes": read.episodes.len(),
            "bytes": read.bytes,
            "warnings": read.warnings,
        });
        if let Some(report) = &report {
            v["report"] = serde_json::to_value(report)?;
        }
        if let Some(p) = &paired {
            v["paired"] = serde_json::to_value(p)?;
        }
        if let Some(k) = &kitchen {
            v["kitchen"] = serde_json::json!({
                "files": read.kitchen_files,
                "bytes": read.kitchen_bytes,
                "report": k,
            });
        }
        serde_json::to_writer(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(());
    }
    if let Some(report) = &report {
        writeln!(
            out,
            "{} episodes from {} traces ({:.1} MB, {} lines) in {:.2} s; 95% bootstrap intervals in brackets",
            read.episodes.len(),
            read.files,
            read.bytes as f64 / 1e6,
            read.lines,
            secs
        )?;
        write!(out, "{}", report.tables())?;
        if let Some(p) = &paired {
            writeln!(
                out,
                "paired differences from {} on the episodes both ran (policy less {0}; * the interval excludes 0):",
                p.baseline
            )?;
            write!(out, "{}", p.tables())?;
        }
        if let Some(p) = &a.plot {
            writeln!(out, "plot: {}", p.display())?;
        }
    }
    if let Some(k) = &kitchen {
        if report.is_some() {
            writeln!(out)?;
        }
        writeln!(
            out,
            "{} kitchen episodes from {} traces ({:.1} MB, {} lines) in {:.2} s",
            k.episodes,
            read.kitchen_files,
            read.kitchen_bytes as f64 / 1e6,
            read.kitchen_lines,
            secs
        )?;
        write!(out, "{}", k.tables())?;
    }
    Ok(())
}
