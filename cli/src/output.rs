//! Output files written under a temporary name and renamed into place when complete:
//! a trace in progress is `NAME.partial` until its episode ends. An existing file of the
//! same name is untouched until then (a typo in `--partner` erased yesterday's trace),
//! and a run cut short leaves its `.partial` with everything written so far. While a run
//! writes it, a second run with the same output is refused, told which holds it
//! ([`gatecrew_protocol::replace`]).

use std::path::Path;

use anyhow::Context;
use gatecrew_protocol::replace::{ReplaceError, Replacement};

use crate::interrupt::Shared;

/// An output file being written: a [`Replacement`] whose `.partial` is kept when the
/// run is cut short with something in it, and whose lock keeps a second run with the
/// same `--trace` out.
#[derive(Debug)]
pub struct PartialFile {
    file: Option<Shared>,
    replacement: Option<Replacement>,
}

impl PartialFile {
    /// Creates `target.partial` (its folder must exist), or says which process is
    /// writing the same target.
    pub fn create(target: &Path) -> anyhow::Result<Self> {
        let mut replacement = Replacement::begin(target).map_err(|e| match e {
            // Refused, nothing touched: the other run's trace goes on.
            e @ ReplaceError::Held { .. } => anyhow::Error::new(crate::BadInput(e.to_string())),
            e => anyhow::Error::new(e),
        })?;
        replacement.keep_partial();
        let file = replacement.create().with_context(|| format!("cannot write {}", target.display()))?;
        Ok(PartialFile { file: Some(Shared::new(file)), replacement: Some(replacement) })
    }

    /// A buffered handle for the writer (the same open file; Ctrl-C flushes it).
    pub fn file(&self) -> anyhow::Result<Shared> {
        self.file.clone().context("the output file is closed")
    }

    /// The file is complete: synced and renamed into place.
    pub fn commit(mut self) -> anyhow::Result<()> {
        let r = self.replacement.take().context("the output file is closed")?;
        if let Some(f) = self.file.take() {
            // On disk before the rename, so a crash never leaves a short file under the
            // final name (a device such as /dev/null cannot be synced, and need not be).
            f.finish(!r.is_direct()).with_context(|| format!("writing {}", r.temp().display()))?;
        }
        let (temp, target) = (r.temp().to_path_buf(), r.target().to_path_buf());
        r.commit().with_context(|| format!("cannot move {} to {}", temp.display(), target.display()))
    }
}

impl Drop for PartialFile {
    /// Not committed: an empty `.partial` (nothing was written: bad input found after
    /// it was created) is removed; one with content stays, as what was saved.
    fn drop(&mut self) {
        if let Some(f) = self.file.take() {
            let _ = f.finish(false);
        }
        // The replacement goes after the file is flushed, and with it the lock.
        self.replacement.take();
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
