//! Stepping off a pillar onto the structure: the middle of a wide roof is out of reach
//! of every column a pillar can stand in, but within reach of the roof itself. A bot
//! on its pillar walks onto built, standable blocks, places from there, and walks back
//! to its pillar's top before digging it down; a pillar may be put up for that alone
//! (its top beside the structure). The walk keeps to cells the blueprint leaves empty,
//! so nothing the bot places while away cuts its way back.

use gatecrew_protocol::Pos;
use gatecrew_world::reach_distance;
use gatecrew_world::scaffold::{self, Pillar, Site};

use super::OwnPillar;
use crate::agent::AgentCore;
use crate::plan::NodeId;

/// Standing cells looked at in one walk search: a roof of 40 x 40 cells, many times
/// the structures of the external tasks (the largest footprint, MineCollab's human-AI
/// church, is 12 x 10 over 15 levels).
const WALK_LIMIT: usize = 1600;

/// Standing cells looked at to decide whether a cell on the structure leads off it:
/// enough for a floor of 20 x 20 behind its door.
const GROUND_LIMIT: usize = 400;

/// Feet at this height or higher: a walk off a pillar stays on the structure (a bot on
/// the ground walks like any walker, and digs its pillar down first).
const MIN_FEET: i32 = 1;

impl OwnPillar {
    /// Where the agent's feet are on top of the pillar.
    pub(super) fn top(&self) -> Option<Pos> {
        self.blocks.last().map(|(p, _)| p.up())
    }
}

impl AgentCore {
    /// Standing cells the agent knows it can walk between, from `from`.
    fn known_walks(&self, from: &[Pos]) -> Vec<Pos> {
        let solid = |p: Pos| self.known_solid(p);
        let free = |p: Pos| self.known_free(p);
        scaffold::walks(from, &Site { solid: &solid, free: &free }, MIN_FEET, WALK_LIMIT)
    }

    /// Cells within reach of `pos` where feet could be, high enough to be on the
    /// structure; [`scaffold::walks`] keeps the standable ones.
    fn spots_for(&self, pos: Pos) -> Vec<Pos> {
        let range = self.ctx.physics.reach - 0.5;
        let mut v = Vec::new();
        for dy in -6..=1 {
            for dx in -4..=4 {
                for dz in -4..=4 {
                    let p = pos.offset(dx, dy, dz);
                    if p.y >= MIN_FEET && reach_distance(p, pos) <= range {
                        v.push(p);
                    }
                }
            }
        }
        v
    }

    /// Whether a walk leads from `p` (feet on the structure) to a cell off it: the
    /// ground, terrain or a scaffold. A floor behind a door does; a roof does not.
    pub(super) fn grounded(&self, p: Pos) -> bool {
        let solid = |q: Pos| self.known_solid(q);
        let free = |q: Pos| self.known_free(q);
        let off = |c: Pos| !self.on_structure(c);
        scaffold::walk_to(&[p], &Site { solid: &solid, free: &free }, 0, GROUND_LIMIT, &off).is_some()
    }

    /// A pillar whose top is beside the structure, from which a walk on the structure
    /// gets within reach of `pos`: for a cell no column reaches.
    pub(super) fn access_pillar(&self, pos: Pos) -> Option<Pillar> {
        let region = self.known_walks(&self.spots_for(pos));
        let solid = |p: Pos| self.known_solid(p);
        let free = |p: Pos| self.base_free(p);
        scaffold::access(&region, &Site { solid: &solid, free: &free })
    }

    /// From the pillar (or the structure beside it), a standing cell within reach of
    /// `pos` to walk to; each node gets one walk per pillar, so a walk that does not
    /// get there ends in the pillar coming down rather than in a loop.
    pub(super) fn walk_off(&self, s: &mut OwnPillar, n: NodeId, pos: Pos) -> Option<Pos> {
        if s.walked.contains(&n) {
            return None;
        }
        let range = self.ctx.physics.reach - 0.5;
        let solid = |p: Pos| self.known_solid(p);
        let free = |p: Pos| self.known_free(p);
        let near = |c: Pos| c != self.pos && reach_distance(c, pos) <= range;
        let spot = scaffold::walk_to(&[self.pos], &Site { solid: &solid, free: &free }, MIN_FEET, WALK_LIMIT, &near)?;
        s.walked.push(n);
        Some(spot)
    }
}
