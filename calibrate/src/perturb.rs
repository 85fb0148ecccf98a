//! `gatecrew calibrate --perturb`: the paper's weight perturbations (its Table 8) run
//! through the suite. The chosen point and four variants of it (equal weights, low wC,
//! wR = 0, high wH), each an experiment config (`experiment = true`: three of them break
//! the weight hierarchy on purpose), on the suite's held-out test split and on its
//! calibration split, with TSR, CS, Msg, LRR and UER per variant.

use gatecrew_gating::{GateParams, GateSpec, Weights};
use gatecrew_protocol::trace::Split;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::eval::Evaluator;
use crate::objective::{Objective, Score};
use crate::run::{CalibrateError, Options};

/// The perturbations of a point, in the paper's order: what each changes, and the spec.
/// The amounts are the paper's definitions made concrete on the point's own weights:
/// all five equal (0.2, a fifth each); wC 0.05 below the smallest of wA, wD, wR; wR
/// set to 0; wH 0.05 above the largest of wA, wD, wR.
pub fn perturbations(b: GateSpec) -> Vec<(&'static str, &'static str, GateSpec)> {
    let w = b.weights;
    let exp = |weights| GateSpec { weights, experiment: true, ..b };
    vec![
        ("chosen point", "criticality-dominant (the hierarchy holds)", b),
        ("equal weights", "equal weighting", exp(Weights { c: 0.2, a: 0.2, d: 0.2, r: 0.2, h: 0.2 })),
        ("low wC", "undervaluing criticality", exp(Weights { c: w.a.min(w.d).min(w.r) - 0.05, ..w })),
        ("wR = 0", "ignoring local recoverability", exp(Weights { r: 0.0, ..w })),
        ("high wH", "over-penalising history", exp(Weights { h: w.a.max(w.d).max(w.r) + 0.05, ..w })),
    ]
}

/// One variant's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PerturbRow {
    /// The variant.
    pub name: String,
    /// What it models (the paper's rationale column).
    pub rationale: String,
    /// Its gate.
    pub spec: GateSpec,
    /// Whether its weights keep the hierarchy.
    pub keeps_hierarchy: bool,
    /// On the held-out test split.
    pub test: Score,
    /// On the calibration split.
    pub calibration: Score,
}

impl PerturbRow {
    /// The row of the variant `name` (its gate `spec`, checked as a config would check
    /// it, for the hierarchy column) with its scores on each split.
    pub fn new(name: &str, rationale: &str, spec: GateSpec, test: Score, calibration: Score) -> Self {
        let keeps_hierarchy = GateParams::new(spec).unwrap_or_else(|_| GateParams::unchecked(spec)).keeps_hierarchy();
        Self { name: name.to_owned(), rationale: rationale.to_owned(), spec, keeps_hierarchy, test, calibration }
    }
}

/// The table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Perturbation {
    /// The suite folder.
    pub suite: String,
    /// Episodes of the test split.
    pub test_episodes: usize,
    /// Episodes of the calibration split.
    pub calibration_episodes: usize,
    /// The rows, the chosen point first.
    pub rows: Vec<PerturbRow>,
}

/// Runs the perturbations of `base` on the suite of `opts`.
pub fn perturb(base: GateSpec, objective: &Objective, opts: &Options) -> Result<Perturbation, CalibrateError> {
    let eval = Evaluator::new(crate::run::load_cases(opts)?);
    let test = eval.select(|c| c.split == Split::Test);
    let cal = eval.select(|c| c.split == Split::Calibration);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        .build()
        .map_err(|e| crate::run::io_err(&opts.suite, std::io::Error::other(e)))?;
    let rows = pool.install(|| {
        perturbations(base)
            .into_par_iter()
            .map(|(name, rationale, spec)| {
                // An experiment spec is checked as a config would check it.
                let params = GateParams::new(spec).unwrap_or_else(|_| GateParams::unchecked(spec));
                PerturbRow::new(
                    name,
                    rationale,
                    spec,
                    eval.score(params, &test, objective, opts.fast),
                    eval.score(params, &cal, objective, opts.fast),
                )
            })
            .collect()
    });
    Ok(Perturbation {
        suite: opts.suite.display().to_string(),
        test_episodes: test.len(),
        calibration_episodes: cal.len(),
        rows,
    })
}

/// The table as Markdown: one row per variant and split.
pub fn markdown(p: &Perturbation) -> String {
    let mut s = String::from(
        "| variant | rationale | weights C A D R H | hierarchy | split (n) | TSR | CS | Msg | LRR | UER |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in &p.rows {
        let w = r.spec.weights;
        let hier = if r.keeps_hierarchy { "kept" } else { "broken" };
        for (split, n, sc) in
            [("test", p.test_episodes, &r.test), ("calibration", p.calibration_episodes, &r.calibration)]
        {
            // A split the filter left empty has no figures, not zeros.
            let figures = if n == 0 {
                "— | — | — | — | —".to_string()
            } else {
                format!(
                    "{:.3} | {:.1} | {:.2} | {:.1}% | {:.1}%",
                    sc.tsr,
                    sc.cs,
                    sc.msg,
                    sc.lrr * 100.0,
                    sc.uer * 100.0
                )
            };
            s.push_str(&format!(
                "| {} | {} | {} {} {} {} {} | {hier} | {split} ({n}) | {figures} |\n",
                r.name, r.rationale, w.c, w.a, w.d, w.r, w.h,
            ));
        }
    }
    s
}
