//! Limits on what an input file may ask for, so that a small file cannot ask for
//! unbounded memory or time (docs/faults.md, "Limits"). Each limit has a default and an
//! environment variable for users who need more.

/// The default for [`max_blueprint_cells`]: as many as the largest single `fill` may
/// write. A `[world]` holds at most 4,000,000 cells and every bundled or generated
/// blueprint fewer than 2,000; a million cells still load in bounded memory
/// (docs/faults.md, "Limits", has the measurements).
pub const DEFAULT_MAX_BLUEPRINT_CELLS: u64 = 1_000_000;

/// The variable that overrides [`DEFAULT_MAX_BLUEPRINT_CELLS`].
pub const MAX_BLUEPRINT_CELLS_VAR: &str = "GATECREW_MAX_BLUEPRINT_CELLS";

/// The default for [`max_blueprint_bytes`]. Parsing a blueprint that is all
/// `[[block]]`s takes many times its size in memory (docs/faults.md, "Limits", has the
/// measurements), so the file's size is what bounds it; 4 MiB is far above any bundled
/// blueprint or a 2,000-cell one written block by block.
pub const DEFAULT_MAX_BLUEPRINT_BYTES: u64 = 4 << 20;

/// The most keys, tables and array values a blueprint's TOML may hold: five for each
/// of the 90,000 `[[block]]`s (header, `at`, two commas, `block`) of the largest
/// blueprint measured to load under the 4 MiB file limit (docs/faults.md). A crew
/// config or another TOML file has the general bound,
/// [`gatecrew_protocol::limits::MAX_TOML_KEYS`]; the file limit keeps a blueprint's
/// parse to about half of what it allows a config.
pub const MAX_BLUEPRINT_TOML_NODES: usize = 450_000;

/// The variable that overrides [`DEFAULT_MAX_BLUEPRINT_BYTES`].
pub const MAX_BLUEPRINT_BYTES_VAR: &str = "GATECREW_MAX_BLUEPRINT_BYTES";

/// The largest blueprint file read, in bytes (checked before it is read).
pub fn max_blueprint_bytes() -> Result<u64, String> {
    env_limit(MAX_BLUEPRINT_BYTES_VAR, DEFAULT_MAX_BLUEPRINT_BYTES)
}

/// The most cells the fills and blocks of one blueprint may write in total (cells that
/// later entries overwrite count each time: the limit bounds the work, not only the
/// result). `GATECREW_MAX_BLUEPRINT_CELLS` overrides the default; a value that is not a
/// positive whole number is an error naming the variable.
pub fn max_blueprint_cells() -> Result<u64, String> {
    env_limit(MAX_BLUEPRINT_CELLS_VAR, DEFAULT_MAX_BLUEPRINT_CELLS)
}

/// Reads a positive whole number from `var`, or `default` when it is not set.
pub fn env_limit(var: &str, default: u64) -> Result<u64, String> {
    match std::env::var(var) {
        Err(std::env::VarError::NotPresent) => Ok(default),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{var} is not a number")),
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{var}={v:?} is not a positive whole number")),
        },
    }
}
