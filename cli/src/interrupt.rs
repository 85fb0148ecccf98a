//! SIGINT and SIGTERM: the first says which on stderr, flushes every open output (a
//! trace in progress keeps every line written so far, under its `.partial` name) and
//! exits with 128 + the signal's number, as shells report it (130, 143); a second
//! exits at once. Without this a live session's trace sat in a write buffer and Ctrl-C
//! lost it all.
//!
//! Outputs register by being written through a [`Shared`] writer: whole lines go in
//! under its lock, so a flush from the signal thread never cuts a line in two.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

type Inner = Mutex<BufWriter<File>>;

/// Every open shared output.
static OPEN: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());
/// Signals received.
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

/// The exit code after SIGINT (128 + 2, as shells report it).
pub const INTERRUPTED: i32 = 130;
/// The exit code after SIGTERM (128 + 15).
pub const TERMINATED: i32 = 143;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A writer that panicked mid-write still holds whole lines before the one it was
    // writing; flushing them is better than losing them.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A buffered file that the signal handler can flush.
#[derive(Debug, Clone)]
pub struct Shared(Arc<Inner>);

impl Shared {
    /// Buffers `file` and registers it.
    pub fn new(file: File) -> Self {
        let inner = Arc::new(Mutex::new(BufWriter::new(file)));
        let mut open = lock(&OPEN);
        open.retain(|w| w.strong_count() > 0);
        open.push(Arc::downgrade(&inner));
        Shared(inner)
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        lock(&self.0).write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        lock(&self.0).write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        lock(&self.0).flush()
    }
}

impl Shared {
    /// Flushes the buffer and, with `sync`, the file to disk.
    pub fn finish(&self, sync: bool) -> io::Result<()> {
        let mut w = lock(&self.0);
        w.flush()?;
        if sync { w.get_ref().sync_all() } else { Ok(()) }
    }
}

/// Flushes every open shared output to disk; returns how many.
pub fn flush_all() -> usize {
    let open: Vec<Arc<Inner>> = lock(&OPEN).iter().filter_map(Weak::upgrade).collect();
    for w in &open {
        let mut w = lock(w);
        let _ = w.flush();
        let _ = w.get_ref().sync_all();
    }
    open.len()
}

/// Starts the thread that waits for SIGINT and SIGTERM (the binary calls this once;
/// tests that drive the command line in-process do not).
pub fn install() {
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(|| {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            #[cfg(unix)]
            let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            loop {
                #[cfg(unix)]
                let term_recv = async {
                    match term.as_mut() {
                        Some(t) => t.recv().await,
                        None => std::future::pending().await,
                    }
                };
                #[cfg(not(unix))]
                let term_recv = std::future::pending::<Option<()>>();
                let code = tokio::select! {
                    r = tokio::signal::ctrl_c() => if r.is_err() { return } else { INTERRUPTED },
                    _ = term_recv => TERMINATED,
                };
                on_signal(code);
            }
        });
    });
    if let Err(e) = spawned {
        tracing::warn!("cannot watch for Ctrl-C ({e}): an interrupted run may lose buffered output");
    }
}

fn on_signal(code: i32) {
    if SIGNALS.fetch_add(1, Ordering::SeqCst) > 0 {
        std::process::exit(code);
    }
    let name = if code == TERMINATED { "SIGTERM" } else { "SIGINT" };
    eprintln!("gatecrew: {name} received: stopping");
    // The flush runs on its own thread so that a second signal is heard while it waits
    // for a writer's lock.
    let _ = std::thread::Builder::new().name("flush".into()).spawn(move || {
        if flush_all() > 0 {
            eprintln!("gatecrew: output flushed; a trace in progress stays as its .partial file");
        }
        std::process::exit(code);
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn flush_all_writes_out_every_open_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        let mut w = Shared::new(File::create(&p).unwrap());
        w.write_all(b"a line\n").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"", "still buffered");
        assert!(flush_all() >= 1);
        assert_eq!(std::fs::read(&p).unwrap(), b"a line\n");
    }
}
