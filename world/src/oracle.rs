//! The local-recovery oracle: with full knowledge of the world (every chest, every
//! resource block, but never a teammate's inventory), could this agent get the items
//! on its own within a budget? Recorded in the trace for UER; never shown to agents.
//!
//! [`World::oracle`] prices the cheapest route with the cost planner; [`Omniscient`] is
//! the same knowledge for a caller that acts on a clone of the world (the crew's
//! rollout oracle, `gatecrew_crew::episode::oracle`), which may leave out sources that
//! failed it.

use std::collections::BTreeSet;

use gatecrew_protocol::{AgentId, ItemId, Pos};

use crate::cost::{Estimate, Knowledge, Planner};
use crate::data::{BlockId, GameData};
use crate::world::{TickCosts, World};

/// Everything the world holds, as a planner's [`Knowledge`] for one agent: every chest
/// and dropped stack with its contents, every resource block, every station; the
/// agent's own inventory; never a teammate's.
#[derive(Debug, Clone, Copy)]
pub struct Omniscient<'w> {
    world: &'w World,
    agent: AgentId,
    /// Positions left out (a source an action on it failed at): a rollout re-plans
    /// around them instead of trying the same failing source again.
    avoid: Option<&'w BTreeSet<Pos>>,
}

impl Omniscient<'_> {
    fn usable(&self, p: Pos) -> bool {
        self.avoid.is_none_or(|a| !a.contains(&p))
    }
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
        chests.chain(dropped).filter(|(p, n)| *n > 0 && self.usable(*p)).collect()
    }
    fn nearest_resource(&self, block: BlockId) -> Option<Pos> {
        let here = self.here();
        let seen = self
            .world
            .resources
            .get(&block)
            .and_then(|s| s.iter().filter(|p| self.usable(**p)).min_by_key(|p| (p.dist_sq(here), **p)).copied());
        // The ground is made of a block too: its top layer may be dug.
        let ground = || (block == self.world.special.ground).then(|| self.world.ground_spot(here)).flatten();
        seen.or_else(|| ground().filter(|p| self.usable(*p)))
    }
    fn table(&self) -> Option<Pos> {
        let here = self.here();
        self.world.tables.iter().filter(|p| self.usable(**p)).min_by_key(|p| (p.dist_sq(here), **p)).copied()
    }
    fn furnace(&self) -> Option<Pos> {
        let here = self.here();
        self.world.furnaces.keys().filter(|p| self.usable(**p)).min_by_key(|p| (p.dist_sq(here), **p)).copied()
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
        let k = self.omniscient(agent, None)?;
        Planner::new(&k, budget).obtain(item, count)
    }

    /// The whole world as `agent`'s knowledge, leaving out the positions in `avoid`
    /// (`None` for an unknown agent).
    pub fn omniscient<'w>(&'w self, agent: AgentId, avoid: Option<&'w BTreeSet<Pos>>) -> Option<Omniscient<'w>> {
        (agent.index() < self.bodies.len()).then_some(Omniscient { world: self, agent, avoid })
    }
}
