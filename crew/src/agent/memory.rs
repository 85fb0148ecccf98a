//! What an agent remembers of the world: only what it has seen itself.

use std::collections::BTreeMap;

use gatecrew_protocol::{AgentId, ItemId, Pos, Tick};
use gatecrew_world::cost::Knowledge;
use gatecrew_world::data::GameData;
use gatecrew_world::{BlockId, Bounds, ContainerKind, Inventory, Observation, Rules, TickCosts};

/// Public physics every bot knows: reach, tick costs, which blocks are stations.
#[derive(Debug, Clone, PartialEq)]
pub struct Physics {
    /// Reach distance.
    pub reach: f64,
    /// Tick costs.
    pub ticks: TickCosts,
    /// The crafting table block and item.
    pub table: (BlockId, Option<ItemId>),
    /// The furnace block and item.
    pub furnace: (BlockId, Option<ItemId>),
    /// The items of the rules' scaffold blocks, in order of preference.
    pub scaffold: Vec<ItemId>,
    /// What the ground is made of (its top layer may be dug).
    pub ground: BlockId,
    /// How far a bot sees teammates, containers and resources (`Rules::sight`).
    pub sight: i32,
    /// How far around it a bot sees blocks (`Rules::near`; the view is a cube).
    pub near: i32,
    /// The world's bounds, where the setup tells them (an exploration stays inside).
    pub bounds: Option<Bounds>,
}

impl Physics {
    /// From the world's rules.
    pub fn new(rules: &Rules, data: &GameData) -> Self {
        let station = |name: &str| {
            let b = data.block(name).unwrap_or(BlockId::AIR);
            (b, data.block_info(b).item)
        };
        Physics {
            reach: rules.reach,
            ticks: rules.ticks,
            table: station(&rules.table_block),
            furnace: station(&rules.furnace_block),
            scaffold: rules.scaffold_blocks.iter().filter_map(|b| data.block_info(data.block(b)?).item).collect(),
            ground: data.block(&rules.ground_block).unwrap_or(BlockId::AIR),
            sight: rules.sight,
            near: rules.near,
            bounds: None,
        }
    }
}

/// A container as last seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenContainer {
    /// Chest, furnace or table.
    pub kind: ContainerKind,
    /// Contents when last in reach.
    pub contents: Option<Vec<(ItemId, u32)>>,
}

/// The agent's memory of the world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    blocks: BTreeMap<Pos, BlockId>,
    containers: BTreeMap<Pos, SeenContainer>,
    resources: BTreeMap<Pos, BlockId>,
    dropped: BTreeMap<Pos, Vec<(ItemId, u32)>>,
    teammates: BTreeMap<AgentId, (Pos, Tick)>,
    visible: Vec<(AgentId, Pos)>,
    /// Columns where the ground must stay (under the blueprint), and where it is gone.
    /// Shared by every bot of a crew: it follows from the blueprint alone.
    keep_ground: std::sync::Arc<std::collections::BTreeSet<(i32, i32)>>,
    dug: std::collections::BTreeSet<(i32, i32)>,
}

/// How many teammates in sight a bot keeps track of besides those it deals with: as
/// many as one request can name (`MAX_ADDRESSEES`). What it needs of the crowd is the
/// nearest teammate and the nearest one seen offering an item; remembering every one of
/// a thousand bots in sight would make memory per bot grow with the crew. Crews of up to
/// nine bots see everyone: the bound only thins out a crowd larger than that.
pub const ATTENTION: usize = gatecrew_protocol::MAX_ADDRESSEES;

/// The teammates in `obs` a bot keeps in view, in the observation's order: everyone when
/// there are at most [`ATTENTION`], else the nearest (then lower ids) and those in `heed`.
fn attended(obs: &Observation, heed: &[AgentId]) -> Vec<(AgentId, Pos)> {
    let all = &obs.teammates;
    if all.len() <= ATTENTION {
        return all.clone();
    }
    let mut by_distance: Vec<(i64, AgentId)> = all.iter().map(|&(a, p)| (p.dist_sq(obs.pos), a)).collect();
    by_distance.select_nth_unstable(ATTENTION - 1);
    let mut near: Vec<AgentId> = by_distance[..ATTENTION].iter().map(|&(_, a)| a).collect();
    near.sort_unstable();
    all.iter().copied().filter(|(a, _)| near.binary_search(a).is_ok() || heed.contains(a)).collect()
}

impl Memory {
    /// Folds an observation in.
    /// Teammates in `heed` (those it is handing items to or expecting them from) are
    /// always kept in view; of the others, only the [`ATTENTION`] nearest.
    pub fn update(&mut self, obs: &Observation, now: Tick, heed: &[AgentId]) {
        self.update_noting(obs, now, heed, None);
    }

