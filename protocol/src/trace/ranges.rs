//! The ranges of a trace's numbers, checked once a line has parsed: a rate or a score
//! lies in `[0, 1]` and is not `-0`, every other number is finite. JSON cannot spell
//! NaN, but it can spell `1.7976931348623157e308` and `-0`, and a `tsr` of either,
//! passed on, made `analyze --plot` spin and reports show TSR 1.500.

use super::{Event, EventKind};

/// A rate or score: in `[0, 1]`, and not `-0`.
pub(crate) fn is_unit(v: f64) -> bool {
    (0.0..=1.0).contains(&v) && v.is_sign_positive()
}

/// The first number of `ev` out of its range, as `field: value, why`.
pub(super) fn check(ev: &Event) -> Result<(), String> {
    let unit = |name: &str, v: f64| {
        if is_unit(v) { Ok(()) } else { Err(format!("{name} is {v:?}; it must lie in [0, 1]")) }
    };
    match &ev.kind {
        EventKind::EpisodeEnd { tsr, scores, .. } => {
            unit("tsr", *tsr)?;
            if let Some(v) = scores.mindcraft_accuracy {
                unit("mindcraft_accuracy", v)?;
            }
            if let Some(v) = scores.villager_recall {
                unit("villager_recall", v)?;
            }
        }
        EventKind::Gate { score, .. } => unit("score", *score)?,
        EventKind::Adjudication { confidence, .. } if !confidence.is_finite() => {
            return Err(format!("confidence is {confidence:?}; it must be a finite number"));
        }
        EventKind::EpisodeStart { executor: Some(x), .. } if !(x.error_scale.is_finite() && x.error_scale >= 0.0) => {
            return Err(format!("executor.error_scale is {:?}; it must be a finite number >= 0", x.error_scale));
        }
        _ => {}
    }
    Ok(())
}
