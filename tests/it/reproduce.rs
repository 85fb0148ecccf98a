//! `gatecrew reproduce 004` end to end on a few episodes of suite v2: the document has
//! every table with its paired differences, the episode counts and the commands; under
//! `--bots model` every run's bots ask the model (an in-process fake endpoint) and the
//! whole reproduction replays from its traces with `--replay-model`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gatecrew_protocol::trace::EventKind;

use crate::llm::fake::Fake;
use crate::llm::{MODEL, gatecrew, trace};

const TABLES: [&str; 7] = ["Table 2:", "Table 3:", "Table 4:", "Table 7:", "Table 8:", "Table 9:", "Table 10:"];

fn ok(args: &[&str]) -> String {
    let (code, out, err) = gatecrew(args);
    assert_eq!(code, 0, "gatecrew {args:?}:\n{out}\n{err}");
    out
}

/// The document's section whose heading starts with `title`.
fn section<'a>(doc: &'a str, title: &str) -> &'a str {
    let start = doc.find(&format!("\n## {title}")).unwrap_or_else(|| panic!("no section {title}:\n{doc}"));
    let rest = &doc[start + 4..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// Every trace under `dir`, by its path there.
fn traces(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut m = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                m.insert(p.strip_prefix(dir).unwrap().to_owned(), std::fs::read(&p).unwrap());
            }
        }
    }
    m
}

