//! Percentile-bootstrap confidence intervals over episodes.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// A point estimate with a 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// The estimate on all episodes.
    pub value: f64,
    /// 2.5th percentile of the bootstrap distribution.
    pub lo: f64,
    /// 97.5th percentile.
    pub hi: f64,
}

/// Resamples per interval.
pub const RESAMPLES: usize = 2000;

/// Bootstraps `stat` over `n` items: `stat` gets the indices of one resample and returns
/// `None` when undefined (e.g. a rate with no denominator). `None` when the estimate on
/// all items is undefined. Seeded, so the same inputs give the same interval.
pub fn bootstrap(n: usize, seed: u64, stat: impl Fn(&[usize]) -> Option<f64>) -> Option<Interval> {
    let all: Vec<usize> = (0..n).collect();
    let value = stat(&all)?;
    if n < 2 {
        return Some(Interval { value, lo: value, hi: value });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut idx = vec![0usize; n];
    let mut draws: Vec<f64> = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        for slot in idx.iter_mut() {
            *slot = rng.random_range(0..n);
        }
        if let Some(v) = stat(&idx) {
            draws.push(v);
        }
    }
    if draws.is_empty() {
        return Some(Interval { value, lo: value, hi: value });
    }
    draws.sort_by(f64::total_cmp);
    let q = |p: f64| draws[((p * (draws.len() - 1) as f64).round() as usize).min(draws.len() - 1)];
    Some(Interval { value, lo: q(0.025), hi: q(0.975) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_data_has_a_point_interval() {
        let i = bootstrap(10, 1, |ix| Some(ix.len() as f64 * 0.0 + 3.0)).unwrap();
        assert_eq!((i.value, i.lo, i.hi), (3.0, 3.0, 3.0));
    }

    #[test]
    fn interval_brackets_the_mean_and_is_deterministic() {
        let data: Vec<f64> = (0..50).map(|i| f64::from(i % 7)).collect();
        let mean = |ix: &[usize]| Some(ix.iter().map(|&i| data[i]).sum::<f64>() / ix.len() as f64);
        let a = bootstrap(data.len(), 42, mean).unwrap();
        let b = bootstrap(data.len(), 42, mean).unwrap();
        assert_eq!(a, b);
        assert!(a.lo < a.value && a.value < a.hi, "{a:?}");
        assert!(a.hi - a.lo < 2.0);
    }

    #[test]
    fn undefined_statistic_gives_none() {
        assert!(bootstrap(5, 1, |_| None).is_none());
    }
}
