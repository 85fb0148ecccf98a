//! The HTTP side (cargo feature `http`): one `POST {base}/chat/completions` per card,
//! bounded by the timeout from connect to the last body byte, the body read up to a
//! cap. Every failure becomes a [`FallbackReason`] and the fallback's verdict: this
//! never returns an error and never waits longer than the timeout.
//!
//! The API key is read once from the environment variable the config names, sent as a
//! sensitive bearer header, and never printed: [`ApiKey`] has no `Display`, its `Debug`
//! is redacted, and a server that echoes it back (OpenAI's 401 quotes the key) gets it
//! cut out of the recorded reply.

use std::time::Instant;

use gatecrew_protocol::trace::Decision;

use super::config::LlmSpec;
use super::reply::{FallbackReason, keep_reply, parse_verdict, read_reply_body};
use super::wire::{ChatRequest, Usage};
use tracing::Instrument;

use crate::adjudicator::{Adjudication, DecisionCard, Deterministic};

/// Longest raw reply kept for the trace, in bytes.
const REPLY_KEEP: usize = 512;

/// An API key. Only [`LlmClient`] reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key from its text.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key in the environment variable `var`; `Ok(None)` when no variable is named.
    pub fn from_env(var: Option<&str>) -> Result<Option<ApiKey>, LlmClientError> {
        let Some(var) = var else {
            return Ok(None);
        };
        match std::env::var(var) {
            Ok(k) if !k.is_empty() => Ok(Some(ApiKey(k))),
            _ => Err(LlmClientError::MissingKey(var.to_owned())),
        }
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// A client that cannot be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmClientError {
    /// No base URL.
    #[error("no LLM endpoint: pass --llm-url URL or set url in [llm]")]
    NoUrl,
    /// No model name.
    #[error("no model name: pass --model NAME or set model in [llm]")]
    NoModel,
    /// The key variable named in the config (its name) is not set.
    #[error("the environment variable {0} (llm.api_key_env) is not set or empty")]
    MissingKey(String),
    /// reqwest refused to build the client (no TLS backend, a bad proxy setting).
    #[error("cannot start the HTTP client: {0}")]
    Build(#[source] reqwest::Error),
    /// tokio could not start the runtime a blocking caller drives the client on.
    #[error("cannot start the HTTP client: {0}")]
    Runtime(#[source] std::io::Error),
}

/// The OpenAI-compatible adjudicator. Cheap to share (`Arc`) between concurrent calls.
pub struct LlmClient {
    http: reqwest::Client,
    spec: LlmSpec,
    endpoint: String,
    /// The endpoint as logs and errors show it (credentials hidden).
    shown: String,
    model: String,
    key: Option<ApiKey>,
    det: Deterministic,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("endpoint", &self.shown)
            .field("model", &self.model)
            .field("key", &self.key)
            .field("timeout_ms", &self.spec.timeout_ms)
            .finish_non_exhaustive()
    }
}

/// A failed exchange: why, and what came back.
type Failed = super::reply::BodyFailure;

/// How long an idle pooled connection is kept for the next call: less than the
/// keep-alive of the servers this talks to, so that no call is written to a
/// connection the server has closed. llama.cpp's server announces `Keep-Alive:
/// timeout=5` and closes an idle connection after 5 s (measured on the pinned
/// xllamacpp build); uvicorn (vLLM's server) and Node's HTTP server default to 5 s too.
/// The margin covers the reply's way back. A synchronous caller's runtime sleeps
/// between calls, so its pool never sees the server's close: only the idle time tells
/// that a connection is dead before a call is written to it.
const POOL_IDLE: std::time::Duration = std::time::Duration::from_secs(4);

impl LlmClient {
    /// A client for `spec`, reading the key from the variable it names. `det` is the
    /// deterministic adjudicator the default fallback uses.
    pub fn new(spec: LlmSpec, det: Deterministic) -> Result<Self, LlmClientError> {
        let key = ApiKey::from_env(spec.api_key_env.as_deref())?;
        Self::with_key(spec, det, key)
    }

    /// A client with the key given.
    pub fn with_key(spec: LlmSpec, det: Deterministic, key: Option<ApiKey>) -> Result<Self, LlmClientError> {
        let base = spec.url.clone().ok_or(LlmClientError::NoUrl)?;
        let model = spec.model.clone().ok_or(LlmClientError::NoModel)?;
        // A redirect to another host would carry the request (and a key in the URL) there.
        let redirects = reqwest::redirect::Policy::custom(|attempt| {
            let same = attempt.previous().first().is_some_and(|first| super::same_origin(first, attempt.url()));
            if same && attempt.previous().len() < 3 { attempt.follow() } else { attempt.stop() }
        });
        let http = reqwest::Client::builder()
            .connect_timeout(spec.timeout())
            .timeout(spec.timeout())
            .pool_idle_timeout(POOL_IDLE)
            .redirect(redirects)
            .build()
            .map_err(LlmClientError::Build)?;
        let endpoint = format!("{}/chat/completions", base.trim_end_matches('/'));
        let shown = super::redact_url(&endpoint);
        Ok(LlmClient { http, spec, endpoint, shown, model, key, det })
    }

    /// The endpoint's settings as configured (timeouts, floor, output mode).
    pub fn spec(&self) -> &LlmSpec {
        &self.spec
    }

    /// The fallback's adjudication of a card, when no usable answer came (a caller's
    /// own guard uses it too).
    pub fn fallback(&self, card: &DecisionCard, score: f64, reason: FallbackReason, latency_ms: u64) -> Adjudication {
        let verdict = self.spec.fallback.verdict(self.det, card.f.r, score);
        Adjudication::fallback(verdict, reason, String::new(), latency_ms)
    }

    /// Adjudicates one card; `score` is the unrounded score (for the fallback).
    pub async fn adjudicate(&self, card: &DecisionCard, score: f64) -> Adjudication {
        let span = tracing::debug_span!("adjudicate", model = %self.model, issue = card.issue.as_str());
        self.adjudicate_inner(card, score).instrument(span).await
    }

    async fn adjudicate_inner(&self, card: &DecisionCard, score: f64) -> Adjudication {
        let start = Instant::now();
        let exchange = tokio::time::timeout(self.spec.timeout(), self.exchange(card)).await;
        let latency_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let fallback = |reason: FallbackReason, reply: String, usage: Option<Usage>, stated: Option<f64>| {
            let mut verdict = self.spec.fallback.verdict(self.det, card.f.r, score);
            // The model's stated confidence is kept only when it is one: an
            // out-of-range number (7, -3, NaN) stays in the reply text, not in the
            // verdict, whose confidence must lie in [0, 1].
            if let Some(c) = stated.filter(|c| (0.0..=1.0).contains(c)) {
                verdict.confidence = c;
            }
            let u = usage.unwrap_or_default();
            Adjudication {
                verdict,
                reply,
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                latency_ms,
                fallback: Some(reason),
            }
        };
        let adj = match exchange {
            Err(_) => fallback(FallbackReason::Timeout, String::new(), None, None),
            Ok(Err((reason, body, usage))) => fallback(reason, self.keep(&body), usage, None),
            Ok(Ok((content, usage))) => match parse_verdict(&content, self.spec.confidence_floor) {
                Ok(verdict) => Adjudication {
                    verdict,
                    reply: self.keep(&content),
                    prompt_tokens: usage.prompt_tokens,
                    completion_tokens: usage.completion_tokens,
                    latency_ms,
                    fallback: None,
                },
                Err((reason, stated)) => fallback(reason, self.keep(&content), Some(usage), stated),
            },
        };
        self.account(&adj);
        adj
    }

    async fn exchange(&self, card: &DecisionCard) -> Result<(String, Usage), Failed> {
        let body = ChatRequest::for_card(&self.spec, &self.model, card);
        self.send(&body).await
    }

    /// The model name sent with each request.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// One chat exchange with a request the caller built (another classifier on the
    /// same endpoint: the human partner's intents), under the same key, timeout and
    /// body cap: the reply's text and token counts, or why there is none, with the
    /// body that came back.
    pub async fn chat(&self, body: &ChatRequest<'_>) -> Result<(String, Usage), (FallbackReason, String)> {
        match tokio::time::timeout(self.spec.timeout(), self.send(body)).await {
            Err(_) => Err((FallbackReason::Timeout, String::new())),
            Ok(Err((reason, text, _))) => Err((reason, self.keep(&text))),
            Ok(Ok(ok)) => Ok(ok),
        }
    }

    /// [`Self::chat`] with a body the caller built as JSON (a model-driven bot's
    /// decision, whose constraint is built from its options): the same key, timeout and
    /// body cap.
    pub async fn chat_json(&self, body: &serde_json::Value) -> Result<(String, Usage), (FallbackReason, String)> {
        match tokio::time::timeout(self.spec.timeout(), self.send(body)).await {
            Err(_) => Err((FallbackReason::Timeout, String::new())),
            Ok(Err((reason, text, _))) => Err((reason, self.keep(&text))),
            Ok(Ok(ok)) => Ok(ok),
        }
    }

    async fn send<B: serde::Serialize + ?Sized>(&self, body: &B) -> Result<(String, Usage), Failed> {
        let mut req = self.http.post(&self.endpoint).json(body);
        if let Some(k) = &self.key {
            // reqwest marks a bearer header sensitive: it is never logged.
            req = req.bearer_auth(&k.0);
        }
        let mut resp = req.send().await.map_err(|e| (classify(&e), String::new(), None))?;
        let status = resp.status();
        let cap = self.spec.max_body_bytes;
        if resp.content_length().is_some_and(|n| n > cap as u64) {
            return Err((FallbackReason::BodyTooLarge, String::new(), None));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| (classify(&e), String::new(), None))? {
            if bytes.len() + chunk.len() > cap {
                return Err((FallbackReason::BodyTooLarge, String::new(), None));
            }
            bytes.extend_from_slice(&chunk);
        }
        read_reply_body(status.as_u16(), bytes)
    }

    /// The reply as the trace keeps it: the key cut out, at most [`REPLY_KEEP`] bytes.
    fn keep(&self, text: &str) -> String {
        keep_reply(text, self.key.as_ref().map(|k| k.0.as_str()), REPLY_KEEP)
    }

    fn account(&self, adj: &Adjudication) {
        let tokens = adj.tokens();
        metrics::histogram!("gatecrew_adjudication_latency_ms").record(adj.latency_ms as f64);
        metrics::histogram!("gatecrew_adjudication_tokens").record(f64::from(tokens));
        match adj.fallback {
            None => {
                metrics::counter!("gatecrew_adjudications_total", "outcome" => "model").increment(1);
                tracing::debug!(
                    decision = decision_name(adj.verdict.decision),
                    confidence = adj.verdict.confidence,
                    tokens,
                    latency_ms = adj.latency_ms,
                    "adjudicated"
                );
            }
            Some(reason) => {
                metrics::counter!("gatecrew_adjudications_total", "outcome" => "fallback").increment(1);
                metrics::counter!("gatecrew_adjudication_fallbacks_total", "reason" => reason.class()).increment(1);
                tracing::warn!(endpoint = %self.shown, reason = %reason, latency_ms = adj.latency_ms, "adjudication fell back");
            }
        }
        if tokens > self.spec.token_budget {
            metrics::counter!("gatecrew_adjudication_over_budget_total").increment(1);
            tracing::warn!(tokens, budget = self.spec.token_budget, "adjudication over its token budget");
        }
    }
}

fn decision_name(d: Decision) -> &'static str {
    match d {
        Decision::StayLocal => "stay_local",
        Decision::Escalate => "escalate",
    }
}

/// What a transport error means for the fallback.
fn classify(e: &reqwest::Error) -> FallbackReason {
    if e.is_timeout() {
        return FallbackReason::Timeout;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return FallbackReason::ConnectionRefused;
            }
            if io.kind() == std::io::ErrorKind::TimedOut {
                return FallbackReason::Timeout;
            }
        }
        source = s.source();
    }
    FallbackReason::Transport
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let spec = LlmSpec { url: Some("http://127.0.0.1:9/v1".into()), model: Some("m".into()), ..Default::default() };
        let c =
            LlmClient::with_key(spec, Deterministic { midpoint: 0.75 }, Some(ApiKey::new("sk-planted-123"))).unwrap();
        let dbg = format!("{c:?} {:?}", ApiKey::new("sk-planted-123"));
        assert!(!dbg.contains("sk-planted-123") && dbg.contains("redacted"), "{dbg}");
        assert_eq!(c.keep("bad key sk-planted-123!"), "bad key [redacted]!");
        assert_eq!(c.keep(&"é".repeat(400)).len(), 512);
    }
}
