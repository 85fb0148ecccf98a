//! The `[llm]` section: where the endpoint is, how long to wait, how to constrain the
//! answer, what to do when it fails. The API key itself is never here — only the name
//! of the environment variable that holds it.

use serde::{Deserialize, Serialize};

use crate::adjudicator::FallbackPolicy;

/// How the answer is constrained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// `response_format: {type: json_schema}` (OpenAI, vLLM, llama.cpp, Ollama).
    #[default]
    JsonSchema,
    /// A GBNF `grammar` field (llama.cpp's server): admits exactly the answer object.
    Grammar,
    /// No constraint: the prompt alone asks for JSON.
    None,
}

/// The circuit breaker: `failures` consecutive failed adjudications open it (the gray
/// zone then goes straight to the fallback); `half_open_ticks` episode ticks later one
/// trial call is let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BreakerSpec {
    /// Consecutive failures that open the breaker.
    pub failures: u32,
    /// Ticks from opening to half-open.
    pub half_open_ticks: u64,
}

impl Default for BreakerSpec {
    fn default() -> Self {
        BreakerSpec { failures: 3, half_open_ticks: 200 }
    }
}

/// The `[llm]` section as written (every key optional; `--llm-url` and `--model` on
/// the command line override `url` and `model`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmSpec {
    /// Base URL of the OpenAI-compatible API, e.g. `http://127.0.0.1:8080/v1`.
    pub url: Option<String>,
    /// Model name sent in each request.
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (none: no key is sent).
    pub api_key_env: Option<String>,
    /// Whole-request timeout in milliseconds (connect, send, the full body).
    pub timeout_ms: u64,
    /// `max_tokens` of the completion; at least 32 (llama.cpp's schema grammar admits
    /// whitespace, and 20 tokens cut the object short).
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
    /// How the answer is constrained.
    pub output: OutputMode,
    /// Stated confidence below this is a fallback (DESIGN: 0.5).
    pub confidence_floor: f64,
    /// What decides when the model cannot.
    pub fallback: FallbackPolicy,
    /// Largest response body read, in bytes; a larger one is a fallback.
    pub max_body_bytes: usize,
    /// Prompt + completion tokens one adjudication should cost at most (DESIGN: 150);
    /// going over is logged and counted, the verdict stands.
    pub token_budget: u32,
    /// Episode ticks from the consult to the tick at which its verdict enters the
    /// episode (the agent's other work goes on meanwhile). 40 ticks are the 2 s default
    /// timeout in game time.
    pub verdict_delay_ticks: u64,
    /// The circuit breaker.
    pub breaker: BreakerSpec,
}

impl Default for LlmSpec {
    fn default() -> Self {
        LlmSpec {
            url: None,
            model: None,
            api_key_env: None,
            timeout_ms: 2000,
            max_tokens: 40,
            temperature: 0.0,
            output: OutputMode::JsonSchema,
            confidence_floor: 0.5,
            fallback: FallbackPolicy::Deterministic,
            max_body_bytes: 16 * 1024,
            token_budget: 150,
            verdict_delay_ticks: 40,
            breaker: BreakerSpec::default(),
        }
    }
}

/// The API key is not in the spec, but the spec is printed in errors: keep the
/// variable's name, it is not a secret, and say nothing else of the environment.
impl std::fmt::Debug for LlmSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSpec")
            .field("url", &self.url.as_deref().map(super::endpoint::redact_url))
            .field("model", &self.model)
            .field("api_key_env", &self.api_key_env)
            .field("timeout_ms", &self.timeout_ms)
            .field("max_tokens", &self.max_tokens)
            .field("output", &self.output)
            .field("confidence_floor", &self.confidence_floor)
            .field("fallback", &self.fallback)
            .field("verdict_delay_ticks", &self.verdict_delay_ticks)
            .field("breaker", &self.breaker)
            .finish_non_exhaustive()
    }
}

/// The parts of the spec that the episode itself uses, and so belong in the config
/// hash. The endpoint, model, key and timeout do not: they shape verdicts, and the
/// verdicts are recorded, so a replay without a server has the same hash.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EpisodeTerms {
    /// Consult-to-verdict delay.
    pub verdict_delay_ticks: u64,
    /// The fallback (decides when the breaker is open).
    pub fallback: FallbackPolicy,
    /// When failures open the circuit breaker, and for how long.
    pub breaker: BreakerSpec,
}

