use super::*;

/// The labelled lines of `hitl/data/stop_lines.tsv`.
const LINES: &str = include_str!("../../data/stop_lines.tsv");

fn labelled() -> Vec<(&'static str, &'static str)> {
    LINES
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once('\t').unwrap_or_else(|| panic!("stop_lines.tsv: no tab in {l:?}")))
        .collect()
}

#[test]
fn every_labelled_line_gets_its_label() {
    let set = labelled();
    assert!(set.len() >= 60, "{} lines", set.len());
    let mut wrong = Vec::new();
    for (label, line) in &set {
        let got = halt(line);
        let ok = match *label {
            "stop" => got == Halt::Stop,
            "then" => got == Halt::StopThen,
            "go" => got == Halt::GoOn,
            "not" => !is_halt(line),
            other => panic!("stop_lines.tsv: unknown label {other:?}"),
        };
        if !ok {
            wrong.push(format!("{label}\t{line}\t-> {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), set.len(), wrong.join("\n"));
}

#[test]
fn stop_recall_holds_under_case_punctuation_and_politeness() {
    // Every stop line of the file, shouted, with politeness around it, with a trailing
    // clause: still a halt.
    for (label, line) in labelled() {
        if label != "stop" {
            continue;
        }
        for v in [
            line.to_uppercase(),
            format!("please {line}"),
            format!("{line}!!"),
            format!("hey, {line}, thanks"),
            format!("{line}, this is wrong"),
        ] {
            assert!(is_halt(&v), "{v:?} (from {line:?}) is not a halt");
        }
    }
}

#[test]
fn quotes_are_mentions_but_apostrophes_are_not_quotes() {
    assert_eq!(halt("what does \u{201c}freeze\u{201d} mean"), Halt::None);
    assert_eq!(halt("the sign says \"stop\". ok, stop"), Halt::Stop, "the halt outside the quotes counts");
    assert_eq!(halt("don't stop"), Halt::GoOn);
}

/// Prints the rule's verdict on the `|`-separated lines of `PROBE` (a debugging aid:
/// `PROBE='hold up|why did you stop' cargo test -p gatecrew-hitl --lib probe -- --ignored --nocapture`).
#[test]
#[ignore = "a debugging aid"]
fn probe() {
    for l in std::env::var("PROBE").unwrap_or_default().split('|') {
        eprintln!("{:?}\t{l}", halt(l));
    }
}
