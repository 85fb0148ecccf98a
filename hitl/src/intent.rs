//! The intent of one chat line (paper 000, section 3.3 and Algorithm A3): its type and
//! the plan node (or the goal) it is about, the constrained schema `{type, node,
//! parent?}` both classifiers produce.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// The intent type and the classifier are written to the trace: they live with the
// trace's other values, and are the same types here.
pub use gatecrew_protocol::trace::{Classifier, IntentType};

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
    /// A line the parser could not read for sure (chat naming a goal or a part): the
    /// bot asks one question instead of acting.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsure: bool,
}

impl Intent {
    /// An intent without a node.
    pub fn bare(kind: IntentType) -> Self {
        Intent { kind, node: None, parent: None, later: false, unsure: false }
    }

    /// An intent about a node.
    pub fn about(kind: IntentType, node: impl Into<String>) -> Self {
        let node = node.into();
        Intent { kind, node: (!node.trim().is_empty()).then_some(node), parent: None, later: false, unsure: false }
    }

    /// A switch that puts a node off.
    pub fn later(node: impl Into<String>) -> Self {
        Intent { later: true, ..Intent::about(IntentType::Switch, node) }
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
