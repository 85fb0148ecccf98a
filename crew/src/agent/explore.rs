//! Exploration as the last resort: a bot knows the world only
//! from what it has seen, so when the board failed an item and no route to it is known,
//! it goes and looks before giving the item up, as a player would.
//!
//! It explores only when nothing else is left: the board failed the item and the
//! fallback's longer search found no route ([`FALLBACK_REACH`]), no node of its own can
//! be worked on, no window of its own is open, no hand-over is owed, no recovery runs
//! and no verdict is awaited. Blockers that wait for teammates (`dependency_blocked`)
//! never start it: walking away does not bring a teammate's block.
//!
//! The walk is a fixed pattern: square rings of waypoints around the centre of the
//! bot's share (where the items are needed, so the nearest source found is the cheapest
//! to bring back), one view radius (`Rules::sight`) apart, clipped to the world's
//! bounds, inner rings first and within a ring the nearest waypoint next. With that
//! spacing every cell of the covered square is within 0.71 of a view radius of some
//! waypoint, and neighbouring views overlap by half. After every walk the bot has
//! looked around (it observes after every action); it then plans again with the
//! fallback's budget over what it now knows, and as soon as a route exists it starts
//! the recovery exactly as the fallback would have (a second `fallback` line, now
//! `LOCAL_RECOVER`, with the cause the board failed for).
//!
//! Bounded: a bot walks at most the fallback's budget while exploring, in the episode
//! (`search_ticks` x [`FALLBACK_REACH`], 2,400 ticks or 480 blocks at the defaults: the
//! same cost DESIGN 5.5's last resort may spend on one long local chain), and a walk is
//! started only if its straight-line cost still fits. When the budget or the pattern
//! runs out the blocker stays held, as it is when there is nothing to explore, and the
//! end-of-episode report says what was searched.

use gatecrew_protocol::trace::{FallbackCause, GateAction};
use gatecrew_protocol::{IssueId, ItemId, Pos};
use gatecrew_world::cost::Planner;
use gatecrew_world::{Action, Outcome};

use super::board::{FALLBACK_REACH, SEEK_RANGE};
use super::{AgentCore, Blocker, Note, StepOutput};

/// An item the board failed and no known local route obtains: what exploring is for.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unsourced {
    /// The escalated issue the board failed.
    issue: IssueId,
    /// Why the board failed it (repeated on the `fallback` line when a source is found).
    cause: FallbackCause,
    /// How many the bot must hold.
    want: u32,
}

/// Why an exploration stopped without a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// Every waypoint was visited.
    Exhausted,
    /// The next walk would have gone over the budget.
    Budget,
}

/// The bot's exploration: one per episode, shared by every unsourced item.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Exploration {
    /// Waypoints not visited yet, with their ring.
    left: Vec<(u32, Pos)>,
    /// Waypoints walked to.
    visited: u32,
    /// Ticks walked while exploring, and the most it may walk.
    spent: u64,
    budget: u64,
    /// A walk of the pattern just completed: plan again once the view is in.
    looked: bool,
    stopped: Option<Stop>,
    /// After a search that found nothing, the bot walked back to its share (once).
    home: bool,
}

/// The pattern: rings `0..` of the square lattice of spacing `step` around `centre`,
/// each point clamped into `bounds` (duplicates dropped), out to the ring that covers
/// the bounds; without bounds, out to the ring the budget can still reach.
fn waypoints(centre: Pos, step: i32, bounds: Option<(Pos, Pos)>, max_ring: i32) -> Vec<(u32, Pos)> {
    let rings = match bounds {
        Some((lo, hi)) => {
            let far = (centre.x - lo.x).max(hi.x - centre.x).max(centre.z - lo.z).max(hi.z - centre.z).max(0);
            (far + step - 1) / step
        }
        None => max_ring,
    };
    let mut out: Vec<(u32, Pos)> = Vec::new();
    for k in 0..=rings {
        for i in -k..=k {
            for j in -k..=k {
                if i.abs().max(j.abs()) != k {
                    continue;
                }
                let mut p = Pos::new(centre.x + i * step, 0, centre.z + j * step);
                if let Some((lo, hi)) = bounds {
                    p = Pos::new(p.x.clamp(lo.x, hi.x), 0, p.z.clamp(lo.z, hi.z));
                }
                if !out.iter().any(|(_, q)| *q == p) {
                    out.push((k as u32, p));
                }
            }
        }
    }
    out
}

