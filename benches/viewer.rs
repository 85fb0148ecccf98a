//! What watching costs the crew: the default episode on the stepper alone, with
//! `--serve`'s probe feeding a hub nobody watches, and with the hub serving 50
//! connected browsers (half of them never reading). The bound is 10%
//! (docs/benchmarks.md has the figures). After the rows it prints the CPU time the
//! viewer's runtime thread (the hub and the 50 websockets) took per second of the
//! 50-client row, read from /proc (Linux).

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::Event;
use gatecrew_viewer::crew::{ViewProbe, scene};
use gatecrew_viewer::hub;
use gatecrew_viewer::server::{Source, bind};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const HUB_THREAD: &str = "viewer-hub";

/// CPU time (user + system) of the threads of this process named `name`, if readable.
fn thread_cpu(name: &str) -> Option<Duration> {
    // Fields 14 and 15 of /proc/<pid>/task/<tid>/stat, in clock ticks (100 a second on
    // Linux: USER_HZ, which `getconf CLK_TCK` reports).
    let mut ticks = 0u64;
    let mut found = false;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("stat")).ok()?;
        let (comm, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
        if comm != name {
            continue;
        }
        let f: Vec<&str> = rest.split(' ').collect();
        // `rest` starts at field 3 (state): utime is field 14, stime 15.
        ticks += f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
        found = true;
    }
    found.then(|| Duration::from_millis(ticks * 10))
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
    let with_hub = |s: &Setup| {
        let (feed, live) = rt.block_on(async { hub::start(scene(s), None) });
        let mut probed = s.clone();
        probed.probe = Some(ViewProbe::feeding(s.data.clone(), feed));
        (probed, live)
    };
    let (unwatched, _nobody) = with_hub(&setup);
    let (watched, live) = with_hub(&setup);
    let bound = rt.block_on(bind("127.0.0.1:0".parse().expect("addr"), Source::Live(live.clone()))).expect("bind");
    let addr = bound.addr();
    rt.spawn(bound.serve(std::future::pending()));
    let clients = rt.block_on(async {
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
    assert_eq!(live.clients(), 50, "every browser is connected");
    let sink = |e: &Event| {
        std::hint::black_box(e.t);
    };
    let mut g = c.benchmark_group("viewer");
    g.sample_size(30);
    g.bench_function("default_episode", |b| b.iter(|| gatecrew_crew::run(&setup, &mut { sink }).progress.correct));
    g.bench_function("default_episode_feed_only", |b| {
        b.iter(|| gatecrew_crew::run(&unwatched, &mut { sink }).progress.correct)
    });
    let (cpu0, wall0) = (thread_cpu(HUB_THREAD), Instant::now());
    g.bench_function("default_episode_served_to_50_clients", |b| {
        b.iter(|| gatecrew_crew::run(&watched, &mut { sink }).progress.correct)
    });
    let (cpu1, wall) = (thread_cpu(HUB_THREAD), wall0.elapsed());
    g.finish();
    if let (Some(a), Some(b)) = (cpu0, cpu1) {
        let per_s = (b - a).as_secs_f64() / wall.as_secs_f64();
        eprintln!(
            "viewer/default_episode_served_to_50_clients: the viewer's thread ({HUB_THREAD}: hub + 50 websockets) \
             used {:.3} s of CPU in {:.2} s of run = {:.1}% of one core",
            (b - a).as_secs_f64(),
            wall.as_secs_f64(),
            per_s * 100.0
        );
    }
    drop(clients);
}

criterion_group!(benches, bench_viewer);
criterion_main!(benches);
