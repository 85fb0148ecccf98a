//! The agent core: one bot's private execution state `S = (I, T, P, B, H)` and the
//! step function that turns verified inputs into intents (DESIGN section 4).
//!
//! * `I`, the inventory, changes only from verified outcomes and receipts;
//! * `T`, the task graph with the state of every node as this agent believes it;
//! * `P`, the position (and the memory of what it has seen nearby);
//! * `B`, the blockers: open issues, the local recovery in progress, windows awaited;
//! * `H`, the per-key escalation history and the last few verified outcomes.
//!
//! [`AgentCore::step`] is pure: the same input on the same state gives the same
//! output. Nothing here can reach another agent's state or the board: the core returns
//! board messages for the caller to post and reads the board only through the news it
//! is handed.

mod baseline;
mod blocker;
mod board;
mod build;
mod consult;
mod dead_ends;
mod explore;
mod factory;
mod gate;
mod given_up;
mod history;
mod knowledge;
mod memory;
mod model;
mod recover;
mod request;
mod scaffold;
mod work;

use std::sync::Arc;

use gatecrew_gating::{Gate, Issue, Verdict};
use gatecrew_protocol::trace::ResolvedBy;
use gatecrew_protocol::{AgentId, BoardConfig, BoardMessage, IssueId, ItemId, Pos, Tick, WindowId};
use gatecrew_world::{Action, Blueprint, GameData, Inventory, Observation, Outcome, Receipt};
use serde::{Deserialize, Serialize};

use crate::plan::{NodeId, TaskGraph};

use blocker::{Awaiting, Blocker, Blockers, Retry};
use history::History;
use knowledge::Knowledge;
use work::{Handover, Purpose, Work};

pub use board::FALLBACK_REACH;
pub use consult::Consult;
pub use factory::AgentFactory;
pub use memory::{Known, Memory, Physics};
pub use request::work_regions;
// Board news is what the styles read too: its own file, so style.rs need not import agent.rs.
pub use crate::news::BoardNews;

/// Tuning of the agents' patience and retries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentTuning {
    /// How long to wait before looking again at a blocked dependency.
    pub poll_ticks: u64,
    /// How long a set-aside node waits before it is tried again.
    pub revisit_ticks: u64,
    /// Tries per node before the agent gives up on it.
    pub max_attempts: u32,
    /// Verified outcomes kept in the short history.
    pub history_len: usize,
    /// Actions one recovery task may take before it counts as failed.
    pub max_task_actions: u32,
    /// Depth of nested `obtain` nodes the local solver expands.
    pub max_obtain_depth: usize,
}

impl Default for AgentTuning {
    fn default() -> Self {
        AgentTuning {
            poll_ticks: 20,
            revisit_ticks: 60,
            max_attempts: 6,
            history_len: 8,
            max_task_actions: 24,
            max_obtain_depth: 4,
        }
    }
}

/// Everything an agent learns at one wake-up.
#[derive(Debug, Clone, PartialEq)]
pub struct StepInput {
    /// The tick of this wake-up; deadlines and cooldowns are counted from it.
    pub tick: Tick,
    /// The verified outcome of its action, if one completed.
    pub outcome: Option<Outcome>,
    /// Items teammates handed over, verified by the world.
    pub receipts: Vec<Receipt>,
    /// Board news since the last wake-up.
    pub board: Vec<BoardNews>,
    /// What it sees.
    pub view: Observation,
    /// Tier-3 verdicts on this agent's gray-zone consults, entering now.
    pub verdicts: Vec<(IssueId, Verdict)>,
    /// The episode is ending: report unfinished work and stop.
    pub final_call: bool,
    /// Fault injection: the step must panic (the supervisor restarts the agent).
    pub crash: bool,
    /// What the coordination style's own channel brings (empty under the protocol).
    pub style: Vec<crate::style::Delivery>,
}

