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
        let seen =
            self.world.resources.get(&block).and_then(|s| s.iter().min_by_key(|p| (p.dist_sq(here), **p)).copied());
        // The ground is made of a block too: its top layer may be dug.
        seen.or_else(|| (block == self.world.special.ground).then(|| self.world.ground_spot(here)).flatten())
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
    /// The nearest top ground cell (`y = -1`) that may be dug, within 6 columns of
    /// `near`, not under `near` itself.
    pub(crate) fn ground_spot(&self, near: Pos) -> Option<Pos> {
        const RADIUS: i32 = 6;
        let mut best: Option<(i64, Pos)> = None;
        for dx in -RADIUS..=RADIUS {
            for dz in -RADIUS..=RADIUS {
                let above = Pos::new(near.x + dx, 0, near.z + dz);
                let free = self.grid.bounds().contains(above)
                    && self.grid.get(above) == BlockId::AIR
                    && !self.keep_clear.contains(&above)
                    && !self.bodies.iter().any(|b| b.pos == above);
                let p = above.down();
                if (dx, dz) == (0, 0) || !free || self.grid.ground_dug(p) {
                    continue;
                }
                let key = (p.dist_sq(near), p);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
        best.map(|(_, p)| p)
    }

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
