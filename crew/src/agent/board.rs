//! The agent's side of the protocol: answering requests from its own surplus, handing
//! items over, confirming what arrived, and falling back to the local solver when a
//! window closes empty (DESIGN sections 5.6-5.7).

use gatecrew_protocol::trace::{FallbackCause, GateAction, ResolvedBy};
use gatecrew_protocol::{
    AgentId, BoardMessage, CloseOutcome, Count, Handover as Way, ItemId, Offer, Pos, RefusalReason, RejectKind,
    Standing, WindowId,
};
use gatecrew_world::cost::Planner;
use gatecrew_world::{Action, Failure, Outcome, Receipt};

use super::work::Undeliverable;
use super::{AgentCore, Blocker, BoardNews, Handover, Retry, StepOutput};

/// How much further the local solver searches once the board failed to help.
pub const FALLBACK_REACH: u64 = 4;

/// How close a giver walks to the centre of a never-seen teammate's share: the world's
/// near box (6 blocks), well inside the default view radius of 16, so that a teammate
/// working anywhere near its share comes into view on the way.
pub(super) const SEEK_RANGE: f64 = 6.0;

/// How many attempts a transfer gets before the giver withdraws its offer (a receiver
/// that keeps moving away): each walk counts twice (when it starts and when it ends),
/// a failed give once. A walk that finds no path withdraws it at once.
const MAX_HANDOVER_ATTEMPTS: u32 = 12;

impl AgentCore {
    pub(super) fn on_news(&mut self, news: BoardNews, out: &mut StepOutput) {
        match news {
            BoardNews::Posted { window, msg } => match msg {
                BoardMessage::RequestMaterial { from, to, item, count, .. } => {
                    if from == self.id {
                        if let Some(aw) = self.blocker.awaiting.get_mut(&item) {
                            if aw.window.is_none() {
                                aw.window = Some(window);
                            }
                        }
                    } else if to.includes(self.id) && !self.busy_for_chat() {
                        self.answer(window, from, item, count.get(), out);
                    }
                    self.echo(&msg, out);
                }
                BoardMessage::OfferTransfer { from, to, item, count, .. } => {
                    self.knowledge.offer(item, from);
                    let offer = Offer { from, count };
                    self.mirror_offers(window, to, item, |s| s.add(offer));
                }
                BoardMessage::CannotSupply { from, to, item, reason, .. } => {
                    // A giver that cannot get here may well hold the item.
                    if reason != RefusalReason::Unreachable {
                        self.knowledge.refusal(item, from);
                    }
                    if to == self.id {
                        self.knowledge.answered_me(item, from, reason == RefusalReason::Unreachable);
                    }
                    self.mirror_offers(window, to, item, |s| s.withdraw(from));
                    self.giver_free(window, from);
                }
                BoardMessage::ConfirmTransfer { to, .. } => self.giver_free(window, to),
            },
            BoardNews::Chat { .. } => {}
            BoardNews::Closed(c) => {
                self.work.handovers.retain(|h| h.window != c.window);
                if c.requester == self.id {
                    let mine = self.blocker.awaiting.get(&c.item).is_some_and(|aw| aw.window == Some(c.window));
                    if mine {
                        let aw = self.blocker.awaiting.remove(&c.item).expect("checked above");
                        match c.outcome {
                            CloseOutcome::Confirmed => {}
                            CloseOutcome::CannotSupply if self.ask_next_ring(c.item, aw.clone(), out) => {}
                            CloseOutcome::CannotSupply => {
                                let cooldown =
                                    self.ctx.style.refusal_cooldown(self.gate.params().spec().cooldown_ticks);
                                self.history.gate.cannot_supply(aw.key, self.now, cooldown);
                                self.fall_back(c.item, aw.count, FallbackCause::CannotSupply);
                            }
                            CloseOutcome::Timeout => {
                                self.history.gate.timed_out(aw.key);
                                self.fall_back(c.item, aw.count, FallbackCause::Timeout);
                            }
                        }
                    }
                }
            }
            BoardNews::Rejected { msg, error } => match msg {
                BoardMessage::OfferTransfer { window, .. } => self.work.handovers.retain(|h| h.window != window),
                BoardMessage::RequestMaterial { item, count, .. } => {
                    tracing::warn!(agent = %self.id, ?error, "request rejected");
                    if self.blocker.awaiting.remove(&item).is_some() {
                        self.fall_back(item, count.get(), FallbackCause::Rejected);
                    }
                }
                BoardMessage::ConfirmTransfer { .. } | BoardMessage::CannotSupply { .. } => {
                    if error != RejectKind::WindowClosed {
                        tracing::warn!(agent = %self.id, ?error, "board rejected a message");
                    }
                }
            },
        }
    }

