//! `--json` on every reporting command: `suite generate`, `suite run` and `check` print
//! one JSON object of a documented shape (`calibrate --json` is tested in
//! `calibrate::`); `adjudicate --llm-timeout-ms` bounds the call as `run`'s flag does.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::gatecrew;
use crate::common::{root, write};
use crate::llm::fake::{Fake, Reply};

fn one_object(out: &str) -> Value {
    assert_eq!(out.lines().count(), 1, "one line of JSON: {out}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn suite_generate_and_run_print_json() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    let (code, out, err) = gatecrew(&["suite", "generate", "--out", suite.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = one_object(&out);
    let n = v["episodes"].as_u64().unwrap();
    let splits = &v["splits"];
    let by_split: u64 = ["calibration", "test", "standard"].iter().map(|s| splits[s].as_u64().unwrap()).sum();
    assert_eq!(by_split, n, "{v}");
    let by_class: u64 = ["A", "B", "C", "D"].iter().map(|c| v["classes"][c].as_u64().unwrap()).sum();
    assert_eq!(by_class, n - splits["standard"].as_u64().unwrap(), "every non-standard episode has a class: {v}");
    assert_eq!(v["suite_version"], 1);
    assert!(suite.join("suite.toml").is_file() && v["out"] == suite.display().to_string());

    let runs = dir.path().join("runs");
    let (code, out, err) = gatecrew(&[
        "suite",
        "run",
        "--suite",
        root().join("configs/suite").to_str().unwrap(),
        "--split",
        "test",
        "--filter",
        "pyramid-5",
        "--policy",
        "gated,no_gate",
        "--jobs",
        "2",
        "--out",
        runs.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = one_object(&out);
    let policies = v["policies"].as_array().unwrap();
    assert_eq!(policies.iter().map(|p| p["policy"].as_str().unwrap()).collect::<Vec<_>>(), ["gated", "no_gate"]);
    let per: u64 = policies.iter().map(|p| p["episodes"].as_u64().unwrap()).sum();
    assert!(per > 0 && per == v["episodes"].as_u64().unwrap(), "{v}");
    for p in policies {
        let tsr = p["tsr"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&tsr), "{p}");
        for k in ["cs", "msg", "complete_share"] {
            assert!(p[k].is_number(), "{k}: {p}");
        }
        for k in ["lrr", "uer", "ecr", "rsr"] {
            assert!(p[k].is_number() || p[k].is_null(), "{k}: {p}");
        }
    }
    // The figures are analyze's over the same traces.
    let (code, analyzed, err) =
        gatecrew(&["analyze", runs.to_str().unwrap(), "--json", "--by", "policy", "--ci", "none"]);
    assert_eq!(code, 0, "{err}");
    assert!(analyzed.contains("\"gated\""), "{analyzed}");
}

#[test]
fn check_prints_every_files_errors_warnings_and_note_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let good = root().join("configs/crew.toml");
    let bad = write(dir.path(), "bad.toml", "[episode]\nseed = \"seven\"\n");
    let task = root().join("tests/fixtures/external/minecollab/pyramid.json");
    let (code, out, err) =
        gatecrew(&["check", "--json", good.to_str().unwrap(), bad.to_str().unwrap(), task.to_str().unwrap()]);
    assert_eq!(code, 2, "a file with errors: exit 2 as without --json: {err}");
    assert!(err.contains("1 of 3 files have errors"), "{err}");
    assert!(!err.contains("note:"), "the note is in the JSON: {err}");
    let v = one_object(&out);
    assert_eq!((v["checked"].as_u64(), v["with_errors"].as_u64()), (Some(3), Some(1)), "{v}");
    let files = v["files"].as_array().unwrap();
    assert_eq!(files[0]["ok"], true);
    assert_eq!(files[0]["kind"], "config");
    assert_eq!(files[1]["ok"], false);
    assert_eq!(files[1]["errors_total"], 1);
    let e = &files[1]["errors"][0];
    assert_eq!(e["line"], 2, "{e}");
    assert!(e["message"].as_str().unwrap().contains("seven"), "{e}");
    assert_eq!(files[2]["kind"], "task");
    assert!(files[2]["note"].as_str().unwrap().contains("tasks;"), "{}", files[2]);
    assert!(files[2]["warnings_total"].as_u64().unwrap() >= files[2]["warnings"].as_array().unwrap().len() as u64);
    // The lines say the same.
    let (code, out, err) = gatecrew(&["check", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.contains("crew.toml: ok"), "{out}");
    assert!(err.contains("bad.toml:2: error:"), "{err}");
}

#[test]
fn adjudicate_gives_up_after_its_timeout_as_a_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let card = gatecrew_gating::DecisionCard::new(
        gatecrew_protocol::trace::IssueName::MissingMaterial,
        Some("glass".into()),
        Some(2),
        gatecrew_gating::Features::new(3, 1, 3, 0, 0).unwrap(),
        0.8667,
    );
    let card = write(dir.path(), "card.json", &card.to_json());
    let hang = Fake::start(|_, _| Reply::Hang);
    for flag in ["--llm-timeout-ms", "--timeout-ms"] {
        let started = Instant::now();
        let (code, out, err) = gatecrew(&[
            "adjudicate",
            "--card",
            card.to_str().unwrap(),
            "--llm-url",
            &hang.url,
            "--model",
            "m",
            flag,
            "300",
            "--json",
        ]);
        let took = started.elapsed();
        assert_eq!(code, 1, "the fallback decided: {err}");
        let v = one_object(&out);
        assert_eq!(v["fallback"], "timeout", "{v}");
        assert_eq!(v["timeout_ms"], 300, "{v}");
        // The default is 2 s; the server hangs for 60.
        assert!(took < Duration::from_millis(1900), "{flag} 300 took {took:?}");
    }
    let (code, _, err) = gatecrew(&["adjudicate", "--card", card.to_str().unwrap(), "--llm-timeout-ms", "0"]);
    assert_eq!(code, 2, "{err}");
}
