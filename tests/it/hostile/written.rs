//! Output files replaced whole: an export killed at any point leaves the previous
//! tables byte for byte, and the next export takes over the dead writer's lock; two
//! runs on one `--trace` exclude each other, the second told who holds it.

use std::process::Command;
use std::time::Duration;

use gatecrew_protocol::replace::Replacement;

use crate::cli::gatecrew;
use crate::hostile::default_run;

const CHILD_DIR: &str = "GATECREW_WRITTEN_TEST_DIR";

fn export(dir: &std::path::Path) -> (u8, String, String) {
    let (traces, out) = (dir.join("traces"), dir.join("out"));
    gatecrew(&["export", traces.to_str().unwrap(), "--out", out.to_str().unwrap(), "--format", "csv"])
}

fn tables(dir: &std::path::Path) -> Vec<Vec<u8>> {
    ["episodes.csv", "events.csv"].iter().map(|n| std::fs::read(dir.join("out").join(n)).unwrap()).collect()
}

#[test]
fn an_export_killed_at_any_point_leaves_the_old_tables_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("traces")).unwrap();
    let first = dir.path().join("traces/t0.jsonl");
    let (code, _, err) = default_run(&first, &[]);
    assert_eq!(code, 0, "{err}");
    // Enough copies that an export takes a while, so the kills land all along it.
    for i in 1..40 {
        std::fs::copy(&first, dir.path().join(format!("traces/t{i}.jsonl"))).unwrap();
    }
    let (code, _, err) = export(dir.path());
    assert_eq!(code, 0, "{err}");
    let before = tables(dir.path());
    // Kill times spread over the export's length, seeded so a failure repeats.
    let mut state = 0x9e37_79b9_u64;
    for _ in 0..12 {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let after = Duration::from_millis(20 + (state >> 33) % 600);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["hostile::written::child_process", "--exact", "--include-ignored", "--test-threads", "1"])
            .env(CHILD_DIR, dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(after);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(tables(dir.path()), before, "killed after {after:?}: a table changed");
    }
    // The dead writers' locks are the kernel's, gone with them: the next export runs.
    let (code, _, err) = export(dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(tables(dir.path()), before);
    let left: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The child, started and killed by the test above; ignored on its own.
#[test]
#[ignore = "the child of an_export_killed_at_any_point_leaves_the_old_tables_whole"]
fn child_process() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    let dir = std::path::PathBuf::from(dir);
    loop {
        export(&dir);
    }
}

/// While one run writes a trace, a second run with the same `--trace` is refused
/// before touching anything, and says which process holds it.
#[test]
fn a_second_writer_of_one_trace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    std::fs::write(&trace, "yesterday\n").unwrap();
    let mut holder = Replacement::begin(&trace).unwrap();
    holder.keep_partial();
    std::fs::write(holder.temp(), "the other run's events\n").unwrap();
    let (code, _, err) = default_run(&trace, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("t.jsonl is being written by another process"), "{err}");
    assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
    assert_eq!(std::fs::read_to_string(holder.temp()).unwrap(), "the other run's events\n");
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), "yesterday\n");
    drop(holder);
    let (code, _, err) = default_run(&trace, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&trace).unwrap().contains("episode_end"));
}
