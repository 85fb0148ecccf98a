//! Task memory: what a person told survives a restart of gatecrew and shapes the next
//! run's plan; `gatecrew memory list` shows it; a corrupted file is an error and is
//! left as it was.

use gatecrew_hitl_app::memory::{Provenance, Store};
use gatecrew_protocol::trace::{EventKind, MemoryOp};

use super::{run_script, said};

fn list(db: &std::path::Path) -> (u8, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let args = ["gatecrew", "memory", "list", "--memory-db", &db.display().to_string(), "--json"];
    let code = gatecrew_cli::main_with(args, &mut out, &mut err);
    let code = [0u8, 1, 2].into_iter().find(|c| std::process::ExitCode::from(*c) == code).unwrap_or(255);
    (code, String::from_utf8_lossy(&out).into_owned() + &String::from_utf8_lossy(&err))
}

#[test]
fn a_told_chest_survives_a_restart_and_is_used_next_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mem/memory.sqlite");
    let dbs = db.display().to_string();
    // Run 1: the person says where the wool is; the bot builds; the plan is summarised.
    let (code, out, ev) =
        run_script(dir.path(), "r1", "0 the wool is in the chest at 6 0 -6\n", &["--memory-db", &dbs]);
    assert_eq!(code, 0, "{out}");
    assert!(ev.iter().any(
        |e| matches!(&e.kind, EventKind::Memory(m) if m.op == MemoryOp::Write && m.provenance == Provenance::Told)
    ));
    // A fresh process would open the same file: so does a fresh store.
    let store = Store::open(&db).unwrap();
    let facts = store.facts(Some("hitl-partner")).unwrap();
    assert!(
        facts.iter().any(|f| f.item == "white_wool" && f.pos == Some((6, 0, -6)) && f.provenance == Provenance::Told),
        "{facts:?}"
    );
    let records = store.records(None).unwrap();
    assert!(records.iter().any(|r| r.outcome == "completed" && r.goal.starts_with("build my share")), "{records:?}");
    drop(store);
    // Run 2: a bed; the remembered chest is the first way to get the wool.
    let (code, out, ev) = run_script(dir.path(), "r2", "50 make a bed\n", &["--memory-db", &dbs]);
    assert_eq!(code, 0, "{out}");
    assert!(
        ev.iter().any(
            |e| matches!(&e.kind, EventKind::Memory(m) if m.op == MemoryOp::Read && m.provenance == Provenance::Told)
        ),
        "memory read"
    );
    let fetched = ev
        .iter()
        .any(|e| matches!(&e.kind, EventKind::Validator(v) if v.label.starts_with("take white wool from") && v.pass));
    assert!(fetched, "{:#?}", said(&ev));
    let bed =
        ev.iter().any(|e| matches!(&e.kind, EventKind::Validator(v) if v.label == "obtain 1 white bed" && v.pass));
    assert!(bed, "{:#?}", said(&ev));
    // `gatecrew memory list` shows both runs' records and the facts with provenance.
    let (code, text) = list(&db);
    assert_eq!(code, 0, "{text}");
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    let goals: Vec<&str> = v["records"].as_array().unwrap().iter().map(|r| r["goal"].as_str().unwrap()).collect();
    assert!(goals.contains(&"obtain 1 white bed"), "{goals:?}");
    // Told in run 1, looked at in run 2: the fact is now seen, with what was left.
    let wool = v["facts"].as_array().unwrap().iter().find(|f| f["item"] == "white_wool").cloned().unwrap();
    assert_eq!(wool["provenance"], "seen", "{wool}");
}

#[test]
fn a_corrupted_memory_is_an_error_and_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("memory.sqlite");
    let junk = b"this is not an SQLite database, just bytes a crash or a user left here\n".repeat(64);
    std::fs::write(&db, &junk).unwrap();
    let e = Store::open(&db).unwrap_err().to_string();
    assert!(e.contains("unreadable") && e.contains("left untouched"), "{e}");
    let (code, out, _) = run_script(dir.path(), "c", "0 hi\n", &["--memory-db", &db.display().to_string()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("memory.sqlite") && out.contains("unreadable"), "{out}");
    let (code, text) = list(&db);
    assert_eq!(code, 2, "{text}");
    assert_eq!(std::fs::read(&db).unwrap(), junk, "the file was changed");
    // Another application's SQLite file is refused too, and left as it was.
    let other = dir.path().join("other.sqlite");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');",
        )
        .unwrap();
    }
    let before = std::fs::read(&other).unwrap();
    let e = Store::open(&other).unwrap_err().to_string();
    assert!(e.contains("not a gatecrew memory"), "{e}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

/// Landmarks and preferences the person names are kept with provenance told: answered
/// in the same run, stored, and read back by the next run in the same world.
#[test]
fn landmarks_and_preferences_are_kept_told_and_read_back_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mem/memory.sqlite");
    let dbs = db.display().to_string();
    let script = "0 my house is at 10 0 5\n20 i like spruce\n40 where is my house?\n";
    let (code, out, ev) = run_script(dir.path(), "n1", script, &["--memory-db", &dbs]);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<String> = said(&ev).into_iter().map(|(_, _, t)| t).collect();
    assert!(lines.iter().any(|l| l.starts_with("Noted: your house is at (10, 0, 5).")), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.starts_with("Noted: you like spruce; I will choose it where a new goal lets me.")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("You told me your house is at (10, 0, 5).")), "{lines:#?}");
    let store = Store::open(&db).unwrap();
    let facts = store.facts(Some("hitl-partner")).unwrap();
    assert!(
        facts.iter().any(|f| f.kind == "landmark"
            && f.item == "house"
            && f.pos == Some((10, 0, 5))
            && f.provenance == Provenance::Told),
        "{facts:?}"
    );
    assert!(
        facts.iter().any(|f| f.kind == "preference" && f.item == "spruce" && f.provenance == Provenance::Told),
        "{facts:?}"
    );
    drop(store);
    // "here" is where the bot stands when it hears the line; the next run knows both.
    let (code, out, ev) =
        run_script(dir.path(), "n2", "0 where is my house\n20 what do i like?\n", &["--memory-db", &dbs]);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<String> = said(&ev).into_iter().map(|(_, _, t)| t).collect();
    assert!(lines.iter().any(|l| l.starts_with("You told me your house is at (10, 0, 5).")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with("You told me you like spruce.")), "{lines:#?}");
    let read_back = ev.iter().any(
        |e| matches!(&e.kind, EventKind::Memory(m) if m.op == MemoryOp::Read && m.text.starts_with("landmark house")),
    );
    assert!(read_back, "no memory read of the landmark");
}
