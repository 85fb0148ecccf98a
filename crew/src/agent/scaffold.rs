//! Getting within reach of a cell, and giving a floating cell a face to lean on:
//! walk where a standing spot is known, otherwise pillar up on temporary blocks
//! ([`gatecrew_world::scaffold`]). A bot on its pillar places everything it reaches
//! from there, raises or lowers the pillar for the next cell in the same column, and
//! otherwise steps off onto the structure to work from there ([`walk`]) or digs it
//! down block by block (the items come back) before walking on: no scaffold block
//! outlives its use.

mod walk;

use gatecrew_gating::Issue;
use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::scaffold::{self, Pillar, Site};
use gatecrew_world::{Action, BlockId, Failure, Outcome, placement, reach_distance};

use super::build::Next;
use super::{AgentCore, Blocker, Retry, StepOutput};
use crate::plan::{NodeId, NodeState};

/// A pillar of this agent: planned, being raised, or stood on.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct OwnPillar {
    /// The node it is for now.
    node: NodeId,
    /// Where it stands and how high it goes.
    plan: Pillar,
    /// The blocks placed so far, bottom up, with the item each took.
    blocks: Vec<(Pos, ItemId)>,
    /// Nodes the agent walked off this pillar for (one walk each).
    walked: Vec<NodeId>,
}

impl OwnPillar {
    fn new(node: NodeId, plan: Pillar) -> Self {
        OwnPillar { node, plan, blocks: Vec::new(), walked: Vec::new() }
    }
}

impl AgentCore {
    /// Whether the agent has a pillar standing: it is on its top or on the structure
    /// beside it, and walks back to it before it goes anywhere else.
    pub(super) fn on_pillar(&self) -> bool {
        self.work.scaffold.as_ref().is_some_and(|s| !s.blocks.is_empty())
    }

    /// Whether a cell holds a block, as far as the agent knows: the ground, a block it
    /// saw, or a blueprint cell it believes built.
    fn known_solid(&self, p: Pos) -> bool {
        (p.y < 0 && !self.knowledge.mem.is_dug(p))
            || self.knowledge.mem.block(p).is_some()
            || self
                .ctx
                .blueprint
                .index_of(p)
                .and_then(|i| self.work.plan.cell_node(i))
                .is_some_and(|n| self.work.plan.node(n).state == NodeState::Done)
    }

    /// Whether a cell may take a scaffold block or a body: air as far as known and no
    /// blueprint cell.
    fn known_free(&self, p: Pos) -> bool {
        p.y >= 0 && !self.known_solid(p) && self.ctx.blueprint.index_of(p).is_none()
    }

    /// Whether the block of node `n` could be placed now, by the placement rule.
    pub(super) fn anchored(&self, pos: Pos, block: BlockId) -> bool {
        let state = self.ctx.blueprint.cell_at(pos).map(|c| c.state).unwrap_or_default();
        placement::can_place(self.ctx.data.block_info(block), &state, pos, &|q| self.known_solid(q))
    }

    /// Whether some spot the agent knows it can stand on is within reach of `pos`.
    fn standing_known(&self, pos: Pos) -> bool {
        let range = self.ctx.physics.reach - 0.5;
        (-4..=4).any(|dx| {
            (-4..=4).any(|dz| {
                (-6..=1).any(|dy| {
                    let p = pos.offset(dx, dy, dz);
                    let clear = |q: Pos| q.y >= 0 && !self.known_solid(q) && !self.unbuilt(q);
                    reach_distance(p, pos) <= range && self.known_solid(p.down()) && clear(p) && clear(p.up())
                })
            })
        })
    }

    /// How close the agent walks to look at a cell's surroundings: within it, the
    /// cells a standing spot for the cell could be (reach - 0.5 around it) are mostly
    /// in the view of blocks (`Rules::near`, 6 by default: the view is a cube).
    fn look_range(&self) -> f64 {
        f64::from(self.ctx.physics.near.max(1)) - 1.0
    }

    /// Whether the agent stands within [`Self::look_range`] of `pos`: what it knows of
    /// the cells around is what it sees.
    fn looked_from_near(&self, pos: Pos) -> bool {
        reach_distance(self.pos, pos) <= self.look_range()
    }

    /// Whether `pos` is part of a floor: a blueprint cell beside it at its level has no
    /// blueprint cell above, so once laid it is somewhere to stand.
    fn in_floor(&self, pos: Pos) -> bool {
        let bp = &self.ctx.blueprint;
        [(1, 0), (-1, 0), (0, 1), (0, -1)].into_iter().any(|(dx, dz)| {
            let q = pos.offset(dx, 0, dz);
            bp.index_of(q).is_some() && bp.index_of(q.up()).is_none() && bp.index_of(q.up().up()).is_none()
        })
    }

