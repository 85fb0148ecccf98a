//! What the baseline policies change in an agent (DESIGN section 6; docs/baselines.md):
//! who is too busy to answer, who reacts to others' requests as if they were its own,
//! and how the central manager's directives are carried out. (What reading public
//! messages costs is charged by the episode: [`crate::style::reading_ticks`].)

use gatecrew_gating::Issue;
use gatecrew_protocol::trace::ResolvedBy;
use gatecrew_protocol::{BoardMessage, IssueId, Recipient};

use super::{AgentCore, Awaiting, Blocker, Handover, Retry, StepOutput};
use crate::episode::manager::{Directive, ManagerAsk, Report};
use crate::style::Aside;

impl AgentCore {
    /// `flatcomm`: one conversation at a time; a bot already in one ignores requests.
    pub(super) fn busy_for_chat(&self) -> bool {
        self.style.busy(!self.handovers.is_empty(), !self.awaiting.is_empty())
    }

    /// `no_partition`: a teammate's request is taken as if it were the bot's own issue:
    /// if it is short of the same item, it raises the issue at once.
    pub(super) fn echo(&mut self, msg: &BoardMessage, out: &mut StepOutput) {
        let BoardMessage::RequestMaterial { from, item, .. } = *msg else { return };
        if !self.style.echoes_requests() || from == self.id {
            return;
        }
        let deficit = self.own_need(item).saturating_sub(self.inv.count(item));
        if deficit == 0 || self.awaiting.contains_key(&item) || self.first_issue(Blocker::Item(item)).is_some() {
            return;
        }
        let node = self.own_places().into_iter().find(|n| {
            super::build::place_of(&self.plan.node(*n).kind).is_some_and(|(_, _, i)| i == item)
                && self.plan.node(*n).state != crate::plan::NodeState::Done
        });
        let issue = Issue::MissingMaterial { item, count: deficit };
        let id = self.new_issue(issue, Blocker::Item(item), node, out);
        self.run_gate(id, issue, node, out);
    }

    /// `central_dag`: the bot's first report of its inventory, at its first step (the
    /// manager knows nothing of what a bot holds but what it reports).
    pub(super) fn report_first(&mut self, out: &mut StepOutput) {
        if self.reported.is_none() {
            self.report_inventory(out);
        }
    }

    /// `central_dag`: reports what the bot holds, when that changed since its last report
    /// (or it never reported). The model of VillagerAgent's agents returning their state
    /// with their feedback: a bot reports at its first step and with each issue it sends,
    /// not after every action (between those, the manager's belief can be out of date).
    fn report_inventory(&mut self, out: &mut StepOutput) {
        if !self.style.central_manager() || self.reported.as_ref() == Some(&self.inv) {
            return;
        }
        let items = self.inv.iter().filter(|(_, n)| *n > 0).collect();
        out.style.push(Aside::Ask(ManagerAsk::Report(Report { items })));
        self.reported = Some(self.inv.clone());
    }

    /// `central_dag`: every issue goes to the manager (with a fresh report of the bot's
    /// inventory, if it changed), and the bot waits for the re-plan.
    pub(super) fn ask_manager(&mut self, id: IssueId, issue: Issue, out: &mut StepOutput) {
        self.report_inventory(out);
        out.style.push(Aside::Ask(ManagerAsk::Issue { issue: id, item: issue.requestable() }));
        self.sent_to_manager.insert(id, issue);
        self.waiting_manager = Some(id);
        if let Some((item, _)) = issue.requestable() {
            // Until the manager answers, the item counts as awaited.
            self.hold(Blocker::Item(item), Retry::WhenIdle, "waiting for the manager's re-plan".into());
        }
    }

    /// Carries out a directive of the manager.
    pub(super) fn on_directive(&mut self, d: Directive, out: &mut StepOutput) {
        match d {
            Directive::Deliver { window, to, item, count } => {
                self.handovers.push_back(Handover { window, to, item, count, attempts: 0 });
            }
            Directive::Incoming { window, from, item, count, deadline } => {
                let issue = self.waiting_manager.take();
                self.blocks.remove(&Blocker::Item(item));
                let key = Issue::MissingMaterial { item, count }.key();
                // The manager's deadline: it decides when the delivery has failed.
                self.awaiting.insert(
                    item,
                    Awaiting {
                        key,
                        issue,
                        reason: gatecrew_protocol::RequestReason::MissingMaterial,
                        since: self.now,
                        count,
                        window: Some(window),
                        deadline,
                        offered_by: Some((from, count)),
                        asked: Vec::new(),
                    },
                );
            }
            Directive::RecoverLocally { issue } => {
                if self.waiting_manager == Some(issue) {
                    self.waiting_manager = None;
                }
                if let Some((item, count)) = self.sent_to_manager.get(&issue).and_then(|i| i.requestable()) {
                    self.awaiting.remove(&item);
                    self.blocks.remove(&Blocker::Item(item));
                    self.fall_back_now(item, count);
                }
                let _ = out;
            }
            Directive::Resume { issue } => {
                if self.waiting_manager == Some(issue) {
                    self.waiting_manager = None;
                }
            }
        }
    }

    /// `central_dag`: items of a delivery arrived; the manager closes the window.
    pub(super) fn confirm_to_manager(&mut self, item: gatecrew_protocol::ItemId, out: &mut StepOutput) -> bool {
        if !self.style.central_manager() {
            return false;
        }
        let Some(aw) = self.awaiting.remove(&item) else { return true };
        if let Some(window) = aw.window {
            out.style.push(Aside::Ask(ManagerAsk::Received { window }));
        }
        self.history.confirmed(aw.key);
        self.resolve(Blocker::Item(item), ResolvedBy::Board, out);
        true
    }

    /// `flatcomm`: issues the protocol cannot carry are still chatted about.
    pub(super) fn chat_status(&mut self, out: &mut StepOutput) {
        if self.style.chats_status() {
            out.style.push(Aside::Chat(Recipient::All));
        }
    }

    /// Whether a repeated detection of an unchanged issue may be suppressed (`flatcomm`
    /// asks again every time: it has no cooldown).
    pub(super) fn suppress_repeats(&self) -> bool {
        self.style.suppresses_repeats()
    }
}
