//! Setting the scenario up on the server with admin commands (paper 003's bounded
//! knowledge: admin commands set the stage, never act for an agent): the scenario's
//! blocks, tables and chests with their contents, each bot's inventory, and each bot
//! teleported to its start so that runs repeat. Then every bot observes itself and the
//! stage is checked against the scenario; a mismatch is an error naming the bot.

use std::collections::BTreeMap;
use std::time::Duration;

use gatecrew_protocol::{AgentId, ItemId};
use gatecrew_world::{BlockId, Inventory, World};

use crate::Ctx;
use crate::error::{McError, SetupError};
use crate::wire::{Command, Data};

/// Vanilla's `/fill` limit.
const FILL_LIMIT: i64 = 32_768;

impl Ctx {
    async fn admin(&self, agent: AgentId, line: String) -> Result<Data, McError> {
        tracing::debug!(bot = %self.name(agent), line, "admin");
        Ok(self.bridge.request(self.name(agent), &Command::Admin { line }, self.timeouts.command).await?)
    }

    /// Sets up the blocks, chests and tables of the scenario, through `by` (any bot).
    pub(crate) async fn stage_world(&self, world: &World, by: AgentId) -> Result<(), McError> {
        let b = world.grid().bounds();
        if !self.standins {
            // A user's server: clear the scenario's box first so that runs repeat.
            // (flying-squid has no /fill, and its world is new every start.)
            for (lo, hi) in fill_boxes(self.origin.to_mc(b.min), self.origin.to_mc(b.max)) {
                let line = format!("/fill {} {} {} {} {} {} minecraft:air", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
                self.admin(by, line).await?;
            }
        }
        for (p, block) in world.grid().blocks_in(b.min, b.max) {
            let [x, y, z] = self.origin.to_mc(p);
            let name = world.data().block_name(block);
            self.admin(by, format!("/setblock {x} {y} {z} minecraft:{name}")).await?;
        }
        for (p, contents) in world.chests() {
            let [x, y, z] = self.origin.to_mc(*p);
            for (slot, (item, n)) in stacks(world, contents).into_iter().enumerate() {
                let name = world.data().item_name(item);
                let line = if self.standins {
                    format!("/gc-fill-chest {{nonce}} {x} {y} {z} {name} {n}")
                } else {
                    format!("/item replace block {x} {y} {z} container.{slot} with minecraft:{name} {n}")
                };
                self.admin(by, line).await?;
            }
        }
        Ok(())
    }

    /// Gives a bot its starting inventory and teleports it to its start (its own bot
    /// issues the commands), then checks both from the bot's own observation.
    pub(crate) async fn stage_agent(&self, world: &World, agent: AgentId) -> Result<(), McError> {
        let Some(body) = world.body(agent) else {
            return Err(McError::Setup(SetupError::NotInScenario { agent }));
        };
        let name = self.name(agent).to_owned();
        if !self.standins {
            self.admin(agent, format!("/clear {name}")).await?;
        }
        for (item, n) in stacks(world, &body.inventory) {
            let item = world.data().item_name(item);
            let line = if self.standins {
                // flying-squid's /give overfills one stack (see bridge/standins.js).
                format!("/gc-stock {{nonce}} {name} {item} {n}")
            } else {
                format!("/give {name} minecraft:{item} {n}")
            };
            self.admin(agent, line).await?;
        }
        let [x, y, z] = self.origin.to_mc(body.pos);
        let mut seen = Data::default();
        for attempt in 0..4 {
            // The block's centre: flying-squid's `/tp <who> x y z` does not centre it.
            let (cx, cz) = (f64::from(x) + 0.5, f64::from(z) + 0.5);
            self.admin(agent, format!("/tp {name} {cx} {y} {cz}")).await?;
            tokio::time::sleep(Duration::from_millis(200 + 300 * attempt)).await;
            seen = self.bridge.request(&name, &Command::Observe { radius: 0 }, self.timeouts.command).await?;
            if seen.feet == Some([x, y, z]) {
                break;
            }
        }
        if seen.feet != Some([x, y, z]) {
            return Err(McError::Setup(SetupError::Misplaced { bot: name, feet: seen.feet, at: [x, y, z] }));
        }
        let want: BTreeMap<&str, u32> = body.inventory.iter().map(|(i, n)| (world.data().item_name(i), n)).collect();
        let have: BTreeMap<&str, u32> =
            seen.inventory.iter().flatten().filter(|s| s.count > 0).map(|s| (s.name.as_str(), s.count)).collect();
        if want != have {
            let owned = |m: BTreeMap<&str, u32>| m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            return Err(McError::Setup(SetupError::Inventory { bot: name, have: owned(have), want: owned(want) }));
        }
        Ok(())
    }
}

/// Stacks of at most the item's stack size (vanilla's /give caps one command).
fn stacks(world: &World, inv: &Inventory) -> Vec<(ItemId, u32)> {
    let mut out = Vec::new();
    for (item, mut n) in inv.iter() {
        let size = world.data().items().stack_size(item).max(1);
        while n > 0 {
            let k = n.min(size);
            out.push((item, k));
            n -= k;
        }
    }
    out
}

/// Splits a box into slabs of at most [`FILL_LIMIT`] blocks.
fn fill_boxes(lo: [i32; 3], hi: [i32; 3]) -> Vec<([i32; 3], [i32; 3])> {
    let dx = i64::from(hi[0] - lo[0] + 1);
    let dz = i64::from(hi[2] - lo[2] + 1);
    let layer = (dx * dz).max(1);
    let per = (FILL_LIMIT / layer).max(1) as i32;
    let mut out = Vec::new();
    let mut y = lo[1];
    while y <= hi[1] {
        let top = (y + per - 1).min(hi[1]);
        out.push(([lo[0], y, lo[2]], [hi[0], top, hi[2]]));
        y = top + 1;
    }
    out
}

/// The block a name stands for in the game data (`None`: a block the data lacks).
pub(crate) fn block_named(world: &World, name: &str) -> Option<BlockId> {
    match name {
        "air" | "cave_air" | "void_air" => Some(BlockId::AIR),
        _ => world.data().block(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_boxes_respect_the_limit() {
        let boxes = fill_boxes([-14, -60, -14], [20, -48, 20]);
        assert_eq!(boxes.first().map(|b| b.0[1]), Some(-60));
        assert_eq!(boxes.last().map(|b| b.1[1]), Some(-48));
        for (lo, hi) in &boxes {
            let n = i64::from(hi[0] - lo[0] + 1) * i64::from(hi[1] - lo[1] + 1) * i64::from(hi[2] - lo[2] + 1);
            assert!(n <= FILL_LIMIT, "{lo:?} {hi:?}: {n}");
        }
        let layers: i32 = boxes.iter().map(|(lo, hi)| hi[1] - lo[1] + 1).sum();
        assert_eq!(layers, 13);
    }
}
