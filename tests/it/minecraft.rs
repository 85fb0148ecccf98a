//! gatecrew on a real Minecraft server: the local flying-squid harness (bridge/) on a
//! free loopback port, the mineflayer bridge, two bots. The packages are installed with
//! `npm ci` on first use (CI runs it before the tests). Every process is stopped by
//! PID, and each test checks that none is left.
//!
//! These tests run one at a time, and not while the llama.cpp tests run (a lock shared
//! with them): each starts Node processes, and the machine has two cores.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gatecrew_crew::{EndReason, Overrides, Setup};
use gatecrew_mcworld::wire::Command;
use gatecrew_mcworld::{Bridge, Fault, LocalServer, McOptions, McRun, Origin, Placements, Server};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{ActionName, Event, EventKind};

use crate::common::{item, root, write};

mod partner;

fn serial() -> std::sync::MutexGuard<'static, ()> {
    crate::common::live_turn()
}

fn wall() -> Setup {
    Setup::load(&root().join("configs/minecraft/wall.toml"), &Overrides::default()).unwrap()
}

fn bridge_dir() -> PathBuf {
    gatecrew_mcworld::bridge_dir(Some(&root().join("bridge"))).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Whether a process is gone (reaped: not even a zombie is left).
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Starts the harness (installing the packages first if needed).
async fn local_server() -> LocalServer {
    let dir = bridge_dir();
    gatecrew_mcworld::ensure_installed(&dir).await.unwrap();
    LocalServer::start(&dir, "1.20.4").await.unwrap()
}

fn on_harness(server: &LocalServer) -> McOptions {
    let mut opts = McOptions::new(Server::Remote { host: "127.0.0.1".into(), port: server.port() });
    opts.flying_squid = true;
    opts.origin = Some(Origin { x: 0, y: server.ground_y(), z: 0 });
    opts.bridge_dir = Some(bridge_dir());
    opts
}

async fn play(setup: &Setup, opts: &McOptions) -> (McRun, Vec<Event>) {
    let mut events = Vec::new();
    let mut sink = |e: &Event| events.push(e.clone());
    let run = gatecrew_mcworld::run(setup, opts, &mut sink).await.unwrap();
    assert!(gone(run.bridge_pid), "the bridge (pid {}) is still there", run.bridge_pid);
    (run, events)
}

fn failures(events: &[Event]) -> Vec<(AgentId, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AgentFailed { agent, cause } => Some((*agent, cause.clone())),
            _ => None,
        })
        .collect()
}

fn end_reason(events: &[Event]) -> EndReason {
    match events.last().map(|e| &e.kind) {
        Some(EventKind::EpisodeEnd { reason, .. }) => *reason,
        other => panic!("the trace does not end with episode_end: {other:?}"),
    }
}

/// What an independent bot sees at the blueprint's cells, by Minecraft block name.
async fn inspect(server: &LocalServer, setup: &Setup) -> Vec<(String, String)> {
    let (bridge, _events) = Bridge::start(&bridge_dir()).await.unwrap();
    let spawn = Command::SpawnBot {
        host: "127.0.0.1".into(),
        port: server.port(),
        version: "1.20.4".into(),
        standins: true,
        timeout_ms: 30_000,
    };
    bridge.request("inspector", &spawn, Duration::from_secs(40)).await.unwrap();
    let origin = Origin { x: 0, y: server.ground_y(), z: 0 };
    let cells = setup.blueprint.cells();
    let look = Command::Look { cells: cells.iter().map(|c| origin.to_mc(c.pos)).collect() };
    let seen = bridge.request("inspector", &look, Duration::from_secs(20)).await.unwrap();
    bridge.stop(Duration::from_secs(3)).await;
    assert!(gone(bridge.pid()));
    cells.iter().map(|c| setup.data.block_name(c.block).to_owned()).zip(seen.names).collect()
}

