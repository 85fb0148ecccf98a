//! The calibration run: resumable grid evaluation, then the held-out, perturbation,
//! boundary and transfer studies.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};

use gatecrew_protocol::trace::Split;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gatecrew_crew::{Overrides, Setup};
use gatecrew_gating::{GateParams, GateSpec, Weights};
use gatecrew_suite::Manifest;
use gatecrew_world::GameData;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::eval::{Case, Evaluator, PointMetrics};
use crate::grid::Grid;
use crate::objective::Score;

/// A calibration that could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CalibrateError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file (or directory) being read or written.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// The suite or an episode did not load (the user's input, not the machine's).
    #[error("{0}")]
    Suite(#[source] SuiteError),
    /// The results file belongs to another grid.
    #[error(
        "{path}:{line}: point {index} was computed with other parameters than this grid's; use another --out or the same grid"
    )]
    Mismatch {
        /// The results file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The grid point's index, as the results file has it.
        index: usize,
    },
    /// The output folder holds results computed with other inputs (suite, filter,
    /// grid, executor, policies or version: [`crate::resume`]).
    #[error("{path}: the results there were computed otherwise ({}); use another --out or the same inputs", differences.join("; "))]
    OtherRun {
        /// The folder's record of its inputs.
        path: PathBuf,
        /// Each input that differs, with both values.
        differences: Vec<String>,
    },
}

/// Why the suite gave nothing to calibrate on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// The suite's manifest did not load.
    #[error("{0}")]
    Manifest(#[source] gatecrew_suite::ManifestError),
    /// The game data did not load.
    #[error("{0}")]
    Data(#[source] gatecrew_world::error::DataError),
    /// An episode's config did not load.
    #[error("{0}")]
    Episode(#[source] gatecrew_crew::SetupError),
    /// The filter left no episode, so no grid point got a score.
    #[error("no grid point was evaluated")]
    NoPoints,
    /// The suite, after `--filter`, holds no calibration or test episode: every grid
    /// point would be scored on nothing and written out regardless.
    #[error("{}: no calibration or test episode{}; nothing to calibrate on", suite.display(), filter.as_ref().map(|f| format!(" matches --filter {f:?}")).unwrap_or_default())]
    NoEpisodes {
        /// The suite's folder.
        suite: PathBuf,
        /// The filter, when one was given.
        filter: Option<String>,
    },
}

pub(crate) fn io_err(path: &Path, source: std::io::Error) -> CalibrateError {
    CalibrateError::Io { path: path.to_path_buf(), source }
}

/// A named variant of the gate and its score.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Variant {
    /// What was changed.
    pub name: String,
    /// Its parameters and what they scored.
    pub point: PointMetrics,
    /// Whether the parameters would be refused in a config (perturbations break the
    /// hierarchy or the thresholds on purpose).
    pub unchecked: bool,
}

/// Calibrating on one group of template families and applying the result to another.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Transfer {
    /// Families calibrated on.
    pub from: Vec<String>,
    /// Families applied to.
    pub to: Vec<String>,
    /// Defaults on the target's test episodes.
    pub default: Score,
    /// The source group's best point, zero-shot on the target's test episodes.
    pub zero_shot: PointMetrics,
    /// The target group's own best point on its test episodes.
    pub local: PointMetrics,
    /// (zero-shot - default) / (local - default), when the local point gains at all.
    pub recovered: Option<f64>,
}

