//! Text that came from outside (a file, the network, a Minecraft server, a model) shown
//! on a terminal. A terminal obeys the control characters in what it prints: ESC starts
//! sequences that retitle the window, clear the screen or move the cursor, BEL rings,
//! CR overwrites the line, and a newline lets a string forge a line of gatecrew's own
//! output. So outside text is escaped before it is shown, at two levels:
//!
//! - [`escape`] for one value inside a line (a task name, a chat line, a kick reason):
//!   every control character, newline included, becomes a visible escape;
//! - [`Printable`] for a whole output stream: a writer that passes text and line breaks
//!   and escapes every other control character, so that no path to standard output or
//!   standard error can carry one, whatever a command forgot to escape.
//!
//! Escapes read as Rust's (`\n`, `\r`, `\t`, `\u{1b}`); a byte that is not UTF-8 reads
//! `\xNN`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Whether `c` changes what a terminal does rather than showing a glyph: the C0 and C1
/// controls and DEL, and the bidirectional overrides and isolates, which reorder the
/// text shown around them.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every unsafe character ([`is_unsafe`]) written as an escape; borrowed when
/// there was none.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The most characters of an outside value a table cell shows ([`cell`]): two lines of
/// a 100-column terminal; a command's `--json` output has the whole value.
pub const MAX_CELL_CHARS: usize = 200;

/// `s` escaped and cut for a table cell ([`MAX_CELL_CHARS`]). A table lays out every
/// character of every cell, so an uncut value of 250 KB costs seconds, not microseconds.
pub fn cell(s: &str) -> String {
    escape_cut(s, MAX_CELL_CHARS)
}

/// `s` escaped as [`escape`] does, cut to at most `max` characters of its escaped form
/// (with `…` when cut): for a value from outside that may be long (a model's reply).
pub fn escape_cut(s: &str, max: usize) -> String {
    let e = escape(s);
    match e.char_indices().nth(max) {
        None => e.into_owned(),
        Some((at, _)) => format!("{}…", &e[..at]),
    }
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// A writer that escapes every unsafe character except `\n` and `\t` in the text it is
/// given, and every byte that is not UTF-8; what it passes on can be shown on a
/// terminal as it stands. A character split across two writes is held until the rest
/// arrives (or the writer is dropped).
#[derive(Debug)]
pub struct Printable<W: Write> {
    inner: W,
    /// The start of a UTF-8 sequence (or of a colour sequence) the last write ended in
    /// the middle of.
    pending: Vec<u8>,
    /// Colour sequences ([`is_colour`]) pass.
    colours: bool,
}

impl<W: Write> Printable<W> {
    /// Escapes what is written to `inner`.
    pub fn new(inner: W) -> Self {
        Printable { inner, pending: Vec::new(), colours: false }
    }

    /// Escapes what is written to `inner` except colour sequences ([`is_colour`]): for
    /// a stream shown in colour (`--color`). They change how the text looks, never
    /// where it goes or what the terminal does.
    pub fn with_colours(inner: W) -> Self {
        Printable { inner, pending: Vec::new(), colours: true }
    }

    /// Writes `bytes` escaped; keeps an unfinished last character in `pending`.
    fn pass(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut out = String::new();
        let mut rest = bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    if let Some(at) = push_stream(&mut out, s, self.colours, true) {
                        self.pending = s.as_bytes()[at..].to_vec();
                    }
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // Checked by from_utf8 just now.
                    push_stream(&mut out, std::str::from_utf8(valid).unwrap_or_default(), self.colours, false);
                    match e.error_len() {
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                        Some(n) => {
                            for b in &after[..n] {
                                let _ = write!(out, "\\x{b:02x}");
                            }
                            rest = &after[n..];
                        }
                    }
                }
            }
        }
        self.inner.write_all(out.as_bytes())
    }
}

/// Pushes `s` escaped, colour sequences passed when `colours`; returns where an
/// unfinished colour sequence at the end of `s` starts when `at_end` (the rest may come
/// with the next write).
fn push_stream(out: &mut String, s: &str, colours: bool, at_end: bool) -> Option<usize> {
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if colours && c == '\u{1b}' {
            match colour_len(&s[i..]) {
                Colour::Whole(n) => {
                    out.push_str(&s[i..i + n]);
                    // The sequence is ASCII: skip its other bytes' characters.
                    chars.nth(n - 2);
                    continue;
                }
                Colour::Unfinished if at_end => return Some(i),
                Colour::Unfinished | Colour::Not => {}
            }
        }
        if is_unsafe(c) && c != '\n' && c != '\t' {
            push_escaped(out, c);
        } else {
            out.push(c);
        }
    }
    None
}

/// The longest colour sequence [`Printable::with_colours`] waits for the end of.
const MAX_COLOUR_LEN: usize = 32;

enum Colour {
    /// A colour sequence of this many bytes.
    Whole(usize),
    /// The start of one, cut at the end of the text.
    Unfinished,
    Not,
}

