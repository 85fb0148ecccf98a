//! Streaming trace reading.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{TraceError, TraceReader};
use rayon::prelude::*;

mod collect;
pub(crate) use collect::collect_all;

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
    /// Traces were found, but not one complete episode in them.
    #[error("no complete episode in {files} trace file(s):{}", warnings.iter().map(|w| format!("\n  {w}")).collect::<String>())]
    NoComplete {
        /// Files read.
        files: usize,
        /// Why each was left out.
        warnings: Vec<String>,
    },
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
    /// Recoverable problems (truncated tails, empty traces, episodes cut short, files
    /// that are not traces), as `file[:line]: message`.
    pub warnings: Vec<String>,
    /// Episodes and files left out of the figures (each has a warning).
    pub left_out: usize,
    /// Kitchen episodes (`gatecrew cos --trace`), in file order; not counted above.
    pub kitchen: Vec<gatecrew_kitchen::trace::KitchenEpisode>,
    /// Kitchen trace files read (not counted in `files`).
    pub kitchen_files: usize,
    /// Their bytes (not counted in `bytes`).
    pub kitchen_bytes: u64,
    /// Their lines (not counted in `lines`).
    pub kitchen_lines: u64,
}

/// Reads every trace under the given files and folders: the files on every core (rayon's
/// pool; `RAYON_NUM_THREADS=1` for one), merged in file order, so the result, its
/// warnings and the first error are those of reading them one after another.
pub fn read_traces(paths: &[PathBuf]) -> Result<ReadSummary, AnalyzeError> {
    let files = collect_all(paths)?;
    if files.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(AnalyzeError::Empty(names.join(", ")));
    }
    let read: Vec<Result<ReadSummary, AnalyzeError>> =
        files.par_iter().map(|(path, named)| read_file(path, *named)).collect();
    let mut sum = ReadSummary { files: files.len(), ..ReadSummary::default() };
    for one in read {
        let one = one?;
        sum.bytes = sum.bytes.saturating_add(one.bytes);
        sum.lines = sum.lines.saturating_add(one.lines);
        sum.episodes.extend(one.episodes);
        sum.warnings.extend(one.warnings);
        sum.left_out = sum.left_out.saturating_add(one.left_out);
        sum.kitchen.extend(one.kitchen);
        sum.kitchen_files = sum.kitchen_files.saturating_add(one.kitchen_files);
        sum.kitchen_bytes = sum.kitchen_bytes.saturating_add(one.kitchen_bytes);
        sum.kitchen_lines = sum.kitchen_lines.saturating_add(one.kitchen_lines);
    }
    // A kitchen file was counted once as a file like any other; its own counts say so.
    sum.files = sum.files.saturating_sub(sum.kitchen_files);
    if sum.episodes.is_empty() && sum.kitchen.is_empty() {
        return Err(AnalyzeError::NoComplete { files: sum.files, warnings: sum.warnings });
    }
    Ok(sum)
}

