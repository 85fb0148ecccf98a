//! The partner: the bot the person talks to. It owns the plan the person sees, the
//! executor that works it, what the bot knows, the merge buffer, the open clarifying
//! question and the task memory, and it shares one body with the bot's crew agent
//! core: while the crew-share goal is active the core works as usual; otherwise the
//! core only takes in news ([`gatecrew_crew::agent::AgentCore::step_held`]) and the executor acts.
//!
//! Everything is keyed to episode ticks: a scripted session is as deterministic as
//! any episode. Trace events and the bot's lines accumulate here and are drained by
//! the driver.

mod add;
mod apply;
mod build;
mod chat;
mod clarify;
mod halt;
mod materials;
mod notes;
mod recall;
mod share;
mod step;
mod why;

use std::sync::Arc;

use gatecrew_crew::agent::Physics;
use gatecrew_protocol::trace::{EventKind, PlanNote, PlanOp, SayKind, SayNote};
use gatecrew_protocol::{AgentId, Pos, Tick};
use gatecrew_world::{Blueprint, GameData, Inventory};

use crate::classify::Classify;
use crate::exec::Executor;
use crate::knowledge::Knowledge;
use crate::memory::{PlanLog, TaskMemory};
use crate::merge::Merger;
use crate::plan::ops::Update;
use crate::plan::{Plan, StepId};
use crate::recipe::PlannerConfig;
use crate::words::Vocabulary;
use share::{share_cells, share_of};

/// How the partner is set up.
#[derive(Debug, Clone)]
pub struct PartnerConfig {
    /// The bot the person talks to.
    pub agent: AgentId,
    /// Lines closer than this (ticks) are merged into one intent.
    pub merge_ticks: u64,
    /// The recipe planner's settings.
    pub planner: PlannerConfig,
    /// The world's name in task memory (the episode name).
    pub world: String,
    /// This run's name in task memory.
    pub run: String,
}

/// An open clarifying question.
#[derive(Debug, Clone)]
pub(crate) enum Question {
    /// Which of these nodes did the person mean?
    Which {
        /// The intent waiting for the answer.
        intent: crate::intent::Intent,
        /// The nodes the words matched, in the order offered ("the second one").
        options: Vec<StepId>,
        /// The question asked.
        text: String,
    },
    /// Which of these parts of the build did the person mean?
    WhichPart {
        /// The intent waiting for the answer.
        intent: crate::intent::Intent,
        /// The parts the words matched, in the order offered ("the second one").
        options: Vec<crate::parts::PartRef>,
        /// The question asked.
        text: String,
    },
    /// What did the person mean by a line the parser was unsure of?
    Meant {
        /// The readings offered, in order.
        options: Vec<crate::intent::Intent>,
        /// The question asked.
        text: String,
    },
    /// Should the plan be dropped for this goal?
    Confirm {
        /// The new goal.
        goal: crate::goal::Goal,
        /// The question asked.
        text: String,
    },
    /// Where is the item (a chest the bot does not know)?
    Where {
        /// The item asked about.
        item: gatecrew_protocol::ItemId,
        /// The question asked.
        text: String,
    },
}

impl Question {
    fn text(&self) -> &str {
        match self {
            Question::Which { text, .. }
            | Question::WhichPart { text, .. }
            | Question::Meant { text, .. }
            | Question::Confirm { text, .. }
            | Question::Where { text, .. } => text,
        }
    }
}

