//! Applying actions at completion. Each function checks everything first and mutates
//! only once it knows the action succeeds, so a failure leaves the world unchanged
//! (the one exception is the path-block fault, whose point is to change the world).

use gatecrew_protocol::{AgentId, ItemId, Pos, WindowId};
use rand::RngExt;

use super::{Pending, World};
use crate::action::{Action, Delta, Failure, Outcome, Receipt};
use crate::data::{BlockId, RecipeId};
use crate::grid::{body_distance, reach_distance};
use crate::inventory::{ExchangeError, Inventory};
use crate::state::BlockState;

type Applied = Result<(Delta, Option<(AgentId, Receipt)>), Failure>;

pub(super) fn complete(w: &mut World, agent: AgentId, pending: Pending) -> (Outcome, Option<(AgentId, Receipt)>) {
    let Pending { action, ticks, path } = pending;
    // One draw per completed action keeps the RNG stream independent of which actions
    // happen to be fault-free.
    let roll: f64 = w.rng.random();
    let applied = if agent.index() >= w.bodies.len() {
        Err(Failure::UnknownAgent { agent })
    } else if roll < w.failure_rate {
        Err(Failure::Injected)
    } else if let Some(cut) = path_cut(w, &action, path.as_ref(), roll) {
        Err(obstruct(w, cut))
    } else {
        apply(w, agent, action, path)
    };
    match applied {
        Ok((delta, receipt)) => (Outcome { action, ticks, result: Ok(delta) }, receipt),
        Err(f) => (Outcome { action, ticks, result: Err(f) }, None),
    }
}

fn apply(w: &mut World, a: AgentId, action: Action, path: Option<crate::path::Path>) -> Applied {
    match action {
        Action::MoveTo { target, .. } => move_to(w, a, target, path),
        Action::Mine { pos } => mine(w, a, pos),
        Action::Craft { recipe, times } => craft(w, a, recipe, times),
        Action::Smelt { furnace, input, count, fuel } => smelt(w, a, furnace, input, count, fuel),
        Action::Place { pos, item, state } => place(w, a, pos, item, state),
        Action::Give { to, item, count, window } => give(w, a, to, item, count, window),
        Action::Drop { item, count } => drop(w, a, item, count),
        Action::PickUp { pos } => pick_up(w, a, pos),
        Action::Deposit { chest, item, count } => deposit(w, a, chest, item, count),
        Action::Withdraw { chest, item, count } => withdraw(w, a, chest, item, count),
    }
}

/// Where the path-block fault cuts this walk, if it strikes: the same draw as the
/// action-failure fault, read from the band above it, so turning the fault on or off
/// does not shift the RNG stream.
fn path_cut(w: &World, action: &Action, path: Option<&crate::path::Path>, roll: f64) -> Option<(Pos, Pos)> {
    let (Action::MoveTo { target, .. }, Some(path), Some(pb)) = (action, path, w.path_blocks) else {
        return None;
    };
    let band = roll - w.failure_rate;
    if path.steps.is_empty() || band >= pb.rate {
        return None;
    }
    let i = ((band / pb.rate) * path.steps.len() as f64) as usize;
    Some((*target, path.steps[i.min(path.steps.len() - 1)]))
}

/// Drops the fault's block onto the cut cell, unless that cell must stay free (a
/// blueprint cell, a bot's body) or is not air, and fails the walk: the bot stays.
fn obstruct(w: &mut World, (target, cell): (Pos, Pos)) -> Failure {
    let body_there = w.bodies.iter().any(|b| b.pos == cell || b.pos.up() == cell);
    let free = w.grid.bounds().contains(cell) && w.grid.get(cell) == BlockId::AIR && !w.keep_clear.contains(&cell);
    if let (Some(pb), true, false) = (w.path_blocks, free, body_there) {
        w.put_natural(cell, pb.block);
        tracing::debug!(%cell, "path-block fault: a block fell onto the path");
    }
    Failure::PathBlocked { target }
}

