//! Errors from reading a task file. Each names the file and, for a fault inside the
//! JSON, the JSON path of the fault: `pyramid.json: $.pyramid.blueprint.levels[2]:
//! missing field "coordinates"`.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskErrorKind {
    /// The file could not be read.
    Io(String),
    /// The file is not UTF-8 (JSON must be).
    NotUtf8 {
        /// Offset of the first byte that is not UTF-8.
        offset: u64,
    },
    /// The file is longer than [`crate::max_task_file_bytes`] (read up to the limit).
    TooLarge {
        /// The limit that was crossed, in bytes.
        limit: u64,
    },
    /// Not JSON.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A value at a JSON path that cannot be used.
    At {
        /// The JSON path (`$.task.blueprint.levels[0]`).
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// Every unknown block or item name (and unreadable block state), with its path.
    UnknownNames(Vec<(String, String)>),
    /// The file holds no task of this id.
    NoSuchTask {
        /// The id asked for.
        id: String,
        /// The ids the file holds.
        known: Vec<String>,
    },
    /// The file holds several tasks and none was picked.
    Several(Vec<String>),
    /// The content is none of the formats this crate reads.
    Unrecognised(String),
    /// The task is read but cannot be run (it names the task's coordinates).
    Invalid(String),
}

/// A task file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskError {
    file: PathBuf,
    kind: TaskErrorKind,
}

impl TaskError {
    /// An error about a file.
    pub fn new(file: &Path, kind: TaskErrorKind) -> Self {
        TaskError { file: file.to_path_buf(), kind }
    }

    /// An error at a JSON path.
    pub fn at(file: &Path, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(file, TaskErrorKind::At { path: path.into(), message: message.into() })
    }

    /// What went wrong.
    pub fn kind(&self) -> &TaskErrorKind {
        &self.kind
    }

    /// The file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The JSON path of the fault, when there is one.
    pub fn json_path(&self) -> Option<&str> {
        match &self.kind {
            TaskErrorKind::At { path, .. } => Some(path),
            _ => None,
        }
    }
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        match &self.kind {
            TaskErrorKind::Io(e) => write!(f, ": cannot read: {e}"),
            TaskErrorKind::NotUtf8 { offset } => write!(f, ": not UTF-8 text: byte {offset} starts no UTF-8 character"),
            TaskErrorKind::TooLarge { limit } => write!(
                f,
                ": larger than {limit} bytes (the limit; set {} for more)",
                crate::index::MAX_TASK_FILE_BYTES_VAR
            ),
            TaskErrorKind::Syntax { line, column, message } => write!(f, ":{line}:{column}: {message}"),
            TaskErrorKind::At { path, message } => write!(f, ": {path}: {message}"),
            TaskErrorKind::UnknownNames(v) => {
                write!(f, ": {} unknown name{}:", v.len(), if v.len() == 1 { "" } else { "s" })?;
                for (path, msg) in v {
                    write!(f, "\n  {path}: {msg}")?;
                }
                Ok(())
            }
            TaskErrorKind::NoSuchTask { id, known } => {
                write!(f, ": no task \"{id}\"; the file holds {}", some(known))
            }
            TaskErrorKind::Several(ids) => {
                write!(f, ": {} tasks ({}); pick one with --task-id", ids.len(), some(ids))
            }
            TaskErrorKind::Unrecognised(why) => write!(f, ": not a MineCollab or VillagerBench task file: {why}"),
            TaskErrorKind::Invalid(why) => write!(f, ": {why}"),
        }
    }
}

impl std::error::Error for TaskError {}

/// The first ids of a list, and how many more there are: a file of 675 tasks is listed
/// as a table, not in one error line.
fn some(ids: &[String]) -> String {
    const SHOWN: usize = 12;
    if ids.len() <= SHOWN {
        ids.join(", ")
    } else {
        format!("{}, ... and {} more", ids[..SHOWN].join(", "), ids.len() - SHOWN)
    }
}