    /// As [`Self::update`], and with `changed`, notes there every cell whose block is
    /// not the one remembered: seen for the first time, replaced, or gone.
    pub fn update_noting(&mut self, obs: &Observation, now: Tick, heed: &[AgentId], changed: Option<&mut Vec<Pos>>) {
        let n = obs.near;
        let (lo, hi) = (obs.pos.offset(-n, -n, -n), obs.pos.offset(n, n, n));
        let inside =
            |p: &Pos| (lo.x..=hi.x).contains(&p.x) && (lo.y..=hi.y).contains(&p.y) && (lo.z..=hi.z).contains(&p.z);
        // Everything in the near box is seen: forget what is gone.
        let mut before = Vec::new();
        let track = changed.is_some();
        self.blocks.retain(|p, b| {
            let keep = !inside(p);
            if !keep && track {
                before.push((*p, *b));
            }
            keep
        });
        self.resources.retain(|p, _| !inside(p));
        for &(p, b) in &obs.blocks {
            self.blocks.insert(p, b);
        }
        if let Some(changed) = changed {
            // `before` is in position order, as the map iterates.
            changed.extend(before.iter().filter(|(p, b)| self.blocks.get(p) != Some(b)).map(|(p, _)| *p));
            changed.extend(
                obs.blocks
                    .iter()
                    .filter(|(p, _)| before.binary_search_by_key(p, |(q, _)| *q).is_err())
                    .map(|(p, _)| *p),
            );
        }
        for &(p, b) in &obs.resources {
            self.resources.insert(p, b);
        }
        let sight_sq = i64::from(obs.sight) * i64::from(obs.sight);
        self.dropped.retain(|p, _| p.dist_sq(obs.pos) > sight_sq);
        for &(p, i, c) in &obs.dropped {
            self.dropped.entry(p).or_default().push((i, c));
        }
        // Containers in sight are replaced by what is seen now; contents seen earlier are
        // kept for those now out of reach (the bot remembers what it looked at).
        let previous = std::mem::take(&mut self.containers);
        for (p, c) in &previous {
            if p.dist_sq(obs.pos) > sight_sq {
                self.containers.insert(*p, c.clone());
            }
        }
        for c in &obs.containers {
            let prev = previous.get(&c.pos).and_then(|s| s.contents.clone());
            self.containers.insert(c.pos, SeenContainer { kind: c.kind, contents: c.contents.clone().or(prev) });
        }
        self.visible = attended(obs, heed);
        for &(a, p) in &self.visible {
            self.teammates.insert(a, (p, now));
        }
    }

    /// Records a block change the agent caused and verified.
    pub fn saw_block(&mut self, p: Pos, b: BlockId) {
        if b == BlockId::AIR {
            self.blocks.remove(&p);
            self.resources.remove(&p);
        } else {
            self.blocks.insert(p, b);
        }
    }

    /// Columns whose ground is never dug (the blueprint's footprint and its border).
    pub fn keep_ground(&mut self, columns: std::sync::Arc<std::collections::BTreeSet<(i32, i32)>>) {
        self.keep_ground = columns;
    }

    /// Whether a top ground cell is known to be dug out.
    pub fn is_dug(&self, p: Pos) -> bool {
        p.y == -1 && self.dug.contains(&(p.x, p.z))
    }

    /// A top ground cell found dug (by this bot or another).
    pub fn saw_dug(&mut self, p: Pos) {
        self.dug.insert((p.x, p.z));
    }

    /// The nearest top ground cell (`y = -1`) that may be dug for its drops: not under
    /// the blueprint, not dug, nothing seen on it, not under or beside the bot.
    pub fn ground_spot(&self, near: Pos) -> Option<Pos> {
        const RADIUS: i32 = 6;
        let mut best: Option<(i64, Pos)> = None;
        for dx in -RADIUS..=RADIUS {
            for dz in -RADIUS..=RADIUS {
                let (x, z) = (near.x + dx, near.z + dz);
                // Only on a lattice of even columns: no two holes touch, so every cell
                // beside one keeps two ways out and nobody gets walled in.
                let lattice = x.rem_euclid(2) == 0 && z.rem_euclid(2) == 0;
                // Not under or beside the bot: it digs from where it stands.
                let beside = dx.abs() <= 1 && dz.abs() <= 1;
                if !lattice || beside || self.keep_ground.contains(&(x, z)) || self.dug.contains(&(x, z)) {
                    continue;
                }
                if self.blocks.contains_key(&Pos::new(x, 0, z)) {
                    continue;
                }
                let p = Pos::new(x, -1, z);
                let key = (p.dist_sq(near), p);
                if best.is_none_or(|(d, q)| key < (d, q)) {
                    best = Some(key);
                }
            }
        }
        best.map(|(_, p)| p)
    }

    /// The block last seen at `p` (`None`: never seen, or seen as air).
    pub fn block(&self, p: Pos) -> Option<BlockId> {
        self.blocks.get(&p).copied()
    }

    /// Teammates visible now.
    pub fn visible(&self) -> &[(AgentId, Pos)] {
        &self.visible
    }

