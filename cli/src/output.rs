//! Output files written under a temporary name and renamed into place when complete:
//! a trace in progress is `NAME.partial` until its episode ends. An existing file of the
//! same name is untouched until then (a typo in `--partner` erased yesterday's trace),
//! and a run cut short leaves its `.partial` with everything written so far.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::interrupt::Shared;

/// An output file being written.
#[derive(Debug)]
pub struct PartialFile {
    target: PathBuf,
    /// Where the bytes go: `target.partial`, or the target itself when it is not a
    /// regular file (`/dev/null`, a pipe) and cannot be replaced by a rename.
    writing: PathBuf,
    file: Option<Shared>,
    committed: bool,
}

/// `NAME` -> `NAME.partial`.
pub fn partial_name(target: &Path) -> PathBuf {
    let mut name: OsString = target.file_name().map(OsString::from).unwrap_or_default();
    name.push(".partial");
    target.with_file_name(name)
}

impl PartialFile {
    /// Creates `target.partial` (its folder must exist).
    pub fn create(target: &Path) -> anyhow::Result<Self> {
        let special = std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir());
        let writing = if special { target.to_path_buf() } else { partial_name(target) };
        let file = File::create(&writing).with_context(|| format!("cannot write {}", writing.display()))?;
        Ok(PartialFile { target: target.to_path_buf(), writing, file: Some(Shared::new(file)), committed: false })
    }

    /// A buffered handle for the writer (the same open file; Ctrl-C flushes it).
    pub fn file(&self) -> anyhow::Result<Shared> {
        self.file.clone().context("the output file is closed")
    }

    /// The file is complete: synced and renamed into place.
    pub fn commit(mut self) -> anyhow::Result<()> {
        let renamed = self.writing != self.target;
        if let Some(f) = self.file.take() {
            // On disk before the rename, so a crash never leaves a short file under the
            // final name (a device such as /dev/null cannot be synced, and need not be).
            f.finish(renamed).with_context(|| format!("writing {}", self.writing.display()))?;
        }
        if renamed {
            std::fs::rename(&self.writing, &self.target)
                .with_context(|| format!("cannot move {} to {}", self.writing.display(), self.target.display()))?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for PartialFile {
    /// Not committed: an empty `.partial` (nothing was written: bad input found after
    /// it was created) is removed; one with content stays, as what was saved.
    fn drop(&mut self) {
        if self.committed || self.writing == self.target {
            return;
        }
        if let Some(f) = self.file.take() {
            let _ = f.finish(false);
        }
        if std::fs::metadata(&self.writing).is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&self.writing);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Write;

    use super::*;

    #[test]
    fn the_old_file_stays_until_the_new_one_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "yesterday\n").unwrap();
        {
            let _p = PartialFile::create(&t).unwrap();
            assert!(dir.path().join("t.jsonl.partial").exists());
        }
        assert!(!dir.path().join("t.jsonl.partial").exists(), "an empty partial is removed");
        {
            let p = PartialFile::create(&t).unwrap();
            p.file().unwrap().write_all(b"half").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "yesterday\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("t.jsonl.partial")).unwrap(), "half");
        let p = PartialFile::create(&t).unwrap();
        p.file().unwrap().write_all(b"today\n").unwrap();
        p.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "today\n");
        assert!(!dir.path().join("t.jsonl.partial").exists());
    }

    #[test]
    fn dev_null_is_written_directly() {
        let p = PartialFile::create(Path::new("/dev/null")).unwrap();
        p.file().unwrap().write_all(b"x").unwrap();
        p.commit().unwrap();
    }
}
