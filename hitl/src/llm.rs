//! The language-model classifier's pure half (the client that sends the request is the
//! application's, `gatecrew_hitl_app::llm`): the same OpenAI-compatible wire as the
//! gate's tier 3 (`gatecrew_gating::llm`), another prompt, the constrained answer
//! `{"type": ..., "node": ..., "parent": ...}` (JSON schema or GBNF, as the `[llm]`
//! section says). The model only names the intent and the node or goal in words; node
//! resolution and the recipe planner do the rest. Anything unusable (timeout, HTTP
//! error, malformed JSON, an unknown type) falls back to the deterministic parser,
//! tagged with the reason.
//!
//! The prompt stays small whatever the plan's size: a few examples (few-shot), the
//! active path and the labels sharing most words with the line (a deterministic
//! relevance pre-filter, never single cells of a build), the build's named parts, not
//! the whole plan; llama.cpp's server gives each request slot 512 tokens. The stop rule
//! comes first: a halt never reaches the model, and whatever the model answers, the
//! rule has the last word ([`crate::classify::refine`]).

use std::collections::BTreeSet;
use std::time::Instant;

use gatecrew_gating::llm::{ChatMessage, ChatRequest, FallbackReason, LlmSpec, OutputMode};
use serde_json::{Value, json};

use crate::classify::{Classified, Context, refine};
use crate::intent::{Classifier, Intent, IntentType, intent_schema};
use crate::parse::parse;
use crate::words::{singular, words};

/// The system prompt: the schema, what each type means, and a few examples (few-shot;
/// each a line and its answer), kept short for a 512-token request slot.
pub const SYSTEM: &str = "You read a player's chat line to a Minecraft helper bot and answer JSON {\"type\",\"node\"}. \
type: switch = work on a listed step or part now (or later: \"the roof can wait\"); add = a new subgoal, a part back, or where something is; \
delete = drop a listed step or part, or the player will do it; stop = halt; new_task = drop the plan for a new goal (\"X instead\"); \
chat = small talk or a question; answer = reply to the bot's question. node: the step, part or goal in a few words.\n\
Examples:\n\
\"leave out the glass\" -> {\"type\":\"delete\",\"node\":\"the windows\"}\n\
\"start with the top layer\" -> {\"type\":\"switch\",\"node\":\"the top layer\"}\n\
\"also get 4 torches\" -> {\"type\":\"add\",\"node\":\"4 torches\"}\n\
\"make a chest instead\" -> {\"type\":\"new_task\",\"node\":\"chest\"}\n\
\"what are you doing?\" -> {\"type\":\"chat\",\"node\":\"\"}\n\
\"HOLD ON\" -> {\"type\":\"stop\",\"node\":\"\"}";

/// GBNF admitting exactly the answer object.
pub const GRAMMAR: &str = r#"root ::= "{\"type\":\"" type "\",\"node\":\"" str "\"" ("," "\"parent\":\"" str "\"")? "}"
type ::= "switch" | "add" | "delete" | "stop" | "new_task" | "chat" | "answer"
str ::= [a-zA-Z0-9 ,()_-]*
"#;

/// Plan labels listed in a prompt, at most.
const CANDIDATES: usize = 10;

