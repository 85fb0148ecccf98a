//! The viewer: its state folded from the default episode's trace, replays at any tick,
//! the websocket's Origin check, browsers that never touch the trace, and the cards'
//! inventories equal to the world's, live and in a replay.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use gatecrew_crew::agent::AgentCore;
use gatecrew_crew::{ByAdjudicator, Episode, Observer, Setup};
use gatecrew_gating::Deterministic;
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{ActionName, Event, EventKind, TraceWriter, WindowEvent};
use gatecrew_viewer::crew::{ResimError, ViewProbe, resimulate};
use gatecrew_viewer::replay::{Cursor, Recording};
use gatecrew_viewer::server::{Source, bind};
use gatecrew_viewer::{InventorySource, ViewState, hub};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::cli::gatecrew;
use crate::common::default_setup;

mod panels;

fn episode() -> (gatecrew_viewer::Scene, Vec<Event>) {
    let setup = default_setup();
    let mut events = Vec::new();
    gatecrew_crew::run(&setup, &mut |e: &Event| events.push(e.clone()));
    (gatecrew_cli::viewer_scene(&setup), events)
}

fn json(s: &ViewState) -> serde_json::Value {
    serde_json::to_value(s).unwrap()
}

#[test]
fn the_state_follows_the_default_episode_to_its_end() {
    let (scene, events) = episode();
    let mut s = ViewState::new(&scene, "live");
    let mut confirmed = 0;
    for ev in &events {
        s.observe(ev);
        if let EventKind::Window { event: WindowEvent::Close, outcome: Some(o), .. } = &ev.kind {
            confirmed += usize::from(*o == gatecrew_protocol::CloseOutcome::Confirmed);
        }
    }
    s.refresh();
    let Some(EventKind::EpisodeEnd { correct_blocks, blueprint_blocks, complete, .. }) = events.last().map(|e| &e.kind)
    else {
        panic!("no end")
    };
    assert!(complete, "the default episode completes");
    assert_eq!(s.blocks.total, *blueprint_blocks);
    assert_eq!(s.blocks.placed, *correct_blocks, "placed blocks follow the verified place outcomes");
    assert_eq!(s.blocks.remaining, 0);
    assert_eq!(s.blocks.layers.iter().map(|l| l.placed).sum::<u32>(), s.blocks.placed);
    assert_eq!(s.ended.as_deref(), Some("complete"));
    assert!(s.bots.len() >= 2 && s.bots.iter().all(|b| b.pos.is_some() && b.actions > 0));
    assert!(confirmed >= 1, "the default episode hands items over");
    assert_eq!(s.handovers.len(), confirmed);
    let done: Vec<_> = s.board.threads.iter().filter(|t| t.state == "confirmed").collect();
    assert_eq!(done.len(), confirmed);
    for t in done {
        let kinds: Vec<&str> = t.messages.iter().map(|m| m.msg.as_str()).collect();
        assert_eq!(kinds.first(), Some(&"REQUEST_MATERIAL"), "{kinds:?}");
        assert_eq!(kinds.last(), Some(&"CONFIRM_TRANSFER"), "{kinds:?}");
        assert!(kinds.contains(&"OFFER_TRANSFER"));
        let g = t.gate.as_ref().expect("the gate decision that escalated");
        assert_eq!(g.decision, "escalate");
    }
    // At the end nobody is blocked.
    assert!(s.bots.iter().all(|b| b.blocker.is_none()), "{:?}", s.bots);
}

#[test]
fn a_bot_is_blocked_from_its_issue_until_its_resolution() {
    let (scene, events) = episode();
    let (agent, id, t0) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Issue { agent, issue_id, .. } => Some((agent.0, issue_id.0, e.t)),
            _ => None,
        })
        .expect("the default episode has an issue");
    let t1 = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Resolved { issue_id, .. } if issue_id.0 == id => Some(e.t),
            _ => None,
        })
        .expect("resolved");
    let rec = Recording::new(scene, events);
    let before = rec.state_at(t0.saturating_sub(1));
    assert!(before.bots[agent as usize].blocker.as_ref().is_none_or(|b| b.issue_id != id));
    let during = rec.state_at(t0);
    assert_eq!(during.bots[agent as usize].blocker.as_ref().map(|b| b.issue_id), Some(id));
    if t1 > t0 {
        let after = rec.state_at(t1);
        assert!(after.bots[agent as usize].blocker.as_ref().is_none_or(|b| b.issue_id != id));
    }
}