impl AgentCore {
    /// The fallback set `item` aside with no known route: remember it for exploring.
    pub(super) fn unsourced(&mut self, item: ItemId, issue: IssueId, cause: FallbackCause, want: u32) {
        self.blocker.unsourced.insert(item, Unsourced { issue, cause, want });
    }

    /// Whether `item`'s nodes wait for the exploration (not revisited meanwhile: the
    /// exploration is the revisit).
    pub(super) fn explores_for(&self, item: ItemId) -> bool {
        // Not once the items came some other way: the node is placeable again.
        let open =
            self.blocker.unsourced.get(&item).is_some_and(|u| {
                self.blocker.issues.contains_key(&Blocker::Item(item)) && self.inv.count(item) < u.want
            });
        open && self.blocker.explore.as_ref().is_none_or(|e| e.stopped.is_none())
    }

    /// The fallback's planning budget, which is also the exploration's walking budget.
    fn fallback_budget(&self) -> u64 {
        self.gate.params().spec().search_ticks.saturating_mul(FALLBACK_REACH)
    }

    /// Unsourced items whose blocker still stands, in item order (the others are
    /// forgotten: the items came some other way).
    fn still_unsourced(&mut self) -> Vec<ItemId> {
        let inv = &self.inv;
        let issues = &self.blocker.issues;
        self.blocker
            .unsourced
            .retain(|item, u| issues.contains_key(&Blocker::Item(*item)) && inv.count(*item) < u.want);
        self.blocker.unsourced.keys().copied().collect()
    }

    /// After a walk of the pattern, with the new view folded in: the first unsourced item
    /// a route now obtains goes to the local solver, as the fallback would have sent it.
    /// Returns whether a recovery started.
    pub(super) fn explore_found(&mut self, out: &mut StepOutput) -> bool {
        let Some(e) = self.blocker.explore.as_mut().filter(|e| e.looked) else {
            return false;
        };
        e.looked = false;
        if self.blocker.recovery.is_some() {
            return false;
        }
        let budget = self.fallback_budget();
        for item in self.still_unsourced() {
            let u = self.blocker.unsourced[&item].clone();
            let k = self.known_for(Some(item));
            if Planner::new(&k, budget).obtain(item, u.want).is_none() {
                continue;
            }
            self.blocker.unsourced.remove(&item);
            out.notes.push(Note::Fallback { id: u.issue, action: GateAction::LocalRecover, cause: u.cause });
            self.start_recovery(item, u.want, u.issue, budget);
            return true;
        }
        false
    }

