//! The bridge client: starts `node bridge.js` with tokio::process, writes requests with
//! fresh ids, matches replies to them, and forwards pushed events. The bridge runs one
//! command at a time per bot; callers may have requests for different bots in flight.
//! When the process dies every waiting request fails with [`BridgeError::Exited`] and
//! an [`Event::BridgeExited`] is pushed.
//!
//! Every reply is timed: the round trip seen here minus the time the command spent in
//! the game (`elapsed_ms`, measured inside the bridge) is the bridge's own overhead,
//! kept per command for [`Bridge::latencies`] and recorded as a histogram.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin};
use tokio::sync::{mpsc, oneshot};

use crate::error::{BridgeError, McError};
use crate::node;
use crate::wire::{Command, Data, Event, Incoming, Request, parse_line};

/// How long the bridge may take to load.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

type Waiter = oneshot::Sender<Result<Data, BridgeError>>;

/// One timed command.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// The command.
    pub cmd: &'static str,
    /// Round trip seen by this client, milliseconds.
    pub round_trip_ms: f64,
    /// Time the command spent in the game, inside the bridge, milliseconds.
    pub game_ms: f64,
}

impl Latency {
    /// The bridge's own share: round trip minus game time.
    pub fn overhead_ms(&self) -> f64 {
        (self.round_trip_ms - self.game_ms).max(0.0)
    }
}

#[derive(Default)]
struct Shared {
    waiting: Mutex<BTreeMap<u64, (String, Waiter)>>,
    exited: Mutex<Option<String>>,
    latencies: Mutex<Vec<Latency>>,
}

impl Shared {
    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The process is gone: fail everyone waiting, once.
    fn close(&self, status: String) {
        *Self::lock(&self.exited) = Some(status.clone());
        let waiting = std::mem::take(&mut *Self::lock(&self.waiting));
        for (_, (_, w)) in waiting {
            let _ = w.send(Err(BridgeError::Exited(status.clone())));
        }
    }
}

/// A running bridge process.
pub struct Bridge {
    child: Arc<tokio::sync::Mutex<Child>>,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    pid: u32,
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bridge").field("pid", &self.pid).finish()
    }
}

