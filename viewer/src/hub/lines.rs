//! The hub's end of the feed: the run's trace bytes cut into lines and parsed (on the
//! hub's thread), with the world's inventories put back where they stand among the
//! events, by the number of lines before each.

use std::collections::VecDeque;

use gatecrew_protocol::trace::Event;

use super::feed::Batch;
use crate::inventory::WorldChange;

/// One thing to fold, in the run's order.
// Events are nearly every item, parsed on the hub's thread: boxing them would add an
// allocation per event there.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Item {
    Event(Event),
    /// The inventories that changed, right after the events before it.
    World(WorldChange),
}

impl Item {
    pub(super) fn tick(&self) -> u64 {
        match self {
            Item::Event(e) => e.t,
            Item::World(w) => w.tick,
        }
    }
}

/// Turns batches into items.
#[derive(Debug, Default)]
pub(super) struct Lines {
    /// The start of a line cut at the end of the last batch.
    partial: Vec<u8>,
    /// Whole lines seen.
    lines: u64,
    /// Inventories waiting for the lines they follow.
    pending: VecDeque<(u64, WorldChange)>,
    /// Lines that did not parse (never from a trace writer; counted, not shown).
    unreadable: u64,
}

impl Lines {
    /// Unpacks `batch` (emptied, its buffers kept) onto `out`.
    pub(super) fn take(&mut self, batch: &mut Batch, out: &mut VecDeque<Item>) {
        self.pending.extend(batch.world.drain(..));
        self.ready(out);
        let mut rest: &[u8] = &batch.bytes;
        if !self.partial.is_empty() {
            let Some(end) = rest.iter().position(|&b| b == b'\n') else {
                self.partial.extend_from_slice(rest);
                batch.bytes.clear();
                return;
            };
            self.partial.extend_from_slice(&rest[..end]);
            let line = std::mem::take(&mut self.partial);
            self.line(&line, out);
            self.partial = line;
            self.partial.clear();
            rest = &rest[end + 1..];
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.line(&rest[..end], out);
            rest = &rest[end + 1..];
        }
        self.partial.extend_from_slice(rest);
        batch.bytes.clear();
    }

    /// The run is over: inventories still waiting (their lines never came: the trace
    /// failed) are shown anyway.
    pub(super) fn close(&mut self, out: &mut VecDeque<Item>) {
        out.extend(self.pending.drain(..).map(|(_, w)| Item::World(w)));
    }

    fn line(&mut self, line: &[u8], out: &mut VecDeque<Item>) {
        self.lines += 1;
        match serde_json::from_slice::<Event>(line) {
            Ok(ev) => out.push_back(Item::Event(ev)),
            Err(e) => {
                self.unreadable += 1;
                if self.unreadable == 1 {
                    tracing::warn!(line = self.lines, "the viewer could not read a trace line: {e}");
                }
            }
        }
        self.ready(out);
    }

    /// Hands on the inventories whose lines have all come.
    fn ready(&mut self, out: &mut VecDeque<Item>) {
        while self.pending.front().is_some_and(|(after, _)| *after <= self.lines) {
            if let Some((_, w)) = self.pending.pop_front() {
                out.push_back(Item::World(w));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatecrew_protocol::trace::{EventKind, TRACE_VERSION, TraceWriter};
    use std::sync::Arc;

    fn change(tick: u64) -> WorldChange {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json"));
        WorldChange { tick, bots: Vec::new(), data: Arc::new(gatecrew_world::GameData::load(path).unwrap()) }
    }

    #[test]
    fn lines_cut_anywhere_come_out_whole_with_the_inventories_in_place() {
        let mut w = TraceWriter::new(Vec::new());
        for t in 0..5 {
            let kind = EventKind::Restart { agent: gatecrew_protocol::AgentId(t as u32 % 2), cause: "x\ny".into() };
            w.write(&Event { v: TRACE_VERSION, ep: "e".into(), t, kind }).unwrap();
        }
        let bytes = w.into_inner();
        // Every way of cutting the bytes in two batches; inventories after lines 2 and 5.
        for cut in 0..=bytes.len() {
            let mut lines = Lines::default();
            let mut out = VecDeque::new();
            let mut a = Batch { bytes: bytes[..cut].to_vec(), world: vec![(2, change(100)), (5, change(101))] };
            lines.take(&mut a, &mut out);
            assert!(a.bytes.is_empty() && a.world.is_empty());
            let mut b = Batch { bytes: bytes[cut..].to_vec(), world: Vec::new() };
            lines.take(&mut b, &mut out);
            let order: Vec<u64> = out.iter().map(Item::tick).collect();
            assert_eq!(order, [0, 1, 100, 2, 3, 4, 101], "cut at {cut}");
        }
    }

    #[test]
    fn inventories_whose_lines_never_come_are_shown_at_the_close() {
        let mut lines = Lines::default();
        let mut out = VecDeque::new();
        lines.take(&mut Batch { bytes: Vec::new(), world: vec![(1, change(7))] }, &mut out);
        assert!(out.is_empty());
        lines.close(&mut out);
        assert_eq!(out.iter().map(Item::tick).collect::<Vec<_>>(), [7]);
    }
}
