//! Cells a bot gave up on after repeated attempts to get at them come back once a block
//! of the blueprint is laid near them, as far as the bot knows: which cells are tried
//! first decides which can be got at yet (an upper storey's, before the storey below it
//! stands, cannot).

use gatecrew_crew::Policy;
use gatecrew_protocol::trace::{EventKind, IssueName};
use gatecrew_tasks::{Aliases, TaskFile, TaskOptions};

use crate::building::run;
use crate::common::{data, root};

/// A two-storey house of MineCollab's own generator for five bots (one entry of its
/// `test/5agents.json` at seed 1, run as `gatecrew run --task` runs it, seed 7): cells
/// of the upper storey are tried while the storey below is still going up, found out of
/// reach, and given up; everything resting on them would follow. The house completes.
#[test]
fn a_generated_two_storey_house_whose_upper_cells_were_given_up_first_completes() {
    let file = root().join(
        "tests/fixtures/external/minecollab/generated_5agents_materials_1_rooms_2_window_1_carpet_2_variant_1.json",
    );
    let data = data();
    let task = TaskFile::read(&file).unwrap().import(None, &data, &Aliases::none()).unwrap();
    let opts = TaskOptions { data: data.clone(), seed: 7, policy: Policy::Gated, agents: None };
    let s = gatecrew_tasks::setup(&task, &file, &opts).unwrap();
    let (events, _) = run(&s);
    let given_up = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Issue { issue, .. } if *issue == IssueName::Unreachable))
        .count();
    assert!(given_up > 0, "no cell was out of reach: the house does not test what it is for");
    let Some(EventKind::EpisodeEnd { complete, tsr, .. }) = events.last().map(|e| &e.kind) else { panic!("no end") };
    let left: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Unfinished { why, .. } => Some(why.clone()),
            _ => None,
        })
        .take(5)
        .collect();
    assert!(*complete, "tsr {tsr}: {left:?}");
}
