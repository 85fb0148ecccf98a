//! Transfer to a second world: the gate calibrated on the construction suite,
//! applied zero-shot to MindAgent's kitchen, against a calibration on kitchen levels.
//!
//! The kitchen's gated crew runs the same [`gatecrew_gating::Gate`] on kitchen issues;
//! only the weights and thresholds move here (its cooldown and detour are counted in
//! kitchen steps, not construction ticks, and stay the kitchen's). The levels are split
//! before anything is run: in each of the paper's four difficulty tiers (Table 1: very
//! simple 0, 1, 7; simple 2, 4, 8; intermediate 3, 9, 10; advanced 5, 11, 12) the first
//! level listed calibrates and the others test, so both halves span the tiers and no
//! test level is ever scored during the search.
//!
//! The kitchen's own objective is what the world scores: mean CoS (pending excluded, the
//! paper's formula) over the calibration levels, every crew size and the five factors;
//! fewer messages, then the lower grid index, break ties. The construction objective's
//! terms (local recovery time, zero-yield escalations, adjudicator tokens) have no
//! kitchen counterpart with the same units, so they are not carried over.

use std::sync::Arc;

use gatecrew_gating::GateParams;
use gatecrew_kitchen::{CosRow, Cuisine, Level, RunSpec};
use rayon::prelude::*;
use serde::Serialize;

use crate::grid::Grid;

/// The calibration levels: the first of each tier of MindAgent's Table 1.
pub const CALIBRATION_LEVELS: [&str; 4] = ["level_0", "level_2", "level_3", "level_5"];

/// One gate's score on a set of levels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KitchenScore {
    /// Mean CoS, pending orders excluded (the paper's formula).
    pub cos_pending_excluded: f64,
    /// Mean CoS, pending orders counted as failed (MindAgent's script).
    pub cos_pending_failed: f64,
    /// Messages per episode.
    pub messages: f64,
    /// Gate decisions by tier (rules, score, gray zone), summed over the episodes: how
    /// often the weights and thresholds were consulted at all.
    pub tiers: [u64; 3],
}

/// The transfer study's result.
#[derive(Debug, Clone, Serialize)]
pub struct Transfer {
    /// Levels the kitchen calibration searched on.
    pub calibration_levels: Vec<String>,
    /// Levels every row is scored on.
    pub test_levels: Vec<String>,
    /// Crew sizes.
    pub agents: Vec<usize>,
    /// Grid points searched.
    pub points: usize,
    /// The point the kitchen calibration chose (grid index).
    pub chosen_index: usize,
    /// Its score on the calibration levels.
    pub chosen_calibration: KitchenScore,
    /// The defaults' score on the calibration levels.
    pub defaults_calibration: KitchenScore,
    /// The gate's defaults, the construction point (zero-shot) and the kitchen point,
    /// each with its parameters and its test-level score.
    pub rows: Vec<TransferRow>,
    /// (zero-shot - defaults) / (kitchen - defaults) on the test levels' CoS (pending
    /// excluded); `None` when the kitchen calibration gains nothing over the defaults.
    pub gain_recovered: Option<f64>,
}

/// One gate on the test levels.
#[derive(Debug, Clone, Serialize)]
pub struct TransferRow {
    /// What it is.
    pub name: String,
    /// Its weights (C, A, D, R, H) and thresholds.
    pub weights: [f64; 5],
    /// theta_low, theta_high.
    pub thresholds: [f64; 2],
    /// Its score on the test levels.
    pub test: KitchenScore,
}

fn score(rows: &[CosRow]) -> KitchenScore {
    let n = rows.len().max(1) as f64;
    let episodes: usize = rows.iter().map(|r| r.episodes.len()).sum();
    KitchenScore {
        cos_pending_excluded: rows.iter().map(|r| r.cos_pending_excluded).sum::<f64>() / n,
        cos_pending_failed: rows.iter().map(|r| r.cos_pending_failed).sum::<f64>() / n,
        messages: rows.iter().map(|r| r.messages as f64).sum::<f64>() / episodes.max(1) as f64,
        tiers: rows
            .iter()
            .flat_map(|r| &r.episodes)
            .fold([0; 3], |t, e| [t[0] + e.counters.tier1, t[1] + e.counters.tier2, t[2] + e.counters.tier3]),
    }
}

/// The gated crew's score under `params` on `levels` at every crew size.
pub fn evaluate(
    cuisine: &Cuisine,
    levels: &[Arc<Level>],
    agents: &[usize],
    spec: &RunSpec,
    params: GateParams,
) -> KitchenScore {
    let rows: Vec<CosRow> = levels
        .iter()
        .flat_map(|l| agents.iter().map(move |&n| (l, n)))
        .map(|(l, n)| gatecrew_kitchen::cos_gated(&cuisine.book, l, &RunSpec { agents: n, ..spec.clone() }, params))
        .collect();
    score(&rows)
}

