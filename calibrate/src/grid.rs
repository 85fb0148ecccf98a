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

use gatecrew_gating::{GateParams, GateSpec, Weights};
use serde::{Deserialize, Serialize};

use crate::objective::Objective;

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

impl Range {
    fn values(&self, key: &str) -> Result<Vec<f64>, String> {
        let v: Vec<f64> = match self {
            Range::List(v) => v.clone(),
            Range::Steps { from, to, step } => {
                if !(step.is_finite() && *step > 0.0) {
                    return Err(format!("{key}: step must be a positive number, got {step}"));
                }
                if !(from.is_finite() && to.is_finite()) || from > to {
                    return Err(format!("{key}: empty range from {from} to {to}"));
                }
                let n = ((to - from) / step + 1e-9).floor() as usize;
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
        let f: GridFile = toml::from_str(text).map_err(|source| GridError::Syntax { path: path.into(), source })?;
        let range =
            |r: &Range, key: &str| r.values(key).map_err(|message| GridError::Range { path: path.into(), message });
        let (c, a, d) =
            (range(&f.weights.c, "weights.c")?, range(&f.weights.a, "weights.a")?, range(&f.weights.d, "weights.d")?);
        let (r, h) = (range(&f.weights.r, "weights.r")?, range(&f.weights.h, "weights.h")?);
        let lo = range(&f.thresholds.theta_low, "thresholds.theta_low")?;
        let hi = range(&f.thresholds.theta_high, "thresholds.theta_high")?;
        f.objective.check().map_err(|message| GridError::Range { path: path.into(), message })?;
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

    #[test]
    fn a_grid_where_the_hierarchy_never_holds_is_refused() {
        let err = parse(&OK.replace("c = [0.35]", "c = [0.1]")).unwrap_err();
        assert!(matches!(err, GridError::NoValidPoint { total: 6, .. }), "{err}");
        assert!(err.to_string().contains("no grid point satisfies"));
    }
}
