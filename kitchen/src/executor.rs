//! The executor model in the kitchen (the construction crew's, in the kitchen's
//! terms): how a kitchen agent's decision becomes an action, chosen per run and applied
//! to every policy alike.
//!
//! Under [`Executor::Scripted`], the default, the policies' decisions are the actions,
//! at no cost. Under [`Executor::Llm`] every decision a language-model-driven agent (or
//! MindAgent's GPT-4 dispatcher) would make is a model call that is counted, timed and
//! can go wrong:
//!
//! | policy       | calls per step          | prompt                                                                    | completion                                   | a mistake                                        |
//! |--------------|-------------------------|---------------------------------------------------------------------------|----------------------------------------------|--------------------------------------------------|
//! | `dispatcher` | one, for every agent    | system prompt, the level's recipe book, the full state, its last 15 history lines (its commands and the world's answers) | every agent's command                         | one agent's command is wrong (the draw picks which and what) |
//! | `gated`      | one per agent           | system prompt, the level's recipe book, the state with "you are agentK" and its last refusal, its last 15 context lines (board messages addressed to it) | its command and the board messages it posted | its command is wrong                              |
//! | `flatcomm`   | one per agent           | the same, the context lines being every teammate's chat line              | its command and its chat lines               | its command is wrong                              |
//!
//! The texts are MindAgent's: the state in its `-game state: / -agent state: / -kitchen
//! state:` form, the recipe book as its `Cook X at: -- location: ... -- with
//! ingredients: ...` lines (only the recipes of the level's dishes, as MindAgent's
//! prompt gives them), the commands in its DSL (`goto_agent0_storage0`), the world's
//! refusals as its feedback sentences ([`render`]). The crew agents get the recipe book
//! too: an agent cannot cook without it, and leaving it out would shorten their prompts
//! for nothing. Tokens are counted with the profile's tokenizer (o200k_base for GPT-4o)
//! over these real texts, part by part (system prompt, recipe book, state, own lines,
//! context lines), so a prompt's tokens are the sum of its parts'.
//!
//! **Mistakes.** A call goes wrong with the profile's `p0 + p1 * prompt_tokens / 1000`
//! times the error scale (capped at 1). Each agent has its own seeded ChaCha8 stream
//! and the dispatcher one more (seeded from the run's seed, the level and the factor,
//! never the policy: [`crate::cos::executor_seed`]), and every call makes exactly two
//! draws whatever happens: `u` (mistake if `u < p`) and `pick` (what goes wrong). So the n-th call of
//! agent k draws the same two numbers under gated and flatcomm, and only the
//! probability they are compared with differs. The wrong command, by rule
//! ([`wrong_actions`]): the agent's action space where it stands, in this order —
//! `noop`; `goto` every other location in kitchen order; `get` (at the storage: every
//! raw ingredient of the level's recipe book, in item order; elsewhere: the content);
//! `put` here; `activate` here when it is a cooking tool — less the intended command;
//! the wrong one is entry `pick mod len`. For the dispatcher `pick mod n` is the agent
//! hit and `(pick div n) mod len` its wrong command. The world then applies the wrong
//! command; when it refuses, the refusal is the next prompt's feedback (the agent's
//! state line, the dispatcher's history), as MindAgent feeds invalid commands back.
//!
//! **Time.** MindAgent's game is turn-based: the world waits for the dispatcher's
//! reply, so a call costs no game step here, and none is invented. Each call's latency
//! is still computed from the profile's line (`a + b * prompt + c * completion` ticks,
//! 20 ticks a second) and reported: the total model seconds of an episode (every call
//! summed) and the wait (per step the slowest call, as a crew's agents call at once).
//!
//! **A real model.** This executor models calls; it never makes one. The dispatcher
//! over a real model ([`crate::dispatch`], `gatecrew cos --llm-url`) sends these same
//! texts to a server and lets its reply decide, under the scripted executor.
//!
//! **The profile.** By default the built-in GPT-4o profile, whose error rates were fitted
//! on the construction suite's standard split: they are used unchanged, never refitted
//! on the kitchen, so a kitchen CoS under `llm` is a zero-shot prediction.

