//! Lost or damaged output: an interactive run with a bad flag keeps an existing trace;
//! a trace in progress is `*.partial`; `analyze` and `check` name empty and cut-short
//! traces and leave them out; `analyze runs/` skips calibrate's `points.jsonl`.

use crate::cli::gatecrew;
use crate::common::{default_config, write};

const WHOLE: &str = r#"{"v":1,"ep":"e1","t":0,"kind":"episode_start","policy":"gated","seed":1,"config_hash":"x","agents":[0,1],"blueprint_blocks":1,"class":"A"}
{"v":1,"ep":"e1","t":3,"kind":"action","agent":0,"action":"place","ok":true}
{"v":1,"ep":"e1","t":4,"kind":"episode_end","tsr":1.0,"complete":true,"correct_blocks":1,"blueprint_blocks":1,"reason":"complete"}
"#;

fn cut_short() -> String {
    WHOLE.lines().take(2).map(|l| format!("{}\n", l.replace("e1", "e9"))).collect()
}

/// A typo in `--partner` leaves yesterday's trace whole: a run that never starts must
/// not truncate it.
#[test]
fn a_bad_interactive_flag_keeps_the_existing_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "t.jsonl", WHOLE);
    let script = write(dir.path(), "s.txt", "0 make a bed\n");
    let cfg = default_config();
    for extra in [&["--partner", "99"][..], &["--partner", "0", "--script", "/nonexistent/script.txt"][..]] {
        let mut args = vec!["run", "--config", cfg.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--quiet"];
        args.extend(["--interactive", "--no-memory"]);
        if !extra.contains(&"--script") {
            args.extend(["--script", script.to_str().unwrap()]);
        }
        args.extend(extra);
        let (code, _, err) = gatecrew(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), WHOLE, "the old trace is intact");
        assert!(!dir.path().join("t.jsonl.partial").exists());
    }
}

/// A run writes `TRACE.partial` and renames it when the episode has ended: an
/// existing trace of that name is replaced only by a complete one.
#[test]
fn a_finished_run_replaces_the_trace_and_leaves_no_partial() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "t.jsonl", "old\n");
    let (code, _, err) = crate::hostile::default_run(&trace, &[]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.lines().last().unwrap().contains("\"episode_end\""), "{text}");
    assert!(!dir.path().join("t.jsonl.partial").exists());
}

#[test]
fn analyze_names_empty_and_cut_short_traces_and_leaves_them_out() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "runs/a.jsonl", WHOLE);
    write(dir.path(), "runs/empty.jsonl", "");
    write(dir.path(), "runs/cut.jsonl", &cut_short());
    let runs = dir.path().join("runs");
    let (code, out, err) = gatecrew(&["analyze", runs.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["episodes"], 1, "only the whole episode counts: {out}");
    assert!(err.contains("empty.jsonl: empty trace (0 bytes), left out"), "{err}");
    assert!(err.contains("cut.jsonl: episode e9 has no episode_end"), "{err}");
    for (name, text, want) in
        [("empty.jsonl", "", "empty trace"), ("cut.jsonl", cut_short().as_str(), "episode e9 has no episode_end")]
    {
        let f = write(dir.path(), name, text);
        let (code, out, err) = gatecrew(&["check", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        let (code, _, err) = gatecrew(&["analyze", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
    }
}

/// `calibrate` streams its points into `points.jsonl`; under `runs/` it is skipped
/// with a word, not an error that stops the analysis.
#[test]
fn analyze_skips_calibrates_points_under_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "runs/gated/a.jsonl", WHOLE);
    write(dir.path(), "runs/cal/points.jsonl", "{\"index\":0,\"params\":{\"w\":1.0},\"score\":{\"j\":0.5}}\n");
    let runs = dir.path().join("runs");
    let (code, out, err) = gatecrew(&["analyze", runs.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["episodes"], 1);
    assert!(err.contains("points.jsonl: not a trace"), "{err}");
    // Named on its own, it is an error: the user asked for that file.
    let (code, _, _) = gatecrew(&["analyze", dir.path().join("runs/cal/points.jsonl").to_str().unwrap()]);
    assert_eq!(code, 2);
}