#[test]
fn two_bots_build_the_wall_with_one_transfer_through_the_board() {
    let _one = serial();
    runtime().block_on(async {
        let started = Instant::now();
        let server = local_server().await;
        let setup = wall();
        assert!(setup.blueprint.len() >= 10);
        let (run, events) = play(&setup, &on_harness(&server)).await;

        assert_eq!(run.finished.reason, EndReason::Complete, "{:?}", run.failed);
        assert_eq!(run.finished.progress.correct, 12);
        assert_eq!(run.observed_correct, Some(12), "the driver's last look");
        assert!(run.failed.is_empty(), "{:?}", run.failed);
        // Exactly one transfer, through the board: request, offer, confirm; the glass
        // went from bot1 to bot0 by a verified give.
        let board: Vec<&str> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Board { msg, .. } => Some(msg.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(board.iter().filter(|m| **m == "CONFIRM_TRANSFER").count(), 1, "{board:?}");
        assert!(board.contains(&"REQUEST_MATERIAL") && board.contains(&"OFFER_TRANSFER"), "{board:?}");
        let gives: Vec<_> = events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Action { action, ok: true, agent: AgentId(1), item: Some(i), count: Some(2), .. }
                if action.as_str() == "give" && i == "glass"))
            .collect();
        assert_eq!(gives.len(), 1);
        // Every block was placed by an agent's verified action, never by setup.
        let placed = events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Action { action, ok: true, .. } if action.as_str() == "place"))
            .count();
        assert_eq!(placed, 12);

        // A bot that took no part looks at every cell.
        for (want, seen) in inspect(&server, &setup).await {
            assert_eq!(want, seen);
        }
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid), "the server (pid {pid}) is still there");
        assert!(started.elapsed() < Duration::from_secs(120), "took {:?}", started.elapsed());
        // The bridge measured itself: its overhead is small next to the game's time.
        let mut overhead: Vec<f64> = run.latencies.iter().map(|l| l.overhead_ms()).collect();
        overhead.sort_by(f64::total_cmp);
        assert!(overhead.len() >= 14);
        assert!(overhead[overhead.len() / 2] < 50.0, "median overhead {overhead:?}");
    });
}

#[test]
fn an_unreachable_server_fails_every_agent_with_a_clear_error() {
    let _one = serial();
    // A port nobody listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let args = [
        "gatecrew".to_owned(),
        "run".into(),
        "--config".into(),
        root().join("configs/minecraft/wall.toml").display().to_string(),
        "--world".into(),
        "minecraft".into(),
        "--server".into(),
        format!("127.0.0.1:{port}"),
        "--bridge-dir".into(),
        bridge_dir().display().to_string(),
        "--trace".into(),
        trace.display().to_string(),
        "--quiet".into(),
    ];
    let code = gatecrew_cli::main_with(args, &mut out, &mut err);
    let err = String::from_utf8(err).unwrap();
    assert_eq!(code, std::process::ExitCode::from(1), "{err}");
    assert!(err.contains("every agent failed") && err.contains("cannot join"), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    let events: Vec<Event> =
        gatecrew_protocol::trace::TraceReader::new(std::io::BufReader::new(std::fs::File::open(&trace).unwrap()))
            .collect::<Result<_, _>>()
            .unwrap();
    let failed = failures(&events);
    assert_eq!(failed.iter().map(|(a, _)| a.0).collect::<Vec<_>>(), vec![0, 1]);
    assert!(failed.iter().all(|(_, why)| why.contains("cannot join")), "{failed:?}");
    assert_eq!(end_reason(&events), EndReason::AgentsFailed);
    assert!(!events.iter().any(|e| matches!(e.kind, EventKind::Action { .. })));
}

#[test]
fn a_kicked_bot_fails_its_agent_and_the_crew_goes_on() {
    let _one = serial();
    runtime().block_on(async {
        let server = local_server().await;
        let mut setup = wall();
        setup.tick_limit = 900;
        let mut opts = on_harness(&server);
        // bot1 kicks bot0 (the window's owner) with the server's own /kick.
        opts.faults = vec![Fault::KickAt { agent: AgentId(0), tick: 1 }];
        let (run, events) = play(&setup, &opts).await;
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid));

        let failed = failures(&events);
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert_eq!(failed[0].0, AgentId(0));
        assert!(failed[0].1.contains("kicked"), "{failed:?}");
        assert_eq!(run.failed.len(), 1);
        // bot1 went on and built its half (x = 0..2, both rows), seen at the end.
        let t_fail = events.iter().find(|e| matches!(e.kind, EventKind::AgentFailed { .. })).unwrap().t;
        let after: Vec<_> = events
            .iter()
            .filter(|e| e.t >= t_fail)
            .filter(|e| matches!(&e.kind, EventKind::Action { agent: AgentId(1), action, ok: true, .. } if action.as_str() == "place"))
            .collect();
        assert!(!after.is_empty(), "bot1 did nothing after bot0 failed");
        assert!(run.observed_correct.unwrap() >= 6, "{:?}", run.observed_correct);
        assert!(!events.iter().any(|e| e.t > t_fail
            && matches!(&e.kind, EventKind::Action { agent: AgentId(0), .. })));
        let reason = end_reason(&events);
        assert!(matches!(reason, EndReason::Stalled | EndReason::TickLimit), "{reason}");
        assert_eq!(run.finished.reason, reason);
    });
}