fn exchange_failure(e: ExchangeError) -> Failure {
    match e {
        ExchangeError::Short(s) => Failure::MissingItems { item: s.item, have: s.have, need: s.need },
        ExchangeError::Full(_) => Failure::InventoryFull,
    }
}

fn in_reach(w: &World, a: AgentId, target: Pos) -> Result<(), Failure> {
    if reach_distance(w.bodies[a.index()].pos, target) <= w.rules.reach {
        Ok(())
    } else {
        Err(Failure::OutOfReach { target })
    }
}

fn nonzero(n: u32) -> Result<(), Failure> {
    if n == 0 { Err(Failure::ZeroCount) } else { Ok(()) }
}

fn items_delta(changes: &[(ItemId, i64)]) -> Vec<(ItemId, i64)> {
    let mut v: Vec<(ItemId, i64)> = Vec::new();
    for &(i, d) in changes {
        match v.iter_mut().find(|(j, _)| *j == i) {
            Some(e) => e.1 += d,
            None => v.push((i, d)),
        }
    }
    v.retain(|(_, d)| *d != 0);
    v.sort();
    v
}

fn move_to(w: &mut World, a: AgentId, target: Pos, path: Option<crate::path::Path>) -> Applied {
    let path = path.ok_or(Failure::NoPath { target })?;
    let start = w.bodies[a.index()].pos;
    let end = path.end(start);
    // The world may have changed during the walk: the end must still be standable.
    if !w.grid.standable(&w.data, end) {
        return Err(Failure::PathBlocked { target });
    }
    w.bodies[a.index()].pos = end;
    Ok((Delta { moved_to: Some(end), ..Delta::default() }, None))
}

fn mine(w: &mut World, a: AgentId, pos: Pos) -> Applied {
    if pos.y == -1 && w.grid.bounds().contains(pos.up()) {
        return dig_ground(w, a, pos);
    }
    if !w.grid.bounds().contains(pos) {
        return Err(Failure::OutOfBounds { pos });
    }
    let b = w.grid.get(pos);
    if b == BlockId::AIR {
        return Err(Failure::NothingThere { pos });
    }
    in_reach(w, a, pos)?;
    let info = w.data.block_info(b).clone();
    if info.hardness.is_none() {
        return Err(Failure::Unbreakable { pos });
    }
    if let (_, Some(need)) = w.mine_ticks(b, &w.bodies[a.index()].inventory) {
        return Err(Failure::MissingTool { need });
    }
    // A container's contents spill as a dropped stack, as in the game.
    let drops: Vec<(ItemId, u32)> = info.drops.iter().map(|d| (*d, 1)).collect();
    let reg = w.data.items().clone();
    w.bodies[a.index()].inventory.exchange(&reg, &[], &drops).map_err(exchange_failure)?;
    let mut removed = vec![(pos, b)];
    if info.height == 2 {
        for other in [pos.up(), pos.down()] {
            if w.grid.get(other) == b {
                w.grid.set(other, BlockId::AIR);
                removed.push((other, b));
                break;
            }
        }
    }
    w.grid.set(pos, BlockId::AIR);
    for (r, _) in &removed {
        w.built.remove(r);
    }
    if let Some(set) = w.resources.get_mut(&b) {
        set.remove(&pos);
    }
    w.furnaces.remove(&pos);
    w.tables.remove(&pos);
    if let Some(contents) = w.chests.remove(&pos) {
        spill(w, pos, contents);
    }
    let changes: Vec<(ItemId, i64)> = drops.iter().map(|(i, n)| (*i, i64::from(*n))).collect();
    w.book(&changes);
    let moved_to = settle_bodies(w, a);
    Ok((Delta { items: items_delta(&changes), removed, moved_to, ..Delta::default() }, None))
}