/// Everything a calibration produced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Calibration {
    /// Every valid grid point on the calibration split, by index.
    pub points: Vec<PointMetrics>,
    /// Grid combinations skipped for breaking the hierarchy or the threshold order.
    pub skipped: usize,
    /// The best point on the calibration split.
    pub best: PointMetrics,
    /// The defaults on the calibration split.
    pub default: PointMetrics,
    /// The best point on the held-out test split.
    pub best_test: Score,
    /// The defaults on the held-out test split.
    pub default_test: Score,
    /// Perturbations of the best point (calibration split).
    pub perturbation: Vec<Variant>,
    /// Gray-zone boundaries around the best point (calibration split).
    pub boundary: Vec<Variant>,
    /// Transfers between the two groups of families.
    pub transfer: Vec<Transfer>,
    /// Points evaluated in this run (the others were resumed from the results file).
    pub evaluated_now: usize,
    /// Seconds spent evaluating grid points in this run.
    pub grid_seconds: f64,
    /// Episodes simulated and replayed from the cache over the whole run.
    pub simulated: u64,
    /// Episodes answered by decision replay.
    pub replayed: u64,
    /// Episodes in the calibration split.
    pub calibration_episodes: usize,
    /// Episodes in the test split.
    pub test_episodes: usize,
}

/// What the caller sees while points are evaluated.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Points done (resumed included).
    pub done: usize,
    /// Points in the grid.
    pub total: usize,
    /// Best J so far.
    pub best_j: f64,
}

/// Run options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Suite folder.
    pub suite: PathBuf,
    /// Game data file.
    pub data: PathBuf,
    /// Output folder (results stream into `points.jsonl` there).
    pub out: PathBuf,
    /// Worker threads (`None`: all cores).
    pub jobs: Option<usize>,
    /// Use the decision-replay cache (the default; `false` simulates every point).
    pub fast: bool,
    /// Only episodes whose id contains this text.
    pub filter: Option<String>,
    /// The executor every episode runs under (`None`: each config's own).
    pub executor: Option<gatecrew_crew::Executor>,
}

/// The first group of template families for the transfer study; the rest is the second.
pub const GROUP_ONE: [&str; 5] = ["walls", "house", "tower", "bridge", "pyramid"];

pub(crate) fn load_cases(opts: &Options) -> Result<Vec<Case>, CalibrateError> {
    let m = Manifest::load(&opts.suite).map_err(|e| CalibrateError::Suite(SuiteError::Manifest(e)))?;
    let data = Arc::new(GameData::load(&opts.data).map_err(|e| CalibrateError::Suite(SuiteError::Data(e)))?);
    let cases = m
        .episode
        .iter()
        .filter(|e| matches!(e.split, Split::Calibration | Split::Test))
        .filter(|e| opts.filter.as_deref().is_none_or(|f| e.id.contains(f)))
        .map(|e| {
            let ov = Overrides { executor: opts.executor.clone(), ..Overrides::default() };
            let setup = Setup::load_with_data(&opts.suite.join(&e.file), &ov, data.clone())
                .map_err(|err| CalibrateError::Suite(SuiteError::Episode(err)))?;
            Ok(Case { id: e.id.clone(), template: e.template.clone(), family: e.family.clone(), split: e.split, setup })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if cases.is_empty() {
        return Err(CalibrateError::Suite(SuiteError::NoEpisodes {
            suite: opts.suite.clone(),
            filter: opts.filter.clone(),
        }));
    }
    Ok(cases)
}

/// Reads earlier results, checking they belong to this grid.
fn resume(path: &Path, grid: &Grid) -> Result<BTreeMap<usize, PointMetrics>, CalibrateError> {
    let mut done = BTreeMap::new();
    let Ok(file) = File::open(path) else { return Ok(done) };
    let by_index: BTreeMap<usize, GateParams> = grid.points.iter().map(|p| (p.index, p.params)).collect();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| io_err(path, e))?;
        // A line cut short by an interruption is simply evaluated again.
        let Ok(p) = serde_json::from_str::<PointMetrics>(&line) else { continue };
        match by_index.get(&p.index) {
            Some(params)
                if PointMetrics::new(p.index, params, p.score).weights == p.weights
                    && params.spec().theta_low == p.theta_low
                    && params.spec().theta_high == p.theta_high =>
            {
                done.insert(p.index, p);
            }
            _ => return Err(CalibrateError::Mismatch { path: path.into(), line: n + 1, index: p.index }),
        }
    }
    Ok(done)
}

