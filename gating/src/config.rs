//! Gate parameters. [`GateSpec`] is what a TOML file says; [`GateParams`] is a checked
//! spec: the weight hierarchy holds and the thresholds are ordered, so the gate never
//! has to check again.

use serde::{Deserialize, Serialize};

/// The five weights of the tier-2 score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// Criticality.
    pub c: f64,
    /// Coordination advantage.
    pub a: f64,
    /// Downstream impact.
    pub d: f64,
    /// Local recoverability (subtracted).
    pub r: f64,
    /// History penalty (subtracted).
    pub h: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights { c: 0.35, a: 0.20, d: 0.20, r: 0.20, h: 0.05 }
    }
}

/// The `[gate]` section as written.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateSpec {
    /// Score weights.
    pub weights: Weights,
    /// Below this normalised score: stay local.
    pub theta_low: f64,
    /// At or above this: escalate. Between: the gray zone, for tier 3.
    pub theta_high: f64,
    /// How long a `CANNOT_SUPPLY` keeps an issue key in cooldown (H = 3).
    pub cooldown_ticks: u64,
    /// A local recovery up to this many ticks is a short detour (D = 1).
    pub detour_ticks: u64,
    /// The agent's own search budget when it looks for a local recovery (R).
    pub search_ticks: u64,
    /// An experiment config: the weight hierarchy is not enforced (weights must still
    /// be finite and >= 0, and the thresholds ordered), so that perturbation studies
    /// can run what breaking it does. Printed when loaded and recorded in the trace's
    /// `episode_start`. Never serialised when false, so the config hash of every other
    /// config is what it was.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub experiment: bool,
}

impl Default for GateSpec {
    fn default() -> Self {
        GateSpec {
            weights: Weights::default(),
            theta_low: 0.60,
            theta_high: 0.90,
            cooldown_ticks: 100,
            detour_ticks: 20,
            search_ticks: 600,
            experiment: false,
        }
    }
}

/// Why a gate spec is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateConfigError {
    /// A weight is negative, zero where it must not be, or not a number.
    #[error("weights: {0}")]
    BadWeight(String),
    /// The hierarchy `wC > max(wA, wD, wR)` and `min(wA, wD, wR) > wH > 0` fails.
    #[error(
        "weights break the hierarchy wC > max(wA, wD, wR) and min(wA, wD, wR) > wH > 0: {0} (an experiment config may break it: `experiment = true` in [gate])"
    )]
    Hierarchy(String),
    /// Thresholds outside `[0, 1]` or not ordered.
    #[error("thresholds: need 0 <= theta_low < theta_high <= 1, got theta_low = {low}, theta_high = {high}")]
    Thresholds {
        /// theta_low.
        low: f64,
        /// theta_high.
        high: f64,
    },
}

impl GateConfigError {
    /// The config key at fault.
    pub fn key(&self) -> &'static str {
        match self {
            GateConfigError::BadWeight(_) | GateConfigError::Hierarchy(_) => "gate.weights",
            GateConfigError::Thresholds { .. } => "gate.theta_low",
        }
    }
}

/// The largest weight a gate takes. Only the weights' ratios matter to the normalised
/// score, so a bound costs nothing; with it the score's sums (five weights times
/// features of at most 3) stay below 10^8 and cannot overflow to infinity and a NaN
/// score, as weights near `f64::MAX` did.
pub const MAX_WEIGHT: f64 = 1e6;

/// Checked gate parameters. The default spec satisfies the hierarchy (a test checks).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GateParams {
    spec: GateSpec,
}

impl GateParams {
    /// Checks a spec.
    pub fn new(spec: GateSpec) -> Result<Self, GateConfigError> {
        let w = spec.weights;
        for (name, v) in [("c", w.c), ("a", w.a), ("d", w.d), ("r", w.r), ("h", w.h)] {
            if !(v.is_finite() && (0.0..=MAX_WEIGHT).contains(&v)) {
                return Err(GateConfigError::BadWeight(format!(
                    "w{} = {v} must be a number from 0 to {MAX_WEIGHT}",
                    name.to_uppercase()
                )));
            }
        }
        if !spec.experiment {
            Self::hierarchy(w)?;
        }
        let (low, high) = (spec.theta_low, spec.theta_high);
        if !(low.is_finite() && high.is_finite() && 0.0 <= low && low < high && high <= 1.0) {
            return Err(GateConfigError::Thresholds { low, high });
        }
        if spec.experiment && w.c + w.a + w.d + w.r + w.h <= 0.0 {
            return Err(GateConfigError::BadWeight("the weights sum to 0: the score is undefined".into()));
        }
        Ok(GateParams { spec })
    }

    /// The hierarchy `wC > max(wA, wD, wR)` and `min(wA, wD, wR) > wH > 0`.
    fn hierarchy(w: Weights) -> Result<(), GateConfigError> {
        let max_adr = w.a.max(w.d).max(w.r);
        let min_adr = w.a.min(w.d).min(w.r);
        if w.c <= max_adr {
            return Err(GateConfigError::Hierarchy(format!("wC = {} is not above max(wA, wD, wR) = {max_adr}", w.c)));
        }
        if min_adr <= w.h {
            return Err(GateConfigError::Hierarchy(format!("min(wA, wD, wR) = {min_adr} is not above wH = {}", w.h)));
        }
        if w.h <= 0.0 {
            return Err(GateConfigError::Hierarchy(format!("wH = {} must be above 0", w.h)));
        }
        Ok(())
    }

