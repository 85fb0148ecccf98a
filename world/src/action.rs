//! Actions and their verified outcomes. An agent changes its private state only from
//! an [`Outcome`] the world hands back.

use gatecrew_protocol::trace::ActionName;
use gatecrew_protocol::{AgentId, ItemId, Pos, WindowId};

use crate::data::{BlockId, RecipeId, ToolNeed};
use crate::state::BlockState;

/// Something a bot does in the world. Each takes ticks and counts in CS.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Walk to a standing position within `range` of `target` (`0.0`: onto it).
    MoveTo {
        /// The block to approach.
        target: Pos,
        /// Reach distance to stop at.
        range: f64,
    },
    /// Break a block in reach and collect its drops.
    Mine {
        /// The block.
        pos: Pos,
    },
    /// Craft a recipe `times` times (3x3 recipes need a crafting table in reach).
    Craft {
        /// The recipe.
        recipe: RecipeId,
        /// Repetitions.
        times: u32,
    },
    /// Smelt `count` items in a furnace in reach, burning `fuel` from the inventory.
    Smelt {
        /// The furnace.
        furnace: Pos,
        /// What to smelt.
        input: ItemId,
        /// How many.
        count: u32,
        /// Fuel item.
        fuel: ItemId,
    },
    /// Place a held item as a block in reach, with a block state (facing, door half...;
    /// empty for most blocks).
    Place {
        /// Where.
        pos: Pos,
        /// Which item.
        item: ItemId,
        /// The state to place it with.
        state: BlockState,
    },
    /// Hand items to a teammate in reach.
    Give {
        /// The receiver.
        to: AgentId,
        /// Which item.
        item: ItemId,
        /// How many.
        count: u32,
        /// The board window this hand-over settles, if any: the world applies at most
        /// one hand-over per window, so a repeated `give` (a replayed step, a duplicated
        /// message acted on twice) moves nothing.
        window: Option<WindowId>,
    },
    /// Drop items at the bot's feet.
    Drop {
        /// Which item.
        item: ItemId,
        /// How many.
        count: u32,
    },
    /// Pick up the dropped stack at a position in reach.
    PickUp {
        /// Where it lies.
        pos: Pos,
    },
    /// Put items into a chest in reach.
    Deposit {
        /// The chest.
        chest: Pos,
        /// Which item.
        item: ItemId,
        /// How many.
        count: u32,
    },
    /// Take items out of a chest in reach.
    Withdraw {
        /// The chest.
        chest: Pos,
        /// Which item.
        item: ItemId,
        /// How many.
        count: u32,
    },
}

impl Action {
    /// Places `item` at `pos` without a block state.
    pub fn place(pos: Pos, item: ItemId) -> Self {
        Action::Place { pos, item, state: BlockState::default() }
    }

    /// The trace name.
    pub fn name(&self) -> ActionName {
        match self {
            Action::MoveTo { .. } => ActionName::MoveTo,
            Action::Mine { .. } => ActionName::Mine,
            Action::Craft { .. } => ActionName::Craft,
            Action::Smelt { .. } => ActionName::Smelt,
            Action::Place { .. } => ActionName::Place,
            Action::Give { .. } => ActionName::Give,
            Action::Drop { .. } => ActionName::Drop,
            Action::PickUp { .. } => ActionName::PickUp,
            Action::Deposit { .. } => ActionName::Deposit,
            Action::Withdraw { .. } => ActionName::Withdraw,
        }
    }

    /// The position the action is about, for the trace.
    pub fn pos(&self) -> Option<Pos> {
        match self {
            Action::MoveTo { target, .. } => Some(*target),
            Action::Mine { pos } | Action::Place { pos, .. } | Action::PickUp { pos } => Some(*pos),
            Action::Smelt { furnace, .. } => Some(*furnace),
            Action::Deposit { chest, .. } | Action::Withdraw { chest, .. } => Some(*chest),
            Action::Craft { .. } | Action::Give { .. } | Action::Drop { .. } => None,
        }
    }
}

