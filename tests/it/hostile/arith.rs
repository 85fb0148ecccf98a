//! Counts from chat and files that overflowed the cost model and the recipe planner:
//! "get 1100000000 crafting tables" panicked in debug builds and gave a wrong plan in
//! release.

use gatecrew_hitl::goal::Goal;
use gatecrew_hitl::plan::{Origin, Plan};
use gatecrew_hitl::recipe::{PlannerConfig, RecipePlanner};
use gatecrew_hitl::words::Vocabulary;
use gatecrew_protocol::{Count, ItemId, MAX_COUNT, Pos};
use gatecrew_world::cost::{Knowledge, Planner};
use gatecrew_world::{BlockId, GameData, TickCosts};

use crate::common::{data, item};

/// A bot that knows of everything, in huge numbers, far away: every route is priced and
/// every product large.
struct Everything<'d>(&'d GameData);

impl Knowledge for Everything<'_> {
    fn data(&self) -> &GameData {
        self.0
    }
    fn here(&self) -> Pos {
        Pos::new(0, 0, 0)
    }
    fn held(&self, _: ItemId) -> u32 {
        0
    }
    fn stored(&self, _: ItemId) -> Vec<(Pos, u32)> {
        vec![(Pos::new(i32::MAX, 0, i32::MAX), u32::MAX), (Pos::new(i32::MIN, 0, i32::MIN), u32::MAX)]
    }
    fn nearest_resource(&self, _: BlockId) -> Option<Pos> {
        Some(Pos::new(i32::MAX, 0, 0))
    }
    fn table(&self) -> Option<Pos> {
        None
    }
    fn furnace(&self) -> Option<Pos> {
        None
    }
    fn table_item(&self) -> Option<ItemId> {
        self.0.item("crafting_table").ok()
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.0.item("furnace").ok()
    }
    fn reach(&self) -> f64 {
        4.5
    }
    fn ticks(&self) -> TickCosts {
        TickCosts { move_per_block: u64::MAX / 3, craft: u64::MAX / 2, ..TickCosts::default() }
    }
}

const HUGE: [u32; 3] = [1_100_000_000, u32::MAX / 2, u32::MAX];

#[test]
fn the_cost_model_saturates_on_huge_counts() {
    let d = data();
    let k = Everything(&d);
    for name in ["crafting_table", "iron_ingot", "oak_planks", "stick", "furnace", "iron_pickaxe"] {
        for n in HUGE {
            let mut p = Planner::new(&k, u64::MAX);
            // Any answer will do; overflowing is what must not happen.
            if let Some(e) = p.obtain(item(name), n) {
                assert!(e.ticks > 0, "{name} x{n}");
            }
        }
    }
}

#[test]
fn huge_counts_never_reach_the_recipe_planner_and_the_largest_one_plans() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let k = Everything(&d);
    for name in ["crafting_table", "iron_ingot", "oak_planks", "bread", "iron_pickaxe"] {
        // A count typed in chat is a `Count` read at the edge: a huge
        // one is a bad count answered in words, never a goal.
        for n in HUGE {
            let said = format!("get {n} {}", name.replace('_', " "));
            let read = gatecrew_hitl::goal::read_goal_checked(&said, &v);
            assert!(matches!(read, Some(Err(_))), "{said}: {read:?}");
        }
        let count = Count::new(i64::from(MAX_COUNT)).unwrap();
        let mut plan = Plan::new("my tasks");
        let mut p = RecipePlanner::new(&d, &v, &k, PlannerConfig::default(), Origin::Planner);
        let top = p.plan_goal(&mut plan, &Goal::Obtain { item: item(name), count });
        assert!(plan.label(top).starts_with(&format!("obtain {count}")), "{}", plan.label(top));
    }
}
