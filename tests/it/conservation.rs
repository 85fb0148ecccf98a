//! Items are never created or lost: every change of the world's item census is booked
//! by a recipe step, a mining drop or a placed block, and transfers move items
//! without changing the census at all.

use std::collections::BTreeMap;

use gatecrew_protocol::{AgentId, ItemId, Pos, WindowId};
use gatecrew_world::{Action, World};
use proptest::prelude::*;

use crate::common::{default_setup, inv, item, world};

fn census_matches(w: &World, start: &BTreeMap<ItemId, u64>) {
    let broken = gatecrew_crew::invariants::conservation(start, w);
    assert!(broken.is_empty(), "items changed without a booked step: {broken:?}");
}

/// Three bots (glass 16, 5, none) around a chest.
fn three_bots(mut w: World) -> World {
    w.add_agent(Pos::new(0, 0, 0), inv(&[("glass", 16)]));
    w.add_agent(Pos::new(2, 0, 0), inv(&[("glass", 5)]));
    w.add_agent(Pos::new(0, 0, 2), inv(&[]));
    w.put_chest(CHEST, World::chest_inventory());
    w
}

const CHEST: Pos = Pos::new(1, 0, 1);

/// The acting bot and its action; a give is tagged with `window`.
fn action(w: &World, op: Op, window: Option<WindowId>) -> (AgentId, Action) {
    let glass = item("glass");
    let (who, action) = match op {
        Op::Give(a, b, n) => (a, Action::Give { to: AgentId(b), item: glass, count: n, window }),
        Op::Drop(a, n) => (a, Action::Drop { item: glass, count: n }),
        Op::PickUp(a, b) => (a, Action::PickUp { pos: w.body(AgentId(b)).map(|b| b.pos).unwrap_or_default() }),
        Op::Deposit(a, n) => (a, Action::Deposit { chest: CHEST, item: glass, count: n }),
        Op::Withdraw(a, n) => (a, Action::Withdraw { chest: CHEST, item: glass, count: n }),
        Op::Move(a, x, z) => (a, Action::MoveTo { target: Pos::new(x, 0, z), range: 0.0 }),
    };
    (AgentId(who), action)
}

#[derive(Debug, Clone)]
enum Op {
    Give(u32, u32, u32),
    Drop(u32, u32),
    PickUp(u32, u32),
    Deposit(u32, u32),
    Withdraw(u32, u32),
    Move(u32, i32, i32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3u32, 0..3u32, 0..20u32).prop_map(|(a, b, n)| Op::Give(a, b, n)),
        (0..3u32, 0..20u32).prop_map(|(a, n)| Op::Drop(a, n)),
        (0..3u32, 0..3u32).prop_map(|(a, b)| Op::PickUp(a, b)),
        (0..3u32, 0..20u32).prop_map(|(a, n)| Op::Deposit(a, n)),
        (0..3u32, 0..20u32).prop_map(|(a, n)| Op::Withdraw(a, n)),
        (0..3u32, -3..4i32, -3..4i32).prop_map(|(a, x, z)| Op::Move(a, x, z)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn transfers_conserve_items(ops in prop::collection::vec(op(), 1..60)) {
        let mut w = three_bots(world());
        let start = w.item_census();
        for op in ops {
            let (who, action) = action(&w, op, None);
            let pending = w.begin(who, action);
            w.complete(who, pending);
            census_matches(&w, &start);
            prop_assert!(w.ledger().values().all(|v| *v == 0), "transfers book nothing");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The same sequences with the world's faults on (injected failures, blocks dropped
    /// on paths) and hand-overs tagged with a few window ids, some repeated: still
    /// nothing is created or lost, and no window is handed over twice.
    #[test]
    fn transfers_conserve_items_under_faults(
        ops in prop::collection::vec((op(), 0..4u32), 1..60),
        fail in 0.0..0.5f64,
        block in 0.0..0.5f64,
    ) {
        let mut w = world();
        w.set_failure_rate(fail);
        w.set_path_blocks(block, w.data().block("cobblestone").unwrap());
        let mut w = three_bots(w);
        let start = w.item_census();
        let mut given = std::collections::BTreeSet::new();
        for (op, window) in ops {
            let (who, action) = action(&w, op, Some(WindowId(window)));
            let pending = w.begin(who, action);
            let (o, receipt) = w.complete(who, pending);
            if let (Action::Give { window: Some(win), .. }, true) = (action, o.ok()) {
                prop_assert!(given.insert(win), "window {win:?} handed over twice");
                prop_assert!(receipt.is_some());
            }
            census_matches(&w, &start);
            prop_assert!(w.ledger().values().all(|v| *v == 0), "transfers book nothing");
        }
    }
}

#[test]
fn the_default_episode_books_every_change() {
    let setup = default_setup();
    let start = setup.world.item_census();
    let (finished, episode) = gatecrew_crew::run_to_end(&setup, &mut |_: &_| {});
    assert!(finished.progress.correct > 0);
    census_matches(episode.world(), &start);
    // The ledger is not trivially empty: blocks were placed and planks crafted.
    assert!(episode.world().ledger().get(&item("oak_planks")).is_some());
}