#[test]
fn a_dead_bridge_fails_every_agent_and_the_episode_ends_cleanly() {
    let _one = serial();
    runtime().block_on(async {
        let server = local_server().await;
        let setup = wall();
        let mut opts = on_harness(&server);
        opts.faults = vec![Fault::KillBridgeAt { tick: 10 }];
        let (run, events) = play(&setup, &opts).await;
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid));

        let mut failed = failures(&events);
        failed.sort();
        assert_eq!(failed.iter().map(|(a, _)| a.0).collect::<Vec<_>>(), vec![0, 1], "{failed:?}");
        assert!(
            failed.iter().all(|(_, why)| why.contains("bridge process") && why.contains("signal: 9")),
            "{failed:?}"
        );
        assert_eq!(end_reason(&events), EndReason::AgentsFailed);
        assert_eq!(run.finished.reason, EndReason::AgentsFailed);
        assert_eq!(run.observed_correct, None, "nobody was left to look");
        // Unfinished work is reported for both agents.
        assert!(events.iter().any(|e| matches!(&e.kind, EventKind::Unfinished { agent: AgentId(0), .. })));
        assert!(events.iter().any(|e| matches!(&e.kind, EventKind::Unfinished { agent: AgentId(1), .. })));
    });
}

#[test]
fn a_walk_that_times_out_stops_the_pathfinder_and_the_next_walk_works() {
    let _one = serial();
    runtime().block_on(async {
        let server = local_server().await;
        let (bridge, _events) = Bridge::start(&bridge_dir()).await.unwrap();
        let y = server.ground_y();
        let spawn = Command::SpawnBot {
            host: "127.0.0.1".into(),
            port: server.port(),
            version: "1.20.4".into(),
            standins: true,
            timeout_ms: 30_000,
        };
        let wait = Duration::from_secs(40);
        bridge.request("walker", &spawn, wait).await.unwrap();
        bridge.request("walker", &Command::Admin { line: format!("/tp walker 0.5 {y} 0.5") }, wait).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        // Far beyond anything it can reach in half a second.
        let far = Command::MoveTo { x: 300, y, z: 300, range: 0.0, timeout_ms: 500 };
        let err = bridge.request("walker", &far, wait).await.unwrap_err();
        let gatecrew_mcworld::BridgeError::Command { code, message, .. } = &err else { panic!("{err}") };
        assert_eq!(*code, gatecrew_mcworld::ErrorCode::Timeout, "{message}");
        // Stopped for good: the bot stands still instead of walking on toward the old goal.
        let look = Command::Observe { radius: 0 };
        let a = bridge.request("walker", &look, wait).await.unwrap().pos.unwrap();
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let b = bridge.request("walker", &look, wait).await.unwrap().pos.unwrap();
        let moved = ((a[0] - b[0]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
        assert!(moved < 0.3, "still walking: {a:?} -> {b:?}");
        // The stale goal is gone: a short walk gets there.
        let near = Command::MoveTo { x: 3, y, z: 2, range: 0.0, timeout_ms: 15_000 };
        let d = bridge.request("walker", &near, wait).await.unwrap();
        assert_eq!((d.reached, d.feet), (Some(true), Some([3, y, 2])));
        bridge.stop(Duration::from_secs(3)).await;
        let pids = (bridge.pid(), server.pid());
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pids.0) && gone(pids.1));
    });
}

/// The default crew config (`gatecrew run --world minecraft --local-server` with no
/// `--config`): three bots build the 96-cell house on the local flying-squid, the door
/// (two cells) included, and bot0's glass comes through the board.
#[test]
fn the_default_house_completes_on_the_local_server() {
    let _one = serial();
    runtime().block_on(async {
        let server = local_server().await;
        let setup = Setup::load(&root().join("configs/crew.toml"), &Overrides::default()).unwrap();
        let total = setup.blueprint.len() as u32;
        let (run, _events) = play(&setup, &on_harness(&server)).await;

        assert!(run.failed.is_empty(), "{:?}", run.failed);
        assert_eq!(run.finished.reason, EndReason::Complete, "{:?}", run.finished.progress);
        assert_eq!((run.finished.progress.correct, run.finished.progress.total), (total, total));
        assert_eq!(run.observed_correct, Some(total), "the driver's last look");
        assert_eq!(run.finished.progress.scaffold_left, 0, "scaffold left standing");
        // A bot that took no part sees every cell right, both halves of the door included.
        for (want, seen) in inspect(&server, &setup).await {
            assert_eq!(want, seen);
        }
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid), "the server (pid {pid}) is still there");
    });
}

