//! Streaming trace reader and writer.

use std::io::{self, BufRead, Write};

use serde::Deserialize;

use super::TRACE_VERSION;
use super::brief::{Brief, BriefKind};
use super::event::Event;
use crate::limits::Line;

/// Writes one event per line.
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: W,
    line: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// Wraps a writer (buffer it yourself if it is a file).
    pub fn new(out: W) -> Self {
        TraceWriter { out, line: Vec::with_capacity(256) }
    }

    /// Appends one event (of either world's trace) and a newline.
    pub fn write<E: serde::Serialize + ?Sized>(&mut self, event: &E) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, event).map_err(io::Error::other)?;
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A trace that cannot be read as it is.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Reading failed.
    #[error("line {line}: read error: {source}")]
    Io {
        /// 1-based line number.
        line: u64,
        /// The cause.
        source: io::Error,
    },
    /// A line written by another major version.
    #[error("line {line}: trace schema version {found} is not supported (this build reads version {TRACE_VERSION})")]
    UnsupportedVersion {
        /// 1-based line number.
        line: u64,
        /// The version found.
        found: u64,
    },
    /// A line that is not a valid event.
    #[error("line {line}: malformed event: {reason}")]
    Malformed {
        /// 1-based line number.
        line: u64,
        /// What was wrong.
        reason: String,
    },
    /// The last line has no newline and does not parse: the writer stopped mid-line.
    /// Callers report it and skip it.
    #[error("line {line}: truncated last line ({bytes} bytes), skipped")]
    Truncated {
        /// 1-based line number.
        line: u64,
        /// Its length.
        bytes: usize,
    },
}

impl TraceError {
    /// Whether reading can go on past this error (only a truncated tail qualifies, and
    /// it is the last line anyway).
    pub fn is_recoverable(&self) -> bool {
        matches!(self, TraceError::Truncated { .. })
    }

    /// The 1-based line number.
    pub fn line(&self) -> u64 {
        match self {
            TraceError::Io { line, .. }
            | TraceError::UnsupportedVersion { line, .. }
            | TraceError::Malformed { line, .. }
            | TraceError::Truncated { line, .. } => *line,
        }
    }
}

/// Reads events one line at a time; memory use does not grow with the trace.
///
/// As an iterator it gives [`Event`]s; [`TraceReader::next_brief`] gives what the
/// metrics read of each ([`Brief`]), scanned where the line lies without building the
/// event when the line is in the writer's form. Both read the same lines and
/// report the same errors.
#[derive(Debug)]
pub struct TraceReader<R: BufRead> {
    input: R,
    line: u64,
    done: bool,
    max_line: usize,
    /// Bytes of the input's buffer the last brief borrowed: consumed at the next read.
    pending: usize,
    /// The last line [`TraceReader::next_brief`] read whole, which its brief borrows.
    held: Option<Event>,
    /// The last line [`TraceReader::next_brief`] copied out (it did not lie whole in
    /// the buffer).
    copied: String,
}

/// A line that did not lie whole in the input's buffer, copied out.
enum Copied {
    /// In `TraceReader::copied`; `complete`: it ended with a newline.
    Line { complete: bool },
    /// Only whitespace.
    Blank,
    /// Unreadable.
    Failed(TraceError),
    /// The input ended.
    End,
}

/// A line the brief reader read in the buffer.
enum Scanned {
    /// Scanned where it lies: the episode id's place in the line, the rest.
    At { ep: std::ops::Range<usize>, t: u64, kind: BriefKind },
    /// Read whole (not in the writer's form).
    Whole(Event),
}

impl<R: BufRead> TraceReader<R> {
    /// Wraps a buffered reader.
    pub fn new(input: R) -> Self {
        Self::with_max_line(input, crate::limits::max_line_bytes())
    }

