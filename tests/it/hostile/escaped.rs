//! Outside text on the terminal: names from task files, a memory's goals, episode ids
//! in traces and a model's replies carry control characters and line breaks; whatever
//! command shows them, its output has no control character but its own line breaks,
//! and no planted line of its own.

use std::io::Write;

use gatecrew_hitl_app::memory::{Record, Store};
use gatecrew_protocol::text::{Printable, is_unsafe};
use proptest::prelude::*;

use crate::cli::gatecrew;
use crate::common::{root, write};
use crate::llm::fake::{Fake, Reply, completion};

/// A line a planted value would start if its line break reached the terminal.
const FORGED: &str = "FORGED";

fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{1b}]0;owned\u{7}".to_owned()),
        Just("\u{1b}[2J\u{1b}[H".to_owned()),
        Just(format!("\n{FORGED} line")),
        Just(format!("\r{FORGED}")),
        Just("\u{9b}31m".to_owned()),
        Just("\u{202e}desrever".to_owned()),
        Just("\u{0}\u{8}\u{7f}".to_owned()),
        "[a-z_]{1,6}",
    ];
    proptest::collection::vec(piece, 1..6).prop_map(|v| format!("x{}", v.concat()))
}

/// Output a terminal shows as it stands: no control character but `\n` and `\t`, and
/// no line that a value forged.
fn assert_shown_safely(what: &str, text: &str) {
    let bad: Vec<char> = text.chars().filter(|&c| is_unsafe(c) && c != '\n' && c != '\t').collect();
    assert!(bad.is_empty(), "{what}: {bad:?} in {text:?}");
    assert!(!text.lines().any(|l| l.trim_start().starts_with(FORGED)), "{what}: a forged line in {text:?}");
}

fn task_file(dir: &std::path::Path, ids: &[String]) -> String {
    let src = root().join("tests/fixtures/external/villagerbench/examples_task_0_25_50_64.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let tasks = v.as_object().unwrap().values().cloned();
    let renamed: serde_json::Map<String, serde_json::Value> = ids.iter().cloned().zip(tasks).collect();
    write(dir, "tasks.json", &serde_json::Value::Object(renamed).to_string()).display().to_string()
}

fn memory(dir: &std::path::Path, s: &str) -> String {
    let db = dir.join("m.sqlite");
    let store = Store::open(&db).unwrap();
    let r = Record {
        id: 0,
        world: s.into(),
        run: "r1".into(),
        tick: 9,
        goal: s.into(),
        outcome: s.into(),
        items: vec![(s.into(), 1)],
        feedback: vec![s.into()],
        lessons: Vec::new(),
    };
    store.add_record(&r).unwrap();
    db.display().to_string()
}

fn cut_trace(dir: &std::path::Path, ep: &str) -> String {
    let ep = serde_json::to_string(ep).unwrap();
    let text = format!(
        "{{\"v\":1,\"ep\":{ep},\"t\":0,\"kind\":\"episode_start\",\"policy\":\"gated\",\"seed\":1,\"config_hash\":\"x\",\"agents\":[0,1],\"blueprint_blocks\":1,\"class\":\"A\"}}\n"
    );
    write(dir, "cut.jsonl", &text).display().to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn outside_text_reaches_no_terminal_raw(a in hostile(), b in hostile()) {
        let dir = tempfile::tempdir().unwrap();
        let ids = [a.clone(), format!("{b}2"), "task_ok".to_owned(), format!("{a}{b}")];
        let tasks = task_file(dir.path(), &ids);
        let (_, out, err) = gatecrew(&["run", "--task", &tasks]);
        assert_shown_safely("task list", &format!("{out}{err}"));
        // When `b` is one of the ids (`a` drew the same), the task runs: its trace goes
        // to the temporary folder, not the working directory.
        let trace = dir.path().join("run.jsonl");
        let (_, out, err) = gatecrew(&["run", "--task", &tasks, "--task-id", &b, "--trace", trace.to_str().unwrap()]);
        assert_shown_safely("unknown task id", &format!("{out}{err}"));

        let db = memory(dir.path(), &a);
        let (code, out, err) = gatecrew(&["memory", "list", "--memory-db", &db]);
        prop_assert_eq!(code, 0, "{}", err);
        assert_shown_safely("memory list", &format!("{out}{err}"));

        let trace = cut_trace(dir.path(), &b);
        for cmd in ["analyze", "check"] {
            let (_, out, err) = gatecrew(&[cmd, &trace]);
            assert_shown_safely(cmd, &format!("{out}{err}"));
        }
        let (_, out, err) = gatecrew(&["run", "--stepper", "--policy", &a]);
        assert_shown_safely("unknown policy", &format!("{out}{err}"));
    }
}

/// A model's reply that fails to parse is shown in `adjudicate`'s and `bench-llm`'s
/// errors; neither lets its escapes through.
#[test]
fn a_models_reply_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let forged = format!("\u{1b}]0;title\u{7}\n{FORGED} verdict\r\u{1b}[2J");
    let body = completion(&forged);
    let fake = Fake::start(move |_, _| Reply::Full { status: 200, body: body.clone() });
    let card = gatecrew_gating::DecisionCard::new(
        gatecrew_protocol::trace::IssueName::MissingMaterial,
        Some("glass".into()),
        Some(2),
        gatecrew_gating::Features::new(3, 1, 3, 0, 0).unwrap(),
        0.8667,
    );
    let card = write(dir.path(), "card.json", &card.to_json());
    let (_, out, err) =
        gatecrew(&["adjudicate", "--card", card.to_str().unwrap(), "--llm-url", &fake.url, "--model", "m"]);
    assert_shown_safely("adjudicate", &format!("{out}{err}"));
    let error_body = format!("{{\"error\":\"{}\"}}", forged.escape_default());
    let failing = Fake::start(move |_, _| Reply::Full { status: 500, body: error_body.clone().into_bytes() });
    let (_, out, err) = gatecrew(&["bench-llm", "--llm-url", &failing.url, "--model", "m"]);
    assert_shown_safely("bench-llm", &format!("{out}{err}"));
}

/// The stream escapes whatever a command forgot to: nothing raw passes it, however the
/// text is cut into writes.
#[test]
fn the_output_stream_passes_no_control_character() {
    let runner = proptest::test_runner::TestRunner::default();
    let mut runner = runner;
    runner
        .run(&(hostile(), proptest::collection::vec(1usize..9, 1..8)), |(s, cuts)| {
            let mut buf = Vec::new();
            {
                let mut p = Printable::new(&mut buf);
                let mut rest = s.as_bytes();
                for c in cuts.iter().cycle() {
                    if rest.is_empty() {
                        break;
                    }
                    let (now, later) = rest.split_at((*c).min(rest.len()));
                    p.write_all(now).unwrap();
                    rest = later;
                }
            }
            let shown = String::from_utf8(buf).unwrap();
            prop_assert!(!shown.chars().any(|c| is_unsafe(c) && c != '\n'), "{:?}", shown);
            Ok(())
        })
        .unwrap();
}
