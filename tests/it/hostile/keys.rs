//! Every TOML file the product reads (crew configs, blueprints, calibration grids,
//! suite manifests, item aliases, LLM profiles, the chat vocabulary) goes through one
//! key count before it is parsed (`gatecrew_protocol::limits::check_toml_keys`): at the
//! bound it reaches the reader's own checks, past it the error names the file, the key
//! and the bound, and a file just under the size cap loads in bounded memory.

use std::path::Path;
use std::process::Command;

use gatecrew_protocol::limits::MAX_TOML_KEYS;
use gatecrew_world::Blueprint;
use gatecrew_world::limits::MAX_BLUEPRINT_TOML_NODES;

use crate::common::data;

/// The readers of TOML files: each file's name, its key bound, and what it says about
/// a text (its error, or "ok").
type Reader = (&'static str, usize, Box<dyn Fn(&str) -> String>);

fn readers(dir: &Path) -> Vec<Reader> {
    let shown = |r: Result<(), String>| r.err().unwrap_or_else(|| "ok".to_owned());
    let at = |name: &str| dir.join(name);
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let d = data();
    let (config, blueprint, grid, aliases, profile) =
        (at("config.toml"), at("blueprint.toml"), at("grid.toml"), at("aliases.toml"), at("profile.toml"));
    let d2 = d.clone();
    let d3 = d.clone();
    vec![
        (
            "config.toml",
            MAX_TOML_KEYS,
            Box::new(move |t| {
                let ov = gatecrew_crew::Overrides::default();
                shown(gatecrew_crew::Setup::parse(t, &config, &ov).map(drop).map_err(|e| e.to_string()))
            }),
        ),
        (
            "blueprint.toml",
            MAX_BLUEPRINT_TOML_NODES,
            Box::new(move |t| shown(Blueprint::parse(t, &blueprint, &d).map(drop).map_err(|e| e.to_string()))),
        ),
        (
            "grid.toml",
            MAX_TOML_KEYS,
            Box::new(move |t| shown(gatecrew_calibrate::Grid::parse(t, &grid).map(drop).map_err(|e| e.to_string()))),
        ),
        (
            "suite.toml",
            MAX_TOML_KEYS,
            Box::new(move |t| {
                std::fs::write(suite.join("suite.toml"), t).unwrap();
                shown(gatecrew_suite::Manifest::load(&suite).map(drop).map_err(|e| e.to_string()))
            }),
        ),
        (
            "aliases.toml",
            MAX_TOML_KEYS,
            Box::new(move |t| {
                shown(gatecrew_tasks::Aliases::parse(t, &aliases, &d2).map(drop).map_err(|e| e.to_string()))
            }),
        ),
        (
            "profile.toml",
            MAX_TOML_KEYS,
            Box::new(move |t| {
                shown(gatecrew_gating::llm::LlmProfile::parse(t, &profile).map(drop).map_err(|e| e.to_string()))
            }),
        ),
        (
            "vocabulary.toml",
            MAX_TOML_KEYS,
            Box::new(move |t| {
                shown(gatecrew_hitl::words::Vocabulary::parse(t, &d3).map(drop).map_err(|e| e.to_string()))
            }),
        ),
    ]
}

/// A shape of TOML text: the nodes each line (or pair of lines) counts, and the text of
/// `lines` of them.
struct Shape {
    name: &'static str,
    per: usize,
    text: fn(usize) -> String,
    /// The key named on the line with index `i`.
    key: fn(usize) -> String,
}

const SHAPES: [Shape; 5] = [
    Shape {
        name: "plain",
        per: 1,
        text: |n| (0..n).map(|i| format!("k{i} = {i}\n")).collect(),
        key: |i| format!("k{i}"),
    },
    // A dotted key is a key and a table.
    Shape {
        name: "dotted",
        per: 2,
        text: |n| (0..n).map(|i| format!("t{i}.k = 1\n")).collect(),
        key: |i| format!("t{i}.k"),
    },
    // A header, then a key under it.
    Shape {
        name: "tables",
        per: 2,
        text: |n| (0..n).map(|i| format!("[s{i}]\nk = 1\n")).collect(),
        key: |i| format!("[s{i}]"),
    },
    // A key, its `{`, two keys and a comma.
    Shape {
        name: "inline",
        per: 5,
        text: |n| (0..n).map(|i| format!("i{i} = {{ a = 1, b = 2 }}\n")).collect(),
        key: |i| format!("i{i}"),
    },
    // A key, its `[` and a comma: array values count, or a long array of zeros would
    // parse unbounded by the node count (docs/faults.md).
    Shape {
        name: "array",
        per: 3,
        text: |n| (0..n).map(|i| format!("a{i} = [1, 2]\n")).collect(),
        key: |i| format!("a{i}"),
    },
];

/// Keys of every shape the counter sees at each reader's bound and past it: at it no
/// reader reports the bound, past it every reader does, naming its file, the key on the
/// line where the count passed, and the bound. (A shape too large for a reader's file
/// size limit at that bound is left out for that reader.)
#[test]
fn every_toml_reader_counts_keys_first_and_names_file_key_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let blueprint_bytes = usize::try_from(gatecrew_world::limits::max_blueprint_bytes().unwrap()).unwrap();
    for (file, bound, read) in readers(dir.path()) {
        let size_cap = if file == "blueprint.toml" { blueprint_bytes } else { usize::MAX };
        let mut tried = 0;
        for shape in &SHAPES {
            let at_bound = (shape.text)(bound / shape.per);
            if at_bound.len() > size_cap {
                continue;
            }
            tried += 1;
            let said = read(&at_bound);
            assert!(!said.contains(&format!("more than {bound}")), "{} at the bound, {file}: {said}", shape.name);
            // The line whose nodes pass the bound: the first one past `bound / per` lines.
            let past = (shape.text)(bound / shape.per + 2);
            let key = (shape.key)(bound / shape.per);
            let said = read(&past);
            let what = format!("{} past the bound, {file}", shape.name);
            assert!(said.contains(file), "{what}: the file is not named: {said}");
            assert!(said.contains(&format!("key `{key}`")), "{what}: key {key} is not named: {said}");
            assert!(said.contains(&format!("at most {bound}")), "{what}: no bound: {said}");
        }
        assert!(tried >= 3, "{file}: only {tried} shapes fit");
    }
}

