//! Turning what a bot observed into a verified outcome. The bridge reports the bot's own
//! view after each command (its position, its inventory, the block at the target, a
//! receiver's count as the receiver's client saw it); the outcome is built from those
//! deltas against the bot's inventory before the action, never from what was asked.
//!
//! An outcome's item changes are limited to the items the action is about (the placed
//! item, a block's drops, a recipe's ingredients and result, the transferred item):
//! a teammate's hand-over may land in the same inventory while the action runs, and it
//! arrives as its own receipt. The mirror world gets the whole observed inventory.

use std::time::Duration;

use gatecrew_protocol::{AgentId, ItemId, Pos};
use gatecrew_world::inventory::AGENT_SLOTS;
use gatecrew_world::{Action, BlockId, Delta, Failure, Inventory, Outcome, Receipt, World, reach_distance};

use crate::Ctx;
use crate::error::{BridgeError, ErrorCode};
use crate::stage::block_named;
use crate::wire::{Data, Stack};

/// A finished bridge command for an agent's action.
#[derive(Debug)]
pub(crate) struct Done {
    pub agent: AgentId,
    pub action: Action,
    /// The agent's inventory when the action started (the mirror's, last observed).
    pub before: Inventory,
    /// The reply, or `Err(None)` when the action was not sent (unsupported here).
    pub reply: Result<Data, Option<BridgeError>>,
    pub elapsed: Duration,
}

/// How the server answered the placements of a run: every `place` is one of these,
/// read back from the block the bot saw at the target afterwards.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Placements {
    /// The asked block appeared: the only placements counted as made.
    pub made: u32,
    /// Nothing appeared (after the bridge's second try), or the item could not be put
    /// in the hand: the outcome failed and the cell stays as it was.
    pub not_made: u32,
    /// Another block appeared: the outcome failed, and the mirror holds the block seen.
    pub wrong: u32,
}

/// What the episode gets.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// A verified outcome (and a give's receipt).
    Outcome(Outcome, Option<(AgentId, Receipt)>),
    /// The bot is gone: the agent fails.
    Fatal(String),
}

/// An inventory from the bot's own report (items the game data lacks are left out).
pub(crate) fn inventory_of(world: &World, stacks: &[Stack]) -> Inventory {
    let mut inv = Inventory::new(AGENT_SLOTS);
    for s in stacks {
        match world.data().item(&s.name) {
            Ok(i) => inv.insert_unchecked(i, s.count),
            Err(_) => tracing::debug!(item = %s.name, "an item the game data lacks"),
        }
    }
    inv
}

fn set_count(inv: &mut Inventory, item: ItemId, n: u32) {
    let _ = inv.remove(item, inv.count(item));
    inv.insert_unchecked(item, n);
}

impl Ctx {
    /// Brings the mirror's body of `agent` in line with what its bot reported.
    pub(crate) fn sync_body(&self, world: &mut World, agent: AgentId, d: &Data) -> Option<Inventory> {
        let (Some(feet), Some(stacks)) = (d.feet, d.inventory.as_ref()) else {
            return None;
        };
        let inv = inventory_of(world, stacks);
        world.sync_body(agent, self.origin.from_mc(feet), inv.clone());
        Some(inv)
    }