    fn unbuilt(&self, p: Pos) -> bool {
        self.ctx.blueprint.index_of(p).is_some() && !self.known_solid(p)
    }

    /// A held item to put into the pillar: first the rules' scaffold blocks, then any
    /// full block held beyond what the agent's own share still places, then, with
    /// `borrow` (a support dug back as soon as its cell is placed), any full block but
    /// the last of `keep`. A pillar never borrows: it stands while the blocks above it
    /// are placed, and would hold the very items they need. Only
    /// blocks the agent can dig without a tool it lacks.
    fn scaffold_item(&self, keep: ItemId, borrow: bool) -> Option<ItemId> {
        let usable = |i: ItemId| {
            let Some(b) = self.ctx.data.block_for_item(i) else { return false };
            let info = self.ctx.data.block_info(b);
            let tool_ok = info
                .needs
                .is_none_or(|need| self.ctx.data.tools_satisfying(need).into_iter().any(|t| self.inv.count(t) > 0));
            placement::scaffold_capable(info)
                && info.hardness.is_some()
                && tool_ok
                && b != self.ctx.physics.table.0
                && b != self.ctx.physics.furnace.0
                && self.inv.count(i) > 0
                // Dug, it must give the same item back (stone would come back as cobblestone).
                && info.drops == [i]
        };
        let spare = |i: ItemId| self.inv.count(i) > self.work.own_need(self.id, i);
        let configured = self.ctx.physics.scaffold.iter().copied().find(|i| usable(*i) && spare(*i));
        let held: Vec<ItemId> = self.inv.iter().map(|(i, _)| i).filter(|i| usable(*i)).collect();
        configured
            .or_else(|| held.iter().copied().find(|i| spare(*i)))
            .or_else(|| held.iter().copied().filter(|_| borrow).find(|i| *i != keep || self.inv.count(*i) > 1))
    }

    /// Plans a pillar for node `n` at `pos`.
    fn plan_pillar(&self, pos: Pos, anchor: bool) -> Option<Pillar> {
        let solid = |p: Pos| self.known_solid(p);
        let free = |p: Pos| self.base_free(p);
        scaffold::plan(pos, self.ctx.physics.reach, anchor, &Site { solid: &solid, free: &free })
    }

    /// Whether a pillar may stand in (or rise through) a cell: free, not a base that
    /// failed, and, if it stands on the structure, a cell a walk from off the structure
    /// gets to (not the top of a roof, where only a pillar leads).
    fn base_free(&self, p: Pos) -> bool {
        self.known_free(p) && !self.work.bad_bases.contains(&p) && (!self.on_structure(p) || self.grounded(p))
    }

    fn on_structure(&self, p: Pos) -> bool {
        self.ctx.blueprint.index_of(p.down()).is_some() && self.known_solid(p.down())
    }

    /// Ticks a pillar for `pos` would cost (the gate's and the solver's estimate).
    pub(super) fn pillar_ticks(&self, pos: Pos) -> Option<u64> {
        let p =
            self.plan_pillar(pos, false).or_else(|| self.plan_pillar(pos, true)).or_else(|| self.access_pillar(pos))?;
        // Priced with the first scaffold block of the rules, dug by hand.
        let mine = self
            .ctx
            .physics
            .scaffold
            .first()
            .and_then(|i| self.ctx.data.block_for_item(*i))
            .map_or(self.ctx.physics.ticks.min_mine, |b| {
                (f64::from(self.ctx.data.block_info(b).hardness.unwrap_or(0.0)) * 30.0).ceil() as u64
            });
        let walk = (self.pos.dist(p.base) * 1.2).ceil() as u64 * self.ctx.physics.ticks.move_per_block;
        Some(walk + scaffold::pillar_ticks(p.height(), self.ctx.physics.ticks, mine))
    }

