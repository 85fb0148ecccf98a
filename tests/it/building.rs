//! Building anything a player can: Minecraft's placement rule (any face), pillars for
//! height, temporary supports for floating parts, blueprint items kept for the
//! blueprint, and a missing item always raised as an issue.

use std::path::Path;

use gatecrew_crew::{EndReason, Episode, Overrides, Setup};
use gatecrew_protocol::trace::{ActionName, Event, EventKind};
use gatecrew_protocol::{AgentId, Pos};
use gatecrew_world::Blueprint;

use crate::common::{data, item, root, write};

/// A crew config over a blueprint, both written into `dir`.
fn setup(dir: &Path, blueprint: &str, agents: &[(Pos, &str)], top: i32) -> Setup {
    setup_with(dir, blueprint, agents, top, "")
}

/// As [`setup`], with more lines for the `[world]` table (terrain).
pub(crate) fn setup_with(dir: &Path, blueprint: &str, agents: &[(Pos, &str)], top: i32, world: &str) -> Setup {
    write(dir, "configs/blueprints/bp.toml", blueprint);
    let data_file = dir.join("configs/data/minecraft-1.20.4.json");
    std::fs::create_dir_all(data_file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data_file).unwrap();
    let mut cfg = format!(
        "blueprint = \"blueprints/bp.toml\"\ndata = \"data/minecraft-1.20.4.json\"\n[episode]\nname = \"t\"\nseed = 3\ntick_limit = 40000\npolicy = \"gated\"\n[world]\nbounds = {{ min = [-12, 0, -12], max = [16, {top}, 16] }}\n{world}"
    );
    for (start, inv) in agents {
        cfg.push_str(&format!(
            "[[agents]]\nstart = [{}, {}, {}]\ninventory = {{ {inv} }}\n",
            start.x, start.y, start.z
        ));
    }
    let path = write(dir, "configs/crew.toml", &cfg);
    Setup::load(&path, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs to the end on the stepper: the events and the final episode.
pub(crate) fn run(setup: &Setup) -> (Vec<Event>, Episode) {
    let mut events = Vec::new();
    let (_, ep) = gatecrew_crew::run_to_end(setup, &mut |e: &Event| events.push(e.clone()));
    (events, ep)
}

/// Asserts the blueprint complete, no scaffold left anywhere and items conserved.
pub(crate) fn finished_clean(setup: &Setup, events: &[Event], ep: &Episode) {
    let Some(EventKind::EpisodeEnd { tsr, complete, .. }) = events.last().map(|e| &e.kind) else { panic!("no end") };
    assert!(*complete, "tsr {tsr}: {:?}", unfinished(events));
    assert_eq!(ep.ended(), Some(EndReason::Complete));
    let left = ep.world().scaffold_left(&setup.blueprint);
    assert!(left.is_empty(), "scaffold left at {left:?}");
    let broken = gatecrew_crew::invariants::conservation(&setup.world.item_census(), ep.world());
    assert!(broken.is_empty(), "{broken:?}");
}

fn unfinished(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Unfinished { .. }))
        .take(5)
        .map(|e| format!("{:?}", e.kind))
        .collect()
}

/// Blocks placed outside the blueprint (scaffolds).
fn scaffold_places(setup: &Setup, events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::Action { action: ActionName::Place, ok: true, pos: Some(p), .. }
                if setup.blueprint.cell_at(*p).is_none())
        })
        .count()
}

#[test]
fn one_bot_builds_a_tower_twenty_blocks_tall_and_takes_its_pillar_down() {
    let dir = tempfile::tempdir().unwrap();
    let bp = "name = \"tower\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [0, 19, 0]\nblock = \"oak_planks\"\n";
    let s = setup(dir.path(), bp, &[(Pos::new(-3, 0, 0), "oak_planks = 20, dirt = 24")], 26);
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
    assert!(scaffold_places(&s, &events) >= 10, "the top is out of reach without a pillar");
    // Every scaffold block came back.
    assert_eq!(ep.world().body(AgentId(0)).unwrap().inventory.count(item("dirt")), 24);
    // Deterministic: the same setup gives the same events.
    assert_eq!(run(&s).0, events);
}