    /// The next walk of the exploration, when the bot has nothing else to do. `Err(())`
    /// when the exploration just stopped (its items' nodes are revisited as any held
    /// item's are: the caller looks at the build once more); `Ok(None)` when it does
    /// not explore now.
    pub(super) fn explore_next(&mut self) -> Result<Option<Action>, ()> {
        let busy = !self.blocker.awaiting.is_empty()
            || !self.work.handovers.is_empty()
            || self.blocker.recovery.is_some()
            || !self.blocker.parked.is_empty()
            || self.waits_on_channel();
        if busy {
            return Ok(None);
        }
        if let Some(e) = self.blocker.explore.as_mut().filter(|e| e.stopped.is_some()) {
            // A search that found nothing ends where a player's would: back at the work,
            // among the teammates it may ask again (out there, nobody is in view: A is 0,
            // and a revisit scores lower).
            if e.home {
                return Ok(None);
            }
            e.home = true;
            let centre = self.region_of(self.id);
            let target = Pos::new(centre.x, self.pos.y, centre.z);
            return Ok((self.pos.dist(target) > SEEK_RANGE).then_some(Action::MoveTo { target, range: SEEK_RANGE }));
        }
        let items = self.still_unsourced();
        if items.is_empty() {
            return Ok(None);
        }
        let per_block = self.ctx.physics.ticks.move_per_block.max(1);
        let budget = self.fallback_budget();
        let step = self.ctx.physics.sight.max(1);
        if self.blocker.explore.is_none() {
            let centre = self.region_of(self.id);
            let max_ring = (budget / (per_block * step as u64)).min(64) as i32;
            let bounds = self.ctx.physics.bounds.map(|b| (b.min, b.max));
            let left = waypoints(centre, step, bounds, max_ring);
            self.blocker.explore =
                Some(Exploration { left, visited: 0, spent: 0, budget, looked: false, stopped: None, home: false });
        }
        let here = self.pos;
        let e = self.blocker.explore.as_mut().expect("set above");
        loop {
            // Inner ring first; in it, the nearest waypoint (then the lowest position).
            let Some(i) = (0..e.left.len()).min_by_key(|&i| {
                let (ring, p) = e.left[i];
                (ring, Pos::new(p.x, here.y, p.z).dist_sq(here), p)
            }) else {
                e.stopped = Some(Stop::Exhausted);
                break;
            };
            let (_, p) = e.left[i];
            // Looked at from close enough already (it stands within half a view of it).
            let (dx, dz) = ((p.x - here.x).abs(), (p.z - here.z).abs());
            if 2 * dx.max(dz) <= step {
                e.left.swap_remove(i);
                continue;
            }
            // A walk is started only if its straight-line cost (4-connected steps, less
            // the range it stops short by) still fits in the budget.
            let blocks = (dx + dz) as u64;
            let cost = blocks.saturating_sub(SEEK_RANGE as u64) * per_block;
            if e.spent + cost > e.budget {
                e.stopped = Some(Stop::Budget);
                break;
            }
            e.left.swap_remove(i);
            return Ok(Some(Action::MoveTo { target: p, range: SEEK_RANGE }));
        }
        // Stopped: the items stay held (the report says what was searched).
        Err(())
    }

    /// A walk of the pattern ended (arrived or not): its ticks count, and the bot looks.
    pub(super) fn explore_outcome(&mut self, o: &Outcome) {
        // The walk home is not part of the search.
        if let Some(e) = self.blocker.explore.as_mut().filter(|e| !e.home) {
            e.spent += o.ticks;
            e.visited += 1;
            e.looked = true;
        }
    }

    /// What the exploration did, for the report of an item still unsourced at the end
    /// (`None`: the bot never explored for it).
    pub(super) fn explored_why(&self, item: ItemId) -> Option<String> {
        let e = self.blocker.explore.as_ref().filter(|_| self.blocker.unsourced.contains_key(&item))?;
        let how = match e.stopped {
            Some(Stop::Exhausted) => "explored the whole pattern",
            Some(Stop::Budget) => "explored until its walking budget ran out",
            None => "was still exploring",
        };
        Some(format!("{how} ({} waypoints, {} of {} ticks walked) without finding one", e.visited, e.spent, e.budget))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_go_outward_and_stay_in_bounds() {
        let bounds = (Pos::new(-20, 0, -10), Pos::new(40, 8, 10));
        let w = waypoints(Pos::new(0, 0, 0), 16, Some(bounds), 0);
        assert_eq!(w[0], (0, Pos::new(0, 0, 0)));
        assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "rings in order");
        assert!(w.iter().all(|(_, p)| (-20..=40).contains(&p.x) && (-10..=10).contains(&p.z)));
        // Out to the ring that covers x = 40 (three rings of 16), clamped, no duplicates.
        assert_eq!(w.last().map(|(r, _)| *r), Some(3));
        let mut ps: Vec<Pos> = w.iter().map(|(_, p)| *p).collect();
        ps.sort();
        ps.dedup();
        assert_eq!(ps.len(), w.len());
        assert!(ps.contains(&Pos::new(40, 0, 10)));
    }

    #[test]
    fn without_bounds_the_budget_limits_the_rings() {
        let w = waypoints(Pos::new(5, 0, 5), 16, None, 2);
        assert_eq!(w.len(), 25);
        assert!(w.contains(&(2, Pos::new(37, 0, -27))));
    }
}