/// What the agent wants next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Intent {
    /// An action is in flight; nothing new.
    Continue,
    /// Start an action.
    Act(Action),
    /// Sleep until the tick, or until news if `None`.
    Wait(Option<Tick>),
    /// Sleep until the tick only to look again for teammates' blocks it waits for (or
    /// gave up waiting for): nothing else of its own is left. The episode ends before
    /// the tick if nothing else is going on and no action completed since this one
    /// looked: the blocks cannot come any more.
    Watch(Tick),
    /// No work of its own is left (it still answers the board).
    Done,
}

/// A gate decision with what the trace needs besides.
#[derive(Debug, Clone, PartialEq)]
pub struct GateNote {
    /// The issue the gate was asked about.
    pub issue_id: IssueId,
    /// Escalate or stay local, with the tier that decided and its score.
    pub decision: gatecrew_gating::GateDecision,
    /// The five features the score weighed, as the trace records them.
    pub features: gatecrew_gating::Features,
    /// What the tier-1 rules looked at besides the features (the trace's `context`).
    pub ctx: gatecrew_gating::RuleContext,
    /// What the oracle should be asked: the item and count a local recovery would need
    /// (`None`: the issue is not about items).
    pub oracle: OracleQuery,
}

/// What the gate says about an issue now, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// The five features the score weighed.
    pub features: gatecrew_gating::Features,
    /// What the tier-1 rules looked at besides the features.
    pub ctx: gatecrew_gating::RuleContext,
    /// Escalate or stay local, with the tier that decided and its score.
    pub decision: gatecrew_gating::GateDecision,
    /// What the oracle should be asked, to score the decision afterwards.
    pub oracle: OracleQuery,
}

/// The question for the world's oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OracleQuery {
    /// Could the agent get these items alone?
    Items(ItemId, u32),
    /// A local retry is always possible.
    Retry,
    /// Only a teammate can unblock it.
    NeedsTeammate,
}

/// Something for the trace.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// An issue detected.
    Issue {
        /// The id the later notes about it (gate, recovery, resolution) carry.
        id: IssueId,
        /// What blocks the agent (a missing item, a blocked cell, a failed action).
        issue: Issue,
        /// The plan node it holds back, if one.
        node: Option<NodeId>,
    },
    /// The gate decided.
    Gate(GateNote),
    /// A recovery step finished.
    Recovery {
        /// The issue the recovery works on.
        id: IssueId,
        /// The step's label.
        step: String,
        /// Its verified result.
        ok: bool,
    },
    /// An issue resolved.
    Resolved {
        /// The issue that no longer blocks anything.
        id: IssueId,
        /// Whether the local solver, the board or a teammate's work resolved it.
        by: ResolvedBy,
    },
    /// The board failed an escalated issue (its window closed empty, its request was
    /// lost or refused) and control went back to the local solver.
    Fallback {
        /// The escalated issue the board failed.
        id: IssueId,
        /// What the agent does now: LOCAL_RECOVER (a longer local search found a way)
        /// or LOCAL_SKIP (set aside until something changes).
        action: gatecrew_protocol::trace::GateAction,
        /// Why the board failed: `timeout`, `cannot_supply`, `rejected`, `lost` or `manager`.
        cause: gatecrew_protocol::trace::FallbackCause,
    },
    /// A model-driven bot's call at a decision point.
    ModelCall(crate::bots::CallNote),
    /// A node left unfinished at the end.
    Unfinished {
        /// The plan node not done.
        node: NodeId,
        /// Where its block goes, for a placement.
        pos: Option<Pos>,
        /// What held it back last (the blocker's note), for the report.
        why: String,
    },
}

/// What one step produced.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutput {
    /// Trace notes, in order.
    pub notes: Vec<Note>,
    /// Board messages to post, in order, with the issue behind each request.
    pub posts: Vec<(BoardMessage, Option<IssueId>)>,
    /// Gray-zone cases for the tier-3 adjudicator (only when it consults one); each
    /// issue waits for its verdict in [`StepInput::verdicts`].
    pub consults: Vec<Consult>,
    /// What it says on the coordination style's own channel, in order (empty under the
    /// protocol).
    pub style: Vec<crate::style::Aside>,
    /// What next.
    pub intent: Intent,
}