const CHILD: &str = "GATECREW_KEYS_TEST_FILE";
const CHILD_KIND: &str = "GATECREW_KEYS_TEST_KIND";

/// The peak resident memory of this process, from `/proc/self/status` (Linux).
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/self/status");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Run by the tests below in a process of its own, so that its peak memory is the load's.
#[test]
#[ignore = "run by the bounded-memory tests below"]
fn child_loads_a_file() {
    let (Ok(file), Ok(kind)) = (std::env::var(CHILD), std::env::var(CHILD_KIND)) else { return };
    let file = Path::new(&file);
    let loaded = match kind.as_str() {
        "config" => {
            gatecrew_crew::Setup::load(file, &gatecrew_crew::Overrides::default()).map(drop).map_err(|e| e.to_string())
        }
        "grid" => {
            gatecrew_calibrate::Grid::load(file).map(|g| assert!(!g.points.is_empty())).map_err(|e| e.to_string())
        }
        other => panic!("no reader {other}"),
    };
    println!("peak_kb={} loaded={}", peak_rss_kb(), loaded.is_ok());
}

/// The peak memory, in MB, of a process that loads `file` as `kind`, and whether it loaded.
fn peak_loading(kind: &str, file: &Path) -> (u64, bool) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["hostile::keys::child_loads_a_file", "--exact", "--include-ignored", "--nocapture"])
        .env(CHILD, file)
        .env(CHILD_KIND, kind)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| stdout.split(name).nth(1).and_then(|s| s.split_whitespace().next()).map(str::to_owned);
    let peak: u64 = field("peak_kb=")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{}: no peak from the child: {stdout}", file.display()));
    (peak / 1024, field("loaded=").as_deref() == Some("true"))
}

/// docs/faults.md gives the measured figures; this bound is their margin on the
/// ~500 MB the file limit is meant to allow a parse.
const MAX_PEAK_MB: u64 = 600;

/// Configs of each shape that fills the size cap with as many nodes as the bound allows
/// or more (long string values, dotted keys, arrays of numbers and strings, which count
/// as values) load or are refused in bounded memory, an array of numbers included
/// (docs/faults.md has what an uncounted one cost).
#[test]
fn a_config_just_under_the_size_cap_loads_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let cap = usize::try_from(gatecrew_protocol::limits::max_file_bytes()).unwrap();
    let fill = |line: &dyn Fn(usize) -> String| {
        let mut text = String::new();
        let mut i = 0;
        while text.len() < cap - 200 {
            text.push_str(&line(i));
            i += 1;
        }
        text.truncate(text[..cap - 200].rfind('\n').unwrap() + 1);
        text
    };
    let pad = "x".repeat(cap / MAX_TOML_KEYS);
    let shapes = [
        ("long-values", fill(&|i| format!("k{i} = \"{pad}\"\n"))),
        ("dotted", fill(&|i| format!("t{i}.k = \"{pad}\"\n"))),
        ("numbers", format!("n = [{}0]\n", "0,".repeat((cap - 300) / 2))),
        ("strings", format!("s = [{}\"\"]\n", "\"\",".repeat((cap - 300) / 3))),
        ("tables", format!("s = [{}{{}}]\n", "{},".repeat((cap - 300) / 3))),
    ];
    for (shape, text) in shapes {
        assert!(text.len() < cap, "{shape}");
        let file = dir.path().join(format!("{shape}.toml"));
        std::fs::write(&file, &text).unwrap();
        let (peak, _) = peak_loading("config", &file);
        assert!(peak < MAX_PEAK_MB, "{shape}: {peak} MB peak loading {} bytes", text.len());
    }
}

/// A grid of as many combinations as the bound allows expands in bounded memory.
#[test]
fn a_grid_at_its_combination_bound_loads_in_bounded_memory() {
    use gatecrew_calibrate::grid::MAX_GRID_POINTS;
    // Ten values for six keys: 10^6 combinations, the bound.
    assert_eq!(MAX_GRID_POINTS, 1_000_000, "the grid below is built for this bound");
    let ten = |from: f64, step: f64| format!("{{ from = {from}, to = {}, step = {step} }}", from + 9.0 * step);
    let text = format!(
        "[weights]\nc = {}\na = {}\nd = {}\nr = {}\nh = {}\n[thresholds]\ntheta_low = {}\ntheta_high = [0.9]\n",
        ten(0.5, 0.05),
        ten(0.2, 0.01),
        ten(0.2, 0.01),
        ten(0.2, 0.01),
        ten(0.01, 0.01),
        ten(0.1, 0.05)
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("grid.toml");
    std::fs::write(&file, &text).unwrap();
    let grid = gatecrew_calibrate::Grid::parse(&text, &file).unwrap();
    assert_eq!(grid.points.len() + grid.skipped, 1_000_000);
    let (peak, loaded) = peak_loading("grid", &file);
    assert!(loaded);
    assert!(peak < MAX_PEAK_MB, "{peak} MB peak expanding a grid at the bound");
}
