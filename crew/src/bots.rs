//! Bots a language model drives (`--bots model`, `[bots] kind = "model"`): a decision
//! seat beside the agent core (DESIGN section 6, "Bots").
//!
//! The agent core stays what it is — the verified state `S = (I, T, P, B, H)` and the
//! skills that turn an intent into world actions. At three of its decision points it
//! asks its [`Seat`] instead of deciding itself:
//!
//! | point     | when                                             | the options                                   |
//! |-----------|--------------------------------------------------|-----------------------------------------------|
//! | `command` | it is free to start a cell and more than one is ready | `place <block> at x y z`, one per ready cell of its share |
//! | `issue`   | a missing item or tool blocks it                  | `recover` (the local solver's chain), `skip`, `ask` |
//! | `answer`  | a teammate asks for an item it holds beyond its needs | `offer <n>`, `cannot_supply`                |
//!
//! Each call is an OpenAI chat completion whose answer is constrained by a JSON schema
//! built from exactly those options (`{"choice": <one of them>}`), so even a small
//! model answers in form. An unusable reply (a transport failure, malformed JSON, an
//! option not offered) is fed back once; if the second is unusable too, the scripted
//! decision stands in. Both are in the trace (`model_call` with `error`, `fallback`).
//! The model never changes state itself: a chosen command runs as the skill the
//! scripted core would have run, and the world verifies its outcome.
//!
//! A proposal to ask is no request yet: it goes through the gate (rules, score, gray
//! zone; everything passes under `no_gate`), and the `gate` event after the
//! `model_call` records what the gate made of it. A proposal to stay local is the
//! bot's own decision, recorded as a `gate` event of tier `policy`.
//!
//! Every call is recorded — request digest, reply, `usage` tokens, wall latency — and
//! costs game ticks from its token counts through the latency profile
//! ([`gatecrew_gating::llm::Latency`]), never from the wall clock: a recorded trace
//! replays byte for byte with no server ([`ReplayEndpoint`]).

mod question;
mod replay;
mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_gating::llm::{Latency, LlmProfile, ProfileError};
use gatecrew_protocol::{AgentId, IssueId};
use serde::{Deserialize, Serialize};

pub use question::{Point, Question};
pub use replay::{ReplayEndpoint, ReplayModelError};
pub use view::{MINDCRAFT_MAX_MESSAGES, MINDCRAFT_SUMMARY_CHUNK, Transcript, View};

/// The latency profile a model-driven crew uses when its config names none: the local
/// SmolLM2-135M server's, measured with `gatecrew bench-llm` (the file says when and
/// under what load).
pub const DEFAULT_PROFILE: &str = include_str!("../../configs/llm-profiles/smollm2-135m-local.toml");

/// Who decides at the bots' decision points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotsKind {
    /// The agent core (the default).
    #[default]
    Scripted,
    /// A language model over the chat-completions API.
    Model,
}

impl std::str::FromStr for BotsKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "scripted" => Ok(BotsKind::Scripted),
            "model" => Ok(BotsKind::Model),
            other => Err(format!("unknown bots {other:?}: scripted or model")),
        }
    }
}

/// The `[bots]` table of a crew config.
///
/// ```toml
/// [bots]
/// kind = "model"                                   # or "scripted" (the default)
/// profile = "llm-profiles/smollm2-135m-local.toml" # the latency profile; built in if absent
/// max_tokens = 48                                  # completion budget of one decision
/// timeout_ms = 10000                               # one call, connect to last byte
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BotsSpec {
    /// Scripted or model.
    pub kind: BotsKind,
    /// The latency profile (ticks per call from its tokens); relative to the config.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<PathBuf>,
    /// `max_tokens` of one decision's completion: the longest option with the JSON
    /// frame is about 20 tokens with SmolLM2's tokenizer, and llama.cpp's schema
    /// grammar admits whitespace, so twice that and some.
    pub max_tokens: u32,
    /// One call's timeout in milliseconds. A decision's prompt is 150-250 tokens: under
    /// a second on the local 135M server by its profile, but a busy machine can take
    /// far longer (docs/benchmarks.md); 10 s keeps a dead endpoint from holding a crew
    /// long while letting a loaded one answer.
    pub timeout_ms: u64,
}

impl Default for BotsSpec {
    fn default() -> Self {
        BotsSpec { kind: BotsKind::Scripted, profile: None, max_tokens: 48, timeout_ms: 10_000 }
    }
}

/// A `[bots]` table that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BotsError {
    /// The latency profile is unusable (names the file and key).
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A value out of range.
    #[error("bots.{key}: {message}")]
    Value {
        /// The key.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// What of the model-driven bots enters the config hash and the episode: the latency
/// profile and the completion budget (the endpoint does not: its replies are recorded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelBots {
    /// Ticks per call.
    pub latency: Latency,
    /// The profile's model and source, for the record.
    pub profile_source: String,
    /// Completion budget of one decision.
    pub max_tokens: u32,
    /// One call's timeout (not in the hash: it shapes replies, which are recorded).
    #[serde(skip)]
    pub timeout_ms: u64,
}

impl ModelBots {
    /// Resolves a spec (`None` for scripted bots); a relative profile path is taken from `base`.
    pub fn resolve(spec: &BotsSpec, base: &Path) -> Result<Option<ModelBots>, BotsError> {
        if spec.kind == BotsKind::Scripted {
            return Ok(None);
        }
        if !(16..=1024).contains(&spec.max_tokens) {
            return Err(BotsError::Value {
                key: "max_tokens",
                message: format!("{} is not in 16..=1024 (fewer cut the answer short)", spec.max_tokens),
            });
        }
        if spec.timeout_ms == 0 || spec.timeout_ms > 600_000 {
            return Err(BotsError::Value {
                key: "timeout_ms",
                message: format!("{} is not in 1..=600000", spec.timeout_ms),
            });
        }
        let profile = match &spec.profile {
            Some(p) => LlmProfile::load(&base.join(p))?,
            None => LlmProfile::parse(DEFAULT_PROFILE, Path::new("<built-in smollm2-135m-local.toml>"))?,
        };
        Ok(Some(ModelBots {
            latency: profile.latency,
            profile_source: profile.source,
            max_tokens: spec.max_tokens,
            timeout_ms: spec.timeout_ms,
        }))
    }
}

