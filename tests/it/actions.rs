//! Every world action: its success with the verified delta and its tick cost, and each
//! of its failure reasons, which must leave the world unchanged.

use gatecrew_protocol::{AgentId, Pos};
use gatecrew_world::{Action, Failure, Outcome, World};

use crate::common::{data, inv, item, world};

const A: AgentId = AgentId(0);
const B: AgentId = AgentId(1);

fn act(w: &mut World, who: AgentId, action: Action) -> Outcome {
    let pending = w.begin(who, action);
    w.complete(who, pending).0
}

/// Runs an action that must fail, checks the reason, and checks that nothing changed.
fn fails(w: &mut World, who: AgentId, action: Action, expect: fn(&Failure) -> bool) {
    let census = w.item_census();
    let grid = w.grid().clone();
    let bodies: Vec<_> = (0..w.agent_count()).map(|i| w.body(AgentId(i as u32)).cloned()).collect();
    let chests = w.chests().clone();
    let o = act(w, who, action);
    let f = o.result.expect_err("the action must fail");
    assert!(expect(&f), "unexpected failure {f:?} for {action:?}");
    assert_eq!(w.item_census(), census, "a failure must not move items");
    assert!(w.grid() == &grid, "a failure must not change blocks");
    let after: Vec<_> = (0..w.agent_count()).map(|i| w.body(AgentId(i as u32)).cloned()).collect();
    assert_eq!(after, bodies, "a failure must not change bodies");
    assert_eq!(w.chests(), &chests);
}

fn block(name: &str) -> gatecrew_world::BlockId {
    data().block(name).expect("known block")
}

#[test]
fn move_to_walks_and_prices_the_path() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[]));
    let o = act(&mut w, A, Action::MoveTo { target: Pos::new(6, 0, 0), range: 0.0 });
    assert_eq!(o.result.as_ref().unwrap().moved_to, Some(Pos::new(6, 0, 0)));
    assert_eq!(o.ticks, 6 * 5, "six blocks at five ticks each");
    // A one-block step up costs the climb on top.
    w.put_natural(Pos::new(7, 0, 0), block("stone"));
    let o = act(&mut w, A, Action::MoveTo { target: Pos::new(7, 1, 0), range: 0.0 });
    assert_eq!(o.ticks, 5 + 2);
    assert_eq!(w.body(A).unwrap().pos, Pos::new(7, 1, 0));
}

#[test]
fn move_to_fails_without_a_path_or_when_the_end_gets_blocked() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[]));
    // A pit two blocks deep can't be climbed out of: walls of height 2 around the target.
    for (x, z) in [(4, 3), (4, 5), (3, 4), (5, 4)] {
        w.put_natural(Pos::new(x, 0, z), block("stone"));
        w.put_natural(Pos::new(x, 1, z), block("stone"));
    }
    fails(&mut w, A, Action::MoveTo { target: Pos::new(4, 0, 4), range: 0.0 }, |f| matches!(f, Failure::NoPath { .. }));
    let pending = w.begin(A, Action::MoveTo { target: Pos::new(0, 0, 6), range: 0.0 });
    w.put_natural(Pos::new(0, 1, 6), block("stone"));
    let (o, _) = w.complete(A, pending);
    assert!(matches!(o.result, Err(Failure::PathBlocked { .. })));
    assert_eq!(w.body(A).unwrap().pos, Pos::new(0, 0, 0));
}

#[test]
fn mine_collects_drops_at_the_right_speed() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[]));
    w.put_natural(Pos::new(1, 0, 0), block("oak_log"));
    let o = act(&mut w, A, Action::Mine { pos: Pos::new(1, 0, 0) });
    assert_eq!(o.ticks, 60, "hardness 2 by hand: 2 * 1.5 s = 60 ticks");
    assert_eq!(o.result.unwrap().items, vec![(item("oak_log"), 1)]);
    assert_eq!(w.block_at(Pos::new(1, 0, 0)), gatecrew_world::BlockId::AIR);
    // Stone with a wooden pickaxe drops cobblestone, at the pickaxe's speed.
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("wooden_pickaxe", 1)]));
    w.put_natural(Pos::new(1, 0, 0), block("stone"));
    let o = act(&mut w, A, Action::Mine { pos: Pos::new(1, 0, 0) });
    assert_eq!(o.ticks, 23, "hardness 1.5 * 1.5 s / speed 2 = 1.125 s = 22.5 ticks, rounded up");
    assert_eq!(o.result.unwrap().items, vec![(item("cobblestone"), 1)]);
}

