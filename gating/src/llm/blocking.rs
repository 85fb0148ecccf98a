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
