//! The grid file: ranges for the five weights and the two thresholds, and the
//! objective's lambdas.
//!
//! ```toml
//! [weights]
//! c = { from = 0.30, to = 0.45, step = 0.05 }
//! a = [0.15, 0.20, 0.25]          # a list works too
//! d = { from = 0.15, to = 0.25, step = 0.05 }
//! r = { from = 0.15, to = 0.25, step = 0.05 }
//! h = [0.05, 0.10]
//! [thresholds]
//! theta_low = { from = 0.45, to = 0.70, step = 0.05 }
//! theta_high = { from = 0.75, to = 0.95, step = 0.05 }
//! [objective]                     # optional
//! l1 = 0.1
//! ```

use std::path::{Path, PathBuf};

use gatecrew_gating::{GateParams, GateSpec, MAX_WEIGHT, Weights};
use serde::{Deserialize, Serialize};

use crate::objective::Objective;

/// The most values one key's range may give: a weight or threshold in `[0, 1]` at a
/// step of 0.001, far finer than any difference the suite can measure.
pub const MAX_RANGE_VALUES: usize = 1_000;

/// The most combinations a grid may have, counted before the hierarchy skips any: 25
/// times the default grid (40,320), which already takes the longest of any command.
/// Each point is kept in memory and evaluated on every calibration episode, so the
/// bound keeps both the memory (about 100 bytes a point) and the run finite.
pub const MAX_GRID_POINTS: u64 = 1_000_000;

/// A range of values: `{ from, to, step }` (inclusive) or an explicit list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Range {
    /// Every value from `from` to `to` in steps of `step`.
    Steps {
        /// First value.
        from: f64,
        /// Last value (inclusive, up to rounding).
        to: f64,
        /// The increment between values (positive).
        step: f64,
    },
    /// These values.
    List(Vec<f64>),
}

/// The values a key may take: a weight from 0 to the gate's [`MAX_WEIGHT`], a
/// threshold from 0 to 1. A value outside is refused by name here rather than by the
/// gate point by point, which would leave only "no grid point satisfies...".
#[derive(Debug, Clone, Copy)]
enum Bound {
    Weight,
    Threshold,
}

impl Bound {
    fn max(self) -> f64 {
        match self {
            Bound::Weight => MAX_WEIGHT,
            Bound::Threshold => 1.0,
        }
    }

    fn check(self, key: &str, x: f64) -> Result<(), String> {
        let max = self.max();
        if x.is_finite() && (0.0..=max).contains(&x) {
            return Ok(());
        }
        let what = match self {
            Bound::Weight => "a weight",
            Bound::Threshold => "a threshold",
        };
        // A huge value in exponent form: `Display` would write out all 300 digits.
        let shown = if x.is_finite() && x.abs() >= 1e9 { format!("{x:e}") } else { x.to_string() };
        Err(format!("{key}: {shown} is outside the bound: {what} is a number from 0 to {max}"))
    }
}

impl Range {
    fn values(&self, key: &str, bound: Bound) -> Result<Vec<f64>, String> {
        match self {
            Range::List(v) => v.iter().try_for_each(|&x| bound.check(key, x))?,
            Range::Steps { from, to, .. } => [*from, *to].iter().try_for_each(|&x| bound.check(key, x))?,
        }
        let v: Vec<f64> = match self {
            Range::List(v) if v.len() > MAX_RANGE_VALUES => {
                return Err(format!("{key}: {} values; at most {MAX_RANGE_VALUES}", v.len()));
            }
            Range::List(v) => v.clone(),
            Range::Steps { from, to, step } => {
                if !(step.is_finite() && *step > 0.0) {
                    return Err(format!("{key}: step must be a positive number, got {step}"));
                }
                if !(from.is_finite() && to.is_finite()) || from > to {
                    return Err(format!("{key}: empty range from {from} to {to}"));
                }
                // Counted in floating point before anything is allocated: a tiny step
                // gives an enormous (or infinite) count, refused here.
                let span = ((to - from) / step + 1e-9).floor();
                if span.is_nan() || span >= MAX_RANGE_VALUES as f64 {
                    return Err(format!(
                        "{key}: from {from} to {to} in steps of {step} gives more than {MAX_RANGE_VALUES} values; \
                         at most {MAX_RANGE_VALUES} (use a larger step)"
                    ));
                }
                let n = span as usize;
                // Rounded to 1e-6 so that 0.1 + 0.2 prints as 0.3 in every report.
                (0..=n).map(|i| ((from + i as f64 * step) * 1e6).round() / 1e6).collect()
            }
        };
        if v.is_empty() {
            return Err(format!("{key}: empty range"));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(format!("{key}: values must be finite numbers"));
        }
        Ok(v)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightRanges {
    c: Range,
    a: Range,
    d: Range,
    r: Range,
    h: Range,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThresholdRanges {
    theta_low: Range,
    theta_high: Range,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    weights: WeightRanges,
    thresholds: ThresholdRanges,
    #[serde(default)]
    objective: Objective,
}

/// A grid file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GridError {
    /// Reading failed.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The grid file.
        path: PathBuf,
        /// The cause (missing, too large, not UTF-8).
        source: gatecrew_protocol::limits::ReadFileError,
    },
    /// Invalid TOML or an unknown key (the message names line and key).
    #[error("{path}: {source}")]
    Syntax {
        /// The grid file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: toml::de::Error,
    },
    /// More keys than a TOML file may hold (names the file, the key and the bound).
    #[error(transparent)]
    Keys(#[from] gatecrew_protocol::limits::TomlKeysError),
    /// A range that gives no value, or bad numbers.
    #[error("{path}: {message}")]
    Range {
        /// The grid file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Every combination breaks the weight hierarchy or the threshold order.
    #[error(
        "{path}: no grid point satisfies wC > max(wA, wD, wR), min(wA, wD, wR) > wH > 0 and theta_low < theta_high ({total} combinations)"
    )]
    NoValidPoint {
        /// The grid file.
        path: PathBuf,
        /// Combinations tried.
        total: usize,
    },
}

/// One grid point: its index in the full product (stable across runs) and its spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Index in the full product, skipped points included.
    pub index: usize,
    /// The gate parameters.
    pub params: GateParams,
}

