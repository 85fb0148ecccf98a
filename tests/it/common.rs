//! Shared fixtures: the real game data, the default configs, small worlds.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::{Bounds, GameData, Inventory, Rules, World};

/// Runs the CLI in-process: exit code, stdout, stderr.
pub fn gatecrew(args: &[&str]) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut argv = vec!["gatecrew"];
    argv.extend_from_slice(args);
    let code = gatecrew_cli::main_with(argv, &mut out, &mut err);
    // ExitCode has no accessor: compare against the three codes the CLI uses.
    let code = [0u8, 1, 2].into_iter().find(|c| std::process::ExitCode::from(*c) == code).unwrap_or(255);
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

/// The repository's top folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The real Minecraft 1.20.4 data, loaded once.
pub fn data() -> Arc<GameData> {
    static DATA: OnceLock<Arc<GameData>> = OnceLock::new();
    DATA.get_or_init(|| {
        Arc::new(GameData::load(&root().join("configs/data/minecraft-1.20.4.json")).expect("data loads"))
    })
    .clone()
}

/// An item by name.
pub fn item(name: &str) -> ItemId {
    data().item(name).expect("known item")
}

/// The default crew config.
pub fn default_config() -> PathBuf {
    root().join("configs/crew.toml")
}

/// Every event of an episode on the stepper, in order.
pub fn run_events(setup: &Setup) -> Vec<gatecrew_protocol::trace::Event> {
    let mut events = Vec::new();
    gatecrew_crew::run(setup, &mut |e: &gatecrew_protocol::trace::Event| events.push(e.clone()));
    events
}

/// The committed suite's episode files whose text passes `keep`, in name order.
pub fn suite_episodes(keep: impl Fn(&Path, &str) -> bool) -> Vec<PathBuf> {
    let dir = root().join("configs/suite/episodes");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| keep(p, &std::fs::read_to_string(p).unwrap()))
        .collect();
    v.sort();
    v
}

/// The suite's episodes with a muted teammate (class D's muted holders).
pub fn muted_episodes() -> Vec<PathBuf> {
    suite_episodes(|_, text| text.contains("mute = ["))
}

/// The default episode.
pub fn default_setup() -> Setup {
    Setup::load(&default_config(), &Overrides::default()).expect("default config loads")
}

/// An empty 21x8x21 world around the origin with the default rules.
pub fn world() -> World {
    let bounds = Bounds { min: Pos::new(-10, 0, -10), max: Pos::new(10, 7, 10) };
    World::new(data(), bounds, Rules::default(), 1).expect("rules name known blocks")
}

/// An agent inventory holding the given items.
pub fn inv(items: &[(&str, u32)]) -> Inventory {
    let mut inv = World::agent_inventory();
    for (name, n) in items {
        inv.add(data().items(), item(name), *n).expect("fits");
    }
    inv
}

/// Writes a file into a temporary folder and returns its path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write");
    p
}

/// One heavy live test at a time across the binary (the llama.cpp server's tests and the
/// Minecraft tests with their Node processes): on two shared cores, overlapping them
/// makes each miss its time limits.
pub fn live_turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The Python interpreter of the tests' checks (DuckDB, polars, the Prometheus parser):
/// `scripts/pyvenv.py checks` installs its pinned wheels into `target/py-checks` on first
/// use (once per machine, under a lock shared with other test binaries) and names it.
/// There is no way around it: a check that needs Python runs, or its test fails here.
pub fn python_checks() -> PathBuf {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .arg(root().join("scripts/pyvenv.py"))
            .arg("checks")
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("python3 runs scripts/pyvenv.py (the tests need Python 3.11 with pip)");
        assert!(out.status.success(), "scripts/pyvenv.py checks failed (its messages are above)");
        let py = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        assert!(py.is_file(), "scripts/pyvenv.py named {py:?}, which is not a file");
        py
    })
    .clone()
}

/// Calibration options over the shipped suite's seed-0 episodes into `out`, on the fast
/// path with two jobs: the setup of the calibration and resume tests.
pub fn calibrate_options(out: &Path) -> gatecrew_calibrate::run::Options {
    gatecrew_calibrate::run::Options {
        suite: root().join("configs/suite"),
        data: root().join("configs/data/minecraft-1.20.4.json"),
        out: out.to_path_buf(),
        jobs: Some(2),
        fast: true,
        filter: Some("-s0".into()),
        executor: None,
    }
}
