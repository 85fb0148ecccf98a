//! The injections: where a shortage's items go, and what source is left.

use std::collections::BTreeMap;

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::SuiteClass;
use gatecrew_world::GameData;

use super::Layout;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Variant {
    /// A: the items lie in a chest beside the victim's start.
    ChestByStart,
    /// A: the victim holds the ingredients of one 2x2 craft instead.
    OneCraft,
    /// B: a teammate holds them; no local source at all.
    Teammate,
    /// B/C: a teammate holds them, and a raw source lies this far away.
    TeammateAndSource(i32),
    /// D: nobody has any to spare; only a far raw source is left.
    GoneButSource(i32),
    /// D: the teammate who holds them stops answering; a far raw source is left.
    MuteAndSource(i32),
    /// D, when no raw source can be placed far enough: nobody has any to spare.
    Gone,
    /// D, likewise: the holder stops answering.
    Mute,
}

pub(super) fn variants(class: SuiteClass, s: u64) -> Vec<Variant> {
    use Variant::*;
    match class {
        SuiteClass::A if s % 2 == 0 => vec![OneCraft, ChestByStart],
        SuiteClass::A => vec![ChestByStart],
        SuiteClass::B if s % 2 == 0 => vec![Teammate],
        SuiteClass::B => vec![TeammateAndSource(30), TeammateAndSource(24), Teammate],
        SuiteClass::C => [6, 10, 14, 18, 22, 26].into_iter().map(TeammateAndSource).collect(),
        _ if s % 2 == 0 => [30, 24, 18].into_iter().map(GoneButSource).chain([Gone]).collect(),
        _ => [30, 24, 18].into_iter().map(MuteAndSource).chain([Mute]).collect(),
    }
}

/// Puts a raw source of `item` `dist` blocks from the victim's start, away from the
/// site: oak (or spruce) trees for logs and planks, stone and a wooden pickaxe for
/// cobblestone, and for any other block that drops itself a ruin of such blocks to
/// salvage (with the tool it needs). `None` for items with no such source (glass), or
/// when the source would touch one placed before.
///
/// The source lies along the x axis from the start, or along z when the layout's
/// `source_along_z` is set (version 2 puts a second shortage's source there, so that
/// two sources of one bot do not pile up on one line).
pub(super) fn place_source(
    l: &mut Layout,
    victim: usize,
    item: &str,
    need: u32,
    dist: i32,
    data: &GameData,
) -> Option<String> {
    let start = l.starts[victim];
    let (lo, hi) = l.bounds;
    let along_z = l.source_along_z;
    // (along, across) -> world position, and the bounds of each axis.
    let at = |u: i32, y: i32, w: i32| if along_z { Pos::new(w, y, u) } else { Pos::new(u, y, w) };
    let (u0, w0) = if along_z { (start.z, start.x) } else { (start.x, start.z) };
    let (u_lo, u_hi, w_lo, w_hi) = if along_z { (lo.z, hi.z, lo.x, hi.x) } else { (lo.x, hi.x, lo.z, hi.z) };
    let dir = if u0 <= (u_lo + u_hi) / 2 { -1 } else { 1 };
    let u = (u0 + dir * dist).clamp(u_lo + 2, u_hi - 2);
    let give_tool = |l: &mut Layout, block: &str| -> Option<()> {
        let b = data.block(block)?;
        if let Some(need) = data.block_info(b).needs {
            let tool = *data.tools_satisfying(need).first()?;
            *l.inventories[victim].entry(data.item_name(tool).to_owned()).or_insert(0) += 1;
        }
        Some(())
    };
    if matches!(item, "oak_planks" | "oak_log" | "spruce_planks" | "spruce_log") {
        let log = if item.starts_with("spruce") { "spruce_log" } else { "oak_log" };
        let trees = (1 + need / 4).clamp(2, 12) as i32;
        let cells: Vec<Pos> = (0..trees).map(|k| at(u, 0, w0 + 2 * k - trees)).collect();
        let (a, b) = (cells[0], cells[cells.len() - 1]);
        if touches(l, a, b) {
            return None;
        }
        l.trees.extend(cells.into_iter().map(|p| (p, log)));
        return Some(format!("{trees} {log} trees {dist} blocks away"));
    }
    let (block, what) = if item == "cobblestone" {
        ("stone", "a bank of")
    } else {
        // A block that drops its own item can be salvaged from a ruin.
        let id = data.item(item).ok()?;
        let b = data.block_for_item(id)?;
        let info = data.block_info(b);
        if info.drops != vec![id] || info.height != 1 {
            return None;
        }
        (data.block_name(b), "a ruin of")
    };
    let block: &'static str = Box::leak(block.to_owned().into_boxed_str());
    // A compact pile: three wide, up to three high, as long as it needs to be.
    let n = need as i32 + 2;
    let height = ((n + 29) / 30).clamp(1, 3);
    let length = (n + 3 * height - 1) / (3 * height);
    let w = (w0 - length / 2).clamp(w_lo + 2, w_hi - 2 - length);
    let (a, b) = (at(u, 0, w), at(u + dir * 2, height - 1, w + length - 1));
    if touches(l, a, b) {
        return None;
    }
    give_tool(l, block)?;
    l.fills.push((a, b, block));
    Some(format!("{what} {block} {dist} blocks away"))
}

