//! `gatecrew calibrate`: grid search over the gate's weights and thresholds.

use std::io::Write;
use std::path::PathBuf;

use gatecrew_calibrate::report::{load_summary, markdown, write_all};
use gatecrew_calibrate::run::Options;
use gatecrew_calibrate::{Grid, calibrate};
use gatecrew_protocol::replace::replace;

use crate::BadInput;
use crate::paths;

/// Arguments of `gatecrew calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Suite folder (with suite.toml) [default: configs/suite-v2; suite v1 is configs/suite]
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
    /// Transfer to the kitchen: calibrate the gated kitchen crew on CuisineWorld's calibration levels and score the defaults, the construction gate (zero-shot) and that choice on the test levels
    #[arg(long, conflicts_with_all = ["suite", "naive", "filter", "report"])]
    kitchen: bool,
    /// With --kitchen: the construction gate to apply zero-shot [default: configs/gates/construction-calibrated.toml]
    #[arg(long, value_name = "FILE.toml", requires = "kitchen")]
    construction_gate: Option<PathBuf>,
    /// Run the paper's four weight perturbations (equal weights, low wC, wR = 0, high wH) of a gate through the suite instead of the grid: TSR, CS, Msg, LRR and UER on the test and calibration splits
    #[arg(long, conflicts_with_all = ["report", "kitchen"])]
    perturb: bool,
    /// With --perturb: the gate perturbed [default: configs/gates/construction-calibrated.toml]
    #[arg(long, value_name = "FILE.toml", requires = "perturb")]
    gate: Option<PathBuf>,
    /// With --kitchen: crew sizes
    #[arg(long, value_delimiter = ',', default_value = "2,3,4", requires = "kitchen")]
    agents: Vec<usize>,
    #[command(flatten)]
    exec: crate::executor::ExecutorArgs,
    /// Print one JSON object instead of the tables (docs/calibration.md, "JSON"): what
    /// the run wrote (summary.json without its points, perturbation.json or
    /// kitchen-transfer.json) and where; the lines before the tables go to stderr
    #[arg(long)]
    json: bool,
}

/// `--json`'s object: which mode ran, the output folder, the files written there and
/// what they hold.
fn json_report(mode: &str, dir: &std::path::Path, files: &[&str], key: &str, value: serde_json::Value) -> String {
    let mut v = serde_json::json!({ "mode": mode, "out": dir.display().to_string(), "files": files });
    v[key] = value;
    v.to_string()
}

/// The calibration as `--json` prints it: summary.json without the points (points.json
/// has them), and their count.
fn summary_json(c: &gatecrew_calibrate::run::Calibration) -> anyhow::Result<serde_json::Value> {
    let mut v = serde_json::to_value(c)?;
    if let Some(m) = v.as_object_mut() {
        m.remove("points");
        m.insert("point_count".into(), c.points.len().into());
    }
    Ok(v)
}

/// Where a line said before the tables goes: stdout, or stderr when stdout is JSON.
fn said<'a>(json: bool, out: &'a mut dyn Write, err: &'a mut dyn Write) -> &'a mut dyn Write {
    if json { err } else { out }
}

const GRID_FILES: [&str; 6] =
    ["summary.json", "best-gate.toml", "points.csv", "points.json", "report.md", "pareto.svg"];

