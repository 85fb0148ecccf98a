//! The HTTP server: one page (HTML, JS and CSS compiled into the binary), a websocket
//! that streams the state, nothing that writes. Every websocket upgrade must come from
//! the page's own origin, and on a loopback address the Host must be a loopback name
//! too (a DNS-rebound name would otherwise pass the Origin check).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::hub::{Live, Subscription};
use crate::replay::{Cursor, Recording};
use crate::state::ViewState;

const INDEX: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const PANELS_JS: &str = include_str!("../assets/panels.js");
const REPLAY_JS: &str = include_str!("../assets/replay.js");
const MAP_JS: &str = include_str!("../assets/map.js");
const STYLE: &str = include_str!("../assets/style.css");

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
}

/// What the page shows.
#[derive(Debug, Clone)]
pub enum Source {
    /// A running crew.
    Live(Live),
    /// A recorded episode.
    Replay(Arc<Recording>),
}

#[derive(Clone)]
struct App {
    source: Source,
    bound: SocketAddr,
}

/// A bound server, not yet serving.
pub struct Bound {
    listener: tokio::net::TcpListener,
    app: Router,
    addr: SocketAddr,
}

impl Bound {
    /// The address actually bound (port 0 picks a free one).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` completes.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        axum::serve(self.listener, self.app).with_graceful_shutdown(shutdown).await
    }
}

/// Binds the page and its websocket to `addr`.
pub async fn bind(addr: SocketAddr, source: Source) -> Result<Bound, ServeError> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
    let bound = listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?;
    let app = Router::new()
        .route("/", get(index))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/panels.js", get(|| async { asset("text/javascript; charset=utf-8", PANELS_JS) }))
        .route("/map.js", get(|| async { asset("text/javascript; charset=utf-8", MAP_JS) }))
        .route("/replay.js", get(|| async { asset("text/javascript; charset=utf-8", REPLAY_JS) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/ws", get(ws))
        .with_state(App { source, bound });
    Ok(Bound { listener, app, addr: bound })
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::X_CONTENT_TYPE_OPTIONS, "nosniff")], body).into_response()
}

async fn index() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            // Everything the page needs comes from here: no CDN, no inline script.
            (header::CONTENT_SECURITY_POLICY, "default-src 'self'; connect-src 'self'; img-src 'self' data:"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        INDEX,
    )
        .into_response()
}

/// Whether a websocket upgrade comes from the page this server served.
pub fn origin_allowed(headers: &HeaderMap, bound: SocketAddr) -> bool {
    let get = |h| headers.get(h).and_then(|v| v.to_str().ok());
    let (Some(origin), Some(host)) = (get(header::ORIGIN), get(header::HOST)) else { return false };
    if origin != format!("http://{host}") {
        return false;
    }
    if !bound.ip().is_loopback() {
        // Bound to a public address on purpose: the Origin must still match the Host.
        return true;
    }
    let port = bound.port().to_string();
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|name| host == format!("{name}:{port}"))
}

async fn ws(State(app): State<App>, headers: HeaderMap, upgrade: WebSocketUpgrade) -> Response {
    if !origin_allowed(&headers, app.bound) {
        tracing::warn!(origin = ?headers.get(header::ORIGIN), host = ?headers.get(header::HOST), "websocket refused");
        return (StatusCode::FORBIDDEN, "websocket upgrades only from this server's own page\n").into_response();
    }
    // The page sends only `{"seek":N}` and `{"step":1}`: a small read buffer (each read
    // attempt clears it) and a small message limit (nothing big is ever accepted).
    let upgrade = upgrade.read_buffer_size(4096).max_message_size(4096).max_frame_size(4096);
    match app.source {
        Source::Live(hub) => {
            let sub = hub.subscribe();
            upgrade.on_upgrade(move |s| live(s, sub))
        }
        Source::Replay(rec) => upgrade.on_upgrade(move |s| replay(s, rec)),
    }
}

