//! The episode suite: deterministic generation, the class of every episode checked with
//! the world's oracle, balanced splits.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gatecrew_crew::Overrides;
use gatecrew_protocol::trace::{Split, SuiteClass};
use gatecrew_suite::Manifest;
use gatecrew_suite::inject::check_class;

use crate::common::{data, root};

fn suite_dir() -> std::path::PathBuf {
    root().join("configs/suite")
}

/// Every file under a folder, relative path -> text, with the data path line removed
/// (it is relative to where the suite is written).
pub(crate) fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for sub in ["", "blueprints", "episodes"] {
        let d = dir.join(sub);
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let text = std::fs::read_to_string(&p).unwrap();
                let text: String =
                    text.lines().filter(|l| !l.starts_with("data = ")).map(|l| format!("{l}\n")).collect();
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), text);
            }
        }
    }
    out
}

#[test]
fn generation_is_deterministic_and_reproduces_the_committed_suite() {
    let data_path = root().join("configs/data/minecraft-1.20.4.json");
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    gatecrew_suite::generate(a.path(), &data_path, gatecrew_suite::Version::V1).unwrap();
    gatecrew_suite::generate(b.path(), &data_path, gatecrew_suite::Version::V1).unwrap();
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert_eq!(fa.len(), 40 + 240 + 1);
    assert!(fa == fb, "two generations differ");
    let committed = files(&suite_dir());
    assert!(committed == fa, "configs/suite differs from a fresh `gatecrew suite generate`: regenerate it");
    let one = std::fs::read_to_string(suite_dir().join("episodes/00-wall-low-cobble-A-s0.toml")).unwrap();
    assert!(one.contains("data = \"../../data/minecraft-1.20.4.json\""));
}

#[test]
fn the_suite_is_balanced_and_split_by_template() {
    let impossible = check_balance(&suite_dir());
    assert!((1..50).contains(&impossible), "D-impossible episodes: {impossible}");
}

/// 200 class episodes, 50 per class (D and D-impossible together), 25 per class on
/// each side, 15 of them with two bots; 20 templates a side, none on both. Returns the
/// number of D-impossible episodes.
pub(crate) fn check_balance(dir: &Path) -> usize {
    let m = Manifest::load(dir).unwrap();
    let main: Vec<_> = m.episode.iter().filter(|e| e.split != Split::Standard).collect();
    assert_eq!(main.len(), 200);
    let count = |f: &dyn Fn(&&gatecrew_suite::Entry) -> bool| main.iter().filter(|e| f(e)).count();
    // D-impossible episodes are class-D injections with no local route at any length,
    // labelled apart: D and D-impossible together fill D's share.
    let class_of = |e: &gatecrew_suite::Entry| match e.class {
        SuiteClass::DImpossible => SuiteClass::D,
        c => c,
    };
    for class in [SuiteClass::A, SuiteClass::B, SuiteClass::C, SuiteClass::D] {
        assert_eq!(count(&|e| class_of(e) == class), 50, "class {class}");
        for split in [Split::Calibration, Split::Test] {
            assert_eq!(count(&|e| class_of(e) == class && e.split == split), 25, "class {class} in {split}");
            assert_eq!(count(&|e| class_of(e) == class && e.split == split && e.agents == 2), 15);
        }
    }
    assert_eq!(count(&|e| e.agents == 2), 120);
    assert_eq!(count(&|e| e.agents == 3), 80);
    let templates =
        |split: Split| main.iter().filter(|e| e.split == split).map(|e| e.template.clone()).collect::<BTreeSet<_>>();
    let (cal, test) = (templates(Split::Calibration), templates(Split::Test));
    assert_eq!((cal.len(), test.len()), (20, 20));
    assert!(cal.is_disjoint(&test), "no template on both sides");
    let sizes: Vec<usize> = gatecrew_suite::template::templates().iter().map(|t| t.len()).collect();
    assert!(sizes.iter().all(|s| (20..=400).contains(s)), "{sizes:?}");
    let families: BTreeSet<_> = gatecrew_suite::template::templates().iter().map(|t| t.family).collect();
    assert_eq!(families.len(), 10);
    count(&|e| e.class == SuiteClass::DImpossible)
}

