//! The rollout oracle (DESIGN sections 3 and 8): at an escalation, could the agent have
//! got the items alone, and how fast? The world is cloned at the decision tick and the
//! local solver is rolled out on the clone with full knowledge of it: the victim alone
//! acts (teammates stand still, their actions in flight are the episode's, not the
//! world's), real actions are priced by [`World::begin`] and applied by
//! [`World::complete`], and the answer is the ticks it took to hold the count, or
//! `None` when the largest budget ran out first. The trace records it beside the gate
//! decision; no agent ever sees it.
//!
//! **Why a driver of its own, not a second [`crate::agent::AgentCore`].** The agent's
//! solver (`agent/recover.rs`) is entangled with the rest of the agent: its task graph
//! (the plan's state as the agent believes it), its board (a missing tool is an issue
//! gated of its own, which may be escalated), its memory. The episode core does not
//! even hold the agents' cores under the actor runtime. So the rollout drives the same
//! *decisions* the agent's solver makes, from shared code: the alternatives of an
//! `obtain` OR ranked by the cost planner ([`ranked`], the agent's own ranking, priced
//! routes only, at most four), laid out by [`Way::parts`] (ingredients, then a station,
//! then the work), and each task turned into an action the way the agent's `task_step`
//! does (walk into reach, then withdraw, pick up, mine, craft, smelt or place a
//! station). Where it differs it is on purpose: the knowledge is the world's
//! ([`gatecrew_world::oracle::Omniscient`]), the plan is re-derived after every
//! verified outcome (receding horizon: with full knowledge the cheapest route is known
//! at every step, so no plan state has to be kept), a tool is obtained locally instead
//! of being put to the gate, and a source an action failed at is left out of the next
//! plan. Injected faults are off on the clone: the oracle answers whether a local route
//! exists, not whether this draw of the fault stream would have let it through.
//!
//! Deterministic: a clone of a deterministic world, walked in a fixed order, with no
//! random draw.

use std::collections::BTreeSet;

use gatecrew_protocol::{AgentId, ItemId, Pos};
use gatecrew_world::cost::{Knowledge, Planner};
use gatecrew_world::oracle::Omniscient;
use gatecrew_world::{Action, BlockId, Blueprint, ContainerKind, World, reach_distance};

use crate::plan::Task;
use crate::plan::obtain::{Alternative, Extras, Part, Rank, Way, ranked};

/// The budgets UER is reported at, in ticks (DESIGN section 8); the rollout runs to the
/// largest.
pub const BUDGETS: [u64; 4] = gatecrew_protocol::metrics::UER_BUDGETS;

/// Alternatives ranked per `obtain` node: the agent's `MAX_ALTERNATIVES` (recover.rs).
const MAX_ALTERNATIVES: usize = 4;
/// Nested `obtain` depth: the agent's default `AgentTuning::max_obtain_depth`.
const MAX_DEPTH: usize = 4;
/// Actions a rollout may take at most, whatever they cost: every action costs at least
/// a tick, so the budget bounds the loop already; this bounds it for a huge budget.
const MAX_ACTIONS: usize = 2_400;
/// A station farther than this is not walked to when one can be placed: the agent's
/// rule (`task_step`'s 24 blocks).
const STATION_WALK: f64 = 24.0;

