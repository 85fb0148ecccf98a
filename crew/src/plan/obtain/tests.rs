use std::path::Path;

use gatecrew_world::GameData;

use super::*;

fn data() -> GameData {
    GameData::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json"))).unwrap()
}

/// Take first, then the recipes, the blocks and the furnace recipes, each kind in the
/// data's order: the tie-break both expansions rank by.
#[test]
fn ways_come_in_the_fixed_order_with_their_data_indices() {
    let d = data();
    for name in ["stick", "iron_ingot", "cobblestone", "oak_planks", "glass"] {
        let item = d.item(name).unwrap();
        let w = ways(&d, item);
        assert_eq!(w[0], (Way::Take, 0), "{name}");
        let ranks: Vec<u8> = w.iter().map(|(way, _)| way.rank()).collect();
        assert!(ranks.windows(2).all(|p| p[0] <= p[1]), "{name}: {ranks:?}");
        let crafts: Vec<(Way, usize)> =
            d.recipes_for(item).iter().enumerate().map(|(i, r)| (Way::Craft(*r), i)).collect();
        let mines: Vec<(Way, usize)> =
            d.blocks_dropping(item).iter().enumerate().map(|(i, b)| (Way::Mine(*b), i)).collect();
        let smelts: Vec<(Way, usize)> = d.smelts_for(item).enumerate().map(|(i, s)| (Way::Smelt(*s), i)).collect();
        assert_eq!(w[1..], [crafts, mines, smelts].concat()[..], "{name}");
    }
    // Iron ingots are smelted, sticks crafted, cobblestone mined: each kind is listed.
    let has = |name: &str, kind: u8| ways(&d, d.item(name).unwrap()).iter().any(|(w, _)| w.rank() == kind);
    assert!(has("iron_ingot", 3) && has("stick", 1) && has("cobblestone", 2));
}

/// A craft: each ingredient times the crafts needed plus what is kept, a table for a
/// 3x3 grid only, the craft last.
#[test]
fn a_craft_obtains_its_ingredients_then_a_table_for_a_3x3_grid_then_crafts() {
    let d = data();
    let table = d.item("crafting_table").ok();
    let pick = d.item("wooden_pickaxe").unwrap();
    let rid = d.recipes_for(pick)[0];
    let r = d.recipe(rid).clone();
    assert_eq!(r.grid, 3);
    let extras = Extras { table, ..Extras::default() };
    let keep_planks = |i: ItemId| if d.item_name(i) == "oak_planks" { 5 } else { 0 };
    let parts = Way::Craft(rid).parts(&d, pick, 2, extras, keep_planks);
    let mut want: Vec<Part> =
        r.ingredients.iter().map(|(i, per)| Part::Obtain { item: *i, count: per * 2 + keep_planks(*i) }).collect();
    want.push(Part::Station { item: table.unwrap() });
    want.push(Part::Work(Task::Craft { recipe: rid }));
    assert_eq!(parts, want);
    assert!(Way::Craft(rid).all_of(&extras));
    // Sticks are a 2x2 recipe: no table, whatever the caller knows of one; 5 sticks
    // take two crafts of 4.
    let stick = d.item("stick").unwrap();
    let srid = d.recipes_for(stick)[0];
    let sr = d.recipe(srid).clone();
    let parts = Way::Craft(srid).parts(&d, stick, 5, extras, |_| 0);
    assert!(!parts.iter().any(|p| matches!(p, Part::Station { .. })), "{parts:?}");
    let times = 5u32.div_ceil(sr.count);
    assert_eq!(parts[0], Part::Obtain { item: sr.ingredients[0].0, count: sr.ingredients[0].1 * times });
}

/// A smelt: input plus what is kept, the fuel for the burn time, the furnace, the smelt.
#[test]
fn a_smelt_obtains_input_and_enough_fuel_then_a_furnace() {
    let d = data();
    let ingot = d.item("iron_ingot").unwrap();
    let s = *d.smelts_for(ingot).next().unwrap();
    let coal = d.item("coal").unwrap();
    let furnace = d.item("furnace").ok();
    let extras = Extras { furnace, fuel: Some(coal), ..Extras::default() };
    let parts = Way::Smelt(s).parts(&d, ingot, 9, extras, |i| u32::from(i == s.input));
    let burn = d.fuel_ticks(coal).unwrap();
    assert_eq!(
        parts,
        [
            Part::Obtain { item: s.input, count: 10 },
            Part::Obtain { item: coal, count: (s.ticks * 9).div_ceil(burn) },
            Part::Station { item: furnace.unwrap() },
            Part::Work(Task::Smelt { input: s.input, output: ingot }),
        ]
    );
    // No fuel chosen, no furnace item known: only the input and the smelt.
    let bare = Way::Smelt(s).parts(&d, ingot, 1, Extras::default(), |_| 0);
    assert_eq!(bare.len(), 2, "{bare:?}");
}

