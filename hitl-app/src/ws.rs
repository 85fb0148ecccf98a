//! The websocket side of a live session: every text message from a client is one chat
//! line; every line the partner says goes to every client. Only loopback listeners
//! are made (the command line binds 127.0.0.1), and connections from elsewhere are
//! refused all the same.
//!
//! A local port is still reachable from every web page the user has open, and from
//! any local program: a browser's handshake must come from a loopback
//! origin; a handshake must finish within [`WsLimits::handshake`]; at most
//! [`WsLimits::clients`] connections are open (handshakes included) and the rest are
//! closed at once; a message larger than the chat limit closes its connection; lines
//! go to the episode through a bounded channel, so a flooding client waits; and when
//! accepting fails (no file descriptors left) the loop backs off instead of spinning.

use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use gatecrew_protocol::limits;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, broadcast, mpsc};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// The variable that overrides [`WsLimits::clients`]' default.
pub const MAX_CLIENTS_VAR: &str = "GATECREW_WS_MAX_CLIENTS";
/// The variable that overrides [`WsLimits::handshake`]' default (milliseconds).
pub const HANDSHAKE_MS_VAR: &str = "GATECREW_WS_HANDSHAKE_MS";

/// How many chat lines may wait for the episode: a person types a few a second and
/// the episode takes them every tick.
pub const LINE_QUEUE: usize = 64;

/// The websocket's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WsLimits {
    /// Open connections, handshakes included (default 8: a chat window or two, and
    /// room for reconnects).
    pub clients: usize,
    /// Time for a client to finish its handshake (default 5 s; a local client needs
    /// milliseconds).
    pub handshake: Duration,
    /// Largest message, in bytes (the chat limit, `GATECREW_MAX_CHAT_BYTES`).
    pub message_bytes: usize,
}

impl WsLimits {
    /// The defaults, with the environment's overrides.
    pub fn from_env() -> Self {
        WsLimits {
            clients: limits::env_limit(MAX_CLIENTS_VAR, 8),
            handshake: Duration::from_millis(u64::try_from(limits::env_limit(HANDSHAKE_MS_VAR, 5000)).unwrap_or(5000)),
            message_bytes: limits::max_chat_bytes(),
        }
    }
}

/// Whether a handshake's `Origin` may drive the bot: none (a program, not a browser)
/// or a page served from this machine.
pub fn origin_allowed(origin: Option<&str>) -> bool {
    let Some(origin) = origin else { return true };
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        // "null" (a local file, a sandboxed frame) and anything else.
        return false;
    };
    // An origin is `scheme://host[:port]` and nothing else. Brackets hold an IPv6
    // address, never a name (the `line_split` fuzz target found "https://[localhost]:300"
    // and "https://[::01]junk" let in).
    let (host_ok, after) = match rest.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, after)) => (addr.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| ip.is_loopback()), after),
            None => (false, ""),
        },
        None => {
            let (host, after) = rest.find(':').map_or((rest, ""), |i| rest.split_at(i));
            (host == "localhost" || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback()), after)
        }
    };
    let port_ok = after.is_empty()
        || after.strip_prefix(':').is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok());
    host_ok && port_ok
}

/// Accepts clients until the task is aborted.
pub async fn serve(
    listener: TcpListener,
    lines: mpsc::Sender<Option<String>>,
    said: broadcast::Sender<String>,
    limits: WsLimits,
) {
    let slots = Arc::new(Semaphore::new(limits.clients));
    let mut backoff = Duration::from_millis(10);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(v) => v,
            Err(e) => {
                // Out of file descriptors (EMFILE) and the like: accepting again at
                // once fails again at once.
                tracing::warn!("websocket: accept failed: {e}; retrying in {} ms", backoff.as_millis());
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        backoff = Duration::from_millis(10);
        if !peer.ip().is_loopback() {
            tracing::warn!(%peer, "websocket: refused a non-local client");
            continue;
        }
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(%peer, max = limits.clients, "websocket: refused a client: too many connections");
            continue;
        };
        let (lines, said) = (lines.clone(), said.subscribe());
        tokio::spawn(async move {
            client(stream, lines, said, limits).await;
            drop(slot);
        });
    }
}

async fn client(
    stream: TcpStream,
    lines: mpsc::Sender<Option<String>>,
    mut said: broadcast::Receiver<String>,
    limits: WsLimits,
) {
    // The callback's type is tungstenite's, large error and all.
    #[allow(clippy::result_large_err)]
    let check = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        let origin = req.headers().get("origin").map(|v| v.to_str().unwrap_or("?"));
        if origin_allowed(origin) {
            return Ok(resp);
        }
        tracing::warn!(origin = origin.unwrap_or(""), "websocket: refused a page from another origin");
        let mut refused = ErrorResponse::new(Some("origin not allowed".into()));
        *refused.status_mut() = tokio_tungstenite::tungstenite::http::StatusCode::FORBIDDEN;
        Err(refused)
    };
    let config = WebSocketConfig::default()
        .max_message_size(Some(limits.message_bytes))
        .max_frame_size(Some(limits.message_bytes));
    let handshake = tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(config));
    let ws = match tokio::time::timeout(limits.handshake, handshake).await {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            tracing::debug!("websocket: handshake failed: {e}");
            return;
        }
        Err(_) => {
            tracing::debug!("websocket: handshake not finished in time");
            return;
        }
    };
    tracing::debug!("websocket: client connected");
    let (mut tx, mut rx) = ws.split();
    loop {
        tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Text(t))) => {
                    if lines.send(Some(t.as_str().to_owned())).await.is_err() {
                        break;
                    }
                }
                Some(Err(e)) => {
                    // A message over the limit ends up here, among others.
                    tracing::debug!("websocket: closing a client: {e}");
                    break;
                }
                Some(Ok(Message::Close(_))) | None => break,
                Some(Ok(_)) => {}
            },
            line = said.recv() => match line {
                Ok(l) => {
                    if tx.send(Message::Text(l.into())).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_pages_or_no_origin() {
        for ok in [None, Some("http://localhost:8000"), Some("http://127.0.0.1"), Some("https://[::1]:3000")] {
            assert!(origin_allowed(ok), "{ok:?}");
        }
        for bad in [
            "https://evil.example",
            "null",
            "http://127.0.0.1.evil.example",
            "http://localhost.evil:80",
            "file://",
            "https://[localhost]:300",
            "https://[::01]Zht:3::t]:/=p/l",
            "http://localhost:80/x",
            "http://127.0.0.1:",
            "https://[::1]:90900",
        ] {
            assert!(!origin_allowed(Some(bad)), "{bad}");
        }
    }
}
