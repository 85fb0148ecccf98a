//! The local-recovery oracle: with full knowledge of the world (every chest, every
//! resource block, but never a teammate's inventory), could this agent get the items
//! on its own within a budget? Recorded in the trace for UER; never shown to agents.

use gatecrew_protocol::{AgentId, ItemId, Pos};

use crate::cost::{Estimate, Knowledge, Planner};
use crate::data::{BlockId, GameData};
use crate::world::{TickCosts, World};

struct Omniscient<'w> {
    world: &'w World,
    agent: AgentId,
}

impl Knowledge for Omniscient<'_> {
    fn data(&self) -> &GameData {
        &self.world.data
    }
    fn here(&self) -> Pos {
        self.world.bodies[self.agent.index()].pos
    }
    fn held(&self, item: ItemId) -> u32 {
        self.world.bodies[self.agent.index()].inventory.count(item)
    }
    fn stored(&self, item: ItemId) -> Vec<(Pos, u32)> {
        let chests = self.world.chests.iter().map(|(p, inv)| (*p, inv.count(item)));
        let dropped = self.world.dropped.iter().map(|(p, inv)| (*p, inv.count(item)));
        chests.chain(dropped).filter(|(_, n)| *n > 0).collect()
    }
    fn nearest_resource(&self, block: BlockId) -> Option<Pos> {
        let here = self.here();
        self.world.resources.get(&block)?.iter().min_by_key(|p| (p.dist_sq(here), **p)).copied()
    }
    fn table(&self) -> Option<Pos> {
        let here = self.here();
        self.world.tables.iter().min_by_key(|p| (p.dist_sq(here), **p)).copied()
    }
    fn furnace(&self) -> Option<Pos> {
        let here = self.here();
        self.world.furnaces.keys().min_by_key(|p| (p.dist_sq(here), **p)).copied()
    }
    fn table_item(&self) -> Option<ItemId> {
        self.world.data.block_info(self.world.special.table).item
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.world.data.block_info(self.world.special.furnace).item
    }
    fn reach(&self) -> f64 {
        self.world.rules.reach
    }
    fn ticks(&self) -> TickCosts {
        self.world.rules.ticks
    }
}

impl World {
    /// The cheapest local way for `agent` to hold `count` of `item`, if one costs at
    /// most `budget` ticks.
    pub fn oracle(&self, agent: AgentId, item: ItemId, count: u32, budget: u64) -> Option<Estimate> {
        if agent.index() >= self.bodies.len() {
            return None;
        }
        let k = Omniscient { world: self, agent };
        Planner::new(&k, budget).obtain(item, count)
    }
}
