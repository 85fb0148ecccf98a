//! Kitchen traces: one JSON Lines file per episode, written by `gatecrew cos --trace
//! DIR` and read back by `gatecrew analyze`.
//!
//! The construction trace's shape, with the kitchen's own events: every line carries
//! the schema major version `v` ([`KITCHEN_TRACE_VERSION`]), the episode id `ep`, the
//! world's `step` and a `kind`. The kinds, in the order an episode writes them:
//!
//! | kind | step | fields |
//! |---|---|---|
//! | `kitchen_start` | 0 | `level`, `policy`, `agents`, `factor`, `timing`, `interval`, `menu` (dish, lifetime), `kitchen` (location names), `steps`, `seed`, `executor`, `live_model` (a dispatcher over a real model) |
//! | `order_arrived` | the time it arrived | `order`, `dish`, `lifetime` |
//! | `message` | the step decided | `from` (`"dispatcher"` or `{"agent":k}`), `to` (absent: every teammate), `channel` (`board`: `msg` one of the four protocol messages, `item`, `count`, `window`, `into`; `chat`: `line`, `item`, `into`; `dispatch`: `command`), `text` |
//! | `llm_call` | the step decided | `caller`, `prompt_tokens`, `completion_tokens`, `latency_s`, `mistake`, `hit`; a real model's call also `invalid` (its invalid commands) and `fallback` (why the fallback decided the step) |
//! | `action` | the step | `agent`, `action`, `command` (MindAgent's DSL), `applied`, `refusal`, `intended` (when a model mistake replaced it) |
//! | `order_completed`, `order_failed` | the step | `order`, `dish` |
//! | `kitchen_end` | the steps run | `completed`, `failed`, `pending`, `skipped`, `refused`, `counters`, `model` |
//!
//! Why the kitchen has its own start kind (`kitchen_start`, not the construction
//! trace's `episode_start`): a reader tells the two formats apart by the first line,
//! and the construction reader refuses this one as it stands, so no construction trace
//! and no construction reader changes.
//!
//! The trace is written from the episode loop's own values, in a fixed order, with no
//! clock and no map iteration: the same run gives the same bytes. [`read`] checks a
//! trace line by line (errors name the line) and [`fold`] checks that the end's counts
//! are the events' (an edited or spliced trace is refused, naming the line).

mod episode;
pub mod event;
pub mod fold;
pub mod read;
mod record;

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use gatecrew_protocol::replace::{ReplaceError, Replacement};
use gatecrew_protocol::trace::TraceWriter;

pub use episode::KitchenEpisode;
pub use event::{EpisodeId, Event, Record};
pub use fold::{EpisodeFold, FileFold, Folded, Invalid};
pub use read::{KitchenReader, LineErrorKind, TraceLineError, opens_kitchen_trace, parse_line};
pub use record::{Log, StartInfo, episode_id};

/// The schema major version this build writes and reads.
pub const KITCHEN_TRACE_VERSION: u32 = 1;

/// The `kind` of a kitchen trace's first line: how a reader recognises the format.
pub const START_KIND: &str = "kitchen_start";

/// A trace could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct TraceWriteError {
    /// The file or folder.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

/// A folder that receives one `<episode>.jsonl` per episode.
#[derive(Debug, Clone)]
pub struct TraceDir {
    dir: PathBuf,
}

impl TraceDir {
    /// The folder, created if missing.
    pub fn create(dir: &Path) -> Result<Self, TraceWriteError> {
        std::fs::create_dir_all(dir).map_err(|source| TraceWriteError { path: dir.to_path_buf(), source })?;
        Ok(TraceDir { dir: dir.to_path_buf() })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The file episode `ep` is written to, `<dir>/<ep>.jsonl`: written beside it as
    /// `<ep>.jsonl.partial` and renamed over it by [`TraceFile::finish`], so an episode
    /// that fails or is killed leaves the previous trace of that name whole.
    pub fn file(&self, ep: &EpisodeId) -> Result<TraceFile, TraceWriteError> {
        let path = self.dir.join(format!("{ep}.jsonl"));
        let fail = |e: ReplaceError| TraceWriteError { path: path.clone(), source: e.into() };
        let replacement = Replacement::begin(&path).map_err(fail)?;
        let file = replacement.create().map_err(fail)?;
        Ok(TraceFile { out: TraceWriter::new(BufWriter::new(file)), replacement, path, error: None })
    }
}

/// One episode's trace file, written as the episode's events are drained. An I/O error
/// is kept and returned by [`TraceFile::finish`] instead of stopping the episode, so
/// that a traced run and an untraced one are the same run.
pub struct TraceFile {
    out: TraceWriter<BufWriter<File>>,
    replacement: Replacement,
    path: PathBuf,
    error: Option<io::Error>,
}

impl std::fmt::Debug for TraceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceFile").field("path", &self.path).field("error", &self.error).finish()
    }
}

impl TraceFile {
    /// Appends events, in order.
    pub fn write(&mut self, events: &[Record]) {
        for e in events {
            if self.error.is_some() {
                return;
            }
            if let Err(err) = self.out.write(e) {
                self.error = Some(err);
            }
        }
    }

    /// The buffered file, for a writer of the driver's own, and what puts it in place
    /// once that writer has flushed it.
    pub fn into_parts(self) -> (BufWriter<File>, PendingTrace) {
        (self.out.into_inner(), PendingTrace { replacement: self.replacement, path: self.path })
    }

    /// Flushes and puts the trace in place; the first I/O error met, if any, with the
    /// file (the previous trace of the name then stays).
    pub fn finish(mut self) -> Result<(), TraceWriteError> {
        let res = match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        };
        drop(self.out);
        res.and_then(|()| self.replacement.commit().map_err(io::Error::from))
            .map_err(|source| TraceWriteError { path: self.path, source })
    }
}

/// A trace written by someone else's writer ([`TraceFile::into_parts`]), not yet in
/// place: dropped without [`PendingTrace::commit`], the previous trace of the name stays.
#[derive(Debug)]
pub struct PendingTrace {
    replacement: Replacement,
    path: PathBuf,
}

impl PendingTrace {
    /// The trace's file name, once in place.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The writer has flushed the trace: renamed over the file of its name.
    pub fn commit(self) -> Result<(), TraceWriteError> {
        self.replacement.commit().map_err(|e| TraceWriteError { path: self.path, source: e.into() })
    }
}
