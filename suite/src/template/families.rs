//! The ten template families.

use gatecrew_protocol::Pos;

use super::{Shape, Template};

fn p(x: i32, y: i32, z: i32) -> Pos {
    Pos::new(x, y, z)
}

/// Straight walls of different lengths, heights and materials, some with a door.
pub fn walls() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, len, h, block, door) in [
        ("wall-low-cobble", 10, 2, "cobblestone", false),
        ("wall-planks-door", 12, 3, "oak_planks", true),
        ("wall-long-bricks", 30, 3, "stone_bricks", false),
        ("wall-fence", 24, 1, "oak_fence", false),
    ] {
        let mut s = Shape::default();
        s.fill(p(0, 0, 0), p(len - 1, h - 1, 0), block);
        if door {
            s.set(p(len / 2, 1, 0), "air");
            s.set(p(len / 2, 0, 0), "oak_door");
        }
        v.push(s.done(name, "walls"));
    }
    v
}

#[allow(clippy::too_many_arguments)]
fn house(
    name: &str,
    w: i32,
    d: i32,
    h: i32,
    wall: &'static str,
    base: &'static str,
    roof: &'static str,
    windows: &[(i32, i32)],
) -> Template {
    let mut s = Shape::default();
    s.walls(p(0, 0, 0), p(w - 1, 0, d - 1), base);
    s.walls(p(0, 1, 0), p(w - 1, h - 1, d - 1), wall);
    s.fill(p(0, h, 0), p(w - 1, h, d - 1), roof);
    s.set(p(w / 2, 1, 0), "air");
    s.set(p(w / 2, 0, 0), "oak_door");
    for &(x, z) in windows {
        s.set(p(x, 1, z), "glass");
    }
    s.done(name, "house")
}

/// Houses with a door, windows and a flat roof.
pub fn houses() -> Vec<Template> {
    vec![
        house("house-hut", 5, 5, 3, "oak_planks", "cobblestone", "oak_slab", &[(0, 2)]),
        house("house-small", 6, 6, 3, "oak_planks", "cobblestone", "oak_slab", &[(0, 2), (0, 3)]),
        house("house-brick", 7, 6, 4, "bricks", "stone_bricks", "cobblestone_slab", &[(0, 2), (6, 3), (3, 5)]),
        house("house-long", 9, 5, 3, "spruce_planks", "cobblestone", "oak_planks", &[(0, 2), (8, 2), (3, 4), (5, 4)]),
    ]
}

/// Hollow towers with a ladder inside and a doorway.
pub fn towers() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, w, h, block) in [
        ("tower-3", 3, 4, "cobblestone"),
        ("tower-4", 4, 5, "stone_bricks"),
        ("tower-5", 5, 5, "cobblestone"),
        ("tower-planks", 4, 4, "oak_planks"),
    ] {
        let mut s = Shape::default();
        s.walls(p(0, 0, 0), p(w - 1, h - 1, w - 1), block);
        s.set(p(w / 2, 0, 0), "air");
        s.set(p(w / 2, 1, 0), "air");
        for y in 0..h {
            s.set(p(1, y, w - 2), "ladder");
        }
        v.push(s.done(name, "tower"));
    }
    v
}

/// Raised walkways on pillars with rails.
pub fn bridges() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, len, deck, pillar, rail) in [
        ("bridge-short", 8, "oak_planks", "oak_log", "oak_fence"),
        ("bridge-stone", 12, "stone_bricks", "cobblestone", "cobblestone_wall"),
        ("bridge-long", 18, "oak_planks", "cobblestone", "oak_fence"),
        ("bridge-slab", 10, "oak_slab", "oak_log", "oak_fence"),
    ] {
        let mut s = Shape::default();
        let mut x = 0;
        while x < len {
            s.fill(p(x, 0, 0), p(x, 1, 0), pillar);
            s.fill(p(x, 0, 2), p(x, 1, 2), pillar);
            x += 4;
        }
        s.fill(p(0, 2, 0), p(len - 1, 2, 2), deck);
        s.fill(p(0, 3, 0), p(len - 1, 3, 0), rail);
        s.fill(p(0, 3, 2), p(len - 1, 3, 2), rail);
        v.push(s.done(name, "bridge"));
    }
    v
}

