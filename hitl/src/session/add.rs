//! Adding to the plan: a goal (planned by the recipe planner and attached where the
//! person said), a place an item lies (a new first alternative), a part of the build
//! left out before, a new task replacing the plan, and the answer to a count no bot
//! can carry.

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{EventKind, MemoryNote, MemoryOp};
use gatecrew_protocol::trace::{PlanOp, SayKind};
use gatecrew_world::ContainerKind;

use super::{Partner, Question};
use crate::classify::Classified;
use crate::goal::{BadCount, Goal, read_goal_checked};
use crate::intent::{Intent, IntentType};
use crate::knowledge::Told;
use crate::memory::{Fact, Provenance};
use crate::plan::ops::Update;
use crate::plan::repair::repair;
use crate::plan::{Kind, Leaf, Origin, StepId};
use crate::resolve::{Resolution, resolve};
use crate::words::{coords, item_words, words};

impl Partner {
    pub(super) fn on_add(&mut self, c: &Classified, intent: &Intent, text: &str) -> &'static str {
        let node_words = intent.node.clone().unwrap_or_else(|| text.to_owned());
        // "Add the windows back": a part of the build left out before.
        if crate::parts::mentions_part(&node_words)
            && matches!(read_goal_checked(&node_words, &self.vocab), None | Some(Ok(Goal::Build)))
        {
            if let Some(op) = self.add_part_back(&node_words) {
                self.note_intent(c, intent, None, &[]);
                return op;
            }
        }
        let ws = words(text);
        let goal = read_goal_checked(&node_words, &self.vocab);
        // The model may leave the coordinates out of its node words; a place to take an
        // item from has no count.
        let goal = match (goal, coords(&ws)) {
            (Some(Ok(Goal::Obtain { item, .. }) | Err(BadCount { item, .. })), Some((from, _))) => {
                Some(Goal::Fetch { item, from })
            }
            (Some(Err(bad)), None) => {
                self.note_intent(c, intent, None, &[]);
                return self.bad_count(&bad, "add");
            }
            (g, _) => g.and_then(Result::ok),
        };
        let parent = intent.parent.as_deref().map(|p| resolve(&self.plan, p, &self.vocab, &self.data));
        match goal {
            Some(Goal::Fetch { item, from }) => {
                self.note_intent(c, intent, None, &[]);
                let parent = match parent {
                    Some(Resolution::One(p)) => Some(p),
                    _ => None,
                };
                self.add_fetch(item, from, parent, text)
            }
            Some(Goal::Obtain { item, count })
                if ws.iter().any(|w| ["chest", "barrel", "storage"].contains(&w.as_str())) =>
            {
                // "the wool is in the chest": which chest?
                self.note_intent(c, intent, None, &[]);
                let _ = count;
                let chests: Vec<Pos> = self
                    .know
                    .memory()
                    .containers()
                    .iter()
                    .filter(|(_, k)| k.kind == ContainerKind::Chest)
                    .map(|(p, _)| *p)
                    .collect();
                if let [only] = chests.as_slice() {
                    return self.add_fetch(item, *only, None, text);
                }
                let name = item_words(&self.data, item);
                let q = format!("Which chest is the {name} in? Tell me its x y z.");
                self.question = Some(Question::Where { item, text: q.clone() });
                self.say(SayKind::Question, q);
                "question"
            }
            Some(g) => {
                let p = match parent {
                    Some(Resolution::One(p)) => p,
                    Some(Resolution::Many(options)) => {
                        self.note_intent(c, intent, None, &options);
                        return self.ask(
                            Intent {
                                kind: IntentType::Add,
                                node: Some(node_words),
                                parent: None,
                                later: false,
                                unsure: false,
                            },
                            options,
                        );
                    }
                    _ => self.plan.root(),
                };
                self.note_intent(c, intent, Some(p), &[]);
                if g == Goal::Build
                    && self.plan.ids().iter().any(|n| self.plan.step(*n).kind == Kind::Leaf(Leaf::Share))
                {
                    let pv = self.plan.preview();
                    self.say(SayKind::Answer, format!("Building is already in my plan. {pv}"));
                    return "add";
                }
                self.add_goal(g, p, &node_words, true);
                "add"
            }
            None => {
                self.note_intent(c, intent, None, &[]);
                let p = self.plan.preview();
                self.say(SayKind::Answer, format!("I did not catch what to add. {p}"));
                "add"
            }
        }
    }

    /// A goal whose count no bot can carry: the plan is left as it is and the person
    /// is told the bounds.
    pub(super) fn bad_count(&mut self, bad: &BadCount, op: &'static str) -> &'static str {
        metrics::counter!("gatecrew_hitl_bad_counts_total").increment(1);
        let p = self.plan.preview();
        let reply = bad.reply(&self.data);
        self.say(SayKind::Answer, format!("{reply} {p}"));
        op
    }

    /// Plans a goal and attaches it under `parent`; says what happens now.
    pub(super) fn add_goal(&mut self, goal: Goal, parent: StepId, said: &str, speak: bool) -> StepId {
        let before = self.plan.len();
        let sub = self.plan_goal(&goal, Origin::Person);
        let added = self.plan.len() - before;
        let up = self.plan.attach(parent, sub, added, false).unwrap_or_default();
        let fixes = repair(&mut self.plan);
        let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
        self.note_plan(PlanOp::Add, &up, &rules);
        self.log.feedback.push(format!("add: {} ({said})", self.plan.label(sub)));
        if speak {
            let p = self.plan.preview();
            let label = self.plan.label(sub).to_owned();
            self.say(SayKind::Preview, format!("Added \"{label}\". {p}"));
        }
        sub
    }

    /// The person said where an item is: remembered (told), and a new first alternative
    /// of the obtain node it serves (switched to at once when that node is active).
    pub(super) fn add_fetch(
        &mut self,
        item: gatecrew_protocol::ItemId,
        from: Pos,
        parent: Option<StepId>,
        said: &str,
    ) -> &'static str {
        let told = Told { item, pos: from, count: None };
        self.know.tell(told);
        self.log.told.push(told);
        let name = item_words(&self.data, item);
        self.log.feedback.push(format!("told: {name} in the chest at ({}, {}, {})", from.x, from.y, from.z));
        let fact = Fact {
            world: self.cfg.world.clone(),
            kind: "store".into(),
            item: self.data.item_name(item).to_owned(),
            pos: Some((from.x, from.y, from.z)),
            count: None,
            provenance: Provenance::Told,
            run: self.cfg.run.clone(),
            tick: self.now.0,
        };
        if let Some(store) = &self.store {
            if let Err(e) = store.add_fact(&fact) {
                tracing::warn!(error = %e, "task memory: a told fact was not stored");
            }
        }
        self.events.push(EventKind::Memory(MemoryNote {
            agent: self.cfg.agent,
            op: MemoryOp::Write,
            text: super::recall::fact_text(&fact),
            provenance: Provenance::Told,
        }));
        let parent = parent.filter(|p| self.plan.step(*p).kind.is_or()).or_else(|| {
            let nodes = self.plan.obtain_nodes(item);
            let live = self.plan.reachable();
            let nodes: Vec<StepId> = nodes.into_iter().filter(|n| live.contains(n)).collect();
            nodes.iter().copied().find(|n| self.plan.path().contains(n)).or_else(|| nodes.first().copied())
        });
        let Some(parent) = parent else {
            let p = self.plan.preview();
            self.say(
                SayKind::Preview,
                format!("Noted: {name} is in the chest at ({}, {}, {}). {p}", from.x, from.y, from.z),
            );
            return "add";
        };
        let before = self.plan.len();
        let sub = self.plan_goal(&Goal::Fetch { item, from }, Origin::Person);
        let added = self.plan.len() - before;
        let up = self.plan.attach(parent, sub, added, true).unwrap_or_default();
        let fixes = repair(&mut self.plan);
        let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
        self.note_plan(PlanOp::Add, &up, &rules);
        let _ = said;
        let p = self.plan.preview();
        self.say(SayKind::Preview, format!("Thanks! {p}"));
        "add"
    }

    pub(super) fn new_task(&mut self, goal: Goal) -> &'static str {
        self.remember("interrupted");
        self.fresh_plan();
        let root = self.plan.root();
        let before = self.plan.len();
        let sub = self.plan_goal(&goal, Origin::Person);
        let _ = self.plan.attach(root, sub, 0, false);
        let fixes = repair(&mut self.plan);
        let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
        let up = Update { added: self.plan.len() - before, ..Update::default() };
        self.note_plan(PlanOp::NewTask, &up, &rules);
        let label = self.plan.label(sub).to_owned();
        self.log = crate::memory::PlanLog::new(self.now, &self.inv);
        self.log.feedback.push(format!("new task: {label}"));
        let last = self.last_time(&label);
        let p = self.plan.preview();
        self.say(SayKind::Preview, format!("New task: {label}.{last} {p}"));
        "new_task"
    }

    /// " Last time: ..." when task memory holds a record of the same goal here.
    fn last_time(&mut self, goal: &str) -> String {
        let Some(store) = &self.store else { return String::new() };
        let Ok(records) = store.records(Some(&self.cfg.world)) else { return String::new() };
        let Some(r) = records.iter().rev().find(|r| r.goal == goal) else { return String::new() };
        self.events.push(EventKind::Memory(MemoryNote {
            agent: self.cfg.agent,
            op: MemoryOp::Read,
            text: format!("{}: {} (run {}, tick {})", r.goal, r.outcome, r.run, r.tick),
            provenance: Provenance::Seen,
        }));
        format!(" Last time this was {}.", r.outcome)
    }
}