#[test]
fn mine_failures() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[]));
    w.put_natural(Pos::new(1, 0, 0), block("stone"));
    w.put_natural(Pos::new(0, 0, 1), block("bedrock"));
    w.put_natural(Pos::new(9, 0, 9), block("oak_log"));
    fails(&mut w, A, Action::Mine { pos: Pos::new(1, 0, 0) }, |f| matches!(f, Failure::MissingTool { .. }));
    fails(&mut w, A, Action::Mine { pos: Pos::new(0, 0, 1) }, |f| matches!(f, Failure::Unbreakable { .. }));
    fails(&mut w, A, Action::Mine { pos: Pos::new(2, 0, 2) }, |f| matches!(f, Failure::NothingThere { .. }));
    fails(&mut w, A, Action::Mine { pos: Pos::new(9, 0, 9) }, |f| matches!(f, Failure::OutOfReach { .. }));
    fails(&mut w, A, Action::Mine { pos: Pos::new(99, 0, 0) }, |f| matches!(f, Failure::OutOfBounds { .. }));
    // A full inventory cannot take the drop.
    let mut w = world();
    let full: Vec<(&str, u32)> = vec![("dirt", 64 * 36)];
    w.add_agent(Pos::new(0, 0, 0), inv(&full));
    w.put_natural(Pos::new(1, 0, 0), block("oak_log"));
    fails(&mut w, A, Action::Mine { pos: Pos::new(1, 0, 0) }, |f| matches!(f, Failure::InventoryFull));
}

#[test]
fn craft_in_the_inventory_and_at_a_table() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("oak_log", 2), ("oak_planks", 4)]));
    let planks = *data()
        .recipes_for(item("oak_planks"))
        .iter()
        .find(|r| data().recipe(**r).ingredients == vec![(item("oak_log"), 1)])
        .expect("planks from oak logs");
    let o = act(&mut w, A, Action::Craft { recipe: planks, times: 2 });
    assert_eq!(o.ticks, 10);
    let mut expect = vec![(item("oak_planks"), 8), (item("oak_log"), -2)];
    expect.sort();
    assert_eq!(o.result.unwrap().items, expect);
    let chest = data().recipes_for(item("chest"))[0];
    fails(&mut w, A, Action::Craft { recipe: chest, times: 1 }, |f| matches!(f, Failure::NeedsTable));
    w.put_table(Pos::new(2, 0, 0));
    let chest = *data()
        .recipes_for(item("chest"))
        .iter()
        .find(|r| data().recipe(**r).ingredients == vec![(item("oak_planks"), 8)])
        .expect("an oak chest recipe");
    let o = act(&mut w, A, Action::Craft { recipe: chest, times: 1 });
    assert!(o.ok(), "{o:?}");
    assert_eq!(w.body(A).unwrap().inventory.count(item("chest")), 1);
    fails(&mut w, A, Action::Craft { recipe: chest, times: 1 }, |f| matches!(f, Failure::MissingItems { .. }));
    fails(&mut w, A, Action::Craft { recipe: planks, times: 0 }, |f| matches!(f, Failure::ZeroCount));
}

#[test]
fn smelt_in_a_furnace() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("sand", 3), ("coal", 1), ("stick", 4)]));
    w.put_furnace(Pos::new(1, 0, 0));
    let o =
        act(&mut w, A, Action::Smelt { furnace: Pos::new(1, 0, 0), input: item("sand"), count: 3, fuel: item("coal") });
    assert_eq!(o.ticks, 600);
    let d = o.result.unwrap();
    assert!(d.items.contains(&(item("glass"), 3)) && d.items.contains(&(item("coal"), -1)));
    assert_eq!(w.furnaces()[&Pos::new(1, 0, 0)].fuel_left, 1600 - 600, "coal burns on");
    fails(
        &mut w,
        A,
        Action::Smelt { furnace: Pos::new(3, 0, 3), input: item("sand"), count: 1, fuel: item("coal") },
        |f| matches!(f, Failure::NoContainer { .. }),
    );
    fails(
        &mut w,
        A,
        Action::Smelt { furnace: Pos::new(1, 0, 0), input: item("stick"), count: 1, fuel: item("coal") },
        |f| matches!(f, Failure::NotSmeltable { .. }),
    );
    fails(
        &mut w,
        A,
        Action::Smelt { furnace: Pos::new(1, 0, 0), input: item("sand"), count: 1, fuel: item("glass") },
        |f| matches!(f, Failure::NotFuel { .. }),
    );
    fails(
        &mut w,
        A,
        Action::Smelt { furnace: Pos::new(1, 0, 0), input: item("sand"), count: 5, fuel: item("stick") },
        |f| matches!(f, Failure::MissingItems { .. }),
    );
}

