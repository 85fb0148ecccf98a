//! The labelled utterance sets, the open evaluation format and the benchmark plans.

use std::path::Path;

use gatecrew_hitl::classify::ParserClassifier;
use gatecrew_hitl::intent::IntentType;
use gatecrew_hitl::words::Vocabulary;
use gatecrew_hitl_app::eval::{self, PlanRef};
use gatecrew_world::{Blueprint, GameData};

use crate::common::{data, root, write};

fn blueprints(r: &PlanRef, d: &GameData) -> Result<Blueprint, String> {
    match r {
        PlanRef::Blueprint(p) => Blueprint::load(p, d).map_err(|e| e.to_string()),
        other => Err(format!("no loader for {other:?} here")),
    }
}

#[test]
fn the_set_has_over_a_hundred_utterances_over_plans_of_12_120_215_nodes() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let plans = eval::plans(&d, &v);
    let sizes: Vec<usize> = ["pickaxe", "battle", "master"].iter().map(|n| plans[n].len()).collect();
    assert_eq!(sizes, [12, 120, 215]);
    let set = eval::load(&root().join("configs/hitl/utterances.jsonl")).unwrap();
    assert!(set.len() >= 100, "{}", set.len());
    for t in IntentType::ALL {
        assert!(set.iter().filter(|u| u.kind == t).count() >= 5, "few {t:?}");
    }
    for name in ["pickaxe", "battle", "master"] {
        assert!(set.iter().filter(|u| u.plan == PlanRef::Builtin(name.into())).count() >= 20, "few over {name}");
    }
    // Every labelled node exists in its plan.
    for u in &set {
        let PlanRef::Builtin(name) = &u.plan else { panic!("{u:?}") };
        let p = &plans[name.as_str()];
        for l in u.node.iter().chain(&u.parent).chain(&u.options) {
            assert!(p.ids().iter().any(|n| p.label(*n) == l), "{}: no node {l:?} in {name}", u.text);
        }
    }
    // The parser's accuracy is held to what docs/hitl.md reports for it on these lines:
    // a floor far below it would let the documented figure rot unnoticed.
    let prepared = eval::prepare(&set, &d, &v, &|r| blueprints(r, &d));
    let (rows, unscored) = eval::run(&set, &prepared, &mut ParserClassifier, &v, &d);
    assert!(unscored.is_empty(), "{unscored:?}");
    let right = rows.iter().filter(|r| r.score == eval::Score::Right).count();
    const DOCUMENTED: f64 = 0.885;
    let share = right as f64 / rows.len() as f64;
    assert!(share >= DOCUMENTED - 0.0005, "parser right on {right} of {} ({:.1}%)", rows.len(), share * 100.0);
}

#[test]
fn the_open_format_names_the_line_of_an_unknown_key_and_lists_what_it_cannot_score() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.jsonl",
        "{\"text\": \"stop\", \"type\": \"stop\", \"plan\": \"house\"}\n{\"say\": \"hi\", \"type\": \"chat\", \"plan\": \"house\", \"speaker\": \"ann\"}\n",
    );
    let e = eval::load(&bad).unwrap_err();
    assert!(e.contains("bad.jsonl:2:") && e.contains("unknown field `speaker`"), "{e}");
    // Common other names for the keys and the types are read.
    let other = write(
        dir.path(),
        "other.jsonl",
        "{\"say\": \"what are you doing?\", \"intent\": \"question\", \"plan\": \"house\"}\n{\"utterance\": \"make a bed instead\", \"label\": \"new task\", \"plan\": \"house\"}\n",
    );
    let set = eval::load(&other).unwrap();
    assert_eq!(set.iter().map(|u| u.kind).collect::<Vec<_>>(), [IntentType::Chat, IntentType::NewTask]);
    let e = eval::load(&write(
        dir.path(),
        "p.jsonl",
        "{\"text\": \"x\", \"type\": \"chat\", \"plan\": {\"goal\": \"a bed\", \"size\": 3}}\n",
    ))
    .unwrap_err();
    assert!(e.contains("p.jsonl:1:") && e.contains("plan.size"), "{e}");
    let e = eval::load(&write(dir.path(), "t.jsonl", "{\"text\": \"x\", \"type\": \"query\", \"plan\": \"house\"}\n"))
        .unwrap_err();
    assert!(e.contains("t.jsonl:1:") && e.contains("unknown variant `query`"), "{e}");
    // A goal, a blueprint next to the file, a built-in plan; a plan that does not exist
    // and a node no plan holds are counted and listed, not dropped.
    let bp = std::fs::read_to_string(root().join("configs/hitl/wall.toml")).unwrap();
    write(dir.path(), "wall.toml", &bp);
    let lines = [
        r#"{"text": "HOLD ON", "type": "stop", "plan": {"goal": "make a white bed"}}"#,
        r#"{"text": "get the wool first", "type": "switch", "node": "obtain 3 white wool", "plan": "a white bed"}"#,
        r#"{"text": "skip the top row", "type": "delete", "node": "the top row", "plan": "wall.toml", "id": "w1"}"#,
        r#"{"text": "leave out the glass", "type": "delete", "node": "the windows", "plan": "house", "note": "free text"}"#,
        r#"{"text": "stop", "type": "stop", "plan": "castle"}"#,
        r#"{"text": "skip the moat", "type": "delete", "node": "the moat", "plan": "house"}"#,
        r#"{"text": "hi", "type": "chat", "plan": "missing.toml"}"#,
    ];
    let f = write(dir.path(), "open.jsonl", &(lines.join("\n") + "\n"));
    let set = eval::load(&f).unwrap();
    assert_eq!(set.len(), 7);
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let prepared = eval::prepare(&set, &d, &v, &|r| blueprints(r, &d));
    let (rows, unscored) = eval::run(&set, &prepared, &mut ParserClassifier, &v, &d);
    assert_eq!(rows.len(), 4, "{unscored:?}");
    assert!(rows.iter().all(|r| r.score == eval::Score::Right), "{rows:#?}");
    let why: Vec<(usize, &str)> = unscored.iter().map(|u| (u.line, u.why.as_str())).collect();
    assert_eq!(why.len(), 3, "{why:?}");
    assert!(why[0].0 == 5 && why[0].1.contains("`castle` is neither a built-in plan"), "{why:?}");
    assert!(why[1].0 == 6 && why[1].1.contains("`the moat` names nothing"), "{why:?}");
    assert!(why[2].0 == 7 && why[2].1.contains("missing.toml"), "{why:?}");
}

