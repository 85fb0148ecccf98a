//! `central_dag` (DESIGN section 6, VillagerAgent-like): a central manager holds the
//! whole task graph; every issue goes to it and it re-plans while the crew waits.
//!
//! * [`manager`] is the manager core: what it knows and how it decides;
//! * [`Central`] is the channel the episode runs: it hands the manager the agents'
//!   lines with the task status (the blueprint cells still to place, read off the
//!   world as a task tracker would, never an inventory), records the re-plan, pauses
//!   the crew and delivers the directives;
//! * [`Bot`] is each bot's side: the issue it waits on the manager for, the issues it
//!   sent, and the inventory it last reported (the manager learns inventories from
//!   these reports alone). What the bot does on a directive is its own
//!   (`crew/src/agent/baseline.rs`).

pub mod manager;

use std::collections::{BTreeMap, VecDeque};

use gatecrew_gating::{GatePolicy, Issue};
use gatecrew_protocol::trace::{EventKind, LineKind, WindowEvent};
use gatecrew_protocol::{AgentId, CloseOutcome, IssueId, Tick, WindowId};
use gatecrew_world::{Blueprint, Inventory, Part, World};

use self::manager::{Directive, Manager, ManagerAsk, ManagerConfig, Report, Unplaced};
use super::{Aside, BotSide, Channel, Delivery, Host, Style};
use crate::agent::StepOutput;
use crate::executor::render;

/// `central_dag`: the manager holds the plan; the bots run no gate of their own.
#[derive(Debug, Clone, Copy)]
pub struct CentralDag;

impl Style for CentralDag {
    fn gate(&self) -> GatePolicy {
        GatePolicy::NoGate
    }

    fn writes_with_model(&self) -> bool {
        true
    }

    fn bot(&self) -> Option<Box<dyn BotSide>> {
        Some(Box::new(Bot::default()))
    }

    fn channel(&self, setup: &crate::setup::Setup) -> Option<Box<dyn Channel>> {
        let n = setup.world.agent_count();
        let owners = crate::plan::split_work(&setup.blueprint, setup.labels.builders(n));
        let manager = Manager::new(ManagerConfig::default(), owners, n);
        Some(Box::new(Central { manager, seat: setup.seat.clone() }))
    }
}

/// A bot's side of `central_dag`.
#[derive(Debug, Clone, Default)]
struct Bot {
    /// The issue the bot waits on the manager's re-plan for.
    waiting: Option<IssueId>,
    /// Every issue it sent the manager.
    sent: BTreeMap<IssueId, Issue>,
    /// The inventory it last reported (`None` before the first report).
    reported: Option<Inventory>,
}

impl Bot {
    /// Reports what the bot holds, when that changed since its last report (or it never
    /// reported). The model of VillagerAgent's agents returning their state with their
    /// feedback: a bot reports at its first step and with each issue it sends, not after
    /// every action (between those, the manager's belief can be out of date).
    fn report(&mut self, inv: &Inventory, out: &mut Vec<Aside>) {
        if self.reported.as_ref() == Some(inv) {
            return;
        }
        let items = inv.iter().filter(|(_, n)| *n > 0).collect();
        out.push(Aside::Ask(ManagerAsk::Report(Report { items })));
        self.reported = Some(inv.clone());
    }
}

impl BotSide for Bot {
    fn clone_box(&self) -> Box<dyn BotSide> {
        Box::new(self.clone())
    }

    /// The first report, at the bot's first step: the manager knows nothing of what a
    /// bot holds but what it reports.
    fn wake(&mut self, inv: &Inventory, out: &mut Vec<Aside>) {
        if self.reported.is_none() {
            self.report(inv, out);
        }
    }

    /// Every issue goes to the manager, with a fresh report if the inventory changed;
    /// the bot waits for the re-plan.
    fn take_issue(&mut self, id: IssueId, issue: Issue, inv: &Inventory, out: &mut Vec<Aside>) -> Option<&'static str> {
        self.report(inv, out);
        out.push(Aside::Ask(ManagerAsk::Issue { issue: id, item: issue.requestable() }));
        self.sent.insert(id, issue);
        self.waiting = Some(id);
        Some("waiting for the manager's re-plan")
    }

    fn confirm(&mut self, window: Option<WindowId>, out: &mut Vec<Aside>) {
        if let Some(window) = window {
            out.push(Aside::Ask(ManagerAsk::Received { window }));
        }
    }

    fn incoming(&mut self) -> Option<IssueId> {
        self.waiting.take()
    }

    fn answered(&mut self, issue: IssueId) -> Option<Issue> {
        if self.waiting == Some(issue) {
            self.waiting = None;
        }
        self.sent.get(&issue).copied()
    }

    fn waiting(&self) -> bool {
        self.waiting.is_some()
    }
}

