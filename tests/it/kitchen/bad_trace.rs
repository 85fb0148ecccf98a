//! Damaged kitchen traces: `gatecrew analyze` refuses each with `file:line` and what is
//! wrong there (as it does construction traces, tests/bad_input), skips a truncated last
//! line with a warning, and never panics.

use std::path::{Path, PathBuf};

use gatecrew_kitchen::trace::TraceDir;
use gatecrew_kitchen::{PolicyKind, RunSpec, cos_table_traced};

use super::common::cuisine;

fn analyze(path: &Path) -> (u8, String, String) {
    let argv = ["gatecrew", "analyze", path.to_str().unwrap(), "--json"];
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = gatecrew_cli::main_with(argv, &mut o, &mut e);
    let code = if code == std::process::ExitCode::SUCCESS {
        0
    } else if code == std::process::ExitCode::from(2) {
        2
    } else {
        1
    };
    (code, String::from_utf8(o).unwrap(), String::from_utf8(e).unwrap())
}

/// A good trace of one gated episode on level_0 (two agents, factor 1), as lines.
fn good_lines(dir: &Path) -> Vec<String> {
    let levels = ["level_0".to_owned()];
    let traces = TraceDir::create(&dir.join("good")).unwrap();
    cos_table_traced(&cuisine(), Some(&levels), &[PolicyKind::Gated], &[2], &RunSpec::new(2, 0), &traces).unwrap();
    let text = std::fs::read_to_string(dir.join("good/level_0-gated-a2-x1-file-scripted-s0.jsonl")).unwrap();
    text.lines().map(str::to_owned).collect()
}

/// The 1-based number of the first line holding `needle`.
fn line_of(lines: &[String], needle: &str) -> usize {
    lines.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line with {needle}")) + 1
}

fn write(dir: &Path, name: &str, lines: &[String], newline_at_end: bool) -> PathBuf {
    let mut text = lines.join("\n");
    if newline_at_end {
        text.push('\n');
    }
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_damaged_kitchen_trace_is_refused_with_its_file_line_and_fault() {
    let dir = tempfile::tempdir().unwrap();
    let good = good_lines(dir.path());
    let p = write(dir.path(), "intact.jsonl", &good, true);
    let (code, _, err) = analyze(&p);
    assert_eq!(code, 0, "the intact trace reads: {err}");

    let end = good.len();
    for (p, at, want) in damaged(dir.path(), &good) {
        let (code, out, err) = analyze(&p);
        let name = p.display();
        assert_eq!(code, 2, "{name}: {out}{err}");
        let located = format!("{}:{at}: ", p.display());
        assert!(err.contains(&located), "{name}: the error names {located}: {err}");
        assert!(err.contains(want), "{name}: the error says {want:?}: {err}");
    }

    // A line cut mid-way by a crash: skipped with a warning, and the episode it ends
    // has no kitchen_end, so it is left out; nothing else to report (exit 2).
    let mut cut = good.clone();
    let last = cut.pop().unwrap();
    cut.push(last[..last.len() / 2].to_owned());
    let p = write(dir.path(), "truncated.jsonl", &cut, false);
    let (code, _, err) = analyze(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{}:{end}: truncated last line", p.display())), "{err}");
    assert!(err.contains("has no kitchen_end (cut short)"), "{err}");

    // A byte that is not UTF-8.
    let mut bytes = std::fs::read(dir.path().join("intact.jsonl")).unwrap();
    let second = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes[second + 10] = 0xff;
    let p = dir.path().join("invalid_utf8.jsonl");
    std::fs::write(&p, bytes).unwrap();
    let (code, _, err) = analyze(&p);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("{}:2: not UTF-8 at byte 11", p.display())), "{err}");
}

