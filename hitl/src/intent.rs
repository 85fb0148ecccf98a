//! The intent of one chat line (paper 000, section 3.3 and Algorithm A3): its type and
//! the plan node (or the goal) it is about, the constrained schema `{type, node,
//! parent?}` both classifiers produce.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

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

/// One intent: `{"type": ..., "node": ..., "parent": ...}`. `node` names a plan node
/// (switch, delete), a goal (add, new task), the chosen option (answer); `parent` the
/// node an added goal goes under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intent {
    /// What the person wants done (add, switch, stop, ...).
    #[serde(rename = "type")]
    pub kind: IntentType,
    /// The node or goal named, as words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The parent of an added goal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// A switch that puts the node off ("the roof can wait") instead of doing it now.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub later: bool,
}

impl Intent {
    /// An intent without a node.
    pub fn bare(kind: IntentType) -> Self {
        Intent { kind, node: None, parent: None, later: false }
    }

    /// An intent about a node.
    pub fn about(kind: IntentType, node: impl Into<String>) -> Self {
        let node = node.into();
        Intent { kind, node: (!node.trim().is_empty()).then_some(node), parent: None, later: false }
    }

    /// A switch that puts a node off.
    pub fn later(node: impl Into<String>) -> Self {
        Intent { later: true, ..Intent::about(IntentType::Switch, node) }
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

/// The JSON schema the model's answer must follow.
pub fn intent_schema() -> Value {
    let types: Vec<&str> = IntentType::ALL.iter().map(|t| t.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "type": { "type": "string", "enum": types },
            "node": { "type": "string", "maxLength": 60 },
            "parent": { "type": "string", "maxLength": 60 }
        },
        "required": ["type", "node"],
        "additionalProperties": false
    })
}