    /// Where a teammate was last seen.
    pub fn last_seen(&self, a: AgentId) -> Option<Pos> {
        self.teammates.get(&a).map(|(p, _)| *p)
    }

    /// `a` is not where it was last seen (a give there found it out of reach): its old
    /// place is forgotten until it comes into view again.
    pub fn not_there(&mut self, a: AgentId) {
        self.teammates.remove(&a);
    }

    /// Containers as last seen.
    pub fn containers(&self) -> &BTreeMap<Pos, SeenContainer> {
        &self.containers
    }

    /// Dropped stacks as last seen.
    pub fn dropped(&self) -> &BTreeMap<Pos, Vec<(ItemId, u32)>> {
        &self.dropped
    }

    /// Resource blocks as last seen.
    pub fn resources(&self) -> &BTreeMap<Pos, BlockId> {
        &self.resources
    }

    /// Marks a container's contents as changed by the agent's own action.
    pub fn adjust_container(&mut self, p: Pos, item: ItemId, delta: i64) {
        if let Some(SeenContainer { contents: Some(c), .. }) = self.containers.get_mut(&p) {
            match c.iter_mut().find(|(i, _)| *i == item) {
                Some(e) => e.1 = (i64::from(e.1) + delta).max(0) as u32,
                None if delta > 0 => c.push((item, delta as u32)),
                None => {}
            }
            c.retain(|(_, n)| *n > 0);
        }
    }

    /// Records a station the agent placed itself.
    pub fn add_station(&mut self, p: Pos, kind: ContainerKind) {
        self.containers.insert(p, SeenContainer { kind, contents: None });
    }

    /// Forgets a dropped stack the agent picked up.
    pub fn forget_dropped(&mut self, p: Pos) {
        self.dropped.remove(&p);
    }
}

/// The planner's view for this agent: its inventory, its memory, the public physics.
pub struct Known<'a> {
    /// Game data.
    pub data: &'a GameData,
    /// What the agent has seen: blocks, dug ground, sources.
    pub mem: &'a Memory,
    /// Its verified inventory: what a plan may use without getting it first.
    pub inv: &'a Inventory,
    /// Where it stands: walks are planned from here.
    pub pos: Pos,
    /// Reach, tick costs and stations, as every bot knows them.
    pub physics: &'a Physics,
    /// Items the crew's blueprint still places: local recovery may not spend them
    /// (crafting stone bricks from the stone that must be placed would only move the
    /// shortage). The item being obtained is not reserved.
    pub reserved: BTreeMap<ItemId, u32>,
}

impl Known<'_> {
    fn nearest_station(&self, kind: ContainerKind) -> Option<Pos> {
        self.mem
            .containers
            .iter()
            .filter(|(_, c)| c.kind == kind)
            .map(|(p, _)| *p)
            .min_by_key(|p| (p.dist_sq(self.pos), *p))
    }
}

impl Knowledge for Known<'_> {
    fn data(&self) -> &GameData {
        self.data
    }
    fn here(&self) -> Pos {
        self.pos
    }
    fn held(&self, item: ItemId) -> u32 {
        self.inv.count(item).saturating_sub(self.reserved.get(&item).copied().unwrap_or(0))
    }
    fn stored(&self, item: ItemId) -> Vec<(Pos, u32)> {
        let mut out = Vec::new();
        self.stored_into(item, &mut out);
        out
    }
    fn stored_into(&self, item: ItemId, out: &mut Vec<(Pos, u32)>) {
        let chests = self.mem.containers.iter().filter_map(|(p, c)| {
            let n = c.contents.as_ref()?.iter().find(|(i, _)| *i == item)?.1;
            Some((*p, n))
        });
        let dropped =
            self.mem.dropped.iter().filter_map(|(p, v)| v.iter().find(|(i, _)| *i == item).map(|(_, n)| (*p, *n)));
        out.extend(chests.chain(dropped).filter(|(_, n)| *n > 0));
    }
    fn nearest_resource(&self, block: BlockId) -> Option<Pos> {
        let seen = self
            .mem
            .resources
            .iter()
            .filter(|(_, b)| **b == block)
            .map(|(p, _)| *p)
            .min_by_key(|p| (p.dist_sq(self.pos), *p));
        // The ground itself, where nothing else of the kind is known.
        seen.or_else(|| {
            (block == self.physics.ground && block != BlockId::AIR).then(|| self.mem.ground_spot(self.pos)).flatten()
        })
    }
    fn table(&self) -> Option<Pos> {
        self.nearest_station(ContainerKind::Table)
    }
    fn furnace(&self) -> Option<Pos> {
        self.nearest_station(ContainerKind::Furnace)
    }
    fn table_item(&self) -> Option<ItemId> {
        self.physics.table.1
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.physics.furnace.1
    }
    fn reach(&self) -> f64 {
        self.physics.reach
    }
    fn ticks(&self) -> TickCosts {
        self.physics.ticks
    }
}
