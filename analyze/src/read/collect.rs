//! The trace files under the paths a command was given, each file once.
//!
//! A file is known by its device and inode, not its name: a folder given twice, a
//! folder and a file inside it, or a link back up the tree (`traces/loop -> ..`) reach
//! the same files again; each must be read and counted once, not once per way in.
//! Folders are known the same way, so a link loop ends where it closes.

use std::collections::HashSet;
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::AnalyzeError;

/// A file to read, and whether it was named (not found in a folder).
pub(crate) type Found = (PathBuf, bool);

/// Every `.jsonl` file under `paths` (files named are taken whatever their extension),
/// folders walked in sorted order, each file and folder once: the first way it is
/// reached is the one kept.
pub(crate) fn collect_all(paths: &[PathBuf]) -> Result<Vec<Found>, AnalyzeError> {
    let mut walk = Walk { seen: HashSet::new(), out: Vec::new() };
    for p in paths {
        walk.path(p)?;
    }
    Ok(walk.out)
}

struct Walk {
    /// (device, inode) of every file and folder reached so far.
    seen: HashSet<(u64, u64)>,
    out: Vec<Found>,
}

impl Walk {
    fn first_time(&mut self, meta: &std::fs::Metadata) -> bool {
        self.seen.insert((meta.dev(), meta.ino()))
    }

    fn path(&mut self, path: &Path) -> Result<(), AnalyzeError> {
        let meta = std::fs::metadata(path).map_err(|source| AnalyzeError::Io { path: path.into(), source })?;
        if !self.first_time(&meta) {
            tracing::debug!(path = %path.display(), "already reached by another path, read once");
            return Ok(());
        }
        if meta.is_dir() {
            return self.folder(path, meta.dev());
        }
        // Named and no folder: a file, a FIFO, a pipe (`/dev/stdin`), read as it comes.
        self.out.push((path.to_path_buf(), true));
        Ok(())
    }

    fn folder(&mut self, path: &Path, dev: u64) -> Result<(), AnalyzeError> {
        let mut entries: Vec<(PathBuf, Entry)> = std::fs::read_dir(path)
            .map_err(|source| AnalyzeError::Io { path: path.into(), source })?
            .filter_map(|e| {
                let e = e.ok()?;
                let kind = match e.file_type() {
                    // A plain file lies on its folder's device and the listing gives its
                    // inode: no `stat` per file, which showed in a large corpus's run.
                    // Links and folders (a folder may be a mount) are asked.
                    Ok(t) if t.is_file() => Entry::File((dev, e.ino())),
                    _ => match std::fs::metadata(e.path()) {
                        Ok(m) if m.is_dir() => Entry::Dir(m),
                        Ok(m) => Entry::File((m.dev(), m.ino())),
                        Err(_) => return None,
                    },
                };
                Some((e.path(), kind))
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (e, kind) in entries {
            match kind {
                Entry::Dir(meta) => {
                    if self.first_time(&meta) {
                        self.folder(&e, meta.dev())?;
                    }
                }
                Entry::File(id) => {
                    if e.extension().is_some_and(|x| x == "jsonl") && self.seen.insert(id) {
                        self.out.push((e, false));
                    }
                }
            }
        }
        Ok(())
    }
}

enum Entry {
    Dir(std::fs::Metadata),
    /// A file's (device, inode).
    File((u64, u64)),
}
