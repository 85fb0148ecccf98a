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

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use gatecrew_kitchen::trace::{FileFold, Folded, KitchenReader, LineErrorKind, TraceLineError, opens_kitchen_trace};
use gatecrew_protocol::limits::{Line, read_line_capped};

pub use report::{KitchenMean, KitchenReport, KitchenRow};

use crate::read::{AnalyzeError, ReadSummary};

/// Whether the first non-blank line of `path` opens a kitchen trace.
pub fn is_kitchen_trace(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let mut r = BufReader::new(file);
    loop {
        match read_line_capped(&mut r, gatecrew_protocol::limits::max_line_bytes()) {
            Ok(Some(Line::Text(b) | Line::Unterminated(b))) => {
                if b.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return opens_kitchen_trace(&b);
            }
            _ => return false,
        }
    }
}

fn error(path: &Path, e: TraceLineError) -> AnalyzeError {
    AnalyzeError::Trace { path: path.to_path_buf(), line: e.line, message: e.kind.to_string() }
}

/// Reads a kitchen trace into `sum` (its episodes, warnings and line count).
pub(crate) fn read_file(path: &Path, sum: &mut ReadSummary) -> Result<(), AnalyzeError> {
    let file = File::open(path).map_err(|source| AnalyzeError::Io { path: path.to_path_buf(), source })?;
    sum.kitchen_files = sum.kitchen_files.saturating_add(1);
    sum.kitchen_bytes = sum.kitchen_bytes.saturating_add(file.metadata().map(|m| m.len()).unwrap_or(0));
    let mut reader = KitchenReader::new(BufReader::with_capacity(1 << 16, file));
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
