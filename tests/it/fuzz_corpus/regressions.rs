//! One test per bug the fuzz targets found (or that fixing one of them brought to
//! light), stating the behaviour the fix guarantees. The reproducers themselves are in
//! `fuzz/regressions/<target>/` and run through the harness in the parent module.

use std::path::Path;
use std::sync::Arc;

use gatecrew_crew::Policy;
use gatecrew_tasks::{Aliases, TaskErrorKind, TaskFile, TaskOptions, setup};
use gatecrew_world::{Blueprint, Part};

use crate::common::{data, root};

fn reproducer(target: &str, name: &str) -> String {
    std::fs::read_to_string(root().join("fuzz/regressions").join(target).join(name)).unwrap()
}

/// `blueprint`: a door listed with both halves was read as two doors, one on the other.
#[test]
fn a_door_given_with_both_halves_is_one_door() {
    let text = reproducer("blueprint", "door-both-halves.toml");
    let bp = Blueprint::parse(&text, Path::new("door.toml"), &data()).unwrap();
    let parts: Vec<(i32, Part)> = bp.cells().iter().map(|c| (c.pos.y, c.part)).collect();
    assert_eq!(parts, vec![(0, Part::Lower), (1, Part::Upper)]);
}

/// `blueprint` (found while fixing the task overflow): coordinates near the ends of
/// `i32` overflowed the cell-above and fill-size arithmetic.
#[test]
fn blueprint_positions_outside_the_world_are_an_error_with_a_line() {
    for (name, line) in [("door-at-max-y.toml", 3), ("block-at-max-x.toml", 3), ("fill-full-i32-range.toml", 5)] {
        let text = reproducer("blueprint", name);
        let err = Blueprint::parse(&text, Path::new(name), &data()).unwrap_err();
        assert_eq!(err.line_number(), Some(line), "{name}: {err}");
        assert!(err.to_string().contains("outside the world"), "{name}: {err}");
    }
}

fn import_and_set_up(text: &str) -> Result<(), String> {
    let path = Path::new("t.json");
    let file = TaskFile::parse(text, path).map_err(|e| e.to_string())?;
    let task = file.import(None, &data(), &Aliases::none()).map_err(|e| e.to_string())?;
    let opts = TaskOptions { data: Arc::clone(&data()), seed: 1, policy: Policy::Gated, agents: None };
    setup(&task, path, &opts).map(|_| ()).map_err(|e| e.to_string())
}

/// `task_file`: two blocks far apart overflowed the shift to the origin, and a site
/// that wide would not fit in memory.
#[test]
fn a_task_spread_too_wide_is_refused_before_the_world_is_built() {
    // The reproducer's line is malformed besides (an unknown `Npositions:` key): refused
    // at its JSON path by the line reader, before any arithmetic on its positions.
    let err = import_and_set_up(&reproducer("task_file", "far-apart-cells-overflow.json")).unwrap_err();
    assert!(err.contains("$.t5[0]"), "{err}");
    let far = r#"{"t": ["material: stone facing: A position: [-9, 8, 0]", "material: stone facing: A position: [2147483647, 0, 0]"]}"#;
    let err = import_and_set_up(far).unwrap_err();
    assert!(err.contains("spans 2147483657 x 9 x 1 blocks") && err.contains("at most 256"), "{err}");
    let wide = r#"{"t": ["material: stone facing: A position: [0, 0, 0]", "material: stone facing: A position: [300, 0, 0]"]}"#;
    assert!(import_and_set_up(wide).unwrap_err().contains("spans 301 x 1 x 1"));
}

/// `task_file` (same fix): a MineCollab level whose cells run past `i32::MAX`.
#[test]
fn minecollab_positions_that_overflow_name_the_cell() {
    let text = r#"{"t": {"type": "construction", "blueprint": {"levels": [
        {"level": 0, "coordinates": [2147483647, 0, 0], "placement": [["stone", "stone"]]}]}}}"#;
    let file = TaskFile::parse(text, Path::new("t.json")).unwrap();
    let err = file.import(None, &data(), &Aliases::none()).unwrap_err();
    assert!(matches!(err.kind(), TaskErrorKind::At { .. }), "{err}");
    assert_eq!(err.json_path(), Some("$.t.blueprint.levels[0].placement[0][1]"));
}

