//! `gatecrew export`: traces out to columnar files for DuckDB, polars and pandas.
//!
//! Two tables go into the output folder, each as one Parquet or CSV file:
//! - `episodes`: one row per episode with the summary counts that `gatecrew analyze`
//!   pools (the same [`EpisodeMetrics`] fold, so the figures agree by construction);
//! - `events`: one wide row per trace event with typed, nullable columns (ticks and ids
//!   as integers, the gate's features as small integers), the columns a kind does not
//!   use left null.
//!
//! Every row of both tables carries the episode's policy, class, seed and split, so a
//! query never needs a join to group. Reading streams: events are appended to column
//! builders and written out every [`BATCH_ROWS`] rows, so memory stays flat whatever
//! the size of the traces.

mod episodes;
mod events;
mod sink;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{Event, EventKind, TraceError, TraceReader};

use crate::read::collect_all;
pub use sink::Format;

/// Rows buffered per table before a batch is written.
pub const BATCH_ROWS: usize = 8192;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The traces could not be read: the same errors, and messages, as `analyze`'s.
    #[error(transparent)]
    Read(#[from] crate::AnalyzeError),
    /// An output folder or file could not be created.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An output table could not be replaced (another export is writing it, or the
    /// rename failed).
    #[error(transparent)]
    Output(Box<gatecrew_protocol::replace::ReplaceError>),
    /// Writing an output table failed.
    #[error("writing {path}: {message}")]
    Write {
        /// The output file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// What an export wrote.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ExportSummary {
    /// Trace files read.
    pub files: usize,
    /// Bytes of trace read.
    pub bytes: u64,
    /// Episodes (rows of the episodes table).
    pub episodes: u64,
    /// Events (rows of the events table).
    pub events: u64,
    /// The files written.
    pub outputs: Vec<PathBuf>,
    /// Recoverable problems (truncated tails, episodes without an end), as `file:line: message`.
    pub warnings: Vec<String>,
}

/// What `episode_start` says about an episode: the labels every row carries.
#[derive(Debug, Clone, Default)]
pub(crate) struct Labels {
    pub ep: String,
    pub policy: Option<String>,
    pub class: Option<String>,
    pub seed: Option<u64>,
    pub split: Option<String>,
    pub template: Option<String>,
    pub blueprint: Option<String>,
    pub config_hash: Option<String>,
    pub blueprint_blocks: Option<u32>,
    pub correct_blocks: Option<u32>,
}

impl Labels {
    fn observe(&mut self, ev: &Event) {
        match &ev.kind {
            EventKind::EpisodeStart {
                policy,
                seed,
                config_hash,
                blueprint_blocks,
                class,
                template,
                split,
                blueprint,
                ..
            } => {
                *self = Labels {
                    ep: ev.ep.clone(),
                    policy: Some(policy.as_str().to_owned()),
                    class: class.map(|c| c.as_str().to_owned()),
                    seed: Some(*seed),
                    split: split.map(|s| s.as_str().to_owned()),
                    template: template.clone(),
                    blueprint: blueprint.clone(),
                    config_hash: Some(config_hash.clone()),
                    blueprint_blocks: Some(*blueprint_blocks),
                    correct_blocks: None,
                };
            }
            EventKind::EpisodeEnd { correct_blocks, .. } => self.correct_blocks = Some(*correct_blocks),
            _ => {}
        }
        if self.ep.is_empty() {
            self.ep = ev.ep.clone();
        }
    }
}

/// One episode being read.
struct Current {
    labels: Labels,
    metrics: EpisodeMetrics,
    file: PathBuf,
}

/// Exports every trace under `paths` (files or folders, walked in sorted order) into
/// the folder `out` as `episodes.<ext>` and `events.<ext>`.
pub fn export(paths: &[PathBuf], format: Format, out: &Path) -> Result<ExportSummary, ExportError> {
    let files: Vec<PathBuf> = collect_all(paths)?.into_iter().map(|(p, _)| p).collect();
    if files.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(crate::AnalyzeError::Empty(names.join(", ")).into());
    }
    std::fs::create_dir_all(out).map_err(|source| ExportError::Io { path: out.into(), source })?;
    let ep_path = out.join(format!("episodes.{}", format.extension()));
    let ev_path = out.join(format!("events.{}", format.extension()));
    let mut episodes = episodes::Table::new(format, &ep_path)?;
    let mut events = events::Table::new(format, &ev_path)?;
    let mut sum = ExportSummary { files: files.len(), ..ExportSummary::default() };
    for path in files {
        let io = |source| crate::AnalyzeError::Io { path: path.clone(), source };
        let (file, read) = crate::read::Counted::new(File::open(&path).map_err(io)?);
        // Its first line told in the stream, so a FIFO or a pipe is opened once.
        let (kitchen, stream) = crate::kitchen::sniff(file).map_err(io)?;
        if kitchen {
            // The tables' columns are construction events'; a kitchen trace in the same
            // folder is named and left out rather than failing the export.
            sum.warnings
                .push(format!("{}: a kitchen trace, not exported (gatecrew analyze reports it)", path.display()));
            continue;
        }
        let mut current: Option<Current> = None;
        let mut reader = TraceReader::new(BufReader::with_capacity(1 << 16, stream));
        for item in reader.by_ref() {
            let ev = match item {
                Ok(ev) => ev,
                Err(e @ TraceError::Truncated { .. }) => {
                    sum.warnings.push(format!("{}:{}: {}", path.display(), e.line(), e));
                    continue;
                }
                Err(e) => {
                    let message = e.to_string();
                    let prefix = format!("line {}: ", e.line());
                    let message = message.strip_prefix(&prefix).map(str::to_owned).unwrap_or(message);
                    return Err(crate::AnalyzeError::Trace { path: path.clone(), line: e.line(), message }.into());
                }
            };
            // A file may hold several episodes one after another.
            if current.as_ref().is_some_and(|c| !c.labels.ep.is_empty() && c.labels.ep != ev.ep) {
                if let Some(c) = current.take() {
                    finish(c, &mut episodes, &mut sum)?;
                }
            }
            let c = current.get_or_insert_with(|| Current {
                labels: Labels::default(),
                metrics: EpisodeMetrics::default(),
                file: path.clone(),
            });
            c.labels.observe(&ev);
            c.metrics.observe(&ev);
            events.push(&c.labels, &ev)?;
            sum.events += 1;
        }
        sum.bytes += read.get();
        if let Some(c) = current.take() {
            finish(c, &mut episodes, &mut sum)?;
        }
    }
    // Both tables are whole before either replaces its previous file.
    let (episodes, events) = (episodes.close()?, events.close()?);
    for table in [episodes, events] {
        table.commit().map_err(|e| ExportError::Output(Box::new(e)))?;
    }
    sum.outputs = vec![ep_path, ev_path];
    if format == Format::Csv {
        let schema =
            sink::schema_json(&[("episodes", &episodes::Columns::schema()), ("events", &events::Columns::schema())]);
        let path = out.join("schema.json");
        let text = serde_json::to_vec_pretty(&schema).map_err(|e| sink::write_err(&path, e))?;
        gatecrew_protocol::replace::replace(&path, &text).map_err(|e| ExportError::Output(Box::new(e)))?;
        sum.outputs.push(path);
    }
    Ok(sum)
}

fn finish(c: Current, episodes: &mut episodes::Table, sum: &mut ExportSummary) -> Result<(), ExportError> {
    if c.metrics.end_reason.is_none() {
        sum.warnings.push(format!(
            "{}: episode {} has no episode_end (cut short); its figures are partial",
            c.file.display(),
            c.labels.ep
        ));
    }
    episodes.push(&c.labels, &c.metrics, &c.file)?;
    sum.episodes += 1;
    Ok(())
}