#[test]
fn an_overhang_and_a_floating_platform_are_built_on_scaffolds_that_are_gone_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    // A post with an arm reaching out at its top, and a platform touching nothing.
    let bp = "name = \"over\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [0, 4, 0]\nblock = \"cobblestone\"\n[[fill]]\nfrom = [1, 4, 0]\nto = [4, 4, 0]\nblock = \"cobblestone\"\n[[fill]]\nfrom = [5, 5, 5]\nto = [7, 5, 7]\nblock = \"oak_planks\"\n";
    let loaded = Blueprint::parse(bp, Path::new("bp.toml"), &data()).unwrap();
    let floating: Vec<Pos> =
        (0..loaded.len()).filter(|&i| loaded.floats(i, &data())).map(|i| loaded.cells()[i].pos).collect();
    assert_eq!(floating.len(), 1, "one cell of the platform starts it: {floating:?}");
    let s = setup(
        dir.path(),
        bp,
        &[(Pos::new(-3, 0, 0), "cobblestone = 9, dirt = 12"), (Pos::new(9, 0, 9), "oak_planks = 9, dirt = 12")],
        12,
    );
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
    assert!(scaffold_places(&s, &events) > 0, "the platform needed a temporary support");
}

#[test]
fn a_staircase_whose_steps_hang_from_above_is_built_top_down() {
    let dir = tempfile::tempdir().unwrap();
    // A post, a beam along its top, and steps hanging below the beam, lower and lower:
    // only the post touches the ground.
    let mut bp = String::from(
        "name = \"stairs\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [0, 6, 0]\nblock = \"stone_bricks\"\n[[fill]]\nfrom = [1, 6, 0]\nto = [5, 6, 0]\nblock = \"stone_bricks\"\n",
    );
    for k in 1..=5 {
        bp.push_str(&format!("[[fill]]\nfrom = [{k}, {}, 0]\nto = [{k}, 5, 0]\nblock = \"stone_bricks\"\n", 6 - k));
    }
    let loaded = Blueprint::parse(&bp, Path::new("bp.toml"), &data()).unwrap();
    // The lowest step rests on the one above it, not on the ground.
    let step = loaded.cell_at(Pos::new(5, 1, 0)).unwrap();
    assert_eq!(step.support.map(|i| loaded.cells()[i].pos), Some(Pos::new(5, 2, 0)));
    let n = loaded.len();
    let s = setup(dir.path(), &bp, &[(Pos::new(-3, 0, 2), &format!("stone_bricks = {n}, dirt = 12"))], 12);
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
}

#[test]
fn a_floating_platform_with_exactly_its_materials_borrows_them_for_its_support_and_gets_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let bp = "name = \"deck\"\n[[fill]]\nfrom = [0, 3, 0]\nto = [2, 3, 2]\nblock = \"oak_planks\"\n";
    let s = setup(dir.path(), bp, &[(Pos::new(-3, 0, 0), "oak_planks = 9")], 8);
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
    assert!(scaffold_places(&s, &events) > 0, "a temporary support was placed");
}

#[test]
fn a_cottage_with_exactly_its_materials_completes() {
    let dir = tempfile::tempdir().unwrap();
    let bp = std::fs::read_to_string(root().join("configs/blueprints/house.toml")).unwrap();
    let loaded = Blueprint::parse(&bp, Path::new("house.toml"), &data()).unwrap();
    let m = loaded.materials(&data());
    let names: Vec<(String, u32)> = m.iter().map(|(i, n)| (data().item_name(*i).to_owned(), *n)).collect();
    // Everything in one bot's hands but a few of each for the other, so that the first
    // bot's share runs short of what the other holds.
    let first: Vec<String> = names.iter().map(|(k, n)| format!("{k} = {}", n - n / 3)).collect();
    let second: Vec<String> =
        names.iter().filter(|(_, n)| n / 3 > 0).map(|(k, n)| format!("{k} = {}", n / 3)).collect();
    let s = setup(
        dir.path(),
        &bp,
        &[(Pos::new(-3, 0, -3), &first.join(", ")), (Pos::new(10, 0, 10), &second.join(", "))],
        12,
    );
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
}

