//! Loading a blueprint of many `[[block]]` entries: linear in the blocks. The line of
//! each block once came from scanning the file from its start, so 40k blocks took 43 s
//! (stop 23). Read the ratio of the two rows: four times the blocks should take about
//! four times as long (BTreeMap inserts add a little); a quadratic loader takes sixteen.

use std::path::Path;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gatecrew_world::{Blueprint, GameData};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn blocks(n: usize) -> String {
    let mut s = String::from("name = \"many blocks\"\n");
    for i in 0..n {
        s.push_str(&format!("[[block]]\nat = [{}, 0, {}]\nblock = \"dirt\"\n", i % 300, i / 300));
    }
    s
}

fn load(c: &mut Criterion) {
    let data = GameData::load(&root().join("configs/data/minecraft-1.20.4.json")).expect("game data loads");
    let mut g = c.benchmark_group("blueprint");
    g.sample_size(10);
    for n in [10_000, 40_000] {
        let text = blocks(n);
        g.bench_with_input(BenchmarkId::new("parse_blocks", n), &text, |b, text| {
            b.iter(|| {
                let bp = Blueprint::parse(text, Path::new("many.toml"), &data).expect("parses");
                assert_eq!(bp.len(), n);
                bp
            })
        });
    }
    g.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