/// Ticks the local solver, knowing the whole world, takes from now for `agent` to hold
/// `count` of `item`, acting alone on a clone of `world`; `None` when it does not get
/// there within `budget` ticks. `world` is not changed.
pub fn rollout(
    world: &World,
    blueprint: &Blueprint,
    agent: AgentId,
    item: ItemId,
    count: u32,
    budget: u64,
) -> Option<u64> {
    let mut w = world.clone();
    w.set_failure_rate(0.0);
    w.set_path_blocks(0.0, BlockId::AIR);
    let mut avoid: BTreeSet<Pos> = BTreeSet::new();
    let mut spent = 0u64;
    for _ in 0..MAX_ACTIONS {
        if w.body(agent)?.inventory.count(item) >= count {
            return Some(spent);
        }
        let left = budget.checked_sub(spent)?;
        let action = {
            let k = w.omniscient(agent, Some(&avoid))?;
            let s = Solver { k: &k, world: &w, blueprint, budget: left };
            match s.next(item, count, 0) {
                Step::Act(a) => a,
                Step::Done | Step::Stuck => return None,
            }
        };
        let pending = w.begin(agent, action);
        spent = spent.saturating_add(pending.ticks);
        if spent > budget {
            return None;
        }
        let (outcome, _) = w.complete(agent, pending);
        if outcome.result.is_err() {
            // Re-plan without the source it failed at (a craft or a walk to nowhere
            // has none: the budget ends a loop on those).
            avoid.extend(target_of(&action));
        }
    }
    None
}

/// The position an action depends on, if one.
fn target_of(a: &Action) -> Option<Pos> {
    match *a {
        Action::MoveTo { target, .. } => Some(target),
        Action::Mine { pos } | Action::PickUp { pos } | Action::Place { pos, .. } => Some(pos),
        Action::Withdraw { chest, .. } | Action::Deposit { chest, .. } => Some(chest),
        Action::Smelt { furnace, .. } => Some(furnace),
        Action::Craft { .. } | Action::Give { .. } | Action::Drop { .. } => None,
    }
}

/// What to do for one node.
enum Step {
    Act(Action),
    Done,
    Stuck,
}

/// One planning pass over the current state of the clone.
struct Solver<'a> {
    k: &'a Omniscient<'a>,
    world: &'a World,
    blueprint: &'a Blueprint,
    budget: u64,
}