/// Reads one file, in constant memory but for its episodes' counts.
fn read_file(path: &Path, named: bool) -> Result<ReadSummary, AnalyzeError> {
    let mut sum = ReadSummary { files: 1, ..ReadSummary::default() };
    let io = |source| AnalyzeError::Io { path: path.to_path_buf(), source };
    let (file, read) = Counted::new(File::open(path).map_err(io)?);
    // Opened once and its first line looked at in the stream: a FIFO or a pipe can be
    // read only once, whichever reader it turns out to need.
    let (kitchen, stream) = crate::kitchen::sniff(file).map_err(io)?;
    if kitchen {
        let mut sum = ReadSummary::default();
        crate::kitchen::read_stream(path, stream, &mut sum)?;
        sum.kitchen_bytes = read.get();
        return Ok(sum);
    }
    let foreign = !named && not_a_trace(stream.get_ref().0.get_ref());
    let mut current: Option<EpisodeMetrics> = None;
    let mut events = 0u64;
    let mut skipped = false;
    let mut reader = TraceReader::new(BufReader::with_capacity(1 << 16, stream));
    // Briefs, not events: a line in the writer's form is scanned where it lies, with no
    // allocation; the metrics and the errors are those of the events.
    while let Some(item) = reader.next_brief() {
        match item {
            Ok(ev) => {
                events = events.saturating_add(1);
                // A file may hold several episodes one after another.
                if current.as_ref().is_some_and(|m| !m.episode.is_empty() && m.episode != ev.ep) {
                    if let Some(m) = current.take() {
                        finish(&mut sum, path, m);
                    }
                }
                current.get_or_insert_with(EpisodeMetrics::default).observe_brief(&ev);
            }
            Err(e @ TraceError::Truncated { .. }) => {
                sum.warnings.push(format!("{}:{}: {}", path.display(), e.line(), without_line(&e)));
            }
            // A JSON Lines file found in a folder that is no trace at all (calibrate's
            // points.jsonl under runs/): skipped with a word, not a failure.
            Err(_) if foreign && events == 0 => {
                skipped = true;
                sum.warnings.push(format!("{}: not a trace (no event on its first line), skipped", path.display()));
                sum.left_out = sum.left_out.saturating_add(1);
                break;
            }
            Err(e) => {
                return Err(AnalyzeError::Trace {
                    path: path.to_path_buf(),
                    line: e.line(),
                    message: without_line(&e),
                });
            }
        }
    }
    sum.lines = reader.lines_read();
    let len = read.get();
    sum.bytes = len;
    if let Some(m) = current.take() {
        finish(&mut sum, path, m);
    } else if !skipped {
        let what = if len == 0 { "empty trace (0 bytes)".to_owned() } else { format!("no events in {len} bytes") };
        sum.warnings.push(format!("{}: {what}, left out of the figures", path.display()));
        sum.left_out = sum.left_out.saturating_add(1);
    }
    Ok(sum)
}

/// An episode read to its end: into the figures if it has its `episode_end`, else left
/// out with a warning (a run cut short would pull every figure toward zero).
fn finish(sum: &mut ReadSummary, path: &Path, m: EpisodeMetrics) {
    if m.end_reason.is_none() {
        sum.warnings.push(format!(
            "{}: episode {} has no episode_end (cut short), left out of the figures",
            path.display(),
            m.episode
        ));
        sum.left_out = sum.left_out.saturating_add(1);
    } else {
        sum.episodes.push(m);
    }
}

/// Whether the first non-blank line of a file's first bytes (`head`, as [`sniff`]
/// read them) is JSON with neither `ep` nor `kind`: another tool's JSON Lines, not a
/// damaged trace.
///
/// [`sniff`]: crate::kitchen::sniff
fn not_a_trace(head: &[u8]) -> bool {
    let Some(line) = head.split(|&b| b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)) else {
        return false;
    };
    serde_json::from_slice::<serde_json::Value>(line)
        .is_ok_and(|v| v.is_object() && v.get("ep").is_none() && v.get("kind").is_none())
}

/// The error's message without its "line N: " prefix (the caller puts `file:line` first).
fn without_line(e: &TraceError) -> String {
    let text = e.to_string();
    let prefix = format!("line {}: ", e.line());
    text.strip_prefix(&prefix).map(str::to_owned).unwrap_or(text)
}

/// A reader that counts the bytes it passes on: the size of a FIFO or a pipe, which no
/// metadata tells.
pub(crate) struct Counted<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R> Counted<R> {
    /// `inner`, and the count of what has been read through it.
    pub(crate) fn new(inner: R) -> (Self, std::rc::Rc<std::cell::Cell<u64>>) {
        let read = std::rc::Rc::new(std::cell::Cell::new(0));
        (Counted { inner, read: std::rc::Rc::clone(&read) }, read)
    }
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get().saturating_add(n as u64));
        Ok(n)
    }
}