#[test]
fn stop_recall_is_total_on_every_labelled_set() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    for f in [
        "configs/hitl/utterances.jsonl",
        "hitl/data/eval/tune.jsonl",
        "hitl/data/eval/heldout.jsonl",
        "hitl/data/eval/chat.jsonl",
        "hitl/data/eval/chat-heldout.jsonl",
    ] {
        let path = root().join(f);
        let set = eval::load(&path).unwrap();
        let prepared = eval::prepare(&set, &d, &v, &|r| match r {
            PlanRef::Blueprint(p) => gatecrew_crew::Setup::load(p, &Default::default())
                .map(|s| (*s.blueprint).clone())
                .map_err(|e| e.to_string()),
            other => blueprints(other, &d),
        });
        let (rows, unscored) = eval::run(&set, &prepared, &mut ParserClassifier, &v, &d);
        assert!(unscored.is_empty(), "{f}: {unscored:?}");
        let missed: Vec<&str> = rows
            .iter()
            .filter(|r| r.expected == IntentType::Stop && r.got != IntentType::Stop)
            .map(|r| r.text.as_str())
            .collect();
        assert!(missed.is_empty(), "{f}: stops missed: {missed:?}");
        assert!(Path::new(&path).exists());
    }
}

fn hitl_eval(args: &[&str]) -> (u8, String) {
    let mut all: Vec<String> = vec!["gatecrew".into(), "hitl-eval".into(), "--reps".into(), "0".into()];
    all.extend(args.iter().map(|s| (*s).to_owned()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = gatecrew_cli::main_with(all, &mut out, &mut err);
    let code = [0u8, 1, 2].into_iter().find(|c| std::process::ExitCode::from(*c) == code).unwrap_or(255);
    (code, String::from_utf8_lossy(&out).into_owned() + &String::from_utf8_lossy(&err))
}

#[test]
fn hitl_eval_reports_types_confusion_nodes_stops_and_lists_unscored_lines() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.jsonl",
        "{\"text\": \"stop\", \"type\": \"stop\", \"plan\": \"house\", \"who\": \"x\"}\n",
    );
    let (code, out) = hitl_eval(&["--utterances", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("bad.jsonl:1:") && out.contains("unknown field `who`"), "{out}");
    let good = write(
        dir.path(),
        "good.jsonl",
        "{\"text\": \"STOP!!\", \"type\": \"stop\", \"plan\": \"house\"}\n\
         {\"text\": \"leave out the glass\", \"type\": \"delete\", \"node\": \"the windows\", \"plan\": \"house\"}\n\
         {\"text\": \"skip the moat\", \"type\": \"delete\", \"node\": \"the moat\", \"plan\": \"house\"}\n",
    );
    let (code, out) = hitl_eval(&["--utterances", good.to_str().unwrap(), "--show-wrong"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 labelled lines") && out.contains("2 scored, 1 not scored"), "{out}");
    assert!(out.contains("good.jsonl:3: the labelled node `the moat` names nothing"), "{out}");
    assert!(out.contains("expected \\ got") && out.contains("node acc"), "{out}");
    assert!(out.contains("stop recall (parser): 1 of 1"), "{out}");
}
