//! The rollout oracle (DESIGN sections 3 and 8): an escalation the agent
//! makes because it knows no local route, where the world holds one out of its view,
//! counts as unnecessary at the budget the rollout needed.

use gatecrew_analyze::{By, Metric, Report, read_traces};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Decision, Event, EventKind, ResolvedBy, TraceWriter};
use gatecrew_protocol::{AgentId, metrics::UER_BUDGETS};

use crate::common::{root, write};

/// Two bots build a plank wall. bot0 holds no planks; bot1 holds enough for both. The
/// only tree stands 27 blocks from bot0 (24 from bot1), outside a view of 16, in a
/// world neither walked: bot0 knows no local route and escalates; bot1 hands planks over.
fn far_tree(dir: &std::path::Path) -> Setup {
    write(
        dir,
        "configs/blueprints/bp.toml",
        "name = \"wall\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [3, 0, 0]\nblock = \"oak_planks\"\n",
    );
    let data_file = dir.join("configs/data/minecraft-1.20.4.json");
    std::fs::create_dir_all(data_file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data_file).unwrap();
    let cfg = "blueprint = \"blueprints/bp.toml\"\ndata = \"data/minecraft-1.20.4.json\"\n\
        [episode]\nname = \"far-tree\"\nseed = 3\ntick_limit = 20000\npolicy = \"gated\"\n\
        [world]\nbounds = { min = [-12, 0, -12], max = [40, 10, 16] }\ntrees = [{ at = [27, 0, 0], height = 4 }]\n\
        [world.rules]\nsight = 16\n\
        [[agents]]\nstart = [0, 0, 2]\ninventory = { dirt = 1 }\n\
        [[agents]]\nstart = [3, 0, 2]\ninventory = { oak_planks = 8 }\n";
    let path = write(dir, "configs/crew.toml", cfg);
    Setup::load(&path, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_escalation_whose_only_local_route_is_out_of_view_is_unnecessary_when_the_rollout_finds_it() {
    let dir = tempfile::tempdir().unwrap();
    let s = far_tree(dir.path());
    let mut events: Vec<Event> = Vec::new();
    gatecrew_crew::run_to_end(&s, &mut |e: &Event| events.push(e.clone()));
    // bot0 escalated planks: its R said no local route (it never saw the tree).
    let (t, issue, ticks) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Gate {
                agent: AgentId(0),
                issue_id,
                decision: Decision::Escalate,
                features,
                oracle_ticks,
                ..
            } => {
                assert_eq!(features.r, 0, "bot0 knew a local route: {:?}", e.kind);
                Some((e.t, *issue_id, *oracle_ticks))
            }
            _ => None,
        })
        .expect("bot0 never escalated");
    // The rollout, knowing the tree, walked there, cut a log and crafted planks.
    let ticks = ticks.expect("the rollout found the tree out of view");
    assert!(ticks > 100 && ticks <= UER_BUDGETS[3], "{ticks}");
    let resolved = events.iter().find_map(|e| match e.kind {
        EventKind::Resolved { issue_id, by, .. } if issue_id == issue => Some((e.t, by)),
        _ => None,
    });
    assert_eq!(resolved.map(|r| r.1), Some(ResolvedBy::Board), "bot1 handed the planks over");
    // analyze reads it back: unnecessary at every budget the rollout fits in, not below.
    let file = dir.path().join("runs/far-tree.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut w = TraceWriter::new(std::fs::File::create(&file).unwrap());
    events.iter().for_each(|e| w.write(e).unwrap());
    w.flush().unwrap();
    let read = read_traces(&[dir.path().join("runs")]).unwrap();
    let r = Report::build(&read.episodes, By::Policy);
    let budgets = [Metric::Uer300, Metric::Uer600, Metric::Uer1200, Metric::Uer2400];
    for (m, b) in budgets.into_iter().zip(UER_BUDGETS) {
        let uer = r.value("gated", "all", m).expect("escalations: UER defined");
        assert_eq!(uer > 0.0, ticks <= b, "{m:?} at {b} ticks with a rollout of {ticks}: {uer}");
    }
    // Faster than the board when the hand-over took longer than the rollout.
    let board = resolved.map(|r| r.0 - t).unwrap();
    let faster = r.value("gated", "all", Metric::UerFaster).unwrap();
    assert_eq!(faster > 0.0, ticks < board, "rollout {ticks} against the board's {board}: {faster}");
}
