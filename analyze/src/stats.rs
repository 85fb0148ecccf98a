//! Paired percentile-bootstrap confidence intervals over episodes.
//!
//! A group's episodes are resampled once: the same resamples (drawn from one seeded
//! generator per group) serve every metric of the group, so the metrics of a group are
//! compared on the same resamples (a paired bootstrap) and the draws, the larger part
//! of the work, are paid once, not once per metric (docs/benchmarks.md).
//!
//! [`bootstrap`] is the reference: it takes any statistics of a resample's indices.
//! `gatecrew analyze` uses [`resampled`]: the same draws, in the same order, and the same
//! arithmetic, with each metric's per-episode inputs taken out once into a [`Column`]
//! and folded as the indices are read (no closure per episode, no sort of latencies per
//! resample). Tests check that both give the same intervals, bit for bit.
//!
//! The generator is PCG-64 (MCG variant, `rand_pcg`): value-stable across platforms
//! (rand_pcg promises reproducible output), a 128-bit multiply per draw.

use std::num::NonZeroUsize;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
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

/// Resamples per interval by default.
pub const RESAMPLES: usize = 2000;

/// Whether and how intervals are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ci {
    /// Estimates only (each interval is the estimate itself).
    None,
    /// A paired percentile bootstrap with this many resamples.
    Bootstrap(NonZeroUsize),
}

impl Default for Ci {
    fn default() -> Self {
        // 2,000 resamples: enough for stable 2.5th and 97.5th percentiles.
        Ci::Bootstrap(NonZeroUsize::new(RESAMPLES).unwrap_or(NonZeroUsize::MIN))
    }
}

impl Ci {
    fn resamples(self) -> usize {
        match self {
            Ci::None => 0,
            Ci::Bootstrap(n) => n.get(),
        }
    }
}

/// One index of a resample of `n` items. Both paths draw through here, so they draw
/// the same indices. `n` fits in a `u32` (checked by the callers).
fn draw(rng: &mut Pcg64Mcg, n: u32) -> u32 {
    rng.random_range(0..n)
}

/// The episode count as the generator's range; more than 4 billion episodes in one
/// group is not something a report can hold.
fn range_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The interval around `value` from the resamples' statistics (in draw order).
fn percentiles(value: f64, mut draws: Vec<f64>) -> Interval {
    if draws.is_empty() {
        return Interval { value, lo: value, hi: value };
    }
    // Two selections instead of a sort: in `total_cmp`'s order only equal
    // bits compare equal, so the k-th draw is the same value either way.
    let mut q = |p: f64| {
        let k = ((p * (draws.len() - 1) as f64).round() as usize).min(draws.len() - 1);
        *draws.select_nth_unstable_by(k, f64::total_cmp).1
    };
    let lo = q(0.025);
    Interval { value, lo, hi: q(0.975) }
}

/// The reference paired bootstrap of `k` statistics over `n` items: `stat(j, ix)` is
/// statistic `j` of the items at indices `ix` (`None` when undefined, e.g. a rate with
/// no denominator). Every resample draws its `n` indices once and all `k` statistics are
/// computed on it. `None` for a statistic undefined on all items. Seeded, so the same
/// inputs give the same intervals.
pub fn bootstrap(
    n: usize,
    k: usize,
    ci: Ci,
    seed: u64,
    stat: impl Fn(usize, &[usize]) -> Option<f64>,
) -> Vec<Option<Interval>> {
    let all: Vec<usize> = (0..n).collect();
    let values: Vec<Option<f64>> = (0..k).map(|j| stat(j, &all)).collect();
    let mut draws = vec![Vec::new(); k];
    if n >= 2 {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut idx = vec![0usize; n];
        for _ in 0..ci.resamples() {
            for slot in idx.iter_mut() {
                *slot = draw(&mut rng, range_of(n)) as usize;
            }
            for (j, d) in draws.iter_mut().enumerate() {
                d.extend(stat(j, &idx));
            }
        }
    }
    values.into_iter().zip(draws).map(|(v, d)| v.map(|v| percentiles(v, d))).collect()
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

/// What a column needs: nothing (undefined), nothing more (every resample gives the
/// estimate), or its resamples.
enum Need {
    Undefined,
    Point(f64),
    Resample { value: f64, fold: Fold },
}

/// A column ready to be folded over a resample's indices.
enum Fold {
    /// Added in draw order, as the reference adds them.
    Mean(Vec<f64>),
    /// A mean of whole numbers whose every partial sum is exact in an `f64`: the sum in
    /// integers gives the same bits in any order, so it is read off the integer table.
    MeanOfInts {
        slot: usize,
    },
    /// A rate whose numerators and denominators are in the integer table.
    PooledInts {
        slot: usize,
    },
    Pooled(Vec<(u64, u64)>),
    /// Every value with its episode, in value order: a resample's quantile is found by
    /// walking it with the number of times each episode was drawn.
    Quantile {
        q: f64,
        sorted: Vec<(u64, u32)>,
        lens: Vec<usize>,
    },
}

fn ratio((a, b): (u64, u64)) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

fn rank(q: f64, len: usize) -> usize {
    ((q * (len - 1) as f64).round() as usize).min(len - 1)
}

impl Need {
    /// A column whose resamples can only give the estimate itself (every episode alike,
    /// or a rate whose numerators are all zero) is not resampled: the reference gives
    /// the same bits there (n copies of one value add up the same in any order).
    fn of(column: &Column) -> Need {
        let n = column.len();
        if n == 0 {
            return Need::Undefined;
        }
        match column {
            Column::Mean(v) => {
                let value = v.iter().sum::<f64>() / n as f64;
                if v.iter().all(|x| x.to_bits() == v[0].to_bits()) {
                    return Need::Point(value);
                }
                Need::Resample { value, fold: Fold::Mean(v.clone()) }
            }
            Column::Pooled(v) => {
                let Some(value) = ratio(v.iter().fold((0u64, 0u64), |(a, b), &(x, y)| (a + x, b + y))) else {
                    return Need::Undefined;
                };
                if v.iter().all(|p| *p == v[0]) || v.iter().all(|p| p.0 == 0) {
                    return Need::Point(value);
                }
                Need::Resample { value, fold: Fold::Pooled(v.clone()) }
            }
            Column::Quantile { q, values } => {
                let mut sorted: Vec<(u64, u32)> =
                    values.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |&x| (x, range_of(i)))).collect();
                sorted.sort_unstable();
                let Some(value) = sorted.get(rank(*q, sorted.len().max(1))).map(|p| p.0 as f64) else {
                    return Need::Undefined;
                };
                if sorted.iter().all(|p| p.0 == sorted[0].0) {
                    return Need::Point(value);
                }
                let lens = values.iter().map(Vec::len).collect();
                Need::Resample { value, fold: Fold::Quantile { q: *q, sorted, lens } }
            }
        }
    }
}