    /// Wraps a buffered reader; a line longer than `max_line` bytes is an error (it is
    /// read past, never held: one endless line took unbounded memory).
    pub fn with_max_line(input: R, max_line: usize) -> Self {
        TraceReader { input, line: 0, done: false, max_line, pending: 0, held: None, copied: String::new() }
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    /// A line that lies whole in the reader's buffer, given to `read` where it lies
    /// instead of being copied out first (one allocation a line less), and
    /// left in the buffer: its length with the newline, and `None` for a blank line.
    /// `None` when it does not lie whole there (its end is not buffered yet, it is too
    /// long, the input ended or failed): the line-copying path reads it.
    fn in_buffer<T>(
        &mut self,
        read: impl FnOnce(u64, &str) -> Result<T, TraceError>,
    ) -> Option<(usize, Option<Result<T, TraceError>>)> {
        let buf = self.input.fill_buf().ok()?;
        let end = memchr::memchr(b'\n', buf)?;
        if end > self.max_line {
            return None;
        }
        let bytes = buf[..end].strip_suffix(b"\r").unwrap_or(&buf[..end]);
        let line = self.line.saturating_add(1);
        let item = match std::str::from_utf8(bytes) {
            Ok(text) if text.trim().is_empty() => None,
            Ok(text) => Some(read(line, text)),
            Err(e) => {
                let reason = format!("not UTF-8 at byte {} of the line", e.valid_up_to().saturating_add(1));
                Some(Err(TraceError::Malformed { line, reason }))
            }
        };
        self.line = line;
        Some((end + 1, item))
    }

    /// The next line copied out of the input into `self.copied`.
    fn copy_line(&mut self) -> Copied {
        let (bytes, complete) = match crate::limits::read_line_capped(&mut self.input, self.max_line) {
            Ok(None) => {
                self.done = true;
                return Copied::End;
            }
            Ok(Some(Line::Text(b))) => (b, true),
            Ok(Some(Line::Unterminated(b))) => (b, false),
            Ok(Some(Line::TooLong(n))) => {
                self.line = self.line.saturating_add(1);
                let reason = format!(
                    "the line is {n} bytes, more than the limit of {} (set {} for more)",
                    self.max_line,
                    crate::limits::MAX_LINE_BYTES_VAR
                );
                return Copied::Failed(TraceError::Malformed { line: self.line, reason });
            }
            Err(source) => {
                self.done = true;
                return Copied::Failed(TraceError::Io { line: self.line.saturating_add(1), source });
            }
        };
        self.line = self.line.saturating_add(1);
        self.copied = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                if !complete {
                    self.done = true;
                }
                let at = e.utf8_error().valid_up_to().saturating_add(1);
                let reason = format!("not UTF-8 at byte {at} of the line");
                return Copied::Failed(TraceError::Malformed { line: self.line, reason });
            }
        };
        if self.copied.trim().is_empty() {
            return Copied::Blank;
        }
        if !complete {
            self.done = true;
        }
        Copied::Line { complete }
    }

    /// The next event as the metrics read it ([`Brief`]), or the error the iterator
    /// gives for that line. A line in the writer's form is scanned where it lies, with
    /// no allocation; any other is read as an [`Event`] and its brief taken.
    pub fn next_brief(&mut self) -> Option<Result<Brief<'_>, TraceError>> {
        let used = std::mem::take(&mut self.pending);
        self.input.consume(used);
        loop {
            if self.done {
                return None;
            }
            if let Some((len, item)) = self.in_buffer(scan_or_parse) {
                match item {
                    None => {
                        self.input.consume(len);
                        continue;
                    }
                    Some(Err(e)) => {
                        self.input.consume(len);
                        return Some(Err(e));
                    }
                    Some(Ok(Scanned::Whole(ev))) => {
                        self.input.consume(len);
                        return Some(Ok(Brief::of(self.held.insert(ev))));
                    }
                    Some(Ok(Scanned::At { ep, t, kind })) => {
                        // Left in the buffer for the brief to borrow; asking for the
                        // buffer again reads nothing (it is not empty).
                        self.pending = len;
                        let line = self.line;
                        let ep = self.input.fill_buf().ok().and_then(|b| std::str::from_utf8(b.get(ep)?).ok());
                        return Some(match ep {
                            Some(ep) => Ok(Brief { ep, t, kind }),
                            None => Err(TraceError::Io {
                                line,
                                source: io::Error::other("the input's buffer changed without a read"),
                            }),
                        });
                    }
                }
            }
            match self.copy_line() {
                Copied::End => return None,
                Copied::Failed(e) => return Some(Err(e)),
                Copied::Blank => {}
                Copied::Line { complete } => {
                    if let Some(b) = super::scan::brief(&self.copied) {
                        return Some(Ok(b));
                    }
                    let read = parse(self.line, &self.copied, complete);
                    return Some(read.map(|ev| Brief::of(self.held.insert(ev))));
                }
            }
        }
    }
}

