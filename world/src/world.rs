//! The world state: blocks, containers, dropped stacks, the bots' bodies, one seeded
//! RNG. Actions run in two steps: [`World::begin`] prices an action in ticks without
//! changing anything, and [`World::complete`] checks it against the state at its
//! completion tick and applies it (or fails, changing nothing). The episode loop calls
//! `complete` in (tick, agent id) order, which makes contention deterministic.

mod apply;
mod interrupt;
mod mirror;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use gatecrew_protocol::{AgentId, ItemId, Pos, WindowId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::action::{Action, Outcome, Receipt};
use crate::data::{BlockId, GameData, ToolKind};
use crate::grid::{Bounds, Grid, reach_distance};
use crate::inventory::{AGENT_SLOTS, CHEST_SLOTS, Inventory};
use crate::path::{Goal, MoveCost, Path, find_path};

/// Tick costs of the actions (20 ticks are one second of game time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TickCosts {
    /// Per block walked (Minecraft walking speed is about 4.3 blocks a second).
    pub move_per_block: u64,
    /// Extra per jump up.
    pub climb: u64,
    /// Per craft action, whatever the repetitions.
    pub craft: u64,
    /// Per block placed.
    pub place: u64,
    /// Per hand-over.
    pub give: u64,
    /// Per drop.
    pub drop: u64,
    /// Per pick-up.
    pub pick_up: u64,
    /// Per chest deposit or withdrawal.
    pub chest: u64,
    /// Floor for mining, whatever the tool.
    pub min_mine: u64,
}

impl Default for TickCosts {
    fn default() -> Self {
        TickCosts {
            move_per_block: 5,
            climb: 2,
            craft: 10,
            place: 4,
            give: 4,
            drop: 2,
            pick_up: 2,
            chest: 4,
            min_mine: 2,
        }
    }
}

/// Physical rules of the world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rules {
    /// Reach, from the eyes to a block's surface.
    pub reach: f64,
    /// How far a bot sees teammates, containers and resources (16 blocks: DESIGN
    /// section 4's default view radius).
    pub sight: i32,
    /// Half-size of the box of blocks a bot sees around itself.
    pub near: i32,
    /// Tick costs.
    pub ticks: TickCosts,
    /// Positions A* may explore per walk.
    pub path_budget: usize,
    /// The block that enables 3x3 crafting.
    pub table_block: String,
    /// The container block for `deposit` and `withdraw`.
    pub chest_block: String,
    /// The block that smelts.
    pub furnace_block: String,
    /// Blocks bots use first for temporary scaffolds (pillars to stand on, supports for
    /// floating parts), in order of preference: the list the issue names. Left out of
    /// a config's serialisation when it is the default, so a config that leaves it
    /// there hashes the same as one written without the field.
    #[serde(skip_serializing_if = "is_default_scaffold")]
    pub scaffold_blocks: Vec<String>,
    /// What the ground below `y = 0` is made of: a bot may dig its top layer (`y = -1`)
    /// for the block's drops, as a player digs dirt for a scaffold, beside anything
    /// built and under no one. Left out of a config's serialisation when it is the
    /// default (dirt), so a config that leaves it there hashes the same as one
    /// written without the field.
    #[serde(skip_serializing_if = "is_default_ground")]
    pub ground_block: String,
}

fn is_default_ground(s: &str) -> bool {
    s == "dirt"
}

fn default_scaffold() -> Vec<String> {
    ["dirt", "cobblestone", "netherrack", "scaffolding"].map(String::from).to_vec()
}

fn is_default_scaffold(v: &[String]) -> bool {
    v == default_scaffold().as_slice()
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            reach: 4.5,
            sight: 16,
            near: 6,
            ticks: TickCosts::default(),
            path_budget: 20_000,
            table_block: "crafting_table".into(),
            chest_block: "chest".into(),
            furnace_block: "furnace".into(),
            scaffold_blocks: default_scaffold(),
            ground_block: "dirt".into(),
        }
    }
}

/// A bot's body: what the world knows about it (its mind lives elsewhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// Feet position.
    pub pos: Pos,
    /// Inventory.
    pub inventory: Inventory,
}

/// A furnace's state between uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Furnace {
    /// Burn time left from fuel already consumed.
    pub fuel_left: u32,
}

/// An action in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The action.
    pub action: Action,
    /// Its price in ticks (at least 1).
    pub ticks: u64,
    path: Option<Path>,
}

/// The special blocks the rules name, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Special {
    pub table: BlockId,
    pub chest: BlockId,
    pub furnace: BlockId,
    pub ground: BlockId,
}

