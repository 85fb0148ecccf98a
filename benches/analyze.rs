//! Trace reading throughput of `gatecrew analyze` (bytes per second on one core), on the
//! traces of the whole suite under the gated policy, written once in setup.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, TraceWriter};
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
    let bytes = gatecrew_analyze::read_traces(&paths).expect("traces read").bytes;
    let mut g = c.benchmark_group("analyze");
    g.throughput(Throughput::Bytes(bytes));
    g.sample_size(20);
    g.bench_function("read_240_traces", |b| {
        b.iter(|| gatecrew_analyze::read_traces(&paths).expect("read").episodes.len())
    });
    g.finish();
}

criterion_group!(benches, analyze);
criterion_main!(benches);
