//! A live session: the episode runs in game time against the wall clock (one tick every
//! `tick_ms`, Minecraft's 50 ms by default) on a thread of its own, while chat lines
//! come from a line reader (the terminal) and from websocket clients on 127.0.0.1. A
//! line enters at the tick the episode has reached when it arrives. The partner's
//! lines go back to the terminal and to every websocket client.
//!
//! The session ends on end of input, on a `/quit` line, or when the episode ends by
//! itself (tick limit); then the episode runs on to its end without pacing.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gatecrew_protocol::limits::{self, Line};

use gatecrew_crew::{Finished, ResolveError};
use gatecrew_protocol::{AgentId, Tick};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::ws::WsLimits;
use tokio::sync::broadcast;

use gatecrew_hitl::driver::{Driver, Output};
use gatecrew_hitl::session::Partner;

/// The line that ends a live session.
pub const QUIT: &str = "/quit";

/// Live settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Live {
    /// Wall-clock milliseconds per tick.
    pub tick_ms: u64,
    /// Where the websocket listens (port 0: a free one), if at all.
    pub ws: Option<SocketAddr>,
}

/// What a live session returns.
pub struct LiveEnd<O> {
    /// How the episode ended.
    pub finished: Finished,
    /// The partner at the end.
    pub partner: Partner,
    /// The output, handed back.
    pub out: O,
}

/// A live session that could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LiveError {
    /// The websocket could not listen.
    #[error("cannot listen for websocket clients on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The tier-3 resolver failed.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The episode thread panicked.
    #[error("the episode thread stopped: {0}")]
    Panicked(String),
}

/// What the episode thread tells the I/O side.
enum Up {
    Said(String),
}

/// Wraps the caller's output: partner lines also go up to the I/O side.
struct Relay<O> {
    inner: O,
    up: mpsc::Sender<Up>,
}

impl<O: Output> gatecrew_crew::Observer for Relay<O> {
    fn event(&mut self, event: &gatecrew_protocol::trace::Event) {
        self.inner.event(event);
    }
    fn progress(&mut self, p: gatecrew_crew::Progress) {
        self.inner.progress(p);
    }
}

impl<O: Output> Output for Relay<O> {
    fn said(&mut self, t: Tick, agent: AgentId, text: &str) {
        self.inner.said(t, agent, text);
        let _ = self.up.send(Up::Said(format!("{agent}> {text}")));
    }
}

/// Runs a live session. `input` is the line reader (the terminal), if any; `show`
/// gets every line for the person (the partner's, and where the websocket listens).
pub async fn run_live<O, R>(
    mut driver: Driver,
    cfg: Live,
    input: Option<R>,
    out: O,
    show: &mut dyn FnMut(&str),
) -> Result<LiveEnd<O>, LiveError>
where
    O: Output + Send + 'static,
    R: AsyncBufRead + Unpin + Send + 'static,
{
    // Bounded: a client that floods waits for the episode instead of filling memory.
    let (line_tx, mut line_rx) = tokio::sync::mpsc::channel::<Option<String>>(crate::ws::LINE_QUEUE);
    let (up_tx, up_rx) = mpsc::channel::<Up>();
    let (bcast, _) = broadcast::channel::<String>(256);
    let mut tasks = Vec::new();
    let mut sources = 0usize;
    if let Some(addr) = cfg.ws {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| LiveError::Bind { addr, source })?;
        let local = listener.local_addr().map_err(|source| LiveError::Bind { addr, source })?;
        show(&format!("websocket: ws://{local} (one chat line per text message; {QUIT} ends the session)"));
        tasks.push(tokio::spawn(crate::ws::serve(listener, line_tx.clone(), bcast.clone(), WsLimits::from_env())));
        sources += 1;
    }
    if let Some(mut r) = input {
        let tx = line_tx.clone();
        sources += 1;
        let max = limits::max_chat_bytes();
        tasks.push(tokio::spawn(async move {
            loop {
                let line = match read_line_capped(&mut r, max).await {
                    Ok(Some(Line::Text(b) | Line::Unterminated(b))) => {
                        String::from_utf8_lossy(&b).trim_end().to_owned()
                    }
                    Ok(Some(Line::TooLong(n))) => {
                        tracing::warn!(
                            "a chat line of {n} bytes is over the limit of {max} ({}); ignored",
                            limits::MAX_CHAT_BYTES_VAR
                        );
                        continue;
                    }
                    Ok(None) | Err(_) => break,
                };
                if tx.send(Some(line)).await.is_err() {
                    break;
                }
            }
            // End of input ends the session.
            let _ = tx.send(None).await;
        }));
    }
    drop(line_tx);
    let relay = Relay { inner: out, up: up_tx };
    let pace = Duration::from_millis(cfg.tick_ms.max(1));
    let episode = std::thread::spawn(move || -> Result<(Finished, Partner, O), ResolveError> {
        let mut relay = relay;
        driver.hold_open(sources > 0);
        let start = Instant::now();
        let mut open = sources > 0;
        loop {
            let mut lines = Vec::new();
            loop {
                let msg = match line_rx.try_recv() {
                    Ok(m) => m,
                    // Every source gone (the reader and the websocket stopped): closed.
                    Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                    Err(tokio::sync::mpsc::error::TryRecvError::Empty) => break,
                };
                match msg {
                    Some(l) if l.trim() == QUIT => open = false,
                    Some(l) if !l.trim().is_empty() => lines.push(l),
                    Some(_) => {}
                    None => open = false,
                }
            }
            let target =
                if open { Some(Tick((start.elapsed().as_millis() / pace.as_millis().max(1)) as u64)) } else { None };
            if !open {
                driver.hold_open(false);
            }
            let mut given = Some(lines);
            let mut take = |_: Tick| given.take().unwrap_or_default();
            // Catch up to the wall clock (or, closed, run on to the end).
            if !driver.round(target.map(|t| t.max(driver.tick() + 1)), &mut take, &mut relay)? {
                break;
            }
            if open && target.is_some_and(|t| driver.tick() >= t) {
                std::thread::sleep(pace);
            }
        }
        let (finished, partner) = driver.finish(&mut relay);
        Ok((finished, partner, relay.inner))
    });
    // Relay the partner's lines until the episode thread is done.
    loop {
        while let Ok(Up::Said(l)) = up_rx.try_recv() {
            show(&l);
            let _ = bcast.send(l);
        }
        if episode.is_finished() {
            while let Ok(Up::Said(l)) = up_rx.try_recv() {
                show(&l);
                let _ = bcast.send(l);
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for t in tasks {
        t.abort();
    }
    let joined = episode.join().map_err(|p| LiveError::Panicked(gatecrew_crew::episode::stepper::panic_message(&p)))?;
    let (finished, partner, out) = joined?;
    Ok(LiveEnd { finished, partner, out })
}

/// One line of at most `max` bytes from an async reader (see
/// [`gatecrew_protocol::limits::LineBuf`]).
async fn read_line_capped<R: AsyncBufRead + Unpin>(r: &mut R, max: usize) -> std::io::Result<Option<Line>> {
    let mut lb = limits::LineBuf::new(max);
    loop {
        let chunk = r.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(lb.finish());
        }
        let (used, line) = lb.feed(chunk);
        r.consume(used);
        if line.is_some() {
            return Ok(line);
        }
    }
}