    /// Whether the hierarchy holds for these weights (an experiment may break it).
    pub fn keeps_hierarchy(&self) -> bool {
        Self::hierarchy(self.spec.weights).is_ok()
    }

    /// Parameters taken as they are, without the hierarchy and threshold checks: only for
    /// perturbation studies that show what breaking the hierarchy does. Never loaded
    /// from a config.
    pub fn unchecked(spec: GateSpec) -> Self {
        GateParams { spec }
    }

    /// The checked spec.
    pub fn spec(&self) -> &GateSpec {
        &self.spec
    }

    /// The weights.
    pub fn weights(&self) -> Weights {
        self.spec.weights
    }

    /// The middle of the gray zone, the deterministic adjudicator's cut.
    pub fn midpoint(&self) -> f64 {
        (self.spec.theta_low + self.spec.theta_high) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(w: Weights) -> Result<GateParams, GateConfigError> {
        GateParams::new(GateSpec { weights: w, ..GateSpec::default() })
    }

    #[test]
    fn defaults_satisfy_the_hierarchy() {
        assert!(GateParams::new(GateSpec::default()).is_ok());
    }

    #[test]
    fn hierarchy_violations_are_refused() {
        let d = Weights::default();
        // Equal weights: wC is not above the others.
        assert!(matches!(with(Weights { c: 0.2, a: 0.2, d: 0.2, r: 0.2, h: 0.2 }), Err(GateConfigError::Hierarchy(_))));
        // Low wC.
        assert!(matches!(with(Weights { c: 0.15, ..d }), Err(GateConfigError::Hierarchy(_))));
        // wR = 0 falls below wH.
        assert!(matches!(with(Weights { r: 0.0, ..d }), Err(GateConfigError::Hierarchy(_))));
        // High wH.
        assert!(matches!(with(Weights { h: 0.25, ..d }), Err(GateConfigError::Hierarchy(_))));
        // wH must be positive.
        assert!(matches!(with(Weights { h: 0.0, ..d }), Err(GateConfigError::Hierarchy(_))));
        assert!(matches!(with(Weights { a: -0.1, ..d }), Err(GateConfigError::BadWeight(_))));
        assert!(matches!(with(Weights { a: f64::NAN, ..d }), Err(GateConfigError::BadWeight(_))));
    }

    #[test]
    fn an_experiment_may_break_the_hierarchy_and_nothing_else() {
        let equal = Weights { c: 0.2, a: 0.2, d: 0.2, r: 0.2, h: 0.2 };
        let exp = |w| GateParams::new(GateSpec { weights: w, experiment: true, ..GateSpec::default() });
        let p = exp(equal).unwrap();
        assert!(!p.keeps_hierarchy() && p.spec().experiment);
        assert!(exp(Weights { r: 0.0, ..Weights::default() }).is_ok());
        assert!(matches!(exp(Weights { a: -0.1, ..Weights::default() }), Err(GateConfigError::BadWeight(_))));
        assert!(matches!(exp(Weights { c: 0.0, a: 0.0, d: 0.0, r: 0.0, h: 0.0 }), Err(GateConfigError::BadWeight(_))));
        let bad = GateSpec { theta_low: 0.9, theta_high: 0.6, experiment: true, ..GateSpec::default() };
        assert!(matches!(GateParams::new(bad), Err(GateConfigError::Thresholds { .. })));
        // Not written when false, so a config without it keeps its hash.
        let text = serde_json::to_string(&GateSpec::default()).unwrap();
        assert!(!text.contains("experiment"), "{text}");
        assert!(
            serde_json::to_string(&GateSpec { experiment: true, ..GateSpec::default() })
                .unwrap()
                .contains("\"experiment\":true")
        );
    }

    #[test]
    fn thresholds_must_be_ordered() {
        let bad = GateSpec { theta_low: 0.9, theta_high: 0.6, ..GateSpec::default() };
        assert!(matches!(GateParams::new(bad), Err(GateConfigError::Thresholds { .. })));
        let bad = GateSpec { theta_low: 0.5, theta_high: 1.5, ..GateSpec::default() };
        assert!(GateParams::new(bad).is_err());
    }

    /// Weights at the bound give a finite score in [0, 1] for every feature vector;
    /// one past it is refused, as are the huge weights that gave a NaN score.
    #[test]
    fn weights_are_bounded_so_the_score_stays_finite() {
        let top = Weights { c: MAX_WEIGHT, a: MAX_WEIGHT * 0.5, d: MAX_WEIGHT * 0.5, r: MAX_WEIGHT * 0.5, h: 1e-300 };
        let p = GateParams::new(GateSpec { weights: top, ..GateSpec::default() }).unwrap();
        for v in 0..4u32.pow(5) {
            let l = |k: u32| ((v / 4u32.pow(k)) % 4) as u8;
            let f = crate::Features::new(l(0), l(1), l(2), l(3), l(4)).unwrap();
            let s = crate::score::normalised(p.weights(), f);
            assert!(s.is_finite() && (0.0..=1.0).contains(&s), "{f:?}: {s}");
        }
        for c in [MAX_WEIGHT * 1.000_001, f64::MAX / 2.0, f64::MAX, f64::INFINITY] {
            let e = GateParams::new(GateSpec { weights: Weights { c, ..top }, ..GateSpec::default() }).unwrap_err();
            assert!(matches!(e, GateConfigError::BadWeight(_)), "{c}: {e}");
            assert!(e.to_string().contains("from 0 to 1000000"), "{e}");
        }
    }
}
