//! What a bot can see: the only window an agent core has on the world besides its own
//! verified outcomes. Teammates appear as positions, never as inventories or plans.

use gatecrew_protocol::{AgentId, ItemId, Pos};

use crate::data::BlockId;
use crate::grid::reach_distance;
use crate::world::World;

/// Resource blocks of one kind reported per observation, nearest first.
const RESOURCES_PER_KIND: usize = 4;

/// A container seen by a bot. Contents are visible only within reach (the bot can
/// look inside); farther away the bot sees the block but not what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerView {
    /// Where.
    pub pos: Pos,
    /// Chest or furnace.
    pub kind: ContainerKind,
    /// Contents, when in reach.
    pub contents: Option<Vec<(ItemId, u32)>>,
}

/// Container kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerKind {
    /// A chest.
    Chest,
    /// A furnace.
    Furnace,
    /// A crafting table (holds nothing; listed so bots know where to craft 3x3).
    Table,
}

/// One bot's view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Observation {
    /// Where the bot stands.
    pub pos: Pos,
    /// Teammates within sight, by id.
    pub teammates: Vec<(AgentId, Pos)>,
    /// Non-air blocks in the box of half-size `near` around the bot.
    pub blocks: Vec<(Pos, BlockId)>,
    /// Containers and tables within sight.
    pub containers: Vec<ContainerView>,
    /// Natural resource blocks within sight, a few of each kind, nearest first.
    pub resources: Vec<(Pos, BlockId)>,
    /// Dropped stacks within sight.
    pub dropped: Vec<(Pos, ItemId, u32)>,
    /// Half-size of the box `blocks` covers: every cell in it not listed is air.
    pub near: i32,
    /// Sight radius.
    pub sight: i32,
}

impl World {
    /// What `agent` sees now.
    pub fn observe(&self, agent: AgentId) -> Observation {
        let Some(me) = self.body(agent) else {
            return Observation::default();
        };
        let here = me.pos;
        let sight = self.rules.sight;
        let sight_sq = i64::from(sight) * i64::from(sight);
        let within = |p: Pos| p.dist_sq(here) <= sight_sq;
        let teammates = self
            .bodies
            .iter()
            .enumerate()
            .filter(|(i, b)| *i != agent.index() && within(b.pos))
            .map(|(i, b)| (AgentId(i as u32), b.pos))
            .collect();
        let n = self.rules.near;
        let blocks = self.grid.blocks_in(here.offset(-n, -n, -n), here.offset(n, n, n));
        let reach = self.rules.reach;
        let mut containers: Vec<ContainerView> = self
            .chests
            .iter()
            .filter(|(p, _)| within(**p))
            .map(|(p, inv)| ContainerView {
                pos: *p,
                kind: ContainerKind::Chest,
                contents: (reach_distance(here, *p) <= reach).then(|| inv.iter().collect()),
            })
            .collect();
        containers.extend(self.furnaces.keys().filter(|p| within(**p)).map(|p| ContainerView {
            pos: *p,
            kind: ContainerKind::Furnace,
            contents: None,
        }));
        containers.extend(self.tables.iter().filter(|p| within(**p)).map(|p| ContainerView {
            pos: *p,
            kind: ContainerKind::Table,
            contents: None,
        }));
        let mut resources = Vec::new();
        for (block, cells) in &self.resources {
            let mut near: Vec<(i64, Pos)> =
                cells.iter().filter(|p| within(**p)).map(|p| (p.dist_sq(here), *p)).collect();
            near.sort();
            resources.extend(near.into_iter().take(RESOURCES_PER_KIND).map(|(_, p)| (p, *block)));
        }
        let dropped = self
            .dropped
            .iter()
            .filter(|(p, _)| within(**p))
            .flat_map(|(p, inv)| inv.iter().map(move |(i, c)| (*p, i, c)))
            .collect();
        Observation { pos: here, teammates, blocks, containers, resources, dropped, near: n, sight }
    }
}