/// The manager's channel, run by the episode.
#[derive(Debug, Clone)]
pub(crate) struct Central {
    manager: Manager,
    /// The model that re-plans for the manager, with model-driven bots.
    seat: Option<std::sync::Arc<crate::bots::Seat>>,
}

/// The task status the manager may know: blueprint cells still to place (the upper
/// halves of doors and beds come with their lower halves), with the item each takes.
fn unplaced(world: &World, blueprint: &Blueprint) -> Vec<Unplaced> {
    let data = world.data();
    blueprint
        .cells()
        .iter()
        .enumerate()
        .filter(|(_, c)| c.part != Part::Upper && world.block_at(c.pos) != c.block)
        .filter_map(|(cell, c)| data.block_info(c.block).item.map(|item| Unplaced { cell, item }))
        .collect()
}

impl Central {
    /// With model-driven bots, the manager's re-plan of a missing item is a model call
    /// over the task status (the line that asked, each unplaced cell with its owner,
    /// what each bot reported it can spare): which teammate delivers, or the bot
    /// recovers locally. `None`: no model, or nothing to choose (no teammate is
    /// believed to have any to spare). Else the choice (`None`: the replies were
    /// unusable and the manager's own rule stands) and the game ticks the calls cost.
    fn model_replan(
        &self,
        agent: AgentId,
        ask: &ManagerAsk,
        unplaced: &[Unplaced],
        host: &mut dyn Host,
    ) -> Option<(Option<Option<AgentId>>, u64)> {
        let seat = self.seat.as_ref()?;
        let ManagerAsk::Issue { issue, item: Some((item, count)) } = *ask else { return None };
        let donors = self.manager.donors(agent, item);
        if donors.is_empty() {
            return None;
        }
        let data = host.world().data();
        let cells = host.blueprint().cells();
        let rows = unplaced.iter().map(|u| (cells[u.cell].pos, u.item, self.manager.owner(u.cell)));
        let state = render::replan(&render::ask(agent, ask, data), rows, self.manager.spares(), data);
        let name = data.item_name(item);
        let mut options: Vec<String> =
            donors.iter().map(|(a, s)| format!("{a} brings {} {name}", (*s).min(count))).collect();
        options.push("recover_locally".to_owned());
        let q = crate::bots::Question {
            point: crate::bots::Point::Replan,
            issue_id: Some(issue),
            state,
            ask: format!("{agent} lacks {count} {name}. Who brings it, or does {agent} get it itself?"),
            options,
        };
        let (choice, notes) = seat.decide(None, &q);
        let ticks = notes.iter().map(|n| n.ticks).sum();
        for n in notes {
            host.record(n.event(None));
        }
        Some((choice.map(|i| donors.get(i).map(|d| d.0)), ticks))
    }

