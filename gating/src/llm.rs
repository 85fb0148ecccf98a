//! Tier 3 over a language model (DESIGN section 5.4): any OpenAI-compatible
//! `POST {base}/chat/completions` endpoint (OpenAI, vLLM, llama.cpp's server, Ollama).
//!
//! The model is a binary classifier, never a planner: it sees a short fixed system
//! prompt and the compact [`DecisionCard`](crate::DecisionCard), and must answer exactly
//! `{"decision":"stay_local"|"escalate","confidence":N}`, constrained by a JSON schema
//! or a GBNF grammar ([`OutputMode`]). Anything else — a timeout, a refused connection,
//! an HTTP error, a body over the cap, bytes that are not UTF-8, malformed or truncated
//! JSON, an unknown decision, a confidence out of range or under the floor — is a typed
//! [`FallbackReason`], and the configured [`FallbackPolicy`](crate::FallbackPolicy)
//! decides instead.
//!
//! Everything here is pure except [`client`] (cargo feature `http`), which does the
//! request with reqwest. The [`Breaker`] counts failures per verdict, driven by
//! episode ticks, so that an episode is deterministic given its verdicts.

#[cfg(feature = "http")]
mod blocking;
mod breaker;
#[cfg(feature = "http")]
pub mod client;
mod config;
mod endpoint;
pub mod profile;
mod prompt;
mod reply;
mod wire;

#[cfg(feature = "http")]
pub use blocking::{BlockingChat, BlockingLlm, ChatResult};
pub use breaker::{Admission, Breaker, BreakerState, Transition};
#[cfg(feature = "http")]
pub use client::{ApiKey, LlmClient, LlmClientError};
pub use config::{BreakerSpec, EpisodeTerms, LlmConfigError, LlmSpec, OutputMode};
pub use endpoint::{check_url, redact_url, same_origin};
pub use profile::{ErrorRates, ExecutorKind, Latency, LlmProfile, ProfileError, TokenizerName};
pub use prompt::{GRAMMAR, SYSTEM_PROMPT, response_schema};
pub use reply::{BodyFailure, FallbackReason, UnknownFallback, keep_reply, parse_verdict, read_reply_body};
pub use wire::{ChatMessage, ChatRequest, ChatResponse, Usage};
