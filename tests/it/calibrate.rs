//! `gatecrew calibrate`: the decision-replay fast path gives exactly what simulating
//! every point gives, an interrupted run resumes without losing or repeating work, and
//! the chosen point runs.

use std::path::Path;

use gatecrew_calibrate::eval::{Case, Evaluator};
use gatecrew_calibrate::{Grid, calibrate};
use gatecrew_crew::Overrides;
use gatecrew_crew::executor::{Executor, ExecutorKind, ExecutorSpec};
use gatecrew_suite::Manifest;

use crate::common::{calibrate_options, data, root, write};

/// A small grid (with skipped points) over the weights that matter most.
const GRID: &str = "[weights]\nc = [0.2, 0.35, 0.45]\na = [0.15, 0.2]\nd = [0.1, 0.2]\nr = [0.1, 0.2]\nh = [0.05]\n[thresholds]\ntheta_low = [0.5, 0.6, 0.7]\ntheta_high = [0.75, 0.9]\n";

fn cases(filter: &str) -> Vec<Case> {
    let dir = root().join("configs/suite");
    let m = Manifest::load(&dir).unwrap();
    m.episode
        .iter()
        .filter(|e| {
            matches!(e.split, gatecrew_protocol::trace::Split::Calibration | gatecrew_protocol::trace::Split::Test)
                && e.id.contains(filter)
        })
        .map(|e| Case {
            id: e.id.clone(),
            template: e.template.clone(),
            family: e.family.clone(),
            split: e.split,
            setup: gatecrew_crew::Setup::load_with_data(&dir.join(&e.file), &Overrides::default(), data()).unwrap(),
        })
        .collect()
}

#[test]
fn the_fast_path_equals_simulating_every_point() {
    let small = GRID.replace("d = [0.1, 0.2]", "d = [0.2]").replace("theta_high = [0.75, 0.9]", "theta_high = [0.8]");
    let grid = Grid::parse(&small, Path::new("grid.toml")).unwrap();
    assert!(grid.skipped > 0 && grid.points.len() >= 12, "{} points", grid.points.len());
    // Seed 0 and seed 3 of every template: both crew sizes, every class.
    let cases: Vec<Case> = cases("-s0")
        .into_iter()
        .chain(cases("-s3"))
        .filter(|c| c.split == gatecrew_protocol::trace::Split::Calibration)
        .collect();
    let fast = Evaluator::new(cases.clone());
    let naive = Evaluator::new(cases);
    let all: Vec<usize> = (0..fast.cases().len()).collect();
    for p in &grid.points {
        let a = fast.score(p.params, &all, &grid.objective, true);
        let b = naive.score(p.params, &all, &grid.objective, false);
        assert_eq!(a, b, "point {} differs", p.index);
    }
    let (simulated, replayed) = fast.counts();
    assert!(replayed > simulated * 5, "the cache did the work: {simulated} simulated, {replayed} replayed");
    assert_eq!(naive.counts().1, 0);
}

/// Under the `llm` executor a gray-zone decision is a model call (time, draws, a verdict
/// that may flip), so a replay must also agree on the tier and the card: still exactly
/// what simulating every point gives.
#[test]
fn the_fast_path_equals_simulating_every_point_under_the_llm_executor() {
    let small = GRID.replace("d = [0.1, 0.2]", "d = [0.2]").replace("theta_high = [0.75, 0.9]", "theta_high = [0.8]");
    let grid = Grid::parse(&small, Path::new("grid.toml")).unwrap();
    let spec = ExecutorSpec { kind: ExecutorKind::Llm, error_scale: 0.5, ..ExecutorSpec::default() };
    let executor = Executor::resolve(&spec, &root()).unwrap();
    let cases: Vec<Case> = cases("-s0")
        .into_iter()
        .filter(|c| c.split == gatecrew_protocol::trace::Split::Calibration)
        .map(|mut c| {
            c.setup.set_executor(executor.clone());
            c
        })
        .collect();
    let fast = Evaluator::new(cases.clone());
    let naive = Evaluator::new(cases);
    let all: Vec<usize> = (0..fast.cases().len()).collect();
    for p in &grid.points {
        let a = fast.score(p.params, &all, &grid.objective, true);
        let b = naive.score(p.params, &all, &grid.objective, false);
        assert_eq!(a, b, "point {} differs", p.index);
    }
    let (simulated, replayed) = fast.counts();
    assert!(replayed > 0, "the cache did some of the work: {simulated} simulated, {replayed} replayed");
}

