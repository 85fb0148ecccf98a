//! `--jobs N`: worker threads, at most a small multiple of the cores. `--jobs 100000`
//! spawned threads until the machine's load reached thousands.

/// How many workers per core `--jobs` may ask for: episodes are CPU-bound, so more than
/// a few per core only adds switching; four leaves room for a core count the machine
/// under-reports (containers).
pub const JOBS_PER_CORE: usize = 4;

/// The cores this process may use (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The most `--jobs` accepts here.
pub fn max_jobs() -> usize {
    cores().saturating_mul(JOBS_PER_CORE)
}

/// Parses `--jobs`: a whole number in `1..=max_jobs()`.
pub fn parse(s: &str) -> Result<usize, String> {
    let max = max_jobs();
    let n: usize = s.trim().parse().map_err(|_| format!("\"{s}\" is not a whole number from 1 to {max}"))?;
    check(n, max)
}

fn check(n: usize, max: usize) -> Result<usize, String> {
    if n == 0 {
        return Err("at least 1 worker".into());
    }
    if n > max {
        return Err(format!(
            "{n} workers is more than {JOBS_PER_CORE} per core ({max} on the {} cores here)",
            max / JOBS_PER_CORE
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_are_capped_at_a_small_multiple_of_the_cores() {
        assert_eq!(check(8, 8), Ok(8));
        assert!(check(9, 8).unwrap_err().contains("more than 4 per core (8 on the 2 cores"));
        assert!(check(0, 8).is_err());
        assert!(parse("100000").is_err());
        assert!(parse("-1").is_err());
        assert_eq!(parse("1"), Ok(1));
    }
}
