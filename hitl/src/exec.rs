//! The partner's executor: walks the plan's active path down to a leaf and turns the
//! leaf into world actions, one per wake-up, from what the bot knows and holds.
//!
//! Quantities are decided when a node is entered, from its parent's need and the
//! verified inventory (inventory first: what is held counts). An ALL-OF reserves the
//! ingredients obtained for its craft until the craft is done, so a sibling needing the
//! same item (sticks need planks too) gets more instead of spending them. A goal
//! remembers how many it started with, so switching away and back never redoes work.
//! Completion is decided by the subtask's validator, from evidence; a failed subtask
//! backtracks to the nearest valid branching point: the next alternative of an OR, the
//! next goal of the root. An ALL-OF fails with any child.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::{Action, Blueprint, GameData, Inventory, Outcome};

use crate::knowledge::Knowledge;
use crate::plan::{Kind, Leaf, Plan, State, StepId};
use crate::validate::{Seen, Snapshot, Verdict, judge};

mod leaf;
mod need;

/// Actions one leaf may take before it counts as failed.
const MAX_LEAF_ACTIONS: u32 = 48;
/// Failed actions one leaf may take.
const MAX_LEAF_FAILURES: u32 = 3;

/// What the executor wants the body to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Start this action.
    Act(Action),
    /// Let the bot's own crew agent work (the share goal is active).
    Delegate,
    /// Nothing to do: stopped, or the plan is finished.
    Idle,
}

/// Something the executor did that the trace and the person should hear of.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecEvent {
    /// A subtask was judged.
    Judged {
        /// The subtask's node in the plan.
        node: StepId,
        /// Pass or fail, with the evidence read from the world.
        verdict: Verdict,
    },
    /// A goal (a child of the root) ended.
    GoalEnded {
        /// The root's child that ended.
        goal: StepId,
        /// Whether it was reached.
        ok: bool,
    },
    /// Every goal ended.
    PlanEnded {
        /// Whether every goal was reached.
        ok: bool,
    },
}

/// The frame of a node the walk has not entered (never the case on the path: `sync`
/// enters every node of it).
static NO_FRAME: Frame = Frame {
    need: 0,
    times: 0,
    visited: BTreeSet::new(),
    reserved: Vec::new(),
    actions: 0,
    failures: 0,
    before: Snapshot::EMPTY,
};

#[derive(Debug, Clone, Default)]
struct Frame {
    need: u32,
    times: u32,
    visited: BTreeSet<StepId>,
    reserved: Vec<(ItemId, u32)>,
    actions: u32,
    failures: u32,
    before: Snapshot,
}

/// What the executor may use: the bot's knowledge, verified inventory and position.
pub struct Body<'a> {
    /// Game data.
    pub data: &'a GameData,
    /// What it knows.
    pub know: &'a Knowledge,
    /// Its verified inventory.
    pub inv: &'a Inventory,
    /// Where it stands.
    pub pos: Pos,
    /// The crew's blueprint (its cells are never mined nor built on).
    pub blueprint: &'a Blueprint,
    /// Crew-share blocks seen in place and the share's size.
    pub share: (u32, u32),
}

impl Body<'_> {
    fn seen(&self) -> Seen<'_> {
        Seen { data: self.data, inv: self.inv, pos: self.pos, know: self.know, share: self.share }
    }
}

/// The executor. See the module docs.
#[derive(Debug, Clone, Default)]
pub struct Executor {
    frames: BTreeMap<StepId, Frame>,
    bases: BTreeMap<StepId, u32>,
    finished: bool,
}

enum Step {
    Act(Action),
    Done,
    Fail,
    Delegate,
}

impl Executor {
    /// A fresh executor (for a new plan).
    pub fn new() -> Self {
        Executor::default()
    }

    /// Whether the last plan ran to its end (set until the plan gets new work).
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The verified outcome of the action it asked for.
    pub fn outcome(&mut self, plan: &Plan, o: &Outcome) {
        if let Some(f) = plan.active().and_then(|a| self.frames.get_mut(&a)) {
            // A stop cancelled it: not the leaf's failure.
            if o.result.is_err() && !matches!(o.result, Err(gatecrew_world::Failure::Interrupted { .. })) {
                f.failures += 1;
            }
        }
    }

