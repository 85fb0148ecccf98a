//! What watching costs the crew: the default episode on the stepper alone, and with
//! `--serve`'s live feed and 50 connected browsers (half of them never reading). The
//! issue's bound is 10% (docs/benchmarks.md has the figures).

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::Event;
use gatecrew_viewer::server::{Source, bind};
use gatecrew_viewer::{Scene, hub};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

fn bench_viewer(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let setup = Setup::load(&root.join("configs/crew.toml"), &Overrides::default()).expect("default config");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime");
    let (feed, snapshots) = rt.block_on(async { hub::start(Scene::default(), None) });
    let bound = rt.block_on(bind("127.0.0.1:0".parse().expect("addr"), Source::Live(snapshots))).expect("bind");
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
    let mut g = c.benchmark_group("viewer");
    g.sample_size(20);
    g.bench_function("default_episode", |b| {
        b.iter(|| {
            gatecrew_crew::run(&setup, &mut |e: &Event| {
                std::hint::black_box(e.t);
            })
            .progress
            .correct
        })
    });
    // The crew's side alone: a feed whose hub never runs (its runtime is never driven).
    let idle = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    let (lone, _snapshots) = idle.block_on(async { hub::start(Scene::default(), None) });
    g.bench_function("default_episode_feed_only", |b| {
        b.iter(|| gatecrew_crew::run(&setup, &mut |e: &Event| lone.event(e)).progress.correct)
    });
    g.bench_function("default_episode_served_to_50_clients", |b| {
        b.iter(|| gatecrew_crew::run(&setup, &mut |e: &Event| feed.event(e)).progress.correct)
    });
    g.finish();
    drop(clients);
}

criterion_group!(benches, bench_viewer);
criterion_main!(benches);
