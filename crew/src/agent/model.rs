//! Where a model-driven bot's seat decides instead of the core ([`crate::bots`]): the
//! next cell of its share, what to do about a missing item, how to answer a request.
//! Each hook builds the options the core could carry out right now, asks the seat,
//! records its calls, and hands back the choice — or the scripted one when the model
//! gave none. The model chooses; the core's skills act, and the world verifies.

use std::sync::Arc;

use gatecrew_gating::{GateDecision, Issue};
use gatecrew_protocol::trace::{Decision, GateAction, Tier};
use gatecrew_protocol::{AgentId, IssueId, ItemId};

use super::build::place_of;
use super::{AgentCore, Blocker, GateNote, Note, StepOutput};
use crate::bots::{Point, Question, Seat, Transcript, View};
use crate::news::BoardNews;
use crate::plan::{NodeId, NodeState};

/// Most cells offered at a command point: the prompt stays short, and the first few
/// in build order are where the scripted core would go anyway.
const MAX_CELLS: usize = 6;

/// A model-driven bot's seat, what of the crew its prompt holds, and the cell it chose
/// last.
#[derive(Debug, Clone)]
pub(super) struct Mind {
    seat: Arc<Seat>,
    /// The crew's lines its prompt holds, as its policy's view lets them in.
    transcript: Transcript,
    /// The cell being worked on: while it is still a candidate the bot keeps to it
    /// (walking there and placing it are one decision, not two).
    committed: Option<NodeId>,
}

impl Mind {
    pub(super) fn new(seat: Arc<Seat>, view: View) -> Self {
        Mind { seat, transcript: Transcript::new(view), committed: None }
    }
}

/// What the model proposes about an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Proposal {
    /// Ask a teammate: the gate decides whether the request goes out.
    Ask,
    /// Stay local with this action.
    Local(GateAction),
}

impl AgentCore {
    /// A model-driven bot heard board news: into its transcript, as its view allows.
    pub(super) fn model_hear(&mut self, news: &BoardNews) {
        let (id, data) = (self.id, self.ctx.data.clone());
        if let Some(m) = &mut self.mind {
            m.transcript.hear(id, news, &data);
        }
    }

    /// A model-driven bot looked around: the teammates in sight, for a view that keeps them.
    pub(super) fn model_see(&mut self, teammates: &[(AgentId, gatecrew_protocol::Pos)]) {
        if let Some(m) = &mut self.mind {
            m.transcript.see(teammates);
        }
    }

    /// A model-driven bot got the manager's order (`central_dag`).
    pub(super) fn model_order(&mut self, d: &crate::style::Directive) {
        let line = crate::executor::render::directive(self.id, d, &self.ctx.data);
        if let Some(m) = &mut self.mind {
            m.transcript.order(line);
        }
    }

    /// The prompt's state: the private state (I, T, P, B and H, DESIGN section 4), then
    /// the crew's lines its view holds ([`Transcript`]).
    fn model_state(&self) -> String {
        let data = &self.ctx.data;
        let inv: Vec<String> =
            self.inv.iter().filter(|&(_, n)| n > 0).map(|(i, n)| format!("{} {n}", data.item_name(i))).collect();
        let left = self
            .work
            .own_unordered(self.id)
            .filter(|&m| self.work.plan.state(m) != NodeState::Done && place_of(self.work.plan.kind(m).0).is_some())
            .count();
        let awaited: Vec<&str> = self.blocker.awaiting.keys().map(|&i| data.item_name(i)).collect();
        let aside = self.blocker.blocks.len();
        let recent: Vec<String> = self
            .history
            .recent()
            .map(|(_, a, ok)| format!("{} {}", a.as_str(), if *ok { "ok" } else { "failed" }))
            .collect();
        let p = self.pos;
        let heard = self.mind.as_ref().map(|m| m.transcript.render()).unwrap_or_default();
        format!(
            "You are {} at {} {} {}.\nInventory: {}\nYour share: {left} cells left.\nWaiting for: {}; set aside: {aside}.\nRecent: {}\n{heard}",
            self.id,
            p.x,
            p.y,
            p.z,
            if inv.is_empty() { "nothing".into() } else { inv.join(", ") },
            if awaited.is_empty() { "nothing".into() } else { awaited.join(", ") },
            if recent.is_empty() { "nothing yet".into() } else { recent.join(", ") },
        )
    }

    /// Asks the seat; records the calls. `None`: no seat, or the scripted decision stands.
    fn ask_model(&mut self, q: &Question, out: &mut StepOutput) -> Option<usize> {
        let seat = self.mind.as_ref()?.seat.clone();
        let (choice, notes) = seat.decide(Some(self.id), q);
        out.notes.extend(notes.into_iter().map(Note::ModelCall));
        choice
    }

