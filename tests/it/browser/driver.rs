//! chromedriver and one Chromium session over WebDriver's HTTP API, the DOM the tests
//! read, and a `gatecrew` command serving the page on a thread.

use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

fn find(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var("PATH").unwrap_or_default();
    names.iter().flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n))).find(|p| p.is_file())
}

/// Chromium and chromedriver (`GATECREW_CHROMIUM`, `GATECREW_CHROMEDRIVER` or on PATH).
pub(super) fn browser() -> (PathBuf, PathBuf) {
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
pub(super) struct Browser {
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
    pub(super) async fn start(chromium: &Path, driver: &Path) -> Browser {
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

    pub(super) async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let mut req = self.http.request(method.clone(), format!("{}{path}", self.session));
        if method != reqwest::Method::GET {
            req = req.json(&body);
        }
        let v: Value = req.send().await.unwrap().json().await.unwrap();
        assert!(v["value"]["error"].is_null(), "webdriver {path}: {v}");
        v["value"].clone()
    }

    pub(super) async fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", json!({ "url": url })).await;
    }

    pub(super) async fn js(&self, script: &str) -> Value {
        self.call(reqwest::Method::POST, "/execute/sync", json!({ "script": script, "args": [] })).await
    }

    pub(super) async fn click(&self, css: &str) {
        let el = self.call(reqwest::Method::POST, "/element", json!({ "using": "css selector", "value": css })).await;
        let id = el.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_owned();
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), json!({})).await;
    }

    pub(super) async fn screenshot(&self, name: &str) {
        let png = self.call(reqwest::Method::GET, "/screenshot", Value::Null).await;
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
        if let Ok(dir) = std::env::var("GATECREW_SCREENSHOTS") {
            std::fs::write(Path::new(&dir).join(name), bytes).unwrap();
        }
    }
}

/// What the page shows, read from its DOM.
pub(super) const READ: &str = r#"
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
pub(super) fn serve(args: Vec<String>) -> (SocketAddr, std::thread::JoinHandle<String>) {
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