/// An expanded grid.
#[derive(Debug, Clone)]
pub struct Grid {
    /// Valid points, in index order.
    pub points: Vec<Point>,
    /// Combinations skipped for breaking the hierarchy or the threshold order.
    pub skipped: usize,
    /// What each point is scored by (the file's `[objective]`, or the default).
    pub objective: Objective,
}

impl Grid {
    /// Reads a grid file.
    pub fn load(path: &Path) -> Result<Grid, GridError> {
        let text = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|source| GridError::Io { path: path.into(), source })?;
        Self::parse(&text, path)
    }

    /// Parses grid text; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Grid, GridError> {
        gatecrew_protocol::limits::check_toml_keys(path, text)?;
        let f: GridFile = toml::from_str(text).map_err(|source| GridError::Syntax { path: path.into(), source })?;
        let values = |r: &Range, key: &str, bound: Bound| {
            r.values(key, bound).map_err(|message| GridError::Range { path: path.into(), message })
        };
        let range = |r: &Range, key: &str| values(r, key, Bound::Weight);
        let (c, a, d) =
            (range(&f.weights.c, "weights.c")?, range(&f.weights.a, "weights.a")?, range(&f.weights.d, "weights.d")?);
        let (r, h) = (range(&f.weights.r, "weights.r")?, range(&f.weights.h, "weights.h")?);
        let lo = values(&f.thresholds.theta_low, "thresholds.theta_low", Bound::Threshold)?;
        let hi = values(&f.thresholds.theta_high, "thresholds.theta_high", Bound::Threshold)?;
        f.objective.check().map_err(|message| GridError::Range { path: path.into(), message })?;
        let counts = [c.len(), a.len(), d.len(), r.len(), h.len(), lo.len(), hi.len()];
        let total = counts.iter().try_fold(1u64, |n, &k| n.checked_mul(k as u64)).filter(|&n| n <= MAX_GRID_POINTS);
        if total.is_none() {
            let shown: Vec<String> = counts.iter().map(ToString::to_string).collect();
            return Err(GridError::Range {
                path: path.into(),
                message: format!(
                    "weights c, a, d, r, h and thresholds theta_low, theta_high give {} combinations; at most {MAX_GRID_POINTS}",
                    shown.join(" x ")
                ),
            });
        }
        let mut points = Vec::new();
        let (mut index, mut skipped) = (0usize, 0usize);
        for &wc in &c {
            for &wa in &a {
                for &wd in &d {
                    for &wr in &r {
                        for &wh in &h {
                            for &tl in &lo {
                                for &th in &hi {
                                    let spec = GateSpec {
                                        weights: Weights { c: wc, a: wa, d: wd, r: wr, h: wh },
                                        theta_low: tl,
                                        theta_high: th,
                                        ..GateSpec::default()
                                    };
                                    match GateParams::new(spec) {
                                        Ok(params) => points.push(Point { index, params }),
                                        Err(_) => skipped += 1,
                                    }
                                    index += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        if points.is_empty() {
            return Err(GridError::NoValidPoint { path: path.into(), total: index });
        }
        Ok(Grid { points, skipped, objective: f.objective })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Grid, GridError> {
        Grid::parse(text, Path::new("grid.toml"))
    }

    const OK: &str = "[weights]\nc = [0.35]\na = [0.2]\nd = [0.2]\nr = { from = 0.1, to = 0.2, step = 0.05 }\nh = [0.05]\n[thresholds]\ntheta_low = [0.6, 0.95]\ntheta_high = [0.9]\n";

    #[test]
    fn expands_ranges_and_counts_skipped_points() {
        let g = parse(OK).unwrap();
        // r takes 0.1, 0.15, 0.2; theta_low 0.95 is not below 0.9: 3 skipped.
        assert_eq!((g.points.len(), g.skipped), (3, 3));
        assert_eq!(g.points.iter().map(|p| p.index).collect::<Vec<_>>(), vec![0, 2, 4]);
        assert_eq!(g.points[1].params.spec().weights.r, 0.15);
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let err = parse(&OK.replace("h = [0.05]", "h = [0.05]\nx = [1.0]")).unwrap_err().to_string();
        assert!(err.contains("grid.toml") && err.contains("unknown field `x`") && err.contains("line 7"), "{err}");
    }

    #[test]
    fn empty_ranges_are_refused() {
        let err = parse(
            &OK.replace("r = { from = 0.1, to = 0.2, step = 0.05 }", "r = { from = 0.3, to = 0.2, step = 0.05 }"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("weights.r: empty range"), "{err}");
        let err = parse(&OK.replace("c = [0.35]", "c = []")).unwrap_err();
        assert!(err.to_string().contains("weights.c: empty range"), "{err}");
        let err = parse(&OK.replace("step = 0.05", "step = 0")).unwrap_err();
        assert!(err.to_string().contains("step must be a positive number"), "{err}");
    }

    /// A range is refused past its bound, whatever makes it long (a tiny step, the
    /// smallest float, a long list), and so is a product of ranges past the grid's.
    #[test]
    fn ranges_and_combinations_are_bounded() {
        let max = MAX_RANGE_VALUES as f64;
        for step in [1.0 / max, 1.0 / (max - 1.0)] {
            let g = parse(&OK.replace("step = 0.05 }", &format!("step = {step} }}")).replace("to = 0.2,", "to = 1.0,"));
            // 0.1 to 1.0: 900 or so values, within the bound.
            assert!(g.is_ok(), "{step}: {:?}", g.err());
        }
        for step in ["0.0000000002", "5e-324", "1e-300"] {
            let text = OK.replace("step = 0.05", &format!("step = {step}"));
            let err = parse(&text).unwrap_err().to_string();
            assert!(err.contains("grid.toml") && err.contains("weights.r") && err.contains("at most 1000"), "{err}");
        }
        let long: Vec<String> = (0..=MAX_RANGE_VALUES).map(|i| format!("{}", i as f64 / 2000.0)).collect();
        let err = parse(&OK.replace("h = [0.05]", &format!("h = [{}]", long.join(", ")))).unwrap_err().to_string();
        assert!(err.contains("weights.h: 1001 values; at most 1000"), "{err}");
        // Seven ranges of 8 values: 8^7 = 2,097,152 combinations.
        let eight = "[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]";
        let wide = format!(
            "[weights]\nc = {eight}\na = {eight}\nd = {eight}\nr = {eight}\nh = {eight}\n[thresholds]\ntheta_low = {eight}\ntheta_high = {eight}\n"
        );
        let err = parse(&wide).unwrap_err().to_string();
        assert!(err.contains("8 x 8 x 8 x 8 x 8 x 8 x 8 combinations; at most 1000000"), "{err}");
    }

    /// A weight past the gate's bound, or a threshold outside [0, 1], is refused with
    /// the file, the key and the bound, in a list or at either end of a range.
    #[test]
    fn values_past_their_bound_are_refused_naming_the_bound() {
        for (from, to, key, bound) in [
            ("c = [0.35]", "c = [1e300]", "weights.c: 1e300", "a weight is a number from 0 to 1000000"),
            ("c = [0.35]", "c = [1000000.5]", "weights.c: 1000000.5", "from 0 to 1000000"),
            ("h = [0.05]", "h = [-0.05]", "weights.h: -0.05", "from 0 to 1000000"),
            ("to = 0.2,", "to = 1e300,", "weights.r: 1e300", "from 0 to 1000000"),
            (
                "theta_high = [0.9]",
                "theta_high = [1.5]",
                "thresholds.theta_high: 1.5",
                "a threshold is a number from 0 to 1",
            ),
        ] {
            let err = parse(&OK.replace(from, to)).unwrap_err().to_string();
            assert!(err.starts_with("grid.toml: ") && err.contains(key) && err.contains(bound), "{to}: {err}");
        }
        // At the bound a weight reads (the hierarchy then decides the point).
        let g = parse(&OK.replace("c = [0.35]", "c = [1000000]"));
        assert!(g.is_ok(), "{:?}", g.err());
    }

    #[test]
    fn a_grid_where_the_hierarchy_never_holds_is_refused() {
        let err = parse(&OK.replace("c = [0.35]", "c = [0.1]")).unwrap_err();
        assert!(matches!(err, GridError::NoValidPoint { total: 6, .. }), "{err}");
        assert!(err.to_string().contains("no grid point satisfies"));
    }
}
