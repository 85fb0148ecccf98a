//! The closed sets of values in the interactive partner's trace events
//! ([`super::hitl`]): each serialises to the name the trace has always carried, so a
//! consumer matches a variant and a renamed value fails to compile instead of silently
//! matching nothing.

use serde::{Deserialize, Serialize};

/// The intent types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentType {
    /// Work on a node already in the plan now ("get planks first").
    Switch,
    /// Attach a new sub-goal or a piece of knowledge under a node ("the wool is in the
    /// chest at 3 0 5", "also get 10 logs").
    Add,
    /// Drop a node ("skip the wool", "I'll get the wool").
    Delete,
    /// Stop and idle.
    Stop,
    /// Discard the plan, plan a new goal ("stop what you're doing and mine wood").
    #[serde(alias = "new task", alias = "newtask", alias = "new-task")]
    NewTask,
    /// Small talk or a question: answer it, the plan goes on.
    #[serde(alias = "question")]
    Chat,
    /// The answer to the bot's clarifying question.
    Answer,
}

impl IntentType {
    /// Every type, in schema order.
    pub const ALL: [IntentType; 7] = [
        IntentType::Switch,
        IntentType::Add,
        IntentType::Delete,
        IntentType::Stop,
        IntentType::NewTask,
        IntentType::Chat,
        IntentType::Answer,
    ];

    /// The schema name.
    pub fn as_str(self) -> &'static str {
        match self {
            IntentType::Switch => "switch",
            IntentType::Add => "add",
            IntentType::Delete => "delete",
            IntentType::Stop => "stop",
            IntentType::NewTask => "new_task",
            IntentType::Chat => "chat",
            IntentType::Answer => "answer",
        }
    }
}

/// Which classifier produced an intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Classifier {
    /// The deterministic parser.
    Parser,
    /// The language model.
    Llm,
    /// The parser, because the model's answer was unusable.
    Fallback,
    /// The stop rule, before any classifier (a halt never waits for a model).
    StopRule,
}

impl Classifier {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            Classifier::Parser => "parser",
            Classifier::Llm => "llm",
            Classifier::Fallback => "fallback",
            Classifier::StopRule => "stop_rule",
        }
    }
}

/// Where a provenance came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// The bot saw it (a verified outcome, an observation).
    Seen,
    /// The person said it.
    Told,
    /// The bot concluded it from what happened.
    Inferred,
}

impl Provenance {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Seen => "seen",
            Provenance::Told => "told",
            Provenance::Inferred => "inferred",
        }
    }

    /// The provenance stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "seen" => Provenance::Seen,
            "told" => Provenance::Told,
            "inferred" => Provenance::Inferred,
            _ => return None,
        })
    }
}

/// What a `plan` event did to the partner's plan graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanOp {
    /// The first plan of a session.
    Start,
    /// Work on another node now.
    Switch,
    /// Put a node off ("the roof can wait").
    Later,
    /// A node dropped.
    Delete,
    /// A sub-goal or a piece of knowledge attached.
    Add,
    /// Steps added to obtain what a named part's blocks need.
    Materials,
    /// Stopped: nothing is worked on until "go on".
    Stop,
    /// The plan discarded for a new goal.
    NewTask,
    /// Work goes on after a stop.
    Resume,
}

/// What kind of line the bot said (`say`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SayKind {
    /// What the bot is about to do.
    Preview,
    /// A clarifying question.
    Question,
    /// The answer to the person's line.
    Answer,
    /// A goal ended: done, or could not be done.
    Report,
}

/// A task-memory read or write (`memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryOp {
    /// Read back.
    Read,
    /// Stored.
    Write,
}

impl PlanOp {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanOp::Start => "start",
            PlanOp::Switch => "switch",
            PlanOp::Later => "later",
            PlanOp::Delete => "delete",
            PlanOp::Add => "add",
            PlanOp::Materials => "materials",
            PlanOp::Stop => "stop",
            PlanOp::NewTask => "new_task",
            PlanOp::Resume => "resume",
        }
    }
}

impl SayKind {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            SayKind::Preview => "preview",
            SayKind::Question => "question",
            SayKind::Answer => "answer",
            SayKind::Report => "report",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_names_are_the_serialised_ones() {
        for op in [
            PlanOp::Start,
            PlanOp::Switch,
            PlanOp::Later,
            PlanOp::Delete,
            PlanOp::Add,
            PlanOp::Materials,
            PlanOp::Stop,
            PlanOp::NewTask,
            PlanOp::Resume,
        ] {
            assert_eq!(json(&op), format!("\"{}\"", op.as_str()));
        }
        for t in IntentType::ALL {
            assert_eq!(json(&t), format!("\"{}\"", t.as_str()));
        }
        for c in [Classifier::Parser, Classifier::Llm, Classifier::Fallback, Classifier::StopRule] {
            assert_eq!(json(&c), format!("\"{}\"", c.as_str()));
        }
        for w in [SayKind::Preview, SayKind::Question, SayKind::Answer, SayKind::Report] {
            assert_eq!(json(&w), format!("\"{}\"", w.as_str()));
        }
        for p in [Provenance::Seen, Provenance::Told, Provenance::Inferred] {
            assert_eq!(json(&p), format!("\"{}\"", p.as_str()));
            assert_eq!(Provenance::parse(p.as_str()), Some(p));
        }
    }

    fn json<T: Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }
}
