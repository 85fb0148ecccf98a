//! Classifiers: a line (and the live plan) to an [`Intent`]. The deterministic parser
//! always exists; a language model ([`crate::llm`]) may stand in front of it, and falls
//! back to it whenever its answer is unusable.

use gatecrew_world::GameData;

use crate::intent::{Classifier, Intent};
use crate::parse::parse;
use crate::plan::Plan;
use crate::words::Vocabulary;

/// What a classifier may look at.
pub struct Context<'a> {
    /// The live plan.
    pub plan: &'a Plan,
    /// The clarifying question the bot asked, if one is open.
    pub question: Option<&'a str>,
    /// The vocabulary.
    pub vocab: &'a Vocabulary,
    /// Game data.
    pub data: &'a GameData,
}

/// A classification.
#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    /// The intent.
    pub intent: Intent,
    /// Who decided.
    pub by: Classifier,
    /// Why the model's answer was not used.
    pub fallback: Option<String>,
    /// Wall-clock time it took, in ms (never in the trace: it is not deterministic).
    pub latency_ms: f64,
    /// Prompt and completion tokens, for a model.
    pub tokens: (u32, u32),
}

/// A classifier.
pub trait Classify: Send {
    /// Classifies one line.
    fn classify(&mut self, text: &str, ctx: &Context<'_>) -> Classified;
}

/// The deterministic parser as a classifier.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParserClassifier;

impl Classify for ParserClassifier {
    fn classify(&mut self, text: &str, ctx: &Context<'_>) -> Classified {
        let start = std::time::Instant::now();
        let intent = parse(text, ctx.vocab, ctx.question.is_some());
        Classified {
            intent,
            by: Classifier::Parser,
            fallback: None,
            latency_ms: start.elapsed().as_secs_f64() * 1e3,
            tokens: (0, 0),
        }
    }
}
