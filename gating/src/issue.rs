//! Issues an agent detects (DESIGN section 4) and the keys its history is kept under.

use gatecrew_protocol::trace::{ActionName, IssueName};
use gatecrew_protocol::{ItemId, Pos};

/// A detected blocker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Issue {
    /// The active node needs an item not in the inventory.
    MissingMaterial {
        /// The item the node places (or crafts from).
        item: ItemId,
        /// How many are missing.
        count: u32,
    },
    /// The action needs a tool the agent lacks.
    MissingTool {
        /// The cheapest tool item that would do.
        tool: ItemId,
    },
    /// A prerequisite node (own or a teammate's) is not done.
    DependencyBlocked {
        /// The blocked node.
        node: u32,
        /// Where the prerequisite goes.
        pos: Pos,
    },
    /// No path to the target.
    Unreachable {
        /// Where the agent tried to go.
        pos: Pos,
    },
    /// A verified failure not covered above.
    ActionFailed {
        /// Which action failed (a repeat of the same one is the same issue).
        action: ActionName,
        /// The failure tag.
        reason: &'static str,
    },
}

/// What history (cooldowns, time-outs, zero-yield counts) is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IssueKey {
    /// A missing material: its cooldown holds for every node that needs the item.
    Material(ItemId),
    /// A missing tool, kept apart from the same item wanted as a material.
    Tool(ItemId),
    /// A blocked node.
    Node(u32),
    /// An unreachable position.
    Place(Pos),
    /// A failing action kind.
    Action(ActionName),
}

impl Issue {
    /// The trace name.
    pub fn name(&self) -> IssueName {
        match self {
            Issue::MissingMaterial { .. } => IssueName::MissingMaterial,
            Issue::MissingTool { .. } => IssueName::MissingTool,
            Issue::DependencyBlocked { .. } => IssueName::DependencyBlocked,
            Issue::Unreachable { .. } => IssueName::Unreachable,
            Issue::ActionFailed { .. } => IssueName::ActionFailed,
        }
    }

    /// The history key.
    pub fn key(&self) -> IssueKey {
        match *self {
            Issue::MissingMaterial { item, .. } => IssueKey::Material(item),
            Issue::MissingTool { tool } => IssueKey::Tool(tool),
            Issue::DependencyBlocked { node, .. } => IssueKey::Node(node),
            Issue::Unreachable { pos } => IssueKey::Place(pos),
            Issue::ActionFailed { action, .. } => IssueKey::Action(action),
        }
    }

    /// The item a teammate could supply, if the protocol can carry this issue at all:
    /// only missing materials and tools have a message (`REQUEST_MATERIAL`).
    pub fn requestable(&self) -> Option<(ItemId, u32)> {
        match *self {
            Issue::MissingMaterial { item, count } => Some((item, count)),
            Issue::MissingTool { tool } => Some((tool, 1)),
            _ => None,
        }
    }
}