/// Scans a line in the writer's form, else reads it whole.
fn scan_or_parse(line: u64, text: &str) -> Result<Scanned, TraceError> {
    match super::scan::brief(text) {
        Some(b) => {
            let at = (b.ep.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            Ok(Scanned::At { ep: at..at + b.ep.len(), t: b.t, kind: b.kind })
        }
        None => parse(line, text, true).map(Scanned::Whole),
    }
}

/// Parses line number `line`; `complete`: it ended with a newline.
fn parse(line: u64, text: &str, complete: bool) -> Result<Event, TraceError> {
    #[derive(Deserialize)]
    struct Probe {
        v: Option<serde_json::Value>,
    }
    match super::wire::parse(text) {
        Ok(ev) if u64::from(ev.v) == u64::from(TRACE_VERSION) => match super::ranges::check(&ev) {
            Ok(()) => Ok(ev),
            Err(reason) => Err(TraceError::Malformed { line, reason }),
        },
        Ok(ev) => Err(TraceError::UnsupportedVersion { line, found: u64::from(ev.v) }),
        Err(e) => {
            if !complete {
                return Err(TraceError::Truncated { line, bytes: text.len() });
            }
            // A newer major version may have changed any field: report the version,
            // not the first field that failed.
            if let Ok(Probe { v: Some(v) }) = serde_json::from_str::<Probe>(text) {
                match v.as_u64() {
                    Some(found) if found != u64::from(TRACE_VERSION) => {
                        return Err(TraceError::UnsupportedVersion { line, found });
                    }
                    _ => {}
                }
            }
            Err(TraceError::Malformed { line, reason: e.to_string() })
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Event, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        let used = std::mem::take(&mut self.pending);
        self.input.consume(used);
        loop {
            if self.done {
                return None;
            }
            if let Some((len, item)) = self.in_buffer(|line, text| parse(line, text, true)) {
                self.input.consume(len);
                match item {
                    Some(item) => return Some(item),
                    None => continue,
                }
            }
            match self.copy_line() {
                Copied::End => return None,
                Copied::Failed(e) => return Some(Err(e)),
                Copied::Blank => continue,
                Copied::Line { complete } => return Some(parse(self.line, &self.copied, complete)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::AgentId;
    use crate::trace::EventKind;

    fn sample() -> Vec<Event> {
        vec![
            Event {
                v: 1,
                ep: "e".into(),
                t: 0,
                kind: EventKind::EpisodeStart {
                    policy: crate::trace::Policy::Gated,
                    seed: 7,
                    config_hash: "abc".into(),
                    agents: vec![AgentId(0), AgentId(1)],
                    blueprint_blocks: 4,
                    class: None,
                    template: None,
                    split: None,
                    blueprint: None,
                    warnings: Vec::new(),
                    cells_dropped: None,
                    humans: Vec::new(),
                    executor: None,
                    experiment: false,
                },
            },
            Event {
                v: 1,
                ep: "e".into(),
                t: 9,
                kind: EventKind::EpisodeEnd {
                    tsr: 0.5,
                    complete: false,
                    correct_blocks: 2,
                    blueprint_blocks: 4,
                    reason: crate::trace::EndReason::TickLimit,
                    blocks_replaced: None,
                    scores: Default::default(),
                },
            },
        ]
    }

    fn written() -> String {
        let mut w = TraceWriter::new(Vec::new());
        for e in sample() {
            w.write(&e).unwrap();
        }
        String::from_utf8(w.into_inner()).unwrap()
    }

    #[test]
    fn round_trips() {
        let text = written();
        let back: Vec<Event> = TraceReader::new(text.as_bytes()).map(Result::unwrap).collect();
        assert_eq!(back, sample());
        assert!(text.starts_with(r#"{"v":1,"ep":"e","t":0,"kind":"episode_start","#));
    }

    #[test]
    fn truncated_tail_is_reported_and_reading_stops() {
        let mut text = written();
        text.push_str(r#"{"v":1,"ep":"e","t":10,"kind":"act"#);
        let items: Vec<_> = TraceReader::new(text.as_bytes()).collect();
        assert_eq!(items.len(), 3);
        let err = items[2].as_ref().unwrap_err();
        assert!(err.is_recoverable());
        assert_eq!(err.line(), 3);
    }

    #[test]
    fn garbage_line_is_an_error_with_its_number() {
        let text = written().replacen('\n', "\nnot json\n", 1);
        let items: Vec<_> = TraceReader::new(text.as_bytes()).collect();
        let err = items[1].as_ref().unwrap_err();
        assert!(matches!(err, TraceError::Malformed { line: 2, .. }), "{err}");
        assert!(!err.is_recoverable());
    }

    #[test]
    fn other_major_version_is_refused_clearly() {
        let text = "{\"v\":2,\"ep\":\"e\",\"t\":0,\"kind\":\"episode_start\",\"whatever\":1}\n";
        let err = TraceReader::new(text.as_bytes()).next().unwrap().unwrap_err();
        assert!(matches!(err, TraceError::UnsupportedVersion { found: 2, .. }), "{err}");
        assert!(err.to_string().contains("version 2 is not supported"));
    }

    #[test]
    fn lines_read_in_place_or_copied_give_the_same_items() {
        // Whole in one buffer (read in place), and through a 7-byte buffer (copied out),
        // with a blank line, CRLF, bad UTF-8, an over-long line and a truncated tail.
        let mut text = written().into_bytes();
        text.extend_from_slice(b"\r\n  \n");
        text.extend_from_slice(b"{\"v\":1,\xff}\n");
        text.extend_from_slice(format!("{}\n", "x".repeat(300)).as_bytes());
        text.extend_from_slice(written().replace('\n', "\r\n").as_bytes());
        text.extend_from_slice(b"{\"v\":1,\"ep\":\"e\"");
        let show = |items: Vec<Result<Event, TraceError>>| format!("{items:?}");
        let whole: Vec<_> = TraceReader::with_max_line(&text[..], 256).collect();
        let small = std::io::BufReader::with_capacity(7, &text[..]);
        let copied: Vec<_> = TraceReader::with_max_line(small, 256).collect();
        assert_eq!(whole.len(), 7, "{whole:?}");
        assert_eq!(show(whole), show(copied));
    }

    /// Briefs and events, read in place or copied out: the same lines, the same briefs,
    /// the same errors at the same lines.
    #[test]
    fn briefs_match_the_events() {
        let mut text = written().into_bytes();
        text.extend_from_slice(b"\r\n  \n");
        text.extend_from_slice(b"{\"v\":1,\xff}\n");
        text.extend_from_slice(format!("{}\n", "x".repeat(300)).as_bytes());
        text.extend_from_slice(written().replace('\n', "\r\n").as_bytes());
        text.extend_from_slice(b"{\"v\":1,\"ep\":\"e\",\"t\":1,\"kind\":\"chat\",\"from\":0,\"to\":1,\"tokens\":3}\n");
        text.extend_from_slice(b"{\"v\":1,\"ep\":\"e\",\"t\":1,\"kind\":\"chat\",\"to\":1,\"from\":0,\"tokens\":3}\n");
        text.extend_from_slice(b"{\"v\":2,\"ep\":\"e\",\"t\":1,\"kind\":\"chat\",\"from\":0,\"to\":1,\"tokens\":3}\n");
        text.extend_from_slice(b"{\"v\":1,\"ep\":\"e\",\"t\":2,\"kind\":\"chat\",\"from\":0,\"to\":1,\"tokens\":4}");
        for (capacity, tail) in [(1 << 16, &text[..]), (7, &text[..]), (1 << 16, &text[..text.len() - 20])] {
            let events: Vec<String> =
                TraceReader::with_max_line(std::io::BufReader::with_capacity(capacity, tail), 256)
                    .map(|item| match item {
                        Ok(ev) => format!("{:?}", crate::trace::Brief::of(&ev)),
                        Err(e) => format!("{e:?}"),
                    })
                    .collect();
            let mut reader = TraceReader::with_max_line(std::io::BufReader::with_capacity(capacity, tail), 256);
            let mut briefs = Vec::new();
            while let Some(item) = reader.next_brief() {
                briefs.push(match item {
                    Ok(b) => format!("{b:?}"),
                    Err(e) => format!("{e:?}"),
                });
            }
            assert_eq!(briefs, events, "buffer of {capacity}");
            assert_eq!(events.len(), 10, "{events:?}");
        }
    }

    #[test]
    fn unknown_kind_is_skippable() {
        let text = "{\"v\":1,\"ep\":\"e\",\"t\":0,\"kind\":\"telemetry\",\"x\":1}\n";
        let ev = TraceReader::new(text.as_bytes()).next().unwrap().unwrap();
        assert_eq!(ev.kind, EventKind::Other);
    }
}
