//! Working through the agent's share: pick the next placeable node, detect issues on
//! the way, and keep track of what is done.

use gatecrew_gating::Issue;
use gatecrew_protocol::trace::{ActionName, ResolvedBy};
use gatecrew_protocol::{ItemId, Pos, Tick};
use gatecrew_world::{Action, Failure, Observation, Outcome, reach_distance};

use super::{AgentCore, Blocker, Note, Retry, StepOutput, given_up};
use crate::plan::{NodeId, NodeKind, NodeState, Task};

/// What the build logic wants.
pub(super) enum Next {
    /// An action for a node.
    Act(NodeId, Action),
    /// An action on a pillar for a node.
    Scaffold(NodeId, Action),
    /// Something changed (an issue was decided): look again.
    Again,
    /// Nothing to do until then (`None`: until news).
    Wait(Option<Tick>),
    /// Nothing to do but look again then for teammates' blocks (see `Intent::Watch`).
    Watch(Tick),
    /// The share is finished or given up.
    Done,
}

/// A place node's task.
pub(super) fn place_of(kind: &NodeKind) -> Option<(Pos, gatecrew_world::BlockId, ItemId)> {
    match kind {
        NodeKind::Task(Task::Place { pos, block, item, .. }) => Some((*pos, *block, *item)),
        _ => None,
    }
}

impl AgentCore {
    /// Items held beyond the agent's own remaining needs and commitments: what it may
    /// offer. Raw materials count as needed when a held recipe would turn them into a
    /// missing block item.
    pub(super) fn surplus(&self, item: ItemId) -> u32 {
        let committed = self.work.committed(item);
        let mut reserved = self.work.own_need(self.id, item) + committed;
        let mut needed_items: Vec<ItemId> = self
            .work
            .own_places(self.id)
            .into_iter()
            .filter(|n| self.work.plan.node(*n).state != NodeState::Done)
            .filter_map(|n| place_of(&self.work.plan.node(n).kind).map(|(_, _, i)| i))
            .collect();
        needed_items.sort();
        needed_items.dedup();
        for want in needed_items {
            let deficit = self.work.own_need(self.id, want).saturating_sub(self.inv.count(want));
            if deficit == 0 {
                continue;
            }
            for &rid in self.ctx.data.recipes_for(want) {
                let r = self.ctx.data.recipe(rid);
                if let Some((_, per)) = r.ingredients.iter().find(|(i, _)| *i == item) {
                    reserved += per * deficit.div_ceil(r.count);
                    break;
                }
            }
        }
        self.inv.count(item).saturating_sub(reserved)
    }

    /// Whether the nodes placing `item` wait for its open request: only while the bot
    /// holds none of it beyond what it promised away. What is in hand (a partial
    /// transfer while the rest is asked for) is placed meanwhile.
    pub(super) fn waits_for_request(&self, item: ItemId) -> bool {
        self.blocker.awaiting.contains_key(&item) && self.inv.count(item) <= self.work.committed(item)
    }

    /// Folds an observation into memory and marks nodes whose block is seen in place.
    pub(super) fn observe(&mut self, view: &Observation) {
        // Where it stands is part of what it sees. In the embedded world that is always
        // where its last verified move left it; on a server a failed action can still
        // have moved the bot (the bridge reports its feet with the failure), and a bot
        // that went on believing its old position retried an out-of-reach place
        // forever. An empty view (`near` 0: no body) says nothing.
        if view.near > 0 {
            self.pos = view.pos;
        }
        let mut heed: Vec<gatecrew_protocol::AgentId> = self.work.handovers.iter().map(|h| h.to).collect();
        heed.extend(self.blocker.awaiting.values().filter_map(|aw| aw.offers.current().map(|o| o.from)));
        // What changed in view may open a way to a cell a walk found none to.
        let mut changed = Vec::new();
        let track = !self.knowledge.dead_ends.is_empty();
        self.knowledge.mem.update_noting(view, self.now, &heed, track.then_some(&mut changed));
        for p in changed {
            self.knowledge.dead_ends.changed(p);
        }
        for &(p, b) in &view.blocks {
            let Some(i) = self.ctx.blueprint.index_of(p) else { continue };
            let Some(n) = self.work.plan.cell_node(i) else { continue };
            let state = self.work.plan.node(n).state;
            if self.ctx.blueprint.cells()[i].block == b {
                if state != NodeState::Done {
                    self.work.plan.set_state(n, NodeState::Done);
                    self.blocker.given_up.laid(p, self.ctx.physics.reach);
                }
            } else if state == NodeState::Done && self.wrong_block(n).is_some() {
                // A cell of its own it counted as built holds another block: a wrong
                // place, seen as a player sees it. The cell is to be built again.
                self.work.plan.set_state(n, NodeState::Pending);
            }
        }
    }