/// Width of the integer table: one row per episode, every integer column side by side,
/// so that a resample adds whole rows (a few vector adds per draw) instead of walking
/// its indices once per column. The 15 metrics use 19 slots (5 means, 7 rates).
const WIDTH: usize = 20;

/// Whether a mean column can be summed in integers: whole, non-negative (no `-0.0`)
/// values whose total stays below 2^53, where every partial sum in an `f64` is exact.
fn whole(v: &[f64]) -> Option<Vec<u64>> {
    let limit = (1u64 << 53) as f64 / v.len().max(1) as f64;
    v.iter().map(|&x| (x.fract() == 0.0 && x.is_sign_positive() && x < limit).then_some(x as u64)).collect()
}

/// `v` at `idx`, added in draw order from -0.0 as `Sum` starts (the reference's bits).
/// A function of its own keeps the running sum in a register (inlined into the
/// resample loop, it was written back to the stack on every draw).
#[inline(never)]
fn sum_in_order(v: &[f64], idx: &[u32]) -> f64 {
    let mut sum = -0.0;
    for &i in idx {
        sum += v[i as usize];
    }
    sum
}

impl Fold {
    /// Moves the column's integers into `rows` when there is room.
    fn into_table(self, rows: &mut [[u64; WIDTH]], used: &mut usize) -> Fold {
        match self {
            Fold::Mean(v) if *used < WIDTH => match whole(&v) {
                Some(ints) => {
                    for (row, x) in rows.iter_mut().zip(ints) {
                        row[*used] = x;
                    }
                    *used += 1;
                    Fold::MeanOfInts { slot: *used - 1 }
                }
                None => Fold::Mean(v),
            },
            Fold::Pooled(v) if *used + 2 <= WIDTH => {
                for (row, (a, b)) in rows.iter_mut().zip(v) {
                    row[*used] = a;
                    row[*used + 1] = b;
                }
                *used += 2;
                Fold::PooledInts { slot: *used - 2 }
            }
            other => other,
        }
    }

    /// The statistic on the resample `idx` (`times[i]`: how often episode `i` is in it;
    /// `sums`: the integer table's rows added over it).
    fn on(&self, idx: &[u32], times: &[u32], sums: &[u64; WIDTH]) -> Option<f64> {
        match self {
            Fold::Mean(v) => Some(sum_in_order(v, idx) / idx.len() as f64),
            Fold::MeanOfInts { slot } => Some(sums[*slot] as f64 / idx.len() as f64),
            Fold::PooledInts { slot } => ratio((sums[*slot], sums[*slot + 1])),
            Fold::Pooled(v) => ratio(idx.iter().fold((0u64, 0u64), |(a, b), &i| {
                let (x, y) = v[i as usize];
                (a + x, b + y)
            })),
            Fold::Quantile { q, sorted, lens } => {
                let len: usize = idx.iter().map(|&i| lens[i as usize]).sum();
                if len == 0 {
                    return None;
                }
                let k = rank(*q, len);
                let mut seen = 0usize;
                sorted
                    .iter()
                    .find(|&&(_, i)| {
                        seen += times[i as usize] as usize;
                        seen > k
                    })
                    .map(|p| p.0 as f64)
            }
        }
    }
}

