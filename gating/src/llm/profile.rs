//! A language model's latency profile (DESIGN section 6, the `llm` executor model):
//! how many game ticks one decision costs, `a + b * prompt_tokens + c *
//! completion_tokens`, fitted by `gatecrew bench-llm` against a real endpoint or taken
//! from published figures, and written as a TOML file that runs name. Every profile
//! says where its numbers come from (`source`): a profile without one is refused.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Minecraft runs 20 ticks a second: a tick is 50 ms of wall time.
pub const MS_PER_TICK: f64 = 50.0;

/// A profile file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmProfile {
    /// The model the figures belong to.
    pub model: String,
    /// Where the figures come from: the measurement (command, endpoint, date, load) or
    /// the publication.
    pub source: String,
    /// Latency per decision.
    pub latency: Latency,
    /// How often a decision goes wrong; absent in a profile that only measured
    /// latency (`gatecrew bench-llm` writes those), where the executor makes no mistakes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<ErrorRates>,
    /// The model family's tokenizer, which the executor counts prompt and completion
    /// tokens with.
    #[serde(default)]
    pub tokenizer: TokenizerName,
}

/// The tokenizers the executor can count with: the byte-pair vocabularies of OpenAI's
/// model families (tiktoken's names). A model of another family is counted with the
/// nearest one, and its profile says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenizerName {
    /// GPT-4o's vocabulary (200k tokens): the paper's model.
    #[default]
    O200kBase,
    /// GPT-4's and GPT-3.5's vocabulary (100k tokens).
    Cl100kBase,
}

/// The error model of one decision: it goes wrong with probability
/// `p0 + p1 * prompt_tokens / 1000` (capped at 1), so that long prompts (a chat-reading
/// bot's context) go wrong more often.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorRates {
    /// The probability at an empty prompt.
    pub p0: f64,
    /// The growth per 1,000 prompt tokens.
    pub p1: f64,
    /// Where p0 and p1 come from (the fit: command, split, target figures).
    pub source: String,
}

impl ErrorRates {
    /// The probability that a decision with this prompt goes wrong, with both rates
    /// multiplied by `scale` (the error-rate sweep).
    pub fn probability(&self, prompt_tokens: u32, scale: f64) -> f64 {
        (scale * (self.p0 + self.p1 * f64::from(prompt_tokens) / 1000.0)).clamp(0.0, 1.0)
    }
}

/// `a + b * prompt_tokens + c * completion_tokens` ticks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Fixed ticks per request (connection, scheduling, the first token's overhead).
    pub a: f64,
    /// Ticks per prompt token (prefill).
    pub b: f64,
    /// Ticks per completion token (decoding).
    pub c: f64,
    /// Requests the fit was made from (0 for published figures).
    #[serde(default)]
    pub samples: u32,
    /// Share of the latency's variance the line explains, when fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r2: Option<f64>,
}

impl Latency {
    /// Ticks one decision costs, rounded up; at least one.
    pub fn ticks(&self, prompt_tokens: u32, completion_tokens: u32) -> u64 {
        let t = self.a + self.b * f64::from(prompt_tokens) + self.c * f64::from(completion_tokens);
        (t.ceil() as u64).max(1)
    }
}

/// A profile that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// More keys than a TOML file may hold (names the file, the key and the bound).
    #[error(transparent)]
    Keys(#[from] gatecrew_protocol::limits::TomlKeysError),
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: gatecrew_protocol::limits::ReadFileError,
    },
    /// Not a profile (the parser's message names the line and key).
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A value out of range.
    #[error("{path}: {key}: {message}")]
    Value {
        /// The file.
        path: PathBuf,
        /// The key.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl LlmProfile {
    /// Reads and checks a profile file.
    pub fn load(path: &Path) -> Result<LlmProfile, ProfileError> {
        let text = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|source| ProfileError::Io { path: path.to_owned(), source })?;
        Self::parse(&text, path)
    }

    /// Parses and checks a profile's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<LlmProfile, ProfileError> {
        gatecrew_protocol::limits::check_toml_keys(path, text)?;
        let p: LlmProfile =
            toml::from_str(text).map_err(|e| ProfileError::Syntax { path: path.to_owned(), message: e.to_string() })?;
        let bad = |key, message: &str| ProfileError::Value { path: path.to_owned(), key, message: message.to_owned() };
        if p.source.trim().is_empty() {
            return Err(bad("source", "say where the figures come from (a measurement or a publication)"));
        }
        for (key, v) in [("latency.a", p.latency.a), ("latency.b", p.latency.b), ("latency.c", p.latency.c)] {
            if !v.is_finite() || v < 0.0 {
                return Err(bad(key, &format!("{v} is not a finite number of ticks >= 0")));
            }
        }
        if let Some(e) = &p.errors {
            if !e.p0.is_finite() || !(0.0..=1.0).contains(&e.p0) {
                return Err(bad("errors.p0", &format!("{} is not a probability in [0, 1]", e.p0)));
            }
            if !e.p1.is_finite() || e.p1 < 0.0 {
                return Err(bad("errors.p1", &format!("{} is not a finite rate >= 0 per 1,000 tokens", e.p1)));
            }
            if e.source.trim().is_empty() {
                return Err(bad("errors.source", "say where p0 and p1 come from (the fit that produced them)"));
            }
        }
        Ok(p)
    }

    /// The profile as TOML, with a header saying what the numbers mean.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# A language model's latency profile for gatecrew's `llm` executor: one decision\n\
             # costs latency.a + latency.b * prompt_tokens + latency.c * completion_tokens ticks\n\
             # (20 ticks a second).\n{body}"
        )
    }
}