    /// The cell to work on next, when the scripted core chose `n`: with a seat and
    /// more than one ready cell, the model picks among them.
    pub(super) fn model_pick(&mut self, n: NodeId, out: &mut StepOutput) -> NodeId {
        let Some(mind) = &self.mind else { return n };
        let committed = mind.committed;
        let mut cells = vec![n];
        cells
            .extend(self.work.own_places(self.id).into_iter().filter(|&m| m != n && self.ready(m)).take(MAX_CELLS - 1));
        if cells.len() < 2 {
            return n;
        }
        if let Some(c) = committed.filter(|c| cells.contains(c)) {
            return c;
        }
        let data = self.ctx.data.clone();
        let options: Vec<String> = cells
            .iter()
            .filter_map(|&m| place_of(self.work.plan.kind(m).0))
            .map(|(p, b, _)| format!("place {} at {} {} {}", data.block_name(b), p.x, p.y, p.z))
            .collect();
        let q = Question {
            point: Point::Command,
            issue_id: None,
            state: self.model_state(),
            ask: "Which cell of your share do you place next?".into(),
            options,
        };
        let chosen = self.ask_model(&q, out).map_or(n, |i| cells[i]);
        if let Some(mind) = &mut self.mind {
            mind.committed = Some(chosen);
        }
        chosen
    }

    /// Whether own place node `m` could be started now: pending, its item held, no
    /// blocker on it, its supports placed.
    fn ready(&self, m: NodeId) -> bool {
        let Some((pos, block, item)) = place_of(self.work.plan.kind(m).0) else {
            return false;
        };
        self.work.plan.state(m) == NodeState::Pending
            && self.knowledge.mem.block(pos) != Some(block)
            && self.inv.count(item) > 0
            && !self.waits_for_request(item)
            && !self.parked_item(item)
            && ![Blocker::Node(m), Blocker::Item(item)].iter().any(|b| self.blocker.blocks.contains_key(b))
            && self.work.plan.requires_iter(m).all(|s| self.work.plan.state(s) == NodeState::Done)
    }

    /// What the model proposes about a missing item or tool (`None`: no seat, another
    /// kind of issue, or the scripted gate decides).
    pub(super) fn model_issue(&mut self, id: IssueId, issue: Issue, out: &mut StepOutput) -> Option<Proposal> {
        self.mind.as_ref()?;
        let (item, n) = issue.requestable()?;
        let mut options = vec!["recover".to_owned(), "skip".to_owned()];
        if self.ctx.crew.len() > 1 {
            options.push("ask".to_owned());
        }
        let q = Question {
            point: Point::Issue,
            issue_id: Some(id),
            state: self.model_state(),
            ask: format!(
                "You need {n} more {}. recover: get it yourself (take, craft, collect); skip: set the cells aside; ask: request it from a teammate.",
                self.ctx.data.item_name(item)
            ),
            options,
        };
        Some(match self.ask_model(&q, out)? {
            0 => Proposal::Local(GateAction::LocalRecover),
            1 => Proposal::Local(GateAction::LocalSkip),
            _ => Proposal::Ask,
        })
    }

    /// Records the bot's own decision to stay local as the issue's `gate` event (tier
    /// `policy`: no gate was asked), with the features the gate would have weighed.
    pub(super) fn record_own_decision(
        &mut self,
        id: IssueId,
        issue: Issue,
        node: Option<NodeId>,
        action: GateAction,
        out: &mut StepOutput,
    ) {
        let ev = self.evaluate(issue, node);
        let decision = GateDecision {
            tier: Tier::Policy,
            rule: None,
            score: ev.decision.score,
            decision: Decision::StayLocal,
            action,
        };
        out.notes.push(Note::Gate(GateNote {
            issue_id: id,
            decision,
            features: ev.features,
            ctx: ev.ctx,
            oracle: ev.oracle,
        }));
    }

    /// How many of `item` to offer `from` of the `surplus` it holds beyond its needs:
    /// 0 for cannot supply; `None` when the scripted answer stands.
    pub(super) fn model_answer(
        &mut self,
        from: AgentId,
        item: ItemId,
        count: u32,
        surplus: u32,
        out: &mut StepOutput,
    ) -> Option<u32> {
        self.mind.as_ref()?;
        if surplus == 0 {
            // Nothing to offer: there is no decision to make.
            return None;
        }
        let give = surplus.min(count);
        let q = Question {
            point: Point::Answer,
            issue_id: None,
            state: self.model_state(),
            ask: format!(
                "{from} asks you for {count} {}; you hold {surplus} beyond your own needs.",
                self.ctx.data.item_name(item)
            ),
            options: vec![format!("offer {give}"), "cannot_supply".to_owned()],
        };
        Some(match self.ask_model(&q, out)? {
            0 => give,
            _ => 0,
        })
    }
}
