//! MindCraft's accuracy and VillagerBench's recall on hand-made partial builds, and
//! block states placed and kept by the world.

use gatecrew_crew::Policy as GatePolicy;
use gatecrew_crew::setup::EndScorer;
use gatecrew_protocol::Pos;
use gatecrew_tasks::{Aliases, TaskCell, TaskFile, TaskOptions, TaskScorer, mindcraft_accuracy, villager_recall};
use gatecrew_world::state::parse_block_spec;
use gatecrew_world::{Action, BlockId, BlockState, Blueprint, World};

use crate::common::{data, inv, item, world};

fn cell(x: i32, y: i32, z: i32, spec: &str) -> TaskCell {
    let (name, state) = parse_block_spec(spec).unwrap();
    TaskCell { pos: Pos::new(x, y, z), block: data().block(&name).unwrap(), state }
}

fn put(w: &mut World, x: i32, y: i32, z: i32, spec: &str) {
    let (name, state) = parse_block_spec(spec).unwrap();
    assert!(w.put_built(Pos::new(x, y, z), data().block(&name).unwrap(), state));
}

#[test]
fn hand_made_partial_build() {
    let target = vec![
        cell(0, 0, 0, "stone"),                    // A: built right
        cell(1, 0, 0, "oak_planks"),               // B: missing
        cell(2, 0, 0, "air"),                      // C: air in both, skipped
        cell(0, 0, 1, "oak_stairs[facing=north]"), // D: wrong facing
        cell(1, 0, 1, "air"),                      // E: an extra block there
        cell(2, 0, 1, "oak_log[axis=y]"),          // F: right, axis checked
        cell(2, 0, 2, "cobblestone"),              // G: wrong block
        cell(0, 0, 3, "oak_door[hinge=left]"),     // H: wrong hinge (not a facing)
    ];
    let mut w = world();
    put(&mut w, 0, 0, 0, "stone");
    put(&mut w, 0, 0, 1, "oak_stairs[facing=south,half=bottom]");
    put(&mut w, 1, 0, 1, "glass");
    put(&mut w, 2, 0, 1, "oak_log[axis=y]");
    put(&mut w, 2, 0, 2, "dirt");
    put(&mut w, 0, 0, 3, "oak_door[hinge=right]");
    put(&mut w, 5, 0, 5, "stone"); // outside every target cell: neither score sees it
    // MindCraft: matches A, F; mismatches B (missing), D (facing), E (extra), G (wrong),
    // H (hinge); C skipped. 2 / 7.
    let a = mindcraft_accuracy(&target, &w);
    assert_eq!((a.matches, a.mismatches), (2, 5));
    assert!((a.value() - 2.0 / 7.0).abs() < 1e-12);
    // VillagerBench: targets A B D F G H (6, air excluded); correct A, F and H (only the
    // facing letter is checked, the hinge is not). 3 / 6.
    let r = villager_recall(&target, &w);
    assert_eq!((r.correct, r.total), (3, 6));
    assert_eq!(r.value(), 0.5);
    // Nothing built: MindCraft counts the six non-air cells as mismatches.
    let empty = world();
    assert_eq!(mindcraft_accuracy(&target, &empty).value(), 0.0);
    assert_eq!(villager_recall(&target, &empty).correct, 0);
    // The scorer an imported episode carries writes both into episode_end.
    let s = TaskScorer::new(target).score(&w);
    assert_eq!(
        (s.mindcraft_matches, s.mindcraft_mismatches, s.villager_correct, s.villager_blocks),
        (Some(2), Some(5), Some(3), Some(6))
    );
}

