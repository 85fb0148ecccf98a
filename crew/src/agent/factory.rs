//! A crew's agents at their starting state, built again whenever asked.
//!
//! A supervisor restarts a failed agent from its state after its last verified step;
//! before the agent's first checkpoint that state is the one it started with. Keeping
//! a copy of every starting core for that was one core clone per agent per episode,
//! and at 1,000 bots most agents never take a checkpoint of their own (they wake twice:
//! docs/benchmarks.md, "Actors at 1,000 bots"). [`AgentCore::new`] is a pure function
//! of its [`AgentSetup`], so the factory keeps the setup instead (what the crew shares
//! once, each agent's start and inventory) and builds that agent's starting core again
//! on a restart: the same value [`crate::Setup::agents`] gave.

use std::sync::Arc;

use gatecrew_protocol::{AgentId, Pos};
use gatecrew_world::Inventory;

use super::{AgentCore, AgentSetup};

/// See the module docs. Cloning it is cheap: everything is behind one `Arc`.
#[derive(Debug, Clone)]
pub struct AgentFactory(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    /// The setup every agent shares; `id`, `start` and `inventory` are replaced per agent.
    common: AgentSetup,
    /// Each agent's start and inventory, by id.
    bodies: Vec<(Pos, Inventory)>,
}

impl AgentFactory {
    /// A factory for the agents `0..bodies.len()`, each starting with `common` but for
    /// its id, start and inventory.
    pub fn new(common: AgentSetup, bodies: Vec<(Pos, Inventory)>) -> Self {
        AgentFactory(Arc::new(Shared { common, bodies }))
    }

    /// How many agents the crew has.
    pub fn len(&self) -> usize {
        self.0.bodies.len()
    }

    /// Whether the crew has no agent.
    pub fn is_empty(&self) -> bool {
        self.0.bodies.is_empty()
    }

    /// Agent `id` at its starting state, or `None` if the crew has no such agent.
    pub fn build(&self, id: AgentId) -> Option<AgentCore> {
        let (start, inventory) = self.0.bodies.get(id.index())?.clone();
        Some(AgentCore::new(AgentSetup { id, start, inventory, ..self.0.common.clone() }))
    }

    /// Every agent at its starting state, in id order.
    pub fn build_all(&self) -> Vec<AgentCore> {
        (0..self.len() as u32).filter_map(|i| self.build(AgentId(i))).collect()
    }
}
