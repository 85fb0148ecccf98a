//! The episode's side of the baselines: chat lines with modelled token costs
//! (`flatcomm`) and the central manager's re-plans that stop the whole crew
//! (`central_dag`).

use gatecrew_protocol::trace::{EventKind, WindowEvent};
use gatecrew_protocol::{AgentId, Recipient};

use super::Episode;
use super::manager::{Directive, ManagerAsk};
use crate::style::{Aside, Delivery};

/// Fixed prompt of a chat reply (system prompt, the bot's state).
const CHAT_BASE_TOKENS: u32 = 350;
/// Each chat line the bot has read is sent again in its next prompt, up to a window.
const CHAT_LINE_TOKENS: u32 = 30;
const CHAT_HISTORY: u32 = 30;

impl Episode {
    /// Takes what an agent said outside the board: a chat line reaches every teammate,
    /// a report reaches the manager, unless the drop fault loses it on the way.
    pub(super) fn aside(&mut self, agent: AgentId, aside: Aside) {
        use gatecrew_protocol::trace::LineKind;
        match aside {
            Aside::Chat(to) => {
                if self.lost(agent, LineKind::Chat) {
                    return;
                }
                self.record_chat(agent, to);
                self.broadcast(super::BoardNews::Chat { from: agent });
            }
            Aside::Ask(ask) => {
                if let ManagerAsk::Issue { issue, .. } = ask {
                    if self.lost(agent, LineKind::Manager) {
                        self.report_lost(agent, issue);
                        return;
                    }
                }
                self.ask_manager(agent, ask);
            }
        }
    }

    /// Records a chat line: every teammate reads it, which grows their next prompts.
    pub(super) fn record_chat(&mut self, from: AgentId, to: Recipient) {
        let seen = self.slots.get(from.index()).map_or(0, |s| s.chat_lines_seen);
        let tokens = CHAT_BASE_TOKENS + CHAT_LINE_TOKENS * seen.min(CHAT_HISTORY);
        self.push(EventKind::Chat { from, to, tokens });
        for s in &mut self.slots {
            s.chat_lines_seen += 1;
        }
    }

    /// Every agent waits `ticks` while the manager re-plans.
    fn pause_all(&mut self, ticks: u64) {
        for s in &mut self.slots {
            if let Some((t, _)) = &mut s.pending {
                *t = *t + ticks;
            }
            if let Some(t) = &mut s.wait_until {
                *t = *t + ticks;
            }
        }
    }

    fn direct(&mut self, to: AgentId, d: Directive, delay: u64, tokens: u32) {
        self.push(EventKind::Manager { from: None, to: Some(to), tokens });
        let due = self.tick + delay.max(1);
        // A muted bot is cut off: the manager's directive goes unanswered.
        if self.muted.get(to.index()).copied().unwrap_or(false) {
            return;
        }
        if let Some(s) = self.slots.get_mut(to.index()) {
            s.deliveries.push(Delivery::Directive(d));
            s.delivery_due = Some(s.delivery_due.map_or(due, |t| t.min(due)));
        }
    }

    /// An agent's message to the central manager.
    pub(super) fn ask_manager(&mut self, agent: AgentId, ask: ManagerAsk) {
        let Some(mut manager) = self.manager.take() else { return };
        self.push(EventKind::Manager { from: Some(agent), to: None, tokens: 150 });
        let replan = manager.handle(agent, ask, self.tick, &self.blueprint, &self.world);
        self.manager = Some(manager);
        for (window, issue) in &replan.opened {
            self.push(EventKind::Window {
                window: *window,
                event: WindowEvent::Open,
                issue_id: Some(*issue),
                outcome: None,
            });
        }
        for window in &replan.confirmed {
            self.push(EventKind::Window {
                window: *window,
                event: WindowEvent::Close,
                issue_id: None,
                outcome: Some(gatecrew_protocol::CloseOutcome::Confirmed),
            });
        }
        self.pause_all(replan.pause);
        for (to, d) in replan.directives {
            self.direct(to, d, replan.pause, replan.tokens);
        }
    }

    /// Deliveries the manager ordered that did not arrive in time.
    pub(super) fn expire_deliveries(&mut self, now: gatecrew_protocol::Tick) {
        let Some(manager) = &mut self.manager else { return };
        for (window, requester, issue) in manager.expire(now) {
            self.push(EventKind::Window {
                window,
                event: WindowEvent::Close,
                issue_id: None,
                outcome: Some(gatecrew_protocol::CloseOutcome::Timeout),
            });
            self.direct(requester, Directive::RecoverLocally { issue }, 1, 150);
        }
    }
}