    /// A request whose window never opened or never closed (a lost message, a muted
    /// agent) is treated as timed out one tick after its deadline, so nothing waits
    /// forever.
    pub(super) fn expire_awaiting(&mut self) {
        let stale: Vec<ItemId> =
            self.blocker.awaiting.iter().filter(|(_, aw)| self.now > aw.deadline + 1).map(|(item, _)| *item).collect();
        for item in stale {
            if let Some(aw) = self.blocker.awaiting.remove(&item) {
                tracing::debug!(agent = %self.id, item = item.0, "request lost: treated as timed out");
                self.history.gate.timed_out(aw.key);
                self.fall_back(item, aw.count, FallbackCause::Lost);
            }
        }
    }

    /// Answers a request from private state only: offer true surplus, or say no.
    fn answer(
        &mut self,
        window: gatecrew_protocol::WindowId,
        from: AgentId,
        item: ItemId,
        count: u32,
        out: &mut StepOutput,
    ) {
        if self.work.cannot_deliver(from, self.stood(from)) {
            // A delivery to it failed from here: winning the window would only hold it
            // up until the withdrawal, while a teammate that can deliver stands by.
            let reason = RefusalReason::Unreachable;
            out.posts.push((BoardMessage::CannotSupply { window, from: self.id, to: from, item, reason }, None));
            return;
        }
        let surplus = self.surplus(item);
        let give = self.model_answer(from, item, count, surplus, out).unwrap_or(surplus.min(count));
        let msg = if give > 0 {
            let offers = Some(Standing::default());
            self.work.handovers.push_back(Handover { window, to: from, item, count: give, attempts: 0, offers });
            let count = Count::new(i64::from(give)).expect("1..=requested is a valid count");
            BoardMessage::OfferTransfer { window, from: self.id, to: from, item, count, handover: Way::Give }
        } else {
            BoardMessage::CannotSupply { window, from: self.id, to: from, item, reason: RefusalReason::NoSurplus }
        };
        out.posts.push((msg, None));
    }

    /// A window closed without the items: control returns to the local solver at once.
    pub(super) fn fall_back_now(&mut self, item: ItemId, count: u32) {
        self.fall_back(item, count, FallbackCause::Manager);
    }

    fn fall_back(&mut self, item: ItemId, count: u32, cause: FallbackCause) {
        if let Some(rec) = &mut self.blocker.recovery {
            if rec.paused_for() == Some(item) {
                // The recovery that needed this tool goes on with its local alternatives.
                rec.unpause(item);
                return;
            }
        }
        let Some(id) = self.blocker.first_issue(Blocker::Item(item)) else {
            return;
        };
        let want = self.inv.count(item) + count;
        // No teammate helps: a long local chain is now worth it (DESIGN 5.5's last
        // resort), so the search reaches further than the gate's.
        let budget = self.gate.params().spec().search_ticks.saturating_mul(FALLBACK_REACH);
        let k = self.known_for(Some(item));
        let local = Planner::new(&k, budget).obtain(item, want).is_some();
        let action = if local { GateAction::LocalRecover } else { GateAction::LocalSkip };
        self.blocker.fallbacks.push(super::Note::Fallback { id, action, cause });
        if local {
            self.start_recovery(item, want, id, budget);
        } else {
            // Last resort, once nothing else is left to do: go and look (explore.rs).
            self.unsourced(item, id, cause, want);
            let why = format!("no local source of {} and no teammate supplied it", self.ctx.data.item_name(item));
            self.hold(Blocker::Item(item), Retry::WhenIdle, why);
        }
    }

