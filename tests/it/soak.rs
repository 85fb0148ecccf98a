//! `gatecrew soak` end to end: faulted suite episodes on both runtimes, every count of
//! what must never happen at zero, and the faults really injected.

use crate::cli::gatecrew;

#[test]
fn a_short_soak_finds_nothing_and_injects_every_fault() {
    let (code, out, err) = gatecrew(&["soak", "--episodes", "120", "--actors-every", "12", "--json", "--seed", "3"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for key in ["conservation_violations", "other_violations", "escaped_panics", "deadlocks", "runtime_mismatches"] {
        assert_eq!(r[key], 0, "{key}: {r}");
    }
    assert_eq!(r["episodes"], 120);
    assert_eq!(r["actor_runs"], 10);
    for key in ["restarts", "message_faults", "fallbacks"] {
        assert!(r[key].as_u64().unwrap() > 0, "no {key} happened: {r}");
    }
    assert!(r["peak_rss_kib_end"].as_u64().unwrap() > 0, "memory was sampled");
    // The soak fails itself when memory grows past its limit (checked, not only shown);
    // in-process, other tests share the heap, hence the default's 64 MiB of room.
    assert_eq!(r["memory_growing"], false, "{r}");
    assert!(r["rss_growth_kib"].is_i64(), "{r}");
}

#[test]
fn a_soak_of_nothing_is_bad_input() {
    let (code, _, err) = gatecrew(&["soak", "--episodes", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to soak"), "{err}");
}