/// The world. See the module docs.
#[derive(Debug, Clone)]
pub struct World {
    pub(crate) data: Arc<GameData>,
    pub(crate) rules: Rules,
    pub(crate) special: Special,
    pub(crate) grid: Grid,
    pub(crate) chests: BTreeMap<Pos, Inventory>,
    pub(crate) furnaces: BTreeMap<Pos, Furnace>,
    pub(crate) dropped: BTreeMap<Pos, Inventory>,
    pub(crate) bodies: Vec<Body>,
    pub(crate) keep_clear: BTreeSet<Pos>,
    pub(crate) tables: BTreeSet<Pos>,
    pub(crate) resources: BTreeMap<BlockId, BTreeSet<Pos>>,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) failure_rate: f64,
    pub(crate) path_blocks: Option<PathBlocks>,
    pub(crate) ledger: BTreeMap<ItemId, i64>,
    pub(crate) handed_over: BTreeSet<WindowId>,
    /// Cells holding a block a bot placed (blueprint blocks and scaffolds alike).
    pub(crate) built: BTreeSet<Pos>,
}

/// The path-block fault: how often a walk finds its way barred, and by what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PathBlocks {
    pub rate: f64,
    pub block: BlockId,
}

/// A rule names a block the data does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule block \"{0}\" is not in the game data")]
pub struct UnknownRuleBlock(pub String);

impl World {
    /// An empty world.
    pub fn new(data: Arc<GameData>, bounds: Bounds, rules: Rules, seed: u64) -> Result<Self, UnknownRuleBlock> {
        let find = |name: &str| data.block(name).ok_or_else(|| UnknownRuleBlock(name.to_owned()));
        let special = Special {
            table: find(&rules.table_block)?,
            chest: find(&rules.chest_block)?,
            furnace: find(&rules.furnace_block)?,
            ground: find(&rules.ground_block)?,
        };
        for b in &rules.scaffold_blocks {
            find(b)?;
        }
        Ok(World {
            grid: Grid::new(bounds),
            data,
            rules,
            special,
            chests: BTreeMap::new(),
            furnaces: BTreeMap::new(),
            dropped: BTreeMap::new(),
            bodies: Vec::new(),
            keep_clear: BTreeSet::new(),
            tables: BTreeSet::new(),
            resources: BTreeMap::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            failure_rate: 0.0,
            path_blocks: None,
            ledger: BTreeMap::new(),
            handed_over: BTreeSet::new(),
            built: BTreeSet::new(),
        })
    }