#[test]
fn place_blocks_with_support_reach_and_room() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("cobblestone", 3), ("oak_door", 1), ("stick", 1)]));
    let o = act(&mut w, A, Action::place(Pos::new(2, 0, 0), item("cobblestone")));
    assert_eq!(o.result.unwrap().placed, vec![(Pos::new(2, 0, 0), block("cobblestone"))]);
    // A door fills two cells with one item.
    let o = act(&mut w, A, Action::place(Pos::new(0, 0, 2), item("oak_door")));
    assert_eq!(o.result.unwrap().placed.len(), 2);
    assert_eq!(w.block_at(Pos::new(0, 1, 2)), block("oak_door"));
    fails(&mut w, A, Action::place(Pos::new(2, 0, 0), item("cobblestone")), |f| matches!(f, Failure::Occupied { .. }));
    fails(&mut w, A, Action::place(Pos::new(0, 1, 0), item("cobblestone")), |f| matches!(f, Failure::Occupied { .. }));
    fails(&mut w, A, Action::place(Pos::new(1, 3, 1), item("cobblestone")), |f| matches!(f, Failure::NoSupport { .. }));
    fails(&mut w, A, Action::place(Pos::new(8, 0, 8), item("cobblestone")), |f| {
        matches!(f, Failure::OutOfReach { .. })
    });
    fails(&mut w, A, Action::place(Pos::new(1, 0, 1), item("stick")), |f| matches!(f, Failure::NotPlaceable { .. }));
    fails(&mut w, A, Action::place(Pos::new(1, 0, 1), item("glass")), |f| matches!(f, Failure::MissingItems { .. }));
}

#[test]
fn give_moves_items_to_a_teammate_in_reach() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("glass", 4)]));
    w.add_agent(Pos::new(3, 0, 0), inv(&[]));
    let pending = w.begin(A, Action::Give { to: B, item: item("glass"), count: 2, window: None });
    let (o, receipt) = w.complete(A, pending);
    assert_eq!(o.result.unwrap().items, vec![(item("glass"), -2)]);
    let (to, r) = receipt.expect("the receiver gets a receipt");
    assert_eq!((to, r.from, r.item, r.count), (B, A, item("glass"), 2));
    assert_eq!(w.body(B).unwrap().inventory.count(item("glass")), 2);
    fails(&mut w, A, Action::Give { to: A, item: item("glass"), count: 1, window: None }, |f| {
        matches!(f, Failure::UnknownAgent { .. })
    });
    fails(&mut w, A, Action::Give { to: AgentId(7), item: item("glass"), count: 1, window: None }, |f| {
        matches!(f, Failure::UnknownAgent { .. })
    });
    fails(&mut w, A, Action::Give { to: B, item: item("glass"), count: 5, window: None }, |f| {
        matches!(f, Failure::MissingItems { .. })
    });
    let mut far = world();
    far.add_agent(Pos::new(0, 0, 0), inv(&[("glass", 4)]));
    far.add_agent(Pos::new(8, 0, 0), inv(&[]));
    fails(&mut far, A, Action::Give { to: B, item: item("glass"), count: 1, window: None }, |f| {
        matches!(f, Failure::OutOfReach { .. })
    });
    let mut full = world();
    full.add_agent(Pos::new(0, 0, 0), inv(&[("glass", 4)]));
    full.add_agent(Pos::new(1, 0, 0), inv(&[("dirt", 64 * 36)]));
    fails(&mut full, A, Action::Give { to: B, item: item("glass"), count: 1, window: None }, |f| {
        matches!(f, Failure::ReceiverFull)
    });
}

