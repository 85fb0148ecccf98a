//! Cancelling an action in flight: a person told the bot to stop. Nothing of a
//! cancelled action happens except the part of a walk already walked: the bot stands
//! at the last cell of its path it reached in the ticks that passed (a cell it may
//! stand on now, not one that still has to be built), a placement, a mining or a
//! craft not yet done leaves the world as it was. No fault is drawn: an interruption
//! is not a completion, so it takes no draw from the world's RNG.

use gatecrew_protocol::{AgentId, Pos};

use super::{Pending, World};
use crate::action::{Action, Failure, Outcome};
use crate::data::BlockId;
use crate::path::Path;

pub(super) fn interrupt(w: &mut World, agent: AgentId, pending: Pending, elapsed: u64) -> Outcome {
    let Pending { action, ticks, path } = pending;
    let ticks = elapsed.min(ticks);
    let Some(start) = w.bodies.get(agent.index()).map(|b| b.pos) else {
        return Outcome { action, ticks, result: Err(Failure::UnknownAgent { agent }) };
    };
    let at = match (&action, &path) {
        (Action::MoveTo { .. }, Some(p)) => reached(w, start, p, ticks),
        _ => start,
    };
    w.bodies[agent.index()].pos = at;
    Outcome { action, ticks, result: Err(Failure::Interrupted { at }) }
}

/// The last cell of the path reached within `elapsed` ticks that the bot may stand on
/// now (the start if none).
fn reached(w: &World, start: Pos, path: &Path, elapsed: u64) -> Pos {
    let cost = w.rules.ticks;
    let unbuilt = |p: Pos| w.keep_clear.contains(&p) && w.grid.get(p) == BlockId::AIR;
    let (mut spent, mut prev, mut at) = (0u64, start, start);
    for &step in &path.steps {
        spent = spent.saturating_add(cost.move_per_block);
        if step.y > prev.y {
            spent = spent.saturating_add(cost.climb);
        }
        if spent > elapsed {
            break;
        }
        prev = step;
        if w.grid.standable(&w.data, step) && !unbuilt(step) && !unbuilt(step.up()) {
            at = step;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::data::GameData;
    use crate::grid::Bounds;
    use crate::world::Rules;

    fn world() -> World {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json"));
        let data = Arc::new(GameData::load(path).expect("game data"));
        let bounds = Bounds { min: Pos::new(-8, 0, -8), max: Pos::new(8, 4, 8) };
        World::new(data, bounds, Rules::default(), 1).expect("a world")
    }

    #[test]
    fn a_cut_walk_ends_at_the_cell_reached() {
        let mut w = world();
        let a = w.add_agent(Pos::new(0, 0, 0), World::agent_inventory());
        let p = w.begin(a, Action::MoveTo { target: Pos::new(6, 0, 0), range: 0.0 });
        assert_eq!(p.ticks, 30, "six blocks at five ticks");
        // 12 ticks: two blocks walked, the third not finished.
        let o = w.interrupt(a, p, 12);
        assert_eq!(o.ticks, 12);
        assert_eq!(o.result, Err(Failure::Interrupted { at: Pos::new(2, 0, 0) }));
        assert_eq!(w.body(a).map(|b| b.pos), Some(Pos::new(2, 0, 0)));
        // Cut before the first step: it has not moved.
        let p = w.begin(a, Action::MoveTo { target: Pos::new(-4, 0, 0), range: 0.0 });
        let o = w.interrupt(a, p, 4);
        assert_eq!(o.result, Err(Failure::Interrupted { at: Pos::new(2, 0, 0) }));
    }

    #[test]
    fn a_cut_placement_or_mining_changes_nothing() {
        let mut w = world();
        let a = w.add_agent(Pos::new(0, 0, 0), World::agent_inventory());
        let stone = w.data().block("stone").expect("stone");
        w.put_natural(Pos::new(1, 0, 0), stone);
        let (grid, census) = (w.grid().clone(), w.item_census());
        let item = w.data().item("stone").expect("stone item");
        for action in [Action::place(Pos::new(0, 0, 1), item), Action::Mine { pos: Pos::new(1, 0, 0) }] {
            let p = w.begin(a, action);
            let o = w.interrupt(a, p, 1);
            assert_eq!(o.result, Err(Failure::Interrupted { at: Pos::new(0, 0, 0) }), "{action:?}");
            assert!(w.grid() == &grid, "{action:?} changed blocks");
            assert_eq!(w.item_census(), census);
        }
    }
}
