//! Whole-number flags in a range: one parser for every count, duration and limit a
//! command line gives, so that "-1", "1.5", "1e400" and digits past `u64` get the same
//! answer as a number just past the bound, the flag's range, instead of clap's
//! "invalid digit" or "too large" without it.

/// A parser of whole numbers from `lo` to `hi` (inclusive) into `T`.
pub fn between<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64> + Send + Sync + Clone + 'static,
{
    move |s: &str| {
        let refused = || format!("{s} is not in {lo}..={hi} (a whole number from {lo} to {hi})");
        let n: u64 = s.trim().parse().map_err(|_| refused())?;
        if !(lo..=hi).contains(&n) {
            return Err(refused());
        }
        T::try_from(n).map_err(|_| refused())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_outside_the_range_names_the_range() {
        let p = between::<u32>(1, 10_000);
        assert_eq!(p("1"), Ok(1));
        assert_eq!(p("10000"), Ok(10_000));
        for bad in ["0", "10001", "-1", "1.5", "1e400", "1e3", "nan", "inf", "", "18446744073709551616", "x"] {
            let e = p(bad).unwrap_err();
            assert!(e.contains("1..=10000") && e.contains("from 1 to 10000"), "{bad}: {e}");
        }
        // The range fits the type: a u16 flag up to its own maximum.
        assert_eq!(between::<u16>(0, 65_535)("65535"), Ok(65_535));
    }
}