    /// An agent's line reached the manager.
    fn ask(&mut self, agent: AgentId, ask: ManagerAsk, host: &mut dyn Host) {
        host.record(EventKind::Manager { from: Some(agent), to: None, tokens: ask.tokens() });
        let unplaced = unplaced(host.world(), host.blueprint());
        let chosen = self.model_replan(agent, &ask, &unplaced, host);
        let mut replan = self.manager.handle_choosing(agent, &ask, host.now(), &unplaced, chosen.and_then(|c| c.0));
        if let Some((_, ticks)) = chosen {
            // The re-plan took as long as the model's calls did.
            replan.pause = ticks;
        }
        // Under the `llm` executor the re-plan is a call whose prompt is the status the
        // manager re-plans from, written out and counted (`render::replan`). It pauses
        // the crew as long as the call takes, and a mistaken one loses one delivery
        // order (the manager's deadline then tells the requester to recover, as for a
        // lost report).
        if replan.pause > 0 && host.llm() {
            let data = host.world().data();
            let cells = host.blueprint().cells();
            let asked = render::ask(agent, &ask, data);
            let rows = unplaced.iter().map(|u| (cells[u.cell].pos, u.item, self.manager.owner(u.cell)));
            let status = render::replan(&asked, rows, self.manager.spares(), data);
            let lines: Vec<String> = replan.directives.iter().map(|(to, d)| render::directive(*to, d, data)).collect();
            let prompt = host.tokens(&status).unwrap_or(replan.tokens);
            if let Some(call) = host.replan_call(prompt, &lines) {
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
            host.record(EventKind::Window {
                window: *window,
                event: WindowEvent::Open,
                issue_id: Some(*issue),
                outcome: None,
            });
        }
        for window in &replan.confirmed {
            host.record(EventKind::Window {
                window: *window,
                event: WindowEvent::Close,
                issue_id: None,
                outcome: Some(CloseOutcome::Confirmed),
            });
        }
        host.pause_all(replan.pause);
        for (to, d) in replan.directives {
            direct(to, d, replan.pause, replan.tokens, host);
        }
    }
}

/// The manager's order to `to`, arriving after the re-plan's pause. A muted bot is cut
/// off, and a failed one (a bot that left a real server) is gone: the order is recorded
/// and goes unanswered.
fn direct(to: AgentId, d: Directive, delay: u64, tokens: u32, host: &mut dyn Host) {
    host.record(EventKind::Manager { from: None, to: Some(to), tokens });
    if host.reachable(to) {
        host.deliver(to, Delivery::Directive(d), host.now() + delay.max(1));
    }
}

impl Channel for Central {
    fn clone_box(&self) -> Box<dyn Channel> {
        Box::new(self.clone())
    }

    /// Issues and inventory reports can be lost; a confirmation is not (it closes a
    /// window the manager tracks, as the board's do).
    fn hear(&mut self, from: AgentId, aside: Aside, host: &mut dyn Host) {
        let Aside::Ask(ask) = aside else { return };
        if !matches!(ask, ManagerAsk::Received { .. }) && host.lost(from, LineKind::Manager) {
            if let ManagerAsk::Issue { issue, .. } = ask {
                self.lost(from, issue, host);
            }
            return;
        }
        self.ask(from, ask, host);
    }

    /// The manager never re-plans for a lost issue, so the bot, hearing nothing for a
    /// board window, recovers locally, as a bot of the gated policies does when its
    /// request's window never opens.
    fn lost(&mut self, agent: AgentId, issue: IssueId, host: &mut dyn Host) {
        let due = host.now() + gatecrew_protocol::BoardConfig::default().window_ticks;
        host.deliver(agent, Delivery::Directive(Directive::RecoverLocally { issue }), due);
    }

    /// The inventory reports of a round reach the manager before anything else its
    /// agents said. The agents of a round act at the same tick; without this, an issue
    /// raised at an agent's first step would be re-planned before its teammates' first
    /// reports, only because their ids are higher. A muted agent's reports are left for
    /// the episode, which drops them with the rest.
    fn round(&mut self, outputs: &mut VecDeque<(AgentId, StepOutput)>, host: &mut dyn Host) {
        for (agent, out) in outputs.iter_mut() {
            if host.muted(*agent) {
                continue;
            }
            let (reports, rest): (Vec<Aside>, Vec<Aside>) = std::mem::take(&mut out.style)
                .into_iter()
                .partition(|a| matches!(a, Aside::Ask(ManagerAsk::Report(_))));
            out.style = rest;
            for r in reports {
                self.hear(*agent, r, host);
            }
        }
    }

    fn next_deadline(&self) -> Option<Tick> {
        self.manager.next_deadline()
    }

    /// Deliveries the manager ordered that did not arrive in time: closed, and their
    /// requesters told to recover.
    fn expire(&mut self, now: Tick, host: &mut dyn Host) {
        for (window, requester, issue) in self.manager.expire(now) {
            host.record(EventKind::Window {
                window,
                event: WindowEvent::Close,
                issue_id: None,
                outcome: Some(CloseOutcome::Timeout),
            });
            direct(requester, Directive::RecoverLocally { issue }, 1, manager::LINE_TOKENS, host);
        }
    }
}

#[cfg(test)]
mod tests;