#[test]
fn the_paper_is_reproduced_table_by_table_on_a_filter_of_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let (runs, doc) = (dir.path().join("runs"), dir.path().join("docs/paper-004.md"));
    // One template: five test episodes and its standard-split episode.
    let filter = "04-pyramid-5";
    let out = ok(&[
        "reproduce",
        "004",
        "--filter",
        filter,
        "--out",
        runs.to_str().unwrap(),
        "--doc",
        doc.to_str().unwrap(),
        "--ci",
        "200",
    ]);
    let text = std::fs::read_to_string(&doc).unwrap();
    // One verdict per table on the terminal and under Findings.
    let findings = section(&text, "Findings");
    for t in TABLES {
        let t = t.trim_end_matches(':');
        assert!(out.lines().any(|l| l.starts_with(&format!("{t} ("))), "{t} has no verdict:\n{out}");
        assert!(findings.contains(&format!("- {t} (")), "{t} not under Findings:\n{findings}");
        section(&text, &format!("{t}:"));
    }
    assert!(text.contains("with scripted bots"), "{text}");
    // The paired differences, over the five episodes every policy ran.
    let t2 = section(&text, "Table 2:");
    assert!(t2.contains("Paired differences"), "{t2}");
    assert!(t2.contains("| MindCraft | custom | 5 |") && t2.contains("| VillagerAgent | standard | 1 |"), "{t2}");
    assert!(section(&text, "Table 3:").contains("Paired differences, gated variant less baseline"));
    assert!(section(&text, "Table 4:").contains("| rules -> rules + score |"));
    // Table 4's figures are the custom run's, as `analyze` reads them.
    let json = ok(&["analyze", runs.join("custom").to_str().unwrap(), "--json", "--ci", "none", "--by", "policy"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let msg = v["report"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["policy"] == "rule_only" && g["key"] == "all")
        .and_then(|g| g["cells"].as_array().unwrap().iter().find(|c| c["metric"] == "msg"))
        .map(|c| c["interval"]["value"].as_f64().unwrap())
        .unwrap();
    assert!(section(&text, "Table 4:").contains(&format!("| 51 / {msg:.2} |")), "rule_only Msg {msg:.2}");
    // Table 8 from calibrate, over the filter's five test episodes.
    let t8 = section(&text, "Table 8:");
    assert!(t8.contains("broken (experiment)") && t8.contains("Test split: 5 episodes"), "{t8}");
    // Episode counts of every run, and every command with the filter.
    let counts = section(&text, "Episode counts and commands");
    for row in [
        "| custom | Tables 2, 3, 4, 7, 9, 10: every policy on the test split | gated 5, rule_score 5, rule_only 5, no_gate 5, no_partition 5, flatcomm 5, central_dag 5, gated_flatcomm 5, gated_central_dag 5 |",
        "| standard | Tables 2 and 3, standard setting: the baselines and their gated variants on the standard split | flatcomm 1, central_dag 1, gated_flatcomm 1, gated_central_dag 1 |",
        "| llm-executor |",
        "| boundary-all | Table 9: the gray zone's width | gated 5 |",
        "| transfer |",
        "| perturb | Table 8: the four weight perturbations of the calibrated gate | gated under each of 5 gates: test 5, calibration 0 |",
    ] {
        assert!(counts.contains(row), "no row {row}:\n{counts}");
    }
    let commands: Vec<&str> = counts.lines().filter(|l| l.starts_with("gatecrew ")).collect();
    assert_eq!(commands.len(), 8, "{counts}");
    assert!(commands.iter().all(|c| c.contains(&format!("--filter {filter}"))), "{counts}");
    assert!(commands.last().unwrap().starts_with("gatecrew calibrate --perturb"));
    // The commands are what ran: the folders they name hold the traces.
    assert_eq!(traces(&runs.join("custom")).len(), 45);
    assert!(runs.join("perturb/perturbation.json").is_file());
}

#[test]
fn under_model_bots_every_run_asks_the_model_and_the_reproduction_replays() {
    let fake = Fake::start(crate::model_bots::always_asks);
    let dir = tempfile::tempdir().unwrap();
    let (live, again) = (dir.path().join("live"), dir.path().join("again"));
    let (live_doc, again_doc) = (dir.path().join("live.md"), dir.path().join("again.md"));
    // One test episode and no standard one: that run is skipped, and says so.
    let filter = "04-pyramid-5-A-s0";
    let base = ["reproduce", "004", "--filter", filter, "--ci", "none", "--jobs", "2"];
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--out", live.to_str().unwrap(), "--doc", live_doc.to_str().unwrap()]);
    args.extend(["--bots", "model", "--llm-url", &fake.url, "--model", MODEL, "--llm-timeout-ms", "5000"]);
    ok(&args);
    let text = std::fs::read_to_string(&live_doc).unwrap();
    assert!(text.contains("with model-driven bots") && text.contains(&fake.url), "{text}");
    let counts = section(&text, "Episode counts and commands");
    let commands: Vec<&str> = counts.lines().filter(|l| l.starts_with("gatecrew ")).collect();
    // Table 8 is five suite runs (no calibrate), the standard split is skipped.
    assert_eq!(commands.len(), 11, "{counts}");
    assert!(counts.contains("# skipped, no episode of split standard matches --filter"), "{counts}");
    for c in &commands {
        assert!(c.starts_with("gatecrew suite run"), "{c}");
        for flag in ["--bots model", "--model smollm2-135m", "--llm-timeout-ms 5000", "--filter 04-pyramid-5-A-s0"] {
            assert!(c.contains(flag), "{flag} missing: {c}");
        }
    }
    // Every run's bots asked the model, and the document counts their calls.
    let calls = section(&text, "Model calls");
    let mut runs = 0;
    for d in std::fs::read_dir(&live).unwrap() {
        let d = d.unwrap().path();
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        if name == "perturb" {
            continue;
        }
        runs += 1;
        for (path, _) in traces(&d) {
            let n = trace(&d.join(&path)).iter().filter(|e| matches!(e.kind, EventKind::ModelCall { .. })).count();
            assert!(n > 0, "{name}/{}: no model call", path.display());
            let policy = path.parent().unwrap().display().to_string();
            assert!(calls.contains(&format!("| {name} | {policy} | 1 | {n} |")), "{name} {policy} {n}:\n{calls}");
        }
    }
    assert_eq!(runs, 11);
    // Table 8's variants are experiment gates in files beside the traces.
    let t8 = section(&text, "Table 8:");
    assert!(t8.contains("`calibrate --perturb` is not used here") && t8.contains("broken (experiment)"), "{t8}");
    let wr0 = std::fs::read_to_string(live.join("perturb/gates/perturb-wr0.toml")).unwrap();
    assert!(wr0.contains("experiment = true") && wr0.contains("r = 0.0"), "{wr0}");
    // No server: the recordings answer every run, trace for trace, and the tables agree.
    drop(fake);
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--out", again.to_str().unwrap(), "--doc", again_doc.to_str().unwrap()]);
    args.extend(["--replay-model", live.to_str().unwrap()]);
    ok(&args);
    assert!(traces(&again) == traces(&live), "a replayed trace differs from its recording");
    let replayed = std::fs::read_to_string(&again_doc).unwrap();
    for t in TABLES.iter().chain(&["Model calls"]) {
        assert_eq!(section(&replayed, t), section(&text, t), "{t}");
    }
    // Flags that cannot go together are refused before any run.
    for (bad, says) in [
        (vec!["--bots", "model"], "--bots model needs --llm-url"),
        (vec!["--llm-timeout-ms", "10"], "--llm-timeout-ms goes with --bots model"),
        (vec!["--replay-model", "/nonexistent/run"], "not the --out folder"),
    ] {
        let mut args = vec!["reproduce", "004", "--out", again.to_str().unwrap()];
        args.extend(bad);
        let (code, _, err) = gatecrew(&args);
        assert_ne!(code, 0);
        assert!(err.contains(says), "{err}");
    }
}
