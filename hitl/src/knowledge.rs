//! What the partner knows of the world: what it has seen itself (the crew agent's
//! [`Memory`], folded from its own observations and verified outcomes) and what the
//! person told it ("the wool is in the chest at 3 0 5"). Seen beats told: a chest the
//! bot has looked into is priced by its contents, whatever it was told.

use std::collections::BTreeMap;
use std::sync::Arc;

use gatecrew_crew::agent::{Known, Memory, Physics};
use gatecrew_protocol::{ItemId, Pos, Tick};
use gatecrew_world::cost::Knowledge as Know;
use gatecrew_world::{Action, BlockId, ContainerKind, GameData, Inventory, Observation, Outcome, TickCosts};

/// Count assumed for a told store whose count the person did not say.
const TOLD_COUNT: u32 = 64;

/// A told fact about a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Told {
    /// The item the person said is stored.
    pub item: ItemId,
    /// The container's position.
    pub pos: Pos,
    /// How many, if said.
    pub count: Option<u32>,
}

/// The partner's knowledge. See the module docs.
#[derive(Debug, Clone)]
pub struct Knowledge {
    mem: Memory,
    told: BTreeMap<(Pos, ItemId), Option<u32>>,
    physics: Physics,
    data: Arc<GameData>,
}

impl Knowledge {
    /// Knows nothing yet.
    pub fn new(data: Arc<GameData>, physics: Physics) -> Self {
        Knowledge { mem: Memory::default(), told: BTreeMap::new(), physics, data }
    }

    /// The rules the bot acts under: reach, tick costs, the station items.
    pub fn physics(&self) -> &Physics {
        &self.physics
    }

    /// What it saw.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// Folds an observation in.
    pub fn observe(&mut self, view: &Observation, now: Tick) {
        self.mem.update(view, now, &[]);
    }

    /// Folds in the verified outcome of one of its own actions.
    pub fn absorb(&mut self, o: &Outcome) {
        let Ok(delta) = &o.result else { return };
        for &(p, b) in &delta.placed {
            self.mem.saw_block(p, b);
            if Some(b) == Some(self.physics.table.0) {
                self.mem.add_station(p, ContainerKind::Table);
            } else if b == self.physics.furnace.0 {
                self.mem.add_station(p, ContainerKind::Furnace);
            }
        }
        for &(p, _) in &delta.removed {
            self.mem.saw_block(p, BlockId::AIR);
        }
        match o.action {
            Action::Withdraw { chest, item, count } => self.mem.adjust_container(chest, item, -i64::from(count)),
            Action::PickUp { pos } => self.mem.forget_dropped(pos),
            _ => {}
        }
    }

    /// The person told where an item is.
    pub fn tell(&mut self, t: Told) {
        self.told.insert((t.pos, t.item), t.count);
    }

    /// Told stores of an item not contradicted by a look inside.
    pub fn told_stores(&self, item: ItemId) -> Vec<(Pos, u32)> {
        self.told
            .iter()
            .filter(|((_, i), _)| *i == item)
            .filter(|((p, _), _)| self.mem.containers().get(p).and_then(|c| c.contents.as_ref()).is_none())
            .map(|((p, _), c)| (*p, c.unwrap_or(TOLD_COUNT)))
            .collect()
    }

    /// Every told fact, in order.
    pub fn told(&self) -> Vec<Told> {
        self.told.iter().map(|((pos, item), count)| Told { item: *item, pos: *pos, count: *count }).collect()
    }

    /// The planner's view: this knowledge with an inventory and a position.
    pub fn view<'a>(&'a self, inv: &'a Inventory, pos: Pos) -> View<'a> {
        View {
            known: Known {
                data: &self.data,
                mem: &self.mem,
                inv,
                pos,
                physics: &self.physics,
                reserved: BTreeMap::new(),
            },
            owner: self,
        }
    }

    /// The nearest known station of a kind and whether it is in reach.
    pub fn station(&self, item: ItemId, pos: Pos) -> Option<(Pos, bool)> {
        let kind = if Some(item) == self.physics.table.1 { ContainerKind::Table } else { ContainerKind::Furnace };
        let p = self
            .mem
            .containers()
            .iter()
            .filter(|(_, c)| c.kind == kind)
            .map(|(p, _)| *p)
            .min_by_key(|p| (p.dist_sq(pos), *p))?;
        Some((p, gatecrew_world::reach_distance(pos, p) <= self.physics.reach))
    }

    /// What a seen container holds of an item (`None`: never looked inside).
    pub fn contents(&self, at: Pos, item: ItemId) -> Option<u32> {
        let c = self.mem.containers().get(&at)?.contents.as_ref()?;
        Some(c.iter().find(|(i, _)| *i == item).map_or(0, |(_, n)| *n))
    }

    /// The game data.
    pub fn data(&self) -> &GameData {
        &self.data
    }
}

/// [`Knowledge`] as the cost planner's [`Know`] trait.
pub struct View<'a> {
    known: Known<'a>,
    owner: &'a Knowledge,
}

impl Know for View<'_> {
    fn data(&self) -> &GameData {
        self.known.data()
    }
    fn here(&self) -> Pos {
        self.known.here()
    }
    fn held(&self, item: ItemId) -> u32 {
        self.known.held(item)
    }
    fn stored(&self, item: ItemId) -> Vec<(Pos, u32)> {
        let mut v = self.known.stored(item);
        for (p, n) in self.owner.told_stores(item) {
            if !v.iter().any(|(q, _)| *q == p) {
                v.push((p, n));
            }
        }
        v
    }
    fn nearest_resource(&self, block: BlockId) -> Option<Pos> {
        self.known.nearest_resource(block)
    }
    fn table(&self) -> Option<Pos> {
        self.known.table()
    }
    fn furnace(&self) -> Option<Pos> {
        self.known.furnace()
    }
    fn table_item(&self) -> Option<ItemId> {
        self.known.table_item()
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.known.furnace_item()
    }
    fn reach(&self) -> f64 {
        self.known.reach()
    }
    fn ticks(&self) -> TickCosts {
        self.known.ticks()
    }
}