    /// The block seen in own place node `n`'s cell when it is not the cell's (nor
    /// what the node's item places, which no digging would change).
    pub(super) fn wrong_block(&self, n: NodeId) -> Option<gatecrew_world::BlockId> {
        let node = self.work.plan.node(n);
        let (pos, block, item) = place_of(&node.kind)?;
        let seen = self.knowledge.mem.block(pos)?;
        let wrong = node.owner == self.id && seen != block && self.ctx.data.block_for_item(item) != Some(seen);
        wrong.then_some(seen)
    }

    /// The tool digging `wrong` out takes when the agent holds none that would do.
    fn tool_to_dig(&self, wrong: gatecrew_world::BlockId) -> Option<ItemId> {
        let need = self.ctx.data.block_info(wrong).needs?;
        let tools = self.ctx.data.tools_satisfying(need);
        if tools.iter().any(|t| self.inv.count(*t) > 0) { None } else { tools.first().copied() }
    }

    /// The next step to dig the wrong block out of node `n`'s cell at `pos`, holding
    /// what it takes: a walk into reach, then the dig (the world's drops come back).
    /// `None` on a pillar out of its reach (what is in reach goes first).
    fn dig_wrong(&self, n: NodeId, pos: Pos) -> Option<Next> {
        let in_reach = reach_distance(self.pos, pos) <= self.ctx.physics.reach;
        if in_reach {
            return Some(Next::Act(n, Action::Mine { pos }));
        }
        (!self.on_pillar()).then_some(Next::Act(n, Action::MoveTo { target: pos, range: self.ctx.physics.reach - 0.5 }))
    }

    fn support_missing(&self, n: NodeId) -> Option<(NodeId, Pos)> {
        self.work.plan.requires(n).into_iter().find_map(|s| {
            let node = self.work.plan.node(s);
            let (pos, _, _) = place_of(&node.kind)?;
            (node.state != NodeState::Done).then_some((s, pos))
        })
    }

