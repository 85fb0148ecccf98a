//! The local solver (DESIGN section 5.5): `LOCAL_RECOVER` runs the ordered
//! alternatives of an `obtain` OR node, cheapest first by the agent's own estimate
//! (take from reach, craft from the inventory, collect and craft, smelt). Each step is
//! an action with a verified outcome; a failed step backtracks to the nearest valid
//! branching point of the task graph.

use gatecrew_gating::Issue;
use gatecrew_protocol::trace::{Decision, ResolvedBy};
use gatecrew_protocol::{IssueId, ItemId, Pos};
use gatecrew_world::cost::{Knowledge, Planner};
use gatecrew_world::{Action, ContainerKind, Outcome, reach_distance};

use super::{AgentCore, Blocker, Note, Retry, StepOutput};
use crate::plan::obtain::{Alternative, Extras, Part, Rank, Way, ranked};
use crate::plan::{AndKind, Backtrack, NodeId, NodeKind, NodeState, Task};

/// Alternatives kept per `obtain` node.
const MAX_ALTERNATIVES: usize = 4;

#[derive(Debug, Clone, PartialEq)]
enum Frame {
    Obtain { node: NodeId, item: ItemId, target: u32, depth: usize },
    AllOf { node: NodeId, next: usize, depth: usize },
    Task { node: NodeId, target: u32, actions: u32 },
}

/// A local recovery in progress.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Recovery {
    /// The item the recovery is for.
    pub item: ItemId,
    issue: IssueId,
    stack: Vec<Frame>,
    paused_for: Option<ItemId>,
    asked: Vec<ItemId>,
    budget: u64,
}

impl Recovery {
    /// Items arrived (or the wait ended): go on.
    pub fn unpause(&mut self, item: ItemId) {
        if self.paused_for == Some(item) {
            self.paused_for = None;
        }
    }

    /// Whether it waits for the board.
    pub fn paused(&self) -> bool {
        self.paused_for.is_some()
    }

    /// The item it waits for.
    pub fn paused_for(&self) -> Option<ItemId> {
        self.paused_for
    }
}

enum TaskStep {
    Act(Action),
    Done,
    Fail,
}

impl AgentCore {
    /// Starts `LOCAL_RECOVER` for holding `want` of `item`, considering routes that cost
    /// at most `budget` ticks.
    pub(super) fn start_recovery(&mut self, item: ItemId, want: u32, issue: IssueId, budget: u64) {
        let top = self.work.plan.obtain_node_or_add(self.id, item);
        self.work.plan.clear_below(top);
        self.blocker.recovery = Some(Recovery {
            item,
            issue,
            stack: vec![Frame::Obtain { node: top, item, target: want, depth: 0 }],
            paused_for: None,
            asked: Vec::new(),
            budget,
        });
    }

    fn step_label(&self, task: &Task) -> String {
        let n = |i: ItemId| self.ctx.data.item_name(i).to_owned();
        match *task {
            Task::Fetch { item } => format!("fetch {}", n(item)),
            Task::Craft { recipe } => format!("craft {}", n(self.ctx.data.recipe(recipe).result)),
            Task::Collect { item, .. } => format!("collect {}", n(item)),
            Task::Smelt { input, output } => format!("smelt {} -> {}", n(input), n(output)),
            Task::Station { item } => format!("station {}", n(item)),
            Task::Place { item, .. } => format!("place {}", n(item)),
        }
    }

