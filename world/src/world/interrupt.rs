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
