//! Counts typed in chat are read once into a `Count`; out of bounds they are a bad
//! count the partner answers, never a clamp nor a default.

use std::path::Path;

use gatecrew_protocol::{CountError, MAX_COUNT};
use gatecrew_world::GameData;

use super::*;
use crate::words::CountProblem;

fn data() -> GameData {
    GameData::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json"))).unwrap()
}

fn read(text: &str) -> (GameData, Option<ReadGoal>) {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let g = read_goal_checked(text, &v);
    (d, g)
}

#[test]
fn counts_in_bounds_are_goals() {
    for (text, item, n) in [
        ("get 2304 planks", "oak_planks", 2304),
        ("get 1 stick", "stick", 1),
        ("get ten sticks", "stick", 10),
        ("get a stack of oak planks", "oak_planks", 64),
        ("make a crafting table", "crafting_table", 1),
    ] {
        let (d, g) = read(text);
        match g {
            Some(Ok(Goal::Obtain { item: i, count })) => {
                assert_eq!((d.item_name(i), count.get()), (item, n), "{text}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn zero_and_too_many_are_bad_counts_with_a_clear_reply() {
    let cases = [
        ("get 0 sticks", CountError::NotPositive(0)),
        ("get zero sticks", CountError::NotPositive(0)),
        ("get 1100000000 crafting tables", CountError::TooLarge(1_100_000_000)),
        ("get 2305 planks", CountError::TooLarge(2305)),
        ("get 99999999999999999999999 planks", CountError::TooLarge(i64::MAX)),
    ];
    for (text, error) in cases {
        let (d, g) = read(text);
        let Some(Err(bad)) = g else { panic!("{text}: {g:?}") };
        assert_eq!(bad.problem(), CountProblem::OutOfBounds(error), "{text}");
        let reply = bad.reply(&d);
        assert!(reply.starts_with("I cannot get "), "{reply}");
        assert!(reply.contains(&format!("from 1 to {MAX_COUNT}")), "{reply}");
    }
    let (d, g) = read("get 1100000000 crafting tables");
    assert_eq!(
        g.unwrap().unwrap_err().reply(&d),
        "I cannot get 1100000000 crafting table: one bot carries at most 2304 (36 stacks of 64); say a number from 1 to 2304."
    );
}

#[test]
fn a_place_to_fetch_from_is_not_a_count() {
    // Coordinates are skipped: "0" there is a coordinate, not a count.
    let (_, g) = read("the wool is in the chest at 6 0 -6");
    assert!(matches!(g, Some(Ok(Goal::Fetch { .. }))), "{g:?}");
}

/// Every number said in digits is the count it says, however it is written (plain,
/// negative, an exponent, past `i64`): in bounds a goal of that count, else the bad
/// count it is. Before, "-1" and "1e400" were no count at all and read as one.
#[test]
fn a_number_in_any_notation_is_the_count_it_says() {
    let max = i64::from(MAX_COUNT);
    let mut cases: Vec<(String, i64)> = Vec::new();
    for n in [i64::MIN, -max - 1, -2, -1, 0, 1, 2, max - 1, max, max + 1, i64::MAX] {
        cases.push((n.to_string(), n));
    }
    for (m, e) in [(1u32, 0i32), (2, 1), (2, 3), (3, 4), (1, 18), (9, 18), (1, 19), (1, 400), (5, 308), (1, 309)] {
        let f: f64 = format!("{m}e{e}").parse().unwrap();
        // `as` saturates, as the reader does: what f64 says, bounded by i64.
        cases.push((format!("{m}e{e}"), f as i64));
        cases.push((format!("-{m}e{e}"), -f as i64));
    }
    cases.push(("1".repeat(30), i64::MAX));
    cases.push((format!("-{}", "9".repeat(30)), i64::MIN));
    for (said, n) in cases {
        let text = format!("get {said} sticks");
        let (_, g) = read(&text);
        match (Count::new(n), g) {
            (Ok(want), Some(Ok(Goal::Obtain { count, .. }))) => assert_eq!(count, want, "{text}"),
            (Err(want), Some(Err(bad))) => assert_eq!(bad.problem(), CountProblem::OutOfBounds(want), "{text}"),
            (want, got) => panic!("{text}: want {want:?}, got {got:?}"),
        }
    }
}

/// A fraction is no count: "1.5" is read whole, not cut at its point into a count of 1
/// (and a "5" left over). A whole number written with a point is the count it says.
#[test]
fn a_fraction_is_a_bad_count_and_a_whole_number_with_a_point_is_a_count() {
    for said in ["1.5", "0.5", "-2.5", "2304.5", "2.5e0", "1.25e1"] {
        let text = format!("get {said} sticks");
        let (d, g) = read(&text);
        let Some(Err(bad)) = g else { panic!("{text}: {g:?}") };
        assert_eq!(bad.problem(), CountProblem::NotWhole, "{text}");
        assert_eq!(
            bad.reply(&d),
            format!("I cannot get {said} stick: a count is a whole number; say one from 1 to {MAX_COUNT}.")
        );
    }
    for (said, n) in [("2.0", 2), ("1.5e1", 15), ("64.00", 64)] {
        let text = format!("get {said} sticks");
        match read(&text).1 {
            Some(Ok(Goal::Obtain { count, .. })) => assert_eq!(count.get(), n, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // A full stop after a count ends the sentence; it is not a decimal point.
    match read("get 5 sticks.").1 {
        Some(Ok(Goal::Obtain { count, .. })) => assert_eq!(count.get(), 5),
        other => panic!("{other:?}"),
    }
}

/// The answer quotes the count as it was said, never the value it saturated to: "1e400"
/// and thirty nines are answered as themselves, not as 9223372036854775807.
#[test]
fn the_answer_quotes_the_count_as_it_was_said() {
    let nines = "9".repeat(30);
    for said in ["1e400", nines.as_str(), "-1e400", "-1", "zero", "2305"] {
        let text = format!("get {said} sticks");
        let (d, g) = read(&text);
        let Some(Err(bad)) = g else { panic!("{text}: {g:?}") };
        let reply = bad.reply(&d);
        assert!(reply.starts_with(&format!("I cannot get {said} stick: ")), "{text}: {reply}");
        for saturated in [i64::MAX.to_string(), i64::MIN.to_string()] {
            assert!(!reply.contains(&saturated), "{text}: {reply}");
        }
    }
}