    pub(super) fn next_build(&mut self, out: &mut StepOutput) -> Next {
        let mut wake: Option<Tick> = None;
        // Nodes given up for want of a teammate's block, watched: an agent left with only
        // these watches (see `Intent::Watch`).
        let mut watch: Option<Tick> = None;
        let earliest = |t: Tick, wake: &mut Option<Tick>| *wake = Some(wake.map_or(t, |w| w.min(t)));
        let mut remaining = false;
        let mut idle_ready = false;
        // On a pillar, everything in reach goes first; the first node out of reach
        // decides whether the pillar is raised, lowered or taken down.
        let mut deferred = None;
        if !self.on_pillar() {
            if let Some(next) = self.clear_temporary() {
                return next;
            }
        }
        for n in self.work.own_places(self.id) {
            let node = self.work.plan.node(n);
            let Some((pos, block, item)) = place_of(&node.kind) else {
                continue;
            };
            match node.state {
                NodeState::Done => continue,
                NodeState::Failed if !self.revive(n, &mut watch) => continue,
                NodeState::Failed | NodeState::SetAside | NodeState::Pending => {}
            }
            if self.knowledge.mem.block(pos) == Some(block) {
                self.work.plan.set_state(n, NodeState::Done);
                continue;
            }
            // Given up?
            for b in [Blocker::Node(n), Blocker::Item(item)] {
                if self.blocker.exhausted(b, self.ctx.tuning.max_attempts) {
                    self.work.plan.set_state(n, NodeState::Failed);
                    let supported = self.blocker.blocks.get(&b).is_some_and(|b| b.until_supported);
                    if b == Blocker::Node(n) && !supported {
                        self.blocker.given_up.give_up(n, pos);
                    }
                    if b == Blocker::Item(item) {
                        self.give_up_undelivered(item);
                    }
                }
            }
            if self.work.plan.node(n).state == NodeState::Failed && !self.revive(n, &mut watch) {
                continue;
            }
            remaining = true;
            if let Some(aw) = self.blocker.awaiting.get(&item).filter(|_| self.waits_for_request(item)) {
                earliest(aw.deadline, &mut wake);
                continue;
            }
            if self.blocker.recovery.as_ref().is_some_and(|r| r.item == item) || self.explores_for(item) {
                // In recovery, or waiting for the exploration (which is its revisit).
                continue;
            }
            if self.parked_item(item) {
                // Its gray-zone issue waits for the adjudicator; other work goes on.
                continue;
            }
            // A wrong block in the cell is dug out first, with a tool if it takes one.
            let wrong = self.wrong_block(n);
            let tool = wrong.and_then(|w| self.tool_to_dig(w));
            if let Some(t) = tool {
                if let Some(aw) = self.blocker.awaiting.get(&t) {
                    earliest(aw.deadline, &mut wake);
                    continue;
                }
                if self.blocker.recovery.as_ref().is_some_and(|r| r.item == t)
                    || self.explores_for(t)
                    || self.parked_item(t)
                {
                    continue;
                }
            }
            // A teammate's block waited for is there now: a watching bot looks at every
            // step, not only when its back-off runs out.
            if self.blocker.blocks.get(&Blocker::Node(n)).is_some_and(|b| b.teammate)
                && self.support_missing(n).is_none()
            {
                self.blocker.blocks.remove(&Blocker::Node(n));
            }
            let mut held = false;
            let blockers = [Blocker::Node(n), Blocker::Item(item)].into_iter().chain(tool.map(Blocker::Item));
            for b in blockers.filter_map(|b| self.blocker.blocks.get(&b)) {
                if b.retry_at > self.now {
                    held = true;
                    earliest(b.retry_at, &mut wake);
                } else if b.when_idle {
                    held = true;
                    idle_ready = true;
                }
            }
            if held {
                self.work.plan.set_state(n, NodeState::SetAside);
                continue;
            }
            if self.work.plan.node(n).state == NodeState::SetAside {
                self.work.plan.set_state(n, NodeState::Pending);
            }
            if wrong.is_some() {
                // A tool first when the block needs one (an ordinary missing item).
                if let Some(t) = tool {
                    return self.raise_missing(n, t, out);
                }
                match self.dig_wrong(n, pos) {
                    Some(next) => return next,
                    None => continue,
                }
            }
            // A support given up does not hold back a node something else holds now.
            let waits = |me: &Self, s: NodeId| {
                let sn = me.work.plan.node(s);
                !(sn.owner == me.id && sn.state == NodeState::Failed && me.anchored(pos, block))
            };
            if let Some((s, spos)) = self.support_missing(n).filter(|(s, _)| waits(self, *s)) {
                if self.work.plan.node(s).owner == self.id {
                    // Own supports come earlier in build order; this one waits for it.
                    // Still, every blocked node is an issue the gate sees: one behind a
                    // support given up, and one whose item is not held at all (else a
                    // node behind a stuck support never asks for an item only a
                    // teammate holds).
                    let failed = self.work.plan.node(s).state == NodeState::Failed;
                    if failed && !self.anchored(pos, block) {
                        // Its support was given up and nothing else holds it: it cannot
                        // be placed either.
                        if self.blocker.first_issue(Blocker::Node(n)).is_none() {
                            let issue = Issue::DependencyBlocked { node: n.index() as u32, pos: spos };
                            let id = self.new_issue(issue, Blocker::Node(n), Some(n), out);
                            self.run_gate(id, issue, Some(n), out);
                        }
                        self.hold(Blocker::Node(n), Retry::WhenIdle, format!("its support at {spos} was given up"));
                        if let Some(b) = self.blocker.blocks.get_mut(&Blocker::Node(n)) {
                            b.until_supported = true;
                        }
                        self.work.plan.set_state(n, NodeState::Failed);
                        continue;
                    }
                    let quiet = self.blocker.first_issue(Blocker::Item(item)).is_none()
                        && !self.blocker.blocks.contains_key(&Blocker::Item(item))
                        && self.blocker.recovery.is_none();
                    if self.inv.count(item) == 0 && quiet && !self.on_pillar() {
                        return self.raise_missing(n, item, out);
                    }
                    continue;
                }
                // A teammate's block: look before deciding it is missing (not from a pillar:
                // a walk would leave it standing).
                let near = self.mem_near(spos);
                if !near && self.on_pillar() {
                    continue;
                }
                if !near {
                    return Next::Act(n, Action::MoveTo { target: spos, range: self.ctx.physics.reach - 0.5 });
                }
                if self.blocker.first_issue(Blocker::Node(n)).is_none() {
                    let issue = Issue::DependencyBlocked { node: n.index() as u32, pos: spos };
                    let id = self.new_issue(issue, Blocker::Node(n), Some(n), out);
                    self.run_gate(id, issue, Some(n), out);
                }
                let why = format!("waiting for {}'s block at {spos}", self.work.plan.node(s).owner);
                self.hold(Blocker::Node(n), Retry::Teammate, why);
                return Next::Again;
            }
            if self.inv.count(item) == 0 {
                return self.raise_missing(n, item, out);
            }
            if self.on_pillar()
                && !(reach_distance(self.pos, pos) <= self.ctx.physics.reach && self.anchored(pos, block))
            {
                deferred.get_or_insert((n, pos, block, item));
                continue;
            }
            // A model-driven bot may pick another ready cell (not from a pillar: what is
            // in reach of it goes first).
            let chosen = if self.on_pillar() { n } else { self.model_pick(n, out) };
            if let Some((pos, block, item)) = place_of(&self.work.plan.node(chosen).kind).filter(|_| chosen != n) {
                return self.approach(chosen, pos, block, item, out);
            }
            return self.approach(n, pos, block, item, out);
        }
        if let Some((n, pos, block, item)) = deferred {
            return self.approach(n, pos, block, item, out);
        }
        if let Some(next) = self.leave_pillar() {
            return next;
        }
        if !remaining && self.blocker.awaiting.is_empty() && self.blocker.parked.is_empty() {
            return watch.map_or(Next::Done, Next::Watch);
        }
        if idle_ready {
            // Independent work ran out: revisit what was set aside.
            for b in self.blocker.blocks.values_mut() {
                if b.when_idle && b.retry_at <= self.now {
                    b.when_idle = false;
                }
            }
            return Next::Again;
        }
        for aw in self.blocker.awaiting.values() {
            earliest(aw.deadline, &mut wake);
        }
        match (wake, watch) {
            (None, Some(t)) => Next::Watch(t),
            (w, Some(t)) => Next::Wait(Some(w.map_or(t, |w| w.min(t)))),
            (w, None) => Next::Wait(w),
        }
    }