    /// Generates the alternatives of an `obtain` node in cost order.
    fn expand(&mut self, or: NodeId, item: ItemId, target: u32) {
        let deficit = target.saturating_sub(self.inv.count(item)).max(1);
        let budget = self.blocker.recovery.as_ref().map_or(self.gate.params().spec().search_ticks, |r| r.budget);
        // Priced routes only, cheapest first (the partner's planner ranks the same way,
        // and keeps unpriced ones too).
        let alts = {
            let k = self.known_for(Some(item));
            let mut p = Planner::new(&k, budget);
            ranked(&k, &mut p, item, deficit, MAX_ALTERNATIVES, |q| q.price().map(Rank::priced))
        };
        // What the blueprint still places stays for it: an ingredient or a fuel is
        // obtained on top of the reserved count, so a craft or a smelt never eats the
        // planks a floor needs (the planner priced the route that way too).
        let reserved = self.reserved_map(self.blocker.recovery.as_ref().map(|r| r.item));
        let keep = |i: ItemId| reserved.get(&i).copied().unwrap_or(0);
        for Alternative { way, fuel, .. } in alts {
            // A tool is obtained first only when none that would do is held.
            let tool = match way {
                Way::Mine(block) => self.ctx.data.block_info(block).needs.and_then(|need| {
                    let tools = self.ctx.data.tools_satisfying(need);
                    (!tools.iter().any(|t| self.inv.count(*t) > 0)).then(|| tools.first().copied()).flatten()
                }),
                _ => None,
            };
            let extras = Extras { table: self.ctx.physics.table.1, furnace: self.ctx.physics.furnace.1, tool, fuel };
            let parent =
                if way.all_of(&extras) { self.work.plan.add_child(or, NodeKind::And(AndKind::AllOf)) } else { or };
            for part in way.parts(&self.ctx.data, item, deficit, extras, keep) {
                match part {
                    Part::Obtain { item, count } => {
                        let o = self.work.plan.add_child(parent, NodeKind::Obtain { item });
                        self.work.targets.insert(o, count);
                    }
                    Part::Station { item } => {
                        self.work.plan.add_child(parent, NodeKind::Task(Task::Station { item }));
                    }
                    Part::Work(task) => {
                        let c = self.work.plan.add_child(parent, NodeKind::Task(task));
                        self.work.targets.insert(c, target);
                    }
                }
            }
        }
        self.work.plan.mark_expanded(or);
    }

    fn frame_for(&self, node: NodeId, depth: usize) -> Frame {
        let target = self.work.targets.get(&node).copied().unwrap_or(1);
        match self.work.plan.node(node).kind {
            NodeKind::Obtain { item } => Frame::Obtain { node, item, target, depth: depth + 1 },
            NodeKind::And(_) => Frame::AllOf { node, next: 0, depth },
            NodeKind::Task(_) => Frame::Task { node, target, actions: 0 },
        }
    }

    /// Marks a node failed and unwinds the stack to the nearest valid branching point.
    fn fail_node(&mut self, node: NodeId) -> bool {
        self.work.plan.set_state(node, NodeState::Failed);
        let Some(rec) = &mut self.blocker.recovery else {
            return false;
        };
        match self.work.plan.backtrack(node) {
            Backtrack::Alternative { or, .. } => {
                while let Some(top) = rec.stack.last() {
                    if matches!(top, Frame::Obtain { node, .. } if *node == or) {
                        return true;
                    }
                    rec.stack.pop();
                }
                false
            }
            Backtrack::Continue { .. } | Backtrack::Exhausted => {
                rec.stack.clear();
                false
            }
        }
    }

    fn finish_recovery(&mut self, ok: bool, out: &mut StepOutput) {
        let Some(rec) = self.blocker.recovery.take() else {
            return;
        };
        if ok {
            self.blocker.resolve(Blocker::Item(rec.item), ResolvedBy::Local, &mut out.notes);
        } else {
            let why = format!("local recovery of {} failed", self.ctx.data.item_name(rec.item));
            self.hold(Blocker::Item(rec.item), Retry::WhenIdle, why);
            if let Some(b) = self.blocker.blocks.get_mut(&Blocker::Item(rec.item)) {
                b.recover_again = true;
            }
        }
    }

