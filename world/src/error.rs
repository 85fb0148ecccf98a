//! Errors from loading files: they always name the file, and the line or key at fault.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong while loading a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// The file could not be read.
    Io(String),
    /// The text is not valid JSON or TOML, or has a key that does not exist.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// Item names the game data does not know.
    UnknownItem(String),
    /// Block names the game data does not know (all of them, with their lines).
    UnknownBlocks(Vec<(usize, String)>),
    /// A value that parsed but makes no sense.
    Invalid(String),
}

/// A file that could not be loaded. Nothing was half-loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    file: PathBuf,
    line: Option<usize>,
    key: Option<String>,
    kind: LoadErrorKind,
}

/// The data file's errors are load errors.
pub type DataError = LoadError;
/// The data file's error kinds are load error kinds.
pub type DataErrorKind = LoadErrorKind;

impl LoadError {
    /// An error about a file.
    pub fn new(file: &Path, kind: LoadErrorKind) -> Self {
        let line = match &kind {
            LoadErrorKind::Syntax { line, .. } => Some(*line),
            LoadErrorKind::UnknownBlocks(v) => v.first().map(|(l, _)| *l),
            _ => None,
        };
        LoadError { file: file.to_path_buf(), line, key: None, kind }
    }

    /// Names the key (a dotted path) at fault.
    pub fn at(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Names the line at fault.
    pub fn line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &LoadErrorKind {
        &self.kind
    }

    /// The file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The key, if known.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The 1-based line, if known.
    pub fn line_number(&self) -> Option<usize> {
        self.line
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        match (&self.kind, self.line) {
            // The TOML and JSON parsers already quote the line in their message.
            (LoadErrorKind::Syntax { message, .. }, Some(line)) => {
                return write!(f, ":{line}: {}", message.trim_end());
            }
            // Unknown blocks are all listed with their lines below; the first leads, so
            // that `file:line` points at one of them like every other error.
            (_, Some(line)) => write!(f, ":{line}")?,
            _ => {}
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        match &self.kind {
            LoadErrorKind::Io(e) => write!(f, ": cannot read: {e}"),
            LoadErrorKind::Syntax { message, .. } => write!(f, ": {}", message.trim_end()),
            LoadErrorKind::UnknownItem(e) => write!(f, ": {e}"),
            LoadErrorKind::UnknownBlocks(v) => {
                write!(f, ": {} unknown block name{}:", v.len(), if v.len() == 1 { "" } else { "s" })?;
                for (line, msg) in v {
                    write!(f, "\n  line {line}: {msg}")?;
                }
                Ok(())
            }
            LoadErrorKind::Invalid(e) => write!(f, ": {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// The 1-based line of a byte offset in `text`. Scans from the start: for one error.
/// A loader that asks for many lines uses a [`LineIndex`] (asking this for every
/// `[[block]]` would make loading quadratic; docs/faults.md has what that cost).
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The start of every line of a text, for line numbers in O(log n) each.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text` (one pass).
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line of a byte offset (as [`line_of`]).
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

/// Parses a TOML file's text, its keys counted first
/// ([`gatecrew_protocol::limits::count_keys`]): a file past the limit is refused at the
/// line where the count passed it, before a table is built.
pub fn parse_toml<T: serde::de::DeserializeOwned>(file: &Path, text: &str) -> Result<T, LoadError> {
    parse_toml_within(file, text, gatecrew_protocol::limits::MAX_TOML_KEYS)
}

/// [`parse_toml`] with a bound of its own (blueprints:
/// [`crate::limits::MAX_BLUEPRINT_TOML_NODES`]).
pub fn parse_toml_within<T: serde::de::DeserializeOwned>(file: &Path, text: &str, max: usize) -> Result<T, LoadError> {
    if let Err(e) = gatecrew_protocol::limits::check_toml_keys_within(file, text, max) {
        let message = format!("key `{}`: {}", e.key, e.what());
        return Err(LoadError::new(file, LoadErrorKind::Invalid(message)).line(e.line));
    }
    toml::from_str(text).map_err(|e| toml_error(file, text, &e))
}

/// Turns a TOML parse error into a load error with its line and column.
pub fn toml_error(file: &Path, text: &str, e: &toml::de::Error) -> LoadError {
    let (line, column) = match e.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let line_start = text[..span.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
            (line, span.start - line_start + 1)
        }
        None => (0, 0),
    };
    let message = e.message().to_owned();
    let mut err = LoadError::new(file, LoadErrorKind::Syntax { line, column, message });
    if line == 0 {
        err.line = None;
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_index_agrees_with_counting() {
        for text in ["", "a", "\n", "a\nb\n\nc", "\n\nx\n"] {
            let idx = LineIndex::new(text);
            for off in 0..=text.len() + 2 {
                assert_eq!(idx.line(off), line_of(text, off), "{text:?} at {off}");
            }
        }
    }
}
