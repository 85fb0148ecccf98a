//! Exploration as the last resort: a bot whose item the board failed, with no
//! route it knows, goes and looks once nothing else is left to do.

use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{EndReason, Event, EventKind, GateAction};

use crate::common::{root, run_events, write};
use crate::episode::{actor_trace, stepper_trace};

/// The fallback's walking budget at the default gate config: `search_ticks` (600) x
/// `FALLBACK_REACH` (4).
const BUDGET: u64 = 600 * gatecrew_crew::agent::FALLBACK_REACH;

/// Two bots, a blueprint and a world from TOML fragments: bot0 holds `bot0`, bot1
/// holds `bot1` (its own share only, so it answers `CANNOT_SUPPLY`).
fn episode(dir: &std::path::Path, blueprint: &str, world: &str, bot0: &str, bot1: &str) -> Setup {
    write(dir, "configs/blueprints/bp.toml", &format!("name = \"bp\"\n{blueprint}"));
    let data_file = dir.join("configs/data/minecraft-1.20.4.json");
    std::fs::create_dir_all(data_file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data_file).unwrap();
    let cfg = format!(
        "blueprint = \"blueprints/bp.toml\"\ndata = \"data/minecraft-1.20.4.json\"\n\
        [episode]\nname = \"explore\"\nseed = 3\ntick_limit = 20000\npolicy = \"gated\"\n\
        [world]\n{world}\n[world.rules]\nsight = 16\n\
        [[agents]]\nstart = [0, 0, 2]\ninventory = {{ {bot0} }}\n\
        [[agents]]\nstart = [3, 0, 2]\ninventory = {{ {bot1} }}\n"
    );
    let path = write(dir, "configs/crew.toml", &cfg);
    Setup::load(&path, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

const WALL: &str = "[[fill]]\nfrom = [0, 0, 0]\nto = [3, 0, 0]\nblock = \"oak_planks\"\n";

/// `agent`'s `fallback` lines, in order: (tick, action).
fn fallbacks(events: &[Event], agent: AgentId) -> Vec<(u64, GateAction)> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Fallback { agent: a, action, .. } if a == agent => Some((e.t, action)),
            _ => None,
        })
        .collect()
}

fn end(events: &[Event]) -> (bool, EndReason) {
    match events.last().map(|e| &e.kind) {
        Some(EventKind::EpisodeEnd { complete, reason, .. }) => (*complete, *reason),
        other => panic!("no episode end: {other:?}"),
    }
}

