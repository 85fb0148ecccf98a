//! Scripted sessions: a file of timed chat lines, each keyed to an episode tick, so a
//! session replays the same way on every run (no wall clock).
//!
//! ```text
//! # comment
//! 0     make a bed
//! +120  don't collect wool, get planks first
//! 400   stop
//! ```
//!
//! A line is a tick (absolute, or `+N` after the previous line) and the text. Ticks
//! never go backwards.

use std::path::{Path, PathBuf};

use gatecrew_protocol::Tick;
use gatecrew_protocol::limits;

/// A script that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// The file as a whole could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file at fault.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: limits::ReadFileError,
    },
    /// A line is not `TICK text` or `+N text`, or breaks a rule (order, length).
    #[error("{}:{line}: {what}", path.display())]
    Line {
        /// The file at fault.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

impl ScriptError {
    /// The 1-based line at fault; 0 when the file as a whole could not be read.
    pub fn line(&self) -> usize {
        match self {
            ScriptError::Read { .. } => 0,
            ScriptError::Line { line, .. } => *line,
        }
    }
}

/// A parsed script: lines in tick order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// `(tick, text)`.
    pub lines: Vec<(Tick, String)>,
}

impl Script {
    /// Reads a script file.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let text =
            limits::read_text_file(path).map_err(|source| ScriptError::Read { path: path.to_owned(), source })?;
        Self::parse(&text, path)
    }

    /// Parses script text (`path` names it in errors). A line longer than
    /// [`limits::max_chat_bytes`] is an error: it is chat, and chat is capped.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ScriptError> {
        Self::parse_with_limit(text, path, limits::max_chat_bytes())
    }

    /// Parses script text with lines of at most `max_line` bytes.
    pub fn parse_with_limit(text: &str, path: &Path, max_line: usize) -> Result<Self, ScriptError> {
        let mut lines = Vec::new();
        let mut last = 0u64;
        for (i, raw) in text.lines().enumerate() {
            let err = |what: String| ScriptError::Line { path: path.to_owned(), line: i.saturating_add(1), what };
            if raw.len() > max_line {
                return Err(err(format!(
                    "the line is {} bytes, more than the limit of {max_line} (set {} for more)",
                    raw.len(),
                    limits::MAX_CHAT_BYTES_VAR
                )));
            }
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let (tick, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            let text = rest.trim();
            let not_a_tick = || err(format!("expected a tick (N or +N) before the text, found `{tick}`"));
            let t = if let Some(rel) = tick.strip_prefix('+') {
                let d = rel.parse::<u64>().map_err(|_| not_a_tick())?;
                // `+N` after a huge tick: an error, not an overflow.
                last.checked_add(d).ok_or_else(|| err(format!("tick {last} + {d} is past the largest tick")))?
            } else {
                tick.parse::<u64>().map_err(|_| not_a_tick())?
            };
            if text.is_empty() {
                return Err(err("a tick with no text".into()));
            }
            if t < last {
                return Err(err(format!("tick {t} is before the previous line's {last}")));
            }
            last = t;
            lines.push((Tick(t), text.to_owned()));
        }
        Ok(Script { lines })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_absolute_and_relative_errors_name_the_line() {
        let s = Script::parse("# x\n0 make a bed\n+40 stop\n\n100   go on\n", Path::new("s.txt")).unwrap();
        assert_eq!(
            s.lines,
            vec![(Tick(0), "make a bed".into()), (Tick(40), "stop".into()), (Tick(100), "go on".into())]
        );
        let e = Script::parse("10 a\n5 b\n", Path::new("s.txt")).unwrap_err();
        assert_eq!(e.to_string(), "s.txt:2: tick 5 is before the previous line's 10");
        let e = Script::parse("soon hello\n", Path::new("s.txt")).unwrap_err();
        assert!(e.to_string().starts_with("s.txt:1: expected a tick"), "{e}");
    }

    /// `+N` after a huge tick is an error at its line, not an overflow (a panic in
    /// debug builds, a wrapped tick in release).
    #[test]
    fn a_relative_tick_past_the_end_of_time_is_an_error() {
        let text = format!("{} a\n+1 b\n", u64::MAX);
        let e = Script::parse(&text, Path::new("s.txt")).unwrap_err();
        assert_eq!(e.line(), 2, "{e}");
        assert!(e.to_string().contains("past the largest tick"), "{e}");
    }

    #[test]
    fn an_overlong_line_is_an_error_naming_the_limit() {
        let text = format!("0 hi\n1 {}\n", "x".repeat(50));
        assert!(Script::parse_with_limit(&text, Path::new("s.txt"), 60).is_ok());
        let e = Script::parse_with_limit(&text, Path::new("s.txt"), 40).unwrap_err();
        assert_eq!(e.line(), 2);
        assert!(e.to_string().contains("more than the limit of 40"), "{e}");
    }
}