async fn live(mut socket: WebSocket, mut sub: Subscription) {
    // The publish this browser last got: it is sent the sections changed since, or the
    // whole state when it skipped some (a lagging browser jumps to the newest).
    let mut sent: Option<u64> = None;
    loop {
        let latest = sub.latest();
        if let Some(text) = latest.for_browser(sent) {
            if socket.send(Message::Text(text)).await.is_err() {
                return;
            }
            sent = Some(latest.seq);
        }
        // Whatever came while sending is in the watch slot already: only the newest.
        tokio::select! {
            changed = sub.changed() => if !changed { return },
            msg = socket.recv() => match msg {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}

/// What a replay page asks for.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Ask {
    /// The state at this tick.
    Seek(u64),
    /// The next (+1) or previous (-1) tick with events.
    Step(i8),
}

fn replay_message(state: &ViewState, span: (u64, u64)) -> String {
    serde_json::json!({ "type": "state", "span": [span.0, span.1], "state": state }).to_string()
}

/// The first message of a replay also carries the scrubber's markers.
fn first_replay_message(state: &ViewState, rec: &Recording) -> String {
    let span = rec.span();
    serde_json::json!({ "type": "state", "span": [span.0, span.1], "marks": rec.marks(), "state": state }).to_string()
}

async fn replay(mut socket: WebSocket, rec: Arc<Recording>) {
    let span = rec.span();
    let mut cursor = Cursor::new(rec.clone());
    let mut text = first_replay_message(cursor.seek(span.0), &rec);
    loop {
        if socket.send(Message::Text(text.into())).await.is_err() {
            return;
        }
        text = loop {
            let msg = match socket.recv().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(_)) => continue,
            };
            let now = cursor.state().tick;
            let t = match serde_json::from_str::<Ask>(&msg) {
                Ok(Ask::Seek(t)) => t.min(span.1),
                Ok(Ask::Step(d)) if d >= 0 => rec.next_tick(now),
                Ok(Ask::Step(_)) => rec.prev_tick(now),
                Err(e) => {
                    break serde_json::json!({ "type": "error", "error": format!("bad request: {e}") }).to_string();
                }
            };
            break replay_message(cursor.seek(t), span);
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>, host: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(o) = origin {
            h.insert(header::ORIGIN, o.parse().expect("header"));
        }
        if let Some(v) = host {
            h.insert(header::HOST, v.parse().expect("header"));
        }
        h
    }

    #[test]
    fn only_the_pages_own_origin_on_a_loopback_host_is_let_in() {
        let bound: SocketAddr = "127.0.0.1:7878".parse().expect("addr");
        let ok = |o: Option<&str>, h: Option<&str>| origin_allowed(&headers(o, h), bound);
        assert!(ok(Some("http://127.0.0.1:7878"), Some("127.0.0.1:7878")));
        assert!(ok(Some("http://localhost:7878"), Some("localhost:7878")));
        assert!(!ok(None, Some("127.0.0.1:7878")), "no Origin");
        assert!(!ok(Some("http://127.0.0.1:7878"), None), "no Host");
        assert!(!ok(Some("http://evil.example"), Some("127.0.0.1:7878")));
        assert!(!ok(Some("https://127.0.0.1:7878"), Some("127.0.0.1:7878")));
        assert!(!ok(Some("http://127.0.0.1:7879"), Some("127.0.0.1:7878")));
        assert!(!ok(Some("http://evil.example:7878"), Some("evil.example:7878")), "DNS rebinding");
        // Bound to a public address on purpose: the Origin must still match the Host.
        let public: SocketAddr = "0.0.0.0:7878".parse().expect("addr");
        assert!(origin_allowed(&headers(Some("http://box.lan:7878"), Some("box.lan:7878")), public));
        assert!(!origin_allowed(&headers(Some("http://evil.example"), Some("box.lan:7878")), public));
    }
}