#[test]
fn an_imported_task_scores_a_partial_world() {
    // task_25: a ladder facing north in a 3-high run, four stone-brick columns around it.
    let rel = "villagerbench/examples_task_0_25_50_64.json";
    let path = crate::common::root().join("tests/fixtures/external").join(rel);
    let task = TaskFile::read(&path).unwrap().import(Some("task_25"), &data(), &Aliases::none()).unwrap();
    let opts = TaskOptions { data: data(), seed: 7, policy: GatePolicy::Gated, agents: None };
    let setup = gatecrew_tasks::setup(&task, &path, &opts).unwrap();
    let scorer = setup.scorer.clone().unwrap();
    let mut w = setup.world.clone();
    let ladders: Vec<Pos> =
        setup.blueprint.cells().iter().filter(|c| setup.data.block_name(c.block) == "ladder").map(|c| c.pos).collect();
    assert_eq!(ladders.len(), 3);
    // Every stone brick right, ladders: one right, one facing south, one missing.
    for c in setup.blueprint.cells().iter().filter(|c| setup.data.block_name(c.block) == "stone_bricks") {
        assert!(w.put_built(c.pos, c.block, c.state));
    }
    put(&mut w, ladders[0].x, ladders[0].y, ladders[0].z, "ladder[facing=north]");
    put(&mut w, ladders[1].x, ladders[1].y, ladders[1].z, "ladder[facing=south]");
    let s = scorer.score(&w);
    assert_eq!((s.villager_correct, s.villager_blocks), (Some(13), Some(15)));
    assert_eq!((s.mindcraft_matches, s.mindcraft_mismatches), (Some(13), Some(2)));
}

#[test]
fn doors_are_placed_with_their_state_and_the_upper_half_follows() {
    let mut w = world();
    let a = w.add_agent(Pos::new(0, 0, 0), inv(&[("oak_door", 1)]));
    let (_, state) = parse_block_spec("oak_door[half=lower,hinge=left,facing=north]").unwrap();
    let p = w.begin(a, Action::Place { pos: Pos::new(0, 0, 2), item: item("oak_door"), state });
    assert!(w.complete(a, p).0.ok());
    assert_eq!(w.state_at(Pos::new(0, 0, 2)).to_string(), "[facing=north,half=lower,hinge=left]");
    assert_eq!(w.state_at(Pos::new(0, 1, 2)).to_string(), "[facing=north,half=upper,hinge=left]");
    // Mining removes the block and its state.
    let mut w2 = world();
    put(&mut w2, 1, 0, 1, "oak_log[axis=x]");
    let b = w2.add_agent(Pos::new(0, 0, 0), inv(&[]));
    let p = w2.begin(b, Action::Mine { pos: Pos::new(1, 0, 1) });
    assert!(w2.complete(b, p).0.ok());
    assert_eq!(w2.state_at(Pos::new(1, 0, 1)), BlockState::default());
    assert_eq!(w2.block_at(Pos::new(1, 0, 1)), BlockId::AIR);
}

#[test]
fn toml_blueprints_take_inline_states() {
    let text = r#"
name = "porch"
[[fill]]
from = [0, 0, 0]
to = [2, 0, 0]
block = "oak_planks"
[[block]]
at = [0, 0, 1]
block = "oak_door[half=lower, hinge=left, facing=south]"
[[block]]
at = [2, 0, 1]
block = "oak_stairs[facing=east]"
"#;
    let bp = Blueprint::parse(text, std::path::Path::new("porch.toml"), &data()).unwrap();
    let state = |p: Pos| bp.cell_at(p).unwrap().state.to_string();
    assert_eq!(state(Pos::new(0, 0, 1)), "[facing=south,half=lower,hinge=left]");
    assert_eq!(state(Pos::new(0, 1, 1)), "[facing=south,half=upper,hinge=left]", "the upper half follows");
    assert_eq!(state(Pos::new(2, 0, 1)), "[facing=east]");
    assert_eq!(state(Pos::new(1, 0, 0)), "");
    let bad = text.replace("facing=east", "facing=eats").replace("oak_planks", "oak_plank");
    let e = Blueprint::parse(&bad, std::path::Path::new("porch.toml"), &data()).unwrap_err().to_string();
    assert!(e.contains("2 unknown block names") && e.contains("line 6") && e.contains("line 12"), "{e}");
    assert!(e.contains("facing=eats is not valid"), "{e}");
}