/// Whether the box from `a` to `b`, grown by one block, meets a source, chest, table or
/// furnace already in the layout.
fn touches(l: &Layout, a: Pos, b: Pos) -> bool {
    let (x0, x1, z0, z1) = (a.x.min(b.x) - 1, a.x.max(b.x) + 1, a.z.min(b.z) - 1, a.z.max(b.z) + 1);
    let inside = |p: Pos| (x0..=x1).contains(&p.x) && (z0..=z1).contains(&p.z);
    let meets = |p: Pos, q: Pos| p.x.min(q.x) <= x1 && p.x.max(q.x) >= x0 && p.z.min(q.z) <= z1 && p.z.max(q.z) >= z0;
    l.trees.iter().any(|(p, _)| inside(*p))
        || l.fills.iter().any(|(p, q, _)| meets(*p, *q))
        || l.chests.iter().any(|(p, _)| inside(*p))
        || l.tables.iter().chain(&l.furnaces).any(|p| inside(*p))
}

/// Applies one injection: the victim keeps `need - deficit` of its `need` items.
/// `None` when the variant does not apply to this item.
#[allow(clippy::too_many_arguments)]
pub(super) fn apply(
    v: Variant,
    l: &mut Layout,
    victim: usize,
    holder: usize,
    item: &str,
    need: u32,
    deficit: u32,
    data: &GameData,
) -> Option<String> {
    if need > deficit {
        l.inventories[victim].insert(item.to_owned(), need - deficit);
    } else {
        l.inventories[victim].remove(item);
    }
    let need = deficit;
    let start = l.starts[victim];
    let give = |l: &mut Layout| *l.inventories[holder].entry(item.to_owned()).or_insert(0) += need;
    match v {
        Variant::ChestByStart => {
            let at = Pos::new(start.x - 1, 0, start.z);
            l.chests.push((at, BTreeMap::from([(item.to_owned(), need)])));
            Some(format!("bot{victim}'s {need} {item} lie in a chest beside its start"))
        }
        Variant::OneCraft => {
            let id = data.item(item).ok()?;
            let rid = *data
                .recipes_for(id)
                .iter()
                .find(|r| data.recipe(**r).grid == 2 && data.recipe(**r).ingredients.len() == 1)?;
            let r = data.recipe(rid);
            let (ing, per) = r.ingredients[0];
            let name = data.item_name(ing).to_owned();
            if l.inventories.iter().any(|inv| inv.contains_key(&name)) {
                return None;
            }
            let times = need.div_ceil(r.count);
            *l.inventories[victim].entry(name.clone()).or_insert(0) += per * times;
            Some(format!("bot{victim} holds {} {name} instead of {need} {item}: one craft away", per * times))
        }
        Variant::Teammate => {
            give(l);
            Some(format!("bot{victim}'s {need} {item} are in bot{holder}'s inventory only; no local source"))
        }
        Variant::TeammateAndSource(d) => {
            give(l);
            let src = place_source(l, victim, item, need, d, data)?;
            Some(format!("bot{victim}'s {need} {item} are in bot{holder}'s inventory; local source: {src}"))
        }
        Variant::GoneButSource(d) => {
            let src = place_source(l, victim, item, need, d, data)?;
            Some(format!("bot{victim}'s {need} {item} are gone, nobody has any to spare; local source: {src}"))
        }
        Variant::MuteAndSource(d) => {
            give(l);
            l.mute.push(holder as u32);
            let src = place_source(l, victim, item, need, d, data)?;
            Some(format!("bot{holder} holds bot{victim}'s {need} {item} but stops answering; local source: {src}"))
        }
        Variant::Gone => {
            Some(format!("bot{victim}'s {need} {item} are gone, nobody has any to spare; no local source"))
        }
        Variant::Mute => {
            give(l);
            l.mute.push(holder as u32);
            Some(format!("bot{holder} holds bot{victim}'s {need} {item} but stops answering; no local source"))
        }
    }
}