#[test]
fn every_episode_means_what_its_class_says() {
    check_every_class(&suite_dir());
    // v1's class A is a chest by the start or one craft: a fix of at most A_MAX_TICKS
    // (the class check itself asks only for a route within the budget, as v2's raw
    // sources nearby cost more).
    let m = Manifest::load(&suite_dir()).unwrap();
    let mut a = 0;
    for e in m.episode.iter().filter(|e| e.class == SuiteClass::A) {
        let setup =
            gatecrew_crew::Setup::load_with_data(&suite_dir().join(&e.file), &Overrides::default(), data()).unwrap();
        let s = &e.shortages()[0];
        let item = setup.data.item(&s.item).unwrap();
        let victim = gatecrew_protocol::AgentId(s.victim);
        let need = gatecrew_suite::inject::needs(&setup)[victim.index()][&item];
        let cost = setup.world.oracle(victim, item, need, gatecrew_suite::inject::ORACLE_TICKS).map(|c| c.ticks);
        assert!(cost.is_some_and(|c| c <= gatecrew_suite::inject::A_MAX_TICKS), "{}: {cost:?}", e.id);
        a += 1;
    }
    assert_eq!(a, 50);
}

/// Every shortage of every episode holds its class, with the oracle, in the written
/// episode file.
pub(crate) fn check_every_class(dir: &Path) {
    let m = Manifest::load(dir).unwrap();
    let d = data();
    for e in &m.episode {
        let setup = gatecrew_crew::Setup::load_with_data(&dir.join(&e.file), &Overrides::default(), d.clone())
            .unwrap_or_else(|err| panic!("{}: {err}", e.id));
        check_class(&setup, e).unwrap_or_else(|err| panic!("{err}"));
    }
}

#[test]
fn every_standard_episode_is_buildable() {
    let m = Manifest::load(&suite_dir()).unwrap();
    let d = data();
    for e in m.split(Some(Split::Standard)) {
        let setup =
            gatecrew_crew::Setup::load_with_data(&suite_dir().join(&e.file), &Overrides::default(), d.clone()).unwrap();
        let f = gatecrew_crew::run(&setup, &mut |_: &gatecrew_protocol::trace::Event| {});
        assert_eq!(f.progress.correct, f.progress.total, "{} is not buildable: {f:?}", e.id);
    }
}

/// The committed recordings of `gated` with the local model on the test split
/// (`scripts/suite-llm.sh`, docs/results.md) still replay: each episode the model
/// adjudicated runs again from its recording, without a server, and makes the same
/// adjudications. A change to the gate or the agents that moves a consult makes this
/// fail: re-record with the script (the results tables are then stale too).
#[test]
fn the_committed_model_recordings_still_replay() {
    let root = crate::common::root();
    let dir = tempfile::tempdir().unwrap();
    let mut replayed = 0;
    for (suite, set, gate) in [
        ("configs/suite", "test-gated-smollm2", None),
        ("configs/suite", "test-gated-smollm2-all", Some("configs/gates/boundary-all.toml")),
        ("configs/suite-v2", "test-gated-smollm2", None),
        ("configs/suite-v2", "test-gated-smollm2-all", Some("configs/gates/boundary-all.toml")),
    ] {
        let m = Manifest::load(&root.join(suite)).unwrap();
        for e in m.episode.iter().filter(|e| e.split == Split::Test) {
            let rec = root.join(suite).join("replays").join(set).join(format!("{}.jsonl", e.id));
            let recorded = std::fs::read_to_string(&rec).unwrap_or_else(|err| panic!("{}: {err}", rec.display()));
            let adjudications = |text: &str| -> Vec<String> {
                text.lines().filter(|l| l.contains("\"kind\":\"adjudication\"")).map(str::to_owned).collect()
            };
            let want = adjudications(&recorded);
            if want.is_empty() {
                continue;
            }
            let out = dir.path().join(format!("{}-{set}-{}.jsonl", suite.replace('/', "-"), e.id));
            let cfg = root.join(suite).join(&e.file);
            let mut args = vec!["run", "--stepper", "--quiet", "--config", cfg.to_str().unwrap(), "--policy", "gated"];
            let gate_path = gate.map(|g| root.join(g));
            if let Some(g) = &gate_path {
                args.extend(["--gate", g.to_str().unwrap()]);
            }
            args.extend(["--replay-adjudications", rec.to_str().unwrap(), "--trace", out.to_str().unwrap()]);
            let (code, _, err) = crate::llm::gatecrew(&args);
            assert_eq!(code, 0, "{suite} {set}/{}: {err}", e.id);
            assert_eq!(adjudications(&std::fs::read_to_string(&out).unwrap()), want, "{suite} {set}/{}", e.id);
            replayed += 1;
        }
    }
    assert!(replayed >= 60, "episodes replayed: {replayed}");
}