/// Stepped pyramids, solid.
pub fn pyramids() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, base, blocks) in [
        ("pyramid-5", 5, ["cobblestone", "stone_bricks", "cobblestone", "stone_bricks", "cobblestone"]),
        ("pyramid-7", 7, ["stone_bricks", "cobblestone", "stone_bricks", "cobblestone", "stone_bricks"]),
        ("pyramid-9", 9, ["oak_planks", "cobblestone", "oak_planks", "cobblestone", "glass"]),
        ("pyramid-9b", 9, ["bricks", "stone_bricks", "bricks", "stone_bricks", "glass"]),
    ] {
        let mut s = Shape::default();
        let mut layer = 0;
        while base - 2 * layer > 0 {
            let (lo, hi) = (layer, base - 1 - layer);
            s.fill(p(lo, layer, lo), p(hi, layer, hi), blocks[layer as usize % blocks.len()]);
            layer += 1;
        }
        v.push(s.done(name, "pyramid"));
    }
    v
}

/// Fenced farm plots with a gate, a composter and torches.
pub fn farms() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, w, d) in [("farm-small", 6, 5), ("farm-wide", 10, 6), ("farm-long", 14, 5), ("farm-square", 9, 9)] {
        let mut s = Shape::default();
        s.walls(p(0, 0, 0), p(w - 1, 0, d - 1), "oak_fence");
        s.set(p(w / 2, 0, 0), "oak_fence_gate");
        s.set(p(1, 0, 1), "composter");
        s.set(p(0, 1, 0), "torch");
        s.set(p(w - 1, 1, d - 1), "torch");
        v.push(s.done(name, "farm"));
    }
    v
}

/// A doorway gated by redstone: a frame, a door, a lever, dust and a repeater.
pub fn redstone() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, frame, run) in [
        ("redstone-door", "stone_bricks", 3),
        ("redstone-door-long", "cobblestone", 6),
        ("redstone-gate-wall", "stone_bricks", 8),
        ("redstone-porch", "oak_planks", 4),
    ] {
        let mut s = Shape::default();
        s.fill(p(0, 0, 0), p(4, 3, 0), frame);
        s.set(p(2, 1, 0), "air");
        s.set(p(2, 0, 0), "oak_door");
        s.fill(p(0, 0, 1), p(0, 0, run + 1), frame);
        s.set(p(1, 0, 1), "redstone_wire");
        s.set(p(1, 0, 2), "repeater");
        for z in 3..=run + 1 {
            s.set(p(1, 0, z), "redstone_wire");
        }
        s.set(p(0, 1, run + 1), "lever");
        s.set(p(0, 2, 0), "redstone_torch");
        v.push(s.done(name, "redstone"));
    }
    v
}

/// Single-layer floors with a border.
pub fn platforms() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, w, d, floor, border) in [
        ("platform-5", 5, 5, "oak_planks", "cobblestone"),
        ("platform-7", 7, 7, "stone_bricks", "cobblestone"),
        ("platform-6x8", 6, 8, "oak_planks", "oak_log"),
        ("platform-8", 8, 8, "cobblestone", "stone_bricks"),
    ] {
        let mut s = Shape::default();
        s.fill(p(0, 0, 0), p(w - 1, 0, d - 1), floor);
        s.walls(p(0, 0, 0), p(w - 1, 0, d - 1), border);
        v.push(s.done(name, "platform"));
    }
    v
}

/// Arches and gateways: two pillars and a lintel, with stairs or slabs on top.
pub fn arches() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, span, h, block, cap) in [
        ("arch-small", 3, 3, "stone_bricks", "cobblestone_slab"),
        ("arch-wide", 6, 4, "cobblestone", "cobblestone_stairs"),
        ("arch-planks", 4, 3, "oak_planks", "oak_stairs"),
        ("arch-double", 8, 4, "stone_bricks", "oak_slab"),
    ] {
        let mut s = Shape::default();
        s.fill(p(0, 0, 0), p(1, h - 1, 1), block);
        s.fill(p(span + 2, 0, 0), p(span + 3, h - 1, 1), block);
        s.fill(p(0, h, 0), p(span + 3, h, 1), block);
        s.fill(p(0, h + 1, 0), p(span + 3, h + 1, 0), cap);
        v.push(s.done(name, "arch"));
    }
    v
}

/// Walled courtyards: a ring of walls with a gate, the largest templates.
pub fn courtyards() -> Vec<Template> {
    let mut v = Vec::new();
    for (name, w, h, block) in [
        ("courtyard-12", 12, 2, "cobblestone"),
        ("courtyard-16", 16, 3, "stone_bricks"),
        ("courtyard-20", 20, 3, "cobblestone"),
        ("courtyard-26", 26, 4, "stone_bricks"),
    ] {
        let mut s = Shape::default();
        s.walls(p(0, 0, 0), p(w - 1, h - 1, w - 1), block);
        for y in 0..h {
            s.set(p(w / 2, y, 0), "air");
            s.set(p(w / 2 - 1, y, 0), "air");
        }
        s.set(p(0, h, 0), "torch");
        s.set(p(w - 1, h, w - 1), "torch");
        v.push(s.done(name, "courtyard"));
    }
    v
}
