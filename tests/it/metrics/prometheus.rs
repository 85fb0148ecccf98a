//! The exporter against Prometheus' own tools, from `target/prometheus` (Debian's
//! prometheus package, unpacked there by `scripts/test`): `promtool check metrics` on
//! a scrape, and a real server scraping a soak that reads the final episode count after
//! the soak's work has ended (`--linger`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::root;

/// A tool of Debian's prometheus package as `scripts/test` unpacks it.
fn tool(name: &str) -> PathBuf {
    let p = root().join("target/prometheus/usr/bin").join(name);
    assert!(
        p.is_file(),
        "{} is missing: scripts/test unpacks Debian's prometheus package into target/prometheus (run it, or \
         `apt-get download prometheus && dpkg-deb -x prometheus_*.deb target/prometheus`)",
        p.display()
    );
    p
}

/// `promtool check metrics` on an exposition: clean, or the test fails with its findings.
pub(super) fn promtool_check(scrape: &Path) {
    let out = Command::new(tool("promtool"))
        .args(["check", "metrics"])
        .stdin(std::fs::File::open(scrape).unwrap())
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "promtool check metrics ({}): {said}", out.status);
}

/// Kills a child this test started when the test ends, however it ends.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const CHILD_ARGS: &str = "GATECREW_TEST_CLI_ARGS";

/// Runs the command line named in [`CHILD_ARGS`] (one argument a line) in a process of
/// its own: the exporter is once per process, and this one's is the other tests'.
#[test]
fn child_runs_the_command_line() {
    let Ok(args) = std::env::var(CHILD_ARGS) else { return };
    let argv: Vec<&str> = std::iter::once("gatecrew").chain(args.lines()).collect();
    let code = gatecrew_cli::main_with(argv, &mut std::io::stdout(), &mut std::io::stderr());
    assert_eq!(code, std::process::ExitCode::SUCCESS);
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One GET of `path` on `addr`; the body, or `None` while nothing answers.
fn get(addr: SocketAddr, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_owned())
}

/// The value of a one-sample instant query.
fn query(prom: SocketAddr, q: &str) -> Option<f64> {
    let enc: String = q
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'_' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let body = get(prom, &format!("/api/v1/query?query={enc}"))?;
    // A chunked body: the JSON object is between the first `{` and the last `}`.
    let json = &body[body.find('{')?..=body.rfind('}')?];
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let sample = v["data"]["result"].as_array()?.first()?["value"].as_array()?.clone();
    sample.get(1)?.as_str()?.parse().ok()
}

#[test]
fn a_real_prometheus_reads_the_final_episode_count_after_a_soak_has_ended() {
    let prometheus = tool("prometheus");
    let dir = tempfile::tempdir().unwrap();
    let episodes = 12;
    // Every 4th episode is run again on the actor runtime: the library's own episode
    // counter would count 15, the recorded episode ends are 12.
    let port = free_port();
    let args = format!(
        "soak\n--episodes\n{episodes}\n--actors-every\n4\n--jobs\n1\n--json\n--metrics\n127.0.0.1:{port}\n--linger\n600"
    );
    let mut soak = Reaped(
        Command::new(std::env::current_exe().unwrap())
            .args(["metrics::prometheus::child_runs_the_command_line", "--exact", "--nocapture", "--test-threads", "1"])
            .env(CHILD_ARGS, args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let target: SocketAddr = ([127, 0, 0, 1], port).into();
    let prom: SocketAddr = ([127, 0, 0, 1], free_port()).into();
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: gatecrew\n    \
             static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
    let _server = Reaped(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--storage.tsdb.path={}", dir.path().join("data").display()))
            .arg(format!("--web.listen-address={prom}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    // The soak says on its error stream when its work is over and it only serves.
    let mut said = String::new();
    let mut lines = BufReader::new(soak.0.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        if line.contains("the soak is over; serving the final values for 600 s") {
            break;
        }
    }
    assert!(said.contains("serving the final values"), "the soak ended without lingering:\n{said}");
    let ended = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    // Scrapes every second; a loaded CI machine may take long to start the server.
    let started = Instant::now();
    let mut scraped_at = None;
    while started.elapsed() < Duration::from_secs(300) {
        // When the last scrape that saw the counter was taken: one begun after the end.
        scraped_at = query(prom, "max(timestamp(gatecrew_episodes_total))");
        if scraped_at.is_some_and(|at| at > ended + 1.0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let log = std::fs::read_to_string(dir.path().join("prometheus.log")).unwrap_or_default();
    assert!(
        scraped_at.is_some_and(|at| at > ended + 1.0),
        "no scrape after the soak ended (last {scraped_at:?}, ended {ended}):\n{said}\n{log}"
    );
    let count = query(prom, "sum(gatecrew_episodes_total)").unwrap();
    assert_eq!(count, f64::from(episodes), "the final episode count as Prometheus scraped it after the soak");
    let up = query(prom, "up").unwrap();
    assert_eq!(up, 1.0, "the soak's endpoint is still up while it lingers");
}
