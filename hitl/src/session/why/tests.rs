//! One reason builder for every kind of failure: each test builds the failed part of
//! a plan as the executor leaves it and reads the reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use gatecrew_crew::agent::Physics;
use gatecrew_protocol::{AgentId, ItemId, Pos, Tick};
use gatecrew_world::{ContainerKind, ContainerView, GameData, Observation, Rules};

use super::{Evidence, Heard, why};
use crate::knowledge::Knowledge;
use crate::plan::{Kind, Leaf, Origin, Plan, State, StepId};

fn data() -> Arc<GameData> {
    Arc::new(
        GameData::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json")))
            .unwrap(),
    )
}

fn know(data: &Arc<GameData>) -> Knowledge {
    Knowledge::new(data.clone(), Physics::new(&Rules::default(), data))
}

struct Case {
    data: Arc<GameData>,
    know: Knowledge,
    plan: Plan,
    remembered: BTreeMap<ItemId, String>,
    checks: BTreeMap<StepId, String>,
    heard: Heard,
}

impl Case {
    fn new() -> Self {
        let data = data();
        let know = know(&data);
        Case {
            data,
            know,
            plan: Plan::new("my tasks"),
            remembered: BTreeMap::new(),
            checks: BTreeMap::new(),
            heard: Heard::default(),
        }
    }

    fn item(&self, name: &str) -> ItemId {
        self.data.item(name).unwrap()
    }

    /// A step under `parent` (the root when `None`) in `state`.
    fn step(&mut self, parent: Option<StepId>, kind: Kind, state: State) -> StepId {
        let n = self.plan.add_step(kind, kind.name().to_owned(), Origin::Planner);
        let p = parent.unwrap_or(self.plan.root());
        self.plan.link(p, n);
        self.plan.set_state(n, state);
        n
    }

    fn obtain(&mut self, parent: Option<StepId>, item: &str, state: State) -> StepId {
        let item = self.item(item);
        self.step(parent, Kind::Obtain { item, count: 1 }, state)
    }

    fn collect(&mut self, parent: StepId, item: &str, block: &str) -> StepId {
        let (item, block) = (self.item(item), self.data.block(block).unwrap());
        self.step(Some(parent), Kind::Leaf(Leaf::Collect { item, block }), State::Failed)
    }

    fn craft(&mut self, parent: StepId, result: &str, state: State) -> StepId {
        let recipe = self.data.recipes_for(self.item(result))[0];
        self.step(Some(parent), Kind::Leaf(Leaf::Craft { recipe }), state)
    }

    fn why(&self, n: StepId) -> String {
        let heard = self.heard.clone();
        let board = move |_: ItemId| heard.clone();
        let ev = Evidence {
            know: &self.know,
            data: &self.data,
            remembered: &self.remembered,
            board: &board,
            checks: &self.checks,
        };
        why(&self.plan, n, &ev)
    }
}

#[test]
fn an_item_with_no_way_says_it_knows_none() {
    let mut c = Case::new();
    let goal = c.obtain(None, "diamond", State::Failed);
    assert_eq!(c.why(goal), "no diamond: I know no way to get it here");
}

#[test]
fn a_recipe_every_way_of_which_lacked_one_ingredient_is_explained_by_the_ingredient() {
    let mut c = Case::new();
    let bed = c.obtain(None, "white_bed", State::Failed);
    let recipe = c.step(Some(bed), Kind::AllOf, State::Failed);
    let wool = c.obtain(Some(recipe), "white_wool", State::Failed);
    c.collect(wool, "white_wool", "white_wool");
    let from_string = c.step(Some(wool), Kind::AllOf, State::Failed);
    let string = c.obtain(Some(from_string), "string", State::Failed);
    c.collect(string, "string", "cobweb");
    c.craft(from_string, "white_wool", State::Pending);
    c.obtain(Some(recipe), "oak_planks", State::Done);
    c.craft(recipe, "white_bed", State::Pending);
    assert_eq!(
        c.why(bed),
        "no white wool: no chest seen, no white wool seen to mine, and no string to craft it from (no cobweb seen to mine)"
    );
}

#[test]
fn a_recipe_lacking_two_ingredients_names_both_under_its_item() {
    let mut c = Case::new();
    let pick = c.obtain(None, "stone_pickaxe", State::Failed);
    let recipe = c.step(Some(pick), Kind::AllOf, State::Failed);
    c.obtain(Some(recipe), "stick", State::Failed);
    let stone = c.obtain(Some(recipe), "cobblestone", State::Failed);
    c.collect(stone, "cobblestone", "stone");
    c.craft(recipe, "stone_pickaxe", State::Pending);
    assert_eq!(
        c.why(pick),
        "no stone pickaxe: no chest seen, no stick to craft it from (I know no way to get it here), and no cobblestone to craft it from (no stone seen to mine)"
    );
}

