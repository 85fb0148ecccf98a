//! Walking a task file's top-level entries one at a time.
//!
//! MindCraft's generated train and test files hold hundreds of tasks in tens of MB;
//! parsed whole into a `serde_json::Value` such a file takes several times its size in
//! memory. The walker streams the file through serde_json's deserializer and hands each
//! top-level entry (a key of the top object, or an element of the top list) to a
//! callback as its own `Value`, which is dropped before the next one is read: memory is
//! bounded by the largest single task, not by the file.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{TaskError, TaskErrorKind};

/// Where a task file's text comes from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// Read from disk each time it is walked.
    File(PathBuf),
    /// Held in memory: text given to [`crate::TaskFile::parse`], or a pipe, FIFO or
    /// terminal read once, since it cannot be read again.
    Text(Arc<str>),
}

impl Source {
    /// A regular file is streamed from disk each time it is walked; anything else (a
    /// FIFO, `/dev/stdin`, a pipe) can be read only once, so it is read here, through
    /// the size limit, and kept.
    pub(crate) fn open(path: &Path) -> Result<Source, TaskError> {
        let io = |e: std::io::Error| TaskError::new(path, TaskErrorKind::Io(e.to_string()));
        if std::fs::metadata(path).map_err(io)?.is_file() {
            return Ok(Source::File(path.to_path_buf()));
        }
        let limit = max_task_file_bytes();
        let mut bytes = Vec::new();
        open_capped(path)?.read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(TaskError::new(path, TaskErrorKind::TooLarge { limit }));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            TaskError::new(path, TaskErrorKind::NotUtf8 { offset: e.utf8_error().valid_up_to() as u64 })
        })?;
        Ok(Source::Text(Arc::from(text)))
    }
}

/// The shape of the top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Top {
    /// `{ "id": task, ... }`
    Object,
    /// `[ task, ... ]`
    Array,
}

/// One top-level entry: its key (for an object), its ordinal, its value.
pub(crate) type Visit<'f> = dyn FnMut(Option<String>, usize, Value) + 'f;

