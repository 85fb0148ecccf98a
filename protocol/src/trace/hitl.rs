//! Trace events of a human partner in the loop (`gatecrew run --interactive`):
//! the person's lines, the intent each became, the plan update, what the bot said, the
//! validators' judgements with their evidence, and task-memory reads and writes. Other
//! runs never write them.

use serde::{Deserialize, Serialize};

use super::fallback_reason::FallbackReason;
use super::hitl_values::{Classifier, IntentType, MemoryOp, PlanOp, Provenance, SayKind};
use crate::ids::AgentId;
use crate::pos::Pos;

/// `human`: a (merged) chat line from the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanLine {
    /// The partner bot addressed.
    pub agent: AgentId,
    /// The text (merged lines joined by spaces).
    pub text: String,
    /// How many lines were merged into it.
    pub lines: u32,
}

/// `intent`: what a line was classified as, and the node it resolved to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntentNote {
    /// The partner.
    pub agent: AgentId,
    /// What the person wants done.
    #[serde(rename = "type")]
    pub intent: IntentType,
    /// The node or goal words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The parent words of an add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Which classifier decided (`fallback`: the parser after an unusable model answer).
    pub classifier: Classifier,
    /// Why the model's answer was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<FallbackReason>,
    /// The plan node the words resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<u32>,
    /// The candidates when ambiguous (a clarifying question follows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<u32>,
}

/// `plan`: a graph update (no re-planning of the rest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanNote {
    /// The partner.
    pub agent: AgentId,
    /// What the update did.
    pub op: PlanOp,
    /// The active node after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<u32>,
    /// Its label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The lowest common ancestor of a switch, the branching point of a delete, the
    /// parent of an add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot: Option<u32>,
    /// Nodes added.
    pub added: u32,
    /// Nodes removed.
    pub removed: u32,
    /// Nodes in the plan after it.
    pub nodes: u32,
    /// Repair rules applied afterwards, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
}

/// `say`: one line from the bot to the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SayNote {
    /// The partner.
    pub agent: AgentId,
    /// What kind of line it is.
    pub what: SayKind,
    /// The line.
    pub text: String,
}

/// An item count before and after a subtask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemEvidence {
    /// The item.
    pub item: String,
    /// Held when the subtask started.
    pub before: u32,
    /// Held when it was judged.
    pub after: u32,
}

/// A block the bot saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockEvidence {
    /// Where.
    pub pos: Pos,
    /// What.
    pub block: String,
}

/// What a validator judged from: only what the bot itself could see.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Evidence {
    /// Inventory deltas.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ItemEvidence>,
    /// Position when the subtask started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Pos>,
    /// Position when it was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Pos>,
    /// Blocks in range that matter (a station).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockEvidence>,
    /// A container looked into: its position and what it held of the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<(Pos, u32)>,
    /// The crew share: blocks seen in place, blocks in the share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<(u32, u32)>,
}

/// `validator`: a subtask's success criterion judged from in-world evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidatorNote {
    /// The partner.
    pub agent: AgentId,
    /// The plan node.
    pub node: u32,
    /// Its label.
    pub label: String,
    /// The criterion, in words ("holds >= 3 oak_planks").
    pub criterion: String,
    /// The verdict.
    pub pass: bool,
    /// What it was judged from.
    pub evidence: Evidence,
}

/// `memory`: a task-memory read or write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryNote {
    /// The partner.
    pub agent: AgentId,
    /// Read or written.
    pub op: MemoryOp,
    /// What: a record's goal and outcome, or a fact.
    pub text: String,
    /// Where the knowledge came from.
    pub provenance: Provenance,
}