/// One exchange with an endpoint, as the seat sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// The reply's text and `(prompt, completion)` tokens, or why there is none (a
    /// [`gatecrew_gating::llm::FallbackReason`] tag) with the body that came back.
    pub result: Result<(String, u32, u32), (String, String)>,
    /// Wall time of the exchange.
    pub latency_ms: u64,
}

/// Where a seat's requests go: a live endpoint (the command line wraps the HTTP
/// client), or a recorded trace.
pub trait Endpoint: Send + Sync + std::fmt::Debug {
    /// One exchange for `agent` (`None`: the central manager), whose request body is
    /// `body` with digest `digest`.
    fn chat(&self, agent: Option<AgentId>, digest: &str, body: serde_json::Value) -> Exchange;
}

/// The seat every model-driven bot of an episode shares: the endpoint and the terms.
#[derive(Debug, Clone)]
pub struct Seat {
    endpoint: Arc<dyn Endpoint>,
    terms: ModelBots,
    /// The model name the requests carry (not in the digest: a replay needs none).
    model: String,
}

/// One call as the trace records it (a `model_call` event).
#[derive(Debug, Clone, PartialEq)]
pub struct CallNote {
    /// The decision point.
    pub point: Point,
    /// The issue decided, at an issue point.
    pub issue_id: Option<IssueId>,
    /// 1, or 2 for the call that fed the first reply back.
    pub attempt: u8,
    /// The request's digest.
    pub digest: String,
    /// The raw reply.
    pub reply: String,
    /// The chosen option's text, when usable.
    pub choice: Option<String>,
    /// Server-counted prompt tokens.
    pub prompt_tokens: u32,
    /// Server-counted completion tokens.
    pub completion_tokens: u32,
    /// Wall latency.
    pub latency_ms: u64,
    /// Game ticks the call costs.
    pub ticks: u64,
    /// Why the reply was unusable.
    pub error: Option<String>,
    /// The scripted decision stood in after this call.
    pub fallback: bool,
}

impl CallNote {
    /// The call's `model_call` event, made by `agent` (`None`: the central manager).
    pub fn event(self, agent: Option<AgentId>) -> gatecrew_protocol::trace::EventKind {
        gatecrew_protocol::trace::EventKind::ModelCall {
            agent,
            point: self.point.as_str().to_owned(),
            issue_id: self.issue_id,
            attempt: self.attempt,
            digest: self.digest,
            reply: self.reply,
            choice: self.choice,
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            latency_ms: self.latency_ms,
            ticks: self.ticks,
            error: self.error,
            fallback: self.fallback,
        }
    }
}

impl Seat {
    /// A seat over `endpoint` under `terms`; `model` goes into each request.
    pub fn new(endpoint: Arc<dyn Endpoint>, terms: ModelBots, model: impl Into<String>) -> Self {
        Seat { endpoint, terms, model: model.into() }
    }

    /// Asks the model `q` for `agent` (`None`: the central manager): the chosen option's
    /// index (`None`: the scripted decision stands in), and the calls made, in order.
    pub fn decide(&self, agent: Option<AgentId>, q: &Question) -> (Option<usize>, Vec<CallNote>) {
        let mut notes = Vec::new();
        let mut messages = q.messages();
        for attempt in 1..=2u8 {
            let body = q.body(&self.model, &messages, self.terms.max_tokens);
            let digest = question::digest(&body);
            let ex = self.endpoint.chat(agent, &digest, body);
            let (reply, tokens, parsed) = match ex.result {
                Ok((text, p, c)) => {
                    let parsed = q.parse(&text);
                    (text, (p, c), parsed)
                }
                Err((tag, body)) => (body, (0, 0), Err(tag)),
            };
            let ticks = self.terms.latency.ticks(tokens.0, tokens.1);
            let last = attempt == 2;
            let mut note = CallNote {
                point: q.point,
                issue_id: q.issue_id,
                attempt,
                digest,
                reply: reply.clone(),
                choice: None,
                prompt_tokens: tokens.0,
                completion_tokens: tokens.1,
                latency_ms: ex.latency_ms,
                ticks,
                error: None,
                fallback: false,
            };
            metrics::counter!("gatecrew_model_bot_calls_total", "point" => q.point.as_str()).increment(1);
            match parsed {
                Ok(i) => {
                    note.choice = Some(q.options[i].clone());
                    notes.push(note);
                    return (Some(i), notes);
                }
                Err(why) => {
                    metrics::counter!("gatecrew_model_bot_invalid_total", "point" => q.point.as_str()).increment(1);
                    tracing::debug!(?agent, point = q.point.as_str(), attempt, error = %why, "unusable model reply");
                    messages.push(gatecrew_gating::llm::ChatMessage::new("assistant", reply));
                    messages.push(gatecrew_gating::llm::ChatMessage::new("user", question::feedback(&why, &q.options)));
                    note.error = Some(why);
                    note.fallback = last;
                    notes.push(note);
                }
            }
        }
        metrics::counter!("gatecrew_model_bot_fallbacks_total", "point" => q.point.as_str()).increment(1);
        (None, notes)
    }
}
