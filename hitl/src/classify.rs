//! Classifiers: a line (and the live plan) to an [`Intent`]. The deterministic parser
//! always exists; a language model ([`crate::llm`]) may stand in front of it, and falls
//! back to it whenever its answer is unusable.

use gatecrew_world::GameData;

use crate::goal::read_goal_checked;
use crate::intent::{Classifier, Intent, IntentType};
use crate::parse::parse;
use crate::plan::Plan;
use crate::resolve::{Resolution, resolve};
use crate::stop::{Halt, halt};
use crate::words::Vocabulary;

/// What a classifier may look at.
pub struct Context<'a> {
    /// The live plan.
    pub plan: &'a Plan,
    /// The clarifying question the bot asked, if one is open.
    pub question: Option<&'a str>,
    /// The item, block and part names the words are matched against.
    pub vocab: &'a Vocabulary,
    /// Game data.
    pub data: &'a GameData,
}

/// What a classifier made of one line, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    /// What the line asks for (type, node or goal words, parent).
    pub intent: Intent,
    /// Who decided.
    pub by: Classifier,
    /// Why the model's answer was not used.
    pub fallback: Option<gatecrew_protocol::trace::FallbackReason>,
    /// Wall-clock time it took, in ms (never in the trace: it is not deterministic).
    pub latency_ms: f64,
    /// Prompt and completion tokens, for a model.
    pub tokens: (u32, u32),
}

/// Turns a person's line into an intent: the rule parser, or a model with the parser
/// as its fallback.
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
        let read = crate::chat::read(text, ctx.vocab);
        let text = read.text.as_str();
        let intent = refine(text, parse(text, ctx.vocab, ctx.question.is_some()), ctx);
        Classified {
            intent,
            by: Classifier::Parser,
            fallback: None,
            latency_ms: start.elapsed().as_secs_f64() * 1e3,
            tokens: (0, 0),
        }
    }
}

/// What the live plan decides about a classification (the parser's or the model's):
/// "X instead" with an X the plan does not hold is a new task (paper 000: the new goal
/// replaces the current one), with an X it holds a switch; then the stop rule's last
/// word.
pub fn refine(text: &str, intent: Intent, ctx: &Context<'_>) -> Intent {
    let ws = crate::words::words(text);
    let instead = ws.iter().any(|w| w == "instead" || w == "rather");
    let later = ws.windows(2).any(|p| p == ["can", "wait"])
        || ws.iter().any(|w| ["later", "last", "end", "afterwards"].contains(&w.as_str()));
    let in_plan = |w: &str| resolve(ctx.plan, w, ctx.vocab, ctx.data) != Resolution::None;
    let intent = match (&intent.kind, &intent.node) {
        // "build the roof" on a house: a part of the plan, not a new goal.
        (IntentType::NewTask, Some(w))
            if crate::parts::mentions_part(w)
                && matches!(read_goal_checked(w, ctx.vocab), None | Some(Ok(crate::goal::Goal::Build)))
                && in_plan(w) =>
        {
            Intent::about(IntentType::Switch, w.clone())
        }
        // "craft the planks now": a goal the plan already holds, to do now, is a switch.
        (IntentType::NewTask, Some(w))
            if ws.iter().any(|x| ["now", "first", "next", "asap", "before"].contains(&x.as_str()))
                && matches!(resolve(ctx.plan, w, ctx.vocab, ctx.data), Resolution::One(n) if n != ctx.plan.root()) =>
        {
            Intent::about(IntentType::Switch, w.clone())
        }
        // "the windows later": a part already planned is put off, not added again.
        (IntentType::Add, Some(w)) if later && in_plan(w) && crate::parts::mentions_part(w) => Intent::later(w.clone()),
        _ => intent,
    };
    let intent = match (&intent.kind, &intent.node) {
        (IntentType::Switch | IntentType::Add, Some(w)) if instead => {
            let in_plan = resolve(ctx.plan, w, ctx.vocab, ctx.data) != Resolution::None;
            // "I want a crafting table instead": a new goal, even when the plan holds
            // it as a step of the current one.
            let wants = ["want", "need", "like", "me"].iter().any(|x| ws.iter().any(|y| y == x));
            let goal_node = matches!(resolve(ctx.plan, w, ctx.vocab, ctx.data),
                Resolution::One(n) if ctx.plan.children(ctx.plan.root()).contains(&n));
            match read_goal_checked(w, ctx.vocab) {
                Some(g) if (!in_plan || (wants && !goal_node)) && g != Ok(crate::goal::Goal::Build) => {
                    Intent::about(IntentType::NewTask, w.clone())
                }
                _ if in_plan => Intent::about(IntentType::Switch, w.clone()),
                _ => intent,
            }
        }
        _ => intent,
    };
    after_stop_rule(text, intent, ctx)
}

/// The stop rule's last word on a classification (the parser's or the model's): a line
/// that halts and then gives an order the plan cannot take (a switch to nothing in the
/// plan and no goal, a question) is a stop; a negated halt is never a stop.
pub fn after_stop_rule(text: &str, intent: Intent, ctx: &Context<'_>) -> Intent {
    match halt(text) {
        Halt::Stop => Intent::bare(IntentType::Stop),
        // "stop building and go get 5 oak logs": a goal the plan does not hold after a
        // halt replaces the plan (paper 000's "stop what you're doing and X").
        Halt::StopThen
            if intent.kind == IntentType::Switch
                && intent.node.as_deref().is_some_and(|w| {
                    resolve(ctx.plan, w, ctx.vocab, ctx.data) == Resolution::None
                        && matches!(
                            read_goal_checked(w, ctx.vocab),
                            Some(Ok(crate::goal::Goal::Obtain { .. }) | Err(_))
                        )
                }) =>
        {
            Intent { kind: IntentType::NewTask, ..intent }
        }
        Halt::StopThen => {
            let usable = match intent.kind {
                IntentType::Chat | IntentType::Answer | IntentType::Stop => false,
                IntentType::Switch | IntentType::Delete => intent.node.as_deref().is_some_and(|w| {
                    resolve(ctx.plan, w, ctx.vocab, ctx.data) != Resolution::None
                        || read_goal_checked(w, ctx.vocab).is_some()
                }),
                IntentType::Add | IntentType::NewTask => true,
            };
            if usable { intent } else { Intent::bare(IntentType::Stop) }
        }
        Halt::GoOn if intent.kind == IntentType::Stop => Intent::bare(IntentType::Switch),
        _ => intent,
    }
}