#[test]
fn a_cursor_moving_back_and_forth_shows_what_a_fresh_fold_shows() {
    let (scene, events) = episode();
    let rec = Arc::new(Recording::new(scene, events));
    let (first, last) = rec.span();
    let mut c = Cursor::new(rec.clone());
    for t in [last / 2, last / 4, last, first, rec.next_tick(last / 3), rec.prev_tick(last / 3)] {
        assert_eq!(json(c.seek(t)), json(&rec.state_at(t)), "at tick {t}");
    }
    assert!(rec.next_tick(first) > first && rec.prev_tick(last) < last);
}

async fn connect(url: &str, origin: Option<&str>, host: Option<&str>) -> Result<String, String> {
    let mut req = url.into_client_request().unwrap();
    if let Some(o) = origin {
        req.headers_mut().insert("origin", o.parse().unwrap());
    }
    if let Some(h) = host {
        req.headers_mut().insert("host", h.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((mut ws, _)) => {
            let msg = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.unwrap().unwrap().unwrap();
            let _ = ws.close(None).await;
            Ok(msg.into_text().unwrap().to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

#[tokio::test]
async fn every_websocket_upgrade_checks_the_origin() {
    let (scene, events) = episode();
    let rec = Arc::new(Recording::new(scene, events));
    let bound = bind("127.0.0.1:0".parse().unwrap(), Source::Replay(rec)).await.unwrap();
    let addr = bound.addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(bound.serve(async move {
        let _ = stopped.await;
    }));
    let url = format!("ws://{addr}/ws");
    let own = format!("http://{addr}");
    let first = connect(&url, Some(&own), None).await.expect("the page's own origin is let in");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["type"], "state");
    assert_eq!(v["state"]["mode"], "replay");
    let port = addr.port();
    let refused = [
        (None, None),
        (Some("http://evil.example".to_owned()), None),
        (Some(format!("https://{addr}")), None),
        // A DNS-rebound name: Origin and Host agree, but the Host is not this loopback server.
        (Some(format!("http://evil.example:{port}")), Some(format!("evil.example:{port}"))),
    ];
    for (origin, host) in refused {
        let e = connect(&url, origin.as_deref(), host.as_deref()).await.expect_err("refused");
        assert!(e.contains("403"), "{origin:?} {host:?}: {e}");
    }
    let page = reqwest::get(format!("{own}/")).await.unwrap();
    assert!(page.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'self'"));
    let text = page.text().await.unwrap();
    assert!(text.contains("/app.js") && !text.contains("http://") && !text.contains("https://"), "no CDN");
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// Folds a websocket message into the state a page holds: a live update carries only
/// the sections that changed since the one before (the page's own rule, app.js).
fn merge(page: &mut serde_json::Value, msg: &str) {
    let m: serde_json::Value = serde_json::from_str(msg).unwrap();
    assert_eq!(m["type"], "state", "{msg}");
    let serde_json::Value::Object(parts) = &m["state"] else { panic!("no state: {msg}") };
    if !page.is_object() {
        *page = serde_json::json!({});
    }
    for (k, v) in parts.iter().filter(|(k, _)| *k != "log_add") {
        page[k] = v.clone();
    }
    // Of the log, only the entries added since the last update.
    if let Some(add) = parts.get("log_add") {
        let max = page["log"]["max"].as_u64().expect("max") as usize;
        let entries = page["log"]["entries"].as_array_mut().expect("a log to add to");
        entries.extend(add["entries"].as_array().expect("entries").iter().cloned());
        let over = entries.len().saturating_sub(max);
        entries.drain(..over);
        page["log"]["total"] = add["total"].clone();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_browsers_some_never_reading_leave_the_trace_unchanged() {
    let setup = default_setup();
    let mut plain = TraceWriter::new(Vec::new());
    gatecrew_crew::run(&setup, &mut |e: &Event| plain.write(e).unwrap());
    let plain = plain.into_inner();

    let (feed, live) = hub::start(gatecrew_cli::viewer_scene(&setup), None);
    let bound = bind("127.0.0.1:0".parse().unwrap(), Source::Live(live.clone())).await.unwrap();
    let addr = bound.addr();
    let server = tokio::spawn(bound.serve(std::future::pending()));
    let mut clients = Vec::new();
    for i in 0..50 {
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut().insert("origin", format!("http://{addr}").parse().unwrap());
        let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        clients.push((i, ws));
    }
    assert_eq!(live.clients(), 50);
    let traced = tokio::task::spawn_blocking(move || {
        // As `run --serve` does: the trace, written as ever, feeds the hub its lines and
        // the setup's probe the inventories.
        let mut watched = setup.clone();
        watched.probe = Some(ViewProbe::feeding(setup.data.clone(), feed.clone()));
        let mut w = TraceWriter::new(feed.trace(Vec::new()));
        gatecrew_crew::run(&watched, &mut |e: &Event| w.write(e).unwrap());
        feed.finish();
        w.into_inner().into_inner()
    })
    .await
    .unwrap();
    assert_eq!(traced, plain, "the trace is byte for byte the same with 50 browsers watching");
    // The readers get to the final state: the newest one, whatever they missed.
    for (i, ws) in clients.iter_mut().filter(|(i, _)| i % 2 == 0) {
        let mut page = serde_json::Value::Null;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while page["ended"].is_null() && tokio::time::Instant::now() < deadline {
            let msg = tokio::time::timeout(Duration::from_secs(5), ws.next()).await.unwrap().unwrap().unwrap();
            merge(&mut page, &msg.into_text().unwrap());
        }
        assert_eq!(page["ended"], "complete", "client {i}");
        assert_eq!(page["blocks"]["remaining"], 0, "client {i}");
        // The log, sent as additions, holds every event of the episode, in order.
        let ticks: Vec<u64> =
            page["log"]["entries"].as_array().unwrap().iter().map(|e| e["t"].as_u64().unwrap()).collect();
        let want: Vec<u64> = crate::common::run_events(&default_setup()).iter().map(|e| e.t).collect();
        assert_eq!(ticks, want, "client {i}: the log");
        assert_eq!(page["log"]["total"], want.len(), "client {i}");
    }
    server.abort();
}

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

#[test]
fn run_with_serve_writes_the_same_trace_and_replay_refuses_a_bad_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let (code, _, err) = gatecrew(&["run", "--stepper", "--quiet", "--json", "--trace", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = gatecrew(&[
        "run",
        "--quiet",
        "--json",
        "--trace",
        b.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--linger",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("viewer: http://127.0.0.1:"), "{err}");
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"v\":1}\n").unwrap();
    let (code, _, err) = gatecrew(&["replay", bad.to_str().unwrap(), "--serve", "127.0.0.1:0", "--linger", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.jsonl") && err.contains("line 1"), "{err}");
    let (code, out, err) = gatecrew(&[
        "replay",
        a.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--linger",
        "0",
        "--config",
        crate::common::default_config().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("replaying") && out.contains("inventories exact") && !err.contains("warning"), "{out}{err}");
    // Without the config, or with a trace the config does not reproduce: the trace's
    // counts, and a warning saying so.
    let (code, out, err) = gatecrew(&["replay", a.to_str().unwrap(), "--serve", "127.0.0.1:0", "--linger", "0"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("inventories approximate") && err.contains("warning: no --config"), "{out}{err}");
    let text = std::fs::read_to_string(&a).unwrap();
    let edited = dir.path().join("edited.jsonl");
    let changed = text.replacen("\"seed\":7", "\"seed\":8", 1);
    assert_ne!(changed, text, "the trace names its seed");
    std::fs::write(&edited, changed).unwrap();
    let (code, out, err) = gatecrew(&[
        "replay",
        edited.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--linger",
        "0",
        "--config",
        crate::common::default_config().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("inventories approximate"), "{out}");
    assert!(err.contains("does not reproduce the trace"), "{err}");
}