    /// The next step towards placing node `n`: place it, walk, or work on a pillar.
    pub(super) fn approach(&mut self, n: NodeId, pos: Pos, block: BlockId, item: ItemId, out: &mut StepOutput) -> Next {
        let in_reach = reach_distance(self.pos, pos) <= self.ctx.physics.reach;
        let anchored = self.anchored(pos, block);
        if in_reach && anchored {
            // The blueprint's state (facing, door half...) is placed with the block.
            let state = self.ctx.blueprint.cell_at(pos).map(|c| c.state).unwrap_or_default();
            return Next::Act(n, Action::Place { pos, item, state });
        }
        if let Some(s) = self.work.scaffold.clone() {
            return self.work_pillar(s, n, pos, anchored, item, out);
        }
        if !anchored && !self.work.lift.contains(&n) {
            if let Some(next) = self.lean_on_temporary(n, pos, block, item) {
                return next;
            }
        }
        // A walk that found no way once is not tried again (a pillar is the way then),
        // but for a cell of a floor on the ground: the cells around it laid since are
        // the way, one step up from the ground (a bot walks on the floor it has laid).
        let walks = !self.work.lift.contains(&n) || (pos.y == 0 && self.in_floor(pos));
        if anchored && walks && self.standing_known(pos) {
            return self.walk_to(n, pos, self.ctx.physics.reach - 0.5);
        }
        // No column reaches an anchored cell: a pillar onto the structure, to walk on.
        let plan = if anchored {
            self.plan_pillar(pos, false).or_else(|| self.access_pillar(pos))
        } else {
            self.plan_pillar(pos, true)
        };
        if plan.is_none() && anchored && walks && !self.looked_from_near(pos) {
            // No spot or pillar the agent knows of, but it has not seen the site from
            // close by: what it believes unbuilt may be a floor to stand on by now (the
            // middle of a 9 x 9 floor is reached only from the floor). Go and look.
            return self.walk_to(n, pos, self.look_range());
        }
        if self.blocker.first_issue(Blocker::Node(n)).is_none() {
            // Out of reach of any known standing spot, or nothing to lean on: an issue
            // whose local recovery is a scaffold.
            let issue = Issue::Unreachable { pos };
            let id = self.new_issue(issue, Blocker::Node(n), Some(n), out);
            self.run_gate(id, issue, Some(n), out);
        }
        let Some(plan) = plan else {
            self.hold(Blocker::Node(n), Retry::Poll, format!("no room for a pillar to reach {pos}"));
            return Next::Again;
        };
        self.work.scaffold = Some(OwnPillar::new(n, plan));
        self.work_pillar(OwnPillar::new(n, plan), n, pos, anchored, item, out)
    }

    /// A walk to within `range` of node `n`'s cell at `pos`; but where such a walk found
    /// no way and nothing the agent knows of changed near the cell since, the node is
    /// set aside as that walk's failure set it aside, and other work goes first.
    fn walk_to(&mut self, n: NodeId, pos: Pos, range: f64) -> Next {
        if self.knowledge.dead_ends.holds(pos, range) {
            self.hold(Blocker::Node(n), Retry::Poll, format!("cannot reach {pos}"));
            return Next::Again;
        }
        Next::Act(n, Action::MoveTo { target: pos, range })
    }

    fn work_pillar(
        &mut self,
        mut s: OwnPillar,
        n: NodeId,
        pos: Pos,
        anchored: bool,
        item: ItemId,
        out: &mut StepOutput,
    ) -> Next {
        let col = (s.plan.base.x, s.plan.base.z);
        if let Some(top) = s.top().filter(|t| *t != self.pos) {
            // On the structure, away from the pillar: on to a spot within reach, or back.
            let spot = if anchored { self.walk_off(&mut s, n, pos) } else { None };
            let next = spot.unwrap_or(top);
            self.work.scaffold = Some(s);
            return Next::Scaffold(n, Action::MoveTo { target: next, range: 0.0 });
        }
        if s.blocks.is_empty() && self.pos != s.plan.base {
            if s.node != n {
                self.work.scaffold = None;
                return Next::Again;
            }
            return Next::Scaffold(n, Action::MoveTo { target: s.plan.base, range: 0.0 });
        }
        if s.node != n && (self.pos.x, self.pos.z) == col {
            // Another node: would this column, raised or lowered, serve it?
            let anchor = !anchored;
            let site_col = |p: Pillar| (p.base.x, p.base.z) == col && p.base.y == s.plan.base.y;
            match self.plan_pillar_from(pos, anchor, s.plan.base) {
                Some(p) if site_col(p) => {
                    s.node = n;
                    s.plan = p;
                }
                _ => return self.step_off_or_down(n, s, pos, anchored),
            }
        }
        if self.pos.y < s.plan.top.y {
            let Some(i) = self.scaffold_item(item, false) else {
                return self.ask_scaffold(n, s.plan.top.y - s.plan.base.y, out);
            };
            self.work.scaffold = Some(s);
            return Next::Scaffold(n, Action::Place { pos: self.pos, item: i, state: Default::default() });
        }
        if self.pos.y > s.plan.top.y && !s.blocks.is_empty() {
            return self.dig_down(n, s);
        }
        // At the top, and still out of reach or without a face: what the agent knew was
        // wrong. Come down and try again later.
        if anchored && !s.blocks.is_empty() {
            if let Some(spot) = self.walk_off(&mut s, n, pos) {
                self.work.scaffold = Some(s);
                return Next::Scaffold(n, Action::MoveTo { target: spot, range: 0.0 });
            }
        }
        self.hold(Blocker::Node(n), Retry::Poll, format!("the pillar at {} does not reach {pos}", s.plan.base));
        self.dig_down(n, s)
    }

