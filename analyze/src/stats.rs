//! Percentile-bootstrap confidence intervals over episodes.
//!
//! [`bootstrap`] takes any statistic of a resample's indices. `gatecrew analyze` uses
//! [`resampled`] instead: the same resamples (the same seeded draws, in the same order)
//! and the same arithmetic, with the per-episode inputs taken out once into a
//! [`Column`] and folded as they are drawn, so no index vector, no closure per episode
//! and no sort of latencies per resample (issue 20: the intervals were 29% of the time).
//! Tests check that both give the same intervals, bit for bit.

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
    let mut idx = vec![0usize; n];
    Some(interval(n, seed, value, |rng| {
        for slot in idx.iter_mut() {
            *slot = rng.random_range(0..n);
        }
        stat(&idx)
    }))
}

/// The interval around `value` from [`RESAMPLES`] calls of `resample`, each drawing its
/// `n` indices from the seeded generator.
fn interval(n: usize, seed: u64, value: f64, mut resample: impl FnMut(&mut ChaCha8Rng) -> Option<f64>) -> Interval {
    if n < 2 {
        return Interval { value, lo: value, hi: value };
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut draws: Vec<f64> = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        if let Some(v) = resample(&mut rng) {
            draws.push(v);
        }
    }
    if draws.is_empty() {
        return Interval { value, lo: value, hi: value };
    }
    draws.sort_by(f64::total_cmp);
    let q = |p: f64| draws[((p * (draws.len() - 1) as f64).round() as usize).min(draws.len() - 1)];
    Interval { value, lo: q(0.025), hi: q(0.975) }
}

/// One metric's inputs, one entry per episode.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// The statistic is the mean of these.
    Mean(Vec<f64>),
    /// The statistic is the sum of the first over the sum of the second (`None` when
    /// the second sums to zero).
    Pooled(Vec<(u64, u64)>),
    /// The statistic is the `q` quantile (nearest rank, rounded) of every episode's
    /// values together.
    Quantile {
        /// Which quantile.
        q: f64,
        /// Each episode's values.
        values: Vec<Vec<u64>>,
    },
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Mean(v) => v.len(),
            Column::Pooled(v) => v.len(),
            Column::Quantile { values, .. } => values.len(),
        }
    }
}

/// [`bootstrap`] of a column's statistic: the same interval, computed without the
/// index vector. A column whose resamples can only give the estimate itself (every
/// episode alike, or a rate whose numerators are all zero) is not resampled at all.
pub fn resampled(column: &Column, seed: u64) -> Option<Interval> {
    let n = column.len();
    if n == 0 {
        return None;
    }
    let point = |value: f64| Some(Interval { value, lo: value, hi: value });
    match column {
        Column::Mean(v) => {
            let value = v.iter().sum::<f64>() / n as f64;
            // n copies of one value add up to the same bits in any order.
            if v.iter().all(|x| x.to_bits() == v[0].to_bits()) {
                return point(value);
            }
            Some(interval(n, seed, value, |rng| {
                Some((0..n).map(|_| v[rng.random_range(0..n)]).sum::<f64>() / n as f64)
            }))
        }
        Column::Pooled(v) => {
            let ratio = |(a, b): (u64, u64)| (b > 0).then(|| a as f64 / b as f64);
            let value = ratio(v.iter().fold((0u64, 0u64), |(a, b), &(x, y)| (a + x, b + y)))?;
            if v.iter().all(|p| *p == v[0]) || v.iter().all(|p| p.0 == 0) {
                return point(value);
            }
            Some(interval(n, seed, value, |rng| {
                ratio((0..n).fold((0u64, 0u64), |(a, b), _| {
                    let (x, y) = v[rng.random_range(0..n)];
                    (a + x, b + y)
                }))
            }))
        }
        Column::Quantile { q, values } => {
            // Every value with its episode, in value order: a resample's quantile is
            // found by walking it with the number of times each episode was drawn.
            let mut sorted: Vec<(u64, usize)> =
                values.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |&x| (x, i))).collect();
            sorted.sort_unstable();
            let rank = |len: usize| ((q * (len - 1) as f64).round() as usize).min(len - 1);
            let value = sorted.get(rank(sorted.len().max(1))).map(|p| p.0 as f64)?;
            if sorted.iter().all(|p| p.0 == sorted[0].0) {
                return point(value);
            }
            let mut times = vec![0usize; n];
            Some(interval(n, seed, value, |rng| {
                times.fill(0);
                let mut len = 0usize;
                for _ in 0..n {
                    let i = rng.random_range(0..n);
                    times[i] += 1;
                    len += values[i].len();
                }
                if len == 0 {
                    return None;
                }
                let k = rank(len);
                let mut seen = 0usize;
                sorted
                    .iter()
                    .find(|&&(_, i)| {
                        seen += times[i];
                        seen > k
                    })
                    .map(|p| p.0 as f64)
            }))
        }
    }
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
