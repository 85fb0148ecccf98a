//! `gatecrew calibrate`: grid search over the gate's weights and thresholds.

use std::io::Write;
use std::path::PathBuf;

use gatecrew_calibrate::report::{load_summary, markdown, write_all};
use gatecrew_calibrate::run::Options;
use gatecrew_calibrate::{Grid, calibrate};

use crate::BadInput;
use crate::paths;

/// Arguments of `gatecrew calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Suite folder (with suite.toml) [default: configs/suite]
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
    /// Grid of weights and thresholds [default: configs/calibrate/grid.toml]
    #[arg(long, value_name = "FILE.toml")]
    grid: Option<PathBuf>,
    /// Output folder; results stream into OUT/points.jsonl and a rerun resumes there
    #[arg(long, value_name = "DIR", default_value = "runs/calibrate")]
    out: PathBuf,
    /// Worker threads, at most 4 per core [default: all cores]
    #[arg(long, value_name = "N", value_parser = crate::jobs::parse)]
    jobs: Option<usize>,
    /// Simulate every episode of every point (no decision replay): slow, for checking
    #[arg(long)]
    naive: bool,
    /// Only episodes whose id contains this text (e.g. `s0` for the first seed)
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Only re-render the tables and plots of an earlier run in DIR
    #[arg(long, value_name = "DIR", conflicts_with_all = ["suite", "grid", "naive"])]
    report: Option<PathBuf>,
    #[command(flatten)]
    exec: crate::executor::ExecutorArgs,
}

/// Runs `gatecrew calibrate`.
pub fn run(a: CalibrateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if let Some(dir) = a.report {
        let c = load_summary(&dir).map_err(BadInput)?;
        write_all(&c, &dir)?;
        write!(out, "{}", markdown(&c))?;
        writeln!(out, "re-rendered {}", dir.display())?;
        return Ok(());
    }
    let grid_path = match a.grid {
        Some(g) => g,
        None => paths::configs_file("calibrate/grid.toml")
            .ok_or_else(|| BadInput("no configs/calibrate/grid.toml; pass --grid FILE".into()))?,
    };
    let grid = Grid::load(&grid_path).map_err(|e| BadInput(e.to_string()))?;
    let data = paths::default_data().ok_or_else(|| BadInput("no configs/data/minecraft-1.20.4.json found".into()))?;
    let opts = Options {
        suite: a.suite.unwrap_or_else(paths::default_suite),
        data,
        out: a.out.clone(),
        jobs: a.jobs,
        fast: !a.naive,
        filter: a.filter.clone(),
        executor: a.exec.resolve()?,
    };
    writeln!(
        out,
        "calibrating {} grid points ({} combinations skipped) on {} ...",
        grid.points.len(),
        grid.skipped,
        opts.suite.display()
    )?;
    let bar = crate::progress::bar(grid.points.len() as u64, "points");
    let progress = |p: gatecrew_calibrate::run::Progress| {
        bar.set_position(p.done as u64);
        bar.set_message(format!("best J {:.4}", p.best_j));
    };
    let c = calibrate(&grid, &opts, &progress).map_err(|e| match e {
        gatecrew_calibrate::CalibrateError::Suite(s) => anyhow::Error::new(BadInput(s.to_string())),
        other => anyhow::Error::new(other),
    })?;
    bar.finish_and_clear();
    write_all(&c, &a.out)?;
    write!(out, "{}", markdown(&c))?;
    writeln!(
        out,
        "outputs in {}: best-gate.toml (gatecrew run --config it), points.csv, points.json, report.md, pareto.svg",
        a.out.display()
    )?;
    Ok(())
}
