//! The AND/OR task graph (DESIGN section 4, paper 000).
//!
//! One graph describes the crew's whole job: a root AND over one AND per agent, whose
//! children are that agent's `place` nodes in build order. `requires` edges say which
//! node must be done first (a block's support, possibly a teammate's). Material comes
//! from `obtain` OR nodes, one per agent and item, whose alternatives are added in cost
//! order when the local solver first needs them: take it from a container in reach,
//! craft it (an ALL-OF of obtaining the ingredients, then the craft), mine it, smelt
//! it. The local solver's `LOCAL_RECOVER` chain is exactly that ordered list.
//!
//! Every agent holds its own copy; the state of each node (pending, done, failed, set
//! aside) is private. The copy shares what the blueprint made (the place nodes, the
//! shares, the prerequisites, the empty `obtain` nodes) with every other bot's and
//! keeps to itself only the node states and its own expansions ([`TaskGraph`]): a crew
//! of a thousand bots holds one blueprint graph, not a thousand. [`TaskGraph::backtrack`] finds the nearest valid branching point
//! above a failed node: an OR with untried alternatives, or a task AND with other
//! pending children.
//!
//! The graph's mechanics (ranked children, prerequisites, backtracking) are
//! [`graph::AndOr`], which the partner's plan (`gatecrew_hitl::plan`) uses too, with
//! nodes of its own.

mod build;
pub mod graph;
pub mod obtain;
mod split;
mod task_graph;

use gatecrew_protocol::{AgentId, ItemId, Pos};
use gatecrew_world::BlockId;
use gatecrew_world::data::RecipeId;

pub use build::build;
pub use graph::{Backtrack, Edge, NodeId};
pub use split::split_work;
pub use task_graph::{DescFacts, GateView, TaskGraph};

use graph::{Branch, Branching};

/// The two kinds of AND.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AndKind {
    /// Independent goals (an agent's share): a failed child can be set aside while the
    /// others go on.
    Tasks,
    /// Every child is needed for the parent's purpose (ingredients, then the craft).
    AllOf,
}

/// A leaf task: one world action, or a short fixed sequence of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Task {
    /// Place a blueprint cell.
    Place {
        /// Blueprint cell index.
        cell: u32,
        /// Where.
        pos: Pos,
        /// The block.
        block: BlockId,
        /// The item that places it.
        item: ItemId,
    },
    /// Take an item from a known container or dropped stack.
    Fetch {
        /// The item.
        item: ItemId,
    },
    /// Craft a recipe.
    Craft {
        /// The recipe.
        recipe: RecipeId,
    },
    /// Mine blocks for their drops.
    Collect {
        /// The item wanted.
        item: ItemId,
        /// The block that drops it.
        block: BlockId,
    },
    /// Smelt in a furnace.
    Smelt {
        /// Input.
        input: ItemId,
        /// Output.
        output: ItemId,
    },
    /// Make sure a crafting station (table or furnace) is in reach: go to a known one
    /// or place one from the inventory.
    Station {
        /// The station's item.
        item: ItemId,
    },
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind {
    /// All children.
    And(AndKind),
    /// One of the children, tried in order; `item` is what it obtains.
    Obtain {
        /// The item.
        item: ItemId,
    },
    /// A leaf.
    Task(Task),
}

/// Where a node stands, privately for the agent holding this copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeState {
    /// Not done.
    Pending,
    /// Done (seen or verified).
    Done,
    /// Tried and failed (an alternative that did not work).
    Failed,
    /// Set aside by `LOCAL_SKIP`, to be revisited.
    SetAside,
}

/// A node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Whose it is.
    pub owner: AgentId,
    /// Its state.
    pub state: NodeState,
    /// Whether an `Obtain` node's alternatives were generated.
    pub expanded: bool,
}

impl Branching for Node {
    fn branch(&self) -> Branch {
        match self.kind {
            NodeKind::And(AndKind::Tasks) => Branch::Tasks,
            NodeKind::And(AndKind::AllOf) => Branch::AllOf,
            NodeKind::Obtain { .. } => Branch::Or,
            NodeKind::Task(_) => Branch::Leaf,
        }
    }

    fn pending(&self) -> bool {
        self.state == NodeState::Pending
    }
}

/// Static facts about a place node, computed once when the graph is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reach {
    /// Place nodes that depend on it, transitively.
    pub dependents: u32,
    /// Longest chain of dependents.
    pub depth: u32,
    /// Whether a teammate owns one of them.
    pub teammate_dependents: bool,
}
