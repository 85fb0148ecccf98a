//! `gatecrew analyze`, on the traces of the whole suite under the gated
//! policy, written once in setup:
//! - `read_240_traces`: reading and folding every trace, on every core (bytes per second);
//! - `read_240_traces_one_core`: the same on a pool of one thread (per core);
//! - `parse_derived` / `parse_direct`: every line parsed on one core through `Event`'s
//!   derived `Deserialize` (what the reader did before) and through the reader (the direct
//!   path), to show what the direct path saves; `parse_briefs`: the same lines through
//!   `TraceReader::next_brief` (what `gatecrew analyze` reads: scanned where they lie);
//! - `intervals_generic` / `intervals_columns`: the 15 intervals of one group of 240
//!   episodes through the reference paired bootstrap (every metric through
//!   `Metric::compute` on each resample's indices) and through the columns
//!   `Report::build` uses (the same intervals, bit for bit).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gatecrew_analyze::{Ci, Column, Metric, bootstrap, resampled};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{Event, TraceReader, TraceWriter};
use gatecrew_suite::Manifest;

fn analyze(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = root.join("configs/suite");
    let manifest = Manifest::load(&dir).expect("the committed suite loads");
    let data =
        Arc::new(gatecrew_world::GameData::load(&root.join("configs/data/minecraft-1.20.4.json")).expect("data"));
    let out = tempfile::tempdir().expect("temp dir");
    for e in &manifest.episode {
        let setup =
            Setup::load_with_data(&dir.join(&e.file), &Overrides::default(), data.clone()).expect("episode loads");
        let mut w =
            TraceWriter::new(BufWriter::new(File::create(out.path().join(format!("{}.jsonl", e.id))).expect("file")));
        gatecrew_crew::run(&setup, &mut |ev: &Event| w.write(ev).expect("write"));
        w.flush().expect("flush");
    }
    let paths = vec![out.path().to_path_buf()];
    let read = gatecrew_analyze::read_traces(&paths).expect("traces read");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool of one");
    let mut g = c.benchmark_group("analyze");
    g.throughput(Throughput::Bytes(read.bytes));
    g.sample_size(20);
    g.bench_function("read_240_traces", |b| {
        b.iter(|| gatecrew_analyze::read_traces(&paths).expect("read").episodes.len())
    });
    g.bench_function("read_240_traces_one_core", |b| {
        b.iter(|| one.install(|| gatecrew_analyze::read_traces(&paths).expect("read").episodes.len()))
    });
    let mut text = Vec::new();
    for e in std::fs::read_dir(out.path()).expect("traces") {
        text.extend(std::fs::read(e.expect("entry").path()).expect("trace"));
    }
    let text = String::from_utf8(text).expect("UTF-8");
    g.bench_function("parse_derived", |b| {
        b.iter(|| text.lines().map(|l| serde_json::from_str::<Event>(l).expect("event").t).sum::<u64>())
    });
    g.bench_function("parse_direct", |b| {
        b.iter(|| TraceReader::new(text.as_bytes()).map(|e| e.expect("event").t).sum::<u64>())
    });
    g.bench_function("parse_briefs", |b| {
        b.iter(|| {
            let mut reader = TraceReader::new(text.as_bytes());
            let mut sum = 0u64;
            while let Some(brief) = reader.next_brief() {
                sum += brief.expect("brief").t;
            }
            sum
        })
    });
    g.finish();

    let eps: Vec<&EpisodeMetrics> = read.episodes.iter().collect();
    let mut g = c.benchmark_group("analyze");
    g.sample_size(10);
    g.bench_function("intervals_generic", |b| {
        b.iter(|| bootstrap(eps.len(), Metric::ALL.len(), Ci::default(), 7, |j, ix| Metric::ALL[j].compute(&eps, ix)))
    });
    g.bench_function("intervals_columns", |b| {
        b.iter(|| {
            let columns: Vec<Column> = Metric::ALL.iter().map(|m| m.column(&eps)).collect();
            resampled(&columns, Ci::default(), 7)
        })
    });
    g.finish();
}

criterion_group!(benches, analyze);
criterion_main!(benches);
