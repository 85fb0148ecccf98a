//! Export throughput of `gatecrew export` (trace bytes per second on one core), to
//! Parquet and to CSV, on the traces of the whole suite under the gated policy,
//! written once in setup (the same input as the `analyze` bench).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gatecrew_analyze::export::{Format, export};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, TraceWriter};
use gatecrew_suite::Manifest;

fn bench_export(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = root.join("configs/suite");
    let manifest = Manifest::load(&dir).expect("the committed suite loads");
    let data =
        Arc::new(gatecrew_world::GameData::load(&root.join("configs/data/minecraft-1.20.4.json")).expect("data"));
    let traces = tempfile::tempdir().expect("temp dir");
    for e in &manifest.episode {
        let setup =
            Setup::load_with_data(&dir.join(&e.file), &Overrides::default(), data.clone()).expect("episode loads");
        let path = traces.path().join(format!("{}.jsonl", e.id));
        let mut w = TraceWriter::new(BufWriter::new(File::create(path).expect("file")));
        gatecrew_crew::run(&setup, &mut |ev: &Event| w.write(ev).expect("write"));
        w.flush().expect("flush");
    }
    let paths = vec![traces.path().to_path_buf()];
    let out = tempfile::tempdir().expect("temp dir");
    let first = export(&paths, Format::Parquet, out.path()).expect("export");
    let mut g = c.benchmark_group("export");
    g.throughput(Throughput::Bytes(first.bytes));
    g.sample_size(10);
    for (name, format) in [("parquet", Format::Parquet), ("csv", Format::Csv)] {
        g.bench_function(format!("{name}_{}_traces", first.files), |b| {
            b.iter(|| export(&paths, format, out.path()).expect("export").events)
        });
    }
    g.finish();
}

criterion_group!(benches, bench_export);
criterion_main!(benches);
