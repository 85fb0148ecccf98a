//! What a coordination style changes in an agent (DESIGN section 6; docs/baselines.md):
//! who is too busy to answer, who reacts to others' requests as if they were its own,
//! where an issue goes when the style's own channel takes it (the bot's side of that
//! channel, [`crate::style::BotSide`], keeps its state), and how the channel's
//! directives are carried out. What reading public messages costs is charged by the
//! episode ([`crate::style::reading_ticks`]).

use gatecrew_gating::Issue;
use gatecrew_protocol::trace::ResolvedBy;
use gatecrew_protocol::{AgentId, BoardMessage, Count, IssueId, ItemId, Offer, Recipient, Standing};

use super::{AgentCore, Awaiting, Blocker, Handover, Retry, StepOutput};
use crate::style::{Aside, Directive};

impl AgentCore {
    /// `flatcomm`: one conversation at a time; a bot already in one ignores requests.
    pub(super) fn busy_for_chat(&self) -> bool {
        self.ctx.style.busy(!self.work.handovers.is_empty(), !self.blocker.awaiting.is_empty())
    }

    /// `no_partition`: a teammate's request is taken as if it were the bot's own issue:
    /// if it is short of the same item, it raises the issue at once.
    pub(super) fn echo(&mut self, msg: &BoardMessage, out: &mut StepOutput) {
        let BoardMessage::RequestMaterial { from, item, .. } = *msg else { return };
        if !self.ctx.style.echoes_requests() || from == self.id {
            return;
        }
        let deficit = self.work.own_need(self.id, item).saturating_sub(self.inv.count(item));
        if deficit == 0
            || self.blocker.awaiting.contains_key(&item)
            || self.blocker.first_issue(Blocker::Item(item)).is_some()
        {
            return;
        }
        let node = self.work.own_places(self.id).into_iter().find(|n| {
            super::build::place_of(&self.work.plan.node(*n).kind).is_some_and(|(_, _, i)| i == item)
                && self.work.plan.node(*n).state != crate::plan::NodeState::Done
        });
        let issue = Issue::MissingMaterial { item, count: deficit };
        let id = self.new_issue(issue, Blocker::Item(item), node, out);
        self.run_gate(id, issue, node, out);
    }

    /// Whether the bot waits for its style's channel to answer (`central_dag`: the
    /// manager's re-plan) and does nothing else meanwhile.
    pub(super) fn waits_on_channel(&self) -> bool {
        self.side.as_ref().is_some_and(|s| s.waiting())
    }

    /// The style's channel takes the decided issue over from the board (`central_dag`:
    /// every issue goes to the manager): the bot holds the blocker until it answers.
    pub(super) fn hand_to_channel(&mut self, id: IssueId, issue: Issue, out: &mut StepOutput) -> bool {
        let Some(side) = &mut self.side else { return false };
        let Some(why) = side.take_issue(id, issue, &self.inv, &mut out.style) else { return false };
        if let Some((item, _)) = issue.requestable() {
            // Until the channel answers, the item counts as awaited.
            self.hold(Blocker::Item(item), Retry::WhenIdle, why.into());
        }
        true
    }

    /// Carries out a directive of the style's channel (`central_dag`'s manager).
    pub(super) fn on_directive(&mut self, d: Directive) {
        match d {
            Directive::Deliver { window, to, item, count } => {
                self.work.handovers.push_back(Handover { window, to, item, count, attempts: 0, offers: None });
            }
            Directive::Incoming { window, from, item, count, deadline } => {
                let issue = self.side.as_mut().and_then(|s| s.incoming());
                self.blocker.blocks.remove(&Blocker::Item(item));
                let key = Issue::MissingMaterial { item, count }.key();
                // The manager's deadline: it decides when the delivery has failed.
                self.blocker.awaiting.insert(
                    item,
                    Awaiting {
                        key,
                        issue,
                        reason: gatecrew_protocol::RequestReason::MissingMaterial,
                        since: self.now,
                        count,
                        window: Some(window),
                        deadline,
                        offers: standing_from(from, count),
                        asked: Vec::new(),
                    },
                );
            }
            Directive::RecoverLocally { issue } => {
                let sent = self.side.as_mut().and_then(|s| s.answered(issue));
                // A bot whose gate keeps a history learns from the manager's failure as
                // from a request that timed out (`gated_central_dag`); without a gate
                // the history is never read, and is left as it was.
                if self.gate.policy() != gatecrew_gating::GatePolicy::NoGate {
                    if let Some(i) = sent {
                        self.history.gate.timed_out(i.key());
                    }
                }
                if let Some((item, count)) = sent.and_then(|i| i.requestable()) {
                    self.blocker.awaiting.remove(&item);
                    self.blocker.blocks.remove(&Blocker::Item(item));
                    self.fall_back_now(item, count);
                }
            }
            Directive::Resume { issue } => {
                if let Some(s) = &mut self.side {
                    s.answered(issue);
                }
            }
        }
    }

    /// Items of a delivery the style's channel announced arrived: confirmed there, not
    /// on the board. Whether the channel took them.
    pub(super) fn confirm_on_channel(&mut self, item: ItemId, out: &mut StepOutput) -> bool {
        let Some(side) = &mut self.side else { return false };
        let Some(aw) = self.blocker.awaiting.remove(&item) else { return true };
        side.confirm(aw.window, &mut out.style);
        self.history.gate.confirmed(aw.key);
        self.blocker.resolve(Blocker::Item(item), ResolvedBy::Board, &mut out.notes);
        true
    }

    /// `flatcomm`: issues the protocol cannot carry are still chatted about.
    pub(super) fn chat_status(&mut self, out: &mut StepOutput) {
        if self.ctx.style.chats_status() {
            out.style.push(Aside::Chat(Recipient::All));
        }
    }

    /// Whether a repeated detection of an unchanged issue may be suppressed (`flatcomm`
    /// asks again every time: it has no cooldown).
    pub(super) fn suppress_repeats(&self) -> bool {
        self.ctx.style.suppresses_repeats()
    }
}

/// The manager's assignment as the one offer standing in its window.
fn standing_from(from: AgentId, count: u32) -> Standing {
    let mut offers = Standing::default();
    if let Ok(count) = Count::new(i64::from(count)) {
        offers.add(Offer { from, count });
    }
    offers
}