fn best_of<'a>(points: impl IntoIterator<Item = &'a PointMetrics>) -> Option<PointMetrics> {
    points.into_iter().fold(None, |b: Option<PointMetrics>, p| match b {
        Some(b) if b.score.j >= p.score.j => Some(b),
        _ => Some(*p),
    })
}

/// Runs a calibration. `progress` is called after each point.
pub fn calibrate(
    grid: &Grid,
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Calibration, CalibrateError> {
    std::fs::create_dir_all(&opts.out).map_err(|e| io_err(&opts.out, e))?;
    let results_path = opts.out.join("points.jsonl");
    // Two runs on one folder would append to one results file: the second is refused.
    let _lock = gatecrew_protocol::replace::Lock::take(&results_path)
        .map_err(|e| io_err(&results_path, std::io::Error::from(e)))?;
    let cases = load_cases(opts)?;
    crate::resume::check(opts, &crate::resume::RunKey::new(opts, grid, &cases))?;
    let eval = Evaluator::new(cases);
    let cal = eval.select(|c| c.split == Split::Calibration);
    let test = eval.select(|c| c.split == Split::Test);
    let objective = grid.objective;
    let done = resume(&results_path, grid)?;
    let file =
        OpenOptions::new().create(true).append(true).open(&results_path).map_err(|e| io_err(&results_path, e))?;
    let writer = Mutex::new(file);
    let total = grid.points.len();
    let state = Mutex::new((done.len(), best_of(done.values()).map_or(f64::NEG_INFINITY, |b| b.score.j)));
    let todo: Vec<_> = grid.points.iter().filter(|p| !done.contains_key(&p.index)).copied().collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        .build()
        .map_err(|e| io_err(&opts.out, std::io::Error::other(e)))?;
    let started = Instant::now();
    let fresh: Vec<Result<PointMetrics, CalibrateError>> = pool.install(|| {
        todo.par_iter()
            .map(|p| {
                let score = eval.score(p.params, &cal, &objective, opts.fast);
                let m = PointMetrics::new(p.index, &p.params, score);
                let line = serde_json::to_string(&m).map_err(|e| io_err(&results_path, e.into()))?;
                {
                    // A poisoned lock's guard cannot leave the thread: its message is the error.
                    let mut w =
                        writer.lock().map_err(|e| io_err(&results_path, std::io::Error::other(e.to_string())))?;
                    // One write per line, flushed at once: an interruption loses at most
                    // the points still running, never a recorded one.
                    w.write_all(format!("{line}\n").as_bytes())
                        .and_then(|()| w.flush())
                        .map_err(|e| io_err(&results_path, e))?;
                }
                if let Ok(mut s) = state.lock() {
                    s.0 += 1;
                    s.1 = s.1.max(m.score.j);
                    progress(Progress { done: s.0, total, best_j: s.1 });
                }
                Ok(m)
            })
            .collect()
    });
    let grid_seconds = started.elapsed().as_secs_f64();
    let mut all = done;
    for r in fresh {
        let m = r?;
        all.insert(m.index, m);
    }
    let points: Vec<PointMetrics> = all.into_values().collect();
    let best = best_of(&points).ok_or(CalibrateError::Suite(SuiteError::NoPoints))?;
    let params_of = |m: &PointMetrics| {
        GateParams::unchecked(GateSpec {
            weights: Weights { c: m.weights[0], a: m.weights[1], d: m.weights[2], r: m.weights[3], h: m.weights[4] },
            theta_low: m.theta_low,
            theta_high: m.theta_high,
            ..GateSpec::default()
        })
    };
    let best_params = params_of(&best);
    let defaults = GateParams::default();
    let default = PointMetrics::new(usize::MAX, &defaults, eval.score(defaults, &cal, &objective, opts.fast));
    let best_test = eval.score(best_params, &test, &objective, opts.fast);
    let default_test = eval.score(defaults, &test, &objective, opts.fast);
    let variant = |name: &str, spec: GateSpec| {
        let params = GateParams::unchecked(spec);
        Variant {
            name: name.to_owned(),
            point: PointMetrics::new(usize::MAX, &params, eval.score(params, &cal, &objective, opts.fast)),
            // Refused in a config that is not an experiment's.
            unchecked: GateParams::new(GateSpec { experiment: false, ..spec }).is_err(),
        }
    };
    let b = *best_params.spec();
    let perturbation =
        crate::perturb::perturbations(b).into_iter().map(|(name, _, spec)| variant(name, spec)).collect();
    let mid = (b.theta_low + b.theta_high) / 2.0;
    let boundary = vec![
        variant("chosen point", b),
        variant("no gray zone", GateSpec { theta_low: mid, theta_high: mid + 1e-9, ..b }),
        variant("narrow (±0.025)", GateSpec { theta_low: mid - 0.025, theta_high: mid + 0.025, ..b }),
        variant("wide (0.30-0.97)", GateSpec { theta_low: 0.30, theta_high: 0.97, ..b }),
        variant("adjudicator for every issue", GateSpec { theta_low: 0.0, theta_high: 1.0 + 1e-9, ..b }),
    ];
    let in_one = |c: &Case| GROUP_ONE.contains(&c.family.as_str());
    let groups: [(Vec<usize>, Vec<usize>, Vec<String>); 2] = [
        (
            eval.select(|c| c.split == Split::Calibration && in_one(c)),
            eval.select(|c| c.split == Split::Test && in_one(c)),
            families(&eval, true),
        ),
        (
            eval.select(|c| c.split == Split::Calibration && !in_one(c)),
            eval.select(|c| c.split == Split::Test && !in_one(c)),
            families(&eval, false),
        ),
    ];
    let best_on = |subset: &[usize]| {
        let scored: Vec<PointMetrics> = pool.install(|| {
            grid.points
                .par_iter()
                .map(|p| PointMetrics::new(p.index, &p.params, eval.score(p.params, subset, &objective, opts.fast)))
                .collect()
        });
        best_of(&scored).unwrap_or(best)
    };
    let group_best = [best_on(&groups[0].0), best_on(&groups[1].0)];
    let transfer = [(0usize, 1usize), (1, 0)]
        .into_iter()
        .map(|(from, to)| {
            let target = &groups[to].1;
            let default = eval.score(defaults, target, &objective, opts.fast);
            let zero = group_best[from];
            let local = group_best[to];
            let zero_shot = PointMetrics::new(
                zero.index,
                &params_of(&zero),
                eval.score(params_of(&zero), target, &objective, opts.fast),
            );
            let local = PointMetrics::new(
                local.index,
                &params_of(&local),
                eval.score(params_of(&local), target, &objective, opts.fast),
            );
            let gain = local.score.j - default.j;
            let recovered = (gain > 1e-12).then(|| (zero_shot.score.j - default.j) / gain);
            Transfer { from: groups[from].2.clone(), to: groups[to].2.clone(), default, zero_shot, local, recovered }
        })
        .collect();
    let (simulated, replayed) = eval.counts();
    Ok(Calibration {
        evaluated_now: todo.len(),
        grid_seconds,
        points,
        skipped: grid.skipped,
        best,
        default,
        best_test,
        default_test,
        perturbation,
        boundary,
        transfer,
        simulated,
        replayed,
        calibration_episodes: cal.len(),
        test_episodes: test.len(),
    })
}

fn families(eval: &Evaluator, one: bool) -> Vec<String> {
    let mut v: Vec<String> = eval
        .cases()
        .iter()
        .filter(|c| GROUP_ONE.contains(&c.family.as_str()) == one)
        .map(|c| c.family.clone())
        .collect();
    v.sort();
    v.dedup();
    v
}
