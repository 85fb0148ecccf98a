//! An in-process HTTP responder on 127.0.0.1 for the faults a real model server will
//! not produce on demand: hanging past the timeout, a garbage body, a 500, a slow drip,
//! a huge body, bytes that are not UTF-8, a server that echoes the API key.
//!
//! It runs on its own thread with its own tokio runtime, so that blocking and async
//! tests can both use it, and stops when dropped. It counts requests and the most
//! connections it had open at once (to see concurrent calls).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the responder does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A whole response.
    Full { status: u16, body: Vec<u8> },
    /// Wait this long, then a whole 200 response.
    Late { after: Duration, body: Vec<u8> },
    /// Never answer (until the client gives up).
    Hang,
    /// Headers at once, then the body one byte every `every`.
    Drip { body: Vec<u8>, every: Duration },
    /// A chunked body of `bytes` bytes, no length announced.
    Huge { bytes: usize },
    /// A redirect (`status` 301, 302, 307, 308...) to `location`.
    Redirect { status: u16, location: String },
}

/// A request as the responder saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Request line and headers.
    pub head: String,
    /// The body.
    pub body: Vec<u8>,
}

/// A chat-completion body whose answer is `content`.
pub fn completion(content: &str) -> Vec<u8> {
    completion_with(content, 100, 14)
}

/// A chat-completion body whose answer is `content`, with the token counts its `usage`
/// reports (and a field of the server's own, which a client must ignore).
pub fn completion_with(content: &str, prompt_tokens: u64, completion_tokens: u64) -> Vec<u8> {
    serde_json::json!({
        "object": "chat.completion",
        "choices": [{ "index": 0, "finish_reason": "stop", "message": { "role": "assistant", "content": content } }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens
        },
        "timings": { "extra": "servers add fields" }
    })
    .to_string()
    .into_bytes()
}

/// The body of a good answer.
pub fn answer_body(decision: &str, confidence: f64) -> Vec<u8> {
    completion(&format!(r#"{{"decision":"{decision}","confidence":{confidence}}}"#))
}

/// A 200 with a good answer.
pub fn answer(decision: &str, confidence: f64) -> Reply {
    Reply::Full { status: 200, body: answer_body(decision, confidence) }
}

type Handler = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

/// A running responder.
pub struct Fake {
    /// Its base URL, `http://127.0.0.1:PORT/v1`.
    pub url: String,
    hits: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Fake {
    /// Starts a responder; `handler` gets the request's 0-based number and the request.
    pub fn start(handler: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Fake {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/v1", std_listener.local_addr().unwrap());
        let (hits, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let handler: Arc<Handler> = Arc::new(handler);
        let (h, p) = (hits.clone(), peak.clone());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                let open = Arc::new(AtomicUsize::new(0));
                loop {
                    tokio::select! {
                        _ = &mut rx => break,
                        Ok((sock, _)) = listener.accept() => {
                            let (handler, h, p, open) = (handler.clone(), h.clone(), p.clone(), open.clone());
                            tokio::spawn(async move {
                                let now = open.fetch_add(1, Ordering::SeqCst) + 1;
                                p.fetch_max(now, Ordering::SeqCst);
                                let _ = serve(sock, handler, h).await;
                                open.fetch_sub(1, Ordering::SeqCst);
                            });
                        }
                    }
                }
            });
        });
        Fake { url, hits, peak, stop: Some(tx) }
    }

    /// Requests answered (or started) so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// The most connections open at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

async fn read_request(sock: &mut TcpStream) -> std::io::Result<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let len = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>()))
        .and_then(Result::ok)
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Seen { head, body })
}

fn head(status: u16, len: Option<usize>) -> Vec<u8> {
    let length = len.map_or("Transfer-Encoding: chunked\r\n".to_owned(), |n| format!("Content-Length: {n}\r\n"));
    format!("HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{length}Connection: close\r\n\r\n").into_bytes()
}

async fn serve(mut sock: TcpStream, handler: Arc<Handler>, hits: Arc<AtomicUsize>) -> std::io::Result<()> {
    let seen = read_request(&mut sock).await?;
    let n = hits.fetch_add(1, Ordering::SeqCst);
    match handler(n, &seen) {
        Reply::Full { status, body } => {
            sock.write_all(&head(status, Some(body.len()))).await?;
            sock.write_all(&body).await?;
        }
        Reply::Late { after, body } => {
            tokio::time::sleep(after).await;
            sock.write_all(&head(200, Some(body.len()))).await?;
            sock.write_all(&body).await?;
        }
        Reply::Hang => tokio::time::sleep(Duration::from_secs(60)).await,
        Reply::Redirect { status, location } => {
            let head = format!(
                "HTTP/1.1 {status} X\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            sock.write_all(head.as_bytes()).await?;
        }
        Reply::Drip { body, every } => {
            sock.write_all(&head(200, Some(body.len()))).await?;
            for b in body {
                sock.write_all(&[b]).await?;
                sock.flush().await?;
                tokio::time::sleep(every).await;
            }
        }
        Reply::Huge { bytes } => {
            sock.write_all(&head(200, None)).await?;
            let piece = vec![b' '; 8192];
            let mut sent = 0;
            while sent < bytes {
                sock.write_all(format!("{:x}\r\n", piece.len()).as_bytes()).await?;
                sock.write_all(&piece).await?;
                sock.write_all(b"\r\n").await?;
                sent += piece.len();
            }
            sock.write_all(b"0\r\n\r\n").await?;
        }
    }
    sock.shutdown().await
}
