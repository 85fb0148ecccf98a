//! Reading a kitchen trace one line at a time, in constant memory: each line's bytes are
//! capped (`GATECREW_MAX_LINE_BYTES`, as for construction traces), checked for UTF-8,
//! for the schema version and then read as a [`Record`]. Every error names its line.

use std::io::BufRead;

use gatecrew_protocol::limits::{Line, max_line_bytes, read_line_capped};
use serde::Deserialize;

use super::KITCHEN_TRACE_VERSION;
use super::event::Record;

/// A kitchen trace line that cannot be used, and its 1-based line number.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct TraceLineError {
    /// The line.
    pub line: u64,
    /// What is wrong with it.
    pub kind: LineErrorKind,
}

impl TraceLineError {
    /// Whether reading can go on past this error: only a truncated last line (what a
    /// crash leaves) qualifies.
    pub fn is_recoverable(&self) -> bool {
        matches!(self.kind, LineErrorKind::Truncated { .. })
    }
}

/// What is wrong with a line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LineErrorKind {
    /// Reading failed.
    #[error("read error: {0}")]
    Io(std::io::Error),
    /// Longer than the limit (read past, never held).
    #[error("the line is {bytes} bytes, more than the limit of {max} (set {var} for more)", var = gatecrew_protocol::limits::MAX_LINE_BYTES_VAR)]
    TooLong {
        /// Its length.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// Not UTF-8.
    #[error("not UTF-8 at byte {0} of the line")]
    NotUtf8(usize),
    /// Written by another major version.
    #[error("kitchen trace schema version {0} is not supported (this build reads version {KITCHEN_TRACE_VERSION})")]
    UnsupportedVersion(u64),
    /// Not a kitchen trace event (the JSON parser's or the schema's reason).
    #[error("malformed kitchen event: {0}")]
    Malformed(String),
    /// The last line has no newline and does not parse: the writer stopped mid-line.
    #[error("truncated last line ({bytes} bytes), skipped")]
    Truncated {
        /// Its length.
        bytes: usize,
    },
    /// A well-formed event that does not fit the episode around it.
    #[error("{0}")]
    Invalid(#[from] super::fold::Invalid),
}

/// Streams [`Record`]s with their line numbers.
#[derive(Debug)]
pub struct KitchenReader<R: BufRead> {
    input: R,
    line: u64,
    max: usize,
    done: bool,
}

/// Only the version, read first so that another version is named as such rather than
/// as whatever field it no longer has.
#[derive(Deserialize)]
struct Head {
    v: u64,
}

impl<R: BufRead> KitchenReader<R> {
    /// Wraps a buffered reader.
    pub fn new(input: R) -> Self {
        KitchenReader { input, line: 0, max: max_line_bytes(), done: false }
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    fn err(&self, kind: LineErrorKind) -> TraceLineError {
        TraceLineError { line: self.line, kind }
    }
}

/// One line's text as a record.
pub fn parse_line(text: &str) -> Result<Record, LineErrorKind> {
    let head: Head = serde_json::from_str(text).map_err(|e| LineErrorKind::Malformed(e.to_string()))?;
    if head.v != u64::from(KITCHEN_TRACE_VERSION) {
        return Err(LineErrorKind::UnsupportedVersion(head.v));
    }
    serde_json::from_str(text).map_err(|e| LineErrorKind::Malformed(e.to_string()))
}

impl<R: BufRead> Iterator for KitchenReader<R> {
    type Item = Result<(u64, Record), TraceLineError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let (bytes, complete) = match read_line_capped(&mut self.input, self.max) {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Ok(Some(Line::Text(b))) => (b, true),
                Ok(Some(Line::Unterminated(b))) => (b, false),
                Ok(Some(Line::TooLong(bytes))) => {
                    self.line += 1;
                    return Some(Err(self.err(LineErrorKind::TooLong { bytes, max: self.max })));
                }
                Err(e) => {
                    self.line += 1;
                    self.done = true;
                    return Some(Err(self.err(LineErrorKind::Io(e))));
                }
            };
            self.line += 1;
            let text = match std::str::from_utf8(&bytes) {
                Ok(t) => t,
                Err(e) => return Some(Err(self.err(LineErrorKind::NotUtf8(e.valid_up_to() + 1)))),
            };
            if text.trim().is_empty() {
                continue;
            }
            return Some(match parse_line(text) {
                Ok(r) => Ok((self.line, r)),
                Err(_) if !complete => Err(self.err(LineErrorKind::Truncated { bytes: bytes.len() })),
                Err(kind) => Err(self.err(kind)),
            });
        }
    }
}

/// Whether `first` (a file's first non-blank line) opens a kitchen trace: a JSON object
/// whose `kind` is `kitchen_start`, whatever else is wrong with it (so that the kitchen
/// reader, not the construction one, reports what is).
pub fn opens_kitchen_trace(first: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(borrow)]
        kind: Option<&'a str>,
    }
    serde_json::from_slice::<Kind<'_>>(first).is_ok_and(|k| k.kind == Some(super::START_KIND))
}