    /// The verified outcome of a finished command; the mirror is updated on the way.
    pub(crate) fn verify(&self, world: &mut World, done: Done, placements: &mut Placements) -> Verdict {
        let Done { agent, action, before, reply, elapsed } = done;
        // Where the agent stood when the action started (the mirror's, last observed).
        let from = world.body(agent).map(|b| b.pos);
        let ticks = ((elapsed.as_secs_f64() * 20.0).round() as u64).max(1);
        let fail = |f: Failure| Verdict::Outcome(Outcome { action, ticks, result: Err(f) }, None);
        let data = match reply {
            Ok(d) => d,
            Err(None) => return fail(Failure::Unsupported),
            Err(Some(e)) if e.is_fatal() => return Verdict::Fatal(e.to_string()),
            Err(Some(BridgeError::Command { code, message, data, .. })) => {
                if matches!(code, ErrorCode::NotPlaced | ErrorCode::EquipFailed) {
                    // The server did not make what the bot asked for: never counted as done.
                    tracing::warn!(%agent, ?code, message, "a placement the server did not make");
                    placements.not_made += 1;
                    metrics::counter!("gatecrew_mc_placements_not_made_total").increment(1);
                } else {
                    tracing::debug!(%agent, ?code, message, "action failed in the game");
                }
                if let Some(d) = data {
                    self.sync_body(world, agent, &d);
                }
                return fail(failure_for(&action, code, &before, world));
            }
            Err(Some(e)) => return Verdict::Fatal(e.to_string()),
        };
        let Some(after) = self.sync_body(world, agent, &data) else {
            return fail(Failure::Refused);
        };
        let here = data.feet.map(|f| self.origin.from_mc(f));
        let diff = |items: &[ItemId]| -> Vec<(ItemId, i64)> {
            let mut v: Vec<(ItemId, i64)> = items
                .iter()
                .map(|&i| (i, i64::from(after.count(i)) - i64::from(before.count(i))))
                .filter(|(_, d)| *d != 0)
                .collect();
            v.sort();
            v.dedup();
            v
        };
        let ok = |delta: Delta| Verdict::Outcome(Outcome { action, ticks, result: Ok(delta) }, None);
        match action {
            Action::MoveTo { target, range } => {
                let Some(pos) = here else { return fail(Failure::Refused) };
                let reached = if range <= 0.0 { pos == target } else { reach_distance(pos, target) <= range + 1e-9 };
                if reached {
                    ok(Delta { moved_to: Some(pos), ..Delta::default() })
                } else {
                    fail(Failure::NoPath { target })
                }
            }
            Action::Place { pos, item, state } => {
                let seen = data.block.as_deref().and_then(|n| block_named(world, n)).unwrap_or(BlockId::AIR);
                let want = world.data().block_for_item(item);
                world.sync_block(pos, seen, if Some(seen) == want { state } else { Default::default() });
                match want {
                    Some(b) if b == seen => {
                        // Placed by a bot: it counts as built (a scaffold block outside the
                        // blueprint is then one left standing until it is dug back).
                        world.put_built(pos, b, state);
                        let mut placed = vec![(pos, b)];
                        if world.data().block_info(b).height == 2 {
                            // A two-cell block (a door) fills the cell above too.
                            world.put_built(pos.up(), b, state.upper_half());
                            placed.push((pos.up(), b));
                        }
                        // A block placed into the feet cell is a jump-place (pillaring): the
                        // bot landed on it, as the embedded world moves it.
                        let moved_to = here.filter(|h| from == Some(pos) && Some(*h) != from);
                        placements.made += 1;
                        ok(Delta { items: diff(&[item]), placed, moved_to, ..Delta::default() })
                    }
                    _ if seen != BlockId::AIR => {
                        tracing::warn!(%agent, %pos, seen = world.data().block_name(seen), "another block appeared");
                        placements.wrong += 1;
                        metrics::counter!("gatecrew_mc_wrong_blocks_total").increment(1);
                        fail(Failure::Occupied { pos })
                    }
                    _ => {
                        placements.not_made += 1;
                        metrics::counter!("gatecrew_mc_placements_not_made_total").increment(1);
                        fail(Failure::Refused)
                    }
                }
            }
            Action::Mine { pos } => {
                let old = data.removed.as_deref().and_then(|n| block_named(world, n)).unwrap_or(BlockId::AIR);
                let now = data.block.as_deref().and_then(|n| block_named(world, n)).unwrap_or(BlockId::AIR);
                world.put_built(pos, BlockId::AIR, Default::default());
                world.sync_block(pos, now, Default::default());
                if now != BlockId::AIR || old == BlockId::AIR {
                    return fail(Failure::Refused);
                }
                let info = world.data().block_info(old);
                let mut items = info.drops.clone();
                items.extend(info.item);
                let tall = info.height == 2;
                // Digging the block under the feet drops the bot onto the next one.
                let moved_to = here.filter(|h| Some(*h) != from);
                let mut removed = vec![(pos, old)];
                if tall {
                    // The other half of a door goes with it, as in the game.
                    for other in [pos.up(), pos.down()] {
                        if world.block_at(other) == old {
                            world.put_built(other, BlockId::AIR, Default::default());
                            world.sync_block(other, BlockId::AIR, Default::default());
                            removed.push((other, old));
                            break;
                        }
                    }
                }
                ok(Delta { items: diff(&items), removed, moved_to, ..Delta::default() })
            }
            Action::Give { to, item, window, .. } => {
                let given = data.given.unwrap_or(0);
                let got = match (data.receiver_before, data.receiver_after) {
                    (Some(b), Some(a)) => a.saturating_sub(b),
                    _ => 0,
                };
                if let (Some(a), Some(body)) = (data.receiver_after, world.body(to)) {
                    let mut inv = body.inventory.clone();
                    set_count(&mut inv, item, a);
                    let p = body.pos;
                    world.sync_body(to, p, inv);
                }
                if given == 0 {
                    return fail(Failure::Refused);
                }
                if let Some(w) = window {
                    world.sync_handover(w);
                }
                let receipt = (got > 0).then_some((to, Receipt { from: agent, item, count: got, window }));
                let delta = Delta { items: diff(&[item]), ..Delta::default() };
                Verdict::Outcome(Outcome { action, ticks, result: Ok(delta) }, receipt)
            }
            Action::Deposit { chest, item, .. } | Action::Withdraw { chest, item, .. } => {
                if let Some(contents) = &data.contents {
                    let mut inv = World::chest_inventory();
                    for (i, n) in inventory_of(world, contents).iter() {
                        inv.insert_unchecked(i, n);
                    }
                    world.sync_chest(chest, inv);
                }
                let d = diff(&[item]);
                let right_way =
                    d.iter().any(|(_, n)| if matches!(action, Action::Deposit { .. }) { *n < 0 } else { *n > 0 });
                if right_way { ok(Delta { items: d, ..Delta::default() }) } else { fail(Failure::Refused) }
            }
            Action::Craft { recipe, .. } => {
                let result = world.data().recipe(recipe).result;
                // The server may pick another variant of the recipe: watch them all.
                let mut items = vec![result];
                for r in world.data().recipes_for(result) {
                    items.extend(world.data().recipe(*r).ingredients.iter().map(|(i, _)| *i));
                }
                items.sort();
                items.dedup();
                let d = diff(&items);
                if d.iter().any(|(i, n)| *i == result && *n > 0) {
                    ok(Delta { items: d, ..Delta::default() })
                } else {
                    fail(Failure::Refused)
                }
            }
            Action::Smelt { .. } | Action::Drop { .. } | Action::PickUp { .. } => fail(Failure::Unsupported),
        }
    }
}