/// Digs the top ground block of a column: only where nothing stands or rests on it and
/// no blueprint cell still to build is above it, so that nothing built loses its footing.
fn dig_ground(w: &mut World, a: AgentId, pos: Pos) -> Applied {
    if w.grid.ground_dug(pos) {
        return Err(Failure::NothingThere { pos });
    }
    let above = pos.up();
    let body = w.bodies.iter().any(|b| b.pos == above);
    if w.grid.get(above) != BlockId::AIR || body || w.keep_clear.contains(&above) {
        return Err(Failure::Occupied { pos: above });
    }
    in_reach(w, a, pos)?;
    let b = w.special.ground;
    let info = w.data.block_info(b).clone();
    if let (_, Some(need)) = w.mine_ticks(b, &w.bodies[a.index()].inventory) {
        return Err(Failure::MissingTool { need });
    }
    let drops: Vec<(ItemId, u32)> = info.drops.iter().map(|d| (*d, 1)).collect();
    let reg = w.data.items().clone();
    w.bodies[a.index()].inventory.exchange(&reg, &[], &drops).map_err(exchange_failure)?;
    w.grid.dig_ground(pos.x, pos.z);
    let changes: Vec<(ItemId, i64)> = drops.iter().map(|(i, n)| (*i, i64::from(*n))).collect();
    w.book(&changes);
    Ok((Delta { items: items_delta(&changes), removed: vec![(pos, b)], ..Delta::default() }, None))
}

fn spill(w: &mut World, pos: Pos, contents: Inventory) {
    let stack = w.dropped.entry(pos).or_insert_with(|| Inventory::new(u32::MAX));
    for (i, n) in contents.iter() {
        stack.insert_unchecked(i, n);
    }
}

fn craft(w: &mut World, a: AgentId, recipe: RecipeId, times: u32) -> Applied {
    nonzero(times)?;
    let r = w.data.recipes().get(usize::from(recipe.0)).cloned().ok_or(Failure::ZeroCount)?;
    if r.grid == 3 && !w.table_in_reach(w.bodies[a.index()].pos) {
        return Err(Failure::NeedsTable);
    }
    let remove: Vec<(ItemId, u32)> = r.ingredients.iter().map(|(i, n)| (*i, n * times)).collect();
    let add = [(r.result, r.count * times)];
    let reg = w.data.items().clone();
    w.bodies[a.index()].inventory.exchange(&reg, &remove, &add).map_err(exchange_failure)?;
    let mut changes: Vec<(ItemId, i64)> = remove.iter().map(|(i, n)| (*i, -i64::from(*n))).collect();
    changes.push((r.result, i64::from(r.count * times)));
    w.book(&changes);
    Ok((Delta { items: items_delta(&changes), ..Delta::default() }, None))
}

fn smelt(w: &mut World, a: AgentId, furnace: Pos, input: ItemId, count: u32, fuel: ItemId) -> Applied {
    nonzero(count)?;
    let state = *w.furnaces.get(&furnace).ok_or(Failure::NoContainer { pos: furnace, kind: "furnace" })?;
    in_reach(w, a, furnace)?;
    let recipe = *w.data.smelt_of(input).ok_or(Failure::NotSmeltable { item: input })?;
    let burn = w.data.fuel_ticks(fuel).ok_or(Failure::NotFuel { item: fuel })?;
    let needed = recipe.ticks * count;
    let units = needed.saturating_sub(state.fuel_left).div_ceil(burn);
    let mut remove = vec![(input, count)];
    if units > 0 {
        remove.push((fuel, units));
    }
    let add = [(recipe.output, count)];
    let reg = w.data.items().clone();
    w.bodies[a.index()].inventory.exchange(&reg, &remove, &add).map_err(exchange_failure)?;
    if let Some(f) = w.furnaces.get_mut(&furnace) {
        f.fuel_left = state.fuel_left + units * burn - needed;
    }
    let mut changes: Vec<(ItemId, i64)> = remove.iter().map(|(i, n)| (*i, -i64::from(*n))).collect();
    changes.push((recipe.output, i64::from(count)));
    w.book(&changes);
    Ok((Delta { items: items_delta(&changes), ..Delta::default() }, None))
}

