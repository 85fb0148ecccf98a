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

/// A script line that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {what}")]
pub struct ScriptError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: String,
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
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError {
            path: path.to_owned(),
            line: 0,
            what: format!("cannot read: {e}"),
        })?;
        Self::parse(&text, path)
    }

    /// Parses script text (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Self, ScriptError> {
        let mut lines = Vec::new();
        let mut last = 0u64;
        for (i, raw) in text.lines().enumerate() {
            let err = |what: String| ScriptError { path: path.to_owned(), line: i + 1, what };
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let (tick, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            let text = rest.trim();
            let t = if let Some(rel) = tick.strip_prefix('+') {
                rel.parse::<u64>().map(|d| last + d)
            } else {
                tick.parse::<u64>()
            }
            .map_err(|_| err(format!("expected a tick (N or +N) before the text, found `{tick}`")))?;
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
}