    /// A node given up for want of its support: taken up again (and `true`) once the
    /// support stands. One given up on a teammate's block is watched meanwhile: the bot
    /// looks again at the back-off's longest interval.
    fn revive(&mut self, n: NodeId, watch: &mut Option<Tick>) -> bool {
        if let Some((_, _, item)) = place_of(&self.work.plan.node(n).kind) {
            if self.item_back(item) {
                return true;
            }
        }
        if self.blocker.given_up.take_back(n) {
            // A block laid near it since: the way there, and the pillar it would need,
            // are looked at afresh.
            self.blocker.blocks.remove(&Blocker::Node(n));
            self.work.lift.remove(&n);
            self.work.plan.set_state(n, NodeState::Pending);
            return true;
        }
        let Some(b) = self.blocker.blocks.get(&Blocker::Node(n)).filter(|b| b.until_supported) else {
            return false;
        };
        let teammate = b.teammate;
        if self.support_missing(n).is_none() {
            self.blocker.blocks.remove(&Blocker::Node(n));
            self.work.plan.set_state(n, NodeState::Pending);
            return true;
        }
        if teammate {
            let longest = self.ctx.tuning.poll_ticks.saturating_mul(1 << super::blocker::MAX_DOUBLINGS);
            let b = self.blocker.blocks.get_mut(&Blocker::Node(n)).expect("checked above");
            if b.retry_at <= self.now {
                b.retry_at = self.now + longest;
            }
            *watch = Some(watch.map_or(b.retry_at, |w| w.min(b.retry_at)));
        }
        false
    }

