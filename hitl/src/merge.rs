//! Merging rapid consecutive lines into one intent (the limitation paper 000, section
//! 6.2, names: "Hi", "Mine wood", "10 pieces" typed in a burst are one request). Lines
//! closer than the window to the previous one join a batch; a batch is classified once
//! the window has passed after its last line. A halt (by the stop rule, any phrasing)
//! is never held back: it flushes the batch before it and goes through at once. Time is episode ticks, so a
//! scripted session merges the same way on every run.

use gatecrew_protocol::Tick;

/// Lines joined into one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The lines, with the tick each arrived at.
    pub lines: Vec<(Tick, String)>,
}

impl Batch {
    /// The lines joined with spaces.
    pub fn text(&self) -> String {
        self.lines.iter().map(|(_, l)| l.trim()).collect::<Vec<_>>().join(" ")
    }
}

/// The merge buffer.
#[derive(Debug, Clone, Default)]
pub struct Merger {
    window: u64,
    buf: Vec<(Tick, String)>,
}

/// A halt by the stop rule is never held back for merging.
fn urgent(line: &str) -> bool {
    crate::stop::is_halt(line)
}

impl Merger {
    /// A buffer merging lines less than `window` ticks apart (0: never merge).
    pub fn new(window: u64) -> Self {
        Merger { window, buf: Vec::new() }
    }

    /// The window in ticks.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// A line arrives at `at`: the batches ready now (an urgent stop, or everything
    /// when merging is off).
    pub fn push(&mut self, at: Tick, line: &str) -> Vec<Batch> {
        let mut out = Vec::new();
        if urgent(line) {
            out.extend(self.flush());
            out.push(Batch { lines: vec![(at, line.to_owned())] });
            return out;
        }
        if let Some(&(last, _)) = self.buf.last() {
            // Saturating: `--merge-ticks` near u64::MAX overflowed here.
            if at.0 >= last.0.saturating_add(self.window) {
                out.extend(self.flush());
            }
        }
        self.buf.push((at, line.to_owned()));
        if self.window == 0 {
            out.extend(self.flush());
        }
        out
    }

    /// When the held batch is due (the window after its last line).
    pub fn due(&self) -> Option<Tick> {
        self.buf.last().map(|(t, _)| Tick(t.0.saturating_add(self.window)))
    }

    /// The held batch, if it is due at `now`.
    pub fn take_due(&mut self, now: Tick) -> Option<Batch> {
        if self.due().is_some_and(|d| d <= now) { self.flush() } else { None }
    }

    /// The held batch, whatever the time (end of input).
    pub fn flush(&mut self) -> Option<Batch> {
        (!self.buf.is_empty()).then(|| Batch { lines: std::mem::take(&mut self.buf) })
    }

    /// Whether lines are held.
    pub fn holding(&self) -> bool {
        !self.buf.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_one_batch_and_stop_goes_through_at_once() {
        let mut m = Merger::new(40);
        assert!(m.push(Tick(10), "hi").is_empty());
        assert!(m.push(Tick(30), "mine wood").is_empty());
        assert!(m.push(Tick(60), "10 pieces").is_empty());
        assert_eq!(m.due(), Some(Tick(100)));
        assert_eq!(m.take_due(Tick(99)), None);
        let b = m.take_due(Tick(100)).unwrap();
        assert_eq!(b.text(), "hi mine wood 10 pieces");
        assert!(m.push(Tick(200), "get planks").is_empty());
        let out = m.push(Tick(210), "stop");
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].text(), "get planks");
        assert_eq!(out[1].text(), "stop");
        // A line after the window closes the earlier batch.
        assert!(m.push(Tick(300), "a").is_empty());
        let out = m.push(Tick(400), "b");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text(), "a");
        let mut off = Merger::new(0);
        assert_eq!(off.push(Tick(1), "x").len(), 1);
    }

    /// `--merge-ticks` near `u64::MAX` (or a line at a huge tick) holds lines until the
    /// end instead of overflowing.
    #[test]
    fn a_huge_window_saturates() {
        let mut m = Merger::new(u64::MAX);
        assert!(m.push(Tick(10), "a").is_empty());
        assert!(m.push(Tick(u64::MAX - 1), "b").is_empty());
        assert_eq!(m.due(), Some(Tick(u64::MAX)));
        assert_eq!(m.take_due(Tick(u64::MAX)).map(|b| b.text()), Some("a b".into()));
    }
}
