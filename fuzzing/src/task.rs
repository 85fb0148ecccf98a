//! Task files of other systems: arbitrary bytes read as a MineCollab or VillagerBench
//! file, every task in it imported, and the small ones set up as an episode, as
//! `gatecrew run --task FILE --task-id ID` does.
//!
//! An imported task must hold each position once, name only known blocks and items,
//! and give a crew of 1 to 16 with one in-bounds inventory each; a set-up episode must
//! have the task's blocks in its blueprint and a world that holds the blueprint. A file
//! that cannot be used must say so naming the file (and the JSON path where there is
//! one).

use std::collections::BTreeSet;
use std::path::Path;

use gatecrew_crew::Policy;
use gatecrew_protocol::{MAX_COUNT, Pos};
use gatecrew_tasks::{ImportedTask, TaskError, TaskFile, TaskOptions, setup};

use crate::data::{aliases, game_data};

const PATH: &str = "fuzz.json";
/// Tasks imported per input: enough to reach every format's paths, few enough to keep
/// an execution short.
const MAX_TASKS: usize = 4;
/// Larger tasks are imported but not set up: building the plan is linear in the cells
/// and would dominate the run without reaching new code.
const MAX_SETUP_CELLS: usize = 4096;

/// The `task_file` target.
pub fn task_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new(PATH);
    let file = match TaskFile::parse(text, path) {
        Ok(f) => f,
        Err(e) => return check_error(&e),
    };
    assert!(!file.ids().is_empty(), "a task file without tasks was accepted");
    assert_eq!(file.listing().len(), file.ids().len());
    let ids: Vec<String> = file.ids().into_iter().take(MAX_TASKS).map(str::to_owned).collect();
    for id in &ids {
        match file.import(Some(id), game_data(), aliases()) {
            Ok(task) => {
                check_task(&task);
                if task.cells.len() <= MAX_SETUP_CELLS {
                    set_up(&task);
                }
            }
            Err(e) => check_error(&e),
        }
    }
}

fn check_error(e: &TaskError) {
    let shown = e.to_string();
    assert_eq!(e.file(), Path::new(PATH));
    assert!(shown.starts_with(PATH), "the error does not name the file: {shown}");
    if let Some(p) = e.json_path() {
        assert!(p.starts_with('$'), "not a JSON path: {p}");
    }
}

fn check_task(task: &ImportedTask) {
    let data = game_data();
    let positions: BTreeSet<Pos> = task.cells.iter().map(|c| c.pos).collect();
    assert_eq!(positions.len(), task.cells.len(), "a position given twice");
    for c in &task.cells {
        // Resolved ids index the data without panicking.
        let _ = data.block_info(c.block);
    }
    if let Some(invs) = &task.inventories {
        assert_eq!(Some(invs.len()), task.agent_count, "one inventory per agent");
        for inv in invs {
            for &(item, count) in inv {
                assert!(data.items().contains(item), "an item id outside the data");
                assert!((1..=MAX_COUNT).contains(&count), "an inventory count of {count}");
            }
        }
    }
    if let Some(n) = task.agent_count {
        assert!((1..=16).contains(&n), "a crew of {n}");
    }
}

fn set_up(task: &ImportedTask) {
    let opts = TaskOptions { data: game_data().clone(), seed: 7, policy: Policy::Gated, agents: None };
    let s = match setup(task, Path::new(PATH), &opts) {
        Ok(s) => s,
        Err(e) => return check_error(&e),
    };
    let bounds = s.world.grid().bounds();
    for c in s.blueprint.cells() {
        assert!(bounds.contains(c.pos), "blueprint cell {} outside the world {bounds:?}", c.pos);
    }
    assert_eq!(s.blueprint.len(), s.blueprint.cells().len());
    assert!(task.blocks().count() <= s.blueprint.len(), "task blocks went missing from the blueprint");
    assert!(s.world.agent_count() >= 1);
    if let Some(n) = task.agent_count {
        assert_eq!(s.world.agent_count(), n, "the crew is not the size the file gives");
    }
}
