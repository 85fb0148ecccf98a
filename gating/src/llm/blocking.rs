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

type Job = (serde_json::Value, std::sync::mpsc::Sender<ChatResult>);

/// [`LlmClient::chat_json`] for synchronous callers anywhere, inside a tokio runtime
/// or not: the client runs on a thread of its own with a current-thread runtime, and
/// each call waits on a channel. A caller on a runtime thread (the actor runtime)
/// cannot `block_on` a runtime of its own; a channel it can wait on. Calls from
/// several threads are served one after another.
#[derive(Debug)]
pub struct BlockingChat {
    jobs: std::sync::Mutex<std::sync::mpsc::Sender<Job>>,
    model: String,
    timeout: std::time::Duration,
}

impl BlockingChat {
    /// Starts the client's thread.
    pub fn new(client: LlmClient) -> Result<Self, LlmClientError> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LlmClientError::Runtime)?;
        let model = client.model().to_owned();
        let timeout = client.spec().timeout();
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("gatecrew-llm-chat".into())
            .spawn(move || {
                for (body, reply) in rx {
                    let start = std::time::Instant::now();
                    let result = rt.block_on(client.chat_json(&body));
                    let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
                    // The caller gave up waiting: nobody reads the answer.
                    let _ = reply.send((result, ms));
                }
            })
            .map_err(LlmClientError::Runtime)?;
        Ok(BlockingChat { jobs: std::sync::Mutex::new(tx), model, timeout })
    }

    /// The model name the requests carry.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// One exchange; never waits much longer than the client's timeout.
    pub fn chat(&self, body: serde_json::Value) -> ChatResult {
        let (tx, rx) = std::sync::mpsc::channel();
        let sent = self.jobs.lock().map(|jobs| jobs.send((body, tx)).is_ok()).unwrap_or(false);
        let gone = || (Err((super::FallbackReason::Transport, String::new())), 0);
        if !sent {
            return gone();
        }
        // The client's own timeout bounds the exchange; the margin covers the thread's
        // queue when several callers share it.
        match rx.recv_timeout(self.timeout * 2 + std::time::Duration::from_millis(500)) {
            Ok(r) => r,
            Err(_) => (
                Err((super::FallbackReason::Timeout, String::new())),
                u64::try_from((self.timeout * 2).as_millis()).unwrap_or(u64::MAX),
            ),
        }
    }
}
