//! Blueprints: arbitrary bytes read as blueprint TOML, and as a block-state spec.
//!
//! A blueprint that loads must be well formed (cells sorted and indexed, nothing below
//! the ground, every cell supported by a neighbour one level closer to the ground,
//! two-cell blocks in lower/upper pairs) and must survive a round trip: written back as
//! one `[[block]]` per cell, it loads as the same blueprint. A blueprint that does not
//! load must say so naming the file and a line.

use std::path::Path;

use gatecrew_world::state::parse_block_spec;
use gatecrew_world::{Blueprint, LoadErrorKind, Part};
use serde::Serialize;

use crate::data::game_data;

const PATH: &str = "fuzz.toml";

/// The `blueprint` target.
pub fn blueprint(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    block_spec(text);
    let path = Path::new(PATH);
    match Blueprint::parse(text, path, game_data()) {
        Ok(bp) => {
            check(&bp);
            let again = Blueprint::parse(&write(&bp), path, game_data())
                .unwrap_or_else(|e| panic!("a loaded blueprint written back does not load: {e}"));
            assert_eq!(again, bp, "the blueprint changed through a write and a load");
        }
        Err(e) => {
            assert_eq!(e.file(), path);
            let shown = e.to_string();
            assert!(shown.starts_with(PATH), "the error does not name the file: {shown}");
            if !matches!(e.kind(), LoadErrorKind::Io(_)) {
                assert!(e.line_number().is_some_and(|l| l >= 1), "the error names no line: {shown}");
            }
        }
    }
}

/// `name[key=value, ...]`: what parses prints back to the same name and state.
fn block_spec(text: &str) {
    if let Ok((name, state)) = parse_block_spec(text) {
        let printed = format!("{name}{state}");
        let again = parse_block_spec(&printed).unwrap_or_else(|e| panic!("\"{printed}\" does not parse again: {e}"));
        assert_eq!(again, (name, state), "\"{text}\" printed as \"{printed}\" reads differently");
    }
}

fn check(bp: &Blueprint) {
    let data = game_data();
    let cells = bp.cells();
    assert!(cells.windows(2).all(|w| w[0].pos < w[1].pos), "cells are not sorted by position");
    for (i, c) in cells.iter().enumerate() {
        assert_eq!(bp.index_of(c.pos), Some(i));
        assert!(c.pos.y >= 0, "a cell below the ground: {}", c.pos);
        match c.support {
            None if c.part == Part::Upper => panic!("a top half without its lower half at {}", c.pos),
            // On the ground, or the first cell of a floating part (placed against a
            // temporary scaffold), which comes after every part on the ground.
            None => assert!(c.pos.y == 0 || bp.floats(i, data), "unsupported cell off the ground at {}", c.pos),
            Some(j) => {
                let s = &cells[j];
                assert_eq!(s.pos.dist_sq(c.pos), 1, "{} is supported by {}, not a neighbour", c.pos, s.pos);
                assert_eq!(c.level, s.level + 1, "levels do not count steps from the ground");
                if c.part != Part::Upper {
                    let info = data.block_info(c.block);
                    assert!(
                        gatecrew_world::placement::anchors(info, &c.state, c.pos).contains(&s.pos),
                        "{} is not placed against a face its rule allows",
                        c.pos
                    );
                }
            }
        }
        let tall = data.block_info(c.block).height == 2;
        match c.part {
            Part::Whole => assert!(!tall, "a two-cell block as a whole cell at {}", c.pos),
            Part::Lower => {
                let up = bp.cell_at(c.pos.up()).unwrap_or_else(|| panic!("a lower half without its top at {}", c.pos));
                assert!(up.part == Part::Upper && up.block == c.block, "the cell above a lower half is not its top");
            }
            Part::Upper => {
                let down = bp.cell_at(c.pos.down()).unwrap_or_else(|| panic!("a top half in the air at {}", c.pos));
                assert!(down.part == Part::Lower && down.block == c.block, "a top half over something else");
            }
        }
    }
    let placed = cells.iter().filter(|c| c.part != Part::Upper && data.block_info(c.block).item.is_some()).count();
    assert_eq!(bp.materials(data).values().map(|&n| n as usize).sum::<usize>(), placed);
    if let Some((lo, hi)) = bp.extent() {
        let inside = |p: gatecrew_protocol::Pos| {
            (lo.x..=hi.x).contains(&p.x) && (lo.y..=hi.y).contains(&p.y) && (lo.z..=hi.z).contains(&p.z)
        };
        assert!(cells.iter().all(|c| inside(c.pos)), "a cell outside the extent");
    }
}

#[derive(Serialize)]
struct Out {
    name: String,
    block: Vec<OutBlock>,
}

#[derive(Serialize)]
struct OutBlock {
    at: [i32; 3],
    block: String,
}

/// Every cell as a `[[block]]` entry.
fn write(bp: &Blueprint) -> String {
    let data = game_data();
    let block = bp
        .cells()
        .iter()
        .map(|c| OutBlock { at: c.pos.into(), block: format!("{}{}", data.block_name(c.block), c.state) })
        .collect();
    toml::to_string(&Out { name: bp.name.clone(), block }).expect("a blueprint serializes")
}
