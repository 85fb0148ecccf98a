//! The hub's end of the feed: the run's trace bytes kept as they come ([`Lines::stash`],
//! a copy) and cut into lines and parsed only when the page is about to see them
//! ([`Lines::parse`]), on the hub's thread, with the world's inventories put back where
//! they stand among the events, by the number of lines before each.
//!
//! Parsing is nearly all the viewer's work, and on a machine whose cores are busy it
//! takes CPU from the run, so the hub parses as little as it can: nothing between
//! publishes, and nothing of an episode that ended before the page could show it (a
//! feed that goes on to another episode starts the view afresh, so only the lines from
//! the last `episode_start` on can ever be seen). docs/benchmarks.md has what this
//! saves on the viewer bench.

use std::collections::VecDeque;
use std::sync::Arc;

use gatecrew_protocol::trace::{Event, EventKind, parse_line};
use gatecrew_world::{GameData, Inventory};

use super::feed::Batch;
use crate::inventory::WorldChange;

/// How an `episode_start` line names its kind, as the trace writer writes every line
/// (`{"v":..,"ep":..,"t":..,"kind":"episode_start",..}`). Inside a JSON string a quote
/// is escaped, so these bytes only occur as a key and its value; a candidate line is
/// still parsed before anything is skipped for it.
const EPISODE_START: &[u8] = br#""kind":"episode_start""#;

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
    /// Bytes not parsed yet: whole lines, and the start of a line cut at the end of the
    /// last batch.
    raw: Vec<u8>,
    /// Whole lines parsed or skipped.
    lines: u64,
    /// Inventories waiting for the lines they follow.
    pending: VecDeque<(u64, WorldChange)>,
    /// Lines that did not parse (never from a trace writer; counted, not shown).
    unreadable: u64,
    /// Lines skipped: episodes over before they were shown.
    skipped: u64,
    /// For the item names of the probe's inventories.
    data: Option<Arc<GameData>>,
}

impl Lines {
    /// Keeps what `batch` brought (emptied, its buffers kept) for the next [`Self::parse`].
    pub(super) fn stash(&mut self, batch: &mut Batch) {
        if let Some(d) = batch.data.take() {
            self.data = Some(d);
        }
        if let Some(data) = &self.data {
            let mut start = 0;
            for m in batch.marks.drain(..) {
                let mut inv = Inventory::default();
                for &(item, n) in &batch.items[start..m.end] {
                    inv.insert_unchecked(item, n);
                }
                start = m.end;
                // The bots of one probe step travel as one change.
                match self.pending.back_mut() {
                    Some((after, w)) if *after == m.after && w.tick == m.tick => w.bots.push((m.agent, inv)),
                    _ => self.pending.push_back((
                        m.after,
                        WorldChange { tick: m.tick, bots: vec![(m.agent, inv)], data: data.clone() },
                    )),
                }
            }
        }
        batch.marks.clear();
        batch.items.clear();
        self.raw.extend_from_slice(&batch.bytes);
        batch.bytes.clear();
    }

    /// Bytes stashed and not parsed yet.
    pub(super) fn stashed(&self) -> usize {
        self.raw.len()
    }

    /// Lines skipped so far because their episode ended before it was shown.
    #[cfg(test)]
    pub(super) fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Parses every whole line stashed onto `out`, inventories in place. With
    /// `latest_episode`, lines before the last `episode_start` (and the inventories
    /// among them) are dropped unparsed: folded, they would be thrown away by that
    /// start. Only for a consumer that folds everything it gets before showing any of
    /// it (not a paced replay, which shows the items one by one).
    pub(super) fn parse(&mut self, latest_episode: bool, out: &mut VecDeque<Item>) {
        let whole = memchr::memrchr(b'\n', &self.raw).map_or(0, |i| i + 1);
        let mut from = 0;
        if latest_episode {
            if let Some(start) = self.last_start(&self.raw[..whole]) {
                let skipped = memchr::memchr_iter(b'\n', &self.raw[..start]).count() as u64;
                self.lines += skipped;
                self.skipped += skipped;
                while self.pending.front().is_some_and(|(after, _)| *after <= self.lines) {
                    self.pending.pop_front();
                }
                from = start;
            }
        }
        self.ready(out);
        let raw = std::mem::take(&mut self.raw);
        let mut at = from;
        for end in memchr::memchr_iter(b'\n', &raw[from..whole]) {
            let end = from + end;
            self.line(&raw[at..end], out);
            at = end + 1;
        }
        self.raw = raw;
        self.raw.drain(..whole);
    }