/// Whether `s` starts with a colour sequence: SGR (`ESC [ n;n… m`) of the parameters
/// that set a look, never one that hides text or blinks: reset (0), bold, dim, italic,
/// underline and their ends (1-4, 22-24), and a foreground colour (30-37, 39, 90-97).
fn colour_len(s: &str) -> Colour {
    let b = s.as_bytes();
    if b.len() < 2 {
        return Colour::Unfinished;
    }
    if b[1] != b'[' {
        return Colour::Not;
    }
    let Some(end) = b[2..].iter().position(|c| !(c.is_ascii_digit() || *c == b';')).map(|p| p + 2) else {
        return if b.len() < MAX_COLOUR_LEN { Colour::Unfinished } else { Colour::Not };
    };
    if b[end] != b'm' || end + 1 > MAX_COLOUR_LEN {
        return Colour::Not;
    }
    let allowed =
        |p: &str| p.is_empty() || p.parse::<u8>().is_ok_and(|n| matches!(n, 0..=4 | 22..=24 | 30..=37 | 39 | 90..=97));
    if s[2..end].split(';').all(allowed) { Colour::Whole(end + 1) } else { Colour::Not }
}

/// Whether `s` is one colour sequence [`Printable::with_colours`] passes.
pub fn is_colour(s: &str) -> bool {
    matches!(colour_len(s), Colour::Whole(n) if n == s.len())
}

impl<W: Write> Write for Printable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            self.pass(buf)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.pass(&joined)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for Printable<W> {
    /// An unfinished character at the end is shown as its bytes.
    fn drop(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut out = String::new();
        let pending = std::mem::take(&mut self.pending);
        match std::str::from_utf8(&pending) {
            // An unfinished colour sequence: shown escaped.
            Ok(s) => {
                push_stream(&mut out, s, false, false);
            }
            Err(_) => {
                for b in pending {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
        }
        let _ = self.inner.write_all(out.as_bytes());
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn stream(parts: &[&[u8]]) -> String {
        let mut buf = Vec::new();
        {
            let mut p = Printable::new(&mut buf);
            for part in parts {
                p.write_all(part).unwrap();
            }
        }
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn escape_shows_every_control_character() {
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("a\nb\r\t\u{1b}]0;x\u{7}"), "a\\nb\\r\\t\\u{1b}]0;x\\u{7}");
        assert_eq!(escape("\u{9b}2J\u{202e}"), "\\u{9b}2J\\u{202e}");
        assert_eq!(escape_cut("\u{1b}abcdef", 8), "\\u{1b}ab…");
    }

    #[test]
    fn the_stream_keeps_lines_and_escapes_the_rest() {
        assert_eq!(stream(&[b"a\tb\n", b"\x1b[2J\x07\r"]), "a\tb\n\\u{1b}[2J\\u{7}\\r");
        // A C1 control split across two writes is still caught; a split letter passes.
        assert_eq!(stream(&[b"x\xc2", b"\x9b", b"y\xc3", b"\xa9"]), "x\\u{9b}yé");
        assert_eq!(stream(&[b"\xff ok", b"\xe2\x82"]), "\\xff ok\\xe2\\x82");
    }

    fn coloured(parts: &[&[u8]]) -> String {
        let mut buf = Vec::new();
        {
            let mut p = Printable::with_colours(&mut buf);
            for part in parts {
                p.write_all(part).unwrap();
            }
        }
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn a_coloured_stream_passes_colours_and_nothing_else() {
        let text = "\u{1b}[1m\u{1b}[4mUsage:\u{1b}[0m \u{1b}[1;32mok\u{1b}[39m \u{1b}[2J\u{1b}[8mhidden\u{1b}[5m\u{1b}]0;t\u{7}\u{1b}[m\n";
        let want = "\u{1b}[1m\u{1b}[4mUsage:\u{1b}[0m \u{1b}[1;32mok\u{1b}[39m \\u{1b}[2J\\u{1b}[8mhidden\\u{1b}[5m\\u{1b}]0;t\\u{7}\u{1b}[m\n";
        assert_eq!(coloured(&[text.as_bytes()]), want);
        for cut in 0..=text.len() {
            assert_eq!(coloured(&[&text.as_bytes()[..cut], &text.as_bytes()[cut..]]), want, "{cut}");
        }
        assert_eq!(stream(&[b"\x1b[1mx"]), "\\u{1b}[1mx", "a plain stream escapes colours too");
        // Cut at the end for good: escaped when the writer goes.
        assert_eq!(coloured(&[b"x\x1b[1"]), "x\\u{1b}[1");
        assert!(is_colour("\u{1b}[0m") && is_colour("\u{1b}[97m") && !is_colour("\u{1b}[41m"));
    }

    #[test]
    fn nothing_unsafe_survives_any_split() {
        let text = "task \u{1b}]0;pwn\u{7} name\r\n\u{9b}1m é 漢 \u{202e}x\n".as_bytes();
        for cut in 0..=text.len() {
            let out = stream(&[&text[..cut], &text[cut..]]);
            assert!(!out.chars().any(|c| is_unsafe(c) && c != '\n'), "{cut}: {out:?}");
            assert_eq!(out, stream(&[text]), "{cut}");
        }
    }
}