/// The partner. See the module docs.
pub struct Partner {
    cfg: PartnerConfig,
    data: Arc<GameData>,
    vocab: Vocabulary,
    blueprint: Arc<Blueprint>,
    plan: Plan,
    exec: Executor,
    know: Knowledge,
    merger: Merger,
    question: Option<Question>,
    classifier: Box<dyn Classify>,
    store: Option<Box<dyn TaskMemory>>,
    log: PlanLog,
    now: Tick,
    inv: Inventory,
    pos: Pos,
    share: (u32, u32),
    has_share: bool,
    busy: bool,
    /// The executor's own action in flight (not the crew core's): what a stop cuts.
    own_action: Option<gatecrew_world::Action>,
    /// A stop asks the driver to cancel the action in flight.
    halt: bool,
    /// A stop lets an action that changes the world at once (a placement, a craft)
    /// finish, and cuts only walks and digs: on a server such an action cannot be
    /// taken back half done.
    stop_finishes: bool,
    /// A build planned whose missing blocks are planned at the next wake-up.
    materials_due: Option<StepId>,
    dirty: bool,
    events: Vec<EventKind>,
    said: Vec<String>,
    latencies: Vec<(&'static str, f64)>,
    /// The line that stopped the bot, and when (for "why did you stop?").
    stopped_by: Option<(Tick, String)>,
    /// The blueprint cells of this bot's crew share.
    share_cells: std::collections::BTreeSet<usize>,
    /// What each blueprint cell is for, its material and layer (for named parts).
    facts: std::collections::BTreeMap<usize, crate::parts::CellFacts>,
    /// Landmarks and preferences the person told (this run's and remembered ones).
    notes: Vec<notes::Note>,
    /// Items an earlier run in this world found no way to (task memory), with its run.
    no_source: std::collections::BTreeMap<gatecrew_protocol::ItemId, String>,
    /// Failed checks of the plan's steps, in words (for a failure's reason).
    checks: std::collections::BTreeMap<StepId, String>,
}

impl std::fmt::Debug for Partner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partner")
            .field("agent", &self.cfg.agent)
            .field("plan_nodes", &self.plan.len())
            .finish_non_exhaustive()
    }
}

impl Partner {
    /// A partner for bot `cfg.agent` of `setup`.
    ///
    /// # Panics
    /// When `cfg.agent` is not one of the setup's bots (the caller checks).
    pub fn new(
        cfg: PartnerConfig,
        setup: &gatecrew_crew::Setup,
        classifier: Box<dyn Classify>,
        store: Option<Box<dyn TaskMemory>>,
    ) -> Result<Self, crate::words::VocabularyError> {
        let data = setup.data.clone();
        let blueprint = setup.blueprint.clone();
        let physics = Physics::new(setup.world.rules(), &data);
        let cores = setup.agents();
        let core = &cores[cfg.agent.index()];
        let start = setup.world.body(cfg.agent).map(|b| b.pos).unwrap_or_default();
        let vocab = Vocabulary::new(&data)?;
        let blueprint_for_facts = blueprint.clone();
        let share_total = share_of(core).1;
        let mut cfg = cfg;
        cfg.planner.share_label = format!("build my share of {} ({share_total} blocks)", blueprint.name);
        Ok(Partner {
            merger: Merger::new(cfg.merge_ticks),
            know: Knowledge::new(data.clone(), physics),
            plan: Plan::new("my tasks"),
            exec: Executor::new(),
            vocab,
            blueprint,
            question: None,
            classifier,
            store,
            log: PlanLog::new(Tick(0), core.inventory()),
            now: Tick(0),
            inv: core.inventory().clone(),
            pos: start,
            share: share_of(core),
            has_share: share_total > 0,
            busy: false,
            own_action: None,
            halt: false,
            stop_finishes: false,
            materials_due: None,
            dirty: false,
            events: Vec::new(),
            said: Vec::new(),
            latencies: Vec::new(),
            stopped_by: None,
            share_cells: share_cells(core),
            facts: crate::parts::cell_facts(&blueprint_for_facts, &data),
            notes: Vec::new(),
            no_source: std::collections::BTreeMap::new(),
            checks: std::collections::BTreeMap::new(),
            data,
            cfg,
        })
    }

    /// The bot the person talks to.
    pub fn agent(&self) -> AgentId {
        self.cfg.agent
    }

    /// The plan the person sees and changes.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// What the bot knows.
    pub fn knowledge(&self) -> &Knowledge {
        &self.know
    }

    /// The first plan (the crew share, if the bot has one), facts remembered from
    /// earlier runs in this world, and the first preview.
    pub fn start(&mut self, now: Tick) {
        self.now = now;
        self.read_memory();
        if self.has_share {
            let before = self.plan.len();
            self.add_goal_under_root(&crate::goal::Goal::Build);
            let up = Update { added: self.plan.len() - before, ..Update::default() };
            self.note_plan(PlanOp::Start, &up, &[]);
        }
        self.log = PlanLog::new(now, &self.inv);
        let p = self.plan.preview();
        self.say(SayKind::Preview, p);
    }

    /// When the held lines are due (the merge window after the last one).
    pub fn due(&self) -> Option<Tick> {
        self.merger.due()
    }