/// The plan labels worth showing for a line: the active path (deepest first), then the
/// labels sharing most words with it, in plan order on ties.
pub fn candidates(text: &str, ctx: &Context<'_>) -> Vec<String> {
    let plan = ctx.plan;
    let want: BTreeSet<String> = words(text).iter().map(|w| singular(w)).collect();
    let mut out: Vec<String> = plan.path().iter().rev().take(3).map(|n| plan.label(*n).to_owned()).collect();
    let live = plan.reachable();
    let mut scored: Vec<(usize, usize, String)> = plan
        .ids()
        .into_iter()
        .filter(|n| {
            live.contains(n)
                && *n != plan.root()
                && !matches!(plan.step(*n).kind, crate::plan::Kind::Leaf(crate::plan::Leaf::Place(_)))
        })
        .map(|n| {
            let label = plan.label(n).to_owned();
            let lw: BTreeSet<String> = words(&label).iter().map(|w| singular(w)).collect();
            (want.intersection(&lw).count(), n.index(), label)
        })
        .filter(|(s, _, _)| *s > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, l) in scored {
        if out.len() >= CANDIDATES {
            break;
        }
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out.into_iter().map(|l| l.chars().take(48).collect()).collect()
}

/// The named parts of the plan's build: the part nodes' names, and its layers.
pub fn part_names(ctx: &Context<'_>) -> Vec<String> {
    let plan = ctx.plan;
    let live = plan.reachable();
    let mut out: Vec<String> = plan
        .ids()
        .into_iter()
        .filter(|n| live.contains(n) && plan.group(*n) == Some(crate::plan::Group::Part))
        .map(|n| {
            let l = plan.label(n);
            let l = l.strip_prefix("build ").unwrap_or(l);
            l.split(" (").next().unwrap_or(l).to_owned()
        })
        .collect();
    let levels = crate::parts::place_leaves(plan).iter().map(|(_, f)| f.levels).max().unwrap_or(0);
    if levels > 1 {
        out.push(format!("layers 1-{levels} (bottom to top)"));
    }
    out
}

/// The user message: the plan labels, the build's parts, the open question, the line.
pub fn user_message(text: &str, ctx: &Context<'_>) -> String {
    let labels = candidates(text, ctx);
    let mut s = String::new();
    if labels.is_empty() {
        s.push_str("Plan: (empty)\n");
    } else {
        s.push_str(&format!("Plan steps: {}\n", labels.join("; ")));
    }
    let parts = part_names(ctx);
    if !parts.is_empty() {
        s.push_str(&format!("Parts: {}\n", parts.join("; ")));
    }
    if let Some(q) = ctx.question {
        s.push_str(&format!("Bot asked: {q}\n"));
    }
    s.push_str(&format!("Line: {text}"));
    s
}

/// Reads the model's answer; `Err` names why it is unusable.
pub fn read_answer(content: &str, asked: bool) -> Result<Intent, FallbackReason> {
    let v: Value = serde_json::from_str(content.trim())
        .map_err(|e| if e.is_eof() { FallbackReason::TruncatedJson } else { FallbackReason::MalformedJson })?;
    let kind: IntentType = serde_json::from_value(v.get("type").cloned().unwrap_or(Value::Null))
        .map_err(|_| FallbackReason::UnknownDecision)?;
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
    let kind = if kind == IntentType::Answer && !asked { IntentType::Chat } else { kind };
    Ok(Intent { kind, node: text("node"), parent: text("parent"), later: false, unsure: false })
}

/// What the stop rule says before any model is asked: a halt never waits for (or
/// depends on) the model.
pub fn stop_first(text: &str, start: Instant) -> Option<Classified> {
    (crate::stop::halt(text) == crate::stop::Halt::Stop).then(|| Classified {
        intent: Intent::bare(IntentType::Stop),
        by: Classifier::StopRule,
        fallback: None,
        latency_ms: start.elapsed().as_secs_f64() * 1e3,
        tokens: (0, 0),
    })
}

/// The request for `text`: the system prompt, the user message, and the constraint the
/// `[llm]` section asks for (JSON schema or GBNF).
pub fn request<'a>(model: &'a str, spec: &LlmSpec, text: &str, ctx: &Context<'_>) -> ChatRequest<'a> {
    let (response_format, grammar) = match spec.output {
        OutputMode::JsonSchema => (
            Some(
                json!({"type": "json_schema", "json_schema": {"name": "intent", "strict": true, "schema": intent_schema()}}),
            ),
            None,
        ),
        OutputMode::Grammar => (None, Some(GRAMMAR)),
        OutputMode::None => (None, None),
    };
    ChatRequest {
        model,
        messages: vec![ChatMessage::new("system", SYSTEM), ChatMessage::new("user", user_message(text, ctx))],
        max_tokens: spec.max_tokens,
        temperature: spec.temperature,
        stream: false,
        response_format,
        grammar,
    }
}

/// The classification of `text` from the model's reply (its content and its prompt and
/// completion tokens), or from the parser when the reply is unusable, tagged with why.
pub fn from_reply(
    text: &str,
    ctx: &Context<'_>,
    reply: Result<(String, (u32, u32)), FallbackReason>,
    latency_ms: f64,
) -> Classified {
    let asked = ctx.question.is_some();
    let fallback = |reason: FallbackReason, tokens: (u32, u32)| {
        tracing::warn!(%reason, "intent classification fell back to the parser");
        metrics::counter!("gatecrew_hitl_llm_fallbacks_total", "reason" => reason.class()).increment(1);
        Classified {
            intent: refine(text, parse(text, ctx.vocab, asked), ctx),
            by: Classifier::Fallback,
            fallback: Some(reason),
            latency_ms,
            tokens,
        }
    };
    match reply {
        Err(reason) => fallback(reason, (0, 0)),
        Ok((content, tokens)) => match read_answer(&content, asked) {
            Ok(intent) => Classified {
                intent: refine(text, intent, ctx),
                by: Classifier::Llm,
                fallback: None,
                latency_ms,
                tokens,
            },
            Err(reason) => fallback(reason, tokens),
        },
    }
}