/// The llm replay compares the tokens of two cards' scores instead of the scores
/// (`eval::ScoreTokens`): exact only if a card's prompt length is the rest of the card's
/// plus its score's, whatever the rest says. Checked for both tokenizers on every score
/// a card can show and on cards of every issue kind, item and feature vector.
#[test]
fn the_score_alone_changes_a_cards_prompt_length() {
    use gatecrew_calibrate::eval::{ScoreTokens, score_text};
    use gatecrew_crew::executor::LlmModel;
    use gatecrew_gating::llm::{Latency, LlmProfile, TokenizerName};
    use gatecrew_gating::{DecisionCard, Features};
    use gatecrew_protocol::trace::IssueName;
    for tokenizer in [TokenizerName::O200kBase, TokenizerName::Cl100kBase] {
        let profile = LlmProfile {
            model: "m".into(),
            source: "test".into(),
            latency: Latency { a: 1.0, b: 0.01, c: 0.1, samples: 0, r2: None },
            errors: None,
            tokenizer,
        };
        let model = std::sync::Arc::new(LlmModel::new(profile, 15, 1.0));
        let tokens = ScoreTokens::new(model.clone());
        let issues = [
            (IssueName::MissingMaterial, Some("oak_planks"), Some(3)),
            (IssueName::MissingTool, Some("iron_pickaxe"), Some(1)),
            (IssueName::Unreachable, None, None),
            (IssueName::DependencyBlocked, None, None),
            (IssueName::ActionFailed, None, None),
            (IssueName::MissingMaterial, Some("stone_bricks"), Some(117)),
        ];
        let mut lengths = std::collections::BTreeSet::new();
        for (k, (issue, item, n)) in issues.into_iter().enumerate() {
            let f = Features::new((k % 4) as u8, 3 - (k % 4) as u8, 2, (k % 2) as u8, (k % 3) as u8).unwrap();
            let card = |s: f64| DecisionCard::new(issue, item.map(str::to_owned), n, f, s);
            let rest = model.tokens(&card(0.5).prompt()) - model.tokens(&score_text(0.5));
            let scores = (0..=100).map(|c| f64::from(c) / 100.0).chain([0.004, 0.005, 0.6249, 0.999, 0.123456]);
            for s in scores {
                let whole = model.tokens(&card(s).prompt());
                assert_eq!(whole, rest + tokens.of(s), "{tokenizer:?}, {}: s = {s}", card(s).prompt());
                lengths.insert(tokens.of(s));
            }
        }
        // The score's own text: 0.0 to 1.0 in hundredths.
        assert!(!lengths.is_empty() && lengths.iter().all(|&n| (1..=4).contains(&n)), "{lengths:?}");
    }
}