/// Why an action failed. Every failure leaves the world as it was.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum Failure {
    /// The target is beyond reach.
    #[error("{target} is out of reach")]
    OutOfReach {
        /// The target.
        target: Pos,
    },
    /// No walk leads there.
    #[error("no path to {target}")]
    NoPath {
        /// The target.
        target: Pos,
    },
    /// The walk's end became blocked while walking.
    #[error("the path to {target} got blocked")]
    PathBlocked {
        /// The target.
        target: Pos,
    },
    /// Not enough of an item.
    #[error("needs {need} of item #{}, has {have}", item.0)]
    MissingItems {
        /// The item.
        item: ItemId,
        /// Held.
        have: u32,
        /// Needed.
        need: u32,
    },
    /// A tool of this kind and tier is needed to get drops.
    #[error("needs a tool")]
    MissingTool {
        /// The requirement.
        need: ToolNeed,
    },
    /// The result would not fit into the inventory.
    #[error("inventory full")]
    InventoryFull,
    /// A 3x3 recipe without a crafting table in reach.
    #[error("needs a crafting table in reach")]
    NeedsTable,
    /// The furnace cannot smelt the input.
    #[error("item #{} cannot be smelted", item.0)]
    NotSmeltable {
        /// The input.
        item: ItemId,
    },
    /// The item does not burn.
    #[error("item #{} is not a fuel", item.0)]
    NotFuel {
        /// The item.
        item: ItemId,
    },
    /// No container of the expected kind there.
    #[error("no {kind} at {pos}")]
    NoContainer {
        /// Where.
        pos: Pos,
        /// `chest` or `furnace`.
        kind: &'static str,
    },
    /// The chest cannot take the items.
    #[error("the container is full")]
    ContainerFull,
    /// The container holds fewer than asked.
    #[error("the container holds {have}, not {need}")]
    ContainerShort {
        /// Held.
        have: u32,
        /// Asked.
        need: u32,
    },
    /// The target cell is not free (a block or a bot is there).
    #[error("{pos} is occupied")]
    Occupied {
        /// Where.
        pos: Pos,
    },
    /// Nothing to attach the block to.
    #[error("nothing supports {pos}")]
    NoSupport {
        /// Where.
        pos: Pos,
    },
    /// Nothing to mine or pick up there.
    #[error("nothing at {pos}")]
    NothingThere {
        /// Where.
        pos: Pos,
    },
    /// The block cannot be broken.
    #[error("{pos} is unbreakable")]
    Unbreakable {
        /// Where.
        pos: Pos,
    },
    /// The item does not place a block.
    #[error("item #{} is not a block", item.0)]
    NotPlaceable {
        /// The item.
        item: ItemId,
    },
    /// No such teammate, or it is the actor itself.
    #[error("no such agent {agent}")]
    UnknownAgent {
        /// The id.
        agent: AgentId,
    },
    /// The receiver's inventory cannot take the items.
    #[error("the receiver's inventory is full")]
    ReceiverFull,
    /// The window's hand-over already happened.
    #[error("{window} was already handed over")]
    AlreadyHandedOver {
        /// The window.
        window: WindowId,
    },
    /// Outside the world's bounds.
    #[error("{pos} is outside the world")]
    OutOfBounds {
        /// Where.
        pos: Pos,
    },
    /// A zero count or zero repetitions.
    #[error("nothing to do (count 0)")]
    ZeroCount,
    /// A fault injected by the world config.
    #[error("injected fault")]
    Injected,
    /// The bot's language model chose a wrong action (the `llm` executor model's error
    /// draw): nothing in the world changed.
    #[error("the model chose a wrong action")]
    Mistaken,
    /// A real server refused the action, or did not do it (the bot's own observation
    /// shows no change).
    #[error("the server refused the action")]
    Refused,
    /// The action has no counterpart on this server (the Minecraft adapter's world).
    #[error("not supported on this server")]
    Unsupported,
    /// The action was cancelled before it was done (a person told the bot to stop);
    /// the bot stands at `at`.
    #[error("interrupted at {at}")]
    Interrupted {
        /// Where the bot stands now.
        at: Pos,
    },
}

impl Failure {
    /// A short tag for the trace.
    pub fn tag(&self) -> &'static str {
        match self {
            Failure::OutOfReach { .. } => "out_of_reach",
            Failure::NoPath { .. } => "no_path",
            Failure::PathBlocked { .. } => "path_blocked",
            Failure::MissingItems { .. } => "missing_items",
            Failure::MissingTool { .. } => "missing_tool",
            Failure::InventoryFull => "inventory_full",
            Failure::NeedsTable => "needs_table",
            Failure::NotSmeltable { .. } => "not_smeltable",
            Failure::NotFuel { .. } => "not_fuel",
            Failure::NoContainer { .. } => "no_container",
            Failure::ContainerFull => "container_full",
            Failure::ContainerShort { .. } => "container_short",
            Failure::Occupied { .. } => "occupied",
            Failure::NoSupport { .. } => "no_support",
            Failure::NothingThere { .. } => "nothing_there",
            Failure::Unbreakable { .. } => "unbreakable",
            Failure::NotPlaceable { .. } => "not_placeable",
            Failure::UnknownAgent { .. } => "unknown_agent",
            Failure::ReceiverFull => "receiver_full",
            Failure::AlreadyHandedOver { .. } => "already_handed_over",
            Failure::OutOfBounds { .. } => "out_of_bounds",
            Failure::ZeroCount => "zero_count",
            Failure::Injected => "injected",
            Failure::Mistaken => "mistaken",
            Failure::Refused => "refused",
            Failure::Unsupported => "unsupported",
            Failure::Interrupted { .. } => "interrupted",
        }
    }
}

/// What a successful action changed, as the actor can verify it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delta {
    /// Inventory changes of the actor, in item order (negative: spent or given away).
    pub items: Vec<(ItemId, i64)>,
    /// The actor's new position.
    pub moved_to: Option<Pos>,
    /// Blocks that appeared.
    pub placed: Vec<(Pos, BlockId)>,
    /// Blocks that disappeared.
    pub removed: Vec<(Pos, BlockId)>,
}

/// The verified result of one action.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The action.
    pub action: Action,
    /// Ticks it took.
    pub ticks: u64,
    /// What changed, or why nothing did.
    pub result: Result<Delta, Failure>,
}

impl Outcome {
    /// Whether it succeeded.
    pub fn ok(&self) -> bool {
        self.result.is_ok()
    }
}

/// Items that arrived from a teammate's `give`, verified by the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// The giver.
    pub from: AgentId,
    /// The item.
    pub item: ItemId,
    /// How many.
    pub count: u32,
    /// The window the giver named, if any.
    pub window: Option<WindowId>,
}
