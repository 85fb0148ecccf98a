//! The run's end of the live feed: what the crew's threads do for the viewer, kept to
//! copying bytes. The trace's lines, as they are written ([`TraceTee`]), are appended to
//! one shared buffer; the probe adds the inventories that changed, each marked with the
//! number of trace lines before it. No event is cloned or parsed on the run's side, and
//! nothing is allocated there once the buffer has grown to its working size: the hub
//! swaps in an emptied buffer that keeps its capacity.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::inventory::WorldChange;

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
    /// Inventories that changed, each after this many trace lines of the feed.
    pub(super) world: Vec<(u64, WorldChange)>,
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

    /// The inventories that changed, right after the feed's first `after` trace lines
    /// (the probe counts the events it sees drained; the trace writes them in that order).
    pub(crate) fn world(&self, after: u64, change: WorldChange) {
        self.shared.lock().world.push((after, change));
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
