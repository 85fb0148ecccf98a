//! The local test server: `node harness.js`, flying-squid on a free loopback port with
//! a fresh in-memory superflat world and the server-side stand-ins (see
//! `bridge/standins.js`). It prints one ready line with its port and the height of
//! the ground; it exits when its stdin closes, and it is killed if dropped.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::process::Child;

use crate::error::{McError, StartError};
use crate::node;

/// The y a bot stands at on the harness's superflat ground (bedrock 0, dirt 1-3,
/// grass 4): what its ready line reports.
pub(crate) const HARNESS_GROUND_Y: i32 = 5;

/// How long the server may take to accept players.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct Ready {
    event: String,
    port: u16,
    ground_y: i32,
}

/// A running local server.
#[derive(Debug)]
pub struct LocalServer {
    child: Child,
    port: u16,
    pid: u32,
    ground_y: i32,
    ready_after: Duration,
}

impl LocalServer {
    /// Starts the harness for `version` and waits until it accepts players.
    pub async fn start(dir: &Path, version: &str) -> Result<LocalServer, McError> {
        let started = Instant::now();
        let args = ["--port", "0", "--host", "127.0.0.1", "--version", version].map(str::to_owned);
        let mut child = node::spawn_node(dir, "harness.js", &args)?;
        let pid = child.id().unwrap_or(0);
        let stdout = child.stdout.take().ok_or(McError::ServerStart(StartError::NoStdout))?;
        let mut lines = crate::node::CappedLines::new(stdout, "the harness");
        let first = tokio::time::timeout(READY_TIMEOUT, lines.next_line()).await;
        let line = match first {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => {
                let status = node::stop_child(&mut child, Duration::from_secs(1)).await;
                return Err(McError::ServerStart(StartError::Exited { status }));
            }
            Ok(Err(e)) => return Err(McError::ServerStart(StartError::Read(e))),
            Err(_) => {
                let status = node::stop_child(&mut child, Duration::from_secs(1)).await;
                return Err(McError::ServerStart(StartError::NotReady { after: READY_TIMEOUT, status }));
            }
        };
        let ready: Ready = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(source) => return Err(McError::ServerStart(StartError::Malformed { line, source })),
        };
        if ready.event != "ready" {
            return Err(McError::ServerStart(StartError::NotReadyEvent { line }));
        }
        // Keep draining stdout so that the harness never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let ready_after = started.elapsed();
        tracing::info!(pid, port = ready.port, secs = ready_after.as_secs_f64(), "local flying-squid ready");
        Ok(LocalServer { child, port: ready.port, pid, ground_y: ready.ground_y, ready_after })
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The y a bot stands at on the superflat ground.
    pub fn ground_y(&self) -> i32 {
        self.ground_y
    }

    /// How long it took to accept players.
    pub fn ready_after(&self) -> Duration {
        self.ready_after
    }

    /// Stops it (closing stdin, then killing it by PID after `grace`).
    pub async fn stop(mut self, grace: Duration) -> String {
        let status = node::stop_child(&mut self.child, grace).await;
        tracing::info!(pid = self.pid, status, "local server stopped");
        status
    }
}