    /// The pillar's column does not serve the next cell: a walk onto the structure
    /// within reach of it, or the pillar comes down.
    fn step_off_or_down(&mut self, n: NodeId, mut s: OwnPillar, pos: Pos, anchored: bool) -> Next {
        if anchored {
            if let Some(spot) = self.walk_off(&mut s, n, pos) {
                self.work.scaffold = Some(s);
                return Next::Scaffold(n, Action::MoveTo { target: spot, range: 0.0 });
            }
        }
        self.dig_down(n, s)
    }

    /// A pillar in the column of `base`, with the agent's own blocks counted as free.
    fn plan_pillar_from(&self, pos: Pos, anchor: bool, base: Pos) -> Option<Pillar> {
        let own: Vec<Pos> = self.work.scaffold.iter().flat_map(|s| s.blocks.iter().map(|(p, _)| *p)).collect();
        let solid = |p: Pos| !own.contains(&p) && self.known_solid(p);
        let free = |p: Pos| own.contains(&p) || self.known_free(p);
        scaffold::plan_column(
            pos,
            self.ctx.physics.reach,
            anchor,
            (base.x, base.z),
            &Site { solid: &solid, free: &free },
        )
    }

    /// A short chain of temporary blocks from something built (or the ground) to a
    /// face of the cell, placed from where the agent can stand; `None` when there is no
    /// such chain or no block to make it of (a pillar is the other way).
    fn lean_on_temporary(&mut self, n: NodeId, pos: Pos, block: BlockId, item: ItemId) -> Option<Next> {
        let state = self.ctx.blueprint.cell_at(pos).map(|c| c.state).unwrap_or_default();
        let anchors: Vec<Pos> = placement::anchors(self.ctx.data.block_info(block), &state, pos)
            .into_iter()
            .filter(|a| self.ctx.blueprint.index_of(*a).is_none())
            .collect();
        let solid = |p: Pos| self.known_solid(p);
        let free = |p: Pos| self.known_free(p) && !self.body_near(p);
        // A few blocks at most: longer, a pillar beside the cell costs less to dig back.
        let chain = scaffold::support_chain(&anchors, &Site { solid: &solid, free: &free }, 4)?;
        let next = chain.into_iter().find(|c| !self.known_solid(*c))?;
        let scaffold_item = self.scaffold_item(item, true)?;
        if reach_distance(self.pos, next) <= self.ctx.physics.reach {
            return Some(Next::Scaffold(
                n,
                Action::Place { pos: next, item: scaffold_item, state: Default::default() },
            ));
        }
        self.standing_known(next)
            .then_some(Next::Scaffold(n, Action::MoveTo { target: next, range: self.ctx.physics.reach - 0.5 }))
    }

    fn body_near(&self, p: Pos) -> bool {
        p == self.pos || p == self.pos.up()
    }

    /// Temporary blocks whose cell is placed now: the next one to dig back.
    pub(super) fn clear_temporary(&mut self) -> Option<Next> {
        let &(n, p) = self
            .work
            .temps
            .iter()
            .find(|(n, _)| matches!(self.work.plan.node(*n).state, NodeState::Done | NodeState::Failed))?;
        if self.knowledge.mem.block(p).is_none() {
            self.work.temps.retain(|(_, q)| *q != p);
            return Some(Next::Again);
        }
        if reach_distance(self.pos, p) <= self.ctx.physics.reach {
            return Some(Next::Scaffold(n, Action::Mine { pos: p }));
        }
        Some(Next::Scaffold(n, Action::MoveTo { target: p, range: self.ctx.physics.reach - 0.5 }))
    }

