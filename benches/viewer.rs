//! What watching costs the crew: the default episode on the stepper with its trace
//! written (to a sink), as `gatecrew run` does; the same with `--serve`'s feed (the
//! trace's bytes handed to the hub as they are written, the probe's inventories) and a
//! hub nobody watches; and with the hub serving 50 connected browsers (half of them
//! never reading). The hub parses lines only when the page is about to get them and
//! only from the last episode's start, so in this loop of short episodes it parses
//! about one episode in each 100 ms; the row `..._every_line_parsed` makes it parse
//! every line as it arrives, which is what a single long episode watched throughout
//! costs. The bound is 10% (docs/benchmarks.md has the figures).
//!
//! Wall time on a shared machine depends on the CPU share the process gets, so after
//! each row the bench also prints the CPU time (from /proc, Linux) that the crew's
//! thread, the viewer's thread (hub and websockets) and the browsers' thread took per
//! episode.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, TraceWriter};
use gatecrew_viewer::crew::{ViewProbe, scene};
use gatecrew_viewer::hub;
use gatecrew_viewer::server::{Source, bind};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const HUB_THREAD: &str = "viewer-hub";
const BROWSERS_THREAD: &str = "browsers";

/// Clock ticks of user + system time in a /proc stat line (USER_HZ: 100 a second on
/// Linux, which `getconf CLK_TCK` reports).
fn stat_ticks(stat: &str) -> Option<(String, u64)> {
    let (comm, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
    let f: Vec<&str> = rest.split(' ').collect();
    // `rest` starts at field 3 (state): utime is field 14, stime 15.
    Some((comm.to_owned(), f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?))
}

/// CPU time of this process's threads named `name`.
fn threads_cpu(name: &str) -> Duration {
    let mut ticks = 0;
    for task in std::fs::read_dir("/proc/self/task").into_iter().flatten().flatten() {
        if let Some((comm, t)) = std::fs::read_to_string(task.path().join("stat")).ok().as_deref().and_then(stat_ticks)
        {
            if comm == name {
                ticks += t;
            }
        }
    }
    Duration::from_millis(ticks * 10)
}

/// CPU time of the calling thread.
fn own_cpu() -> Duration {
    let t = std::fs::read_to_string("/proc/thread-self/stat").ok().as_deref().and_then(stat_ticks).map_or(0, |x| x.1);
    Duration::from_millis(t * 10)
}

/// Runs the episode as `gatecrew run` does: every event written to the trace, which
/// with `--serve` also feeds the hub.
fn run(setup: &Setup, feed: Option<&hub::Feed>) -> u32 {
    let episode = |out: &mut dyn std::io::Write| {
        let mut w = TraceWriter::new(out);
        gatecrew_crew::run(setup, &mut |e: &Event| {
            let _ = w.write(e);
        })
        .progress
        .correct
    };
    match feed {
        Some(f) => episode(&mut f.trace(std::io::sink())),
        None => episode(&mut std::io::sink()),
    }
}

fn bench_viewer(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let setup = Setup::load(&root.join("configs/crew.toml"), &Overrides::default()).expect("default config");
    // One worker, as on a 2-core machine the crew's thread and the viewer's share the cores.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(HUB_THREAD)
        .enable_all()
        .build()
        .expect("runtime");
    // The browsers' side, on a thread of its own (their CPU is not the server's).
    let browsers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(BROWSERS_THREAD)
        .enable_all()
        .build()
        .expect("runtime");
    let with_hub = |s: &Setup, parse: hub::Parse| {
        let (feed, live) = rt.block_on(async { hub::start_parsing(scene(s), None, parse) });
        let mut probed = s.clone();
        probed.probe = Some(ViewProbe::feeding(s.data.clone(), feed.clone()));
        (probed, feed, live)
    };
    let (unwatched, unwatched_feed, _nobody) = with_hub(&setup, hub::Parse::WhenShown);
    let (watched, watched_feed, live) = with_hub(&setup, hub::Parse::WhenShown);
    let (every, every_feed, every_live) = with_hub(&setup, hub::Parse::EveryLine);
    // 50 browsers on a hub's page, half of them never reading.
    let serve = |live: &hub::Live| {
        let bound = rt.block_on(bind("127.0.0.1:0".parse().expect("addr"), Source::Live(live.clone()))).expect("bind");
        let addr = bound.addr();
        rt.spawn(bound.serve(std::future::pending()));
        let clients = browsers.block_on(async {
            let mut v = Vec::new();
            for i in 0..50 {
                let mut req = format!("ws://{addr}/ws").into_client_request().expect("request");
                req.headers_mut().insert("origin", format!("http://{addr}").parse().expect("origin"));
                let (ws, _) = tokio_tungstenite::connect_async(req).await.expect("connect");
                if i % 2 == 0 {
                    // A reading browser: drains whatever comes.
                    tokio::spawn(ws.for_each(|_| async {}));
                } else {
                    v.push(ws);
                }
            }
            v
        });
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(live.clients(), 50, "every browser is connected");
        clients
    };
    let clients = [serve(&live), serve(&every_live)];
    let mut g = c.benchmark_group("viewer");
    g.sample_size(30);
    // The unwatched episode again last: the machine's load drifts over a run, and the
    // two plain rows bracket the viewer's.
    let rows: [(&str, &Setup, Option<&hub::Feed>); 5] = [
        ("default_episode", &setup, None),
        ("default_episode_feed_only", &unwatched, Some(&unwatched_feed)),
        ("default_episode_served_to_50_clients", &watched, Some(&watched_feed)),
        ("default_episode_served_to_50_clients_every_line_parsed", &every, Some(&every_feed)),
        ("default_episode_again", &setup, None),
    ];
    let mut accounts = Vec::new();
    for (name, s, feed) in rows {
        // CPU is counted around the timed batches only (not criterion's analysis).
        let (mut episodes, mut wall) = (0u64, Duration::ZERO);
        let (mut crew, mut hub_cpu, mut browsers_cpu) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let (c0, h0, b0) = (own_cpu(), threads_cpu(HUB_THREAD), threads_cpu(BROWSERS_THREAD));
                let t0 = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(run(s, feed));
                }
                let t = t0.elapsed();
                crew += own_cpu() - c0;
                hub_cpu += threads_cpu(HUB_THREAD) - h0;
                browsers_cpu += threads_cpu(BROWSERS_THREAD) - b0;
                episodes += iters;
                wall += t;
                t
            })
        });
        let per = |d: Duration| d.as_secs_f64() * 1e3 / episodes.max(1) as f64;
        accounts.push(format!(
            "viewer/{name}: {episodes} episodes, {:.3} ms wall each; CPU per episode: crew thread {:.3} ms, \
             viewer thread (hub + websockets) {:.3} ms, browsers thread {:.3} ms",
            per(wall),
            per(crew),
            per(hub_cpu),
            per(browsers_cpu),
        ));
    }
    g.finish();
    for a in accounts {
        eprintln!("{a}");
    }
    drop(clients);
}

criterion_group!(benches, bench_viewer);
criterion_main!(benches);