/// One timed request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Prompt tokens, as the server counted them.
    pub prompt_tokens: u32,
    /// Completion tokens, as the server counted them.
    pub completion_tokens: u32,
    /// Wall time of the whole request.
    pub ms: f64,
}

/// Why no line could be fitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// Fewer than three samples, or prompt and completion sizes that do not vary
    /// independently: the three coefficients are not determined.
    #[error("the samples do not determine a, b and c: vary prompt and completion sizes independently")]
    Singular,
}

/// Least squares of `ms = a + b * prompt + c * completion`, in ticks. Coefficients
/// that come out negative (noise on a near-flat term) are clamped to zero, and the
/// fit's R² is reported with them.
pub fn fit(samples: &[Sample]) -> Result<Latency, FitError> {
    if samples.len() < 3 {
        return Err(FitError::Singular);
    }
    // Normal equations X'X beta = X'y, X = [1, p, c]; scaled per 1,000 tokens so that
    // the matrix stays well conditioned.
    let row = |s: &Sample| [1.0, f64::from(s.prompt_tokens) / 1000.0, f64::from(s.completion_tokens) / 1000.0];
    let mut m = [[0.0_f64; 4]; 3];
    for s in samples {
        let x = row(s);
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += x[i] * x[j];
            }
            m[i][3] += x[i] * s.ms;
        }
    }
    let beta = solve3(m).ok_or(FitError::Singular)?;
    let predict = |s: &Sample| {
        let x = row(s);
        beta[0] + beta[1] * x[1] + beta[2] * x[2]
    };
    let mean = samples.iter().map(|s| s.ms).sum::<f64>() / samples.len() as f64;
    let total: f64 = samples.iter().map(|s| (s.ms - mean).powi(2)).sum();
    let resid: f64 = samples.iter().map(|s| (s.ms - predict(s)).powi(2)).sum();
    let r2 = if total > 0.0 { 1.0 - resid / total } else { 1.0 };
    let ticks = |ms: f64| ms.max(0.0) / MS_PER_TICK;
    Ok(Latency {
        a: ticks(beta[0]),
        b: ticks(beta[1] / 1000.0),
        c: ticks(beta[2] / 1000.0),
        samples: samples.len() as u32,
        r2: Some(r2),
    })
}

/// Gaussian elimination with partial pivoting on a 3x4 augmented matrix.
fn solve3(mut m: [[f64; 4]; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))?;
        if m[pivot][col].abs() < 1e-9 {
            return None;
        }
        m.swap(col, pivot);
        let pivot_row = m[col];
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (x, p) in row.iter_mut().zip(pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Some([m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_line_is_recovered() {
        // 200 ms + 0.5 ms a prompt token + 20 ms a completion token.
        let mut v = Vec::new();
        for p in [50, 400, 1200] {
            for c in [4, 16, 48] {
                v.push(Sample { prompt_tokens: p, completion_tokens: c, ms: 200.0 + 0.5 * p as f64 + 20.0 * c as f64 });
            }
        }
        let l = fit(&v).unwrap();
        assert!((l.a - 4.0).abs() < 1e-6 && (l.b - 0.01).abs() < 1e-9 && (l.c - 0.4).abs() < 1e-9, "{l:?}");
        assert!((l.r2.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(l.ticks(1000, 10), 4 + 10 + 4);
    }

    #[test]
    fn sizes_that_do_not_vary_independently_are_refused() {
        let v: Vec<Sample> =
            (1..6).map(|k| Sample { prompt_tokens: 100 * k, completion_tokens: 10 * k, ms: 50.0 * k as f64 }).collect();
        assert_eq!(fit(&v), Err(FitError::Singular));
        assert_eq!(fit(&v[..2]), Err(FitError::Singular));
    }
}

/// Which executor drives the agents, in the construction crew and in the kitchen alike:
/// their own decisions, or a model of language-model-driven agents whose every
/// decision is a call with this module's latency and error profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutorKind {
    /// The agents' own decisions, free of cost (the default).
    #[default]
    Scripted,
    /// A model of language-model-driven agents.
    Llm,
}

impl std::str::FromStr for ExecutorKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "scripted" => Ok(ExecutorKind::Scripted),
            "llm" => Ok(ExecutorKind::Llm),
            other => Err(format!("unknown executor {other:?}: scripted or llm")),
        }
    }
}
