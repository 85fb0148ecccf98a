//! Trace lines: arbitrary bytes read as a JSON Lines trace.
//!
//! Checks that the reader neither skips nor invents a line (one item per non-blank
//! line, until a truncated or unreadable line ends the stream), that errors carry the
//! right line number, and that every event it accepts writes back to a line that reads
//! back as the same event and rewrites to the same bytes (traces are compared byte for
//! byte). The events then go through the two consumers of parsed traces that never see
//! a trace of our own making first: the metrics fold (`gatecrew analyze`) and the
//! adjudication replay (`--replay-adjudications`).

use gatecrew_crew::Replay;
use gatecrew_protocol::metrics::{EpisodeMetrics, GroupMetrics};
use gatecrew_protocol::trace::{Event, TRACE_VERSION, TraceError, TraceReader, TraceWriter};

/// The `trace_line` target.
pub fn trace_line(data: &[u8]) {
    let events = read_checked(data);
    for ev in &events {
        round_trip(ev);
    }
    fold_metrics(&events);
    // Malformed adjudications are errors with a position, never panics.
    if let Err((at, why)) = Replay::from_events(&events) {
        assert!((1..=events.len()).contains(&at), "replay error position {at} of {}: {why}", events.len());
    }
}

/// Reads the whole input, checking the reader's bookkeeping; returns the events.
fn read_checked(data: &[u8]) -> Vec<Event> {
    let mut reader = TraceReader::new(data);
    let mut events = Vec::new();
    let mut items = 0usize;
    let mut stopped = false;
    let mut last_line = 0u64;
    while let Some(item) = reader.next() {
        assert!(!stopped, "the reader went on after a truncated or unreadable line");
        items += 1;
        match item {
            Ok(ev) => {
                assert_eq!(ev.v, TRACE_VERSION, "an event of another version was accepted");
                events.push(ev);
            }
            Err(e) => {
                let expected = match e {
                    // The failed line was not counted.
                    TraceError::Io { .. } => reader.lines_read() + 1,
                    _ => reader.lines_read(),
                };
                assert_eq!(e.line(), expected, "error names the wrong line: {e}");
                assert!(e.line() > last_line, "line numbers go backwards: {e}");
                let prefix = format!("line {}: ", e.line());
                assert!(e.to_string().starts_with(&prefix), "the message does not lead with the line: {e}");
                if matches!(e, TraceError::Io { .. } | TraceError::Truncated { .. }) {
                    stopped = true;
                }
                last_line = e.line();
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        // What the reader must yield: one item per line with something on it.
        let lines = text.split_inclusive('\n').filter(|l| !l.trim_end_matches(['\n', '\r']).trim().is_empty());
        assert_eq!(items, lines.count(), "the reader skipped or invented lines");
        assert!(!stopped || !text.ends_with('\n'), "a trace of complete lines was cut short");
    }
    events
}

/// Writes an event, reads it back, writes it again.
fn round_trip(ev: &Event) {
    let first = write(ev);
    assert!(first.ends_with(b"\n") && first.iter().filter(|&&b| b == b'\n').count() == 1, "one event, one line");
    let back: Vec<Result<Event, TraceError>> = TraceReader::new(&first[..]).collect();
    let [Ok(again)] = back.as_slice() else {
        panic!("a written event does not read back: {back:?}\nline: {}", String::from_utf8_lossy(&first));
    };
    assert_eq!(again, ev, "the event changed through a write and a read");
    assert_eq!(write(again), first, "rewriting an event changed its bytes");
}

fn write(ev: &Event) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new());
    w.write(ev).expect("an event that was read can be written");
    w.into_inner()
}

/// The metrics fold: counts stay consistent whatever the events say.
fn fold_metrics(events: &[Event]) {
    let mut m = EpisodeMetrics::default();
    for ev in events {
        m.observe(ev);
    }
    assert!(m.escalated <= m.gated && m.escalated_unnecessary <= m.escalated);
    let _ = (m.stayed_local(), m.resolved(), m.lrr(), m.uer(), m.ecr(), m.rsr());
    for rate in [m.lrr(), m.uer()].into_iter().flatten() {
        assert!((0.0..=1.0).contains(&rate), "a share outside [0, 1]: {rate}");
    }
    let g = GroupMetrics::pool([&m, &m]);
    assert_eq!(g.episodes, 2);
    assert_eq!(g.totals.gated, 2 * m.gated);
}