#[test]
fn an_item_only_a_teammate_holds_is_requested_through_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    // bot0's half is terracotta it does not hold; bot1 holds all of it.
    let bp = "name = \"wall\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [7, 2, 0]\nblock = \"terracotta\"\n";
    let s = setup(dir.path(), bp, &[(Pos::new(-2, 0, 0), "dirt = 1"), (Pos::new(9, 0, 0), "terracotta = 24")], 8);
    let (events, ep) = run(&s);
    let asked = events.iter().any(|e| {
        matches!(&e.kind, EventKind::Board { msg, item, from, .. }
            if *msg == gatecrew_protocol::MessageKind::RequestMaterial && item == "terracotta" && *from == AgentId(0))
    });
    assert!(asked, "bot0 never asked for terracotta");
    let gated = events.iter().any(|e| matches!(e.kind, EventKind::Gate { .. }));
    assert!(gated);
    finished_clean(&s, &events, &ep);
}

#[test]
fn a_bot_without_scaffold_blocks_asks_the_gate_and_gathers_them_from_the_terrain() {
    let dir = tempfile::tempdir().unwrap();
    let bp = "name = \"tower\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [0, 11, 0]\nblock = \"oak_planks\"\n";
    let terrain = "fill = [{ from = [-6, 0, 3], to = [-4, 1, 5], block = \"dirt\" }]\n";
    let s = setup_with(dir.path(), bp, &[(Pos::new(-3, 0, 0), "oak_planks = 12")], 18, terrain);
    let (events, ep) = run(&s);
    let asked = events.iter().any(|e| matches!(&e.kind, EventKind::Issue { item: Some(i), .. } if i == "dirt"));
    assert!(asked, "a missing scaffold block is an ordinary issue");
    assert!(events.iter().any(|e| matches!(e.kind, EventKind::Gate { .. })), "and the gate decides it");
    finished_clean(&s, &events, &ep);
}

#[test]
fn with_no_scaffold_block_anywhere_a_bot_digs_the_ground_for_its_pillar() {
    let dir = tempfile::tempdir().unwrap();
    // A column and a bar hanging off its top diagonally (nothing to lean on), exactly the
    // materials, no terrain: the scaffold comes out of the ground, as a player digs dirt.
    let bp = "name = \"bar\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [0, 7, 0]\nblock = \"stone_bricks\"\n[[fill]]\nfrom = [1, 8, 1]\nto = [3, 8, 1]\nblock = \"stone_bricks\"\n";
    let s = setup(dir.path(), bp, &[(Pos::new(-3, 0, 0), "stone_bricks = 11")], 14);
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
    let dug = events.iter().any(
        |e| matches!(&e.kind, EventKind::Action { action: ActionName::Mine, ok: true, pos: Some(p), .. } if p.y == -1),
    );
    assert!(dug, "the ground gave the scaffold blocks");
}

#[test]
fn the_oracle_knows_the_ground_is_a_source_of_dirt() {
    let mut w = crate::common::world();
    let a = w.add_agent(Pos::new(0, 0, 0), crate::common::inv(&[]));
    let e = w.oracle(a, item("dirt"), 3, 1_000).expect("dug out of the ground");
    assert_eq!(e.route, gatecrew_world::cost::Route::Mine);
    // Nothing else in this world gives stone.
    assert!(w.oracle(a, item("cobblestone"), 1, 1_000).is_none());
}