/// [`bootstrap`] of the columns' statistics (all of one group, the same length): the
/// same intervals, bit for bit, computed without a closure per episode.
pub fn resampled(columns: &[Column], ci: Ci, seed: u64) -> Vec<Option<Interval>> {
    let n = columns.first().map_or(0, Column::len);
    debug_assert!(columns.iter().all(|c| c.len() == n), "columns of one group");
    let needs: Vec<Need> = columns.iter().map(Need::of).collect();
    let mut draws: Vec<Vec<f64>> = needs
        .iter()
        .map(|nd| match nd {
            Need::Resample { .. } => Vec::with_capacity(ci.resamples()),
            _ => Vec::new(),
        })
        .collect();
    let any = needs.iter().any(|nd| matches!(nd, Need::Resample { .. }));
    if n >= 2 && any {
        let mut rows = vec![[0u64; WIDTH]; n];
        let mut used = 0usize;
        let needs: Vec<Need> = needs
            .into_iter()
            .map(|nd| match nd {
                Need::Resample { value, fold } => Need::Resample { value, fold: fold.into_table(&mut rows, &mut used) },
                other => other,
            })
            .collect();
        let quantiles = needs.iter().any(|nd| matches!(nd, Need::Resample { fold: Fold::Quantile { .. }, .. }));
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut idx = vec![0u32; n];
        let mut times = vec![0u32; if quantiles { n } else { 0 }];
        for _ in 0..ci.resamples() {
            for slot in idx.iter_mut() {
                *slot = draw(&mut rng, range_of(n));
            }
            if quantiles {
                times.fill(0);
                for &i in &idx {
                    times[i as usize] += 1;
                }
            }
            let mut sums = [0u64; WIDTH];
            if used > 0 {
                // Wrapping as the reference's `+` does in a release build; no count
                // here comes near 2^64.
                for &i in &idx {
                    for (s, x) in sums.iter_mut().zip(&rows[i as usize]) {
                        *s = s.wrapping_add(*x);
                    }
                }
            }
            for (nd, d) in needs.iter().zip(draws.iter_mut()) {
                if let Need::Resample { fold, .. } = nd {
                    d.extend(fold.on(&idx, &times, &sums));
                }
            }
        }
        return finish(needs, draws);
    }
    finish(needs, draws)
}

fn finish(needs: Vec<Need>, draws: Vec<Vec<f64>>) -> Vec<Option<Interval>> {
    needs
        .into_iter()
        .zip(draws)
        .map(|(nd, d)| match nd {
            Need::Undefined => None,
            Need::Point(value) => Some(Interval { value, lo: value, hi: value }),
            Need::Resample { value, .. } => Some(percentiles(value, d)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_data_has_a_point_interval() {
        let i = bootstrap(10, 1, Ci::default(), 1, |_, ix| Some(ix.len() as f64 * 0.0 + 3.0));
        let i = i[0].unwrap();
        assert_eq!((i.value, i.lo, i.hi), (3.0, 3.0, 3.0));
    }

    #[test]
    fn interval_brackets_the_mean_and_is_deterministic() {
        let data: Vec<f64> = (0..50).map(|i| f64::from(i % 7)).collect();
        let mean = |_: usize, ix: &[usize]| Some(ix.iter().map(|&i| data[i]).sum::<f64>() / ix.len() as f64);
        let a = bootstrap(data.len(), 1, Ci::default(), 42, mean)[0].unwrap();
        let b = bootstrap(data.len(), 1, Ci::default(), 42, mean)[0].unwrap();
        assert_eq!(a, b);
        assert!(a.lo < a.value && a.value < a.hi, "{a:?}");
        assert!(a.hi - a.lo < 2.0);
    }

    #[test]
    fn undefined_statistic_gives_none() {
        assert!(bootstrap(5, 1, Ci::default(), 1, |_, _| None)[0].is_none());
    }

    #[test]
    fn no_intervals_gives_the_estimates() {
        let col = Column::Mean(vec![1.0, 2.0, 4.0]);
        let i = resampled(&[col], Ci::None, 3)[0].unwrap();
        assert_eq!((i.lo, i.hi), (i.value, i.value));
    }

    /// The generator's output is part of the printed intervals: pin its first draws
    /// so a change of generator or of `random_range` shows up here.
    #[test]
    fn the_draws_are_pinned() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let first: Vec<u32> = (0..6).map(|_| draw(&mut rng, 1000)).collect();
        assert_eq!(first, PINNED);
    }

    // From this build on x86_64 (Pcg64Mcg seeded with 7, `random_range(0..1000)`).
    const PINNED: [u32; 6] = [579, 117, 406, 384, 561, 331];
}
