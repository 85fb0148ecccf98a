//! The pinned game data and alias table, loaded once per process: a fuzzer calls a
//! harness millions of times.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use gatecrew_tasks::Aliases;
use gatecrew_world::GameData;

/// Compiled in, so that a fuzz binary runs from any directory.
const DATA_JSON: &str = include_str!("../../configs/data/minecraft-1.20.4.json");
const ALIASES_TOML: &str = include_str!("../../configs/aliases.toml");

static DATA: LazyLock<Arc<GameData>> = LazyLock::new(|| {
    Arc::new(
        GameData::from_json(DATA_JSON, Path::new("configs/data/minecraft-1.20.4.json"))
            .expect("the pinned game data loads"),
    )
});

static ALIASES: LazyLock<Aliases> = LazyLock::new(|| {
    Aliases::parse(ALIASES_TOML, Path::new("configs/aliases.toml"), &DATA).expect("the alias table loads")
});

/// The game data every harness resolves names against.
pub fn game_data() -> &'static Arc<GameData> {
    &DATA
}

/// The alias table `gatecrew run --task` uses by default.
pub fn aliases() -> &'static Aliases {
    &ALIASES
}
