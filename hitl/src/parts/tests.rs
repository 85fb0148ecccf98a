use std::collections::BTreeSet;
use std::path::Path;

use gatecrew_world::{Blueprint, GameData};

use super::*;
use crate::plan::{Origin, Plan};

fn data() -> GameData {
    GameData::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json"))).unwrap()
}

/// The suite's small house: a cobblestone foundation with a door, plank walls with
/// four glass panes, a slab roof.
fn house(data: &GameData) -> (Plan, BTreeMap<usize, CellFacts>) {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/suite/blueprints/house-small.toml"));
    let bp = Blueprint::load(path, data).unwrap();
    let facts = cell_facts(&bp, data);
    let all: BTreeSet<usize> = facts.keys().copied().collect();
    let mut plan = Plan::new("my tasks");
    let b = plan_build(&mut plan, &facts, &all, "build house-small".into(), data, Origin::Planner);
    let root = plan.root();
    plan.link(root, b);
    (plan, facts)
}

fn named(plan: &Plan, phrase: &str, data: &GameData) -> Vec<CellFacts> {
    match find_part(plan, phrase, data) {
        PartMatch::One(p) => p
            .leaves
            .iter()
            .map(|n| match plan.step(*n).kind {
                Kind::Leaf(Leaf::Place(f)) => f,
                _ => panic!("not a place leaf"),
            })
            .collect(),
        other => panic!("{phrase:?}: {other:?}"),
    }
}

#[test]
fn functions_come_from_blocks_and_geometry() {
    let d = data();
    let (plan, facts) = house(&d);
    let count = |f: Function| facts.values().filter(|c| c.function == f).count();
    assert_eq!(count(Function::Windows), 2, "two glass cells");
    assert_eq!(count(Function::Doors), 1, "one door (its top half is not placed)");
    assert_eq!(count(Function::Roof), 36, "the slab layer covers the inside");
    assert_eq!(count(Function::Floor), 19, "the cobblestone foundation under plank walls");
    let parts: Vec<&str> = plan.children(plan.children(plan.root())[0]).iter().map(|n| plan.label(*n)).collect();
    assert_eq!(
        parts,
        [
            "build the floor (19 blocks)",
            "build the walls (37 blocks)",
            "build the doors (1 block)",
            "build the windows (2 blocks)",
            "build the roof (36 blocks)"
        ]
    );
}

#[test]
fn people_name_parts_by_function_material_layer_and_side() {
    let d = data();
    let (plan, _) = house(&d);
    assert!(named(&plan, "the glass", &d).iter().all(|f| f.function == Function::Windows));
    assert_eq!(named(&plan, "windows", &d).len(), 2);
    assert!(named(&plan, "the top layer", &d).iter().all(|f| f.level == 4));
    assert!(named(&plan, "the top row", &d).iter().all(|f| f.level == 4));
    assert!(named(&plan, "the second floor", &d).iter().all(|f| f.level == 2));
    assert!(named(&plan, "level 3", &d).iter().all(|f| f.level == 3));
    let stone = named(&plan, "the stone part", &d);
    assert!(!stone.is_empty() && stone.iter().all(|f| d.item_name(f.item) == "cobblestone"));
    let wood = named(&plan, "the wooden bits", &d);
    assert!(wood.iter().all(|f| d.item_name(f.item).starts_with("oak")));
    let north = named(&plan, "the north wall", &d);
    assert!(!north.is_empty() && north.iter().all(|f| f.side == Some(Side::North) && f.function == Function::Walls));
    // The front is the side with the door.
    assert!(named(&plan, "the front wall", &d).iter().all(|f| f.side == Some(Side::North)));
    assert_eq!(find_part(&plan, "the oak logs", &d), PartMatch::None);
}

#[test]
fn an_ambiguous_part_gives_options() {
    let d = data();
    let (plan, _) = house(&d);
    match find_part(&plan, "the wall", &d) {
        PartMatch::Many(v) => {
            let names: Vec<&str> = v.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, ["the north wall", "the south wall", "the west wall", "the east wall"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(find_part(&plan, "the walls", &d), PartMatch::One(_)));
}

#[test]
fn gathering_a_layer_makes_one_part_and_postponing_moves_it_last() {
    let d = data();
    let (mut plan, _) = house(&d);
    let PartMatch::One(top) = find_part(&plan, "the top layer", &d) else { panic!() };
    let n = plan.gather(&part_label(&top.name, top.leaves.len()), &top.leaves).unwrap();
    let build = plan.children(plan.root())[0];
    // The roof was the top layer: the existing part is reused.
    assert_eq!(plan.label(n), "build the roof (36 blocks)");
    let PartMatch::One(second) = find_part(&plan, "the second layer", &d) else { panic!() };
    let m = plan.gather(&part_label(&second.name, second.leaves.len()), &second.leaves).unwrap();
    assert_eq!(plan.label(m), "build layer 2 (19 blocks)");
    assert_eq!(plan.children(m).len(), 19);
    // It went where its first leaves were: before the walls' other layers.
    assert_eq!(plan.children(build).iter().position(|c| *c == m), Some(1));
    plan.postpone(m).unwrap();
    assert_eq!(plan.children(build).last(), Some(&m));
}