    /// The game data.
    pub fn data(&self) -> &Arc<GameData> {
        &self.data
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The block grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Sets the probability that an action fails with an injected fault.
    pub fn set_failure_rate(&mut self, rate: f64) {
        self.failure_rate = rate.clamp(0.0, 1.0);
    }

    /// Sets the path-block fault: with probability `rate` a completed walk finds a
    /// `block` dropped onto a cell of its path; the bot stays where it was and the
    /// block stays (mineable, like terrain) until someone removes it.
    pub fn set_path_blocks(&mut self, rate: f64, block: BlockId) {
        let rate = rate.clamp(0.0, 1.0);
        self.path_blocks = (rate > 0.0).then_some(PathBlocks { rate, block });
    }

    /// Windows whose hand-over the world applied (see [`Action::Give`]).
    pub fn handed_over(&self) -> &BTreeSet<WindowId> {
        &self.handed_over
    }

    /// Places a natural block (terrain, a tree, ore) that bots may mine.
    pub fn put_natural(&mut self, p: Pos, b: BlockId) -> bool {
        if !self.grid.set(p, b) {
            return false;
        }
        self.built.remove(&p);
        for set in self.resources.values_mut() {
            set.remove(&p);
        }
        if b != BlockId::AIR && !self.data.block_info(b).drops.is_empty() {
            self.resources.entry(b).or_default().insert(p);
        }
        true
    }

    /// Puts a built block with its state, as if a bot had placed it (no item is spent,
    /// it is not a resource): for scenes and tests of scoring.
    pub fn put_built(&mut self, p: Pos, b: BlockId, state: crate::state::BlockState) -> bool {
        for set in self.resources.values_mut() {
            set.remove(&p);
        }
        if b == BlockId::AIR {
            self.built.remove(&p);
        } else {
            self.built.insert(p);
        }
        self.grid.set_with_state(p, b, state)
    }

    /// Cells holding a block a bot placed and nobody removed: the blueprint's blocks
    /// and any scaffold left standing.
    pub fn built(&self) -> &BTreeSet<Pos> {
        &self.built
    }

    /// Placed blocks outside the blueprint: scaffolds nobody took down.
    pub fn scaffold_left(&self, bp: &crate::blueprint::Blueprint) -> Vec<Pos> {
        self.built.iter().copied().filter(|p| bp.cell_at(*p).is_none()).collect()
    }

    /// Places a chest with contents.
    pub fn put_chest(&mut self, p: Pos, items: Inventory) -> bool {
        if !self.grid.set(p, self.special.chest) {
            return false;
        }
        self.chests.insert(p, items);
        true
    }

    /// Places a furnace.
    pub fn put_furnace(&mut self, p: Pos) -> bool {
        if !self.grid.set(p, self.special.furnace) {
            return false;
        }
        self.furnaces.insert(p, Furnace::default());
        true
    }

    /// Places a crafting table.
    pub fn put_table(&mut self, p: Pos) -> bool {
        if !self.grid.set(p, self.special.table) {
            return false;
        }
        self.tables.insert(p);
        true
    }

    /// Crafting tables.
    pub fn tables(&self) -> &BTreeSet<Pos> {
        &self.tables
    }

    /// Adds a bot; ids are dense from 0.
    pub fn add_agent(&mut self, pos: Pos, inventory: Inventory) -> AgentId {
        self.bodies.push(Body { pos, inventory });
        AgentId(self.bodies.len() as u32 - 1)
    }

    /// A fresh inventory sized for a bot.
    pub fn agent_inventory() -> Inventory {
        Inventory::new(AGENT_SLOTS)
    }

    /// A fresh inventory sized for a chest.
    pub fn chest_inventory() -> Inventory {
        Inventory::new(CHEST_SLOTS)
    }

    /// Cells where bots never stop (unbuilt blueprint cells), so that they do not stand
    /// where a block must go.
    pub fn set_keep_clear(&mut self, cells: impl IntoIterator<Item = Pos>) {
        self.keep_clear = cells.into_iter().collect();
    }

    /// Number of bots.
    pub fn agent_count(&self) -> usize {
        self.bodies.len()
    }

    /// A bot's body.
    pub fn body(&self, a: AgentId) -> Option<&Body> {
        self.bodies.get(a.index())
    }

    /// The block at a position.
    pub fn block_at(&self, p: Pos) -> BlockId {
        self.grid.get(p)
    }

    /// The state of the block at a position (empty when none was given).
    pub fn state_at(&self, p: Pos) -> crate::state::BlockState {
        self.grid.state(p)
    }

    /// Whether a blueprint cell is built: its block is there, with every state property
    /// the blueprint specifies.
    pub fn has_cell(&self, c: &crate::blueprint::Cell) -> bool {
        self.grid.get(c.pos) == c.block && c.state.satisfied_by(&self.grid.state(c.pos))
    }

    /// Chests and their contents.
    pub fn chests(&self) -> &BTreeMap<Pos, Inventory> {
        &self.chests
    }

    /// Furnaces.
    pub fn furnaces(&self) -> &BTreeMap<Pos, Furnace> {
        &self.furnaces
    }

    /// Dropped stacks.
    pub fn dropped(&self) -> &BTreeMap<Pos, Inventory> {
        &self.dropped
    }

    /// Natural resource blocks by kind.
    pub fn resources(&self) -> &BTreeMap<BlockId, BTreeSet<Pos>> {
        &self.resources
    }

    /// Whether a crafting table is within reach of `feet`.
    pub fn table_in_reach(&self, feet: Pos) -> bool {
        self.tables.iter().any(|p| reach_distance(feet, *p) <= self.rules.reach)
    }

    /// The mining time of a block for a bot holding `inv`, and the tool requirement
    /// it fails, if any.
    pub fn mine_ticks(&self, b: BlockId, inv: &Inventory) -> (u64, Option<crate::data::ToolNeed>) {
        let info = self.data.block_info(b);
        let hardness = f64::from(info.hardness.unwrap_or(0.0));
        let best = |kind: Option<ToolKind>| {
            inv.iter()
                .filter_map(|(i, _)| self.data.tool(i))
                .filter(|t| Some(t.kind) == kind)
                .map(|t| (t.level, t.speed))
                .fold(None, |acc: Option<(u8, f32)>, t| Some(acc.map_or(t, |a| if t.1 > a.1 { t } else { a })))
        };
        if let Some(need) = info.needs {
            let ok =
                inv.iter().filter_map(|(i, _)| self.data.tool(i)).any(|t| t.kind == need.kind && t.level >= need.level);
            if !ok {
                return (1, Some(need));
            }
        }
        let speed = best(info.tool).map_or(1.0, |(_, s)| f64::from(s));
        let ticks = (hardness * 1.5 * 20.0 / speed).ceil() as u64;
        (ticks.max(self.rules.ticks.min_mine), None)
    }

    /// Prices an action for `agent`; changes nothing. Walks are planned here.
    pub fn begin(&self, agent: AgentId, action: Action) -> Pending {
        let t = self.rules.ticks;
        let Some(body) = self.body(agent) else {
            return Pending { action, ticks: 1, path: None };
        };
        let (ticks, path) = match action {
            Action::MoveTo { target, range } => match self.path(body.pos, target, range) {
                Some(p) => (p.ticks, Some(p)),
                None => (1, None),
            },
            Action::Mine { pos } if pos.y == -1 => (self.mine_ticks(self.special.ground, &body.inventory).0, None),
            Action::Mine { pos } => (self.mine_ticks(self.grid.get(pos), &body.inventory).0, None),
            Action::Craft { .. } => (t.craft, None),
            Action::Smelt { input, count, .. } => {
                let per = self.data.smelt_of(input).map_or(1, |s| u64::from(s.ticks));
                (per * u64::from(count), None)
            }
            // Placing into its own feet cell is a jump: pillaring up costs a climb too.
            Action::Place { pos, .. } if pos == body.pos => (t.place + t.climb, None),
            Action::Place { .. } => (t.place, None),
            Action::Give { .. } => (t.give, None),
            Action::Drop { .. } => (t.drop, None),
            Action::PickUp { .. } => (t.pick_up, None),
            Action::Deposit { .. } | Action::Withdraw { .. } => (t.chest, None),
        };
        Pending { action, ticks: ticks.max(1), path }
    }

    /// Checks and applies an action at its completion tick. Returns the actor's verified
    /// outcome and, for a `give`, the receiver's receipt.
    pub fn complete(&mut self, agent: AgentId, pending: Pending) -> (Outcome, Option<(AgentId, Receipt)>) {
        apply::complete(self, agent, pending)
    }

    /// Cancels `agent`'s action in flight `elapsed` ticks after it began (a person
    /// told the bot to stop): a walk ends at the last cell of its path reached by then,
    /// anything else leaves the world unchanged. The outcome fails with
    /// [`crate::Failure::Interrupted`] and names where the bot stands.
    pub fn interrupt(&mut self, agent: AgentId, pending: Pending, elapsed: u64) -> Outcome {
        interrupt::interrupt(self, agent, pending, elapsed)
    }

    /// The cheapest walk from `from` to within `range` of `target`, avoiding stops on
    /// keep-clear cells.
    pub fn path(&self, from: Pos, target: Pos, range: f64) -> Option<Path> {
        let cost = MoveCost { per_block: self.rules.ticks.move_per_block, climb: self.rules.ticks.climb };
        // A standing bot fills its feet cell and the one above: neither may be a cell
        // that still has to be built.
        let unbuilt = |p: Pos| self.keep_clear.contains(&p) && self.grid.get(p) == BlockId::AIR;
        let avoid = |p: Pos| unbuilt(p) || unbuilt(p.up());
        find_path(&self.grid, &self.data, from, Goal { target, range }, &avoid, cost, self.rules.path_budget)
    }

    /// Items created (positive) or destroyed (negative) by recorded steps since the
    /// world was built: crafting, smelting and fuel, mining drops, placing blocks. For
    /// every item, `item_census() - census at start == ledger()`: nothing else may
    /// create or lose an item.
    pub fn ledger(&self) -> &BTreeMap<ItemId, i64> {
        &self.ledger
    }

    pub(crate) fn book(&mut self, changes: &[(ItemId, i64)]) {
        for &(i, d) in changes {
            *self.ledger.entry(i).or_insert(0) += d;
        }
    }

    /// Total count of every item in the world (inventories, chests, dropped stacks),
    /// plus placed blocks by their placing item: the conservation ledger's view.
    pub fn item_census(&self) -> BTreeMap<ItemId, u64> {
        let mut m: BTreeMap<ItemId, u64> = BTreeMap::new();
        let mut add = |inv: &Inventory| {
            for (i, n) in inv.iter() {
                *m.entry(i).or_insert(0) += u64::from(n);
            }
        };
        self.bodies.iter().for_each(|b| add(&b.inventory));
        self.chests.values().for_each(&mut add);
        self.dropped.values().for_each(&mut add);
        m
    }
}
