//! Output files replaced whole. Every file a command writes (a trace, export tables,
//! calibrate's results, the best gate, a plot) is written as `NAME.partial` in the same
//! folder and renamed over `NAME` only when complete and on disk, so an error, a signal,
//! a crash or a full disk leaves the previous `NAME` as it was. While one process
//! writes `NAME` it holds a lock on `NAME.lock`; a second writer of the same path is
//! refused at once, told which process holds it, instead of writing into the same
//! `.partial`. The lock is the kernel's (`flock`), so a writer that was killed holds
//! nothing: its `.lock` file is taken over by the next.
//!
//! A target that exists and is not a regular file (`/dev/null`, a pipe, a terminal)
//! cannot be replaced by a rename and is written directly.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

/// Why an output file could not be replaced.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplaceError {
    /// Another process is writing the same file.
    #[error("{path} is being written by another process ({holder}); wait for it or choose another output")]
    Held {
        /// The output file.
        path: PathBuf,
        /// Who holds its lock, as that process wrote it in the lock file.
        holder: String,
    },
    /// Reading or writing the file, its `.partial` or its `.lock` failed.
    #[error("{path}: {source}")]
    Io {
        /// The file the operation was on.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
}

impl From<ReplaceError> for io::Error {
    fn from(e: ReplaceError) -> Self {
        let kind = match &e {
            ReplaceError::Held { .. } => io::ErrorKind::ResourceBusy,
            ReplaceError::Io { source, .. } => source.kind(),
        };
        io::Error::new(kind, e)
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ReplaceError + '_ {
    move |source| ReplaceError::Io { path: path.to_path_buf(), source }
}

/// `NAME` -> `NAME.suffix` in the same folder.
fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = target.file_name().map(OsString::from).unwrap_or_default();
    name.push(suffix);
    target.with_file_name(name)
}

/// `NAME` -> `NAME.partial`: where a file in progress is written.
pub fn partial_name(target: &Path) -> PathBuf {
    sibling(target, ".partial")
}

/// `NAME` -> `NAME.lock`: the lock its writer holds.
pub fn lock_name(target: &Path) -> PathBuf {
    sibling(target, ".lock")
}

/// Whether `target` exists and is something a rename cannot replace.
fn is_special(target: &Path) -> bool {
    std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The exclusive right to write one output path, held until dropped.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    file: File,
}

impl Lock {
    /// Takes the lock of `target` (its `NAME.lock`), or says who holds it.
    pub fn take(target: &Path) -> Result<Lock, ReplaceError> {
        let path = lock_name(target);
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io_err(&path))?;
            if !file.try_lock_exclusive().map_err(io_err(&path))? {
                let mut holder = String::new();
                let _ = (&file).take(1024).read_to_string(&mut holder);
                let holder = crate::text::escape(holder.trim()).into_owned();
                let holder = if holder.is_empty() { "a process that has not said which".to_owned() } else { holder };
                return Err(ReplaceError::Held { path: target.to_path_buf(), holder });
            }
            // The holder before us may have removed the file between our open and our
            // lock: then we hold a lock nobody else sees. Take the one at the path.
            if !same_file(&file, &path) {
                continue;
            }
            file.set_len(0).map_err(io_err(&path))?;
            file.rewind().map_err(io_err(&path))?;
            let _ = writeln!(file, "{}", holder_line());
            return Ok(Lock { path, file });
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

/// What a lock file says of its holder: the process id, the command (its first two
/// words only: later arguments may hold credentials) and when it started.
fn holder_line() -> String {
    let cmd: Vec<String> = std::env::args()
        .take(2)
        .map(|a| Path::new(&a).file_name().map_or(a.clone(), |n| n.to_string_lossy().into_owned()))
        .collect();
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format!("pid {}, {}, since unix time {since}", std::process::id(), cmd.join(" "))
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still locked, so nobody takes a lock on a file about to go.
        let _ = std::fs::remove_file(&self.path);
        let _ = FileExt::unlock(&self.file);
    }
}

/// One output file being replaced: written at [`Replacement::temp`] (by the caller, or
/// through [`Replacement::create`]) and renamed into place by [`Replacement::commit`].
/// Dropped without a commit, the temporary file is removed (or kept, after
/// [`Replacement::keep_partial`]) and the target is as it was.
#[derive(Debug)]
pub struct Replacement {
    target: PathBuf,
    temp: PathBuf,
    keep: bool,
    done: bool,
    _lock: Option<Lock>,
}

