//! The websocket side of a live session: every text message from a client is one chat
//! line; every line the partner says goes to every client. Only loopback listeners
//! are made (the command line binds 127.0.0.1), and connections from elsewhere are
//! refused all the same.

use std::sync::mpsc;

use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::Message;

/// Accepts clients until the task is aborted.
pub async fn serve(listener: TcpListener, lines: mpsc::Sender<Option<String>>, said: broadcast::Sender<String>) {
    loop {
        let Ok((stream, peer)) = listener.accept().await else { continue };
        if !peer.ip().is_loopback() {
            tracing::warn!(%peer, "websocket: refused a non-local client");
            continue;
        }
        tokio::spawn(client(stream, lines.clone(), said.subscribe()));
    }
}

async fn client(stream: TcpStream, lines: mpsc::Sender<Option<String>>, mut said: broadcast::Receiver<String>) {
    let Ok(ws) = tokio_tungstenite::accept_async(stream).await else { return };
    tracing::debug!("websocket: client connected");
    let (mut tx, mut rx) = ws.split();
    loop {
        tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Text(t))) => {
                    if lines.send(Some(t.as_str().to_owned())).is_err() {
                        break;
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
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
