//! Classifiers: a line (and the live plan) to an [`Intent`]. The deterministic parser
//! always exists; a language model ([`crate::llm`]) may stand in front of it, and falls
//! back to it whenever its answer is unusable.

use gatecrew_world::GameData;

use crate::goal::read_goal;
use crate::intent::{Classifier, Intent, IntentType};
use crate::resolve::{Resolution, resolve};
use crate::stop::{Halt, halt};
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
        let intent = after_stop_rule(text, parse(text, ctx.vocab, ctx.question.is_some()), ctx);
        Classified {
            intent,
            by: Classifier::Parser,
            fallback: None,
            latency_ms: start.elapsed().as_secs_f64() * 1e3,
            tokens: (0, 0),
        }
    }
}

/// The stop rule's last word on a classification (the parser's or the model's): a line
/// that halts and then gives an order the plan cannot take (a switch to nothing in the
/// plan and no goal, a question) is a stop; a negated halt is never a stop.
pub fn after_stop_rule(text: &str, intent: Intent, ctx: &Context<'_>) -> Intent {
    match halt(text) {
        Halt::Stop => Intent::bare(IntentType::Stop),
        Halt::StopThen => {
            let usable = match intent.kind {
                IntentType::Chat | IntentType::Answer | IntentType::Stop => false,
                IntentType::Switch | IntentType::Delete => intent.node.as_deref().is_some_and(|w| {
                    resolve(ctx.plan, w, ctx.vocab, ctx.data) != Resolution::None || read_goal(w, ctx.vocab).is_some()
                }),
                IntentType::Add | IntentType::NewTask => true,
            };
            if usable { intent } else { Intent::bare(IntentType::Stop) }
        }
        Halt::GoOn if intent.kind == IntentType::Stop => Intent::bare(IntentType::Switch),
        _ => intent,
    }
}