struct Walk<'f, 'g> {
    f: &'g mut Visit<'f>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = Top;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Top, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of tasks or a list of tasks")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Top, A::Error> {
        let mut i = 0;
        while let Some(k) = m.next_key::<String>()? {
            let v: Value = m.next_value()?;
            (self.f)(Some(k), i, v);
            i += 1;
        }
        Ok(Top::Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Top, A::Error> {
        let mut i = 0;
        while let Some(v) = s.next_element::<Value>()? {
            (self.f)(None, i, v);
            i += 1;
        }
        Ok(Top::Array)
    }
}

fn syntax(path: &Path, e: &serde_json::Error) -> TaskError {
    if e.is_io() {
        return TaskError::new(path, TaskErrorKind::Io(e.to_string()));
    }
    // serde_json appends " at line L column C"; the kind carries both.
    let text = e.to_string();
    let message = text.rsplit_once(" at line ").map_or(text.as_str(), |(m, _)| m).to_owned();
    if e.is_data() {
        return TaskError::new(
            path,
            TaskErrorKind::Unrecognised(format!("the top level is neither an object nor a list ({message})")),
        );
    }
    TaskError::new(path, TaskErrorKind::Syntax { line: e.line(), column: e.column(), message })
}

/// The default for [`max_task_file_bytes`]. Memory is bounded by the largest task
/// (the file is streamed), but time is not: a file that never ends (`/dev/zero`, a
/// FIFO) would be read forever. MindCraft's generated train and test sets are tens of
/// MB, the largest shared file 210 KB; 256 MiB is ten times the former and takes a few
/// seconds to walk.
pub const DEFAULT_MAX_TASK_FILE_BYTES: u64 = 256 << 20;
/// The variable that overrides [`DEFAULT_MAX_TASK_FILE_BYTES`].
pub const MAX_TASK_FILE_BYTES_VAR: &str = "GATECREW_MAX_TASK_FILE_BYTES";

/// The longest task file read, in bytes.
pub fn max_task_file_bytes() -> u64 {
    let n = gatecrew_protocol::limits::env_limit(MAX_TASK_FILE_BYTES_VAR, DEFAULT_MAX_TASK_FILE_BYTES);
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The file, read through the limit: the parser stops at `limit + 1` bytes even if the
/// file grew after it was checked.
fn open_capped(path: &Path) -> Result<std::io::Take<File>, TaskError> {
    let file = File::open(path).map_err(|e| TaskError::new(path, TaskErrorKind::Io(e.to_string())))?;
    Ok(file.take(max_task_file_bytes().saturating_add(1)))
}

/// Checks that a file is UTF-8 and within [`max_task_file_bytes`], reading it in
/// blocks; the error names the byte offset of the first bad byte.
fn check_utf8(path: &Path) -> Result<(), TaskError> {
    let io = |e: std::io::Error| TaskError::new(path, TaskErrorKind::Io(e.to_string()));
    let limit = max_task_file_bytes();
    let mut f = open_capped(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut carry, mut offset) = (0usize, 0u64);
    loop {
        let n = f.read(&mut buf[carry..]).map_err(io)?;
        let len = carry + n;
        match std::str::from_utf8(&buf[..len]) {
            Ok(_) => carry = 0,
            Err(e) if e.error_len().is_none() && n > 0 => {
                // A sequence cut by the block boundary: keep its bytes for the next read.
                let good = e.valid_up_to();
                buf.copy_within(good..len, 0);
                carry = len - good;
                offset += good as u64;
                continue;
            }
            Err(e) => {
                let at = offset + e.valid_up_to() as u64;
                return Err(TaskError::new(path, TaskErrorKind::NotUtf8 { offset: at }));
            }
        }
        if n == 0 {
            return Ok(());
        }
        offset += len as u64;
        if offset > limit {
            return Err(TaskError::new(path, TaskErrorKind::TooLarge { limit }));
        }
    }
}

/// A reader that counts the bytes it hands out.
struct Counted<R> {
    inner: R,
    n: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.n += n as u64;
        Ok(n)
    }
}

/// Parses a file in one pass through the size limit. The UTF-8 check, which names the
/// offset of a bad byte, runs only when the parse failed, to say why: a file that reads
/// is read once (a pipe can be checked).
fn parse_file<T>(
    p: &Path,
    path: &Path,
    parse: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::IoRead<&mut Counted<BufReader<std::io::Take<File>>>>>,
    ) -> Result<T, serde_json::Error>,
) -> Result<T, TaskError> {
    let limit = max_task_file_bytes();
    let mut counted = Counted { inner: BufReader::new(open_capped(p)?), n: 0 };
    let result = {
        let mut de = serde_json::Deserializer::from_reader(&mut counted);
        parse(&mut de).and_then(|v| de.end().map(|()| v))
    };
    if counted.n > limit {
        return Err(TaskError::new(path, TaskErrorKind::TooLarge { limit }));
    }
    result.map_err(|e| match check_utf8(p) {
        Err(bad) if !matches!(bad.kind(), TaskErrorKind::Io(_)) => bad,
        _ => syntax(path, &e),
    })
}

/// Walks every top-level entry of `source`.
pub(crate) fn walk(source: &Source, path: &Path, f: &mut Visit<'_>) -> Result<Top, TaskError> {
    match source {
        Source::Text(t) => {
            let mut de = serde_json::Deserializer::from_str(t);
            let top = Walk { f }.deserialize(&mut de).map_err(|e| syntax(path, &e))?;
            de.end().map_err(|e| syntax(path, &e))?;
            Ok(top)
        }
        Source::File(p) => parse_file(p, path, |de| Walk { f }.deserialize(de)),
    }
}

/// The whole document as one value (a bare raw blueprint is one task).
pub(crate) fn whole(source: &Source, path: &Path) -> Result<Value, TaskError> {
    match source {
        Source::Text(t) => serde_json::from_str(t).map_err(|e| syntax(path, &e)),
        Source::File(p) => parse_file(p, path, |de| Value::deserialize(de)),
    }
}
