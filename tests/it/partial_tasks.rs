//! Task files with cells that can never be built run partial: the cells are
//! left out with a warning each, counted as `cells_dropped` in `--json` and the trace,
//! and the listing says "partial"; `check` names the task of each error and reads a
//! file in one pass; `--agents` deals a task's inventories out to another crew size.

use std::path::{Path, PathBuf};

use gatecrew_crew::Policy;
use gatecrew_protocol::trace::EventKind;
use gatecrew_tasks::{Aliases, TaskFile, TaskOptions};
use serde_json::{Value, json};

use crate::cli::gatecrew;
use crate::common::{data, run_events};

/// A MineCollab task as MindCraft's generator writes them: one 2-D grid per level,
/// doors as two `dark_oak_door` cells, a carpet on the floor, and the two cells the
/// generator writes that can never stand: a carpet over an air cell of the room and a
/// one-cell door under the wall block above it.
fn generated_house() -> Value {
    let (w, d) = (5usize, 5usize);
    let mut levels = Vec::new();
    for y in 0..5i32 {
        let mut grid = vec![vec!["air".to_owned(); w]; d];
        for (z, row) in grid.iter_mut().enumerate() {
            for (x, cell) in row.iter_mut().enumerate() {
                let edge = x == 0 || z == 0 || x == w - 1 || z == d - 1;
                *cell = match y {
                    0 => "stone",
                    1..=3 if edge => "stone",
                    _ => "air",
                }
                .to_owned();
            }
        }
        match y {
            1 => {
                grid[0][2] = "dark_oak_door".into();
                grid[2][2] = "light_blue_carpet".into();
            }
            2 => {
                grid[0][2] = "dark_oak_door".into();
                // Over the air of the room below: it can never stay there.
                grid[2][1] = "lime_carpet".into();
            }
            // A one-cell door with the wall block of level 4 above it.
            3 => grid[2][0] = "dark_oak_door".into(),
            4 => grid[2][0] = "stone".into(),
            _ => {}
        }
        levels.push(json!({"level": y, "coordinates": [148, -60 + y, -170], "placement": grid}));
    }
    json!({
        "type": "construction",
        "goal": "Make a house with the blueprint",
        "agent_count": 2,
        "timeout": 600,
        "initial_inventory": {
            "0": {"diamond_pickaxe": 1, "stone": 40, "dark_oak_door": 1, "light_blue_carpet": 1, "dirt": 128},
            "1": {"diamond_pickaxe": 1, "stone": 40, "dark_oak_door": 1, "lime_carpet": 1, "dirt": 128}
        },
        "blueprint": {"levels": levels}
    })
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

#[test]
fn a_generated_task_with_a_carpet_over_air_runs_partial_with_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "gen.json", &json!({"house": generated_house()}));
    let task = TaskFile::read(&file).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    assert_eq!(task.cells_dropped(), 2, "{:#?}", task.warnings);
    let mut left: Vec<String> = task.left_out.iter().map(|c| c.pos.to_string()).collect();
    left.sort();
    assert_eq!(left, ["[148, -57, -168]", "[149, -58, -168]"]);
    // Each warning names the cell (the file's coordinates) and why.
    let text: Vec<String> = task.warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|w| w.contains("lime_carpet") && w.contains("[149, -58, -168]") && w.contains("[149, -59, -168]")),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|w| w.contains("dark_oak_door at [148, -57, -168] needs the cell above free")),
        "{text:#?}"
    );
    assert_eq!(task.cells.len() + task.dropped(), task.described);

    let trace = dir.path().join("t.jsonl");
    let (code, out, err) =
        gatecrew(&["run", "--task", file.to_str().unwrap(), "--json", "--stepper", "--trace", trace.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["cells_dropped"].as_u64(), Some(2), "{v}");
    assert_eq!(v["complete"].as_bool(), Some(true), "the rest is built: {v}");
    // MindCraft scores every cell of its grid: the two left out are its mismatches.
    assert_eq!((v["mindcraft_matches"].as_u64(), v["mindcraft_mismatches"].as_u64()), (Some(74), Some(2)), "{v}");
    let first = std::fs::read_to_string(&trace).unwrap().lines().next().unwrap().to_owned();
    let start: gatecrew_protocol::trace::Event = serde_json::from_str(&first).unwrap();
    let EventKind::EpisodeStart { cells_dropped, warnings, .. } = start.kind else { panic!("{first}") };
    assert_eq!(cells_dropped, Some(2));
    assert_eq!(warnings.iter().filter(|w| w.contains("left out")).count(), 2, "{warnings:#?}");
}

#[test]
fn the_listing_says_partial_with_the_count_and_check_names_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let mut whole = generated_house();
    // The same house without the two cells that cannot stand.
    whole["blueprint"]["levels"][2]["placement"][2][1] = json!("air");
    whole["blueprint"]["levels"][3]["placement"][2][0] = json!("stone");
    let mut crowded = generated_house();
    crowded["initial_inventory"]["0"]["cobblestone"] = json!(2000);
    let file =
        write(dir.path(), "three.json", &json!({"house": generated_house(), "whole": whole, "crowded": crowded}));
    let (code, out, _) = gatecrew(&["run", "--task", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    let row = |id: &str| out.lines().find(|l| l.contains(&format!(" {id} "))).unwrap_or_default().to_owned();
    assert!(row("house").contains("partial: 2 cells left out"), "{out}");
    assert!(row("whole").contains(" ok "), "{out}");
    assert!(out.contains("3 tasks (minecollab), 2 partial"), "{out}");

    let (code, _, err) = gatecrew(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("task \"crowded\": ") && errors[0].contains("slots"), "{err}");
    assert!(err.contains("3 tasks;") && err.contains("2 tasks partial (4 cells left out"), "{err}");
}

/// `check` reads a file once: a pipe, which can be read only once, checks as the file.
#[cfg(unix)]
#[test]
fn check_reads_a_task_file_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let tasks: serde_json::Map<String, Value> = (0..40).map(|i| (format!("t{i}"), generated_house())).collect();
    let text = serde_json::to_string(&Value::Object(tasks)).unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(fifo, text))
    };
    let (code, out, err) = gatecrew(&["check", fifo.to_str().unwrap()]);
    writer.join().unwrap().unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pipe.json: ok"), "{out}");
    assert!(err.contains("40 tasks;") && err.contains("40 tasks partial (80 cells left out"), "{err}");
}

#[test]
fn agents_deals_a_task_files_inventories_out_and_the_crew_cap_is_the_configs() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = generated_house();
    big["agent_count"] = json!(20);
    let file = write(dir.path(), "big.json", &json!({"house": big.clone()}));
    let task = TaskFile::read(&file).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    assert_eq!(task.agent_count, Some(20), "a crew of 20 is no longer refused");
    let file = write(dir.path(), "two.json", &json!({"house": generated_house()}));
    let task = TaskFile::read(&file).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    let total = |s: &gatecrew_crew::Setup| s.world.item_census();
    let opts = |agents| TaskOptions { data: data(), seed: 7, policy: Policy::Gated, agents };
    let two = gatecrew_tasks::setup(&task, &file, &opts(None)).unwrap();
    for n in [1usize, 5, 30] {
        let s = gatecrew_tasks::setup(&task, &file, &opts(Some(n))).unwrap();
        assert_eq!(s.world.agent_count(), n);
        assert_eq!(total(&s), total(&two), "{n} bots: nothing created or lost");
        let events = run_events(&s);
        let Some(EventKind::EpisodeEnd { complete, .. }) = events.last().map(|e| &e.kind) else { panic!() };
        assert!(complete, "{n} bots complete the house");
    }
}