/// Runs `gatecrew calibrate`.
pub fn run(a: CalibrateArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    if let Some(dir) = a.report {
        let c = load_summary(&dir).map_err(BadInput)?;
        write_all(&c, &dir)?;
        if a.json {
            return Ok(writeln!(out, "{}", json_report("report", &dir, &GRID_FILES, "summary", summary_json(&c)?))?);
        }
        write!(out, "{}", markdown(&c))?;
        writeln!(out, "re-rendered {}", dir.display())?;
        return Ok(());
    }
    let grid_path = match a.grid.clone() {
        Some(g) => g,
        None => paths::configs_file("calibrate/grid.toml")
            .ok_or_else(|| BadInput("no configs/calibrate/grid.toml; pass --grid FILE".into()))?,
    };
    let grid = Grid::load(&grid_path).map_err(|e| BadInput(e.to_string()))?;
    // With --json the lines before the tables are progress: on stderr.
    let json = a.json;
    if a.kitchen {
        return kitchen(&a, &grid, err, out);
    }
    let data = paths::default_data().ok_or_else(|| BadInput("no configs/data/minecraft-1.20.4.json found".into()))?;
    let perturb = a.perturb;
    let gate = a.gate.clone();
    let opts = Options {
        suite: a.suite.unwrap_or_else(paths::default_suite_v2),
        data,
        out: a.out.clone(),
        jobs: a.jobs,
        fast: !a.naive,
        filter: a.filter.clone(),
        executor: a.exec.resolve()?,
    };
    if perturb {
        return perturbations(gate, &grid, &opts, json, err, out);
    }
    writeln!(
        said(json, out, err),
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
    if json {
        return Ok(writeln!(out, "{}", json_report("grid", &a.out, &GRID_FILES, "summary", summary_json(&c)?))?);
    }
    write!(out, "{}", markdown(&c))?;
    writeln!(
        out,
        "outputs in {}: best-gate.toml (gatecrew run --config it), points.csv, points.json, report.md, pareto.svg",
        a.out.display()
    )?;
    Ok(())
}

/// `gatecrew calibrate --perturb`: the perturbation table of a gate.
fn perturbations(
    gate: Option<PathBuf>,
    grid: &Grid,
    opts: &Options,
    json: bool,
    err: &mut dyn Write,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let gate_path = match gate {
        Some(p) => p,
        None => paths::configs_file("gates/construction-calibrated.toml")
            .ok_or_else(|| BadInput("no configs/gates/construction-calibrated.toml; pass --gate FILE".into()))?,
    };
    let spec = crate::run::gate_only(&gate_path)?
        .ok_or_else(|| BadInput(format!("{}: not a file of a `[gate]` table only", gate_path.display())))?;
    writeln!(
        said(json, out, err),
        "perturbing {} on {}: the chosen point and four experiment gates (the weight hierarchy not enforced) ...",
        gate_path.display(),
        opts.suite.display()
    )?;
    let p = gatecrew_calibrate::perturb(spec, &grid.objective, opts).map_err(|e| match e {
        gatecrew_calibrate::CalibrateError::Suite(s) => anyhow::Error::new(BadInput(s.to_string())),
        other => anyhow::Error::new(other),
    })?;
    let md = gatecrew_calibrate::perturb::markdown(&p);
    std::fs::create_dir_all(&opts.out)?;
    replace(&opts.out.join("perturbation.md"), md.as_bytes())?;
    replace(&opts.out.join("perturbation.json"), serde_json::to_string_pretty(&p)?.as_bytes())?;
    if json {
        let files = ["perturbation.md", "perturbation.json"];
        return Ok(writeln!(
            out,
            "{}",
            json_report("perturb", &opts.out, &files, "perturbation", serde_json::to_value(&p)?)
        )?);
    }
    write!(out, "{md}")?;
    writeln!(out, "outputs in {}: perturbation.md, perturbation.json", opts.out.display())?;
    Ok(())
}

/// `gatecrew calibrate --kitchen`: the transfer table.
fn kitchen(a: &CalibrateArgs, grid: &Grid, err: &mut dyn Write, out: &mut dyn Write) -> anyhow::Result<()> {
    use gatecrew_calibrate::kitchen::{markdown, transfer};
    if a.agents.iter().any(|&n| n == 0 || n > 64) {
        return Err(BadInput(format!("--agents {:?}: each crew size must be in 1..=64", a.agents)).into());
    }
    let gate_path = match &a.construction_gate {
        Some(p) => p.clone(),
        None => paths::configs_file("gates/construction-calibrated.toml").ok_or_else(|| {
            BadInput("no configs/gates/construction-calibrated.toml; pass --construction-gate FILE".into())
        })?,
    };
    let spec = crate::run::gate_only(&gate_path)?
        .ok_or_else(|| BadInput(format!("{}: not a file of a `[gate]` table only", gate_path.display())))?;
    // Checked by `gate_only`.
    let construction = gatecrew_gating::GateParams::new(spec).map_err(|e| BadInput(e.to_string()))?;
    let cuisine = gatecrew_kitchen::Cuisine::load_default().map_err(|e| BadInput(e.to_string()))?;
    // The paper's timing (MindAgent's experiment script), one seed.
    let spec = gatecrew_kitchen::RunSpec {
        timing: gatecrew_kitchen::TimingMode::Oracle,
        ..gatecrew_kitchen::RunSpec::new(2, 0)
    };
    writeln!(
        said(a.json, out, err),
        "calibrating the kitchen gate on {} grid points, then the transfer table ...",
        grid.points.len()
    )?;
    let bar = crate::progress::bar(grid.points.len() as u64, "points");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(a.jobs.unwrap_or(0)).build()?;
    let t = pool
        .install(|| transfer(&cuisine, grid, construction, &a.agents, &spec, &|done| bar.set_position(done as u64)))
        .map_err(|e| BadInput(e.to_string()))?;
    bar.finish_and_clear();
    let md = markdown(&t);
    std::fs::create_dir_all(&a.out)?;
    replace(&a.out.join("kitchen-transfer.md"), md.as_bytes())?;
    replace(&a.out.join("kitchen-transfer.json"), serde_json::to_string_pretty(&t)?.as_bytes())?;
    if a.json {
        let files = ["kitchen-transfer.md", "kitchen-transfer.json"];
        return Ok(writeln!(out, "{}", json_report("kitchen", &a.out, &files, "transfer", serde_json::to_value(&t)?))?);
    }
    write!(out, "{md}")?;
    writeln!(out, "outputs in {}: kitchen-transfer.md, kitchen-transfer.json", a.out.display())?;
    Ok(())
}
