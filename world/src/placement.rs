//! Minecraft's placement rule, shared by the world (which enforces it), the blueprint
//! loader (which orders cells by it) and the planners (which choose where to stand and
//! what to lean a block against).
//!
//! A block goes into an empty cell when some neighbouring cell holds a block to place it
//! against: any of the six faces for most blocks (the ground below `y = 0` counts),
//! only the cell below for blocks that fall (sand, gravel, concrete powder), and only
//! their own support face for attached blocks (torches, doors, ladders, buttons,
//! carpets...). Which rule a block follows comes from the game data
//! ([`BlockInfo::gravity`](crate::data::BlockInfo), [`Attach`]), never from its name.

use gatecrew_protocol::Pos;

use crate::data::{Attach, BlockInfo};
use crate::state::{BlockState, Facing};

/// The neighbouring cells one of which must hold a block for `info` (placed with
/// `state`) to go into `pos`, in the fixed order of [`Pos::neighbours`] where the rule
/// allows several.
pub fn anchors(info: &BlockInfo, state: &BlockState, pos: Pos) -> Vec<Pos> {
    if info.gravity {
        return vec![pos.down()];
    }
    let behind = |f: Option<Facing>| match f {
        Some(f @ (Facing::North | Facing::South | Facing::East | Facing::West)) => vec![step(pos, f, -1)],
        // A wall block whose facing the blueprint leaves open may hang on any side.
        _ => pos.neighbours()[2..].to_vec(),
    };
    match info.attach {
        Attach::Any | Attach::Face => pos.neighbours().to_vec(),
        // A torch item placed against a wall becomes a wall torch.
        Attach::Below if info.wall_mount => {
            [pos.down()].into_iter().chain(pos.neighbours()[2..].iter().copied()).collect()
        }
        Attach::Below => vec![pos.down()],
        Attach::Behind => behind(state.facing),
        Attach::Hang => vec![pos.down(), pos.up()],
    }
}

/// One step from `p` along `f` (`sign` -1: against it).
fn step(p: Pos, f: Facing, sign: i32) -> Pos {
    let (dx, dy, dz) = match f {
        Facing::North => (0, 0, -1),
        Facing::South => (0, 0, 1),
        Facing::East => (1, 0, 0),
        Facing::West => (-1, 0, 0),
        Facing::Up => (0, 1, 0),
        Facing::Down => (0, -1, 0),
    };
    p.offset(dx * sign, dy * sign, dz * sign)
}

/// Whether a block of kind `info` may go into `pos` given which cells hold a block now
/// (`holds(p)` is true for the ground below `y = 0`).
pub fn can_place(info: &BlockInfo, state: &BlockState, pos: Pos, holds: &dyn Fn(Pos) -> bool) -> bool {
    anchors(info, state, pos).into_iter().any(holds)
}

/// Whether a block of kind `info` may serve as a temporary scaffold block: a full block
/// that stays where it is put against any face, breaks without a tool requirement the
/// bot lacks (checked by the caller) and is no station or container.
pub fn scaffold_capable(info: &BlockInfo) -> bool {
    info.item.is_some()
        && info.solid
        && !info.passable
        && !info.gravity
        && info.attach == Attach::Any
        && info.height == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::BlockId;

    fn info(gravity: bool, attach: Attach) -> BlockInfo {
        BlockInfo {
            name: "x".into(),
            item: None,
            hardness: Some(1.0),
            tool: None,
            needs: None,
            drops: vec![],
            solid: true,
            passable: false,
            height: 1,
            gravity,
            attach,
            wall_mount: false,
        }
    }

    #[test]
    fn ordinary_blocks_lean_on_any_face_falling_blocks_only_below() {
        let p = Pos::new(3, 4, 5);
        let side = |q: Pos| q == Pos::new(4, 4, 5);
        let s = BlockState::default();
        assert!(can_place(&info(false, Attach::Any), &s, p, &side));
        assert!(!can_place(&info(true, Attach::Any), &s, p, &side), "sand needs a block below");
        assert!(can_place(&info(true, Attach::Any), &s, p, &|q| q == p.down()));
        assert!(!can_place(&info(false, Attach::Below), &s, p, &side), "a torch stands on the block below");
        let _ = BlockId::AIR;
    }

    #[test]
    fn wall_blocks_hang_on_the_face_behind_them() {
        let p = Pos::new(0, 2, 0);
        let s = BlockState { facing: Some(Facing::North), ..Default::default() };
        // Facing north, it is fixed to the block on its south side.
        assert_eq!(anchors(&info(false, Attach::Behind), &s, p), vec![Pos::new(0, 2, 1)]);
        assert_eq!(anchors(&info(false, Attach::Behind), &BlockState::default(), p).len(), 4);
        assert_eq!(anchors(&info(false, Attach::Hang), &s, p), vec![p.down(), p.up()]);
    }
}
