//! What a calibration's results depend on, recorded beside them (`OUT/run.json`) so
//! that a rerun resumes only results it would have computed itself: the suite (its
//! folder and every episode's config hash), the `--filter`, the grid (every point and
//! the objective), the executor model, the policies the episodes run under, and the
//! binary that computed them (its version and a fingerprint of the executable: two
//! builds of one version may score differently). A rerun with any of them changed is
//! refused, told each difference, rather than mixing results of other inputs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use gatecrew_crew::setup::config_hash;
use serde::{Deserialize, Serialize};

use crate::eval::Case;
use crate::grid::Grid;
use crate::run::{CalibrateError, Options};

/// Everything that determines a calibration's per-point results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunKey {
    /// The gatecrew version that computed them.
    pub version: String,
    /// The executable that computed them ([`build_id`]).
    pub build: String,
    /// The suite folder, as given.
    pub suite: PathBuf,
    /// A hash of the episodes calibrated on (ids, splits, config hashes), in order.
    pub episodes: String,
    /// How many episodes that is.
    pub episode_count: usize,
    /// `--filter`.
    pub filter: Option<String>,
    /// A hash of the grid's points and objective.
    pub grid: String,
    /// The grid's valid points.
    pub grid_points: usize,
    /// The executor model, `null` for each config's own.
    pub executor: serde_json::Value,
    /// The policies the episodes run under.
    pub policies: Vec<String>,
}

impl RunKey {
    /// The key of a run of `grid` over `cases` with `opts`.
    pub fn new(opts: &Options, grid: &Grid, cases: &[Case]) -> RunKey {
        let episodes: Vec<(&str, &str, &str)> =
            cases.iter().map(|c| (c.id.as_str(), c.split.as_str(), c.setup.config_hash.as_str())).collect();
        let points: Vec<(usize, &gatecrew_gating::GateSpec)> =
            grid.points.iter().map(|p| (p.index, p.params.spec())).collect();
        let mut policies: Vec<String> = cases.iter().map(|c| c.setup.policy.as_str().to_owned()).collect();
        policies.sort();
        policies.dedup();
        RunKey {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            build: build_id().to_owned(),
            suite: opts.suite.clone(),
            episodes: config_hash(&episodes),
            episode_count: cases.len(),
            filter: opts.filter.clone(),
            grid: config_hash(&(&points, &grid.objective)),
            grid_points: grid.points.len(),
            executor: serde_json::to_value(opts.executor.as_ref().and_then(gatecrew_crew::Executor::label))
                .unwrap_or_default(),
            policies,
        }
    }

    /// What differs from `earlier`, one entry per input: `name: was A, now B`.
    pub fn differences(&self, earlier: &RunKey) -> Vec<String> {
        let a = serde_json::to_value(earlier).unwrap_or_default();
        let b = serde_json::to_value(self).unwrap_or_default();
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else { return Vec::new() };
        b.iter()
            .filter(|(k, v)| a.get(k.as_str()) != Some(v))
            .map(|(k, v)| format!("{k}: was {}, now {v}", a.get(k.as_str()).unwrap_or(&serde_json::Value::Null)))
            .collect()
    }
}

/// The running executable's fingerprint ([`fingerprint_file`], computed once per
/// process), or `unreadable: ...` when the file cannot be read, which no readable build
/// matches.
pub fn build_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| match std::env::current_exe().and_then(|p| fingerprint_file(&p)) {
        Ok(d) => d,
        Err(e) => format!("unreadable: {e}"),
    })
}

/// How much of each end of the file the fingerprint reads.
const END_BYTES: u64 = 1 << 20;

/// A file's fingerprint: the first 8 bytes, in hex, of the SHA-256 of its length, its
/// modification time and its first and last MiB. A new build is a new file (a new
/// mtime, nearly always a new length, new headers and tables at its ends), so this
/// tells builds apart without reading the whole executable, which hashing every byte
/// did at a cost of seconds. What it misses: a file of the same length whose middle
/// alone changed and whose mtime was set back (docs/faults.md).
pub fn fingerprint_file(path: &Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    let len = meta.len();
    let mtime = meta.modified()?.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let mut hasher = Sha256::new();
    hasher.update(len.to_le_bytes());
    hasher.update(mtime.to_le_bytes());
    let mut buf = Vec::new();
    (&mut f).take(END_BYTES).read_to_end(&mut buf)?;
    hasher.update(&buf);
    if len > END_BYTES {
        buf.clear();
        f.seek(SeekFrom::Start(len.saturating_sub(END_BYTES).max(END_BYTES)))?;
        f.take(END_BYTES).read_to_end(&mut buf)?;
        hasher.update(&buf);
    }
    Ok(hasher.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// Checks that the results in `opts.out` were computed with `key`, or records `key`
/// for a new folder. Results without a record are refused too: nothing says what
/// they resume.
pub fn check(opts: &Options, key: &RunKey) -> Result<(), CalibrateError> {
    let path = opts.out.join("run.json");
    let results = opts.out.join("points.jsonl");
    let has_results = std::fs::metadata(&results).is_ok_and(|m| m.len() > 0);
    match gatecrew_protocol::limits::read_text_file(&path) {
        Ok(text) => {
            let earlier: RunKey = serde_json::from_str(&text).map_err(|e| CalibrateError::OtherRun {
                path: path.clone(),
                differences: vec![format!("the record does not read: {e}")],
            })?;
            let differences = key.differences(&earlier);
            if differences.is_empty() { Ok(()) } else { Err(CalibrateError::OtherRun { path, differences }) }
        }
        Err(_) if has_results => Err(CalibrateError::OtherRun {
            path,
            differences: vec![format!("{} has results but nothing records what computed them", results.display())],
        }),
        Err(_) => record(&path, key),
    }
}

fn record(path: &Path, key: &RunKey) -> Result<(), CalibrateError> {
    let text = serde_json::to_string_pretty(key).unwrap_or_default();
    gatecrew_protocol::replace::replace(path, format!("{text}\n").as_bytes())
        .map_err(|e| CalibrateError::Io { path: path.to_path_buf(), source: e.into() })
}
