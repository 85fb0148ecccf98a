//! Errors from reading CuisineWorld's level and recipe files. Each names the file and,
//! for a fault inside the JSON, the JSON path of the fault:
//! `recipe.json: $.salmonSushi.location: unknown tool "wok" (known: storage, ...)`.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    Io(String),
    /// Not JSON.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A value at a JSON path that cannot be used: an unknown key, a missing field, a
    /// wrong type, an unknown tool or item, a dish no recipe makes.
    At {
        /// The JSON path (`$.level_0.task_list.salmonMeatcake.task_lifetime`).
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// The file holds no level of this name.
    NoSuchLevel {
        /// The name asked for.
        name: String,
        /// The names the file holds.
        known: Vec<String>,
    },
}

/// A level or recipe file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}", file.display(), Detail(kind))]
pub struct Error {
    file: PathBuf,
    kind: ErrorKind,
}

struct Detail<'a>(&'a ErrorKind);

impl fmt::Display for Detail<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ErrorKind::Io(e) => write!(f, ": cannot read: {e}"),
            ErrorKind::Syntax { line, column, message } => write!(f, ":{line}:{column}: {message}"),
            ErrorKind::At { path, message } => write!(f, ": {path}: {message}"),
            ErrorKind::NoSuchLevel { name, known } => {
                write!(f, ": no level \"{name}\"; the file holds {}", known.join(", "))
            }
        }
    }
}

impl Error {
    /// An error about a file.
    pub fn new(file: &Path, kind: ErrorKind) -> Self {
        Error { file: file.to_path_buf(), kind }
    }

    /// An error at a JSON path of a file.
    pub fn at(file: &Path, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(file, ErrorKind::At { path: path.into(), message: message.into() })
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The JSON path of the fault, when there is one.
    pub fn json_path(&self) -> Option<&str> {
        match &self.kind {
            ErrorKind::At { path, .. } => Some(path),
            _ => None,
        }
    }
}
