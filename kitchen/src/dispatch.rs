//! The dispatcher over a real model: MindAgent's GPT-4 dispatcher, asked
//! through any OpenAI-compatible server. This module is the pure half — the request
//! ([`request`]), the constrained output form ([`grammar`]), the reply's parser
//! ([`command`]) and the record of each call ([`LiveCall`]); the HTTP half is the
//! caller's [`DispatchModel`] (the command line's wraps the gate's `LlmClient`), so
//! this crate stays free of an HTTP client and its tests need no server. The policy
//! that asks the model each step is [`crate::policy::llm_dispatcher::LlmDispatcher`].
//!
//! This is not the `llm` executor ([`crate::executor`]): that one simulates a model's
//! cost and mistakes around the deterministic planner's decisions; this one lets a
//! real model decide, and counts what it really cost.

pub mod command;
pub mod grammar;
pub mod request;

use gatecrew_gating::llm::{ChatRequest, FallbackReason, Usage};
use serde::Serialize;
use serde_json::Value;

pub use command::{CommandError, CommandErrorKind, Parsed, ReplyError, parse_command, parse_reply};
pub use request::{DispatchRequest, History};

use crate::world::World;

/// A model the dispatcher can ask: one chat exchange, its reply's text and the server's
/// token counts, or why there is none. Implementations must bound the wait (the
/// command line's uses the client's whole-request timeout): the episode waits for the
/// answer, as MindAgent's turn-based game does.
pub trait DispatchModel: Send {
    /// The model's name, as sent in each request.
    fn model(&self) -> &str;
    /// One exchange.
    fn dispatch(&mut self, request: &ChatRequest<'_>) -> Result<(String, Usage), FallbackReason>;
}

/// The constraint of a level and crew, built once per episode.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// GBNF ([`grammar::gbnf`]).
    pub grammar: String,
    /// JSON schema ([`grammar::schema`]).
    pub schema: Value,
    /// `max_tokens` ([`grammar::longest_reply`]).
    pub max_tokens: u32,
}

impl Constraint {
    /// The constraint for a crew of `agents` in `w`'s kitchen.
    pub fn new(w: &World, agents: usize) -> Self {
        Constraint {
            grammar: grammar::gbnf(w, agents),
            schema: grammar::schema(w, agents),
            max_tokens: grammar::longest_reply(w, agents),
        }
    }
}

/// Why a step's reply was not used and the fallback decided instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// No reply: timeout, refused connection, HTTP error, a body that is not a
    /// completion (the client's reason).
    Model(FallbackReason),
    /// A reply with no valid command in it.
    Reply(ReplyError),
}

impl Unusable {
    /// The label written in traces and tables: the client's tag (`timeout`,
    /// `http_500`, `malformed_json`) or `no_commands` / `all_invalid`.
    pub fn tag(&self) -> String {
        match self {
            Unusable::Model(r) => r.tag(),
            Unusable::Reply(ReplyError::NoCommands) => "no_commands".into(),
            Unusable::Reply(ReplyError::AllInvalid(_)) => "all_invalid".into(),
        }
    }
}

/// One call the dispatcher made, as the trace's `llm_call` line and the outcome's
/// [`crate::ModelUse`] count it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveCall {
    /// The step it decided.
    pub step: u32,
    /// Prompt tokens, from the server's `usage` (0 when there was no reply).
    pub prompt_tokens: u32,
    /// Completion tokens, from `usage`.
    pub completion_tokens: u32,
    /// Wall-clock seconds from sending to the parsed reply (or the failure).
    pub latency_s: f64,
    /// The invalid commands of the reply, each `token: why`.
    pub invalid: Vec<String>,
    /// Why the fallback decided this step, when it did (see [`Unusable::tag`]).
    pub fallback: Option<String>,
}