    /// The next action of the recovery, or `None` when it ended or paused.
    pub(super) fn next_recovery_action(&mut self, out: &mut StepOutput) -> Option<Action> {
        for _ in 0..256 {
            let rec = self.blocker.recovery.as_ref()?;
            if rec.paused() {
                return None;
            }
            let Some(top) = rec.stack.last().cloned() else {
                let ok = self.inv.count(rec.item) > 0;
                self.finish_recovery(ok, out);
                return None;
            };
            match top {
                Frame::Obtain { node, item, target, depth } => {
                    if self.inv.count(item) >= target {
                        self.work.plan.set_state(node, NodeState::Done);
                        self.pop_frame();
                        if self.blocker.first_issue(Blocker::Item(item)).is_some()
                            && Some(item) != self.blocker.recovery.as_ref().map(|r| r.item)
                        {
                            self.blocker.resolve(Blocker::Item(item), ResolvedBy::Local, &mut out.notes);
                        }
                        continue;
                    }
                    if depth > self.ctx.tuning.max_obtain_depth {
                        if !self.fail_node(node) {
                            self.finish_recovery(false, out);
                            return None;
                        }
                        continue;
                    }
                    if self.ctx.data.tool(item).is_some() && self.ask_for_tool(item, out) {
                        return None;
                    }
                    if !self.work.plan.node(node).expanded {
                        self.expand(node, item, target);
                    }
                    let next = self
                        .work
                        .plan
                        .children(node)
                        .into_iter()
                        .find(|c| self.work.plan.node(*c).state == NodeState::Pending);
                    match next {
                        Some(c) => {
                            let f = self.frame_for(c, depth);
                            self.push_frame(f);
                        }
                        None => {
                            if !self.fail_node(node) {
                                self.finish_recovery(false, out);
                                return None;
                            }
                        }
                    }
                }
                Frame::AllOf { node, next, depth } => {
                    let children = self.work.plan.children(node);
                    match children.get(next) {
                        None => {
                            self.work.plan.set_state(node, NodeState::Done);
                            self.pop_frame();
                        }
                        Some(&c) => {
                            if let Some(Frame::AllOf { next, .. }) =
                                self.blocker.recovery.as_mut().and_then(|r| r.stack.last_mut())
                            {
                                *next += 1;
                            }
                            let f = self.frame_for(c, depth);
                            self.push_frame(f);
                        }
                    }
                }
                Frame::Task { node, target, actions } => {
                    let NodeKind::Task(task) = self.work.plan.node(node).kind else {
                        unreachable!("task frames hold tasks")
                    };
                    let step = if actions > self.ctx.tuning.max_task_actions {
                        TaskStep::Fail
                    } else {
                        self.task_step(task, target)
                    };
                    match step {
                        TaskStep::Act(a) => {
                            if let Some(Frame::Task { actions, .. }) =
                                self.blocker.recovery.as_mut().and_then(|r| r.stack.last_mut())
                            {
                                *actions += 1;
                            }
                            return Some(a);
                        }
                        TaskStep::Done => {
                            let id = self.blocker.recovery.as_ref().map(|r| r.issue).expect("recovery is active");
                            out.notes.push(Note::Recovery { id, step: self.step_label(&task), ok: true });
                            self.work.plan.set_state(node, NodeState::Done);
                            self.pop_frame();
                        }
                        TaskStep::Fail => {
                            let id = self.blocker.recovery.as_ref().map(|r| r.issue).expect("recovery is active");
                            out.notes.push(Note::Recovery { id, step: self.step_label(&task), ok: false });
                            if !self.fail_node(node) {
                                self.finish_recovery(false, out);
                                return None;
                            }
                        }
                    }
                }
            }
        }
        self.finish_recovery(false, out);
        None
    }

    fn push_frame(&mut self, f: Frame) {
        if let Some(r) = &mut self.blocker.recovery {
            r.stack.push(f);
        }
    }

    fn pop_frame(&mut self) {
        if let Some(r) = &mut self.blocker.recovery {
            r.stack.pop();
        }
    }

    /// A tool the recovery needs is missing: that is an issue of its own, gated like any
    /// other. Returns whether the recovery now waits for the board.
    fn ask_for_tool(&mut self, tool: ItemId, out: &mut StepOutput) -> bool {
        if self.inv.count(tool) > 0 || self.blocker.recovery.as_ref().is_some_and(|r| r.asked.contains(&tool)) {
            return false;
        }
        if let Some(r) = &mut self.blocker.recovery {
            r.asked.push(tool);
        }
        let issue = Issue::MissingTool { tool };
        let id = self.new_issue(issue, Blocker::Item(tool), None, out);
        match self.assess(id, issue, None, out) {
            Some((Decision::Escalate, _)) => self.escalate(id, issue, out),
            Some(_) => return false,
            // Parked for the adjudicator: the recovery waits for the verdict.
            None => {}
        }
        if let Some(r) = &mut self.blocker.recovery {
            r.paused_for = Some(tool);
        }
        true
    }