    /// `item` is given up: when teammates that hold it answered that they could not get
    /// here, what that rested on is kept (see `given_up`).
    fn give_up_undelivered(&mut self, item: ItemId) {
        let Some(holders) = self.knowledge.out_of_reach.get(&item).filter(|h| !h.is_empty()) else {
            return;
        };
        let holders = holders.iter().map(|a| (*a, self.knowledge.mem.last_seen(*a))).collect();
        let offerers = self.knowledge.offered.get(&item).cloned().unwrap_or_default();
        let why = given_up::Undelivered { here: self.pos, holders, offerers };
        self.blocker.given_up.give_up_item(item, why);
    }

    /// Whether `item`, given up while its holders could not get here, is taken up again
    /// now; if so, with a fresh count of attempts and the gate asked again, every own
    /// cell given up on it is pending again (one given up for its own reasons is given
    /// up again at once, by its own blocker's count).
    fn item_back(&mut self, item: ItemId) -> bool {
        let mem = &self.knowledge.mem;
        let seen = |a| mem.last_seen(a);
        let now = given_up::Now { here: self.pos, seen: &seen, offerers: self.knowledge.offered.get(&item) };
        if !self.blocker.given_up.item_back(item, &now, self.ctx.tuning.max_attempts) {
            return false;
        }
        let blocker = Blocker::Item(item);
        self.blocker.blocks.remove(&blocker);
        self.blocker.last_features.remove(&blocker);
        for m in self.work.own_places(self.id) {
            let node = self.work.plan.node(m);
            if node.state == NodeState::Failed && place_of(&node.kind).is_some_and(|(_, _, i)| i == item) {
                self.work.plan.set_state(m, NodeState::Pending);
            }
        }
        true
    }

    /// The node's item is not held: a missing-material issue through the gate (a
    /// revisit with unchanged features only sets it aside again).
    fn raise_missing(&mut self, n: NodeId, item: ItemId, out: &mut StepOutput) -> Next {
        let deficit = self.work.own_need(self.id, item).saturating_sub(self.inv.count(item)).max(1);
        let issue = Issue::MissingMaterial { item, count: deficit };
        // A revisit re-detects the issue only if something changed: the gate is
        // deterministic, so the same features would give the same decision.
        let features = self.evaluate(issue, Some(n)).features;
        let blocker = Blocker::Item(item);
        if self.suppress_repeats()
            && self.blocker.first_issue(blocker).is_some()
            && self.blocker.last_features.get(&blocker) == Some(&features)
        {
            // The same decision, then: a local recovery that failed is carried out again
            // (until the blocker's attempts run out), anything else set aside again.
            let again = self.blocker.blocks.get(&blocker).is_some_and(|b| b.recover_again)
                && !self.blocker.exhausted(blocker, self.ctx.tuning.max_attempts);
            if let (true, Some(id)) = (again, self.blocker.first_issue(blocker)) {
                if let Some(b) = self.blocker.blocks.get_mut(&blocker) {
                    b.recover_again = false;
                }
                let budget = self.gate.params().spec().search_ticks;
                self.start_recovery(item, self.inv.count(item) + deficit, id, budget);
                return Next::Again;
            }
            let why = self.blocker.blocks.get(&blocker).map(|b| b.why.clone()).unwrap_or_default();
            self.hold(blocker, Retry::WhenIdle, why);
            return Next::Again;
        }
        self.blocker.last_features.insert(blocker, features);
        let id = self.new_issue(issue, blocker, Some(n), out);
        self.run_gate(id, issue, Some(n), out);
        Next::Again
    }

