//! The websocket of a live session (`--ws`): a web page from another origin cannot
//! drive the bot, a handshake that never finishes is dropped, connections are capped,
//! and a message over the chat limit closes its connection without reaching the bot.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use gatecrew_hitl_app::ws::{WsLimits, serve};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const LIMITS: WsLimits = WsLimits { clients: 2, handshake: Duration::from_millis(300), message_bytes: 64 };

/// Starts a server; returns its address and the chat lines it passes on.
async fn start(limits: WsLimits) -> (String, mpsc::Receiver<Option<String>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = mpsc::channel(4);
    let (said, _) = broadcast::channel(16);
    tokio::spawn(serve(listener, tx, said, limits));
    (addr, rx)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Within `secs`, the peer closes the connection (a read returns end of file or fails).
async fn closed_within(sock: &mut TcpStream, secs: u64) -> bool {
    let mut buf = [0u8; 256];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(deadline, sock.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[test]
fn a_page_from_another_origin_is_refused() {
    rt().block_on(async {
        let (addr, mut lines) = start(LIMITS).await;
        let mut req = format!("ws://{addr}").into_client_request().unwrap();
        req.headers_mut().insert("Origin", "https://evil.example".parse().unwrap());
        let refused = tokio_tungstenite::connect_async(req).await;
        assert!(refused.is_err(), "a foreign origin was let in");
        // A program (no Origin) and a local page are welcome.
        let mut req = format!("ws://{addr}").into_client_request().unwrap();
        req.headers_mut().insert("Origin", "http://localhost:8000".parse().unwrap());
        let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        ws.send(Message::Text("stop".into())).await.unwrap();
        let got = tokio::time::timeout(Duration::from_secs(10), lines.recv()).await.unwrap();
        assert_eq!(got, Some(Some("stop".into())));
    });
}

#[test]
fn a_handshake_that_never_finishes_is_dropped() {
    rt().block_on(async {
        let (addr, _lines) = start(LIMITS).await;
        let mut idle = TcpStream::connect(&addr).await.unwrap();
        assert!(closed_within(&mut idle, 20).await, "the silent connection is still open");
    });
}

#[test]
fn connections_beyond_the_cap_are_closed_at_once() {
    rt().block_on(async {
        let limits = WsLimits { handshake: Duration::from_secs(60), ..LIMITS };
        let (addr, _lines) = start(limits).await;
        let mut held = Vec::new();
        for _ in 0..limits.clients {
            let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}")).await.unwrap();
            held.push(ws);
        }
        let mut extra = TcpStream::connect(&addr).await.unwrap();
        assert!(closed_within(&mut extra, 20).await, "a connection past the cap was kept");
        // A slot frees when a client leaves.
        let mut first = held.remove(0);
        first.close(None).await.unwrap();
        drop(first);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            if tokio_tungstenite::connect_async(format!("ws://{addr}")).await.is_ok() {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "the freed slot was never reused");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

#[test]
fn a_message_over_the_limit_closes_its_connection() {
    rt().block_on(async {
        let (addr, mut lines) = start(LIMITS).await;
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}")).await.unwrap();
        ws.send(Message::Text("x".repeat(LIMITS.message_bytes + 1).into())).await.unwrap();
        let end = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                match ws.next().await {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await;
        assert!(end.is_ok(), "the connection stayed open");
        assert!(lines.try_recv().is_err(), "the oversized message reached the bot");
    });
}
