//! The task memory under repetition and damage: a fact without a position is kept
//! once however many runs store it, and a damaged column is an error naming the
//! record, not an empty list.

use gatecrew_hitl_app::memory::{Fact, MemoryError, Provenance, Record, Store};

fn fact(run: &str, count: u32) -> Fact {
    Fact {
        world: "w".into(),
        kind: "no_source".into(),
        item: "white_wool".into(),
        pos: None,
        count: Some(count),
        provenance: Provenance::Inferred,
        run: run.into(),
        tick: 5,
    }
}

#[test]
fn a_fact_without_a_position_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let store = Store::open(&db).unwrap();
    for (i, run) in ["r1", "r2", "r3"].into_iter().enumerate() {
        store.add_fact(&fact(run, i as u32 + 1)).unwrap();
    }
    let facts = store.facts(None).unwrap();
    assert_eq!(facts.len(), 1, "{facts:?}");
    assert_eq!((facts[0].run.as_str(), facts[0].count), ("r3", Some(3)), "the newest replaces the older");
    drop(store);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let rows: i64 = conn.query_row("SELECT COUNT(*) FROM facts", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 1, "one row in the file");
}

#[test]
fn a_damaged_json_column_is_reported_with_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let store = Store::open(&db).unwrap();
    let r = Record {
        id: 0,
        world: "w".into(),
        run: "r1".into(),
        tick: 9,
        goal: "make a bed".into(),
        outcome: "completed".into(),
        items: vec![("white_bed".into(), 1)],
        feedback: vec!["good".into()],
        lessons: Vec::new(),
    };
    let id = store.add_record(&r).unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE records SET items = '[[\"white_bed\", 1' WHERE id = ?1", [id]).unwrap();
    drop(conn);
    let err = Store::open(&db).unwrap().records(None).unwrap_err();
    assert!(matches!(err, MemoryError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains(&format!("record {id}: column items")), "{err}");
}