/// A lookout post 8 blocks tall with an arm at the top: out of reach from the ground, so
/// the bot pillars up on dirt (jump-places), builds the top and the arm from the pillar,
/// and digs the pillar back, every dirt returning to its inventory.
#[test]
fn a_bot_pillars_up_on_the_server_and_digs_its_pillar_back() {
    let _one = serial();
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "configs/blueprints/bp.toml",
        "name = \"lookout\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [0, 7, 0]\nblock = \"cobblestone\"\n\
         [[fill]]\nfrom = [1, 7, 0]\nto = [2, 7, 0]\nblock = \"cobblestone\"\n",
    );
    let data_file = dir.path().join("configs/data/minecraft-1.20.4.json");
    std::fs::create_dir_all(data_file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data_file).unwrap();
    let cfg = write(
        dir.path(),
        "configs/crew.toml",
        "blueprint = \"blueprints/bp.toml\"\ndata = \"data/minecraft-1.20.4.json\"\n\
         [episode]\nname = \"mc-lookout\"\nseed = 7\ntick_limit = 6000\npolicy = \"gated\"\n\
         [world]\nbounds = { min = [-6, 0, -6], max = [8, 12, 6] }\n\
         [[agents]]\nstart = [-2, 0, 0]\ninventory = { cobblestone = 10, dirt = 10 }\n",
    );
    let setup = Setup::load(&cfg, &Overrides::default()).unwrap();
    runtime().block_on(async {
        let server = local_server().await;
        let (run, events) = play(&setup, &on_harness(&server)).await;
        assert!(run.failed.is_empty(), "{:?}", run.failed);
        assert_eq!(run.finished.reason, EndReason::Complete, "{:?}", run.finished.progress);
        assert_eq!(run.observed_correct, Some(10));
        assert_eq!(run.finished.progress.scaffold_left, 0);
        let outside = |p: &gatecrew_protocol::Pos| setup.blueprint.cell_at(*p).is_none();
        let scaffold_places = events
            .iter()
            .filter(|e| {
                matches!(&e.kind, EventKind::Action { action, ok: true, pos: Some(p), .. }
                if action.as_str() == "place" && outside(p))
            })
            .count();
        let scaffold_digs = events
            .iter()
            .filter(|e| {
                matches!(&e.kind, EventKind::Action { action, ok: true, pos: Some(p), .. }
                if action.as_str() == "mine" && outside(p))
            })
            .count();
        assert!(scaffold_places >= 1, "the top is out of reach without a pillar");
        assert_eq!(scaffold_places, scaffold_digs, "every scaffold block was dug back");
        // Conserved: the bot's own client saw every dirt come back and every cobblestone go.
        let inv = &run.inventories[0];
        assert_eq!((inv.count(item("dirt")), inv.count(item("cobblestone"))), (10, 0));
        for (want, seen) in inspect(&server, &setup).await {
            assert_eq!(want, seen);
        }
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid));
    });
}

/// Writes a one-bot config building `row` (block names) along x at z = 0, with exactly
/// one item of each and the `spare` items besides, in a temporary folder with the game
/// data.
fn one_row(dir: &Path, name: &str, row: &[&str], spare: &[(&str, u32)]) -> Setup {
    let mut bp = format!("name = \"{name}\"\n");
    for (x, b) in row.iter().enumerate() {
        bp.push_str(&format!("[[block]]\nat = [{x}, 0, 0]\nblock = \"{b}\"\n"));
    }
    write(dir, "configs/blueprints/bp.toml", &bp);
    let data_file = dir.join("configs/data/minecraft-1.20.4.json");
    std::fs::create_dir_all(data_file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data_file).unwrap();
    let inv: Vec<String> =
        row.iter().map(|b| format!("{b} = 1")).chain(spare.iter().map(|(i, n)| format!("{i} = {n}"))).collect();
    let cfg = write(
        dir,
        "configs/crew.toml",
        &format!(
            "blueprint = \"blueprints/bp.toml\"\ndata = \"data/minecraft-1.20.4.json\"\n\
             [episode]\nname = \"{name}\"\nseed = 7\ntick_limit = 4000\npolicy = \"gated\"\n\
             [world]\nbounds = {{ min = [-4, 0, -4], max = [{}, 4, 4] }}\n\
             [[agents]]\nstart = [-2, 0, 1]\ninventory = {{ {} }}\n",
            row.len() + 3,
            inv.join(", ")
        ),
    );
    Setup::load(&cfg, &Overrides::default()).unwrap()
}

