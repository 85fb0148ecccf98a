//! How many keys, tables and values a TOML file may hold, counted before it is
//! parsed. A parsed table costs far more than its text, so a file within the size
//! limit could still take gigabytes to load (docs/faults.md has the figures). The count is a
//! scan of the text (no allocation) that sees through strings and comments: every `=`
//! outside them is a key, every `.` between key characters outside them a table a
//! dotted key opens, every `[` a table header or an array, every `{` an inline table
//! and every `,` one more value of an array or inline table.

use std::path::{Path, PathBuf};

/// The most keys, tables and array values a TOML file read whole may hold
/// ([`count_keys`]): the largest bundled file (the village blueprint) has about
/// 15,500, the larger suite manifest 5,300, a crew config tens; a file at the bound
/// loads in tens of MB (docs/faults.md).
pub const MAX_TOML_KEYS: usize = 100_000;

/// A TOML text with more keys than the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: more than {max} keys, tables and values in the file (the limit)")]
pub struct TooManyKeys {
    /// The 1-based line where the count passed the limit.
    pub line: usize,
    /// The limit.
    pub max: usize,
}

/// A TOML file with more keys and tables than [`MAX_TOML_KEYS`], refused before it is
/// parsed: the file, the line and key where the count passed the bound, and the bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: key `{key}`: {}", file.display(), self.what())]
pub struct TomlKeysError {
    /// The file.
    pub file: PathBuf,
    /// The 1-based line where the count passed the bound.
    pub line: usize,
    /// The key (or table header) on that line, cut to [`SHOWN_KEY_CHARS`] characters.
    pub key: String,
    /// The bound.
    pub max: usize,
}

impl TomlKeysError {
    /// What is wrong, without the place: "more than N keys, ... at most N".
    pub fn what(&self) -> String {
        format!("more than {} keys, tables and values in the file; at most {}", self.max, self.max)
    }
}

/// The most characters of a key an error quotes (a key may be a line long).
pub const SHOWN_KEY_CHARS: usize = 64;

/// The one check every reader of a TOML file runs on its text before parsing it: at
/// most [`MAX_TOML_KEYS`] keys and tables ([`count_keys`]), else an error naming the
/// file, the key and the bound.
pub fn check_toml_keys(file: &Path, text: &str) -> Result<(), TomlKeysError> {
    check_toml_keys_within(file, text, MAX_TOML_KEYS)
}

/// [`check_toml_keys`] with another bound (tests, and files with a bound of their own).
pub fn check_toml_keys_within(file: &Path, text: &str, max: usize) -> Result<(), TomlKeysError> {
    let Err(e) = count_keys(text, max) else { return Ok(()) };
    let at = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    let key = at.split('=').next().unwrap_or("").trim();
    tracing::debug!(file = %file.display(), line = e.line, max, "too many TOML keys");
    Err(TomlKeysError { file: file.to_path_buf(), line: e.line, key: key.chars().take(SHOWN_KEY_CHARS).collect(), max })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Code,
    Comment,
    Basic,
    Literal,
    MultiBasic,
    MultiLiteral,
}

/// Counts `text`'s keys, tables and values (an upper bound on the nodes a parse builds
/// but for one element of each array); an error at the line where the count passes
/// `max`.
pub fn count_keys(text: &str, max: usize) -> Result<usize, TooManyKeys> {
    let b = text.as_bytes();
    let (mut at, mut n, mut line) = (At::Code, 0usize, 1usize);
    let mut i = 0;
    let key_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'"' || c == b'\'';
    while i < b.len() {
        let c = b[i];
        let rest = &b[i..];
        let mut step = 1;
        match at {
            At::Code => match c {
                b'#' => at = At::Comment,
                b'"' if rest.starts_with(b"\"\"\"") => (at, step) = (At::MultiBasic, 3),
                b'\'' if rest.starts_with(b"'''") => (at, step) = (At::MultiLiteral, 3),
                b'"' => at = At::Basic,
                b'\'' => at = At::Literal,
                b'=' | b'[' | b'{' | b',' => n += 1,
                b'.' => {
                    let before = i.checked_sub(1).map(|j| b[j]);
                    let after = b.get(i + 1).copied();
                    // A dot between digits is a number's; between key characters, a table.
                    let digits =
                        before.is_some_and(|x| x.is_ascii_digit()) && after.is_some_and(|x| x.is_ascii_digit());
                    let spaced = |x: Option<u8>| x.is_some_and(|x| key_char(x) || x == b' ');
                    if !digits && spaced(before) && spaced(after) {
                        n += 1;
                    }
                }
                _ => {}
            },
            At::Comment => {}
            At::Basic => match c {
                b'\\' => step = 2,
                b'"' => at = At::Code,
                _ => {}
            },
            At::Literal if c == b'\'' => at = At::Code,
            At::Literal => {}
            At::MultiBasic => match c {
                b'\\' => step = 2,
                b'"' if rest.starts_with(b"\"\"\"") => (at, step) = (At::Code, 3),
                _ => {}
            },
            At::MultiLiteral if rest.starts_with(b"'''") => (at, step) = (At::Code, 3),
            At::MultiLiteral => {}
        }
        if n > max {
            return Err(TooManyKeys { line, max });
        }
        // Newlines inside a skipped escape still count.
        for &x in &b[i..(i + step).min(b.len())] {
            if x == b'\n' {
                line += 1;
                if matches!(at, At::Comment | At::Basic | At::Literal) {
                    at = At::Code;
                }
            }
        }
        i += step;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn counts_keys_tables_and_dotted_keys_but_not_strings_or_numbers() {
        let text = "a = 1.5\n[t]\nb.c.d = \"x = y.z\" # e = f\n[[arr]]\ng = { h = 'i = j', k = 2 }\ns = \"\"\"\nl = m\n\"\"\"\n";
        // a; [t]; b.c.d (one key, two dots); [[arr]] (two brackets); g, its `{`, h, the
        // comma, k; s.
        assert_eq!(count_keys(text, 100).unwrap(), 1 + 1 + 3 + 2 + 5 + 1);
        // An array: its `[` and one more for each comma.
        assert_eq!(count_keys("a = [1, 2, 3]\nb = [[1], []]\n", 100).unwrap(), 4 + 5);
    }

    #[test]
    fn the_line_past_the_limit_is_named() {
        let text: String = (0..10).map(|i| format!("k{i} = {i}\n")).collect();
        assert_eq!(count_keys(&text, 10).unwrap(), 10);
        assert_eq!(count_keys(&text, 9).unwrap_err(), TooManyKeys { line: 10, max: 9 });
        let dotted = "a.b.c.d.e = 1\n";
        assert_eq!(count_keys(dotted, 4).unwrap_err().line, 1);
    }

    #[test]
    fn the_error_names_the_file_the_key_and_the_bound() {
        let text: String = (0..10).map(|i| format!("key_{i} = {i}\n")).collect();
        let e = check_toml_keys_within(Path::new("c.toml"), &text, 7).unwrap_err();
        assert_eq!((e.line, e.key.as_str(), e.max), (8, "key_7", 7));
        let shown = e.to_string();
        assert!(shown.starts_with("c.toml:8: key `key_7`: more than 7 keys"), "{shown}");
        let long = format!("{} = 1\n", "k".repeat(500));
        assert_eq!(check_toml_keys_within(Path::new("c.toml"), &long, 0).unwrap_err().key.len(), SHOWN_KEY_CHARS);
        assert!(check_toml_keys_within(Path::new("c.toml"), &text, 10).is_ok());
    }
}
