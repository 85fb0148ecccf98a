//! Whole files read at once (configs, scripts, game data, grids, manifests): read
//! through a limit, so that a file named by mistake (a 10 GB log, `/dev/zero`, a FIFO
//! that never ends) is refused after `max + 1` bytes instead of filling memory. The size
//! in the file system is not trusted: special files report 0.

use std::io::Read;
use std::path::Path;

/// The default for [`max_file_bytes`]. Parsing TOML or JSON takes up to about 60 times
/// the text's size (docs/faults.md), so 8 MiB bounds a parse to about 500 MB. The largest file gatecrew bundles and reads whole is the
/// game data (315 KB); a config listing 1,000 bots with inventories is about 200 KB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 << 20;
/// The variable that overrides [`DEFAULT_MAX_FILE_BYTES`].
pub const MAX_FILE_BYTES_VAR: &str = "GATECREW_MAX_FILE_BYTES";

/// The largest file read whole, in bytes.
pub fn max_file_bytes() -> u64 {
    u64::try_from(super::env_limit(MAX_FILE_BYTES_VAR, DEFAULT_MAX_FILE_BYTES)).unwrap_or(u64::MAX)
}

/// Why a file could not be read as text. Callers wrap it in their own error with the
/// file's path (this type does not repeat it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadFileError {
    /// The file system refused (missing, a directory, no permission).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than the limit; nothing past `limit + 1` bytes was read.
    #[error("larger than {limit} bytes (the limit; set {MAX_FILE_BYTES_VAR} for more)")]
    TooLarge {
        /// The limit that was crossed.
        limit: u64,
    },
    /// The bytes are not UTF-8 from `offset` on.
    #[error("not UTF-8 text: invalid byte at offset {offset}")]
    NotUtf8 {
        /// Byte offset of the first byte that is not part of a valid character.
        offset: usize,
    },
}

/// Reads `path` as UTF-8 text of at most [`max_file_bytes`] bytes.
pub fn read_text_file(path: &Path) -> Result<String, ReadFileError> {
    read_text_file_capped(path, max_file_bytes())
}

/// Reads `path` as UTF-8 text of at most `max` bytes.
pub fn read_text_file_capped(path: &Path, max: u64) -> Result<String, ReadFileError> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max {
        return Err(ReadFileError::TooLarge { limit: max });
    }
    String::from_utf8(bytes).map_err(|e| ReadFileError::NotUtf8 { offset: e.utf8_error().valid_up_to() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, bytes).unwrap();
        (dir, p)
    }

    #[test]
    fn reads_up_to_the_limit_and_refuses_one_byte_more() {
        let (_d, p) = file(b"abcd");
        assert_eq!(read_text_file_capped(&p, 4).unwrap(), "abcd");
        assert!(matches!(read_text_file_capped(&p, 3), Err(ReadFileError::TooLarge { limit: 3 })));
    }

    #[test]
    fn an_endless_special_file_is_refused_not_read_forever() {
        let p = Path::new("/dev/zero");
        if p.exists() {
            assert!(matches!(read_text_file_capped(p, 1024), Err(ReadFileError::TooLarge { .. })));
        }
    }

    #[test]
    fn names_the_offset_of_the_first_bad_byte() {
        let (_d, p) = file(b"ok\n\xff rest");
        let e = read_text_file_capped(&p, 100).unwrap_err();
        assert!(matches!(e, ReadFileError::NotUtf8 { offset: 3 }), "{e:?}");
        assert!(e.to_string().contains("offset 3"));
    }

    #[test]
    fn a_missing_file_is_an_io_error() {
        let e = read_text_file(Path::new("/nonexistent/gatecrew/x.toml")).unwrap_err();
        assert!(matches!(e, ReadFileError::Io(_)));
    }
}
