//! Working through the agent's share: pick the next placeable node, detect issues on
//! the way, and keep track of what is done.

use gatecrew_gating::Issue;
use gatecrew_protocol::trace::{ActionName, ResolvedBy};
use gatecrew_protocol::{ItemId, Pos, Tick};
use gatecrew_world::{Action, Failure, Observation, Outcome, reach_distance};

use super::{AgentCore, Blocker, Note, Retry, StepOutput};
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
    /// Own place nodes in build order.
    pub(super) fn own_places(&self) -> Vec<NodeId> {
        self.plan.agent_root(self.id).map(|r| self.plan.children(r)).unwrap_or_default()
    }

    /// Items the agent still needs for its own share.
    pub(super) fn own_need(&self, item: ItemId) -> u32 {
        self.own_places()
            .into_iter()
            .filter(|n| matches!(self.plan.node(*n).state, NodeState::Pending | NodeState::SetAside))
            .filter(|n| place_of(&self.plan.node(*n).kind).is_some_and(|(_, _, i)| i == item))
            .count() as u32
    }

    /// Items held beyond the agent's own remaining needs and commitments: what it may
    /// offer. Raw materials count as needed when a held recipe would turn them into a
    /// missing block item.
    pub(super) fn surplus(&self, item: ItemId) -> u32 {
        let committed: u32 = self.handovers.iter().filter(|h| h.item == item).map(|h| h.count).sum();
        let mut reserved = self.own_need(item) + committed;
        let mut needed_items: Vec<ItemId> = self
            .own_places()
            .into_iter()
            .filter(|n| self.plan.node(*n).state != NodeState::Done)
            .filter_map(|n| place_of(&self.plan.node(n).kind).map(|(_, _, i)| i))
            .collect();
        needed_items.sort();
        needed_items.dedup();
        for want in needed_items {
            let deficit = self.own_need(want).saturating_sub(self.inv.count(want));
            if deficit == 0 {
                continue;
            }
            for &rid in self.data.recipes_for(want) {
                let r = self.data.recipe(rid);
                if let Some((_, per)) = r.ingredients.iter().find(|(i, _)| *i == item) {
                    reserved += per * deficit.div_ceil(r.count);
                    break;
                }
            }
        }
        self.inv.count(item).saturating_sub(reserved)
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
        let mut heed: Vec<gatecrew_protocol::AgentId> = self.handovers.iter().map(|h| h.to).collect();
        heed.extend(self.awaiting.values().filter_map(|aw| aw.offered_by.map(|(from, _)| from)));
        self.mem.update(view, self.now, &heed);
        for &(p, b) in &view.blocks {
            if let Some(i) = self.blueprint.index_of(p) {
                if self.blueprint.cells()[i].block == b {
                    if let Some(n) = self.plan.cell_node(i) {
                        if self.plan.node(n).state != NodeState::Done {
                            self.plan.set_state(n, NodeState::Done);
                        }
                    }
                }
            }
        }
    }

    fn support_missing(&self, n: NodeId) -> Option<(NodeId, Pos)> {
        self.plan.requires(n).into_iter().find_map(|s| {
            let node = self.plan.node(s);
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
        for n in self.own_places() {
            let node = self.plan.node(n);
            let Some((pos, block, item)) = place_of(&node.kind) else {
                continue;
            };
            match node.state {
                NodeState::Done => continue,
                NodeState::Failed if !self.revive(n, &mut watch) => continue,
                NodeState::Failed | NodeState::SetAside | NodeState::Pending => {}
            }
            if self.mem.block(pos) == Some(block) {
                self.plan.set_state(n, NodeState::Done);
                continue;
            }
            // Given up?
            for b in [Blocker::Node(n), Blocker::Item(item)] {
                if self.exhausted(b) {
                    self.plan.set_state(n, NodeState::Failed);
                }
            }
            if self.plan.node(n).state == NodeState::Failed && !self.revive(n, &mut watch) {
                continue;
            }
            remaining = true;
            if let Some(aw) = self.awaiting.get(&item) {
                earliest(aw.deadline, &mut wake);
                continue;
            }
            if self.recovery.as_ref().is_some_and(|r| r.item == item) || self.explores_for(item) {
                // In recovery, or waiting for the exploration (which is its revisit).
                continue;
            }
            if self.parked_item(item) {
                // Its gray-zone issue waits for the adjudicator; other work goes on.
                continue;
            }
            // A teammate's block waited for is there now: a watching bot looks at every
            // step, not only when its back-off runs out.
            if self.blocks.get(&Blocker::Node(n)).is_some_and(|b| b.teammate) && self.support_missing(n).is_none() {
                self.blocks.remove(&Blocker::Node(n));
            }
            let mut held = false;
            for b in [Blocker::Node(n), Blocker::Item(item)].into_iter().filter_map(|b| self.blocks.get(&b)) {
                if b.retry_at > self.now {
                    held = true;
                    earliest(b.retry_at, &mut wake);
                } else if b.when_idle {
                    held = true;
                    idle_ready = true;
                }
            }
            if held {
                self.plan.set_state(n, NodeState::SetAside);
                continue;
            }
            if self.plan.node(n).state == NodeState::SetAside {
                self.plan.set_state(n, NodeState::Pending);
            }
            // A support given up does not hold back a node something else holds now.
            let waits = |me: &Self, s: NodeId| {
                let sn = me.plan.node(s);
                !(sn.owner == me.id && sn.state == NodeState::Failed && me.anchored(pos, block))
            };
            if let Some((s, spos)) = self.support_missing(n).filter(|(s, _)| waits(self, *s)) {
                if self.plan.node(s).owner == self.id {
                    // Own supports come earlier in build order; this one waits for it.
                    // Still, every blocked node is an issue the gate sees: one behind a
                    // support given up, and one whose item is not held at all (else a
                    // node behind a stuck support never asks for an item only a
                    // teammate holds).
                    let failed = self.plan.node(s).state == NodeState::Failed;
                    if failed && !self.anchored(pos, block) {
                        // Its support was given up and nothing else holds it: it cannot
                        // be placed either.
                        if self.first_issue(Blocker::Node(n)).is_none() {
                            let issue = Issue::DependencyBlocked { node: n.index() as u32, pos: spos };
                            let id = self.new_issue(issue, Blocker::Node(n), Some(n), out);
                            self.run_gate(id, issue, Some(n), out);
                        }
                        self.hold(Blocker::Node(n), Retry::WhenIdle, format!("its support at {spos} was given up"));
                        if let Some(b) = self.blocks.get_mut(&Blocker::Node(n)) {
                            b.until_supported = true;
                        }
                        self.plan.set_state(n, NodeState::Failed);
                        continue;
                    }
                    let quiet = self.first_issue(Blocker::Item(item)).is_none()
                        && !self.blocks.contains_key(&Blocker::Item(item))
                        && self.recovery.is_none();
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
                    return Next::Act(n, Action::MoveTo { target: spos, range: self.physics.reach - 0.5 });
                }
                if self.first_issue(Blocker::Node(n)).is_none() {
                    let issue = Issue::DependencyBlocked { node: n.index() as u32, pos: spos };
                    let id = self.new_issue(issue, Blocker::Node(n), Some(n), out);
                    self.run_gate(id, issue, Some(n), out);
                }
                let why = format!("waiting for {}'s block at {spos}", self.plan.node(s).owner);
                self.hold(Blocker::Node(n), Retry::Teammate, why);
                return Next::Again;
            }
            if self.inv.count(item) == 0 {
                return self.raise_missing(n, item, out);
            }
            if self.on_pillar() && !(reach_distance(self.pos, pos) <= self.physics.reach && self.anchored(pos, block)) {
                deferred.get_or_insert((n, pos, block, item));
                continue;
            }
            return self.approach(n, pos, block, item, out);
        }
        if let Some((n, pos, block, item)) = deferred {
            return self.approach(n, pos, block, item, out);
        }
        if let Some(next) = self.leave_pillar() {
            return next;
        }
        if !remaining && self.awaiting.is_empty() && self.parked.is_empty() {
            return watch.map_or(Next::Done, Next::Watch);
        }
        if idle_ready {
            // Independent work ran out: revisit what was set aside.
            for b in self.blocks.values_mut() {
                if b.when_idle && b.retry_at <= self.now {
                    b.when_idle = false;
                }
            }
            return Next::Again;
        }
        for aw in self.awaiting.values() {
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
        let Some(b) = self.blocks.get(&Blocker::Node(n)).filter(|b| b.until_supported) else {
            return false;
        };
        let teammate = b.teammate;
        if self.support_missing(n).is_none() {
            self.blocks.remove(&Blocker::Node(n));
            self.plan.set_state(n, NodeState::Pending);
            return true;
        }
        if teammate {
            let longest = self.tuning.poll_ticks.saturating_mul(1 << super::MAX_DOUBLINGS);
            let b = self.blocks.get_mut(&Blocker::Node(n)).expect("checked above");
            if b.retry_at <= self.now {
                b.retry_at = self.now + longest;
            }
            *watch = Some(watch.map_or(b.retry_at, |w| w.min(b.retry_at)));
        }
        false
    }

    /// The node's item is not held: a missing-material issue through the gate (a
    /// revisit with unchanged features only sets it aside again).
    fn raise_missing(&mut self, n: NodeId, item: ItemId, out: &mut StepOutput) -> Next {
        let deficit = self.own_need(item).saturating_sub(self.inv.count(item)).max(1);
        let issue = Issue::MissingMaterial { item, count: deficit };
        // A revisit re-detects the issue only if something changed: the gate is
        // deterministic, so the same features would give the same decision.
        let features = self.evaluate(issue, Some(n)).features;
        let blocker = Blocker::Item(item);
        if self.suppress_repeats()
            && self.first_issue(blocker).is_some()
            && self.last_features.get(&blocker) == Some(&features)
        {
            // The same decision, then: a local recovery that failed is carried out again
            // (until the blocker's attempts run out), anything else set aside again.
            let again = self.blocks.get(&blocker).is_some_and(|b| b.recover_again) && !self.exhausted(blocker);
            if let (true, Some(id)) = (again, self.first_issue(blocker)) {
                if let Some(b) = self.blocks.get_mut(&blocker) {
                    b.recover_again = false;
                }
                let budget = self.gate.params().spec().search_ticks;
                self.start_recovery(item, self.inv.count(item) + deficit, id, budget);
                return Next::Again;
            }
            let why = self.blocks.get(&blocker).map(|b| b.why.clone()).unwrap_or_default();
            self.hold(blocker, Retry::WhenIdle, why);
            return Next::Again;
        }
        self.last_features.insert(blocker, features);
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
        let Some((pos, block, _)) = place_of(&self.plan.node(n).kind) else {
            return;
        };
        match (&o.action, &o.result) {
            (Action::Place { .. }, Ok(_)) => {
                self.plan.set_state(n, NodeState::Done);
                self.resolve(Blocker::Node(n), ResolvedBy::Local, out);
            }
            // A walk that arrives changes nothing yet: the next step places.
            (Action::MoveTo { .. }, Ok(_)) => {}
            (Action::Place { .. }, Err(Failure::Occupied { pos: at }))
                if self.mem.block(*at) == Some(block) && *at == pos =>
            {
                self.plan.set_state(n, NodeState::Done);
            }
            (action, Err(f)) => {
                if matches!(f, Failure::NoPath { .. }) {
                    // No walk gets there: next time, a pillar.
                    self.lift.insert(n);
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
                if self.first_issue(Blocker::Node(n)).is_none() {
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
        for n in self.own_places() {
            let node = self.plan.node(n);
            if node.state == NodeState::Done {
                continue;
            }
            let Some((pos, _, item)) = place_of(&node.kind) else {
                continue;
            };
            let why = if let Some(aw) = self.awaiting.get(&item) {
                format!(
                    "waiting for {} from the board (window {})",
                    self.data.item_name(item),
                    aw.window.map_or("pending".into(), |w| w.to_string())
                )
            } else if self.parked_item(item) {
                format!("waiting for the adjudicator's verdict on {}", self.data.item_name(item))
            } else if let Some(b) = self.blocks.get(&Blocker::Node(n)).or_else(|| self.blocks.get(&Blocker::Item(item)))
            {
                let gave_up =
                    if b.attempts > self.tuning.max_attempts { "gave up after repeated attempts: " } else { "" };
                format!("{gave_up}{}", b.why)
            } else if self.inv.count(item) == 0 {
                format!("no {} in inventory", self.data.item_name(item))
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
