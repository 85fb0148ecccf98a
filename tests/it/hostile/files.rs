//! Small files that asked for unbounded memory or time.

use std::path::Path;

use gatecrew_world::Blueprint;

use crate::cli::gatecrew;
use crate::common::data;

fn blocks(n: usize) -> String {
    let mut s = String::from("name = \"many blocks\"\n");
    for i in 0..n {
        s.push_str(&format!("[[block]]\nat = [{}, 0, {}]\nblock = \"dirt\"\n", i % 300, i / 300));
    }
    s
}

// Loading `[[block]]`s is linear in their number. That is a speed, so it is measured by
// `cargo bench -p gatecrew-benches --bench blueprint`, not asserted here.

/// The total-cell limit is configurable: a lower one refuses a blueprint the default
/// accepts, naming the entry that crossed it.
#[test]
fn the_blueprint_cell_limit_is_configurable() {
    let text = blocks(10);
    assert!(Blueprint::parse_with_limit(&text, Path::new("b.toml"), &data(), 10).is_ok());
    let e = Blueprint::parse_with_limit(&text, Path::new("b.toml"), &data(), 9).unwrap_err();
    assert_eq!(e.line_number(), Some(30), "{e}");
    assert!(e.to_string().contains("GATECREW_MAX_BLUEPRINT_CELLS"), "{e}");
}

/// A blueprint file past the size limit is refused before it is read: parsing one costs
/// many times its size in memory before its cells are counted (docs/faults.md).
#[test]
fn an_oversized_blueprint_file_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.toml");
    let f = std::fs::File::create(&p).unwrap();
    // Sparse: 5 MiB of nothing, read by nobody.
    f.set_len(5 << 20).unwrap();
    let e = Blueprint::load(&p, &data()).unwrap_err().to_string();
    assert!(e.contains("more than the limit of 4194304") && e.contains("GATECREW_MAX_BLUEPRINT_BYTES"), "{e}");
}

/// `--jobs` is capped at a small multiple of the cores, with a clear error (exit 2)
/// before anything starts.
#[test]
fn jobs_beyond_a_few_per_core_are_refused() {
    for cmd in [&["soak", "--episodes", "1"][..], &["suite", "run"][..], &["calibrate"][..]] {
        let mut args = cmd.to_vec();
        args.extend(["--jobs", "100000"]);
        let (code, _, err) = gatecrew(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("more than 4 per core"), "{args:?}: {err}");
    }
}

/// Every file gatecrew reads whole (configs, scripts, grids, manifests, labelled
/// utterances, cards, game data) is read through one limit: a file past it, or one that
/// never ends (`/dev/zero`, which reports a size of 0), is refused with its name and
/// the variable that raises the limit, after reading at most the limit. Before, each was
/// read whole: `/dev/zero` as a config filled memory until the process was killed.
#[test]
fn files_read_whole_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    // Sparse: 9 MiB of nothing, one more MiB than the 8 MiB default.
    std::fs::File::create(&big).unwrap().set_len(9 << 20).unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    std::fs::File::create(suite.join("suite.toml")).unwrap().set_len(9 << 20).unwrap();
    let big = big.to_str().unwrap();
    let suite = suite.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", "--config", big],
        vec!["run", "--config", "/dev/zero"],
        vec!["run", "--stepper", "--interactive", "--script", big],
        vec!["calibrate", "--grid", big],
        vec!["suite", "run", "--suite", suite],
        vec!["hitl-eval", "--utterances", big],
        vec!["check", big],
        vec!["adjudicate", "--card", big],
        // Task files are streamed (memory is bounded by one task) but were read without
        // end: the walk stops at its own limit.
        vec!["run", "--task", "/dev/zero"],
    ];
    for args in cases {
        let (code, _, err) = gatecrew(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("GATECREW_MAX_FILE_BYTES") || err.contains("GATECREW_MAX_TASK_FILE_BYTES"),
            "{args:?}: {err}"
        );
        let named = args.last().unwrap();
        assert!(err.contains(named) || err.contains("suite.toml"), "{args:?} does not name the file: {err}");
    }
}