/// A request an agent is waiting on (see [`AgentCore::waiting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    /// The item asked for.
    pub item: ItemId,
    /// Its window, once the board opened it.
    pub window: Option<WindowId>,
    /// When the agent asked (or, for the manager's assignment, was assigned a giver).
    pub since: Tick,
    /// The agent gives up on it (and falls back to the local solver) one tick after this.
    pub deadline: Tick,
}

/// Everything an agent starts with.
#[derive(Debug, Clone)]
pub struct AgentSetup {
    /// Its id.
    pub id: AgentId,
    /// The crew roster, shared by every agent.
    pub crew: Arc<[AgentId]>,
    /// The centre of each agent's share (see [`work_regions`]), shared by every agent.
    pub regions: Arc<[Pos]>,
    /// Game data.
    pub data: Arc<GameData>,
    /// The blueprint.
    pub blueprint: Arc<Blueprint>,
    /// Its copy of the task graph.
    pub plan: TaskGraph,
    /// Where the ground is never dug ([`kept_ground`]), shared by every agent.
    pub kept_ground: Arc<std::collections::BTreeSet<(i32, i32)>>,
    /// Its gate.
    pub gate: Gate,
    /// The crew's coordination policy.
    pub policy: crate::policy::Policy,
    /// Patience and retries.
    pub tuning: AgentTuning,
    /// Public physics.
    pub physics: Physics,
    /// Public board timing.
    pub board: BoardConfig,
    /// Start position (verified at spawn).
    pub start: Pos,
    /// Start inventory (verified at spawn).
    pub inventory: Inventory,
    /// Whether the gray zone is put to an external adjudicator (consults) instead of
    /// being settled inline by the deterministic one.
    pub consult: bool,
    /// The seat a model-driven bot asks at its decision points (`None`: scripted).
    pub seat: Option<Arc<crate::bots::Seat>>,
}

/// One bot's mind: its private execution state `S = (I, T, P, B, H)` and its
/// knowledge (DESIGN section 4), each a part of its own, beside what it was given at
/// spawn. Cloning it is how the supervisors checkpoint it (the stepper before a step
/// with an injected crash, the actors' journal every few steps).
#[derive(Debug, Clone)]
pub struct AgentCore {
    id: AgentId,
    now: Tick,
    ctx: Context,
    gate: Gate,
    /// I: the verified inventory.
    inv: Inventory,
    /// T: the bot's work.
    work: Work,
    /// P: where it stands (its work region is the crew's split, in [`Context::regions`]).
    pos: Pos,
    /// B: what holds it back.
    blocker: Blockers,
    /// H: what happened to its asks and its actions.
    history: History,
    /// What it has seen, and what the board said.
    knowledge: Knowledge,
    /// The coordination style's own state in this bot, if it keeps any (central_dag's).
    side: Option<Box<dyn crate::style::BotSide>>,
    /// Buffers the gate reuses between decisions (not state: a clone starts empty).
    gate_scratch: gate::Scratch,
    /// The model that decides for a model-driven bot.
    mind: Option<model::Mind>,
}

/// What a bot is given at spawn and never changes: the crew, the split, the game data,
/// the blueprint, its tuning, the public physics and board timing, and how it
/// coordinates.
#[derive(Debug, Clone)]
struct Context {
    crew: Arc<[AgentId]>,
    regions: Arc<[Pos]>,
    data: Arc<GameData>,
    blueprint: Arc<Blueprint>,
    tuning: AgentTuning,
    physics: Physics,
    board_cfg: BoardConfig,
    /// Whether the gray zone goes to an external adjudicator (a consult).
    consult: bool,
    style: &'static dyn crate::style::Style,
}