/// The `kitchen_end` line with one more order completed than its events show.
fn inflate_completed(end: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(end).unwrap();
    let n = v["completed"].as_u64().unwrap();
    end.replacen(&format!(r#""completed":{n},"#), &format!(r#""completed":{},"#, n + 1), 1)
}

/// Writes one damaged copy of `good` per case into `dir`: (file, the line at fault,
/// what the error must say).
fn damaged(dir: &Path, good: &[String]) -> Vec<(PathBuf, usize, &'static str)> {
    let action = line_of(good, r#""kind":"action""#);
    let arrived = line_of(good, r#""kind":"order_arrived""#);
    let completed = line_of(good, r#""kind":"order_completed""#);
    let end = good.len();
    // (file, the line to change, its replacement, the error's text)
    let cases: Vec<(&str, usize, String, &'static str)> = vec![
        (
            "agent_is_text.jsonl",
            action,
            good[action - 1].replace(r#""agent":0"#, r#""agent":"zero""#),
            "invalid type: string \"zero\"",
        ),
        ("garbage.jsonl", 5, "{\"v\":1,\"ep\":".to_owned(), "malformed kitchen event: EOF while parsing"),
        (
            "version_2.jsonl",
            7,
            good[6].replace(r#"{"v":1,"#, r#"{"v":2,"#),
            "kitchen trace schema version 2 is not supported",
        ),
        (
            "unknown_kind.jsonl",
            action,
            good[action - 1].replace(r#""kind":"action""#, r#""kind":"teleport""#),
            "unknown variant `teleport`",
        ),
        (
            "no_such_agent.jsonl",
            action,
            good[action - 1].replace(r#""agent":0"#, r#""agent":7"#),
            "agent 7 in a crew of 2",
        ),
        (
            "step_backwards.jsonl",
            completed,
            good[completed - 1].replace(r#""step":"#, r#""step":0,"old_step":"#),
            "after step",
        ),
        ("order_twice.jsonl", arrived + 1, good[arrived - 1].clone(), "order 0 arrived twice"),
        ("end_inflated.jsonl", end, inflate_completed(&good[end - 1]), "kitchen_end says completed"),
    ];
    cases
        .into_iter()
        .map(|(name, at, replacement, want)| {
            let mut lines = good.to_vec();
            if name == "order_twice.jsonl" {
                lines.insert(at - 1, replacement);
            } else {
                lines[at - 1] = replacement;
            }
            (write(dir, name, &lines, true), at, want)
        })
        .collect()
}

/// `gatecrew check` reads kitchen traces with the kitchen's reader and fold: the intact
/// trace is `ok`, every damaged one is named with the same line and fault as `analyze`
/// names, and what `analyze` only warns about (a truncated last line, an episode cut
/// short) is a defect here, since `check` asks whether the file is whole.
#[test]
fn check_names_the_line_and_fault_of_a_damaged_kitchen_trace() {
    let dir = tempfile::tempdir().unwrap();
    let good = good_lines(dir.path());
    let p = write(dir.path(), "intact.jsonl", &good, true);
    let (code, out, err) = crate::cli::gatecrew(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.trim(), format!("{}: ok", p.display()));
    for (p, at, want) in damaged(dir.path(), &good) {
        let (code, out, err) = crate::cli::gatecrew(&["check", p.to_str().unwrap()]);
        let name = p.display();
        assert_eq!(code, 2, "{name}: {out}{err}");
        let located = format!("{}:{at}: error: ", p.display());
        assert!(err.contains(&located), "{name}: the error names {located}: {err}");
        assert!(err.contains(want), "{name}: the error says {want:?}: {err}");
    }
    let mut cut = good.clone();
    let last = cut.pop().unwrap();
    cut.push(last[..last.len() / 2].to_owned());
    let p = write(dir.path(), "truncated.jsonl", &cut, false);
    let (code, _, err) = crate::cli::gatecrew(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{}:{}: error: truncated last line", p.display(), good.len())), "{err}");
    assert!(err.contains("has no kitchen_end (cut short)"), "{err}");
    // Two episodes in one file, the first without its end: cut short, named.
    let mut two = good[..good.len() - 1].to_vec();
    two.extend(good.iter().cloned());
    let p = write(dir.path(), "two.jsonl", &two, true);
    let (code, _, err) = crate::cli::gatecrew(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no kitchen_end (cut short)"), "{err}");
}
