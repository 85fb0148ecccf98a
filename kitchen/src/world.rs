//! The kitchen as a synchronous, seeded state machine: [`World::step`] takes one action
//! per agent and returns a [`StepReport`]. No clock, no I/O, one RNG (the order draws).
//!
//! A step, in MindAgent's order (`World.step`): the agents' actions are applied one
//! after another in agent order (a later agent sees an earlier one's effect, as there);
//! every occupancy counter drops by one; every pending order whose items lie on the
//! serving table is completed and its items taken; then time advances, every pending
//! order's lifetime drops by one and an order at zero fails; and a new order arrives when
//! the interval's timer runs out. So an order that arrives at time `T` with lifetime `L`
//! is completed by a `put` in any of the steps `T ..= T+L-1` and fails at the end of step
//! `T+L-1` otherwise (MindAgent checks `lifetime == 0` at the start of the next step,
//! before success, which is the same).

mod apply;
mod orders;

use std::sync::Arc;

use gatecrew_protocol::{AgentId, ItemId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

pub use apply::{Action, Refusal};
pub use orders::{MAX_PENDING, Order, OrderId};

use crate::level::{Level, Timing};
use crate::recipe::RecipeBook;
use crate::tool::ToolKind;

/// A location instance of the level's kitchen, by index in the `kitchen` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct LocationId(pub u16);

impl LocationId {
    /// The index.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A location and its state: MindAgent's `inside(X, ...)` and `occupy(X)` predicates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Its kind.
    pub kind: ToolKind,
    /// `blender0`, `blender1`, ... as MindAgent names instances.
    pub name: String,
    /// What is inside, in the order it was put.
    pub contents: Vec<ItemId>,
    /// Steps left before the tool accepts `get`, `put` or `activate` again.
    pub occupied: u32,
    /// Activated since the last put: its content is a product ready to be taken.
    pub cooked: bool,
}

impl Location {
    /// Whether `get` may take its content (when not occupied): the storage and the
    /// chopboard always, a cooking tool once activated, the serving table never
    /// (MindAgent's `pickable`).
    pub fn pickable(&self) -> bool {
        match self.kind {
            ToolKind::Storage | ToolKind::Chopboard => true,
            ToolKind::Servingtable => false,
            _ => self.cooked,
        }
    }

    /// Whether the location is occupied now (the `occupy(X)` predicate).
    pub fn is_occupied(&self) -> bool {
        self.occupied > 0
    }
}

/// An agent's body: where it is, what it holds, and for how long it must watch a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Body {
    /// Its location.
    pub at: LocationId,
    /// The one item it holds.
    pub holding: Option<ItemId>,
    /// Steps it is tied to a tool it watches (the chopboard).
    pub occupied: u32,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepReport {
    /// The step's number (the world's time before it).
    pub step: u32,
    /// Each agent's action and whether the world accepted it.
    pub outcomes: Vec<(Action, Result<(), Refusal>)>,
    /// Orders completed in this step.
    pub completed: Vec<Order>,
    /// Orders whose lifetime ran out at this step's end.
    pub failed: Vec<Order>,
    /// The order that arrived at this step's end, if one did.
    pub arrived: Option<OrderId>,
}

/// The kitchen. See the module docs.
#[derive(Debug, Clone)]
pub struct World {
    level: Arc<Level>,
    book: Arc<RecipeBook>,
    locations: Vec<Location>,
    agents: Vec<Body>,
    orders: orders::Orders,
    rng: ChaCha8Rng,
    time: u32,
}

impl World {
    /// A fresh kitchen: `agents` agents at the first serving table (where MindAgent's
    /// `Agent.__init__` puts them), empty tools, and the first order drawn.
    pub fn new(level: Arc<Level>, book: Arc<RecipeBook>, agents: usize, timing: Timing, seed: u64) -> Self {
        let mut count = std::collections::BTreeMap::<ToolKind, u32>::new();
        let locations: Vec<Location> = level
            .kitchen
            .iter()
            .map(|&kind| {
                let n = count.entry(kind).or_default();
                let name = format!("{kind}{n}");
                *n += 1;
                Location { kind, name, contents: Vec::new(), occupied: 0, cooked: false }
            })
            .collect();
        let table = locations.iter().position(|l| l.kind == ToolKind::Servingtable).unwrap_or(0);
        let start = LocationId(u16::try_from(table).unwrap_or(0));
        let mut world = World {
            agents: vec![Body { at: start, holding: None, occupied: 0 }; agents],
            locations,
            orders: orders::Orders::new(timing),
            rng: ChaCha8Rng::seed_from_u64(seed),
            time: 0,
            level,
            book,
        };
        let level = Arc::clone(&world.level);
        world.orders.arrive(&level, &mut world.rng, 0);
        world
    }

    /// The level.
    pub fn level(&self) -> &Arc<Level> {
        &self.level
    }

    /// The recipe book.
    pub fn book(&self) -> &Arc<RecipeBook> {
        &self.book
    }

    /// Steps taken so far.
    pub fn time(&self) -> u32 {
        self.time
    }

    /// The interval and lifetimes in force.
    pub fn timing(&self) -> &Timing {
        self.orders.timing()
    }

    /// Every location, by [`LocationId`].
    pub fn locations(&self) -> &[Location] {
        &self.locations
    }

    /// A location.
    pub fn location(&self, id: LocationId) -> &Location {
        &self.locations[id.index()]
    }

    /// The ids of every location of a kind, in kitchen order.
    pub fn of_kind(&self, kind: ToolKind) -> impl Iterator<Item = LocationId> + '_ {
        self.locations.iter().enumerate().filter(move |(_, l)| l.kind == kind).map(|(i, _)| LocationId(i as u16))
    }

    /// The first location of a kind.
    pub fn first(&self, kind: ToolKind) -> Option<LocationId> {
        self.of_kind(kind).next()
    }

    /// Every agent's body, by agent index.
    pub fn agents(&self) -> &[Body] {
        &self.agents
    }

    /// An agent's body.
    pub fn agent(&self, id: AgentId) -> &Body {
        &self.agents[id.index()]
    }

    /// Pending orders, least lifetime left first, then oldest (MindAgent's sort).
    pub fn pending(&self) -> Vec<&Order> {
        self.orders.by_urgency()
    }

    /// Arrivals skipped because six orders were pending.
    pub fn skipped_arrivals(&self) -> u32 {
        self.orders.skipped
    }

    /// One step. `actions[i]` is agent `i`'s; missing ones are `noop`.
    pub fn step(&mut self, actions: &[Action]) -> StepReport {
        let step = self.time;
        let mut outcomes = Vec::with_capacity(self.agents.len());
        for i in 0..self.agents.len() {
            let action = actions.get(i).copied().unwrap_or(Action::Noop);
            let outcome = self.apply(i, action);
            if let Err(why) = outcome {
                tracing::trace!(step, agent = i, ?action, ?why, "refused");
            }
            outcomes.push((action, outcome));
        }
        for a in &mut self.agents {
            a.occupied = a.occupied.saturating_sub(1);
        }
        for l in &mut self.locations {
            l.occupied = l.occupied.saturating_sub(1);
        }
        let mut completed = Vec::new();
        for l in self.locations.iter_mut().filter(|l| l.kind == ToolKind::Servingtable) {
            completed.extend(self.orders.serve(&mut l.contents));
        }
        self.time += 1;
        let level = Arc::clone(&self.level);
        let (failed, arrived) = self.orders.tick(&level, &mut self.rng, self.time);
        StepReport { step, outcomes, completed, failed, arrived }
    }
}
