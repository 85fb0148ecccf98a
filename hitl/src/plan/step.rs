//! The plan's steps: what a node is (a leaf's world work, an OR, an ALL-OF, the root of
//! goals), its state, where it came from, and what an ALL-OF stands for in a build.

use gatecrew_crew::plan::graph::{Branch, Branching, ChildLink};
use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::BlockId;
use gatecrew_world::data::RecipeId;

/// A leaf: something the bot does with world actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// Mine blocks of a kind until enough of the item is held.
    Collect {
        /// The item wanted.
        item: ItemId,
        /// The block that drops it.
        block: BlockId,
    },
    /// Craft a recipe (the count comes from the parent's need).
    Craft {
        /// The recipe in the game data.
        recipe: RecipeId,
    },
    /// Smelt in a furnace in reach.
    Smelt {
        /// What goes into the furnace.
        input: ItemId,
        /// What comes out.
        output: ItemId,
    },
    /// Take the item from a container or a dropped stack: the one at `from` (told by
    /// the person or remembered), else the nearest known one.
    Fetch {
        /// The item to take.
        item: ItemId,
        /// The container or stack to take it from, when known.
        from: Option<Pos>,
    },
    /// Walk to a known station (crafting table, furnace).
    UseStation {
        /// The station's item.
        item: ItemId,
    },
    /// Place a station from the inventory next to the bot.
    PlaceStation {
        /// The station's item.
        item: ItemId,
    },
    /// The bot's share of the crew's blueprint, worked by its own agent core.
    Share,
    /// Place one blueprint cell (a leaf of a named part of a build).
    Place(crate::parts::CellFacts),
    /// Walk to a place the person named ("go to my house"): done within
    /// [`NEAR_PLACE`] blocks of it.
    GoTo {
        /// Where.
        to: gatecrew_protocol::Pos,
    },
}

/// How near a named place the bot must come (blocks, straight line): a landmark is a
/// spot the person stood at or typed, not a cell to stand in.
pub const NEAR_PLACE: i64 = 3;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Independent goals (the root): a failed goal is set aside, the others go on.
    Goals,
    /// Every child, in order (a recipe: ingredients, station, the craft).
    AllOf,
    /// OR: hold `count` of `item`; alternatives in cost order.
    Obtain {
        /// The item to hold.
        item: ItemId,
        /// The planned quantity (the executor recomputes it from the parent's need).
        count: u32,
    },
    /// OR: have a station in reach.
    Station {
        /// The station's item.
        item: ItemId,
    },
    /// World work the executor does itself.
    Leaf(Leaf),
}

impl Kind {
    /// An OR node (alternatives).
    pub fn is_or(&self) -> bool {
        matches!(self, Kind::Obtain { .. } | Kind::Station { .. })
    }

    /// Whether the node is world work (no children).
    pub fn is_leaf(&self) -> bool {
        matches!(self, Kind::Leaf(_))
    }

    /// The trace name of the kind.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Goals => "goals",
            Kind::AllOf => "all_of",
            Kind::Obtain { .. } => "obtain",
            Kind::Station { .. } => "station",
            Kind::Leaf(Leaf::Collect { .. }) => "collect",
            Kind::Leaf(Leaf::Craft { .. }) => "craft",
            Kind::Leaf(Leaf::Smelt { .. }) => "smelt",
            Kind::Leaf(Leaf::Fetch { .. }) => "fetch",
            Kind::Leaf(Leaf::UseStation { .. }) => "use_station",
            Kind::Leaf(Leaf::PlaceStation { .. }) => "place_station",
            Kind::Leaf(Leaf::Share) => "share",
            Kind::Leaf(Leaf::Place(_)) => "place",
            Kind::Leaf(Leaf::GoTo { .. }) => "go_to",
        }
    }
}

/// Where a node stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Not done (or done before and needed again: obtain nodes are checked each visit).
    Pending,
    /// Completed, judged by its validator.
    Done,
    /// Failed (an alternative that did not work, or a goal that could not be reached).
    Failed,
}

/// Who put a node into the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The recipe planner.
    Planner,
    /// The person, through an intervention.
    Person,
    /// Task memory from an earlier run.
    Memory,
}

/// A node of the partner's plan: a goal, a choice or a leaf the executor runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What it is.
    pub kind: Kind,
    /// What the person sees ("obtain 3 oak planks").
    pub label: String,
    /// Pending, done or failed.
    pub state: State,
    /// Who added it.
    pub origin: Origin,
}

/// A parent-to-child edge: the child's rank among its siblings and when the edge was
/// made (the repair rules undo the newest edge of a cycle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Rank among siblings.
    pub rank: u32,
    /// Creation order.
    pub seq: u64,
}

impl ChildLink for Link {
    fn new(rank: u32, seq: u64) -> Self {
        Link { rank, seq }
    }
    fn rank(&self) -> u32 {
        self.rank
    }
    fn set_rank(&mut self, rank: u32) {
        self.rank = rank;
    }
    fn seq(&self) -> u64 {
        self.seq
    }
}

/// The crew's backtracking reads the partner's nodes as it reads its own: the goals
/// root is a task AND, `obtain` and station nodes are ORs.
impl Branching for Step {
    fn branch(&self) -> Branch {
        match self.kind {
            Kind::Goals => Branch::Tasks,
            Kind::AllOf => Branch::AllOf,
            Kind::Obtain { .. } | Kind::Station { .. } => Branch::Or,
            Kind::Leaf(_) => Branch::Leaf,
        }
    }

    fn pending(&self) -> bool {
        self.state == State::Pending
    }
}

/// What an ALL-OF stands for in a build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// A blueprint share: its children are parts.
    Build,
    /// A named part of a build: its children are `place` leaves (after the obtaining
    /// of blocks the bot lacks).
    Part,
}
