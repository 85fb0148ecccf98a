//! The LLM client for synchronous callers (the stepper, `gatecrew adjudicate`).

use super::client::{LlmClient, LlmClientError};
use crate::adjudicator::{Adjudication, Adjudicator, DecisionCard};

/// [`LlmClient`] behind the synchronous [`Adjudicator`] trait, on a current-thread
/// tokio runtime of its own: for the synchronous stepper and one-off checks.
#[derive(Debug)]
pub struct BlockingLlm {
    rt: tokio::runtime::Runtime,
    client: LlmClient,
}

impl BlockingLlm {
    /// Wraps a client.
    pub fn new(client: LlmClient) -> Result<Self, LlmClientError> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LlmClientError::Runtime)?;
        Ok(BlockingLlm { rt, client })
    }
}

impl Adjudicator for BlockingLlm {
    fn adjudicate(&mut self, card: &DecisionCard, score: f64) -> Adjudication {
        self.rt.block_on(self.client.adjudicate(card, score))
    }

    fn is_llm(&self) -> bool {
        true
    }
}

/// One exchange's result as a synchronous caller gets it: the reply's text and token
/// counts, or why there is none with the body that came back; and the wall time.
pub type ChatResult = (Result<(String, super::Usage), (super::FallbackReason, String)>, u64);

/// A request, when its caller sent it, and where the answer goes.
type Job = (serde_json::Value, std::time::Instant, std::sync::mpsc::Sender<ChatResult>);

/// [`LlmClient::chat_json`] for synchronous callers anywhere, inside a tokio runtime
/// or not: each client runs on a thread of its own with a current-thread runtime, and
/// each call waits on a channel. A caller on a runtime thread (the actor runtime)
/// cannot `block_on` a runtime of its own; a channel it can wait on. With `n` clients
/// ([`Self::pool`]) `n` calls are in flight at once and the others queue; a call's
/// timeout runs from when it was made, queueing included, so that a slow or dead
/// endpoint never holds a caller longer than that.
#[derive(Debug)]
pub struct BlockingChat {
    jobs: std::sync::Mutex<std::sync::mpsc::Sender<Job>>,
    model: String,
    timeout: std::time::Duration,
    workers: usize,
}

impl BlockingChat {
    /// Starts the client's thread: one call at a time.
    pub fn new(client: LlmClient) -> Result<Self, LlmClientError> {
        Self::pool(vec![client])
    }

    /// One thread per client, all on one queue: as many calls at once as clients. The
    /// clients are one endpoint's, each with a connection pool of its own (a pooled
    /// connection belongs to the runtime that opened it). At least one client.
    pub fn pool(clients: Vec<LlmClient>) -> Result<Self, LlmClientError> {
        let first = clients.first().ok_or(LlmClientError::NoUrl)?;
        let model = first.model().to_owned();
        let timeout = first.spec().timeout();
        let workers = clients.len();
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        for (i, client) in clients.into_iter().enumerate() {
            let rt =
                tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LlmClientError::Runtime)?;
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("gatecrew-llm-chat-{i}"))
                .spawn(move || {
                    loop {
                        // The lock is held only while waiting for the next job.
                        let job = match rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => break,
                        };
                        let Ok((body, sent, reply)) = job else { break };
                        let left = timeout.saturating_sub(sent.elapsed());
                        let result = if left.is_zero() {
                            Err((super::FallbackReason::Timeout, String::new()))
                        } else {
                            rt.block_on(async {
                                tokio::time::timeout(left, client.chat_json(&body))
                                    .await
                                    .unwrap_or(Err((super::FallbackReason::Timeout, String::new())))
                            })
                        };
                        let ms = u64::try_from(sent.elapsed().as_millis()).unwrap_or(u64::MAX);
                        // The caller gave up waiting: nobody reads the answer.
                        let _ = reply.send((result, ms));
                    }
                })
                .map_err(LlmClientError::Runtime)?;
        }
        Ok(BlockingChat { jobs: std::sync::Mutex::new(tx), model, timeout, workers })
    }

    /// The model name the requests carry.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// How many calls it has in flight at most.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// One exchange; never waits much longer than the client's timeout, counted from
    /// now (a call still queued when it runs out is answered `timeout` unsent).
    pub fn chat(&self, body: serde_json::Value) -> ChatResult {
        let (tx, rx) = std::sync::mpsc::channel();
        let sent =
            self.jobs.lock().map(|jobs| jobs.send((body, std::time::Instant::now(), tx)).is_ok()).unwrap_or(false);
        let gone = || (Err((super::FallbackReason::Transport, String::new())), 0);
        if !sent {
            return gone();
        }
        // The worker answers by the timeout; the margin covers a reply on its way.
        match rx.recv_timeout(self.timeout + std::time::Duration::from_millis(500)) {
            Ok(r) => r,
            Err(_) => (
                Err((super::FallbackReason::Timeout, String::new())),
                u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX),
            ),
        }
    }
}