#[test]
fn drop_and_pick_up() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("oak_planks", 5)]));
    w.add_agent(Pos::new(2, 0, 0), inv(&[]));
    let o = act(&mut w, A, Action::Drop { item: item("oak_planks"), count: 3 });
    assert!(o.ok());
    assert_eq!(w.dropped()[&Pos::new(0, 0, 0)].count(item("oak_planks")), 3);
    let o = act(&mut w, B, Action::PickUp { pos: Pos::new(0, 0, 0) });
    assert_eq!(o.result.unwrap().items, vec![(item("oak_planks"), 3)]);
    assert!(w.dropped().is_empty());
    fails(&mut w, B, Action::PickUp { pos: Pos::new(0, 0, 0) }, |f| matches!(f, Failure::NothingThere { .. }));
    fails(&mut w, A, Action::Drop { item: item("oak_planks"), count: 9 }, |f| {
        matches!(f, Failure::MissingItems { .. })
    });
}

#[test]
fn deposit_and_withdraw() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("oak_log", 10)]));
    w.put_chest(Pos::new(1, 0, 0), World::chest_inventory());
    w.put_chest(Pos::new(9, 0, 9), World::chest_inventory());
    assert!(act(&mut w, A, Action::Deposit { chest: Pos::new(1, 0, 0), item: item("oak_log"), count: 6 }).ok());
    assert!(act(&mut w, A, Action::Withdraw { chest: Pos::new(1, 0, 0), item: item("oak_log"), count: 2 }).ok());
    assert_eq!(w.chests()[&Pos::new(1, 0, 0)].count(item("oak_log")), 4);
    assert_eq!(w.body(A).unwrap().inventory.count(item("oak_log")), 6);
    fails(&mut w, A, Action::Withdraw { chest: Pos::new(1, 0, 0), item: item("oak_log"), count: 5 }, |f| {
        matches!(f, Failure::ContainerShort { have: 4, need: 5 })
    });
    fails(&mut w, A, Action::Deposit { chest: Pos::new(2, 0, 2), item: item("oak_log"), count: 1 }, |f| {
        matches!(f, Failure::NoContainer { .. })
    });
    fails(&mut w, A, Action::Deposit { chest: Pos::new(9, 0, 9), item: item("oak_log"), count: 1 }, |f| {
        matches!(f, Failure::OutOfReach { .. })
    });
    let mut full = World::chest_inventory();
    full.add(data().items(), item("dirt"), 64 * 27).unwrap();
    w.put_chest(Pos::new(0, 0, 1), full);
    fails(&mut w, A, Action::Deposit { chest: Pos::new(0, 0, 1), item: item("oak_log"), count: 1 }, |f| {
        matches!(f, Failure::ContainerFull)
    });
}

#[test]
fn injected_faults_change_nothing() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("cobblestone", 1)]));
    w.set_failure_rate(1.0);
    fails(&mut w, A, Action::place(Pos::new(1, 0, 0), item("cobblestone")), |f| matches!(f, Failure::Injected));
}

#[test]
fn a_hand_over_is_applied_once_per_window() {
    let mut w = world();
    w.add_agent(Pos::new(0, 0, 0), inv(&[("glass", 4)]));
    w.add_agent(Pos::new(3, 0, 0), inv(&[]));
    let window = gatecrew_protocol::WindowId(3);
    let give = Action::Give { to: B, item: item("glass"), count: 2, window: Some(window) };
    let pending = w.begin(A, give);
    let (o, receipt) = w.complete(A, pending);
    assert!(o.ok());
    assert_eq!(receipt.unwrap().1.window, Some(window), "the receipt names the window");
    assert!(w.handed_over().contains(&window));
    // A replay of the same give (an agent restarted from a snapshot taken before it
    // learnt the outcome, a duplicated OFFER) changes nothing.
    let census = w.item_census();
    let pending = w.begin(A, give);
    let (o, receipt) = w.complete(A, pending);
    assert_eq!(o.result.unwrap_err(), Failure::AlreadyHandedOver { window });
    assert!(receipt.is_none());
    assert_eq!(w.item_census(), census);
    assert_eq!(w.body(B).unwrap().inventory.count(item("glass")), 2);
    // Another window is another transfer.
    let other = Action::Give { to: B, item: item("glass"), count: 1, window: Some(gatecrew_protocol::WindowId(4)) };
    let pending = w.begin(A, other);
    assert!(w.complete(A, pending).0.ok());
    assert_eq!(w.body(B).unwrap().inventory.count(item("glass")), 3);
}
