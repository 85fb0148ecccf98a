use std::path::Path;
use std::sync::Arc;

use gatecrew_world::{Bounds, GameData, Rules};

use super::*;

fn data() -> Arc<GameData> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json");
    Arc::new(GameData::load(Path::new(p)).unwrap())
}

/// One bot at the origin of a 64 x 16 x 64 field, a tree 25 blocks away (outside the
/// default view of 16), a teammate beside it holding planks it never gives.
fn scene() -> (World, Blueprint, ItemId) {
    let d = data();
    let bounds = Bounds { min: Pos::new(-32, 0, -32), max: Pos::new(32, 15, 32) };
    let mut w = World::new(d.clone(), bounds, Rules::default(), 7).unwrap();
    let log = d.block("oak_log").unwrap();
    for y in 0..3 {
        assert!(w.put_natural(Pos::new(25, y, 0), log));
    }
    w.add_agent(Pos::new(0, 0, 0), World::agent_inventory());
    let planks = d.item("oak_planks").unwrap();
    let mut mate = World::agent_inventory();
    mate.insert_unchecked(planks, 64);
    w.add_agent(Pos::new(1, 0, 0), mate);
    let stone = d.block("stone").unwrap();
    let bp = Blueprint::from_blocks("wall", [(Pos::new(-5, 0, -5), stone)], &d).unwrap();
    (w, bp, planks)
}

/// The rollout walks to the tree, mines a log and crafts planks on the clone: it takes
/// some ticks, more at a bigger distance than the walk alone; the world it was given
/// is left untouched, and a second rollout answers the same.
#[test]
fn the_rollout_finds_a_far_tree_leaves_the_world_untouched_and_repeats_itself() {
    let (w, bp, planks) = scene();
    let before = format!("{w:?}");
    let bot = AgentId(0);
    let first = rollout(&w, &bp, bot, planks, 4, BUDGETS[3]);
    let ticks = first.expect("a tree 25 blocks away is a local route with full knowledge");
    // About 20 blocks of walking at 5 ticks a block, a log, a craft.
    assert!((100..600).contains(&ticks), "{ticks}");
    assert_eq!(format!("{w:?}"), before, "the rollout changed the world it was given");
    assert_eq!(rollout(&w, &bp, bot, planks, 4, BUDGETS[3]), first);
    // The teammate's planks are not a source: without the tree there is no route.
    let mut bare = w.clone();
    for y in 0..3 {
        bare.put_natural(Pos::new(25, y, 0), BlockId::AIR);
    }
    assert_eq!(rollout(&bare, &bp, bot, planks, 4, BUDGETS[3]), None);
    // A budget below the walk is not enough.
    assert_eq!(rollout(&w, &bp, bot, planks, 4, 50), None);
    // Held already: no ticks at all.
    assert_eq!(rollout(&w, &bp, AgentId(1), planks, 4, BUDGETS[0]), Some(0));
}