impl Solver<'_> {
    fn held(&self, item: ItemId) -> u32 {
        self.k.held(item)
    }

    /// The next action towards holding `target` of `item`: the first alternative, in
    /// the planner's order, that has one.
    fn next(&self, item: ItemId, target: u32, depth: usize) -> Step {
        if self.held(item) >= target {
            return Step::Done;
        }
        if depth > MAX_DEPTH {
            return Step::Stuck;
        }
        let deficit = target - self.held(item);
        let alts = {
            let mut p = Planner::new(self.k, self.budget);
            ranked(self.k, &mut p, item, deficit, MAX_ALTERNATIVES, |q| q.price().map(Rank::priced))
        };
        let data = self.k.data();
        for Alternative { way, fuel, .. } in alts {
            // A tool is obtained first only when none that would do is held.
            let tool = match way {
                Way::Mine(block) => data.block_info(block).needs.and_then(|need| {
                    let tools = data.tools_satisfying(need);
                    (!tools.iter().any(|t| self.held(*t) > 0)).then(|| tools.first().copied()).flatten()
                }),
                _ => None,
            };
            let extras = Extras { table: self.k.table_item(), furnace: self.k.furnace_item(), tool, fuel };
            if let Some(a) = self.alternative(way.parts(data, item, deficit, extras, |_| 0), target, depth) {
                return Step::Act(a);
            }
        }
        Step::Stuck
    }

    /// The next action of one alternative, its parts in order; `None` when it is stuck.
    fn alternative(&self, parts: Vec<Part>, target: u32, depth: usize) -> Option<Action> {
        for part in parts {
            let step = match part {
                Part::Obtain { item, count } => self.next(item, count, depth + 1),
                Part::Station { item } => self.station(item, depth),
                Part::Work(task) => self.task(task, target),
            };
            match step {
                Step::Act(a) => return Some(a),
                Step::Done => {}
                Step::Stuck => return None,
            }
        }
        None
    }

    fn here(&self) -> Pos {
        self.k.here()
    }

    fn in_reach(&self, p: Pos) -> bool {
        reach_distance(self.here(), p) <= self.k.reach()
    }

    fn approach(&self, p: Pos) -> Step {
        Step::Act(Action::MoveTo { target: p, range: self.k.reach() - 0.5 })
    }

    /// A crafting table or furnace in reach: walk to a near one, else place one held.
    fn station(&self, item: ItemId, depth: usize) -> Step {
        let kind = if Some(item) == self.k.table_item() { ContainerKind::Table } else { ContainerKind::Furnace };
        let known = if kind == ContainerKind::Table { self.k.table() } else { self.k.furnace() };
        if let Some(p) = known {
            if self.in_reach(p) {
                return Step::Done;
            }
            if p.dist(self.here()) <= STATION_WALK || self.held(item) == 0 {
                return self.approach(p);
            }
        }
        if self.held(item) == 0 {
            return self.next(item, 1, depth + 1);
        }
        self.free_spot().map_or(Step::Stuck, |spot| Step::Act(Action::place(spot, item)))
    }

    /// A free cell next to the bot, on the ground or on a block, not in the blueprint
    /// (the agent's `free_spot_near`, read from the world instead of its memory).
    fn free_spot(&self) -> Option<Pos> {
        let here = self.here();
        let air = |p: Pos| self.world.grid().bounds().contains(p) && self.world.block_at(p) == BlockId::AIR;
        [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]
            .into_iter()
            .map(|(dx, dz)| here.offset(dx, 0, dz))
            .find(|p| {
                air(*p)
                    && air(p.up())
                    && (p.y == 0 || !air(p.down()))
                    && self.blueprint.index_of(*p).is_none()
                    && (0..self.world.agent_count())
                        .all(|i| self.world.body(AgentId(i as u32)).is_none_or(|b| b.pos != *p && b.pos != p.up()))
            })
    }

    /// The agent's `task_step` on full knowledge.
    fn task(&self, task: Task, target: u32) -> Step {
        match task {
            Task::Fetch { item } => {
                let have = self.held(item);
                if have >= target {
                    return Step::Done;
                }
                let mut stores = self.k.stored(item);
                stores.sort_by_key(|(p, _)| (p.dist_sq(self.here()), *p));
                let Some(&(p, n)) = stores.first() else { return Step::Stuck };
                if !self.in_reach(p) {
                    return self.approach(p);
                }
                if self.world.dropped().contains_key(&p) {
                    Step::Act(Action::PickUp { pos: p })
                } else {
                    Step::Act(Action::Withdraw { chest: p, item, count: n.min(target - have) })
                }
            }
            Task::Craft { recipe } => {
                let r = self.k.data().recipe(recipe);
                let have = self.held(r.result);
                if have >= target {
                    return Step::Done;
                }
                let times = (target - have).div_ceil(r.count.max(1));
                if r.ingredients.iter().any(|(i, n)| self.held(*i) < n.saturating_mul(times)) {
                    return Step::Stuck;
                }
                Step::Act(Action::Craft { recipe, times })
            }
            Task::Collect { item, block } => {
                if self.held(item) >= target {
                    return Step::Done;
                }
                let Some(p) = self.k.nearest_resource(block) else { return Step::Stuck };
                if self.in_reach(p) { Step::Act(Action::Mine { pos: p }) } else { self.approach(p) }
            }
            Task::Smelt { input, output } => {
                let have = self.held(output);
                if have >= target {
                    return Step::Done;
                }
                let Some(f) = self.k.furnace() else { return Step::Stuck };
                if !self.in_reach(f) {
                    return self.approach(f);
                }
                let count = self.held(input).min(target - have);
                let fuel = self.k.data().fuels().into_iter().find(|(i, _)| self.held(*i) > 0).map(|(i, _)| i);
                match (count, fuel) {
                    (0, _) | (_, None) => Step::Stuck,
                    (count, Some(fuel)) => Step::Act(Action::Smelt { furnace: f, input, count, fuel }),
                }
            }
            Task::Station { item } => self.station(item, MAX_DEPTH),
            Task::Place { .. } => Step::Stuck,
        }
    }
}

#[cfg(test)]
mod tests;