fn row(name: &str, p: GateParams, test: KitchenScore) -> TransferRow {
    let s = p.spec();
    let w = s.weights;
    TransferRow { name: name.into(), weights: [w.c, w.a, w.d, w.r, w.h], thresholds: [s.theta_low, s.theta_high], test }
}

/// Calibrates the kitchen gate on the calibration levels over `grid` and scores the
/// defaults, `construction` (applied zero-shot) and the kitchen's choice on the test
/// levels. `progress` is told the points done so far.
pub fn transfer(
    cuisine: &Cuisine,
    grid: &Grid,
    construction: GateParams,
    agents: &[usize],
    spec: &RunSpec,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Transfer, gatecrew_kitchen::Error> {
    let calibration: Vec<Arc<Level>> =
        CALIBRATION_LEVELS.iter().map(|n| cuisine.level(n).cloned()).collect::<Result<_, _>>()?;
    let test: Vec<Arc<Level>> =
        cuisine.levels.iter().filter(|l| !CALIBRATION_LEVELS.contains(&l.name.as_str())).cloned().collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let scored: Vec<(usize, KitchenScore)> = grid
        .points
        .par_iter()
        .map(|p| {
            let s = evaluate(cuisine, &calibration, agents, spec, p.params);
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
            (p.index, s)
        })
        .collect();
    let best = scored
        .iter()
        .copied()
        .max_by(|(i, a), (j, b)| {
            a.cos_pending_excluded
                .total_cmp(&b.cos_pending_excluded)
                .then(b.messages.total_cmp(&a.messages))
                .then(j.cmp(i))
        })
        .expect("a grid has points");
    let chosen = grid.points.iter().find(|p| p.index == best.0).expect("scored points come from the grid").params;
    let defaults_calibration = evaluate(cuisine, &calibration, agents, spec, GateParams::default());
    let on_test = |p| evaluate(cuisine, &test, agents, spec, p);
    let defaults = on_test(GateParams::default());
    let zero_shot = on_test(construction);
    let kitchen = on_test(chosen);
    let gain = kitchen.cos_pending_excluded - defaults.cos_pending_excluded;
    let gain_recovered = (gain > 0.0).then(|| (zero_shot.cos_pending_excluded - defaults.cos_pending_excluded) / gain);
    Ok(Transfer {
        calibration_levels: calibration.iter().map(|l| l.name.clone()).collect(),
        test_levels: test.iter().map(|l| l.name.clone()).collect(),
        agents: agents.to_vec(),
        points: grid.points.len(),
        chosen_index: best.0,
        chosen_calibration: best.1,
        defaults_calibration,
        rows: vec![
            row("defaults", GateParams::default(), defaults),
            row("construction's calibrated point, zero-shot", construction, zero_shot),
            row("calibrated on kitchen levels", chosen, kitchen),
        ],
        gain_recovered,
    })
}

/// The transfer table as Markdown.
pub fn markdown(t: &Transfer) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Calibration levels {}; test levels {}; crews of {:?}; {} grid points; chosen point {} (calibration CoS {:.4}, the defaults {:.4}).\n",
        t.calibration_levels.join(", "),
        t.test_levels.join(", "),
        t.agents,
        t.points,
        t.chosen_index,
        t.chosen_calibration.cos_pending_excluded,
        t.defaults_calibration.cos_pending_excluded
    );
    let _ = writeln!(
        s,
        "| gate | weights C A D R H | thresholds | test CoS (pending excluded) | test CoS (pending = failed) | messages / episode | decisions by tier 1 / 2 / 3 |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for r in &t.rows {
        let w = r.weights;
        let _ = writeln!(
            s,
            "| {} | {} {} {} {} {} | {}..{} | {:.3} | {:.3} | {:.1} | {} / {} / {} |",
            r.name,
            w[0],
            w[1],
            w[2],
            w[3],
            w[4],
            r.thresholds[0],
            r.thresholds[1],
            r.test.cos_pending_excluded,
            r.test.cos_pending_failed,
            r.test.messages,
            r.test.tiers[0],
            r.test.tiers[1],
            r.test.tiers[2]
        );
    }
    let _ = match t.gain_recovered {
        Some(g) => writeln!(s, "\nShare of the kitchen calibration's gain recovered zero-shot: {:.0}%.", g * 100.0),
        None => writeln!(
            s,
            "\nThe kitchen calibration gains nothing over the defaults on the test levels: no gain to recover."
        ),
    };
    s
}