    /// A line from the person at `now`: classified now or after the merge window.
    pub fn hear(&mut self, now: Tick, line: &str) {
        self.now = now;
        for batch in self.merger.push(now, line) {
            self.handle(&batch);
        }
    }

    /// Handles the held lines if their window has passed.
    pub fn tick(&mut self, now: Tick) {
        self.now = now;
        if let Some(b) = self.merger.take_due(now) {
            self.handle(&b);
        }
    }

    /// Handles whatever is held, now (end of input).
    pub fn flush(&mut self, now: Tick) {
        self.now = now;
        if let Some(b) = self.merger.flush() {
            self.handle(&b);
        }
    }

    /// Whether the plan changed while the bot was idle: the driver wakes it.
    pub fn wants_wake(&mut self) -> bool {
        !self.busy && std::mem::take(&mut self.dirty)
    }

    /// From now on a stop lets a placement, a craft, a smelt or a hand-over in flight
    /// finish and cuts only a walk or a dig (a Minecraft server: what the game has
    /// begun to change is never left half done); the bot then stops.
    pub fn finish_actions_on_stop(&mut self) {
        self.stop_finishes = true;
    }

    /// Whether a stop asks for the action in flight to be cancelled now (once).
    pub fn take_halt(&mut self) -> bool {
        std::mem::take(&mut self.halt)
    }

    /// Whether lines are held for merging.
    pub fn holding(&self) -> bool {
        self.merger.holding()
    }

    /// Trace events since the last call.
    pub fn drain_events(&mut self) -> Vec<EventKind> {
        std::mem::take(&mut self.events)
    }

    /// The bot's lines to the person since the last call.
    pub fn drain_said(&mut self) -> Vec<String> {
        std::mem::take(&mut self.said)
    }

    /// Wall-clock latencies (ms) of classifications and graph updates, by kind.
    pub fn drain_latencies(&mut self) -> Vec<(&'static str, f64)> {
        std::mem::take(&mut self.latencies)
    }

    fn say(&mut self, what: SayKind, text: String) {
        self.said.push(text.clone());
        self.events.push(EventKind::Say(SayNote { agent: self.cfg.agent, what, text }));
    }

    fn note_plan(&mut self, op: PlanOp, up: &Update, repairs: &[&'static str]) {
        let active = self.plan.active().or_else(|| self.plan.next_leaf());
        self.events.push(EventKind::Plan(PlanNote {
            agent: self.cfg.agent,
            op,
            active: active.map(|n| n.index() as u32),
            label: active.map(|n| self.plan.label(n).to_owned()),
            pivot: up.pivot.map(|n| n.index() as u32),
            added: up.added as u32,
            removed: up.removed as u32,
            nodes: self.plan.len() as u32,
            repairs: repairs.iter().map(|r| (*r).to_owned()).collect(),
        }));
        self.dirty = true;
    }

    /// An empty plan and executor in place of the old ones; whatever pointed into the
    /// old plan (an open question's options, a build's materials still to plan) goes
    /// with it.
    pub(crate) fn fresh_plan(&mut self) {
        self.plan = Plan::new("my tasks");
        self.exec = Executor::new();
        self.materials_due = None;
        self.checks.clear();
        if matches!(self.question, Some(Question::Which { .. } | Question::WhichPart { .. })) {
            self.question = None;
        }
    }

    fn add_goal_under_root(&mut self, goal: &crate::goal::Goal) -> StepId {
        let root = self.plan.root();
        let sub = self.plan_goal(goal, crate::plan::Origin::Planner);
        let _ = self.plan.attach(root, sub, 0, false);
        sub
    }

    fn plan_goal(&mut self, goal: &crate::goal::Goal, origin: crate::plan::Origin) -> StepId {
        // The build is this bot's share as named parts, placed by the executor.
        if *goal == crate::goal::Goal::Build {
            if let Some(b) = self.plan_my_build(origin) {
                return b;
            }
        }
        let view = self.know.view(&self.inv, self.pos);
        let mut planner =
            crate::recipe::RecipePlanner::new(&self.data, &self.vocab, &view, self.cfg.planner.clone(), origin)
                .with_likes(self.taste());
        planner.plan_goal(&mut self.plan, goal)
    }
}
