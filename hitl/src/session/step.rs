//! One wake-up of the partner's body: the crew core works when the share goal is
//! active, otherwise it only takes the news in and the executor acts; what the
//! executor did is told to the trace and the person.

use gatecrew_crew::agent::{AgentCore, Intent as CoreIntent, StepInput, StepOutput};
use gatecrew_protocol::trace::SayKind;
use gatecrew_protocol::trace::{EventKind, ValidatorNote};

use super::Partner;
use super::share::share_of;
use crate::exec::{Body, ExecEvent, Next};
use crate::plan::{Kind, Leaf};

impl Partner {
    /// One wake-up of the bot: the crew core works when the share goal is active,
    /// otherwise it only takes the news in and the executor acts.
    pub fn step(&mut self, core: &mut AgentCore, input: StepInput) -> StepOutput {
        self.now = input.tick;
        let had_outcome = input.outcome.clone();
        if had_outcome.is_some() {
            self.busy = false;
            self.own_action = None;
        }
        self.know.observe(&input.view, input.tick);
        self.pos = input.view.pos;
        if let Some(o) = &had_outcome {
            self.know.absorb(o);
            self.exec.outcome(&self.plan, o);
        }
        let quiet = StepInput {
            tick: input.tick,
            outcome: None,
            receipts: Vec::new(),
            board: Vec::new(),
            view: input.view.clone(),
            verdicts: Vec::new(),
            final_call: false,
            crash: false,
            style: Vec::new(),
        };
        let share_leaf =
            self.plan.next_leaf().filter(|l| !self.plan.idle() && self.plan.step(*l).kind == Kind::Leaf(Leaf::Share));
        if let Some(leaf) = share_leaf {
            // Walk the path down to the share so that its end is judged there.
            if self.plan.active() != Some(leaf) {
                let from = self.plan.active().unwrap_or(self.plan.root());
                let mut path =
                    if self.plan.path().is_empty() { vec![self.plan.root()] } else { self.plan.path().to_vec() };
                path.extend(self.plan.path_down(from, leaf).unwrap_or_default());
                self.plan.set_path(path);
            }
        }
        let delegate = share_leaf.is_some();
        let mut out = if delegate { core.step(input) } else { core.step_held(input) };
        self.inv = core.inventory().clone();
        self.share = share_of(core);
        if delegate && out.intent != CoreIntent::Done {
            self.busy = matches!(out.intent, CoreIntent::Act(_) | CoreIntent::Continue);
            return out;
        }
        if delegate {
            let b = Body {
                data: &self.data,
                know: &self.know,
                inv: &self.inv,
                pos: self.pos,
                blueprint: &self.blueprint,
                share: self.share,
            };
            let ev = self.exec.share_finished(&mut self.plan, &b);
            self.exec_events(ev, core);
        }
        if matches!(out.intent, CoreIntent::Continue) {
            // The core's own action is still in flight (it started before a switch).
            self.busy = true;
            return out;
        }
        if let Some(build) = self.materials_due.take() {
            self.plan_materials(build);
        }
        let (next, ev) = {
            let b = Body {
                data: &self.data,
                know: &self.know,
                inv: &self.inv,
                pos: self.pos,
                blueprint: &self.blueprint,
                share: self.share,
            };
            self.exec.decide(&mut self.plan, &b)
        };
        self.exec_events(ev, core);
        out.intent = match next {
            Next::Act(a) => {
                self.own_action = Some(a);
                CoreIntent::Act(a)
            }
            Next::Idle => CoreIntent::Wait(None),
            Next::Delegate => {
                // The plan moved on to the share: the core decides after all.
                let more = core.step(quiet);
                out.notes.extend(more.notes);
                out.posts.extend(more.posts);
                out.consults.extend(more.consults);
                out.style.extend(more.style);
                more.intent
            }
        };
        self.busy = matches!(out.intent, CoreIntent::Act(_) | CoreIntent::Continue);
        out
    }

    /// Why a step failed, from the plan, what the bot knows, task memory and what its
    /// board showed of the teammates.
    pub(super) fn why(&self, n: crate::plan::StepId, core: &AgentCore) -> String {
        let teammates = core.teammate_ids();
        let board = |item: gatecrew_protocol::ItemId| {
            let (offered, refused) = core.heard_of(item);
            super::why::Heard { teammates: teammates.clone(), offered, refused }
        };
        let ev = super::why::Evidence {
            know: &self.know,
            data: &self.data,
            remembered: &self.no_source,
            board: &board,
            checks: &self.checks,
        };
        super::why::why(&self.plan, n, &ev)
    }

    pub(super) fn exec_events(&mut self, ev: Vec<ExecEvent>, core: &AgentCore) {
        for e in ev {
            match e {
                ExecEvent::Judged { node, verdict } => {
                    if !verdict.pass {
                        self.checks.insert(node, verdict.criterion.clone());
                    }
                    metrics::counter!("gatecrew_hitl_validations_total", "pass" => if verdict.pass { "true" } else { "false" }).increment(1);
                    self.events.push(EventKind::Validator(ValidatorNote {
                        agent: self.cfg.agent,
                        node: node.index() as u32,
                        label: self.plan.label(node).to_owned(),
                        criterion: verdict.criterion,
                        pass: verdict.pass,
                        evidence: verdict.evidence,
                    }));
                }
                ExecEvent::GoalEnded { goal, ok } => {
                    let label = self.plan.label(goal).to_owned();
                    let text = match ok {
                        true => format!("Done: {label}."),
                        false => format!("I could not {label}: {}.", self.why(goal, core)),
                    };
                    self.say(SayKind::Report, text);
                    if !self.plan.open_goals().is_empty() {
                        let p = self.plan.preview();
                        self.say(SayKind::Preview, p);
                    }
                }
                ExecEvent::PlanEnded { ok } => {
                    // "Done" only when it is: a plan with a failed goal says which.
                    let failed: Vec<String> = self
                        .plan
                        .children(self.plan.root())
                        .into_iter()
                        .filter(|g| self.plan.step(*g).state == crate::plan::State::Failed)
                        .map(|g| self.plan.label(g).to_owned())
                        .collect();
                    self.remember(if ok { "completed" } else { "failed" });
                    self.fresh_plan();
                    let text = if ok || failed.is_empty() {
                        "Everything you asked is done; tell me what to do next.".to_owned()
                    } else {
                        format!(
                            "Not everything is done: I could not {}; tell me what to do next.",
                            failed.join(" nor ")
                        )
                    };
                    self.say(SayKind::Preview, text);
                }
            }
        }
    }
}