impl Replacement {
    /// Starts replacing `target` through `NAME.partial`; its folder must exist.
    pub fn begin(target: &Path) -> Result<Replacement, ReplaceError> {
        Self::begin_at(target, partial_name(target))
    }

    /// As [`Replacement::begin`], the temporary file keeping the target's extension
    /// (`plot.png` -> `plot.partial.png`), for writers that choose a format by it.
    pub fn begin_keeping_extension(target: &Path) -> Result<Replacement, ReplaceError> {
        let temp = match (target.file_stem(), target.extension()) {
            (Some(stem), Some(ext)) => {
                let mut name = stem.to_os_string();
                name.push(".partial.");
                name.push(ext);
                target.with_file_name(name)
            }
            _ => partial_name(target),
        };
        Self::begin_at(target, temp)
    }

    fn begin_at(target: &Path, temp: PathBuf) -> Result<Replacement, ReplaceError> {
        if is_special(target) {
            let target = target.to_path_buf();
            return Ok(Replacement { temp: target.clone(), target, keep: true, done: false, _lock: None });
        }
        let lock = Lock::take(target)?;
        Ok(Replacement { target: target.to_path_buf(), temp, keep: false, done: false, _lock: Some(lock) })
    }

    /// Where the bytes go until the commit.
    pub fn temp(&self) -> &Path {
        &self.temp
    }

    /// The file being replaced.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Whether the target is written directly ([`is_special`]).
    pub fn is_direct(&self) -> bool {
        self.temp == self.target
    }

    /// Creates (or empties) the temporary file for writing.
    pub fn create(&self) -> Result<File, ReplaceError> {
        File::create(&self.temp).map_err(io_err(&self.temp))
    }

    /// An uncommitted temporary file with content stays when dropped (a trace cut
    /// short keeps what it saved); an empty one is still removed.
    pub fn keep_partial(&mut self) {
        self.keep = true;
    }

    /// The temporary file is complete: synced, renamed over the target, and the
    /// rename synced with the folder.
    pub fn commit(mut self) -> Result<(), ReplaceError> {
        self.done = true;
        if self.is_direct() {
            return Ok(());
        }
        File::open(&self.temp).and_then(|f| f.sync_all()).map_err(io_err(&self.temp))?;
        std::fs::rename(&self.temp, &self.target).map_err(io_err(&self.target))?;
        if let Some(dir) = self.target.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Not every file system can sync a folder; the rename is done either way.
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if self.done || self.is_direct() {
            return;
        }
        let empty = std::fs::metadata(&self.temp).is_ok_and(|m| m.len() == 0);
        if !self.keep || empty {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Replaces `target` with `bytes` ([`Replacement`]).
pub fn replace(target: &Path, bytes: &[u8]) -> Result<(), ReplaceError> {
    let r = Replacement::begin(target)?;
    let mut f = r.create()?;
    f.write_all(bytes).map_err(io_err(r.temp()))?;
    drop(f);
    r.commit()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_old_file_stays_until_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("out.csv");
        std::fs::write(&t, "old").unwrap();
        {
            let r = Replacement::begin(&t).unwrap();
            r.create().unwrap().write_all(b"half").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "old");
        assert!(!partial_name(&t).exists() && !lock_name(&t).exists());
        replace(&t, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing left beside it");
    }

    #[test]
    fn a_second_writer_is_refused_with_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        let first = Replacement::begin(&t).unwrap();
        let e = Replacement::begin(&t).unwrap_err();
        assert!(matches!(e, ReplaceError::Held { .. }), "{e}");
        assert!(e.to_string().contains(&format!("pid {}", std::process::id())), "{e}");
        drop(first);
        Replacement::begin(&t).unwrap();
    }

    #[test]
    fn an_extension_is_kept_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let r = Replacement::begin_keeping_extension(&dir.path().join("plot.png")).unwrap();
        assert_eq!(r.temp(), dir.path().join("plot.partial.png"));
    }

    #[test]
    fn dev_null_is_written_directly() {
        let r = Replacement::begin(Path::new("/dev/null")).unwrap();
        r.create().unwrap().write_all(b"x").unwrap();
        r.commit().unwrap();
    }
}
