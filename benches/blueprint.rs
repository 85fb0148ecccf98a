//! Loading a blueprint of many `[[block]]` entries: linear in the blocks, as long as no
//! block's line number comes from scanning the file from its start (docs/faults.md has
//! what that cost). Read the ratio of the two rows: four times the blocks should take about
//! four times as long (BTreeMap inserts add a little); a quadratic loader takes sixteen.
//!
//! `blueprint_index/*`, in the thread's CPU time: `Blueprint::index_of` at every
//! position of the blueprint's box and one block around it (the lookups placement,
//! observation and path search make: cells and the air beside them), against a
//! `BTreeMap` of the same cells (the plain alternative), on a solid box, the house
//! and the village.

use std::path::Path;

use std::collections::BTreeMap;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gatecrew_benches::ThreadCpu;
use gatecrew_protocol::Pos;
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

/// Every position of `bp`'s box grown by one block on each side.
fn probes(bp: &Blueprint) -> Vec<Pos> {
    let (lo, hi) = bp.extent().expect("a blueprint with cells");
    let mut out = Vec::new();
    for x in lo.x - 1..=hi.x + 1 {
        for y in lo.y - 1..=hi.y + 1 {
            for z in lo.z - 1..=hi.z + 1 {
                out.push(Pos::new(x, y, z));
            }
        }
    }
    out
}

fn index(c: &mut Criterion<ThreadCpu>) {
    let data = GameData::load(&root().join("configs/data/minecraft-1.20.4.json")).expect("game data loads");
    let solid = "name = \"solid\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [19, 7, 19]\nblock = \"cobblestone\"\n";
    let sites = [
        ("solid_20x8x20", Blueprint::parse(solid, Path::new("solid.toml"), &data).expect("parses")),
        ("house", Blueprint::load(&root().join("configs/blueprints/house.toml"), &data).expect("loads")),
        ("village", Blueprint::load(&root().join("configs/blueprints/village.toml"), &data).expect("loads")),
    ];
    let mut g = c.benchmark_group("blueprint_index");
    for (name, bp) in &sites {
        let probes = probes(bp);
        let map: BTreeMap<Pos, usize> = bp.cells().iter().enumerate().map(|(i, c)| (c.pos, i)).collect();
        let found = |f: &dyn Fn(Pos) -> Option<usize>| probes.iter().filter_map(|p| f(*p)).sum::<usize>();
        assert_eq!(found(&|p| bp.index_of(p)), found(&|p| map.get(&p).copied()), "the same cells");
        eprintln!("blueprint_index/{name}: {} cells, {} positions a pass", bp.len(), probes.len());
        g.bench_with_input(BenchmarkId::new("index_of", name), &probes, |b, probes| {
            b.iter(|| probes.iter().filter_map(|p| bp.index_of(*p)).sum::<usize>())
        });
        g.bench_with_input(BenchmarkId::new("btreemap", name), &probes, |b, probes| {
            b.iter(|| probes.iter().filter_map(|p| map.get(p).copied()).sum::<usize>())
        });
    }
    g.finish();
}

criterion_group!(benches, load);
criterion_group! {
    name = lookups;
    config = Criterion::default().with_measurement(ThreadCpu::default());
    targets = index
}
criterion_main!(benches, lookups);