    /// Where the last `episode_start` line in `whole` (whole lines) begins.
    fn last_start(&self, whole: &[u8]) -> Option<usize> {
        let finder = memchr::memmem::FinderRev::new(EPISODE_START);
        let mut end = whole.len();
        while let Some(hit) = finder.rfind(&whole[..end]) {
            let start = memchr::memrchr(b'\n', &whole[..hit]).map_or(0, |i| i + 1);
            let stop = memchr::memchr(b'\n', &whole[hit..]).map_or(whole.len(), |i| hit + i);
            let is_start = std::str::from_utf8(&whole[start..stop])
                .ok()
                .and_then(|l| parse_line(l).ok())
                .is_some_and(|ev| matches!(ev.kind, EventKind::EpisodeStart { .. }));
            if is_start {
                return Some(start);
            }
            end = hit;
        }
        None
    }

    /// The run is over: inventories still waiting (their lines never came: the trace
    /// failed) are shown anyway.
    pub(super) fn close(&mut self, out: &mut VecDeque<Item>) {
        out.extend(self.pending.drain(..).map(|(_, w)| Item::World(w)));
    }

    fn line(&mut self, line: &[u8], out: &mut VecDeque<Item>) {
        self.lines += 1;
        let parsed =
            std::str::from_utf8(line).map_err(|e| e.to_string()).and_then(|l| parse_line(l).map_err(|e| e.to_string()));
        match parsed {
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

    fn data() -> Arc<GameData> {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json"));
        Arc::new(GameData::load(path).unwrap())
    }

    /// A batch of `bytes` with one bot's (empty) inventory after each `(line, tick)`.
    fn batch(bytes: &[u8], world: &[(u64, u64)], data: &Arc<GameData>) -> Batch {
        let mut b = Batch { bytes: bytes.to_vec(), ..Batch::default() };
        for &(after, tick) in world {
            b.push_world(after, tick, data, [(0, &[][..])]);
        }
        b
    }

    #[test]
    fn lines_cut_anywhere_come_out_whole_with_the_inventories_in_place() {
        let mut w = TraceWriter::new(Vec::new());
        for t in 0..5 {
            let kind = EventKind::Restart { agent: gatecrew_protocol::AgentId(t as u32 % 2), cause: "x\ny".into() };
            w.write(&Event { v: TRACE_VERSION, ep: "e".into(), t, kind }).unwrap();
        }
        let bytes = w.into_inner();
        let data = data();
        // Every way of cutting the bytes in two batches; inventories after lines 2 and 5.
        for cut in 0..=bytes.len() {
            let mut lines = Lines::default();
            let mut out = VecDeque::new();
            let mut a = batch(&bytes[..cut], &[(2, 100), (5, 101)], &data);
            lines.stash(&mut a);
            lines.parse(false, &mut out);
            assert!(a.bytes.is_empty() && a.marks.is_empty() && a.items.is_empty());
            let mut b = batch(&bytes[cut..], &[], &data);
            lines.stash(&mut b);
            lines.parse(false, &mut out);
            assert_eq!(lines.stashed(), 0, "cut at {cut}: every line whole");
            let order: Vec<u64> = out.iter().map(Item::tick).collect();
            assert_eq!(order, [0, 1, 100, 2, 3, 4, 101], "cut at {cut}");
        }
    }

    #[test]
    fn inventories_whose_lines_never_come_are_shown_at_the_close() {
        let mut lines = Lines::default();
        let mut out = VecDeque::new();
        lines.stash(&mut batch(&[], &[(1, 7)], &data()));
        lines.parse(true, &mut out);
        assert!(out.is_empty());
        lines.close(&mut out);
        assert_eq!(out.iter().map(Item::tick).collect::<Vec<_>>(), [7]);
    }
}
