//! Kitchen traces (`gatecrew cos --trace DIR`): read beside construction traces, and
//! reported as MindAgent's Collaboration Score per level, policy and crew size.
//!
//! A file is a kitchen trace when its first line's `kind` is `kitchen_start`. The
//! construction reader refuses such a line, so the check only runs when a file's first
//! line failed as a construction event: construction traces are read exactly as
//! before, at no extra cost.
//!
//! Every episode's counts come from its `kitchen_end`, checked against the events
//! before it ([`gatecrew_kitchen::trace::fold`]); CoS is computed with the same
//! arithmetic as `gatecrew cos` ([`report`]), so the two print the same figures.

mod report;
mod tables;

use std::io::{BufReader, Chain, Cursor, Read};
use std::path::Path;

use gatecrew_kitchen::trace::{FileFold, Folded, KitchenReader, LineErrorKind, TraceLineError, opens_kitchen_trace};

pub use report::{KitchenMean, KitchenReport, KitchenRow};

use crate::read::{AnalyzeError, ReadSummary};

/// A stream whose first bytes were read to tell what it holds, handed back whole.
pub type Sniffed<R> = Chain<Cursor<Vec<u8>>, R>;

/// Reads `r` up to the end of its first non-blank line and says whether that line
/// opens a kitchen trace; the stream comes back with the bytes read put in front, so
/// a pipe or a FIFO, which can be read only once, is read once. At most one line
/// past the line limit is held.
pub fn sniff<R: Read>(mut r: R) -> std::io::Result<(bool, Sniffed<R>)> {
    let cap = gatecrew_protocol::limits::max_line_bytes();
    let mut head = Vec::new();
    let mut chunk = [0u8; 8192];
    let kitchen = loop {
        let start = head.iter().position(|b: &u8| !b.is_ascii_whitespace());
        if let Some(s) = start {
            if let Some(n) = head[s..].iter().position(|&b| b == b'\n') {
                break opens_kitchen_trace(&head[s..s + n]);
            }
        }
        // A first line past the limit is no kitchen trace (the reader names its line).
        if head.len() - start.unwrap_or(0) > cap {
            break false;
        }
        match r.read(&mut chunk) {
            Ok(0) => break start.is_some_and(|s| opens_kitchen_trace(&head[s..])),
            Ok(n) => head.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    Ok((kitchen, Cursor::new(head).chain(r)))
}

fn error(path: &Path, e: TraceLineError) -> AnalyzeError {
    AnalyzeError::Trace { path: path.to_path_buf(), line: e.line, message: e.kind.to_string() }
}

/// Reads a kitchen trace (`path`, opened once as `stream`) into `sum` (its episodes,
/// warnings and line count; the caller counts its bytes).
pub(crate) fn read_stream<R: Read>(path: &Path, stream: R, sum: &mut ReadSummary) -> Result<(), AnalyzeError> {
    sum.kitchen_files = sum.kitchen_files.saturating_add(1);
    let mut reader = KitchenReader::new(BufReader::with_capacity(1 << 16, stream));
    let mut fold = FileFold::new();
    let cut = |sum: &mut ReadSummary, ep: &dyn std::fmt::Display| {
        sum.warnings
            .push(format!("{}: episode {ep} has no kitchen_end (cut short), left out of the figures", path.display()));
        sum.left_out = sum.left_out.saturating_add(1);
    };
    for item in reader.by_ref() {
        let (line, rec) = match item {
            Ok(x) => x,
            Err(e) if e.is_recoverable() => {
                sum.warnings.push(format!("{}:{}: {}", path.display(), e.line, e.kind));
                continue;
            }
            Err(e) => return Err(error(path, e)),
        };
        match fold.push(&rec) {
            Ok(Folded::Going) => {}
            Ok(Folded::Done(ep)) => sum.kitchen.push(*ep),
            Ok(Folded::CutShort(ep)) => cut(sum, &ep),
            Err(why) => return Err(error(path, TraceLineError { line, kind: LineErrorKind::Invalid(why) })),
        }
    }
    sum.kitchen_lines = sum.kitchen_lines.saturating_add(reader.lines_read());
    if let Some(ep) = fold.finish() {
        cut(sum, &ep);
    }
    Ok(())
}