#[test]
fn a_chest_looked_into_and_found_empty_is_said_to_be_empty() {
    let mut c = Case::new();
    let at = Pos::new(6, 0, -6);
    let view = Observation {
        pos: Pos::new(5, 0, -6),
        containers: vec![ContainerView { pos: at, kind: ContainerKind::Chest, contents: Some(Vec::new()) }],
        sight: 16,
        near: 4,
        ..Observation::default()
    };
    c.know.observe(&view, Tick(3));
    let wool = c.obtain(None, "white_wool", State::Failed);
    let item = c.item("white_wool");
    c.step(Some(wool), Kind::Leaf(Leaf::Fetch { item, from: Some(at) }), State::Failed);
    assert_eq!(c.why(wool), "no white wool: none left in the chest at (6, 0, -6)");
}

#[test]
fn a_station_none_of_whose_ways_worked_says_why_each_failed() {
    let mut c = Case::new();
    let pick = c.obtain(None, "wooden_pickaxe", State::Failed);
    let recipe = c.step(Some(pick), Kind::AllOf, State::Failed);
    c.obtain(Some(recipe), "stick", State::Done);
    let item = c.item("crafting_table");
    let station = c.step(Some(recipe), Kind::Station { item }, State::Failed);
    c.step(Some(station), Kind::Leaf(Leaf::UseStation { item }), State::Failed);
    let make = c.step(Some(station), Kind::AllOf, State::Failed);
    c.obtain(Some(make), "crafting_table", State::Failed);
    c.step(Some(make), Kind::Leaf(Leaf::PlaceStation { item }), State::Pending);
    c.craft(recipe, "wooden_pickaxe", State::Pending);
    let text = c.why(pick);
    assert!(
        text.contains(
            "no crafting table in reach (no crafting table I know of; no crafting table: I know no way to get it here)"
        ),
        "{text}"
    );
}

#[test]
fn a_craft_that_lacked_its_ingredients_at_the_table_says_so() {
    let mut c = Case::new();
    let sticks = c.obtain(None, "stick", State::Failed);
    let recipe = c.step(Some(sticks), Kind::AllOf, State::Failed);
    c.obtain(Some(recipe), "oak_planks", State::Done);
    c.craft(recipe, "stick", State::Failed);
    assert_eq!(c.why(sticks), "no stick: no chest seen, and I lacked an ingredient when crafting");
}

#[test]
fn a_smelt_that_failed_names_the_furnace_and_its_inputs() {
    let mut c = Case::new();
    let glass = c.obtain(None, "glass", State::Failed);
    let smelt = c.step(Some(glass), Kind::AllOf, State::Failed);
    c.obtain(Some(smelt), "sand", State::Done);
    let (input, output) = (c.item("sand"), c.item("glass"));
    c.step(Some(smelt), Kind::Leaf(Leaf::Smelt { input, output }), State::Failed);
    assert_eq!(c.why(glass), "no glass: no chest seen, and no furnace in reach, or nothing to smelt or burn");
}

#[test]
fn a_step_that_failed_its_own_check_with_nothing_failed_under_it_names_the_check() {
    let mut c = Case::new();
    let bed = c.obtain(None, "white_bed", State::Failed);
    let recipe = c.step(Some(bed), Kind::AllOf, State::Done);
    c.craft(recipe, "white_bed", State::Done);
    c.checks.insert(bed, "holds >= 1 white_bed".into());
    assert_eq!(c.why(bed), "no white bed: no chest seen, and it did not pass its check (holds >= 1 white_bed)");
}

#[test]
fn the_teammates_are_said_to_refuse_only_when_they_did() {
    let mut c = Case::new();
    let goal = c.obtain(None, "diamond", State::Failed);
    // A crew of one: nothing about teammates.
    assert!(!c.why(goal).contains("teammate") && !c.why(goal).contains("nobody"));
    // Teammates nobody asked.
    c.heard.teammates = vec![AgentId(1)];
    assert_eq!(c.why(goal), "no diamond: I know no way to get it here, and I have not asked my teammate bot1");
    c.heard.teammates = vec![AgentId(1), AgentId(2)];
    assert!(c.why(goal).ends_with("I have not asked my 2 teammates (bot1, and bot2)"), "{}", c.why(goal));
    // One of two said no on the board.
    c.heard.refused = vec![AgentId(2)];
    assert!(
        c.why(goal).ends_with("bot2 said on the board they cannot supply it, and I have not asked my teammate bot1"),
        "{}",
        c.why(goal)
    );
    // Both did: only now is "nobody" true.
    c.heard.refused = vec![AgentId(1), AgentId(2)];
    assert!(c.why(goal).ends_with("nobody can supply it (bot1, and bot2 said so on the board)"), "{}", c.why(goal));
    // An offer seen on the board (to another bot) is said, never "nobody".
    c.heard.offered = vec![AgentId(1)];
    let text = c.why(goal);
    assert!(text.ends_with("bot1 offered it on the board, not to me") && !text.contains("nobody"), "{text}");
}

#[test]
fn an_item_an_earlier_run_found_no_way_to_says_so() {
    let mut c = Case::new();
    let goal = c.obtain(None, "diamond", State::Failed);
    let item = c.item("diamond");
    c.remembered.insert(item, "hitl-partner-gated-s11".into());
    assert_eq!(
        c.why(goal),
        "no diamond: I know no way to get it here, and an earlier run here (hitl-partner-gated-s11) found no way to it either"
    );
}
