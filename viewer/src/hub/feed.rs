//! The run's end of the live feed: what the crew's threads do for the viewer, kept to
//! copying bytes. The trace's lines, as they are written ([`TraceTee`]), are appended to
//! one shared buffer; the probe appends the inventories that changed, flat (item counts
//! into one buffer, a [`Mark`] per bot), each marked with the number of trace lines
//! before it. No event is cloned or parsed on the run's side, and nothing is allocated
//! there once the buffers have grown to their working size: the hub swaps in emptied
//! buffers that keep their capacity. Memory the run allocates and the hub frees is what
//! slowed the run before (glibc's allocator on the crew's thread: docs/benchmarks.md).

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use gatecrew_protocol::ItemId;
use gatecrew_world::GameData;

/// The hub takes the buffer at the latest when it holds this many bytes of trace (about
/// a few hundred lines): the run then never waits for memory to be found for a buffer
/// bigger than this, and the hub parses in steps of this size. One wake-up per this
/// many bytes costs the run nothing to speak of.
pub const TAKE_AT: usize = 64 * 1024;

/// What the run handed over since the hub last took it.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// Trace bytes as written (lines, the last one possibly cut).
    pub(super) bytes: Vec<u8>,
    /// The probe's inventories, flat ([`super::lines::Lines::stash`] turns them into
    /// [`crate::inventory::WorldChange`]s): one mark per bot whose inventory changed...
    pub(super) marks: Vec<Mark>,
    /// ...and the item counts the marks end at.
    pub(super) items: Vec<(ItemId, u32)>,
    /// For the item names (the hub names them when it publishes).
    pub(super) data: Option<Arc<GameData>>,
}

impl Batch {
    /// Appends the inventories of `bots` at `tick`, after `after` trace lines.
    pub(super) fn push_world<'a>(
        &mut self,
        after: u64,
        tick: u64,
        data: &Arc<GameData>,
        bots: impl IntoIterator<Item = (u32, &'a [(ItemId, u32)])>,
    ) {
        if self.data.is_none() {
            self.data = Some(data.clone());
        }
        for (agent, items) in bots {
            self.items.extend_from_slice(items);
            let end = self.items.len();
            self.marks.push(Mark { after, tick, agent, end });
        }
    }
}

/// One bot's inventory in [`Batch::items`]: from the previous mark's `end` to its own.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mark {
    /// Trace lines before it.
    pub(super) after: u64,
    pub(super) tick: u64,
    pub(super) agent: u32,
    pub(super) end: usize,
}

#[derive(Debug, Default)]
pub(super) struct Shared {
    pub(super) batch: Mutex<Batch>,
    pub(super) finished: AtomicBool,
    /// Wakes the hub when [`TAKE_AT`] bytes are waiting.
    pub(super) full: tokio::sync::Notify,
}

impl Shared {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Batch> {
        self.batch.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The run's end of the live feed. Handing over never blocks on the viewer; once the
/// run calls [`Feed::finish`] (or every clone and every [`TraceTee`] is dropped) the
/// hub publishes what is left and keeps the last state.
///
/// The hub needs both ends: the trace's bytes through [`Feed::trace`], and (for exact
/// inventories) the run's setup probed with [`crate::crew::ViewProbe::feeding`].
#[derive(Debug, Clone)]
pub struct Feed {
    pub(super) shared: Arc<Shared>,
}

impl Feed {
    /// Wraps the run's trace output: every byte written to `out` is handed to the hub
    /// too (after `out` took it), which parses the lines on its own thread. The bytes
    /// `out` gets are untouched.
    pub fn trace<W: Write>(&self, out: W) -> TraceTee<W> {
        TraceTee { out, to: Some(self.clone()) }
    }

    /// The inventories that changed at `tick`, right after the feed's first `after`
    /// trace lines (the probe counts the events it sees drained; the trace writes them
    /// in that order): each bot's whole inventory now, as item counts.
    pub(crate) fn world<'a>(
        &self,
        after: u64,
        tick: u64,
        data: &Arc<GameData>,
        bots: impl IntoIterator<Item = (u32, &'a [(ItemId, u32)])>,
    ) {
        self.shared.lock().push_world(after, tick, data, bots);
    }

    fn bytes(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut b = self.shared.lock();
        let before = b.bytes.len();
        b.bytes.extend_from_slice(bytes);
        let crossed = before < TAKE_AT && b.bytes.len() >= TAKE_AT;
        drop(b);
        if crossed {
            self.shared.full.notify_one();
        }
    }

    /// The run is over: nothing more comes (clones held elsewhere, e.g. by a probe in
    /// a setup, need not be dropped first).
    pub fn finish(&self) {
        self.shared.finished.store(true, Ordering::Release);
        // Publish the end now rather than at the next interval.
        self.shared.full.notify_one();
    }
}

/// A trace writer's output that also feeds the hub ([`Feed::trace`]); without a feed,
/// just the output.
#[derive(Debug)]
pub struct TraceTee<W> {
    out: W,
    to: Option<Feed>,
}

impl<W> TraceTee<W> {
    /// `out`, feeding `feed` if there is one (a run with `--serve` or without).
    pub fn new(out: W, feed: Option<&Feed>) -> Self {
        TraceTee { out, to: feed.cloned() }
    }

    /// The output.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Write for TraceTee<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        if let Some(f) = &self.to {
            f.bytes(&buf[..n]);
        }
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)?;
        if let Some(f) = &self.to {
            f.bytes(buf);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
