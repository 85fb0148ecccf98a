//! The shared files load; hostile inputs name the file and the JSON path.

use std::path::Path;

use gatecrew_kitchen::load::{parse_levels, parse_recipes};
use gatecrew_kitchen::{ErrorKind, ToolKind};

use super::common::cuisine;

/// The shipped copy (`configs/cuisineworld`) is MindAgent's files unchanged: byte for
/// byte the shared folder's, where a machine has it (a clean clone may not).
#[test]
fn the_shipped_files_are_the_shared_ones() {
    let shipped = crate::common::root().join("configs/cuisineworld");
    let shared = crate::common::root().join("../shared/external-tasks/cuisineworld");
    for f in ["recipe.json", "tasks_level_final.json"] {
        let ours = std::fs::read(shipped.join(f)).unwrap();
        assert!(!ours.is_empty());
        if let Ok(theirs) = std::fs::read(shared.join(f)) {
            assert!(ours == theirs, "configs/cuisineworld/{f} differs from the shared copy");
        }
    }
}

#[test]
fn every_shared_level_and_recipe_loads() {
    let c = cuisine();
    assert_eq!(c.book.recipes().len(), 63);
    assert_eq!(c.book.raw_items().len(), 27, "MindAgent's 27 base ingredients");
    let names: Vec<&str> = c.levels.iter().map(|l| l.name.as_str()).collect();
    let expected: Vec<String> = (0..13).map(|i| format!("level_{i}")).collect();
    assert_eq!(names, expected);
    for l in &c.levels {
        assert!(l.kitchen.contains(&ToolKind::Storage) && l.kitchen.contains(&ToolKind::Servingtable));
        for m in &l.menu {
            assert!(c.book.recipe_for(m.dish).is_some(), "{} {}", l.name, c.book.name(m.dish));
            assert_eq!(m.lifetime, 10);
        }
        if l.name == "level_12" {
            let err = l.completable(&c.book).unwrap_err().to_string();
            assert!(err.contains("frenchFries") && err.contains("fryer"), "{err}");
        } else {
            l.completable(&c.book).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    // Every recipe resolves to raw ingredients (the loader refuses cycles).
    for r in c.book.recipes() {
        assert!(c.book.solo_steps(r.product) >= 4);
    }
}

#[test]
fn oracle_timing_follows_mindagent() {
    let c = cuisine();
    let l0 = c.level("level_0").unwrap();
    // salmonMeatcake: 3 nodes x 3 + (blender 2 - 1) = 10; 10 x 0.3 = 3; ceil(2.5 x 3) = 8.
    let t = l0.oracle_timing(&c.book, 1.0);
    assert_eq!((t.interval, t.lifetimes.clone()), (3, vec![8]));
    assert_eq!(l0.file_timing(1.5).interval, 8, "ceil(1.5 x 5)");
}

const RECIPES: &str = r#"{"cake": {"ingredients": ["egg", "flour"], "location": "blender"},
 "salmonMeatcake": {"ingredients": ["salmon", "flour"], "location": "blender"}}"#;

#[test]
fn hostile_recipe_files_name_file_and_path() {
    let f = Path::new("recipe.json");
    let e = parse_recipes(r#"{"cake": {"ingredients": ["egg"], "location": "blender", "colour": 1}}"#, f).unwrap_err();
    assert_eq!(e.json_path(), Some("$.cake.colour"));
    assert!(e.to_string().starts_with("recipe.json: $.cake.colour: unknown field `colour`"), "{e}");
    let e = parse_recipes(r#"{"cake": {"ingredients": ["egg"], "location": "wok"}}"#, f).unwrap_err();
    assert_eq!(e.json_path(), Some("$.cake.location"));
    let e = parse_recipes(r#"{"cake": {"ingredients": [1], "location": "pot"}}"#, f).unwrap_err();
    assert_eq!(e.json_path(), Some("$.cake.ingredients[0]"));
    let e = parse_recipes("{\"cake\": {\"ingredients\": [\"egg\"],\n \"location\": }}", f).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Syntax { line: 2, .. }), "{e}");
    let cyc = r#"{"a": {"ingredients": ["b"], "location": "pot"}, "b": {"ingredients": ["a"], "location": "pan"}}"#;
    let e = parse_recipes(cyc, f).unwrap_err();
    assert!(e.to_string().contains("cycle"), "{e}");
}

#[test]
fn hostile_level_files_name_file_and_path() {
    let f = Path::new("tasks.json");
    let book = parse_recipes(RECIPES, Path::new("recipe.json")).unwrap();
    let level = |task: &str, kitchen: &str| {
        format!(
            r#"{{"level_0": {{"task_interval": 5, "task_list": {{{task}}}, "kitchen": [{kitchen}], "num_agents": 2}}}}"#
        )
    };
    let ok_task = r#""cake": {"ingredients": ["cake"], "location": "servingtable", "task_lifetime": 10}"#;
    let ok_kitchen = r#""storage", "servingtable", "blender""#;
    assert_eq!(parse_levels(&level(ok_task, ok_kitchen), f, &book).unwrap().len(), 1);
    // An unknown key.
    let t = r#""cake": {"ingredients": ["cake"], "location": "servingtable", "task_lifetime": 10, "reward": 3}"#;
    let e = parse_levels(&level(t, ok_kitchen), f, &book).unwrap_err();
    assert_eq!(e.json_path(), Some("$.level_0.task_list.cake.reward"));
    assert!(e.to_string().contains("tasks.json") && e.to_string().contains("reward"), "{e}");
    // A dish no recipe makes.
    let t = r#""pizza": {"ingredients": ["pizza"], "location": "servingtable", "task_lifetime": 10}"#;
    let e = parse_levels(&level(t, ok_kitchen), f, &book).unwrap_err();
    assert_eq!(e.json_path(), Some("$.level_0.task_list.pizza"));
    assert!(e.to_string().contains("no recipe makes \"pizza\""), "{e}");
    // An unknown tool in the kitchen.
    let e = parse_levels(&level(ok_task, r#""storage", "servingtable", "wok""#), f, &book).unwrap_err();
    assert_eq!(e.json_path(), Some("$.level_0.kitchen[2]"));
    // A missing tool: loads, but not completable.
    let levels = parse_levels(&level(ok_task, r#""storage", "servingtable""#), f, &book).unwrap();
    let err = levels[0].completable(&book).unwrap_err().to_string();
    assert!(err.contains("needs a blender"), "{err}");
    // Bad JSON.
    let e = parse_levels("{\"level_0\": [", f, &book).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Syntax { .. }), "{e}");
    // A missing field.
    let e = parse_levels(r#"{"level_0": {"task_interval": 5}}"#, f, &book).unwrap_err();
    assert!(e.to_string().contains("missing field"), "{e}");
}
