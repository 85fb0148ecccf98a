//! MindAgent's dispatcher with a real model deciding: each step one request (the
//! recipe book, the state, the last history lines; [`crate::dispatch::request`]), one
//! reply parsed into every agent's action ([`crate::dispatch::command`]).
//!
//! **What happens to a bad reply.** MindAgent executes what GPT-4 wrote and feeds the
//! errors back; so does this policy, command by command: an invalid command (unknown
//! verb, agent, location or item, a second command for an agent) becomes that agent's
//! `noop` and a history line (`step N: TOKEN: why`) the next prompt shows; an agent
//! the reply does not mention does `noop`. Only a reply with nothing usable in it — no
//! answer (timeout, refused connection, HTTP error, a body that is no completion) or
//! no valid command — is replaced, for the whole step, by the [`FallbackRule`]: the
//! deterministic dispatcher's actions for that step (the default: the kitchen keeps
//! moving while the server is down) or every agent's `noop` (the model alone is
//! measured). Either way the call is counted as a fallback and labelled with why in
//! the trace, and a history line tells the model its reply was unusable. Why not fill
//! in single invalid commands from the planner: the model's CoS would then include
//! the planner's work on exactly the steps the model got wrong.
//!
//! The deterministic dispatcher runs every step, used or not, so that its memory (which
//! tool it fills for which product) follows the kitchen when it is needed.

use std::time::Instant;

use gatecrew_gating::llm::OutputMode;

use super::dispatcher::Dispatcher;
use super::{Counters, Policy};
use crate::dispatch::{
    Constraint, DispatchModel, DispatchRequest, History, LiveCall, Parsed, ReplyError, Unusable, parse_reply,
};
use crate::world::{Action, StepReport, World};

/// What decides a step whose reply is unusable. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FallbackRule {
    /// The deterministic dispatcher's actions for the step.
    #[default]
    Planner,
    /// Every agent does `noop`.
    Noop,
}

/// How to ask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispatchOptions {
    /// The constraint sent (GBNF for llama.cpp, JSON schema, or none).
    pub output: OutputMode,
    /// Sampling temperature (0: the most likely command).
    pub temperature: f64,
    /// The episode's steps, as the state's `maximum game steps` shows them.
    pub max_steps: u32,
    /// The fallback.
    pub fallback: FallbackRule,
}

/// The policy. See the module docs.
pub struct LlmDispatcher {
    model: Box<dyn DispatchModel>,
    planner: Dispatcher,
    agents: usize,
    opts: DispatchOptions,
    history: History,
    constraint: Option<Constraint>,
    pending: Vec<LiveCall>,
    counters: Counters,
}

impl std::fmt::Debug for LlmDispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmDispatcher")
            .field("model", &self.model.model())
            .field("agents", &self.agents)
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

impl LlmDispatcher {
    /// A dispatcher for a crew of `agents` asking `model`.
    pub fn new(model: Box<dyn DispatchModel>, agents: usize, opts: DispatchOptions) -> Self {
        LlmDispatcher {
            model,
            planner: Dispatcher::new(agents),
            agents,
            opts,
            history: History::new(),
            constraint: None,
            pending: Vec::new(),
            counters: Counters::default(),
        }
    }

    /// The history the next prompt will show.
    pub fn history(&self) -> &History {
        &self.history
    }

    fn fallback(&mut self, step: u32, why: &Unusable, planned: Vec<Action>, n: usize) -> Vec<Action> {
        // A failed call is the operator's business (warn); a reply without a valid
        // command is the model's, counted and traced (debug).
        match why {
            Unusable::Model(_) => {
                tracing::warn!(step, reason = %why.tag(), rule = ?self.opts.fallback, "dispatcher call failed: fallback")
            }
            Unusable::Reply(_) => {
                tracing::debug!(step, reason = %why.tag(), rule = ?self.opts.fallback, "dispatcher reply unusable: fallback")
            }
        }
        self.history
            .push(format!("step {step}: your reply was not used ({}); answer with one command per agent", why.tag()));
        match self.opts.fallback {
            FallbackRule::Planner => planned,
            FallbackRule::Noop => vec![Action::Noop; n],
        }
    }
}

impl Policy for LlmDispatcher {
    fn decide(&mut self, w: &World) -> Vec<Action> {
        let n = self.agents.min(w.agents().len());
        let step = w.time();
        let planned = self.planner.decide(w);
        let constraint = self.constraint.get_or_insert_with(|| Constraint::new(w, n));
        let req = DispatchRequest::new(w, self.opts.max_steps, &self.history, constraint);
        let model = self.model.model().to_owned();
        let chat = req.chat(&model, self.opts.output, self.opts.temperature);
        let started = Instant::now();
        let reply = self.model.dispatch(&chat);
        let latency_s = started.elapsed().as_secs_f64();
        let mut call =
            LiveCall { step, prompt_tokens: 0, completion_tokens: 0, latency_s, invalid: Vec::new(), fallback: None };
        let parsed = match reply {
            Err(reason) => Err(Unusable::Model(reason)),
            Ok((text, usage)) => {
                call.prompt_tokens = usage.prompt_tokens;
                call.completion_tokens = usage.completion_tokens;
                tracing::debug!(step, reply = %text, "dispatcher reply");
                parse_reply(w, n, &text).map_err(Unusable::Reply)
            }
        };
        let invalid = match &parsed {
            Ok(Parsed { invalid, .. }) | Err(Unusable::Reply(ReplyError::AllInvalid(invalid))) => invalid.clone(),
            Err(_) => Vec::new(),
        };
        for e in &invalid {
            self.history.push(format!("step {step}: {e}"));
            call.invalid.push(e.to_string());
        }
        let actions = match parsed {
            Ok(p) => p.actions,
            Err(why) => {
                call.fallback = Some(why.tag());
                self.fallback(step, &why, planned, n)
            }
        };
        self.pending.push(call);
        self.counters.messages += actions.len() as u64;
        actions
    }

    fn observe(&mut self, w: &World, report: &StepReport) {
        self.planner.observe(w, report);
        self.history.observe(w, self.agents, report);
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn central(&self) -> bool {
        true
    }

    fn live_calls(&mut self) -> Vec<LiveCall> {
        std::mem::take(&mut self.pending)
    }
}