pub mod render;
mod state;

use std::path::Path;
use std::sync::Arc;

pub use gatecrew_gating::llm::ExecutorKind;
use gatecrew_gating::llm::profile::MS_PER_TICK;
use gatecrew_gating::llm::{LlmProfile, ProfileError, TokenizerName};
use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

pub use state::{CallRecord, EpisodeExec, wrong_actions};

/// MindCraft's default `max_messages` (as in the crew's executor): the lines an agent
/// keeps in its context, and the dispatcher's history lines.
pub const CONTEXT_LINES: usize = 15;

/// The profile an `llm` executor uses when none is named: GPT-4o from published
/// latency figures, with the error rates fitted on the construction suite's standard
/// split (the file says how).
pub const DEFAULT_PROFILE: &str = include_str!("../../configs/llm-profiles/gpt-4o-published.toml");

/// The dispatcher's system prompt (MindAgent's instructions, appendix H).
pub(crate) const DISPATCHER_PROMPT: &str = include_str!("executor/dispatcher-prompt.txt");
/// A crew agent's system prompt: the same rules, for one cook of a crew.
const AGENT_PROMPT: &str = include_str!("executor/agent-prompt.txt");

/// The language model as the kitchen's executor sees it: a profile, an error scale, a
/// tokenizer and the system prompts' sizes.
pub struct LlmModel {
    profile: LlmProfile,
    error_scale: f64,
    bpe: &'static CoreBPE,
    dispatcher_tokens: u32,
    agent_tokens: u32,
}

impl std::fmt::Debug for LlmModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmModel").field("profile", &self.profile).field("error_scale", &self.error_scale).finish()
    }
}

impl LlmModel {
    /// The model of a profile, its error rates multiplied by `error_scale` (finite, >= 0;
    /// anything else counts as 0).
    pub fn new(profile: LlmProfile, error_scale: f64) -> Self {
        let bpe = match profile.tokenizer {
            TokenizerName::O200kBase => tiktoken_rs::o200k_base_singleton(),
            TokenizerName::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        let count = |t: &str| u32::try_from(bpe.count_ordinary(t)).unwrap_or(u32::MAX);
        let error_scale = if error_scale.is_finite() && error_scale >= 0.0 { error_scale } else { 0.0 };
        LlmModel {
            dispatcher_tokens: count(DISPATCHER_PROMPT),
            agent_tokens: count(AGENT_PROMPT),
            profile,
            error_scale,
            bpe,
        }
    }

    /// The built-in GPT-4o profile.
    pub fn builtin(error_scale: f64) -> Result<Self, ProfileError> {
        let p = LlmProfile::parse(DEFAULT_PROFILE, Path::new("<built-in gpt-4o-published.toml>"))?;
        Ok(LlmModel::new(p, error_scale))
    }

    /// A profile file (errors name the file and the key).
    pub fn load(path: &Path, error_scale: f64) -> Result<Self, ProfileError> {
        Ok(LlmModel::new(LlmProfile::load(path)?, error_scale))
    }

    /// Tokens of a text.
    pub fn tokens(&self, text: &str) -> u32 {
        u32::try_from(self.bpe.count_ordinary(text)).unwrap_or(u32::MAX)
    }

    /// Tokens of the dispatcher's (`central`) or a crew agent's system prompt.
    pub fn system_tokens(&self, central: bool) -> u32 {
        if central { self.dispatcher_tokens } else { self.agent_tokens }
    }

    /// The probability that a call with this prompt goes wrong (0 without an error model).
    pub fn p_mistake(&self, prompt_tokens: u32) -> f64 {
        self.profile.errors.as_ref().map_or(0.0, |e| e.probability(prompt_tokens, self.error_scale))
    }

    /// A call's latency in seconds: the profile's line in ticks, 20 ticks a second.
    pub fn seconds(&self, prompt_tokens: u32, completion_tokens: u32) -> f64 {
        self.profile.latency.ticks(prompt_tokens, completion_tokens) as f64 * MS_PER_TICK / 1000.0
    }

    /// The profile.
    pub fn profile(&self) -> &LlmProfile {
        &self.profile
    }

    /// The error scale.
    pub fn error_scale(&self) -> f64 {
        self.error_scale
    }
}

/// The executor of a run. The model is built once for a whole run and shared by its
/// episodes.
#[derive(Debug, Clone, Default)]
pub enum Executor {
    /// The policies' decisions, free of cost.
    #[default]
    Scripted,
    /// The language-model executor.
    Llm(Arc<LlmModel>),
}

impl PartialEq for Executor {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Executor::Scripted, Executor::Scripted) => true,
            (Executor::Llm(a), Executor::Llm(b)) => {
                Arc::ptr_eq(a, b) || (a.profile == b.profile && a.error_scale == b.error_scale)
            }
            _ => false,
        }
    }
}