#[test]
fn an_interrupted_run_resumes_with_the_same_results() {
    let grid = Grid::parse(GRID, Path::new("grid.toml")).unwrap();
    let whole = tempfile::tempdir().unwrap();
    let full = calibrate(&grid, &calibrate_options(whole.path()), &|_| {}).unwrap();
    assert_eq!(full.points.len(), grid.points.len());
    assert_eq!(full.evaluated_now, grid.points.len());
    // Interrupt: keep the first third of the results and half a line, as a kill would.
    let cut = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(whole.path().join("points.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let keep = lines.len() / 3;
    let mut partial: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
    partial.push_str(&lines[keep][..lines[keep].len() / 2]);
    write(cut.path(), "points.jsonl", &partial);
    std::fs::copy(whole.path().join("run.json"), cut.path().join("run.json")).unwrap();
    let resumed = calibrate(&grid, &calibrate_options(cut.path()), &|_| {}).unwrap();
    assert_eq!(resumed.evaluated_now, grid.points.len() - keep, "only the missing points are evaluated");
    assert_eq!(resumed.points.len(), full.points.len(), "each point once");
    for (a, b) in resumed.points.iter().zip(&full.points) {
        assert_eq!(a, b, "point {} differs after resuming", a.index);
    }
    assert_eq!(resumed.best, full.best);
    // A results file from another grid is refused, not mixed in.
    let other = Grid::parse(&GRID.replace("h = [0.05]", "h = [0.075]"), Path::new("other.toml")).unwrap();
    let err = calibrate(&other, &calibrate_options(whole.path()), &|_| {}).unwrap_err().to_string();
    assert!(err.contains("run.json") && err.contains("grid: was"), "{err}");
}

/// A filter that leaves no calibration or test episode is bad input, refused before the
/// grid is scored on nothing and written out.
#[test]
fn a_filter_that_matches_no_episode_is_refused_before_any_point_is_written() {
    let out = tempfile::tempdir().unwrap();
    let grid = write(out.path(), "grid.toml", GRID);
    let res = out.path().join("res");
    let (code, _, err) = crate::cli::gatecrew(&[
        "calibrate",
        "--grid",
        grid.to_str().unwrap(),
        "--out",
        res.to_str().unwrap(),
        "--filter=no-episode-has-this-id",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no calibration or test episode matches --filter") && err.contains("no-episode-has-this-id"),
        "{err}"
    );
    let written = std::fs::read(res.join("points.jsonl")).unwrap_or_default();
    assert!(written.is_empty(), "{} bytes of points written", written.len());
    assert!(!res.join("best-gate.toml").exists());
}

#[test]
fn the_cli_writes_a_gate_file_that_run_accepts() {
    let out = tempfile::tempdir().unwrap();
    let grid = write(out.path(), "grid.toml", GRID);
    let res = out.path().join("res");
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let args =
        ["gatecrew", "calibrate", "--grid", grid.to_str().unwrap(), "--out", res.to_str().unwrap(), "--filter=-s0"];
    let code = gatecrew_cli::main_with(args, &mut o, &mut e);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{}", String::from_utf8_lossy(&e));
    let report = String::from_utf8(o).unwrap();
    assert!(
        report.contains("Chosen point") && report.contains("Perturbations") && report.contains("Transfer"),
        "{report}"
    );
    for f in ["points.csv", "points.json", "summary.json", "report.md", "pareto.svg", "best-gate.toml"] {
        assert!(res.join(f).exists(), "{f} missing");
    }
    let gate = res.join("best-gate.toml");
    let trace = out.path().join("t.jsonl");
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let args = [
        "gatecrew",
        "run",
        "--config",
        gate.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--json",
        "--stepper",
    ];
    let code = gatecrew_cli::main_with(args, &mut o, &mut e);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{}", String::from_utf8_lossy(&e));
    // --report re-renders from the results.
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = gatecrew_cli::main_with(["gatecrew", "calibrate", "--report", res.to_str().unwrap()], &mut o, &mut e);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{}", String::from_utf8_lossy(&e));
    // --json: one object on stdout, the summary without its points; a rerun resumes.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(res.join("summary.json")).unwrap()).unwrap();
    for args in [
        vec!["calibrate", "--grid", grid.to_str().unwrap(), "--out", res.to_str().unwrap(), "--filter=-s0", "--json"],
        vec!["calibrate", "--report", res.to_str().unwrap(), "--json"],
    ] {
        let (code, out, err) = crate::cli::gatecrew(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(out.lines().count(), 1, "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["mode"] == "grid" || v["mode"] == "report", "{v}");
        assert_eq!(v["out"], res.display().to_string());
        assert!(v["files"].as_array().unwrap().iter().all(|f| res.join(f.as_str().unwrap()).is_file()), "{v}");
        let s = &v["summary"];
        assert!(s.get("points").is_none(), "the points are in points.json");
        assert_eq!(s["point_count"].as_u64(), summary["points"].as_array().map(|p| p.len() as u64));
        assert_eq!(s["best"], summary["best"], "{v}");
        assert_eq!(s["best_test"], summary["best_test"]);
    }
    // A grid nobody can satisfy: exit 2 with a clear message.
    let bad = write(out.path(), "bad.toml", &GRID.replace("c = [0.2, 0.35, 0.45]", "c = [0.1]"));
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = gatecrew_cli::main_with(["gatecrew", "calibrate", "--grid", bad.to_str().unwrap()], &mut o, &mut e);
    assert_eq!(code, std::process::ExitCode::from(2));
    assert!(String::from_utf8_lossy(&e).contains("no grid point satisfies"));
}

/// `gatecrew calibrate --kitchen`: the kitchen gate is searched on the calibration
/// levels only, and the defaults, the construction gate (zero-shot) and that choice are
/// scored on the other levels with the library's own CoS; a bad gate file is refused.
#[test]
fn the_kitchen_transfer_scores_three_gates_on_levels_it_never_searched() {
    let out = tempfile::tempdir().unwrap();
    let grid = write(out.path(), "grid.toml", GRID);
    let res = out.path().join("res");
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let args = [
        "gatecrew",
        "calibrate",
        "--kitchen",
        "--agents",
        "2",
        "--grid",
        grid.to_str().unwrap(),
        "--out",
        res.to_str().unwrap(),
    ];
    let code = gatecrew_cli::main_with(args, &mut o, &mut e);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{}", String::from_utf8_lossy(&e));
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(res.join("kitchen-transfer.json")).unwrap()).unwrap();
    let names =
        |k: &str| -> Vec<String> { t[k].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect() };
    let (cal, test) = (names("calibration_levels"), names("test_levels"));
    assert_eq!(cal.len() + test.len(), 13);
    assert!(cal.iter().all(|l| !test.contains(l)), "{cal:?} / {test:?}");
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    // The zero-shot row is the committed construction gate (suite v2's chosen point).
    let w: Vec<f64> = rows[1]["weights"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(w, [0.3, 0.1, 0.1, 0.25, 0.075]);
    // Each row's test score is the library's CoS of the gated crew with that gate.
    let cuisine = gatecrew_kitchen::Cuisine::load_default().unwrap();
    let spec = gatecrew_kitchen::RunSpec {
        timing: gatecrew_kitchen::TimingMode::Oracle,
        ..gatecrew_kitchen::RunSpec::new(2, 0)
    };
    let levels: Vec<_> = test.iter().map(|n| cuisine.level(n).unwrap().clone()).collect();
    let cos =
        gatecrew_calibrate::kitchen::evaluate(&cuisine, &levels, &[2], &spec, gatecrew_gating::GateParams::default());
    assert_eq!(rows[0]["test"]["cos_pending_excluded"].as_f64().unwrap(), cos.cos_pending_excluded);
    assert!(String::from_utf8(o).unwrap().contains("zero-shot"));

    let bad = write(out.path(), "gate.toml", "[gate]\nweights = { c = 0.1, a = 0.2, d = 0.2, r = 0.2, h = 0.05 }\n");
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let args = ["gatecrew", "calibrate", "--kitchen", "--construction-gate", bad.to_str().unwrap()];
    let code = gatecrew_cli::main_with(args, &mut o, &mut e);
    assert_eq!(code, std::process::ExitCode::from(2));
    let err = String::from_utf8_lossy(&e);
    assert!(err.contains("gate.toml") && err.contains("gate"), "{err}");
}

/// A grid weight past the gate's bound (1e300) or a threshold outside [0, 1] is refused
/// before anything runs, the message naming the file, the key and the bound (it was
/// "no grid point satisfies...", which names none of them); at the bound it loads.
#[test]
fn a_grid_value_past_its_bound_names_the_file_the_key_and_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, key, bound) in [
        ("c = [0.2, 0.35, 0.45]", "c = [0.35, 1e300]", "weights.c: 1e300", "a weight is a number from 0 to 1000000"),
        ("h = [0.05]", "h = { from = 0.05, to = 1e300, step = 1e298 }", "weights.h: 1e300", "from 0 to 1000000"),
        ("theta_high = [0.75, 0.9]", "theta_high = [0.9, 1.5]", "thresholds.theta_high: 1.5", "from 0 to 1"),
    ] {
        let grid = write(dir.path(), "grid.toml", &GRID.replace(from, to));
        let out = dir.path().join("out");
        let (code, _, err) = crate::cli::gatecrew(&[
            "calibrate",
            "--grid",
            grid.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--filter",
            "no-such-episode",
        ]);
        assert_eq!(code, 2, "{to}: {err}");
        assert!(err.contains("grid.toml") && err.contains(key) && err.contains(bound), "{to}: {err}");
        assert!(!out.join("points.jsonl").exists(), "{to}");
    }
    let at = GRID.replace("c = [0.2, 0.35, 0.45]", "c = [0.35, 1000000]");
    assert!(Grid::parse(&at, Path::new("grid.toml")).is_ok());
}