fn place(w: &mut World, a: AgentId, pos: Pos, item: ItemId, state: BlockState) -> Applied {
    let block = w.data.block_for_item(item).ok_or(Failure::NotPlaceable { item })?;
    let have = w.bodies[a.index()].inventory.count(item);
    if have == 0 {
        return Err(Failure::MissingItems { item, have: 0, need: 1 });
    }
    let info = w.data.block_info(block).clone();
    let tall = info.height == 2;
    let cells: &[Pos] = if tall { &[pos, pos.up()] } else { &[pos] };
    let feet = w.bodies[a.index()].pos;
    // Pillaring: a bot jumps and places a block into its own feet cell, landing on it.
    let pillar = pos == feet && !tall;
    for &c in cells {
        if !w.grid.bounds().contains(c) {
            return Err(Failure::OutOfBounds { pos: c });
        }
        let others = w.bodies.iter().enumerate().any(|(i, b)| i != a.index() && (b.pos == c || b.pos.up() == c));
        let own = c == feet || c == feet.up();
        if w.grid.get(c) != BlockId::AIR || others || (own && !pillar) {
            return Err(Failure::Occupied { pos: c });
        }
    }
    if pillar {
        // The jump needs the cell above the head free, and something to jump from.
        let head = feet.up().up();
        let bodies_above = w.bodies.iter().any(|b| b.pos == head || b.pos.up() == head);
        if !w.grid.bounds().contains(head) || w.grid.blocks_movement(&w.data, head) || bodies_above {
            return Err(Failure::Occupied { pos: head });
        }
        if !w.grid.blocks_movement(&w.data, feet.down()) {
            return Err(Failure::NoSupport { pos });
        }
    }
    in_reach(w, a, pos)?;
    if !crate::placement::can_place(&info, &state, pos, &|n| w.grid.supports(n)) {
        return Err(Failure::NoSupport { pos });
    }
    // Checked above: the item is held.
    let _ = w.bodies[a.index()].inventory.remove(item, 1);
    w.book(&[(item, -1)]);
    let mut placed = Vec::with_capacity(2);
    for &c in cells {
        // The upper cell of a door placed with `half=lower` says `half=upper`.
        let s = if c == pos { state } else { state.upper_half() };
        w.grid.set_with_state(c, block, s);
        w.built.insert(c);
        placed.push((c, block));
    }
    if block == w.special.chest {
        w.chests.insert(pos, World::chest_inventory());
    } else if block == w.special.furnace {
        w.furnaces.insert(pos, super::Furnace::default());
    } else if block == w.special.table {
        w.tables.insert(pos);
    }
    let moved_to = pillar.then(|| feet.up());
    if let Some(up) = moved_to {
        w.bodies[a.index()].pos = up;
    }
    Ok((Delta { items: vec![(item, -1)], placed, moved_to, ..Delta::default() }, None))
}

/// Bots whose footing is gone fall to the first block below (no fall damage: scaffolds
/// are dug one block at a time). Returns where the actor landed, if it fell.
fn settle_bodies(w: &mut World, actor: AgentId) -> Option<Pos> {
    let mut landed = None;
    for (i, b) in w.bodies.iter_mut().enumerate() {
        let mut p = b.pos;
        while p.y > 0 && !w.grid.blocks_movement(&w.data, p.down()) {
            p = p.down();
        }
        if p != b.pos {
            b.pos = p;
            if i == actor.index() {
                landed = Some(p);
            }
        }
    }
    landed
}