/// Why an `[llm]` section is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct LlmConfigError {
    /// The key at fault, as `llm.<key>`.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl LlmSpec {
    /// The episode-relevant terms.
    pub fn episode_terms(&self) -> EpisodeTerms {
        EpisodeTerms { verdict_delay_ticks: self.verdict_delay_ticks, fallback: self.fallback, breaker: self.breaker }
    }

    /// The timeout.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms)
    }

    /// Checks the values a TOML file cannot check by type.
    pub fn check(&self) -> Result<(), LlmConfigError> {
        let bad = |key, message: String| Err(LlmConfigError { key, message });
        if let Some(url) = &self.url {
            if let Err(e) = super::endpoint::check_url(url) {
                return bad("llm.url", e);
            }
        }
        if self.model.as_deref().is_some_and(str::is_empty) {
            return bad("llm.model", "must not be empty".into());
        }
        if let Some(name) = &self.api_key_env {
            let ok = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok {
                return bad("llm.api_key_env", format!("must name an environment variable, got \"{name}\""));
            }
        }
        if self.timeout_ms == 0 || self.timeout_ms > 600_000 {
            return bad("llm.timeout_ms", format!("must be 1..=600000, got {}", self.timeout_ms));
        }
        if !(32..=4096).contains(&self.max_tokens) {
            return bad(
                "llm.max_tokens",
                format!("must be 32..=4096 (fewer cut the answer short), got {}", self.max_tokens),
            );
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return bad("llm.temperature", format!("must be in [0, 2], got {}", self.temperature));
        }
        if !(0.0..=1.0).contains(&self.confidence_floor) {
            return bad("llm.confidence_floor", format!("must be in [0, 1], got {}", self.confidence_floor));
        }
        if self.max_body_bytes < 256 {
            return bad("llm.max_body_bytes", format!("must be at least 256, got {}", self.max_body_bytes));
        }
        if self.token_budget == 0 {
            return bad("llm.token_budget", "must be positive".into());
        }
        if self.verdict_delay_ticks == 0 {
            return bad("llm.verdict_delay_ticks", "must be at least 1 (a verdict enters after its consult)".into());
        }
        if self.breaker.failures == 0 {
            return bad("llm.breaker.failures", "must be at least 1".into());
        }
        if self.breaker.half_open_ticks == 0 {
            return bad("llm.breaker.half_open_ticks", "must be at least 1".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_each_bad_value_names_its_key() {
        LlmSpec::default().check().unwrap();
        let cases: Vec<(LlmSpec, &str)> = vec![
            (LlmSpec { url: Some("127.0.0.1:8080".into()), ..Default::default() }, "llm.url"),
            (LlmSpec { max_tokens: 20, ..Default::default() }, "llm.max_tokens"),
            (LlmSpec { timeout_ms: 0, ..Default::default() }, "llm.timeout_ms"),
            (LlmSpec { confidence_floor: 1.5, ..Default::default() }, "llm.confidence_floor"),
            (LlmSpec { api_key_env: Some("MY KEY".into()), ..Default::default() }, "llm.api_key_env"),
            (
                LlmSpec { breaker: BreakerSpec { failures: 0, half_open_ticks: 5 }, ..Default::default() },
                "llm.breaker.failures",
            ),
            (LlmSpec { max_body_bytes: 10, ..Default::default() }, "llm.max_body_bytes"),
        ];
        for (spec, key) in cases {
            assert_eq!(spec.check().unwrap_err().key, key);
        }
    }

    #[test]
    fn the_toml_section_parses_and_refuses_unknown_keys() {
        let spec: LlmSpec = toml::from_str(
            "url = \"http://127.0.0.1:8080/v1\"\nmodel = \"m\"\noutput = \"grammar\"\nbreaker = { failures = 2 }\n",
        )
        .unwrap();
        assert_eq!(spec.output, OutputMode::Grammar);
        assert_eq!(spec.breaker, BreakerSpec { failures: 2, half_open_ticks: 200 });
        assert!(toml::from_str::<LlmSpec>("api_key = \"sk-123\"\n").is_err());
    }
}