/// The failure a bridge error code stands for, for this action.
fn failure_for(action: &Action, code: ErrorCode, before: &Inventory, world: &World) -> Failure {
    let target = action.pos().unwrap_or(Pos::new(0, 0, 0));
    match code {
        ErrorCode::NoPath | ErrorCode::Timeout if matches!(action, Action::MoveTo { .. }) => Failure::NoPath { target },
        ErrorCode::Occupied => Failure::Occupied { pos: target },
        ErrorCode::NoSupport => Failure::NoSupport { pos: target },
        ErrorCode::OutOfReach => match action {
            Action::Give { to, .. } => Failure::OutOfReach { target: world.body(*to).map_or(target, |b| b.pos) },
            _ => Failure::OutOfReach { target },
        },
        ErrorCode::MissingItems => match action {
            Action::Place { item, .. } => Failure::MissingItems { item: *item, have: before.count(*item), need: 1 },
            Action::Give { item, count, .. } | Action::Deposit { item, count, .. } => {
                Failure::MissingItems { item: *item, have: before.count(*item), need: *count }
            }
            _ => Failure::Refused,
        },
        ErrorCode::NothingThere => Failure::NothingThere { pos: target },
        ErrorCode::NoContainer => Failure::NoContainer { pos: target, kind: "chest" },
        ErrorCode::ContainerFull => Failure::ContainerFull,
        ErrorCode::ContainerShort => match action {
            Action::Withdraw { count, .. } => Failure::ContainerShort { have: 0, need: *count },
            _ => Failure::Refused,
        },
        ErrorCode::NeedsTable => Failure::NeedsTable,
        _ => Failure::Refused,
    }
}