/// The columns under the blueprint and one block around it: their ground stays.
pub fn kept_ground(bp: &Blueprint) -> Arc<std::collections::BTreeSet<(i32, i32)>> {
    let near = |c: &gatecrew_world::Cell| {
        let (x, z) = (c.pos.x, c.pos.z);
        (-1..=1).flat_map(move |dx| (-1..=1).map(move |dz| (x + dx, z + dz)))
    };
    Arc::new(bp.cells().iter().flat_map(near).collect())
}

impl AgentCore {
    /// A fresh agent.
    pub fn new(s: AgentSetup) -> Self {
        let mut mem = Memory::default();
        mem.keep_ground(s.kept_ground);
        let style = crate::style::of(s.policy);
        AgentCore {
            id: s.id,
            now: Tick(0),
            ctx: Context {
                crew: s.crew,
                regions: s.regions,
                data: s.data,
                blueprint: s.blueprint,
                tuning: s.tuning,
                physics: s.physics,
                board_cfg: s.board,
                consult: s.consult,
                style,
            },
            gate: s.gate,
            inv: s.inventory,
            work: Work::new(s.plan),
            pos: s.start,
            blocker: Blockers::default(),
            history: History::default(),
            knowledge: Knowledge { mem, ..Knowledge::default() },
            side: style.bot(),
            gate_scratch: gate::Scratch::default(),
            mind: s.seat.map(|seat| model::Mind::new(seat, style.model_view())),
        }
    }

    /// This agent's id.
    pub fn id(&self) -> AgentId {
        self.id
    }

    /// Whether a language model decides for it (`--bots model`).
    pub fn model_driven(&self) -> bool {
        self.mind.is_some()
    }

    /// The verified inventory.
    pub fn inventory(&self) -> &Inventory {
        &self.inv
    }

    /// The task graph as this agent sees it.
    pub fn plan(&self) -> &TaskGraph {
        &self.work.plan
    }

    /// The requests this agent is waiting on, in item order.
    pub fn waiting(&self) -> Vec<Waiting> {
        self.blocker
            .awaiting
            .iter()
            .map(|(item, aw)| Waiting { item: *item, window: aw.window, since: aw.since, deadline: aw.deadline })
            .collect()
    }

    /// What the board showed this bot of `item`, in id order: the teammates it saw
    /// offer it and those it saw say they cannot supply it (to any requester).
    pub fn heard_of(&self, item: ItemId) -> (Vec<AgentId>, Vec<AgentId>) {
        let ids = |m: &std::collections::BTreeMap<ItemId, std::collections::BTreeSet<AgentId>>| {
            m.get(&item).map(|s| s.iter().copied().collect()).unwrap_or_default()
        };
        (ids(&self.knowledge.offered), ids(&self.knowledge.refused))
    }

    /// Its teammates, in roster order.
    pub fn teammate_ids(&self) -> Vec<AgentId> {
        self.teammates().collect()
    }

    /// Handles one wake-up.
    ///
    /// # Panics
    /// When `input.crash` is set: that is the injected fault the supervisor recovers
    /// from.
    pub fn step(&mut self, input: StepInput) -> StepOutput {
        self.step_with(&input, true)
    }

    /// As [`Self::step`], leaving the input with the caller: the actor runtime keeps
    /// every input in its journal (to replay after a crash), and a borrowed step spares
    /// it a copy of each observation.
    ///
    /// # Panics
    /// As [`Self::step`].
    pub fn step_ref(&mut self, input: &StepInput) -> StepOutput {
        self.step_with(input, true)
    }

    /// Handles one wake-up without starting work of its own: outcomes, receipts, board
    /// news and verdicts are taken in as by [`Self::step`], but the intent is only
    /// `Continue` (its own action is in flight) or `Wait(None)`. A human partner's
    /// executor (`gatecrew-hitl`) uses the body meanwhile for the person's task; the
    /// outcomes of those actions come back here and only update the inventory and the
    /// memory.
    ///
    /// # Panics
    /// As [`Self::step`].
    pub fn step_held(&mut self, input: StepInput) -> StepOutput {
        self.step_with(&input, false)
    }