/// `task_file` (same fix): a VillagerBench run over the whole `i32` range is counted,
/// not listed, before it is refused.
#[test]
fn a_huge_villagerbench_run_is_refused_without_listing_it() {
    let text = r#"{"t": ["[material:stone facing:A positions:[start:[-2147483648 0 0] end:[2147483647 0 0]]]"]}"#;
    let file = TaskFile::parse(text, Path::new("t.json")).unwrap();
    let err = file.import(None, &data(), &Aliases::none()).unwrap_err();
    assert!(err.to_string().contains("holds 4294967296 cells; a task may describe at most"), "{err}");
}

/// `task_file`: an `end:` written before the `start:` of a VillagerBench run sliced
/// the line backwards and panicked.
#[test]
fn a_villagerbench_run_with_end_before_start_is_an_error() {
    let file = TaskFile::parse(&reproducer("task_file", "end-before-start.json"), Path::new("t.json")).unwrap();
    let err = file.import(None, &data(), &Aliases::none()).unwrap_err();
    assert_eq!(err.json_path(), Some(r#"$[""][0]"#), "{err}");
    let ok = r#"{"t": ["[material:stone facing:A positions:[end:[0 2 0] start:[0 0 0] end:[0 2 0]]]"]}"#;
    let err = TaskFile::parse(ok, Path::new("t.json")).unwrap().import(None, &data(), &Aliases::none()).unwrap_err();
    assert!(err.to_string().contains("an end: without a start:"), "{err}");
    let ok = r#"{"t": ["[material:stone facing:A positions:[start:[0 0 0] end:[0 2 0]]]"]}"#;
    let task = TaskFile::parse(ok, Path::new("t.json")).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    assert_eq!(task.cells.len(), 3);
}

/// `trace_line` (found by review of what the target checks): recovery ticks summed past
/// `u64::MAX` overflowed the metrics of a trace whose ticks run to the end of `u64`.
#[test]
fn recovery_ticks_saturate_instead_of_overflowing() {
    use gatecrew_protocol::metrics::{EpisodeMetrics, GroupMetrics};
    use gatecrew_protocol::trace::TraceReader;
    let text = reproducer("trace_line", "recovery-ticks-overflow.jsonl");
    let mut m = EpisodeMetrics::default();
    for ev in TraceReader::new(text.as_bytes()) {
        m.observe(&ev.unwrap());
    }
    assert_eq!((m.resolved_local, m.local_recovery_ticks), (1, u64::MAX));
    assert_eq!(GroupMetrics::pool([&m, &m]).totals.local_recovery_ticks, u64::MAX);
}

/// `line_split`: a bracketed name passed the websocket's origin check as if it were a
/// loopback address; brackets now hold only an IPv6 address.
#[test]
fn a_bracketed_name_is_no_loopback_origin() {
    let bytes = std::fs::read(root().join("fuzz/regressions/line_split/bracketed-localhost-origin")).unwrap();
    let origin = String::from_utf8_lossy(&bytes[1..]).into_owned();
    assert!(origin.contains("[localhost]"), "{origin:?}");
    assert!(!gatecrew_hitl_app::ws::origin_allowed(Some(&origin)));
    assert!(gatecrew_hitl_app::ws::origin_allowed(Some("http://[::1]:8000")));
}

/// `kitchen_files` (seen writing the target, whose walk shares nothing with the
/// loader's): an item first expanded near the top of the recipe graph (`a1`, 3 deep)
/// and reached again 6 recipes down (`b1` ... `b6`) made a 9-deep chain that passed the
/// depth bound, because the loader's walk kept each item's count but not its depth.
#[test]
fn a_deep_chain_through_an_item_expanded_before_is_refused() {
    use gatecrew_kitchen::load::{MAX_RECIPE_DEPTH, parse_recipes};
    let text = reproducer("kitchen_files", "deep-chain-through-a-shared-item.json");
    let json = &text[1..];
    let e = parse_recipes(json, Path::new("recipe.json")).unwrap_err().to_string();
    assert!(e.contains(&format!("more than {MAX_RECIPE_DEPTH} recipes in a chain")), "{e}");
    // One recipe fewer above the shared item (b6 takes a1 directly at depth 5): 8 deep, loads.
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v.as_object_mut().unwrap().remove("b1");
    parse_recipes(&v.to_string(), Path::new("recipe.json")).unwrap();
    gatecrew_fuzzing::kitchen_files(text.as_bytes());
}
