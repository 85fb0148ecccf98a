//! The episode's side of the baselines: chat lines with modelled token costs
//! (`flatcomm`) and the central manager's re-plans that stop the whole crew
//! (`central_dag`).
//!
//! The manager is handed the agents' messages and the task status (the blueprint cells
//! still to place, read off the world as a task tracker would), never an inventory: it
//! learns those from the agents' reports alone (see [`super::manager`]).

use std::collections::VecDeque;

use gatecrew_protocol::trace::{EventKind, WindowEvent};
use gatecrew_protocol::{AgentId, Recipient};
use gatecrew_world::Part;

use super::Episode;
use super::manager::{Directive, ManagerAsk, Unplaced};
use crate::agent::StepOutput;
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
                // Issues and inventory reports can be lost; a confirmation is not
                // (it closes a window the manager tracks, as the board's do).
                let droppable = !matches!(ask, ManagerAsk::Received { .. });
                if droppable && self.lost(agent, LineKind::Manager) {
                    if let ManagerAsk::Issue { issue, .. } = ask {
                        self.report_lost(agent, issue);
                    }
                    return;
                }
                self.ask_manager(agent, ask);
            }
        }
    }

    /// `central_dag`: the inventory reports of a round reach the manager before anything
    /// else its agents said. The agents of a round act at the same tick; without this,
    /// an issue raised at an agent's first step would be re-planned before its
    /// teammates' first reports, only because their ids are higher. A muted agent's
    /// reports are left for [`Self::apply`], which drops them with the rest.
    pub(super) fn read_reports(&mut self, outputs: &mut VecDeque<(AgentId, StepOutput)>) {
        if self.manager.is_none() {
            return;
        }
        for (agent, out) in outputs.iter_mut() {
            if self.muted.get(agent.index()).copied().unwrap_or(false) {
                continue;
            }
            let (reports, rest): (Vec<Aside>, Vec<Aside>) = std::mem::take(&mut out.style)
                .into_iter()
                .partition(|a| matches!(a, Aside::Ask(ManagerAsk::Report(_))));
            out.style = rest;
            for r in reports {
                self.aside(*agent, r);
            }
        }
    }

    /// The task status the manager may know: blueprint cells still to place (the upper
    /// halves of doors and beds come with their lower halves), with the item each takes.
    fn unplaced(&self) -> Vec<Unplaced> {
        let data = self.world.data();
        self.blueprint
            .cells()
            .iter()
            .enumerate()
            .filter(|(_, c)| c.part != Part::Upper && self.world.block_at(c.pos) != c.block)
            .filter_map(|(cell, c)| data.block_info(c.block).item.map(|item| Unplaced { cell, item }))
            .collect()
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
        // A muted bot is cut off, and a failed one (a bot that left a real server) is
        // gone: the manager's directive goes unanswered.
        if self.muted.get(to.index()).copied().unwrap_or(false) || self.failed(to.index()) {
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
        self.push(EventKind::Manager { from: Some(agent), to: None, tokens: ask.tokens() });
        let unplaced = self.unplaced();
        let mut replan = manager.handle(agent, &ask, self.tick, &unplaced);
        // Under `llm` the re-plan's prompt is the status the manager re-plans from,
        // written out and counted (`render::replan`).
        let status = (self.exec.is_some() && replan.pause > 0).then(|| {
            let data = self.world.data();
            let cells = self.blueprint.cells();
            let asked = crate::executor::render::ask(agent, &ask, data);
            let rows = unplaced.iter().map(|u| (cells[u.cell].pos, u.item, manager.owner(u.cell)));
            crate::executor::render::replan(&asked, rows, manager.spares(), data)
        });
        self.manager = Some(manager);
        // Under the `llm` executor the re-plan is a call: it pauses the crew as long as
        // the call takes, and a mistaken one loses one delivery order (the manager's
        // deadline then tells the requester to recover, as for a lost report).
        if replan.pause > 0 {
            let data = self.world.data().clone();
            let lines: Vec<String> =
                replan.directives.iter().map(|(to, d)| crate::executor::render::directive(*to, d, &data)).collect();
            let prompt = status.as_deref().and_then(|t| self.exec.as_ref().map(|x| x.model().tokens(t)));
            if let Some(call) = self.exec_replan(prompt.unwrap_or(replan.tokens), &lines) {
                replan.pause = call.ticks;
                let orders: Vec<usize> = (0..replan.directives.len())
                    .filter(|k| matches!(replan.directives[*k].1, Directive::Deliver { .. }))
                    .collect();
                if call.mistake && !orders.is_empty() {
                    replan.directives.remove(orders[(call.pick % orders.len() as u64) as usize]);
                }
            }
        }
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

#[cfg(test)]
mod tests {
    //! The manager never reads an inventory it was not told (issue 15, "fair
    //! baselines"): the default house, where bot 0 holds the glass bot 2 lacks, with the
    //! manager's belief made to disagree with the world, as after a report went stale.

    use gatecrew_protocol::trace::Event;
    use gatecrew_protocol::{Board, CloseOutcome, IssueId, ItemId};

    use super::super::manager::Report;
    use super::super::{Answer, Need, stepper};
    use super::*;
    use crate::setup::{Overrides, Setup};

    fn setup() -> Setup {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/crew.toml");
        let ov = Overrides { policy: Some(crate::policy::Policy::CentralDag), ..Overrides::default() };
        Setup::load(&path, &ov).unwrap()
    }

    fn glass(s: &Setup) -> ItemId {
        s.data.item("glass").unwrap()
    }

    /// Bot 0 "reported" no glass (the world gives it 4) and bot 1 "reported" 3 (the
    /// world gives it none): what each would have said before its inventory changed.
    fn stale_reports(ep: &mut Episode, glass: ItemId) {
        ep.ask_manager(AgentId(0), ManagerAsk::Report(Report { items: Vec::new() }));
        ep.ask_manager(AgentId(1), ManagerAsk::Report(Report { items: vec![(glass, 3)] }));
    }

    fn delivers(ep: &Episode, agent: AgentId) -> Vec<Directive> {
        ep.slots[agent.index()]
            .deliveries
            .iter()
            .map(|Delivery::Directive(d)| *d)
            .filter(|d| matches!(d, Directive::Deliver { .. }))
            .collect()
    }

    #[test]
    fn the_manager_orders_by_the_reports_not_by_the_world() {
        let s = setup();
        let glass = glass(&s);
        let mut ep = Episode::new(&s);
        assert_eq!(ep.world.body(AgentId(0)).unwrap().inventory.count(glass), 4, "the world's glass is bot 0's");
        stale_reports(&mut ep, glass);
        let issue = IssueId::new(AgentId(2), 999);
        ep.ask_manager(AgentId(2), ManagerAsk::Issue { issue, item: Some((glass, 2)) });
        assert!(delivers(&ep, AgentId(0)).is_empty(), "bot 0's glass was never reported");
        assert!(matches!(delivers(&ep, AgentId(1))[..], [Directive::Deliver { to: AgentId(2), count: 2, .. }]));
    }

    /// The whole episode on the stepper's loop, with the stale reports folded in after
    /// the agents' own first ones: bot 2's request for glass is sent to bot 1, which
    /// holds none and so gives none; the window runs out and bot 2 is told to recover.
    #[test]
    fn an_order_built_on_a_stale_report_fails_honestly() {
        let s = setup();
        let glass = glass(&s);
        let mut ep = Episode::new(&s);
        let mut board = Board::new(s.roster(), s.data.items().clone(), s.board);
        let mut agents = s.agents();
        let mut events: Vec<Event> = Vec::new();
        let mut injected = false;
        loop {
            let answer = match ep.poll() {
                Need::Deadline => Answer::Deadline(board.next_deadline()),
                Need::Adjudicate(_) => unreachable!("no external adjudicator"),
                Need::Expire(now) => Answer::Expired(board.expire(now)),
                Need::Post { from, msg, now } => Answer::Posted(board.post(from, msg, now)),
                Need::Outside(_) | Need::Over(_) => Answer::Ready,
                Need::Step(inputs) => Answer::Stepped(stepper::step_all(&mut agents, inputs)),
                Need::Flush => {
                    events.extend(ep.drain());
                    if !injected {
                        stale_reports(&mut ep, glass);
                        injected = true;
                    }
                    Answer::Ready
                }
                Need::Done(_) => break,
            };
            ep.answer(answer);
        }
        let opened = events
            .iter()
            .position(|e| matches!(e.kind, EventKind::Window { event: WindowEvent::Open, .. }))
            .expect("bot 2 asked for glass and the manager ordered a delivery");
        let EventKind::Window { window, .. } = events[opened].kind else { unreachable!() };
        assert!(
            matches!(events[opened + 1].kind, EventKind::Manager { from: None, to: Some(AgentId(1)), .. }),
            "the order goes to bot 1, as its report said: {:?}",
            events[opened + 1]
        );
        let gave_glass = |e: &Event| {
            matches!(&e.kind, EventKind::Action { agent: AgentId(1), action, ok: true, item, .. }
                if action.as_str() == "give" && item.as_deref() == Some("glass"))
        };
        assert!(!events.iter().any(gave_glass), "bot 1 cannot give glass it does not hold");
        assert!(
            events.iter().any(|e| matches!(e.kind, EventKind::Window { window: w, event: WindowEvent::Close, outcome: Some(CloseOutcome::Timeout), .. } if w == window)),
            "the delivery's window runs out"
        );
    }
}