    /// The parts of the input it keeps are small and `Copy` or nearly (news, receipts,
    /// verdicts); the observation, the large part, is only read.
    fn step_with(&mut self, input: &StepInput, work: bool) -> StepOutput {
        if input.crash {
            // An injected crash unwinds without the panic hook: it is expected, and a
            // soak with thousands of them would flood stderr with backtraces.
            std::panic::resume_unwind(Box::new(format!("{}: injected crash at {}", self.id, input.tick)));
        }
        let _span = tracing::debug_span!("step", agent = %self.id, tick = input.tick.0).entered();
        self.now = input.tick;
        let mut out = StepOutput {
            notes: Vec::new(),
            posts: Vec::new(),
            consults: Vec::new(),
            style: Vec::new(),
            intent: Intent::Continue,
        };
        if let Some(o) = &input.outcome {
            self.work.in_flight = false;
            self.absorb(o, &mut out);
            // A local recovery resolves what it obtains itself, when its step is done.
            if self.blocker.recovery.is_none() {
                self.resolve_arrived(ResolvedBy::Local, &mut out);
            }
        }
        for r in &input.receipts {
            self.on_receipt(*r, &mut out);
            self.resolve_arrived(ResolvedBy::Board, &mut out);
        }
        self.observe(&input.view);
        self.model_see(&input.view.teammates);
        for news in &input.board {
            self.model_hear(news);
            self.on_news(news.clone(), &mut out);
        }
        for d in &input.style {
            match d {
                crate::style::Delivery::Directive(d) => {
                    self.model_order(d);
                    self.on_directive(*d);
                }
            }
        }
        self.expire_awaiting();
        for &(id, verdict) in &input.verdicts {
            self.on_verdict(id, verdict, &mut out);
        }
        out.notes.append(&mut self.blocker.fallbacks);
        if input.final_call {
            self.report_unfinished(&mut out);
            out.intent = Intent::Done;
            return out;
        }
        if let Some(side) = &mut self.side {
            side.wake(&self.inv, &mut out.style);
        }
        out.intent = if self.work.in_flight {
            Intent::Continue
        } else if work {
            self.decide(&mut out)
        } else {
            Intent::Wait(None)
        };
        if let Intent::Act(_) = out.intent {
            self.work.in_flight = true;
        }
        out
    }

    /// The issue for a blocker just detected: the open one when this blocker was
    /// detected before with the same kind of issue and has not cleared (no new issue is
    /// recorded; the gate runs again under its id), else a new one.
    fn new_issue(&mut self, issue: Issue, blocker: Blocker, node: Option<NodeId>, out: &mut StepOutput) -> IssueId {
        let held = issue.requestable().map_or(0, |(item, _)| self.inv.count(item));
        let (id, new) = self.blocker.open(self.id, issue, blocker, held);
        if new {
            out.notes.push(Note::Issue { id, issue, node });
        }
        id
    }

    /// Item blockers the agent now holds enough for are gone, however the items came:
    /// resolved by the board when a teammate handed them over, locally otherwise.
    fn resolve_arrived(&mut self, by: ResolvedBy, out: &mut StepOutput) {
        for b in self.blocker.cleared(|item| self.inv.count(item)) {
            self.blocker.resolve(b, by, &mut out.notes);
        }
    }

    /// Sets a blocker aside now; after too many attempts the nodes behind it are given up.
    fn hold(&mut self, blocker: Blocker, retry: Retry, why: String) {
        self.blocker.hold(blocker, retry, why, self.now, &self.ctx.tuning);
    }

