//! The fuzz corpus on stable: every committed corpus input (`fuzz/corpus/<target>/`) and
//! every crash reproducer (`fuzz/regressions/<target>/`) through the harness the fuzz
//! target runs. This is CI's smoke of the fuzzers; docs/fuzzing.md runs them for real.

mod regressions;

use std::path::{Path, PathBuf};

use crate::common::root;

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

/// Runs every file under `fuzz/<kind>/<target>/`; returns how many ran.
fn replay(kind: &str) -> usize {
    let mut ran = 0;
    for (name, harness) in gatecrew_fuzzing::TARGETS {
        for file in inputs(&root().join("fuzz").join(kind).join(name)) {
            let bytes = std::fs::read(&file).unwrap();
            // Name the input that failed: the panic itself only names the assertion.
            let outcome = std::panic::catch_unwind(|| harness(&bytes));
            assert!(
                outcome.is_ok(),
                "{name}: {} fails (reproduce: cargo +nightly fuzz run {name} {})",
                file.display(),
                file.display()
            );
            ran += 1;
        }
    }
    ran
}

#[test]
fn every_corpus_input_passes_its_harness() {
    let ran = replay("corpus");
    // Every target has a committed corpus: an empty folder would make this test vacuous.
    for (name, _) in gatecrew_fuzzing::TARGETS {
        assert!(!inputs(&root().join("fuzz/corpus").join(name)).is_empty(), "fuzz/corpus/{name} is empty");
    }
    assert!(ran >= gatecrew_fuzzing::TARGETS.len());
}

#[test]
fn every_crash_reproducer_stays_fixed() {
    assert!(replay("regressions") >= 1, "the reproducers of fixed crashes are missing");
}

#[test]
fn every_target_has_a_fuzz_binary_and_a_dictionary() {
    for (name, _) in gatecrew_fuzzing::TARGETS {
        let target = root().join(format!("fuzz/fuzz_targets/{name}.rs"));
        let text = std::fs::read_to_string(&target).unwrap();
        assert!(
            text.contains(&format!("gatecrew_fuzzing::{name}(data)")),
            "{} does not run its harness",
            target.display()
        );
        assert!(root().join(format!("fuzz/dicts/{name}.dict")).is_file(), "no dictionary for {name}");
    }
}