// Reflexive: the same model is the same pointer.
impl Eq for Executor {}

impl Executor {
    /// The kind.
    pub fn kind(&self) -> ExecutorKind {
        match self {
            Executor::Scripted => ExecutorKind::Scripted,
            Executor::Llm(_) => ExecutorKind::Llm,
        }
    }

    /// The `llm` executor on a model.
    pub fn llm(model: LlmModel) -> Self {
        Executor::Llm(Arc::new(model))
    }

    /// The `llm` executor on the built-in GPT-4o profile.
    pub fn llm_builtin(error_scale: f64) -> Result<Self, ProfileError> {
        Ok(Executor::llm(LlmModel::builtin(error_scale)?))
    }
}

/// What the JSON shows of an executor.
#[derive(Serialize)]
struct Label<'a> {
    kind: ExecutorKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_scale: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p0: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p1: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_lines: Option<usize>,
}

impl Serialize for Executor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let label = match self {
            Executor::Scripted => Label {
                kind: ExecutorKind::Scripted,
                model: None,
                error_scale: None,
                p0: None,
                p1: None,
                context_lines: None,
            },
            Executor::Llm(m) => Label {
                kind: ExecutorKind::Llm,
                model: Some(&m.profile.model),
                error_scale: Some(m.error_scale),
                p0: m.profile.errors.as_ref().map(|e| e.p0),
                p1: m.profile.errors.as_ref().map(|e| e.p1),
                context_lines: Some(CONTEXT_LINES),
            },
        };
        label.serialize(s)
    }
}

/// What the model did over an episode (or a sum of episodes); zero under `scripted`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelUse {
    /// Model calls.
    pub calls: u64,
    /// Prompt tokens over every call.
    pub prompt_tokens: u64,
    /// Completion tokens over every call.
    pub completion_tokens: u64,
    /// Calls that went wrong.
    pub mistakes: u64,
    /// Every call's latency, summed (seconds).
    pub model_seconds: f64,
    /// Per step, the slowest call's latency, summed: how long a turn-based game waits
    /// for its agents (seconds).
    pub wait_seconds: f64,
    /// Invalid commands in a real model's replies (the dispatcher over a real model;
    /// absent from the JSON and traces when 0, so the simulated executor's are
    /// unchanged, and read as 0 from traces written before it existed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid_commands: u64,
    /// Calls whose reply was unusable, so that the fallback decided the step (the same).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fallbacks: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl std::ops::AddAssign for ModelUse {
    fn add_assign(&mut self, o: ModelUse) {
        self.calls += o.calls;
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.mistakes += o.mistakes;
        self.model_seconds += o.model_seconds;
        self.wait_seconds += o.wait_seconds;
        self.invalid_commands += o.invalid_commands;
        self.fallbacks += o.fallbacks;
    }
}
