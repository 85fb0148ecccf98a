//! The executor model: how a bot turns what it knows into what it does.
//!
//! Under `scripted`, the default, a bot's decisions are the agent core's and cost
//! nothing: actions take the world's ticks, chat costs the baselines' fixed reading
//! ticks. Under `llm` every bot of every policy is modelled as driven by a language
//! model, as in the paper's experiments (all systems on GPT-4o), and every decision such
//! a bot makes with the model costs game time and can go wrong:
//!
//! | call      | when                                                   | prompt adds        | completion            | a mistake                          |
//! |-----------|--------------------------------------------------------|--------------------|-----------------------|------------------------------------|
//! | `act`     | each action a bot starts                               | state, context     | the command           | the action fails; a place made with another block in hand puts that block down (the bot sees it, digs it out, places again) |
//! | `read`    | a wake-up with teammates' new lines (chat-reading styles: `flatcomm`, `no_partition`) | state, context | end of turn | one new line is ignored     |
//! | `write`   | each line a bot writes with the model (`flatcomm`'s chat, `central_dag`'s reports) | state, context | the line | the line is unusable: lost |
//! | `replan`  | each `central_dag` re-plan                              | the task status    | the directives        | one delivery order is lost         |
//! | `consult` | each tier-3 gray-zone consult (gated)                  | the decision card  | the verdict           | the verdict is flipped             |
//!
//! Every prompt starts with the system prompt (`executor/system-prompt.txt`, counted
//! once); token counts are the model family's real tokenizer's over the texts the
//! [`render`] module writes. A call takes `a + b * prompt + c * completion` ticks
//! ([`gatecrew_gating::llm::Latency`]), and goes wrong with probability
//! `p0 + p1 * prompt / 1000` ([`gatecrew_gating::llm::ErrorRates`]), both from the
//! profile. A bot keeps the last `context_lines` teammate lines (default 15,
//! MindCraft's `max_messages`); lines that arrive while it is busy and scroll out
//! before it wakes are never read, so a request that scrolled away is never answered.
//!
//! The draws come from one ChaCha8 stream per agent (and one for the manager), seeded
//! from the episode seed, and every call makes exactly two draws whatever its kind: the
//! n-th call of agent k draws the same numbers under every policy, so the model is the
//! same for all of them ([`state`]).
//!
//! The executor is part of the setup (`[executor]` in a config, `--executor` on the
//! command line) and of the config hash; `episode_start` records it. The scripted
//! executor writes nothing new, so scripted traces are what they always were.

mod model;
pub mod render;
pub(crate) mod state;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use gatecrew_gating::llm::ExecutorKind;
use gatecrew_gating::llm::{LlmProfile, ProfileError};
use gatecrew_protocol::trace::ExecutorLabel;
use serde::{Deserialize, Serialize};

pub use model::LlmModel;
pub use state::Call;

/// MindCraft's default `max_messages`: the chat lines a bot keeps in its context.
pub const DEFAULT_CONTEXT_LINES: u32 = 15;

/// The profile an `llm` executor uses when none is named: GPT-4o from published
/// latency figures with the error rates fitted on suite v2's standard split (the file
/// says how). Built in, so that a run needs no file.
pub const DEFAULT_PROFILE: &str = include_str!("../../configs/llm-profiles/gpt-4o-published.toml");

/// The `[executor]` table of a crew config.
///
/// ```toml
/// [executor]
/// kind = "llm"                                     # or "scripted" (the default)
/// profile = "llm-profiles/gpt-4o-published.toml"   # relative to the config; built in if absent
/// context_lines = 15                               # MindCraft's max_messages
/// error_scale = 1.0                                # multiplies p0 and p1 (the sweep)
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecutorSpec {
    /// Scripted or llm.
    pub kind: ExecutorKind,
    /// The latency and error profile; the built-in GPT-4o profile if absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<PathBuf>,
    /// Teammate lines a bot keeps in its context.
    pub context_lines: u32,
    /// Multiplies the profile's error rates.
    pub error_scale: f64,
}

impl Default for ExecutorSpec {
    fn default() -> Self {
        ExecutorSpec {
            kind: ExecutorKind::Scripted,
            profile: None,
            context_lines: DEFAULT_CONTEXT_LINES,
            error_scale: 1.0,
        }
    }
}

/// An executor that cannot be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorError {
    /// The profile file is unusable (names the file and key).
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A value of the `[executor]` table is out of range.
    #[error("executor.{key}: {message}")]
    Value {
        /// The key.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// A resolved executor: the setup holds one, every episode of it runs under it.
#[derive(Debug, Clone, Default)]
pub enum Executor {
    /// The agent cores' own decisions.
    #[default]
    Scripted,
    /// The language-model executor, with its profile loaded.
    Llm(Arc<LlmModel>),
}

impl PartialEq for Executor {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Executor::Scripted, Executor::Scripted) => true,
            (Executor::Llm(a), Executor::Llm(b)) => a.profile() == b.profile() && a.label() == b.label(),
            _ => false,
        }
    }
}

impl Executor {
    /// Resolves a spec; a relative profile path is taken from `base` (the config's
    /// folder, or the working directory for a command-line flag).
    pub fn resolve(spec: &ExecutorSpec, base: &Path) -> Result<Executor, ExecutorError> {
        if spec.kind == ExecutorKind::Scripted {
            return Ok(Executor::Scripted);
        }
        if spec.context_lines == 0 || spec.context_lines > 10_000 {
            return Err(ExecutorError::Value {
                key: "context_lines",
                message: format!("{} is not a number of lines in 1..=10000", spec.context_lines),
            });
        }
        if !spec.error_scale.is_finite() || spec.error_scale < 0.0 {
            return Err(ExecutorError::Value {
                key: "error_scale",
                message: format!("{} is not a finite factor >= 0", spec.error_scale),
            });
        }
        let profile = match &spec.profile {
            Some(p) => LlmProfile::load(&base.join(p))?,
            None => LlmProfile::parse(DEFAULT_PROFILE, Path::new("<built-in gpt-4o-published.toml>"))?,
        };
        Ok(Executor::Llm(Arc::new(LlmModel::new(profile, spec.context_lines, spec.error_scale))))
    }

    /// What `episode_start` records: nothing for the scripted executor.
    pub fn label(&self) -> Option<ExecutorLabel> {
        match self {
            Executor::Scripted => None,
            Executor::Llm(m) => Some(m.label()),
        }
    }

    /// The model, under `llm`.
    pub fn model(&self) -> Option<&Arc<LlmModel>> {
        match self {
            Executor::Scripted => None,
            Executor::Llm(m) => Some(m),
        }
    }
}
