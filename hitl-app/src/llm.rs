//! The language-model classifier: [`gatecrew_hitl::llm`]'s prompt and answer over the
//! gate's OpenAI-compatible HTTP client, on a current-thread runtime of its own (the
//! partner's driver is synchronous).

use std::time::Instant;

use gatecrew_gating::llm::{LlmClient, LlmClientError, LlmSpec};
use gatecrew_hitl::classify::{Classified, Classify, Context};
use gatecrew_hitl::llm::{from_reply, request, stop_first};

/// The model classifier.
pub struct LlmClassifier {
    rt: tokio::runtime::Runtime,
    client: LlmClient,
    spec: LlmSpec,
}

impl std::fmt::Debug for LlmClassifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClassifier").field("client", &self.client).finish_non_exhaustive()
    }
}

impl LlmClassifier {
    /// A classifier on the endpoint of `spec`.
    pub fn new(mut spec: LlmSpec) -> Result<Self, LlmClientError> {
        // An intent is longer than a verdict: room for the node words.
        spec.max_tokens = spec.max_tokens.max(48);
        let client = LlmClient::new(spec.clone(), gatecrew_gating::Deterministic { midpoint: 0.75 })?;
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LlmClientError::Runtime)?;
        Ok(LlmClassifier { rt, client, spec })
    }
}

impl Classify for LlmClassifier {
    fn classify(&mut self, text: &str, ctx: &Context<'_>) -> Classified {
        let start = Instant::now();
        // The model reads the line as the parser does: slang spelled out, typos fixed.
        let read = gatecrew_hitl::chat::read(text, ctx.vocab);
        let text = read.text.as_str();
        if let Some(stop) = stop_first(text, start) {
            return stop;
        }
        let body = request(self.client.model(), &self.spec, text, ctx);
        let reply = self.rt.block_on(self.client.chat(&body));
        let latency_ms = start.elapsed().as_secs_f64() * 1e3;
        let reply = reply
            .map(|(content, usage)| (content, (usage.prompt_tokens, usage.completion_tokens)))
            .map_err(|(reason, _)| reason);
        from_reply(text, ctx, reply, latency_ms)
    }
}
