//! Limits on lines that arrive from outside (chat, scripts, websocket messages, bridge
//! replies, trace lines), so that one endless line cannot take unbounded memory. Each
//! has a default and an environment variable for users who need more
//! (docs/faults.md, "Limits"). Files read whole are capped too ([`read_text_file`]).

use std::io::{self, BufRead};

mod file;
mod keys;
pub use file::{
    DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_VAR, ReadFileError, max_file_bytes, read_text_file, read_text_file_capped,
};
pub use keys::{
    MAX_TOML_KEYS, SHOWN_KEY_CHARS, TomlKeysError, TooManyKeys, check_toml_keys, check_toml_keys_within, count_keys,
};

/// The default for [`max_chat_bytes`]: Minecraft's chat takes 256 characters; sixteen
/// times that leaves room for pasted instructions while keeping one line small.
pub const DEFAULT_MAX_CHAT_BYTES: u64 = 4096;
/// The variable that overrides [`DEFAULT_MAX_CHAT_BYTES`].
pub const MAX_CHAT_BYTES_VAR: &str = "GATECREW_MAX_CHAT_BYTES";

/// The default for [`max_line_bytes`]: a bridge reply or trace line is one JSON value;
/// the largest the suite writes (a `look` over a 4,000-cell blueprint, an `episode_end`
/// with every metric) is under 300 KB.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 1 << 20;
/// The variable that overrides [`DEFAULT_MAX_LINE_BYTES`].
pub const MAX_LINE_BYTES_VAR: &str = "GATECREW_MAX_LINE_BYTES";

/// The longest line a person may send (chat, a script line, a websocket message).
pub fn max_chat_bytes() -> usize {
    env_limit(MAX_CHAT_BYTES_VAR, DEFAULT_MAX_CHAT_BYTES)
}

/// The longest machine line (a bridge reply, a trace line).
pub fn max_line_bytes() -> usize {
    env_limit(MAX_LINE_BYTES_VAR, DEFAULT_MAX_LINE_BYTES)
}

/// A positive whole number from `var`, else `default`. A value that is not one is
/// reported (through `tracing`) and the default used: a limit is a safety net, and a
/// typo in it must not turn the net off.
pub fn env_limit(var: &str, default: u64) -> usize {
    let n = match std::env::var(var) {
        Err(_) => default,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                tracing::warn!("{var}={v:?} is not a positive whole number; using {default}");
                default
            }
        },
    };
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// One line read by [`read_line_capped`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its `\n` (or `\r\n`).
    Text(Vec<u8>),
    /// The last bytes of the input, with no `\n` after them (a writer stopped mid-line).
    Unterminated(Vec<u8>),
    /// A line longer than the limit: its bytes were read and dropped, up to its end;
    /// the length is how many there were.
    TooLong(usize),
}

/// Splits input into lines of at most `max` bytes, keeping no more than `max` in
/// memory: the state behind [`read_line_capped`] and the async readers of the live
/// session and the Minecraft bridge, which feed it their buffers.
#[derive(Debug)]
pub struct LineBuf {
    max: usize,
    buf: Vec<u8>,
    total: usize,
    any: bool,
}

impl LineBuf {
    /// A splitter for lines of at most `max` bytes.
    pub fn new(max: usize) -> Self {
        LineBuf { max, buf: Vec::new(), total: 0, any: false }
    }

    /// Takes bytes from `chunk` up to and including the first `\n`: how many it used,
    /// and the line if one ended there.
    pub fn feed(&mut self, chunk: &[u8]) -> (usize, Option<Line>) {
        self.any = true;
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        self.total = self.total.saturating_add(take);
        if self.total <= self.max {
            self.buf.extend_from_slice(&chunk[..take]);
        } else {
            self.buf = Vec::new();
        }
        if !done {
            return (take, None);
        }
        let line = if self.total > self.max {
            Line::TooLong(self.total)
        } else {
            let mut b = std::mem::take(&mut self.buf);
            if b.last() == Some(&b'\r') {
                b.pop();
            }
            Line::Text(b)
        };
        self.reset();
        (take.saturating_add(1), Some(line))
    }

    /// The end of input: what is left, if anything.
    pub fn finish(&mut self) -> Option<Line> {
        let line = match (self.any, self.total > self.max) {
            (false, _) => None,
            (true, true) => Some(Line::TooLong(self.total)),
            (true, false) => Some(Line::Unterminated(std::mem::take(&mut self.buf))),
        };
        self.reset();
        line
    }

    fn reset(&mut self) {
        self.buf = Vec::new();
        self.total = 0;
        self.any = false;
    }
}

/// Reads one line of at most `max` bytes, keeping no more than `max` in memory: a
/// longer line is consumed to its end and reported as [`Line::TooLong`], so that the
/// next read starts at the next line. `None` at the end of input.
pub fn read_line_capped<R: BufRead + ?Sized>(r: &mut R, max: usize) -> io::Result<Option<Line>> {
    let mut lb = LineBuf::new(max);
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(lb.finish());
        }
        let (used, line) = lb.feed(chunk);
        r.consume(used);
        if line.is_some() {
            return Ok(line);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn long_lines_are_skipped_whole_and_short_ones_kept() {
        let text = format!("ab\r\n{}\ncd", "x".repeat(100));
        let mut r = io::BufReader::with_capacity(7, text.as_bytes());
        assert_eq!(read_line_capped(&mut r, 10).unwrap(), Some(Line::Text(b"ab".to_vec())));
        assert_eq!(read_line_capped(&mut r, 10).unwrap(), Some(Line::TooLong(100)));
        assert_eq!(read_line_capped(&mut r, 10).unwrap(), Some(Line::Unterminated(b"cd".to_vec())));
        assert_eq!(read_line_capped(&mut r, 10).unwrap(), None);
    }
}
