//! The language model as the executor sees it: a profile (latency and errors), a
//! tokenizer and the system prompt's size.

use gatecrew_gating::llm::{LlmProfile, TokenizerName};
use gatecrew_protocol::trace::ExecutorLabel;
use serde::Serialize;
use tiktoken_rs::CoreBPE;

/// Every call's prompt starts with it.
const SYSTEM_PROMPT: &str = include_str!("system-prompt.txt");

/// A language model's costs and error rates, with the tokenizer to count by.
pub struct LlmModel {
    profile: LlmProfile,
    context_lines: u32,
    error_scale: f64,
    bpe: &'static CoreBPE,
    system_tokens: u32,
}

impl std::fmt::Debug for LlmModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmModel")
            .field("profile", &self.profile)
            .field("context_lines", &self.context_lines)
            .field("error_scale", &self.error_scale)
            .field("system_tokens", &self.system_tokens)
            .finish()
    }
}

/// What of the model enters the config hash: a run under another profile, window or
/// error scale is another configuration.
#[derive(Debug, Serialize)]
pub(crate) struct Terms<'a> {
    profile: &'a LlmProfile,
    context_lines: u32,
    error_scale: f64,
}

impl LlmModel {
    /// The model of a profile.
    pub fn new(profile: LlmProfile, context_lines: u32, error_scale: f64) -> Self {
        // The vocabularies are bundled with the crate and built once per process.
        let bpe = match profile.tokenizer {
            TokenizerName::O200kBase => tiktoken_rs::o200k_base_singleton(),
            TokenizerName::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        let system_tokens = bpe.count_ordinary(SYSTEM_PROMPT) as u32;
        LlmModel { profile, context_lines, error_scale, bpe, system_tokens }
    }

    /// Tokens of a text.
    pub fn tokens(&self, text: &str) -> u32 {
        u32::try_from(self.bpe.count_ordinary(text)).unwrap_or(u32::MAX)
    }

    /// Tokens of the system prompt every call starts with.
    pub fn system_tokens(&self) -> u32 {
        self.system_tokens
    }

    /// Teammate lines a bot keeps.
    pub fn context_lines(&self) -> usize {
        self.context_lines as usize
    }

    /// Ticks a call takes.
    pub fn ticks(&self, prompt_tokens: u32, completion_tokens: u32) -> u64 {
        self.profile.latency.ticks(prompt_tokens, completion_tokens)
    }

    /// The probability that a call with this prompt goes wrong (0 without an error model).
    pub fn p_mistake(&self, prompt_tokens: u32) -> f64 {
        self.profile.errors.as_ref().map_or(0.0, |e| e.probability(prompt_tokens, self.error_scale))
    }

    /// The profile.
    pub fn profile(&self) -> &LlmProfile {
        &self.profile
    }

    /// What `episode_start` records.
    pub fn label(&self) -> ExecutorLabel {
        ExecutorLabel {
            model: self.profile.model.clone(),
            context_lines: self.context_lines,
            error_scale: self.error_scale,
            errors: self.profile.errors.is_some(),
        }
    }

    pub(crate) fn terms(&self) -> Terms<'_> {
        Terms { profile: &self.profile, context_lines: self.context_lines, error_scale: self.error_scale }
    }
}
