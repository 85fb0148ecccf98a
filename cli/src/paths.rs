//! Where default files live.

use std::path::{Path, PathBuf};

/// The default crew config: `configs/crew.toml` under the current directory, else the
/// one in the source tree this binary was built from.
pub fn default_config() -> Option<PathBuf> {
    let here = PathBuf::from("configs/crew.toml");
    if here.is_file() {
        return Some(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/crew.toml");
    built.is_file().then_some(built)
}

/// The default trace path for an episode.
pub fn default_trace(name: &str, policy: &str, seed: u64) -> PathBuf {
    PathBuf::from("runs").join(format!("{name}-{policy}-s{seed}.jsonl"))
}

/// A file under `configs/`: in the current directory, else in the source tree.
pub fn configs_file(rel: &str) -> Option<PathBuf> {
    let here = PathBuf::from("configs").join(rel);
    if here.exists() {
        return Some(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(rel);
    built.exists().then_some(built)
}

/// The default game data file.
pub fn default_data() -> Option<PathBuf> {
    configs_file("data/minecraft-1.20.4.json")
}

/// The default suite folder: `configs/suite` (created by `gatecrew suite generate`).
pub fn default_suite() -> PathBuf {
    configs_file("suite").unwrap_or_else(|| PathBuf::from("configs/suite"))
}
