//! Harnesses for the files and messages read whole from outside: what the replay server reads
//! (a trace, then the page's requests), the calibration grid, and the kitchen's recipe
//! and level files.
//!
//! Each returns on inputs handled as they should be (an error included) and panics on
//! a bug: a panic inside, an unbounded result, or a broken invariant checked here
//! independently of the code under test.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use gatecrew_calibrate::Grid;
use gatecrew_calibrate::grid::MAX_GRID_POINTS;
use gatecrew_gating::MAX_WEIGHT;
use gatecrew_kitchen::RecipeBook;
use gatecrew_kitchen::load::{MAX_EXPANSION, MAX_RECIPE_DEPTH, parse_levels, parse_recipes};
use gatecrew_protocol::ItemId;
use gatecrew_protocol::trace::TraceReader;
use gatecrew_viewer::Scene;
use gatecrew_viewer::replay::{Cursor, Recording};
use gatecrew_viewer::server::{replay_answer, replay_opening};

/// Events a replay harness keeps: the fuzzer's inputs are small, and each request
/// refolds up to all of them.
const MAX_EVENTS: usize = 512;
/// Requests a replay harness sends.
const MAX_ASKS: usize = 64;

/// The `replay_serve` target: the bytes up to the first NUL are a trace, read as
/// `gatecrew replay` reads it (its first episode, without `--config`); the lines after
/// it are the page's messages. Every answer is a JSON state within the recording's span
/// or an error; a state reached by any path of seeks and steps is the state a fresh
/// cursor seeking straight there gives.
pub fn replay_serve(data: &[u8]) {
    let (trace, asks) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let mut events = Vec::new();
    for item in TraceReader::new(trace) {
        // The command refuses a trace with a bad line; a truncated last one is skipped.
        let Ok(ev) = item else { return };
        if events.first().is_none_or(|f: &gatecrew_protocol::trace::Event| f.ep == ev.ep) {
            events.push(ev);
        }
        if events.len() >= MAX_EVENTS {
            break;
        }
    }
    if events.is_empty() {
        return;
    }
    let rec = Arc::new(Recording::new(Scene::default(), events));
    let span = rec.span();
    let mut cursor = Cursor::new(rec.clone());
    check_state(&replay_opening(&mut cursor), span, &rec);
    for msg in String::from_utf8_lossy(asks).lines().take(MAX_ASKS) {
        let answer = replay_answer(&mut cursor, msg);
        let v: serde_json::Value = serde_json::from_str(&answer).expect("every answer is JSON");
        if v["type"] == "error" {
            assert!(v["error"].as_str().is_some_and(|e| e.starts_with("bad request")), "{answer}");
            continue;
        }
        check_state(&answer, span, &rec);
    }
}

fn check_state(answer: &str, span: (u64, u64), rec: &Arc<Recording>) {
    let v: serde_json::Value = serde_json::from_str(answer).expect("every answer is JSON");
    assert_eq!(v["type"], "state", "{answer}");
    assert_eq!(v["span"], serde_json::json!([span.0, span.1]), "{answer}");
    let tick = v["state"]["tick"].as_u64().expect("a state has a tick");
    assert!(tick <= span.1.max(span.0), "tick {tick} past the span {span:?}");
    // Any path to a tick ends in the state a fresh cursor seeks to.
    let mut fresh = Cursor::new(rec.clone());
    let straight = serde_json::to_value(fresh.seek(tick)).expect("a state serialises");
    assert_eq!(v["state"], straight, "the state at tick {tick} depends on how it was reached");
}

/// The `grid_file` target: a calibration grid parses into at most
/// [`MAX_GRID_POINTS`] combinations, each point a gate that keeps the hierarchy and
/// the threshold order with finite weights in range, indices increasing; an error
/// names the file.
pub fn grid_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match Grid::parse(text, Path::new("fuzz/grid.toml")) {
        Ok(g) => {
            assert!(!g.points.is_empty(), "a grid without a valid point");
            let total = g.points.len() as u64 + g.skipped as u64;
            assert!(total <= MAX_GRID_POINTS, "{total} combinations");
            let mut last = None;
            for p in &g.points {
                assert!(last.is_none_or(|l| p.index > l), "indices do not increase");
                assert!((p.index as u64) < total, "index {} of {total}", p.index);
                last = Some(p.index);
                let s = p.params.spec();
                let w = s.weights;
                for v in [w.c, w.a, w.d, w.r, w.h] {
                    assert!(v.is_finite() && (0.0..=MAX_WEIGHT).contains(&v), "weight {v}");
                }
                assert!(w.c > w.a.max(w.d).max(w.r) && w.a.min(w.d).min(w.r) > w.h && w.h > 0.0, "{w:?}");
                assert!(s.theta_low < s.theta_high, "{} >= {}", s.theta_low, s.theta_high);
            }
        }
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz/grid.toml"), "the error does not name the file: {shown}");
        }
    }
}

/// The shipped recipe book, for level files.
static BOOK: LazyLock<RecipeBook> = LazyLock::new(|| {
    let text = include_str!("../../configs/cuisineworld/recipe.json");
    parse_recipes(text, Path::new("configs/cuisineworld/recipe.json")).expect("the shipped recipes load")
});

/// The `kitchen_files` target: the first byte picks the file, the rest is its text. A
/// recipe file loads into a book whose every item expands, by a walk here that shares
/// nothing with the loader's, within [`MAX_RECIPE_DEPTH`] recipes and
/// [`MAX_EXPANSION`] nodes (the count the book keeps), or is refused naming the file; a level file
/// against the shipped book loads into levels with an order interval and a crew, or is
/// refused naming the file.
pub fn kitchen_files(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    if pick % 2 == 0 {
        match parse_recipes(text, Path::new("fuzz/recipe.json")) {
            Ok(book) => {
                for r in book.recipes() {
                    let (nodes, depth) = expand(&book, r.product, 0);
                    assert!(depth <= MAX_RECIPE_DEPTH, "{} takes {depth} recipes in a chain", book.name(r.product));
                    assert!(nodes <= MAX_EXPANSION, "{} expands to {nodes} nodes", book.name(r.product));
                    assert_eq!(nodes, book.expansion(r.product), "{}", book.name(r.product));
                }
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz/recipe.json"), "{e}"),
        }
    } else {
        match parse_levels(text, Path::new("fuzz/levels.json"), &BOOK) {
            Ok(levels) => {
                for l in levels {
                    assert!(l.task_interval >= 1 && l.num_agents >= 1, "{}", l.name);
                }
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz/levels.json"), "{e}"),
        }
    }
}

/// Nodes of `item`'s expansion (with repeats) and recipes in the longest chain below it, by
/// plain recursion: stops counting past the bounds, so it ends on any graph the
/// loader let through (a cycle or a deep chain shows as a depth past the bound).
fn expand(book: &RecipeBook, item: ItemId, level: usize) -> (u64, usize) {
    let Some(r) = book.recipe_for(item) else { return (1, 0) };
    if level > MAX_RECIPE_DEPTH {
        return (0, 1);
    }
    let (mut nodes, mut deepest) = (1u64, 0usize);
    for &i in &r.ingredients {
        let (n, d) = expand(book, i, level + 1);
        nodes = nodes.saturating_add(n);
        deepest = deepest.max(d);
        if nodes > MAX_EXPANSION {
            break;
        }
    }
    (nodes, deepest + 1)
}