/// Mining: the tool first when the caller plans one, and only then an ALL-OF; a take
/// is one task. Counts out of chat saturate.
#[test]
fn mining_obtains_the_tool_first_and_counts_saturate() {
    let d = data();
    let stone = d.block("stone").unwrap();
    let cobble = d.item("cobblestone").unwrap();
    let tool = tool_for(&d, stone).expect("stone needs a pickaxe");
    assert!(d.item_name(tool).ends_with("pickaxe"), "{}", d.item_name(tool));
    let with = Extras { tool: Some(tool), ..Extras::default() };
    let parts = Way::Mine(stone).parts(&d, cobble, 3, with, |_| 0);
    assert_eq!(
        parts,
        [Part::Obtain { item: tool, count: 1 }, Part::Work(Task::Collect { item: cobble, block: stone })]
    );
    assert!(Way::Mine(stone).all_of(&with));
    assert!(!Way::Mine(stone).all_of(&Extras::default()));
    assert_eq!(tool_for(&d, d.block("dirt").unwrap()), None);
    assert!(!Way::Take.all_of(&with));
    assert_eq!(Way::Take.parts(&d, cobble, 1, with, |_| 0), [Part::Work(Task::Fetch { item: cobble })]);
    let pick = d.item("wooden_pickaxe").unwrap();
    let rid = d.recipes_for(pick)[0];
    let huge = Way::Craft(rid).parts(&d, pick, u32::MAX, Extras::default(), |_| u32::MAX);
    assert!(huge.iter().all(|p| !matches!(p, Part::Obtain { count, .. } if *count != u32::MAX)), "{huge:?}");
}

/// What a bot knows in [`ranking_orders_priced_ways_first_and_the_caller_judges`]:
/// oak logs in a chest 30 blocks away and a nearer one, an oak tree 5 blocks away.
struct Sees {
    data: GameData,
}

impl gatecrew_world::cost::Knowledge for Sees {
    fn data(&self) -> &GameData {
        &self.data
    }
    fn here(&self) -> gatecrew_protocol::Pos {
        gatecrew_protocol::Pos::new(0, 0, 0)
    }
    fn held(&self, _: ItemId) -> u32 {
        0
    }
    fn stored(&self, item: ItemId) -> Vec<(gatecrew_protocol::Pos, u32)> {
        let logs = self.data.item("oak_log").ok() == Some(item);
        let far = (gatecrew_protocol::Pos::new(30, 0, 0), 64);
        let near = (gatecrew_protocol::Pos::new(0, 0, -20), 64);
        if logs { vec![far, near] } else { Vec::new() }
    }
    fn nearest_resource(&self, block: BlockId) -> Option<gatecrew_protocol::Pos> {
        (self.data.block("oak_log") == Some(block)).then(|| gatecrew_protocol::Pos::new(5, 0, 0))
    }
    fn table(&self) -> Option<gatecrew_protocol::Pos> {
        None
    }
    fn furnace(&self) -> Option<gatecrew_protocol::Pos> {
        None
    }
    fn table_item(&self) -> Option<ItemId> {
        self.data.item("crafting_table").ok()
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.data.item("furnace").ok()
    }
    fn reach(&self) -> f64 {
        4.5
    }
    fn ticks(&self) -> gatecrew_world::TickCosts {
        gatecrew_world::TickCosts::default()
    }
}

/// The agent's judgement (priced ways only) and the partner's (unpriced ones too, at an
/// estimate) rank the same ways the same way: priced first, cheapest first; a take
/// names the nearest store when asked.
#[test]
fn ranking_orders_priced_ways_first_and_the_caller_judges() {
    use gatecrew_world::cost::Planner;
    let k = Sees { data: data() };
    let log = k.data.item("oak_log").unwrap();
    let mut p = Planner::new(&k, 20_000);
    let mut prices = Vec::new();
    let agent = ranked(&k, &mut p, log, 4, usize::MAX, |q| {
        let price = q.price()?;
        prices.push((q.way(), price));
        Some(Rank::priced(price))
    });
    assert!(agent.iter().all(|a| a.from.is_none() && a.fuel.is_none()), "{agent:?}");
    // Both the chest and the tree are priced, and the list runs cheapest first.
    assert!(agent.iter().any(|a| a.way == Way::Take) && agent.len() >= 2, "{agent:?}");
    let cost = |w: Way| prices.iter().find(|(x, _)| *x == w).map(|(_, c)| *c).unwrap();
    assert!(agent.windows(2).all(|a| cost(a[0].way) <= cost(a[1].way)), "{agent:?} {prices:?}");
    let mut p = Planner::new(&k, 20_000);
    let mut judged = Vec::new();
    let partner = ranked(&k, &mut p, log, 4, usize::MAX, |q| {
        if q.way() == Way::Take {
            q.store()?;
        }
        let price = q.price();
        judged.push((q.way(), price));
        Some(Rank { unpriced: price.is_none(), liked: usize::MAX, cost: price.unwrap_or(1), preference: 0 })
    });
    // Every way was judged, in the fixed order; the list puts the priced ones first
    // (in the agent's order), then the unpriced ones by their estimate.
    assert_eq!(
        judged.iter().map(|(w, _)| *w).collect::<Vec<_>>(),
        ways(&k.data, log).into_iter().map(|(w, _)| w).collect::<Vec<_>>()
    );
    let priced = judged.iter().filter(|(_, p)| p.is_some()).count();
    assert_eq!(partner.len(), judged.len());
    assert_eq!(
        partner[..priced].iter().map(|a| a.way).collect::<Vec<_>>(),
        agent.iter().map(|a| a.way).collect::<Vec<_>>()
    );
    let take = partner.iter().find(|a| a.way == Way::Take).unwrap();
    assert_eq!(take.from, Some(gatecrew_protocol::Pos::new(0, 0, -20)));
}