    fn dig_down(&mut self, n: NodeId, s: OwnPillar) -> Next {
        if s.blocks.is_empty() {
            self.work.scaffold = None;
            return Next::Again;
        }
        self.work.scaffold = Some(s);
        Next::Scaffold(n, Action::Mine { pos: self.pos.down() })
    }

    /// Takes the pillar down when nothing on it is left to do: back to its top first
    /// when the agent is on the structure beside it.
    pub(super) fn leave_pillar(&mut self) -> Option<Next> {
        let s = self.work.scaffold.clone()?;
        let Some(top) = s.top() else {
            self.work.scaffold = None;
            return None;
        };
        if top != self.pos {
            return Some(Next::Scaffold(s.node, Action::MoveTo { target: top, range: 0.0 }));
        }
        Some(self.dig_down(s.node, s))
    }

    /// No block to pillar with: a missing scaffold block is an ordinary missing item.
    fn ask_scaffold(&mut self, n: NodeId, count: i32, out: &mut StepOutput) -> Next {
        let Some(&want) = self.ctx.physics.scaffold.first() else {
            self.hold(Blocker::Node(n), Retry::Poll, "no scaffold block configured".into());
            return Next::Again;
        };
        let blocker = Blocker::Item(want);
        // A recovery of it that failed is set aside for a while; then the issue is raised
        // again (else the pillar waits for nothing: no node of the agent places the
        // scaffold block, so nothing else revisits it).
        let held = self.blocker.blocks.get(&blocker).is_some_and(|b| b.retry_at > self.now);
        if self.blocker.awaiting.contains_key(&want) || self.blocker.recovery.is_some() || held {
            self.hold(
                Blocker::Node(n),
                Retry::Poll,
                format!("waiting for {} to build a pillar", self.ctx.data.item_name(want)),
            );
            return Next::Again;
        }
        // The place node needs the scaffold block as it needs its own item: the gate
        // weighs the issue by what waits on it.
        let o = self.work.plan.obtain_node_or_add(self.id, want);
        if !self.work.plan.dependents(o).contains(&n) {
            self.work.plan.add_requires(o, n);
        }
        let issue = Issue::MissingMaterial { item: want, count: count.max(1) as u32 };
        let id = self.new_issue(issue, blocker, Some(n), out);
        self.run_gate(id, issue, Some(n), out);
        Next::Again
    }

    pub(super) fn scaffold_outcome(&mut self, n: NodeId, o: &Outcome) {
        // Temporary supports (placed away from the feet) and their removal.
        match (&o.action, &o.result) {
            (Action::Place { pos, .. }, Ok(d)) if d.moved_to.is_none() => {
                self.work.temps.push((n, *pos));
                return;
            }
            (Action::Mine { pos }, Ok(_)) if self.work.temps.iter().any(|(_, q)| q == pos) => {
                self.work.temps.retain(|(_, q)| q != pos);
                return;
            }
            (Action::MoveTo { .. } | Action::Place { .. } | Action::Mine { .. }, Err(f))
                if self.work.scaffold.is_none() =>
            {
                if matches!(o.action, Action::MoveTo { .. }) {
                    // No walk to where the support could be placed from: a pillar then.
                    self.work.lift.insert(n);
                }
                self.hold(Blocker::Node(n), Retry::Poll, format!("temporary support: {}", f.tag()));
                return;
            }
            _ => {}
        }
        let Some(mut s) = self.work.scaffold.take() else { return };
        match (&o.action, &o.result) {
            (Action::Place { pos, item, .. }, Ok(_)) => s.blocks.push((*pos, *item)),
            (Action::Mine { pos }, Ok(_)) => s.blocks.retain(|(p, _)| p != pos),
            (Action::MoveTo { .. }, Ok(_)) => {}
            (Action::MoveTo { .. }, Err(_)) if s.blocks.is_empty() => {
                self.work.bad_bases.insert(s.plan.base);
                self.hold(Blocker::Node(n), Retry::Poll, format!("cannot get to {} to build a pillar", s.plan.base));
                return;
            }
            (_, Err(f)) => {
                let why = format!("pillar at {}: {}", s.plan.base, f.tag());
                if s.blocks.is_empty() && matches!(f, Failure::Occupied { .. } | Failure::NoSupport { .. }) {
                    self.work.bad_bases.insert(s.plan.base);
                    self.hold(Blocker::Node(n), Retry::Poll, why);
                    return;
                }
                self.hold(Blocker::Node(n), Retry::Poll, why);
            }
            _ => {}
        }
        self.work.scaffold = (!s.blocks.is_empty() || self.pos == s.plan.base).then_some(s);
    }
}