    fn task_step(&mut self, task: Task, target: u32) -> TaskStep {
        let reach = self.ctx.physics.reach;
        let in_reach = |me: Pos, p: Pos| reach_distance(me, p) <= reach;
        let approach = |p: Pos| TaskStep::Act(Action::MoveTo { target: p, range: reach - 0.5 });
        match task {
            Task::Fetch { item } => {
                let have = self.inv.count(item);
                if have >= target {
                    return TaskStep::Done;
                }
                let k = self.known();
                let mut stores = k.stored(item);
                stores.sort_by_key(|(p, _)| (p.dist_sq(self.pos), *p));
                let Some(&(p, n)) = stores.first() else {
                    return TaskStep::Fail;
                };
                if !in_reach(self.pos, p) {
                    return approach(p);
                }
                if self.knowledge.mem.dropped().contains_key(&p) {
                    TaskStep::Act(Action::PickUp { pos: p })
                } else {
                    TaskStep::Act(Action::Withdraw { chest: p, item, count: n.min(target - have) })
                }
            }
            Task::Craft { recipe } => {
                let r = self.ctx.data.recipe(recipe).clone();
                let have = self.inv.count(r.result);
                if have >= target {
                    return TaskStep::Done;
                }
                let times = (target - have).div_ceil(r.count);
                // Only ingredients beyond what the blueprint still places.
                let k = self.known_for(Some(r.result));
                if r.ingredients.iter().any(|(i, n)| k.held(*i) < n * times) {
                    return TaskStep::Fail;
                }
                TaskStep::Act(Action::Craft { recipe, times })
            }
            Task::Collect { item, block } => {
                if self.inv.count(item) >= target {
                    return TaskStep::Done;
                }
                let k = self.known();
                let Some(p) = k.nearest_resource(block) else {
                    return TaskStep::Fail;
                };
                if in_reach(self.pos, p) { TaskStep::Act(Action::Mine { pos: p }) } else { approach(p) }
            }
            Task::Smelt { input, output } => {
                let have = self.inv.count(output);
                if have >= target {
                    return TaskStep::Done;
                }
                let k = self.known();
                let Some(f) = k.furnace() else {
                    return TaskStep::Fail;
                };
                if !in_reach(self.pos, f) {
                    return approach(f);
                }
                // Never an input or a fuel the blueprint still places (planks burn too).
                let k = self.known_for(Some(output));
                let count = k.held(input).min(target - have);
                let fuel = self.ctx.data.fuels().into_iter().find(|(i, _)| k.held(*i) > 0).map(|(i, _)| i);
                match (count, fuel) {
                    (0, _) | (_, None) => TaskStep::Fail,
                    (count, Some(fuel)) => TaskStep::Act(Action::Smelt { furnace: f, input, count, fuel }),
                }
            }
            Task::Station { item } => {
                let kind =
                    if Some(item) == self.ctx.physics.table.1 { ContainerKind::Table } else { ContainerKind::Furnace };
                let k = self.known();
                let known = if kind == ContainerKind::Table { k.table() } else { k.furnace() };
                if let Some(p) = known {
                    if in_reach(self.pos, p) {
                        return TaskStep::Done;
                    }
                    if p.dist(self.pos) <= 24.0 {
                        return approach(p);
                    }
                }
                if self.inv.count(item) == 0 {
                    return TaskStep::Fail;
                }
                match self.free_spot_near() {
                    Some(spot) => TaskStep::Act(Action::place(spot, item)),
                    None => TaskStep::Fail,
                }
            }
            Task::Place { .. } => TaskStep::Fail,
        }
    }

    /// A free cell next to the agent, on the ground or on a block, not in the blueprint.
    fn free_spot_near(&self) -> Option<Pos> {
        let here = self.pos;
        [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]
            .into_iter()
            .map(|(dx, dz)| here.offset(dx, 0, dz))
            .find(|p| {
                self.knowledge.mem.block(*p).is_none()
                    && self.knowledge.mem.block(p.up()).is_none()
                    && (p.y == 0 || self.knowledge.mem.block(p.down()).is_some())
                    && self.ctx.blueprint.index_of(*p).is_none()
            })
    }

    pub(super) fn recover_outcome(&mut self, o: &Outcome, out: &mut StepOutput) {
        match (&o.action, &o.result) {
            (Action::Withdraw { chest, item, count }, Ok(_)) => {
                self.knowledge.mem.adjust_container(*chest, *item, -i64::from(*count))
            }
            (Action::PickUp { pos }, Ok(_)) => self.knowledge.mem.forget_dropped(*pos),
            (Action::Place { pos, item, .. }, Ok(_)) => {
                if Some(*item) == self.ctx.physics.table.1 {
                    self.knowledge.mem.add_station(*pos, ContainerKind::Table);
                } else if Some(*item) == self.ctx.physics.furnace.1 {
                    self.knowledge.mem.add_station(*pos, ContainerKind::Furnace);
                }
            }
            (_, Ok(_)) => {}
            (_, Err(_)) => {
                // The task failed: record it and backtrack.
                let Some(Frame::Task { node, .. }) =
                    self.blocker.recovery.as_ref().and_then(|r| r.stack.last().cloned())
                else {
                    return;
                };
                let NodeKind::Task(task) = self.work.plan.node(node).kind else {
                    return;
                };
                let id = self.blocker.recovery.as_ref().map(|r| r.issue).expect("recovery is active");
                out.notes.push(Note::Recovery { id, step: self.step_label(&task), ok: false });
                if !self.fail_node(node) {
                    self.finish_recovery(false, out);
                }
            }
        }
    }
}
