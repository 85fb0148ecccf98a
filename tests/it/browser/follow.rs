//! A run followed to its end and its replay stepped tick by tick, against a fresh fold
//! of the trace at each tick.

use std::time::{Duration, Instant};

use gatecrew_protocol::trace::{Event, TraceReader};
use gatecrew_viewer::replay::Recording;
use serde_json::json;

use crate::common::{default_config, default_setup};

use super::{Browser, READ, browser, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_follows_a_run_to_the_end_and_a_replay_shows_the_tick_it_is_stepped_to() {
    let (chromium, driver) = browser();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.jsonl");
    // Pace the page so that the run takes about ten seconds to show; the paced clock
    // starts when the page connects, however long the browser takes to start.
    let mut last = 0;
    gatecrew_crew::run(&default_setup(), &mut |e: &Event| last = e.t);
    let pace = (last as f64 / 10.0).max(1.0);
    let linger = 30;
    let (addr, run) = serve(
        [
            "run",
            "--quiet",
            "--json",
            "--trace",
            trace.to_str().unwrap(),
            "--serve",
            "127.0.0.1:0",
            "--pace",
            &pace.to_string(),
            "--linger",
            &linger.to_string(),
        ]
        .map(String::from)
        .to_vec(),
    );
    let b = Browser::start(&chromium, &driver).await;
    b.goto(&format!("http://{addr}/")).await;
    let started = Instant::now();
    let mut seen_partial = false;
    let page = loop {
        let v = b.js(READ).await;
        let pct = v["pct"].as_str().unwrap_or("").to_owned();
        if v["bots"].as_u64() >= Some(2) && pct != "100%" && v["tick"].as_u64() > Some(0) {
            seen_partial = true;
        }
        if pct == "100%" && v["confirmed"].as_u64() >= Some(1) {
            break v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the page never reached 100% with a confirmed thread: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(seen_partial, "the page showed the run while it was going on");
    // Once the episode is over the cards hold what the world's bots hold at its end.
    let end_world = {
        let setup = default_setup();
        let (_, end) = gatecrew_crew::run_to_end(&setup, &mut |_: &Event| {});
        let w = end.world();
        (0..w.agent_count())
            .map(|i| {
                let inv = &w.body(gatecrew_protocol::AgentId(i as u32)).unwrap().inventory;
                // By name, as the page lists them.
                let named: std::collections::BTreeMap<&str, u32> =
                    inv.iter().filter(|(_, n)| *n > 0).map(|(it, n)| (setup.data.item_name(it), n)).collect();
                let items: Vec<String> = named.iter().map(|(it, n)| format!("{it} ×{n}")).collect();
                if items.is_empty() { "empty".to_owned() } else { items.join(", ") }
            })
            .collect::<Vec<_>>()
    };
    let started = Instant::now();
    let ended = loop {
        let v = b.js(READ).await;
        if v["status"] == "live · ended" {
            break v;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the page never showed the end: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(ended["inventories"], json!(end_world), "the live cards at the end: {ended}");
    assert_eq!(ended["exact"].as_u64(), Some(end_world.len() as u64), "every card says its inventory is exact");
    assert!(page["bots"].as_u64() >= Some(2), "{page}");
    assert!(page["cells"].as_u64() > Some(0), "the map draws the layer's cells: {page}");
    // The metrics panel at the end: the episode end's TSR and every board message.
    let events = crate::common::run_events(&default_setup());
    let board = events.iter().filter(|e| matches!(e.kind, gatecrew_protocol::trace::EventKind::Board { .. })).count();
    assert_eq!(ended["metrics"]["tsr"], "1.000", "{ended}");
    assert_eq!(ended["metrics"]["msg"], board.to_string(), "{ended}");
    assert!(
        ended["log_count"].as_str().unwrap().ends_with(&format!("of {} events", events.len())),
        "the live log, sent as additions, holds every event: {ended}"
    );
    b.screenshot("viewer-live.png").await;

    // The replay of that run, stepped forward a few ticks with events.
    let rec = {
        let events: Vec<Event> = TraceReader::new(std::io::BufReader::new(std::fs::File::open(&trace).unwrap()))
            .map(|e| e.unwrap())
            .collect();
        let setup = default_setup();
        // The exact inventories, as `replay --config` recovers them.
        let mut det = gatecrew_crew::ByAdjudicator(gatecrew_gating::Deterministic { midpoint: setup.gate.midpoint() });
        let timeline = gatecrew_viewer::crew::resimulate(&setup, &std::fs::read(&trace).unwrap(), &mut det).unwrap();
        Recording::new(gatecrew_cli::viewer_scene(&setup), events).with_inventories(timeline)
    };
    let (raddr, replay) = serve(
        [
            "replay",
            trace.to_str().unwrap(),
            "--serve",
            "127.0.0.1:0",
            "--config",
            default_config().to_str().unwrap(),
            "--linger",
            "20",
        ]
        .map(String::from)
        .to_vec(),
    );
    b.goto(&format!("http://{raddr}/")).await;
    let mut tick = wait_tick(&b, |t| t == rec.span().0).await;
    for _ in 0..12 {
        b.click("#fwd").await;
        let want = rec.next_tick(tick);
        tick = wait_tick(&b, |t| t == want).await;
    }
    check_page(&b, &rec, tick).await;
    // The scrubber: half way.
    let mid = rec.span().1 / 2;
    b.js(&format!(
        "const s = document.getElementById('scrubber'); s.value = {mid}; s.dispatchEvent(new Event('input')); return 0;"
    ))
    .await;
    let tick = wait_tick(&b, |t| t == mid).await;
    check_page(&b, &rec, tick).await;
    b.screenshot("viewer-replay.png").await;
    super::explain::replay_controls(&b, &rec, &format!("http://{raddr}/")).await;
    drop(b);
    let _ = run.join();
    let _ = replay.join();
}

pub(super) async fn wait_tick(b: &Browser, want: impl Fn(u64) -> bool) -> u64 {
    let started = Instant::now();
    loop {
        let t = b.js("return Number(document.getElementById('tick').textContent);").await.as_u64().unwrap_or(0);
        if want(t) && b.js("return document.getElementById('status').textContent;").await == "replay" {
            return t;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the page stayed at tick {t}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The page at `tick` shows the state a fresh fold of the trace up to `tick` gives.
pub(super) async fn check_page(b: &Browser, rec: &Recording, tick: u64) {
    let want = rec.state_at(tick);
    let page = b.js(READ).await;
    assert_eq!(page["tick"].as_u64(), Some(tick));
    assert_eq!(page["threads"].as_u64(), Some(want.board.threads.len() as u64), "{page}");
    let placed = format!(
        "{} placed, {} remaining, {} wrong of {}",
        want.blocks.placed, want.blocks.remaining, want.blocks.wrong, want.blocks.total
    );
    assert!(page["progress"].as_str().unwrap().starts_with(&placed), "{page} vs {placed}");
    let positions: Vec<String> =
        want.bots.iter().map(|b| b.pos.map_or("?".into(), |p| format!("[{}, {}, {}]", p.x, p.y, p.z))).collect();
    assert_eq!(page["positions"], json!(positions), "tick {tick}");
    let inventories: Vec<String> = want
        .bots
        .iter()
        .map(|b| {
            let items: Vec<String> = b.inventory.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
            if items.is_empty() { "empty".to_owned() } else { items.join(", ") }
        })
        .collect();
    assert_eq!(page["inventories"], json!(inventories), "tick {tick}: the world's inventories");
    assert_eq!(page["exact"].as_u64(), Some(want.bots.len() as u64), "tick {tick}");
    // The metrics panel, the log and the gate features' legend at this tick.
    let m = &want.metrics;
    let tsr = format!("{:.3}{}", m.tsr.unwrap(), if m.tsr_final { "" } else { " so far" });
    assert_eq!(page["metrics"]["tsr"], tsr, "tick {tick}");
    assert_eq!(page["metrics"]["msg"], m.msg.to_string(), "tick {tick}");
    let rate = |c: gatecrew_viewer::state::Counts| {
        if c.of == 0 {
            "— (0/0)".to_owned()
        } else {
            format!("{:.1}% ({}/{})", 100.0 * c.n as f64 / c.of as f64, c.n, c.of)
        }
    };
    assert_eq!(page["metrics"]["lrr"], rate(m.lrr), "tick {tick}");
    assert_eq!(page["metrics"]["ecr"], rate(m.ecr), "tick {tick}");
    assert_eq!(page["metrics"]["uer"], rate(m.uer), "tick {tick}");
    assert_eq!(page["log"].as_u64(), Some(want.log.entries.len().min(200) as u64), "tick {tick}");
    assert_eq!(page["legend"], "CADRH");
    let gated = want.board.threads.iter().filter(|t| t.gate.is_some()).count();
    let features = page["features"].as_array().unwrap();
    assert_eq!(features.len(), 5 * gated, "five features per thread's gate: {page}");
    for f in features {
        assert!(f[1].as_str().unwrap().contains(": "), "each feature says what its level means: {f}");
    }
}