    fn absorb(&mut self, o: &Outcome, out: &mut StepOutput) {
        self.history.remember(self.now, o.action.name(), o.ok(), self.ctx.tuning.history_len);
        // Ground someone else dug, or that cannot be dug here: not a source any more.
        if let (Action::Mine { pos }, Err(_)) = (&o.action, &o.result) {
            if pos.y < 0 {
                self.knowledge.mem.saw_dug(*pos);
            }
        }
        if let Ok(delta) = &o.result {
            for &(item, d) in &delta.items {
                if d > 0 {
                    self.inv.insert_unchecked(item, d as u32);
                } else {
                    let _ = self.inv.remove(item, (-d) as u32);
                }
            }
            if let Some(p) = delta.moved_to {
                self.pos = p;
            }
            for &(p, b) in &delta.placed {
                self.knowledge.mem.saw_block(p, b);
                self.knowledge.dead_ends.changed(p);
            }
            for &(p, _) in &delta.removed {
                if p.y < 0 {
                    self.knowledge.mem.saw_dug(p);
                }
                self.knowledge.mem.saw_block(p, gatecrew_world::BlockId::AIR);
                self.knowledge.dead_ends.changed(p);
            }
        }
        match self.work.purpose.take() {
            Some(Purpose::Build(node)) => self.build_outcome(node, o, out),
            Some(Purpose::Scaffold(node)) => self.scaffold_outcome(node, o),
            Some(Purpose::Recover) => self.recover_outcome(o, out),
            Some(Purpose::Handover(window)) => self.handover_outcome(window, o, out),
            Some(Purpose::Explore) => self.explore_outcome(o),
            None => {}
        }
    }

    fn decide(&mut self, out: &mut StepOutput) -> Intent {
        // What the last walk of an exploration brought into view may be a way now.
        self.explore_found(out);
        // A few rounds: an issue decision or a finished recovery can free the way for an
        // action in the same step.
        for _ in 0..8 {
            // A hand-over or a recovery walks: off the pillar first, taking it down.
            let gives = self.work.handovers.iter().any(|h| h.awaited_from(self.id));
            let walks = gives || self.blocker.recovery.as_ref().is_some_and(|r| !r.paused());
            if walks && self.on_pillar() {
                if let Some(build::Next::Scaffold(node, a)) = self.leave_pillar() {
                    self.work.purpose = Some(Purpose::Scaffold(node));
                    return Intent::Act(a);
                }
            }
            if let Some((window, a)) = self.next_handover_action(out) {
                self.work.purpose = Some(Purpose::Handover(window));
                return Intent::Act(a);
            }
            if self.waits_on_channel() {
                // central_dag: the agent waits for the manager's re-plan.
                return Intent::Wait(None);
            }
            if self.blocker.recovery.as_ref().is_some_and(|r| !r.paused()) {
                match self.next_recovery_action(out) {
                    Some(a) => {
                        self.work.purpose = Some(Purpose::Recover);
                        return Intent::Act(a);
                    }
                    None => continue,
                }
            }
            match self.next_build(out) {
                build::Next::Act(node, a) => {
                    self.work.purpose = Some(Purpose::Build(node));
                    return Intent::Act(a);
                }
                build::Next::Scaffold(node, a) => {
                    self.work.purpose = Some(Purpose::Scaffold(node));
                    return Intent::Act(a);
                }
                build::Next::Again => continue,
                // Nothing else to do: the last resort for an item nobody supplied.
                next @ (build::Next::Wait(_) | build::Next::Watch(_)) => match self.explore_next() {
                    Ok(Some(a)) => {
                        self.work.purpose = Some(Purpose::Explore);
                        return Intent::Act(a);
                    }
                    Err(()) => continue,
                    Ok(None) => match next {
                        build::Next::Watch(t) => return Intent::Watch(t),
                        build::Next::Wait(t) => return Intent::Wait(t),
                        _ => unreachable!("matched above"),
                    },
                },
                build::Next::Done => return Intent::Done,
            }
        }
        Intent::Wait(Some(self.now + self.ctx.tuning.poll_ticks))
    }

    fn teammates(&self) -> impl Iterator<Item = AgentId> + '_ {
        self.ctx.crew.iter().copied().filter(move |a| *a != self.id)
    }
}