/// `agent`'s walks (tick, target, ticks taken).
fn walks(events: &[Event], agent: AgentId) -> Vec<(u64, gatecrew_protocol::Pos, u64)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Action { agent: a, action, pos: Some(p), ticks, .. }
                if *a == agent && action.as_str() == "move_to" =>
            {
                Some((e.t, *p, ticks.unwrap_or(0)))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_bot_nobody_supplies_explores_finds_the_far_tree_and_completes() {
    let dir = tempfile::tempdir().unwrap();
    // The only tree stands 27 blocks from bot0, out of a view of 16; bot1 holds only the
    // two planks of its own half, so the board fails and bot0 knows no local route.
    let world = "bounds = { min = [-12, 0, -12], max = [40, 10, 16] }\ntrees = [{ at = [27, 0, 0], height = 4 }]";
    let s = episode(dir.path(), WALL, world, "dirt = 1", "oak_planks = 2");
    let events = run_events(&s);
    let f = fallbacks(&events, AgentId(0));
    assert_eq!(
        f.iter().map(|x| x.1).collect::<Vec<_>>(),
        [GateAction::LocalSkip, GateAction::LocalRecover],
        "the board failed with no known route, then exploring found one: {f:?}"
    );
    assert!(
        events.iter().any(|e| matches!(
            &e.kind,
            EventKind::Window { outcome: Some(gatecrew_protocol::CloseOutcome::CannotSupply), .. }
        )),
        "bot1 said CANNOT_SUPPLY"
    );
    // Between the two, bot0 walked the pattern (away from the wall, toward the tree).
    let explored = walks(&events, AgentId(0)).into_iter().filter(|(t, _, _)| *t > f[0].0 && *t <= f[1].0).count();
    assert!(explored >= 1, "no walk between the fallbacks");
    assert_eq!(end(&events), (true, EndReason::Complete), "bot0 cut the tree and finished its half");
    // The same trace on the actor runtime.
    assert_eq!(stepper_trace(&s), actor_trace(&s), "stepper and actors agree while exploring");
}

#[test]
fn a_bot_with_work_left_builds_it_before_exploring() {
    let dir = tempfile::tempdir().unwrap();
    // Planks nobody holds, and a cobblestone row both bots hold enough for: whoever owns
    // planks sets them aside while its cobblestone is still to be placed, and must place
    // all of it before it walks off to look for the tree.
    let blueprint = format!("{WALL}[[fill]]\nfrom = [0, 0, 4]\nto = [7, 0, 4]\nblock = \"cobblestone\"\n");
    let world = "bounds = { min = [-12, 0, -12], max = [40, 10, 16] }\ntrees = [{ at = [30, 0, 0], height = 4 }]";
    let s = episode(dir.path(), &blueprint, world, "cobblestone = 8", "cobblestone = 8");
    let events = run_events(&s);
    let explorers: Vec<AgentId> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Fallback { agent, action: GateAction::LocalSkip, .. } => Some(agent),
            _ => None,
        })
        .collect();
    assert!(!explorers.is_empty(), "nobody was refused planks with no route known");
    for a in explorers {
        let planks_issue = events
            .iter()
            .find(|e| matches!(&e.kind, EventKind::Issue { agent, item: Some(i), .. } if *agent == a && i == "oak_planks"))
            .map(|e| e.t)
            .expect("an issue on planks");
        let cobble: Vec<u64> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Action { agent, action, ok: true, item: Some(i), .. }
                    if *agent == a && action.as_str() == "place" && i == "cobblestone" =>
                {
                    Some(e.t)
                }
                _ => None,
            })
            .collect();
        let last_cobble = *cobble.last().expect("it placed cobblestone");
        assert!(planks_issue < last_cobble, "{a}: planks were missing while other work was left");
        // Every walk farther than 8 blocks from the blueprint comes after the last of it.
        let far = |p: gatecrew_protocol::Pos| {
            s.blueprint.cells().iter().all(|c| (c.pos.x - p.x).abs().max((c.pos.z - p.z).abs()) > 8)
        };
        let first_far = walks(&events, a).into_iter().find(|(_, p, _)| far(*p)).map(|w| w.0).expect("it explored");
        assert!(first_far > last_cobble, "{a} explored at t={first_far} with work left (last placed t={last_cobble})");
    }
    assert_eq!(end(&events), (true, EndReason::Complete), "the tree was found and cut");
}

#[test]
fn exploring_where_nothing_grows_stops_within_the_budget_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // No tree anywhere in a world far larger than one budget of walking.
    let world = "bounds = { min = [-120, 0, -120], max = [120, 10, 120] }";
    let s = episode(dir.path(), WALL, world, "dirt = 1", "oak_planks = 2");
    let events = run_events(&s);
    let f = fallbacks(&events, AgentId(0));
    assert!(f.iter().all(|x| x.1 == GateAction::LocalSkip), "{f:?}");
    let mut search: Vec<_> = walks(&events, AgentId(0)).into_iter().filter(|(t, _, _)| *t > f[0].0).collect();
    // The last walk takes it back to its share, where its teammates are: not a search.
    let (_, home, _) = search.pop().expect("it walked");
    // (The wall is a few blocks long: near any of its cells is near the share.)
    let near_wall = s.blueprint.cells().iter().any(|c| (c.pos.x - home.x).abs().max((c.pos.z - home.z).abs()) <= 8);
    assert!(near_wall, "the last walk ends at its share: {home:?}");
    let walked: u64 = search.iter().map(|w| w.2).sum();
    assert!(walked > BUDGET / 2 && walked <= BUDGET, "walked {walked} ticks exploring, budget {BUDGET}");
    let (complete, reason) = end(&events);
    assert!(!complete && reason != EndReason::TickLimit, "the episode ends when the search does: {reason:?}");
    let why: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Unfinished { agent: AgentId(0), why, .. } => Some(why.as_str()),
            _ => None,
        })
        .collect();
    assert!(!why.is_empty(), "bot0's planks are reported unfinished");
    assert!(why.iter().all(|w| w.contains("walking budget ran out")), "{why:?}");
}