fn give(w: &mut World, a: AgentId, to: AgentId, item: ItemId, count: u32, window: Option<WindowId>) -> Applied {
    nonzero(count)?;
    if let Some(id) = window.filter(|id| w.handed_over.contains(id)) {
        return Err(Failure::AlreadyHandedOver { window: id });
    }
    if to == a || to.index() >= w.bodies.len() {
        return Err(Failure::UnknownAgent { agent: to });
    }
    let (from_pos, to_pos) = (w.bodies[a.index()].pos, w.bodies[to.index()].pos);
    if body_distance(from_pos, to_pos) > w.rules.reach {
        return Err(Failure::OutOfReach { target: to_pos });
    }
    let reg = w.data.items().clone();
    let have = w.bodies[a.index()].inventory.count(item);
    if have < count {
        return Err(Failure::MissingItems { item, have, need: count });
    }
    w.bodies[to.index()].inventory.check_exchange(&reg, &[], &[(item, count)]).map_err(|_| Failure::ReceiverFull)?;
    // Both sides were checked: the transfer cannot half-happen.
    let _ = w.bodies[a.index()].inventory.remove(item, count);
    w.bodies[to.index()].inventory.insert_unchecked(item, count);
    w.handed_over.extend(window);
    let receipt = Receipt { from: a, item, count, window };
    Ok((Delta { items: vec![(item, -i64::from(count))], ..Delta::default() }, Some((to, receipt))))
}

fn drop(w: &mut World, a: AgentId, item: ItemId, count: u32) -> Applied {
    nonzero(count)?;
    let pos = w.bodies[a.index()].pos;
    w.bodies[a.index()].inventory.remove(item, count).map_err(|s| Failure::MissingItems {
        item,
        have: s.have,
        need: count,
    })?;
    w.dropped.entry(pos).or_insert_with(|| Inventory::new(u32::MAX)).insert_unchecked(item, count);
    Ok((Delta { items: vec![(item, -i64::from(count))], ..Delta::default() }, None))
}

fn pick_up(w: &mut World, a: AgentId, pos: Pos) -> Applied {
    let stack = w.dropped.get(&pos).cloned().ok_or(Failure::NothingThere { pos })?;
    in_reach(w, a, pos)?;
    let add: Vec<(ItemId, u32)> = stack.iter().collect();
    let reg = w.data.items().clone();
    w.bodies[a.index()].inventory.exchange(&reg, &[], &add).map_err(exchange_failure)?;
    w.dropped.remove(&pos);
    let changes: Vec<(ItemId, i64)> = add.iter().map(|(i, n)| (*i, i64::from(*n))).collect();
    Ok((Delta { items: items_delta(&changes), ..Delta::default() }, None))
}

fn deposit(w: &mut World, a: AgentId, chest: Pos, item: ItemId, count: u32) -> Applied {
    nonzero(count)?;
    let contents = w.chests.get(&chest).ok_or(Failure::NoContainer { pos: chest, kind: "chest" })?;
    in_reach(w, a, chest)?;
    let reg = w.data.items().clone();
    let have = w.bodies[a.index()].inventory.count(item);
    if have < count {
        return Err(Failure::MissingItems { item, have, need: count });
    }
    contents.check_exchange(&reg, &[], &[(item, count)]).map_err(|_| Failure::ContainerFull)?;
    let _ = w.bodies[a.index()].inventory.remove(item, count);
    if let Some(c) = w.chests.get_mut(&chest) {
        c.insert_unchecked(item, count);
    }
    Ok((Delta { items: vec![(item, -i64::from(count))], ..Delta::default() }, None))
}

fn withdraw(w: &mut World, a: AgentId, chest: Pos, item: ItemId, count: u32) -> Applied {
    nonzero(count)?;
    let contents = w.chests.get(&chest).ok_or(Failure::NoContainer { pos: chest, kind: "chest" })?;
    in_reach(w, a, chest)?;
    let have = contents.count(item);
    if have < count {
        return Err(Failure::ContainerShort { have, need: count });
    }
    let reg = w.data.items().clone();
    w.bodies[a.index()].inventory.check_exchange(&reg, &[], &[(item, count)]).map_err(|_| Failure::InventoryFull)?;
    if let Some(c) = w.chests.get_mut(&chest) {
        let _ = c.remove(item, count);
    }
    w.bodies[a.index()].inventory.insert_unchecked(item, count);
    Ok((Delta { items: vec![(item, i64::from(count))], ..Delta::default() }, None))
}