    fn mem_near(&self, p: Pos) -> bool {
        // The observation box is `near` (6) blocks around the agent's feet; stay a block
        // inside it. Every spot the approach walk may end at (within reach - 0.5 of the
        // block, measured from the eyes) is within 5: the eyes are 1.62 above the feet,
        // so a block 5 above them can be in range, and then the walk has nowhere to go.
        let d = (self.pos.x - p.x).abs().max((self.pos.y - p.y).abs()).max((self.pos.z - p.z).abs());
        d <= 5
    }

    pub(super) fn build_outcome(&mut self, n: NodeId, o: &Outcome, out: &mut StepOutput) {
        let Some((pos, block, _)) = place_of(&self.work.plan.node(n).kind) else {
            return;
        };
        match (&o.action, &o.result) {
            (Action::Place { .. }, Ok(_)) => {
                self.work.plan.set_state(n, NodeState::Done);
                self.blocker.given_up.laid(pos, self.ctx.physics.reach);
                self.blocker.resolve(Blocker::Node(n), ResolvedBy::Local, &mut out.notes);
            }
            // A walk that arrives changes nothing yet: the next step places.
            (Action::MoveTo { .. }, Ok(_)) => {}
            (Action::Place { .. }, Err(Failure::Occupied { pos: at }))
                if self.knowledge.mem.block(*at) == Some(block) && *at == pos =>
            {
                self.work.plan.set_state(n, NodeState::Done);
            }
            (action, Err(f)) => {
                if matches!(f, Failure::NoPath { .. }) {
                    // No walk gets there: next time, a pillar.
                    self.work.lift.insert(n);
                    if let Action::MoveTo { target, range } = action {
                        if *target == pos {
                            self.knowledge.dead_ends.remember(pos, *range);
                        }
                    }
                }
                let issue = match (action.name(), f) {
                    (_, Failure::NoPath { target }) | (_, Failure::PathBlocked { target }) => {
                        Issue::Unreachable { pos: *target }
                    }
                    (ActionName::Place, Failure::NoSupport { pos }) => {
                        Issue::DependencyBlocked { node: n.index() as u32, pos: pos.down() }
                    }
                    (name, f) => Issue::ActionFailed { action: name, reason: f.tag() },
                };
                if self.blocker.first_issue(Blocker::Node(n)).is_none() {
                    let id = self.new_issue(issue, Blocker::Node(n), Some(n), out);
                    self.run_gate(id, issue, Some(n), out);
                }
                let why = match issue {
                    Issue::Unreachable { pos } => format!("cannot reach {pos}"),
                    _ => format!("{} failed: {}", action.name().as_str(), f.tag()),
                };
                self.hold(Blocker::Node(n), Retry::Poll, why);
            }
            _ => {}
        }
    }

    /// At the end: every own node not done, with the reason.
    pub(super) fn report_unfinished(&mut self, out: &mut StepOutput) {
        for n in self.work.own_places(self.id) {
            let node = self.work.plan.node(n);
            if node.state == NodeState::Done {
                continue;
            }
            let Some((pos, _, item)) = place_of(&node.kind) else {
                continue;
            };
            let why = if let Some(aw) = self.blocker.awaiting.get(&item) {
                format!(
                    "waiting for {} from the board (window {})",
                    self.ctx.data.item_name(item),
                    aw.window.map_or("pending".into(), |w| w.to_string())
                )
            } else if self.parked_item(item) {
                format!("waiting for the adjudicator's verdict on {}", self.ctx.data.item_name(item))
            } else if let Some(b) =
                self.blocker.blocks.get(&Blocker::Node(n)).or_else(|| self.blocker.blocks.get(&Blocker::Item(item)))
            {
                let gave_up =
                    if b.attempts > self.ctx.tuning.max_attempts { "gave up after repeated attempts: " } else { "" };
                format!("{gave_up}{}", b.why)
            } else if self.inv.count(item) == 0 {
                format!("no {} in inventory", self.ctx.data.item_name(item))
            } else {
                "not reached before the end".into()
            };
            let why = match self.explored_why(item) {
                Some(searched) => format!("{why}; {searched}"),
                None => why,
            };
            out.notes.push(Note::Unfinished { node: n, pos: Some(pos), why });
        }
    }
}