    /// Items from a teammate, verified by the world: confirm on the board.
    pub(super) fn on_receipt(&mut self, r: Receipt, out: &mut StepOutput) {
        self.inv.insert_unchecked(r.item, r.count);
        if self.confirm_on_channel(r.item, out) {
            if let Some(rec) = &mut self.blocker.recovery {
                rec.unpause(r.item);
            }
            return;
        }
        let Some(aw) = self.blocker.awaiting.get(&r.item) else {
            return;
        };
        let Some(window) = aw.window else {
            return;
        };
        // Items from a giver with no offer standing, or handed over for another window,
        // confirm nothing here. Any standing offer's items do: a giver that stood by may
        // have delivered before it heard the window went to another.
        let Some(offer) = aw.offers.by(r.from) else {
            return;
        };
        if r.window.is_some_and(|w| w != window) {
            return;
        }
        let count = Count::new(i64::from(r.count.min(offer.count.get()))).expect("a receipt carries at least one item");
        out.posts
            .push((BoardMessage::ConfirmTransfer { window, from: self.id, to: r.from, item: r.item, count }, None));
        let aw = self.blocker.awaiting.remove(&r.item).expect("read above");
        self.history.gate.confirmed(aw.key);
        self.blocker.resolve(Blocker::Item(r.item), ResolvedBy::Board, &mut out.notes);
        // Less than asked for arrived (each teammate offers what it can spare, and the
        // window closes on the first transfer): the rest is asked for now, while the
        // teammates that stood by still hold it and can still get here, not once this
        // bot has run out.
        let short = self.work.own_need(self.id, r.item).saturating_sub(self.inv.count(r.item));
        let rest = aw.count.saturating_sub(r.count).min(short);
        if rest > 0 {
            self.ask_rest(r.item, aw, rest, out);
        }
        if let Some(rec) = &mut self.blocker.recovery {
            rec.unpause(r.item);
        }
    }

    /// Keeps the record of a window's standing offers in step with the board's news:
    /// the requester's (it waits for the awaited giver from the time that giver became
    /// awaited, as the board does) and every giver's that offered in it.
    fn mirror_offers(&mut self, window: WindowId, to: AgentId, item: ItemId, change: impl Fn(&mut Standing) -> bool) {
        if to == self.id {
            if let Some(aw) = self.blocker.awaiting.get_mut(&item) {
                if aw.window == Some(window) && change(&mut aw.offers) && !aw.offers.is_empty() {
                    aw.deadline = self.now + self.ctx.board_cfg.handover_ticks;
                }
            }
        }
        for h in self.work.handovers.iter_mut().filter(|h| h.window == window) {
            if let Some(offers) = &mut h.offers {
                change(offers);
            }
        }
    }

    /// `giver` is done with `window` (delivered, or said no): if it is the giver this
    /// bot awaits in another window, that hand-over starts now, as the board counts it
    /// (the board does so only for a giver it awaited there; waiting longer than the
    /// board is harmless, the board's close comes first).
    fn giver_free(&mut self, window: WindowId, giver: AgentId) {
        let deadline = self.now + self.ctx.board_cfg.handover_ticks;
        for aw in self.blocker.awaiting.values_mut() {
            if aw.window.is_some_and(|w| w != window) && aw.offers.current().is_some_and(|o| o.from == giver) {
                aw.deadline = aw.deadline.max(deadline);
            }
        }
    }

