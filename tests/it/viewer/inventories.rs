//! The cards' inventories equal the world's at every tick, in a replay and live.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use gatecrew_crew::agent::AgentCore;
use gatecrew_crew::{ByAdjudicator, Episode, Observer, Setup};
use gatecrew_gating::Deterministic;
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{ActionName, Event, EventKind, TraceWriter};
use gatecrew_viewer::crew::{ResimError, ViewProbe, resimulate};
use gatecrew_viewer::replay::Recording;
use gatecrew_viewer::server::{Source, bind};
use gatecrew_viewer::{InventorySource, ViewState, hub};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::socket::merge;

type Inventories = Vec<BTreeMap<String, u32>>;

fn world_inventories(setup: &Setup, ep: &Episode) -> Inventories {
    let w = ep.world();
    (0..w.agent_count())
        .map(|i| {
            let inv = &w.body(AgentId(i as u32)).unwrap().inventory;
            inv.iter().filter(|(_, n)| *n > 0).map(|(item, n)| (setup.data.item_name(item).to_owned(), n)).collect()
        })
        .collect()
}

/// Runs `setup` on the stepper, events to `sink`; returns the world's inventories after
/// every step, by tick (the last step of a tick wins), read from the episode itself.
fn run_reading_the_world(setup: &Setup, sink: &mut dyn Observer) -> BTreeMap<u64, Inventories> {
    let mut det = ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() });
    let mut by_tick = BTreeMap::new();
    let mut watch = |ep: &Episode, _: &[AgentCore]| {
        by_tick.insert(ep.tick().0, world_inventories(setup, ep));
    };
    let (_, end) = gatecrew_crew::run_watched(setup, sink, &mut det, &mut watch).unwrap();
    by_tick.insert(end.tick().0, world_inventories(setup, &end));
    by_tick
}

/// The default crew without the chest's logs and bot1's: the logs for its planks have
/// to be mined from the trees, which the trace records without naming the items.
fn gathering_setup(dir: &std::path::Path) -> Setup {
    let default = crate::common::default_config();
    let configs = default.parent().unwrap();
    let text = std::fs::read_to_string(&default).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let line = if line.starts_with("chests = ") { "" } else { line };
        let line = line
            .replace("blueprint = \"", &format!("blueprint = \"{}/", configs.display()))
            .replace("data = \"", &format!("data = \"{}/", configs.display()))
            .replace("oak_log = 4, ", "");
        out.push_str(&line);
        out.push('\n');
    }
    let path = dir.join("gathering.toml");
    std::fs::write(&path, out).unwrap();
    Setup::load(&path, &gatecrew_crew::Overrides::default()).unwrap()
}

fn cards(s: &ViewState) -> Inventories {
    s.bots.iter().map(|b| b.inventory.clone()).collect()
}

#[test]
fn a_replay_shows_the_worlds_inventories_at_every_tick() {
    let dir = tempfile::tempdir().unwrap();
    let setup = gathering_setup(dir.path());
    let mut events = Vec::new();
    let mut trace = TraceWriter::new(Vec::new());
    let world = run_reading_the_world(&setup, &mut |e: &Event| {
        events.push(e.clone());
        trace.write(e).unwrap();
    });
    let trace = trace.into_inner();
    // Bots mine and pick items up here: what the trace names no items for.
    let gathered = events
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::Action { action: ActionName::Mine | ActionName::PickUp, ok: true, .. })
        })
        .count();
    assert!(gathered > 0, "the bots mine or pick items up");

    let mut det = ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() });
    let timeline = resimulate(&setup, &trace, &mut det).expect("the re-simulation reproduces the trace");
    let scene = gatecrew_cli::viewer_scene(&setup);
    let exact = Recording::new(scene.clone(), events.clone()).with_inventories(timeline);
    let approx = Recording::new(scene, events);
    let mut differed = 0;
    for (&t, want) in &world {
        let s = exact.state_at(t);
        assert_eq!(s.inventory_from, InventorySource::World);
        assert_eq!(&cards(&s), want, "tick {t}: the cards hold what the world holds");
        differed += usize::from(&cards(&approx.state_at(t)) != want);
    }
    assert!(differed > 0, "counting the trace's item movements alone misses what bots gathered");
    assert_eq!(approx.state_at(0).inventory_from, InventorySource::Trace);

    // A trace that is not what the config runs to: no inventories from it.
    let mut tampered = trace.clone();
    // The last number of the trace (in episode_end), one higher.
    let at = tampered.iter().rposition(|b| b.is_ascii_digit()).unwrap();
    tampered[at] = if tampered[at] == b'9' { b'8' } else { tampered[at] + 1 };
    let mut det = ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() });
    match resimulate(&setup, &tampered, &mut det) {
        Err(ResimError::Differs { line: Some(l) }) => assert!(l >= 1),
        other => panic!("a changed trace must not pass: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_page_shows_the_worlds_inventories() {
    let dir = tempfile::tempdir().unwrap();
    let setup = gathering_setup(dir.path());
    let mut events = Vec::new();
    let world = run_reading_the_world(&setup, &mut |e: &Event| events.push(e.clone()));
    let last = events.last().unwrap().t;
    // Paced so that the page goes through many states while the run is shown.
    let (feed, live) = hub::start(gatecrew_cli::viewer_scene(&setup), Some(last as f64 / 1.5));
    let bound = bind("127.0.0.1:0".parse().unwrap(), Source::Live(live)).await.unwrap();
    let addr = bound.addr();
    let server = tokio::spawn(bound.serve(std::future::pending()));
    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut().insert("origin", format!("http://{addr}").parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let run = tokio::task::spawn_blocking(move || {
        let mut probed = setup.clone();
        probed.probe = Some(ViewProbe::feeding(setup.data.clone(), feed.clone()));
        let mut w = TraceWriter::new(feed.trace(std::io::sink()));
        let again = run_reading_the_world(&probed, &mut |e: &Event| w.write(e).unwrap());
        feed.finish();
        again
    });
    let mut page = serde_json::Value::Null;
    let mut checked = std::collections::BTreeSet::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while page["ended"].is_null() && tokio::time::Instant::now() < deadline {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.unwrap().unwrap().unwrap();
        merge(&mut page, &msg.into_text().unwrap());
        assert_eq!(page["inventory_from"], "world");
        let Some(t) = page["inventory_tick"].as_u64() else { continue };
        let shown: Inventories = page["bots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| serde_json::from_value(b["inventory"].clone()).unwrap())
            .collect();
        assert_eq!(&shown, &world[&t], "the page at inventory tick {t} (page tick {})", page["tick"]);
        assert!(t <= page["tick"].as_u64().unwrap());
        checked.insert(t);
    }
    assert_eq!(page["ended"], "complete");
    assert_eq!(run.await.unwrap(), world, "the probe changes nothing in the run");
    let mined = events.iter().any(|e| matches!(&e.kind, EventKind::Action { action: ActionName::Mine, ok: true, .. }));
    assert!(mined, "the bots mine in this run");
    let end = *world.keys().last().unwrap();
    assert!(checked.contains(&end), "the final state holds the final inventories: {checked:?}");
    assert!(checked.len() >= 3, "the paced page showed inventories at several ticks: {checked:?}");
    server.abort();
}