impl Bridge {
    /// Starts `node bridge.js` in `dir` and waits until it answers (loading mineflayer
    /// takes a moment, which is not charged to any command); events go to the returned
    /// receiver.
    pub async fn start(dir: &Path) -> Result<(Bridge, mpsc::UnboundedReceiver<Event>), McError> {
        let mut child = node::spawn_node(dir, "bridge.js", &[])?;
        let pid = child.id().unwrap_or(0);
        let stdout = child.stdout.take().ok_or(McError::ServerStart(crate::error::StartError::BridgeNoStdout))?;
        let stdin = child.stdin.take();
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::unbounded_channel();
        let reader_shared = shared.clone();
        let child = Arc::new(tokio::sync::Mutex::new(child));
        let reader_child = child.clone();
        tokio::spawn(async move {
            let mut lines = node::CappedLines::new(stdout, "the bridge");
            loop {
                match lines.next_line().await {
                    Ok(Some(line)) => route(&reader_shared, &tx, &line),
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!(pid, "reading the bridge: {e}");
                        break;
                    }
                }
            }
            // Its stdout closed: say how the process ended, if it did.
            let wait = async { reader_child.lock().await.wait().await };
            let status = match tokio::time::timeout(Duration::from_secs(2), wait).await {
                Ok(Ok(s)) => format!("pid {pid}, {s}"),
                _ => format!("pid {pid}: its stdout closed"),
            };
            reader_shared.close(status.clone());
            let _ = tx.send(Event::BridgeExited { status });
        });
        tracing::info!(pid, "bridge started");
        let bridge = Bridge { child, stdin: tokio::sync::Mutex::new(stdin), shared, next_id: AtomicU64::new(1), pid };
        if let Err(e) = bridge.request("-", &Command::Ping, READY_TIMEOUT).await {
            bridge.kill().await;
            return Err(McError::Bridge(e));
        }
        Shared::lock(&bridge.shared.latencies).clear();
        Ok((bridge, rx))
    }

    /// The bridge's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether the process is gone (and why).
    pub fn exited(&self) -> Option<String> {
        Shared::lock(&self.shared.exited).clone()
    }

    /// Sends a command for `bot` and waits for its answer, at most `wait`.
    pub async fn request(&self, bot: &str, cmd: &Command, wait: Duration) -> Result<Data, BridgeError> {
        if let Some(status) = self.exited() {
            return Err(BridgeError::Exited(status));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        Shared::lock(&self.shared.waiting).insert(id, (bot.to_owned(), tx));
        let mut line = serde_json::to_string(&Request { id, bot, cmd }).unwrap_or_default();
        line.push('\n');
        let started = Instant::now();
        let written = match self.stdin.lock().await.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .await
                .map_err(|e| BridgeError::Write { pid: self.pid, source: Arc::new(e) }),
            None => Err(BridgeError::Exited(format!("pid {}: cannot write a request: stdin closed", self.pid))),
        };
        if let Err(e) = written {
            Shared::lock(&self.shared.waiting).remove(&id);
            return Err(e);
        }
        let answer = match tokio::time::timeout(wait, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(BridgeError::Exited(self.exited().unwrap_or_else(|| "gone".into()))),
            Err(_) => {
                Shared::lock(&self.shared.waiting).remove(&id);
                return Err(BridgeError::NoAnswer { bot: bot.to_owned(), after: wait });
            }
        };
        let round_trip_ms = started.elapsed().as_secs_f64() * 1000.0;
        let game_ms = match &answer {
            Ok(d) => Some(d.elapsed_ms),
            Err(BridgeError::Command { data: Some(d), .. }) => Some(d.elapsed_ms),
            Err(_) => None,
        };
        if let Some(game_ms) = game_ms {
            let l = Latency { cmd: cmd.name(), round_trip_ms, game_ms };
            metrics::histogram!("gatecrew_bridge_overhead_ms", "cmd" => l.cmd).record(l.overhead_ms());
            tracing::trace!(bot, cmd = l.cmd, round_trip_ms = l.round_trip_ms, game_ms = l.game_ms, "bridge command");
            Shared::lock(&self.shared.latencies).push(l);
        }
        answer
    }

    /// Every timed command so far.
    pub fn latencies(&self) -> Vec<Latency> {
        Shared::lock(&self.shared.latencies).clone()
    }

    /// Kills the process by PID at once (a fault test, or giving up).
    pub async fn kill(&self) {
        let mut child = self.child.lock().await;
        let _ = child.start_kill();
        let _ = child.wait().await;
    }

    /// Stops the bridge: closing stdin makes it quit every bot and exit; after `grace`
    /// it is killed. Returns how it ended.
    pub async fn stop(&self, grace: Duration) -> String {
        drop(self.stdin.lock().await.take());
        let mut child = self.child.lock().await;
        let status = node::stop_child(&mut child, grace).await;
        tracing::info!(pid = self.pid, status, "bridge stopped");
        status
    }
}

fn route(shared: &Shared, events: &mpsc::UnboundedSender<Event>, line: &str) {
    match parse_line(line) {
        Ok(Incoming::Reply { id, result }) => {
            let Some((bot, waiter)) = Shared::lock(&shared.waiting).remove(&id) else {
                tracing::warn!(id, "a reply nobody waits for");
                return;
            };
            let result =
                result.map(|d| *d).map_err(|(code, message, data)| BridgeError::Command { bot, code, message, data });
            let _ = waiter.send(result);
        }
        Ok(Incoming::Event(e)) => {
            let _ = events.send(e);
        }
        Err(e) => tracing::warn!("bridge: {e}"),
    }
}