    /// Decides the next thing to do, walking the path; returns it with what happened
    /// on the way (validators, goals ended).
    pub fn decide(&mut self, plan: &mut Plan, b: &Body<'_>) -> (Next, Vec<ExecEvent>) {
        let mut events = Vec::new();
        self.forget_removed(plan);
        for _ in 0..4 * plan.len() + 64 {
            if plan.idle() {
                return (Next::Idle, events);
            }
            if plan.path().is_empty() {
                if plan.open_goals().is_empty() {
                    return (Next::Idle, events);
                }
                self.finished = false;
                plan.set_path(vec![plan.root()]);
            }
            self.sync(plan, b);
            let Some(top) = plan.active() else { return (Next::Idle, events) };
            let kids = plan.children(top);
            match plan.step(top).kind {
                Kind::Goals => {
                    let f = self.frames.entry(top).or_default();
                    match kids.into_iter().find(|c| plan.step(*c).state == State::Pending && !f.visited.contains(c)) {
                        Some(c) => push(plan, c),
                        None => {
                            let ok = plan.children(top).iter().all(|g| plan.step(*g).state == State::Done);
                            plan.set_state(top, if ok { State::Done } else { State::Failed });
                            plan.set_path(Vec::new());
                            self.frames.clear();
                            self.finished = true;
                            events.push(ExecEvent::PlanEnded { ok });
                            return (Next::Idle, events);
                        }
                    }
                }
                Kind::Obtain { item, .. } => {
                    let f = self.frames.get(&top).unwrap_or(&NO_FRAME);
                    if b.inv.count(item) >= f.need + self.reserved(plan, item) {
                        self.complete(plan, top, b, &mut events);
                        continue;
                    }
                    match kids.into_iter().find(|c| plan.step(*c).state != State::Failed && !f.visited.contains(c)) {
                        Some(c) => push(plan, c),
                        None => self.fail(plan, top, &mut events),
                    }
                }
                Kind::Station { item } => {
                    if b.know.station(item, b.pos).is_some_and(|(_, r)| r) {
                        self.complete(plan, top, b, &mut events);
                        continue;
                    }
                    let f = self.frames.get(&top).unwrap_or(&NO_FRAME);
                    match kids.into_iter().find(|c| plan.step(*c).state != State::Failed && !f.visited.contains(c)) {
                        Some(c) => push(plan, c),
                        None => self.fail(plan, top, &mut events),
                    }
                }
                Kind::AllOf => {
                    let f = self.frames.get(&top).unwrap_or(&NO_FRAME);
                    if f.visited.iter().any(|c| plan.step(*c).state == State::Failed) {
                        self.fail(plan, top, &mut events);
                        continue;
                    }
                    // A cell already placed and judged stays placed: not judged again
                    // when its part is resumed after a switch.
                    let placed = |c: &StepId| {
                        plan.step(*c).state == State::Done && matches!(plan.step(*c).kind, Kind::Leaf(Leaf::Place(_)))
                    };
                    match kids.into_iter().find(|c| !f.visited.contains(c) && !placed(c)) {
                        Some(c) => push(plan, c),
                        None => self.complete(plan, top, b, &mut events),
                    }
                }
                Kind::Leaf(leaf) => match self.leaf(top, leaf, b) {
                    Step::Act(a) => {
                        if let Some(f) = self.frames.get_mut(&top) {
                            f.actions += 1;
                        }
                        return (Next::Act(a), events);
                    }
                    Step::Delegate => return (Next::Delegate, events),
                    Step::Done => self.complete(plan, top, b, &mut events),
                    Step::Fail => self.fail(plan, top, &mut events),
                },
            }
        }
        (Next::Idle, events)
    }

    /// The crew agent reports its share finished: the share leaf is judged.
    pub fn share_finished(&mut self, plan: &mut Plan, b: &Body<'_>) -> Vec<ExecEvent> {
        let mut events = Vec::new();
        self.forget_removed(plan);
        if let Some(top) = plan.active().filter(|t| plan.step(*t).kind == Kind::Leaf(Leaf::Share)) {
            self.sync(plan, b);
            self.complete(plan, top, b, &mut events);
        }
        events
    }

    /// Drops what the executor keeps of nodes the person's updates removed: their
    /// frames, their starting counts, and their place among the children a frame has
    /// tried (a deleted step that had been started stays in no list, and a node that
    /// later gets its index is a new node).
    fn forget_removed(&mut self, plan: &mut Plan) {
        let gone = plan.take_removed();
        if gone.is_empty() {
            return;
        }
        for n in &gone {
            self.frames.remove(n);
            self.bases.remove(n);
        }
        for f in self.frames.values_mut() {
            f.visited.retain(|c| !gone.contains(c));
        }
    }

    fn complete(&mut self, plan: &mut Plan, n: StepId, b: &Body<'_>, events: &mut Vec<ExecEvent>) {
        let f = self.frames.get(&n).cloned().unwrap_or_default();
        let verdict = judge(plan, n, f.need, &f.before, &b.seen());
        let pass = verdict.pass;
        if !matches!(plan.step(n).kind, Kind::AllOf | Kind::Goals) {
            events.push(ExecEvent::Judged { node: n, verdict });
        }
        if !pass {
            self.fail(plan, n, events);
            return;
        }
        plan.set_state(n, State::Done);
        self.pop(plan, n, events, true);
        if let (Some(p), Kind::Obtain { item, .. }) = (plan.active(), plan.step(n).kind) {
            if plan.step(p).kind == Kind::AllOf {
                if let Some(pf) = self.frames.get_mut(&p) {
                    pf.reserved.push((item, f.need));
                }
            }
        }
    }

    fn fail(&mut self, plan: &mut Plan, n: StepId, events: &mut Vec<ExecEvent>) {
        plan.set_state(n, State::Failed);
        self.pop(plan, n, events, false);
    }

    fn pop(&mut self, plan: &mut Plan, n: StepId, events: &mut Vec<ExecEvent>, ok: bool) {
        let mut path = plan.path().to_vec();
        if path.last() == Some(&n) {
            path.pop();
        }
        self.frames.remove(&n);
        if let Some(&p) = path.last() {
            if let Some(pf) = self.frames.get_mut(&p) {
                pf.visited.insert(n);
            }
            if plan.step(p).kind == Kind::Goals {
                events.push(ExecEvent::GoalEnded { goal: n, ok });
            }
        }
        plan.set_path(path);
    }
}

fn push(plan: &mut Plan, n: StepId) {
    let mut path = plan.path().to_vec();
    path.push(n);
    plan.set_path(path);
}