/// Twelve item kinds on one bot: three more than its hotbar holds, so every placement of
/// the last three needs a stack moved into the hand. flying-squid ignores the inventory
/// clicks mineflayer moves stacks with; before the bridge kept the inventory in step with
/// the server's own slot packets, the bot placed whatever the server held in that slot
/// (stone where the pressure plate belongs) and the row ended at TSR 0.6.
#[test]
fn a_row_of_twelve_item_kinds_on_one_bot_completes_on_the_server() {
    let _one = serial();
    let dir = tempfile::tempdir().unwrap();
    let row = [
        "stone",
        "oak_planks",
        "cobblestone",
        "bricks",
        "glass",
        "sandstone",
        "terracotta",
        "quartz_block",
        "purpur_block",
        "copper_block",
        "stone_pressure_plate",
        "dirt",
    ];
    let setup = one_row(dir.path(), "mc-twelve", &row, &[]);
    runtime().block_on(async {
        let server = local_server().await;
        let (run, _events) = play(&setup, &on_harness(&server)).await;
        assert!(run.failed.is_empty(), "{:?}", run.failed);
        assert_eq!(run.finished.reason, EndReason::Complete, "{:?}", run.finished.progress);
        assert_eq!(run.observed_correct, Some(12));
        assert_eq!(run.placements, Placements { made: 12, not_made: 0, wrong: 0 });
        // Every item was spent on its own cell, as the bot's own client reports.
        assert!(row.iter().all(|b| run.inventories[0].count(item(b)) == 0), "{:?}", run.inventories[0]);
        for (want, seen) in inspect(&server, &setup).await {
            assert_eq!(want, seen);
        }
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid));
    });
}

/// A slip of the hand on the server: the bot's first placement puts dirt (it carries
/// one) where stone belongs. The placement is not counted as made; the bot sees the
/// dirt in its cell, digs it out (the harness gives the dug block back, as a player
/// picks it up), and places the stone. The server ends with every cell right.
#[test]
fn a_wrong_block_on_the_server_is_dug_out_and_replaced() {
    let _one = serial();
    let dir = tempfile::tempdir().unwrap();
    let row = ["stone", "oak_planks", "cobblestone", "bricks"];
    let setup = one_row(dir.path(), "mc-wrong-block", &row, &[("dirt", 1)]);
    runtime().block_on(async {
        let server = local_server().await;
        let mut opts = on_harness(&server);
        opts.faults = vec![Fault::WrongItemAt { agent: AgentId(0), tick: 0, item: "dirt".into() }];
        let (run, events) = play(&setup, &opts).await;
        assert!(run.failed.is_empty(), "{:?}", run.failed);
        assert_eq!(run.placements.wrong, 1, "{:?}", run.placements);
        assert_eq!(run.finished.reason, EndReason::Complete, "{:?}", run.finished.progress);
        assert_eq!(run.observed_correct, Some(4));
        // The dirt came back with the dig and is all the bot holds.
        let inv = &run.inventories[0];
        assert_eq!(inv.count(item("dirt")), 1, "{inv:?}");
        assert!(row.iter().all(|b| inv.count(item(b)) == 0), "{inv:?}");
        let digs = events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Action { action: ActionName::Mine, ok: true, .. }))
            .count();
        assert_eq!(digs, 1, "one dig: the wrong block");
        assert_eq!(run.finished.progress.blocks_replaced, 1);
        match events.last().map(|e| &e.kind) {
            Some(EventKind::EpisodeEnd { blocks_replaced, .. }) => assert_eq!(*blocks_replaced, Some(1)),
            other => panic!("{other:?}"),
        }
        for (want, seen) in inspect(&server, &setup).await {
            assert_eq!(want, seen);
        }
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid));
    });
}
