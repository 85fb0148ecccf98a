//! How many keys a TOML file may hold, counted before it is parsed. A parsed table
//! costs far more than its text: 300,000 dotted keys in a file under the 8 MiB limit
//! took 1.42 GB to load. The count is a scan of the text (no allocation) that sees
//! through strings and comments: every `=` outside them is a key, every `.` between
//! key characters outside them a table a dotted key opens, every `[` that starts a line
//! a table header.

/// The most keys and tables a TOML file read whole may hold ([`count_keys`]): the
/// largest bundled file (the village blueprint) has about 12,000, a crew config tens.
pub const MAX_TOML_KEYS: usize = 100_000;

/// A TOML text with more keys than the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: more than {max} keys and tables in the file (the limit)")]
pub struct TooManyKeys {
    /// The 1-based line where the count passed the limit.
    pub line: usize,
    /// The limit.
    pub max: usize,
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

/// Counts `text`'s keys and tables (an upper bound on the nodes a parse builds, up to
/// array elements); an error at the line where the count passes `max`.
pub fn count_keys(text: &str, max: usize) -> Result<usize, TooManyKeys> {
    let b = text.as_bytes();
    let (mut at, mut n, mut line, mut line_start) = (At::Code, 0usize, 1usize, true);
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
                b'=' => n += 1,
                b'[' if line_start => n += 1,
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
        line_start = match c {
            b'\n' => true,
            b' ' | b'\t' | b'\r' => line_start,
            _ => false,
        };
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
        // a; [t]; b.c.d (one key, two dots); [[arr]]; g, h, k; s.
        assert_eq!(count_keys(text, 100).unwrap(), 1 + 1 + 3 + 1 + 3 + 1);
    }

    #[test]
    fn the_line_past_the_limit_is_named() {
        let text: String = (0..10).map(|i| format!("k{i} = {i}\n")).collect();
        assert_eq!(count_keys(&text, 10).unwrap(), 10);
        assert_eq!(count_keys(&text, 9).unwrap_err(), TooManyKeys { line: 10, max: 9 });
        let dotted = "a.b.c.d.e = 1\n";
        assert_eq!(count_keys(dotted, 4).unwrap_err().line, 1);
    }
}
