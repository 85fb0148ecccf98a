//! Streaming trace reading.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{TraceError, TraceReader};

/// Why traces could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// A path could not be opened or listed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A trace line is not valid (names the file and the line).
    #[error("{path}:{line}: {message}")]
    Trace {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// Nothing to analyse.
    #[error("no .jsonl traces found in {0}")]
    Empty(String),
}

/// What was read.
#[derive(Debug, Default)]
pub struct ReadSummary {
    /// One entry per episode, in file order.
    pub episodes: Vec<EpisodeMetrics>,
    /// Files read.
    pub files: usize,
    /// Bytes read.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Recoverable problems (truncated tails), as `file:line: message`.
    pub warnings: Vec<String>,
}

pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), AnalyzeError> {
    let meta = std::fs::metadata(path).map_err(|source| AnalyzeError::Io { path: path.into(), source })?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|source| AnalyzeError::Io { path: path.into(), source })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "jsonl") {
            out.push(e);
        }
    }
    Ok(())
}

/// Reads every trace under the given files and folders.
pub fn read_traces(paths: &[PathBuf]) -> Result<ReadSummary, AnalyzeError> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    if files.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(AnalyzeError::Empty(names.join(", ")));
    }
    let mut sum = ReadSummary { files: files.len(), ..ReadSummary::default() };
    for path in files {
        let file = File::open(&path).map_err(|source| AnalyzeError::Io { path: path.clone(), source })?;
        sum.bytes += file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut current: Option<EpisodeMetrics> = None;
        let mut reader = TraceReader::new(BufReader::with_capacity(1 << 16, file));
        for item in reader.by_ref() {
            match item {
                Ok(ev) => {
                    // A file may hold several episodes one after another.
                    if current.as_ref().is_some_and(|m| !m.episode.is_empty() && m.episode != ev.ep) {
                        sum.episodes.extend(current.take());
                    }
                    current.get_or_insert_with(EpisodeMetrics::default).observe(&ev);
                }
                Err(e @ TraceError::Truncated { .. }) => {
                    sum.warnings.push(format!("{}:{}: {}", path.display(), e.line(), without_line(&e)));
                }
                Err(e) => {
                    return Err(AnalyzeError::Trace { path: path.clone(), line: e.line(), message: without_line(&e) });
                }
            }
        }
        sum.lines += reader.lines_read();
        if let Some(m) = current.take() {
            if m.end_reason.is_none() {
                sum.warnings.push(format!(
                    "{}: episode {} has no episode_end (cut short); its figures are partial",
                    path.display(),
                    m.episode
                ));
            }
            sum.episodes.push(m);
        }
    }
    Ok(sum)
}

/// The error's message without its "line N: " prefix (the caller puts `file:line` first).
fn without_line(e: &TraceError) -> String {
    let text = e.to_string();
    let prefix = format!("line {}: ", e.line());
    text.strip_prefix(&prefix).map(str::to_owned).unwrap_or(text)
}
