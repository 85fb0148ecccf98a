//! End to end in headless Chromium, driven through chromedriver's WebDriver HTTP API:
//! during a run the page shows the bots, a board thread from REQUEST to CONFIRM, the
//! progress reaching 100% and the metrics and log at the end; a replay stepped to a
//! tick shows that tick's state, metrics and log; its markers, keys and URL move it
//! ([`explain`], which also shows flatcomm's chat and a crew of 40).
//!
//! Needs Debian's `chromium` and `chromium-driver`, which the test command
//! (`scripts/test`) installs when they are missing; without them the tests fail. With
//! `GATECREW_SCREENSHOTS=DIR` the screenshots are saved there (docs/ holds the last ones).

use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine;
use gatecrew_protocol::trace::{Event, TraceReader};
use gatecrew_viewer::replay::Recording;
use serde_json::{Value, json};

use crate::common::{default_config, default_setup};

fn find(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var("PATH").unwrap_or_default();
    names.iter().flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n))).find(|p| p.is_file())
}

/// Chromium and chromedriver (`GATECREW_CHROMIUM`, `GATECREW_CHROMEDRIVER` or on PATH).
fn browser() -> (PathBuf, PathBuf) {
    let chromium = find("GATECREW_CHROMIUM", &["chromium", "chromium-browser"]);
    let driver = find("GATECREW_CHROMEDRIVER", &["chromedriver"]);
    match (chromium, driver) {
        (Some(c), Some(d)) => (c, d),
        _ => panic!(
            "no chromium or chromedriver on PATH: run the tests with `scripts/test`, which installs \
             Debian's chromium and chromium-driver, or `apt-get install chromium chromium-driver`"
        ),
    }
}

/// A chromedriver process and one browser session.
struct Browser {
    driver: Child,
    http: reqwest::Client,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Chromium outlives a killed chromedriver: the driver leads its own process group,
        // so the browsers it started end with it.
        let group = format!("-{}", self.driver.id());
        let killed = Command::new("kill").args(["-KILL", "--", &group]).status().is_ok_and(|s| s.success());
        if !killed {
            let _ = self.driver.kill();
        }
        let _ = self.driver.wait();
    }
}

impl Browser {
    async fn start(chromium: &Path, driver: &Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let http = reqwest::Client::new();
        let profile = tempfile::tempdir().unwrap();
        let mut b = Browser { driver: child, http, session: String::new(), _profile: profile };
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        loop {
            if let Ok(r) = b.http.get(format!("{base}/status")).send().await {
                if r.json::<Value>().await.is_ok_and(|v| v["value"]["ready"] == true) {
                    break;
                }
            }
            assert!(started.elapsed() < Duration::from_secs(90), "chromedriver did not come up in 90 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", b._profile.path().display()), "--window-size=1500,1000",
                ],
            },
        }}});
        let v: Value = b.http.post(format!("{base}/session")).json(&caps).send().await.unwrap().json().await.unwrap();
        let id = v["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {v}"));
        b.session = format!("{base}/session/{id}");
        b
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let mut req = self.http.request(method.clone(), format!("{}{path}", self.session));
        if method != reqwest::Method::GET {
            req = req.json(&body);
        }
        let v: Value = req.send().await.unwrap().json().await.unwrap();
        assert!(v["value"]["error"].is_null(), "webdriver {path}: {v}");
        v["value"].clone()
    }

    async fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", json!({ "url": url })).await;
    }

    async fn js(&self, script: &str) -> Value {
        self.call(reqwest::Method::POST, "/execute/sync", json!({ "script": script, "args": [] })).await
    }

    async fn click(&self, css: &str) {
        let el = self.call(reqwest::Method::POST, "/element", json!({ "using": "css selector", "value": css })).await;
        let id = el.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_owned();
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), json!({})).await;
    }

    async fn screenshot(&self, name: &str) {
        let png = self.call(reqwest::Method::GET, "/screenshot", Value::Null).await;
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
        if let Ok(dir) = std::env::var("GATECREW_SCREENSHOTS") {
            std::fs::write(Path::new(&dir).join(name), bytes).unwrap();
        }
    }
}

mod explain;

/// What the page shows, read from its DOM.
const READ: &str = r#"
const q = (s) => [...document.querySelectorAll(s)];
return {
  tick: Number(document.getElementById('tick').textContent),
  status: document.getElementById('status').textContent,
  bots: q('.bot').length,
  positions: q('.bot .pos').map((e) => e.textContent),
  pct: document.getElementById('progress-pct').textContent,
  progress: document.getElementById('progress-text').textContent,
  threads: q('.thread').length,
  confirmed: q('.thread[data-state="confirmed"]').filter((t) =>
    t.querySelector('li[data-msg="REQUEST_MATERIAL"]') && t.querySelector('li[data-msg="CONFIRM_TRANSFER"]')).length,
  cells: q('#map rect.cell').length,
  inventories: q('.bot .inv').map((e) => e.textContent),
  exact: q('.bot .inv[data-exact="yes"]').length,
  metrics: Object.fromEntries(q('#metrics [data-metric]').map((e) => [e.dataset.metric, e.textContent])),
  log: q('#log li').length,
  log_count: document.getElementById('log-count').textContent,
  legend: q('#features-legend .feature').map((e) => e.dataset.f).join(''),
  features: q('.thread .gate .feat').map((e) => [e.textContent, e.title]),
  titles: q('.thread h3 .who').map((e) => e.textContent),
  lines: q('#lines li').length,
  marks: q('#marks .mark').map((e) => Number(e.dataset.t)),
  hash: location.hash,
};
"#;

/// Starts a `gatecrew` command on a thread; returns the page's address and the thread.
fn serve(args: Vec<String>) -> (SocketAddr, std::thread::JoinHandle<String>) {
    struct Tx(mpsc::Sender<Vec<u8>>);
    impl Write for Tx {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.send(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut argv = vec!["gatecrew".to_owned()];
        argv.extend(args);
        let code = gatecrew_cli::main_with(argv, &mut out, &mut Tx(tx));
        assert_eq!(code, std::process::ExitCode::SUCCESS);
        String::from_utf8(out).unwrap()
    });
    let mut said = String::new();
    loop {
        said.push_str(&String::from_utf8(rx.recv_timeout(Duration::from_secs(60)).unwrap()).unwrap());
        if let Some((addr, _)) = said.split("viewer: http://").nth(1).and_then(|r| r.split_once('/')) {
            return (addr.parse().unwrap(), h);
        }
    }
}

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
    explain::replay_controls(&b, &rec, &format!("http://{raddr}/")).await;
    drop(b);
    let _ = run.join();
    let _ = replay.join();
}

async fn wait_tick(b: &Browser, want: impl Fn(u64) -> bool) -> u64 {
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
async fn check_page(b: &Browser, rec: &Recording, tick: u64) {
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