#[test]
fn the_middle_of_a_wide_roof_is_built_by_stepping_off_a_pillar_onto_the_roof() {
    let dir = tempfile::tempdir().unwrap();
    // A box 9 x 9 (walls 3 high, filled with rock: nobody gets inside) under a flat
    // roof: the roof's middle is more than 3 columns from any cell outside, every column
    // that would reach it stands on the roof, and no walk leads onto the roof. Only a
    // bot that steps from its pillar onto the roof gets within reach.
    let mut bp = String::from("name = \"box\"\n");
    for (from, to) in [([0, 0, 0], [8, 2, 0]), ([0, 0, 8], [8, 2, 8]), ([0, 0, 1], [0, 2, 7]), ([8, 0, 1], [8, 2, 7])] {
        bp.push_str(&format!("[[fill]]\nfrom = {from:?}\nto = {to:?}\nblock = \"cobblestone\"\n"));
    }
    bp.push_str("[[fill]]\nfrom = [0, 3, 0]\nto = [8, 3, 8]\nblock = \"cobblestone\"\n");
    let loaded = Blueprint::parse(&bp, Path::new("bp.toml"), &data()).unwrap();
    let n = loaded.len();
    assert_eq!(n, 96 + 81);
    let rock = "fill = [{ from = [1, 0, 1], to = [7, 2, 7], block = \"stone\" }]\n";
    let s = setup_with(dir.path(), &bp, &[(Pos::new(-3, 0, 4), &format!("cobblestone = {n}, dirt = 12"))], 10, rock);
    let (events, ep) = run(&s);
    finished_clean(&s, &events, &ep);
    // The bot stood on the roof (feet at y = 4, over the footprint) and came back.
    let inside = |p: &Pos| (0..=8).contains(&p.x) && (0..=8).contains(&p.z);
    let on_roof = events.iter().any(|e| {
        matches!(&e.kind, EventKind::Action { action: ActionName::MoveTo, ok: true, pos: Some(p), .. }
            if p.y == 4 && inside(p))
    });
    assert!(on_roof, "a walk onto the roof");
    assert_eq!(
        ep.world().body(AgentId(0)).unwrap().inventory.count(item("dirt")),
        12,
        "every scaffold block came back"
    );
}

#[test]
fn when_the_whole_crew_is_short_the_issue_reaches_the_gate_with_every_teammate_refused() {
    let dir = tempfile::tempdir().unwrap();
    // 24 terracotta to place, 12 in the crew and no clay to make more: each bot's share
    // runs short, its teammate cannot supply, and the issue raised after the refusal
    // says so in its features (advantage 0: every teammate refused).
    let bp = "name = \"wall\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [7, 2, 0]\nblock = \"terracotta\"\n";
    let s = setup(
        dir.path(),
        bp,
        &[(Pos::new(-1, 0, 2), "terracotta = 6, dirt = 4"), (Pos::new(3, 0, 2), "terracotta = 6, dirt = 4")],
        8,
    );
    let (events, _) = run(&s);
    let refused_at = events
        .iter()
        .position(|e| {
            matches!(&e.kind, EventKind::Board { msg, item, .. }
                if *msg == gatecrew_protocol::MessageKind::CannotSupply && item == "terracotta")
        })
        .expect("a teammate answered that it cannot supply terracotta");
    let terracotta_issues: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Issue { issue_id, item: Some(i), .. } if i == "terracotta" => Some(*issue_id),
            _ => None,
        })
        .collect();
    assert!(!terracotta_issues.is_empty(), "the missing terracotta is an issue");
    let after = events[refused_at..].iter().any(|e| {
        matches!(&e.kind, EventKind::Gate { issue_id, features, .. }
            if terracotta_issues.contains(issue_id) && features.a == 0)
    });
    assert!(after, "after the refusal the gate saw the crew short (A = 0)");
    // Nothing invented: the wall stays short by exactly what the crew lacks.
    let Some(EventKind::EpisodeEnd { complete, .. }) = events.last().map(|e| &e.kind) else { panic!("no end") };
    assert!(!complete);
}
