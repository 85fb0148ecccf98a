//! Tier 2: the cost-sensitive score (DESIGN section 5.3).

use crate::config::Weights;
use crate::features::Features;

/// `s = wC*C + wA*A + wD*D - wR*R - wH*H`.
pub fn raw_score(w: Weights, f: Features) -> f64 {
    w.c * f.c.f() + w.a * f.a.f() + w.d * f.d.f() - w.r * f.r.f() - w.h * f.h.f()
}

/// `s_norm = (s + 3*(wR + wH)) / (3*(wC + wA + wD + wR + wH))`, in `[0, 1]`: clamped,
/// since the two sums round apart by an ulp at the extremes, and a trace's reader
/// refuses a score outside `[0, 1]`.
pub fn normalised(w: Weights, f: Features) -> f64 {
    let s = raw_score(w, f);
    let den = 3.0 * (w.c + w.a + w.d + w.r + w.h);
    if den <= 0.0 { 0.0 } else { ((s + 3.0 * (w.r + w.h)) / den).clamp(0.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn hand_computed_cases() {
        let w = Weights::default();
        // All zero: s = 0, s_norm = 3*0.25 / 3 = 0.25.
        close(normalised(w, Features::new(0, 0, 0, 0, 0).unwrap()), 0.25);
        // Extremes map to 0 and 1.
        close(normalised(w, Features::new(0, 0, 0, 3, 3).unwrap()), 0.0);
        close(normalised(w, Features::new(3, 3, 3, 0, 0).unwrap()), 1.0);
        // The decision card of DESIGN 5.4 (C3 A1 D3 R0 H0): s = 1.05+0.2+0.6 = 1.85,
        // s_norm = (1.85 + 0.75) / 3 = 0.8666...
        close(raw_score(w, Features::new(3, 1, 3, 0, 0).unwrap()), 1.85);
        close(normalised(w, Features::new(3, 1, 3, 0, 0).unwrap()), 2.6 / 3.0);
        // A one-craft fix next to a teammate: C2 A1 D0 R2 H0: s = 0.7+0.2-0.4 = 0.5,
        // s_norm = 1.25 / 3.
        close(normalised(w, Features::new(2, 1, 0, 2, 0).unwrap()), 1.25 / 3.0);
        // With history: C2 A1 D2 R0 H3: s = 0.7+0.2+0.4-0.15 = 1.15, s_norm = 1.9/3.
        close(normalised(w, Features::new(2, 1, 2, 0, 3).unwrap()), 1.9 / 3.0);
    }
}
