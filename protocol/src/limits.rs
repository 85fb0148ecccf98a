//! Limits on lines that arrive from outside (chat, scripts, websocket messages, bridge
//! replies, trace lines), so that one endless line cannot take unbounded memory. Each
//! has a default and an environment variable for users who need more
//! (docs/faults.md, "Limits").

use std::io::{self, BufRead};

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
/// reported once (through `tracing`) and the default used: a limit is a safety net, and
/// a typo in it must not turn the net off.
fn env_limit(var: &str, default: u64) -> usize {
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

/// Reads one line of at most `max` bytes, keeping no more than `max` in memory: a
/// longer line is consumed to its end and reported as [`Line::TooLong`], so that the
/// next read starts at the next line. `None` at the end of input.
pub fn read_line_capped<R: BufRead + ?Sized>(r: &mut R, max: usize) -> io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut total = 0usize;
    let mut any = false;
    let mut ended = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        total = total.saturating_add(take);
        if total <= max {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            buf = Vec::new();
        }
        r.consume(if done { take.saturating_add(1) } else { take });
        if done {
            ended = true;
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if total > max {
        return Ok(Some(Line::TooLong(total)));
    }
    if !ended {
        return Ok(Some(Line::Unterminated(buf)));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(Line::Text(buf)))
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
