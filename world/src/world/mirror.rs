//! Keeping a world in step with a real Minecraft server. The Minecraft adapter runs an
//! episode on a copy of the scenario (its mirror) and brings it in line with what the
//! bots observe: their own positions and inventories, the blocks they saw placed or
//! removed, the chests they looked into. Nothing here is used by the simulator.

use gatecrew_protocol::{AgentId, Pos, WindowId};

use super::World;
use crate::data::BlockId;
use crate::inventory::Inventory;
use crate::state::BlockState;

impl World {
    /// Sets a bot's body as its bot observed it. `false` for an unknown agent.
    pub fn sync_body(&mut self, agent: AgentId, pos: Pos, inventory: Inventory) -> bool {
        match self.bodies.get_mut(agent.index()) {
            Some(b) => {
                b.pos = pos;
                b.inventory = inventory;
                true
            }
            None => false,
        }
    }

    /// Sets a block as observed (air removes it, and any chest, furnace or table there).
    /// An observed block is not a resource the oracle may count on. `false` outside the
    /// bounds.
    pub fn sync_block(&mut self, p: Pos, b: BlockId, state: BlockState) -> bool {
        if !self.grid.set_with_state(p, b, state) {
            return false;
        }
        for set in self.resources.values_mut() {
            set.remove(&p);
        }
        if b != self.special.chest {
            self.chests.remove(&p);
        }
        if b != self.special.furnace {
            self.furnaces.remove(&p);
        }
        if b == self.special.table {
            self.tables.insert(p);
        } else {
            self.tables.remove(&p);
        }
        true
    }

    /// Sets a chest's contents as a bot saw them. `false` when there is no chest.
    pub fn sync_chest(&mut self, p: Pos, contents: Inventory) -> bool {
        match self.chests.get_mut(&p) {
            Some(c) => {
                *c = contents;
                true
            }
            None => false,
        }
    }

    /// Records that the server applied the hand-over of `window`, so that a second
    /// give for it is refused as [`crate::Failure::AlreadyHandedOver`]. `false` when it
    /// was already recorded.
    pub fn sync_handover(&mut self, window: WindowId) -> bool {
        self.handed_over.insert(window)
    }
}