    /// The next step of the first transfer this bot is the awaited giver of, with its
    /// window. One it cannot make any more is withdrawn on the board at once.
    pub(super) fn next_handover_action(&mut self, out: &mut StepOutput) -> Option<(WindowId, Action)> {
        loop {
            let i = self.work.handovers.iter().position(|h| h.awaited_from(self.id))?;
            let h = self.work.handovers[i].clone();
            if self.inv.count(h.item) < h.count {
                self.withdraw(h.window, RefusalReason::NoSurplus, out);
                continue;
            }
            if h.attempts > MAX_HANDOVER_ATTEMPTS {
                self.withdraw(h.window, RefusalReason::Unreachable, out);
                continue;
            }
            self.work.handovers[i].attempts += 1;
            let seen = self.knowledge.mem.visible().iter().find(|(a, _)| *a == h.to).map(|(_, p)| *p);
            let Some(target) = seen.or_else(|| self.knowledge.mem.last_seen(h.to)) else {
                // Never seen (it works out of view): go to where its share of the
                // blueprint lies, which every bot knows from the split, on the ground,
                // until it comes into view.
                let r = self.region_of(h.to);
                return Some((h.window, Action::MoveTo { target: Pos::new(r.x, 0, r.z), range: SEEK_RANGE }));
            };
            if self.pos.dist(target) <= self.ctx.physics.reach - 0.5 {
                self.work.handovers[i].attempts -= 1;
                return Some((
                    h.window,
                    Action::Give { to: h.to, item: h.item, count: h.count, window: Some(h.window) },
                ));
            }
            return Some((h.window, Action::MoveTo { target, range: 2.0 }));
        }
    }

    /// Drops the transfer of `window`; one offered on the board is withdrawn there with
    /// `CANNOT_SUPPLY`, so that the window goes to a teammate that can deliver.
    fn withdraw(&mut self, window: WindowId, reason: RefusalReason, out: &mut StepOutput) {
        let Some(i) = self.work.handovers.iter().position(|h| h.window == window) else {
            return;
        };
        let h = self.work.handovers.remove(i).expect("found above");
        if reason == RefusalReason::Unreachable {
            let stood = self.stood(h.to);
            self.work.undeliverable.insert(h.to, stood);
        }
        if h.offers.is_some() {
            tracing::debug!(agent = %self.id, %window, ?reason, "offer withdrawn");
            let msg = BoardMessage::CannotSupply { window, from: self.id, to: h.to, item: h.item, reason };
            out.posts.push((msg, None));
        }
    }

    /// Where this bot stands and where it last saw `to`.
    fn stood(&self, to: AgentId) -> Undeliverable {
        Undeliverable { here: self.pos, them: self.knowledge.mem.last_seen(to) }
    }

    pub(super) fn handover_outcome(&mut self, window: WindowId, o: &Outcome, out: &mut StepOutput) {
        match (&o.action, &o.result) {
            (Action::Give { .. }, Ok(_) | Err(Failure::AlreadyHandedOver { .. })) => {
                self.work.handovers.retain(|h| h.window != window);
            }
            // No walk leads to the requester (stranded on an upper floor, walled in):
            // waiting would only let the window time out.
            (Action::MoveTo { .. }, Err(Failure::NoPath { .. })) => {
                self.withdraw(window, RefusalReason::Unreachable, out);
            }
            (action, result) => {
                // The receiver is not where this bot last saw it and is out of view:
                // going back to that place would only fail the same give again.
                if let (Action::Give { to, .. }, Err(Failure::OutOfReach { .. })) = (action, result) {
                    if !self.knowledge.mem.visible().iter().any(|(a, _)| a == to) {
                        self.knowledge.mem.not_there(*to);
                    }
                }
                if let Some(h) = self.work.handovers.iter_mut().find(|h| h.window == window) {
                    h.attempts += 1;
                }
            }
        }
    }
}
