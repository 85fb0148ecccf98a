//! Turning verified outcomes, agent notes and board results into trace events.

use gatecrew_gating::Issue;
use gatecrew_protocol::trace::{Decision, EventKind, WindowEvent};
use gatecrew_protocol::{AgentId, BoardError, BoardMessage, RefusalReason, RequestReason, WindowClosed, WindowId};
use gatecrew_world::{Action, Outcome};

use super::Episode;
use crate::agent::{Note, OracleQuery};

/// The rollout runs to the largest budget UER is reported at.
const MAX_BUDGET: u64 = super::oracle::BUDGETS[super::oracle::BUDGETS.len() - 1];

impl Episode {
    pub(super) fn record_action(&mut self, agent: AgentId, o: &Outcome) {
        self.crew.completed += 1;
        self.site.repairs.note(&self.site.blueprint, o);
        metrics::counter!("gatecrew_actions_total", "action" => o.action.name().as_str(), "ok" => if o.ok() { "true" } else { "false" })
            .increment(1);
        let name = |i| Some(self.site.data.item_name(i).to_owned());
        let (item, count) = match o.action {
            Action::Place { item, .. } => (name(item), Some(1)),
            Action::Craft { recipe, times } => {
                let r = self.site.data.recipe(recipe);
                (name(r.result), Some(r.count * times))
            }
            Action::Smelt { input, count, .. } => (name(input), Some(count)),
            Action::Give { item, count, .. }
            | Action::Drop { item, count }
            | Action::Deposit { item, count, .. }
            | Action::Withdraw { item, count, .. } => (name(item), Some(count)),
            Action::MoveTo { .. } | Action::Mine { .. } | Action::PickUp { .. } => (None, None),
        };
        self.push(EventKind::Action {
            agent,
            action: o.action.name(),
            ok: o.ok(),
            reason: o.result.as_ref().err().map(|f| f.tag().to_owned()),
            item,
            count,
            pos: o.action.pos(),
            ticks: Some(o.ticks),
        });
    }

    pub(super) fn record_note(&mut self, agent: AgentId, note: Note) {
        let kind = match note {
            Note::Issue { id, issue, node } => {
                let (item, count, pos, reason) = match issue {
                    Issue::MissingMaterial { item, count } => (Some(item), Some(count), None, None),
                    Issue::MissingTool { tool } => (Some(tool), Some(1), None, None),
                    Issue::DependencyBlocked { pos, .. } | Issue::Unreachable { pos } => (None, None, Some(pos), None),
                    Issue::ActionFailed { reason, .. } => (None, None, None, Some(reason.to_owned())),
                };
                EventKind::Issue {
                    agent,
                    issue_id: id,
                    issue: issue.name(),
                    item: item.map(|i| self.site.data.item_name(i).to_owned()),
                    count,
                    node: node.map(|n| n.index() as u32),
                    pos,
                    reason,
                }
            }
            Note::Gate(g) => {
                // The oracle sees the whole world; the agent never sees its answer.
                let oracle_local_feasible = match g.oracle {
                    OracleQuery::Items(item, want) => {
                        self.site.world.oracle(agent, item, want, self.trace.oracle_ticks).is_some()
                    }
                    OracleQuery::Retry => true,
                    OracleQuery::NeedsTeammate => false,
                };
                // An escalation of a missing item is also rolled out (DESIGN section 8's
                // UER sweep): how long would the local solver, knowing everything, have
                // taken alone? On a clone: the world and the agents are not touched.
                let oracle_ticks = match (g.oracle, g.decision.decision) {
                    (OracleQuery::Items(item, want), Decision::Escalate) => {
                        super::oracle::rollout(&self.site.world, &self.site.blueprint, agent, item, want, MAX_BUDGET)
                    }
                    _ => None,
                };
                EventKind::Gate {
                    agent,
                    issue_id: g.issue_id,
                    tier: g.decision.tier,
                    rule: g.decision.rule.map(|r| r.as_str().to_owned()),
                    features: g.features.to_vec(),
                    score: (g.decision.score * 1e6).round() / 1e6,
                    decision: g.decision.decision,
                    action: Some(g.decision.action),
                    oracle_local_feasible,
                    oracle_ticks,
                    context: Some(gatecrew_protocol::trace::GateContext {
                        requestable: g.ctx.requestable,
                        reachable: g.ctx.teammate_reachable,
                        other_work: g.ctx.other_work,
                    }),
                }
            }
            Note::Recovery { id, step, ok } => EventKind::Recovery { agent, issue_id: id, step, ok },
            Note::Resolved { id, by } => EventKind::Resolved { agent, issue_id: id, by },
            Note::Fallback { id, action, cause } => EventKind::Fallback { agent, issue_id: id, action, cause },
            Note::ModelCall(c) => {
                // The call's game time: the action it chose (or the wait) ends that much later.
                if let Some(s) = self.crew.slots.get_mut(agent.index()) {
                    s.reading += c.ticks;
                }
                c.event(Some(agent))
            }
            Note::Unfinished { node, pos, why } => {
                let block = pos
                    .and_then(|p| self.site.blueprint.cell_at(p))
                    .map(|c| self.site.data.block_name(c.block).to_owned());
                EventKind::Unfinished { agent, node: node.index() as u32, pos, block, why }
            }
        };
        self.push(kind);
    }

    pub(super) fn record_board(&mut self, msg: &BoardMessage, window: WindowId) {
        let reason = match msg {
            BoardMessage::RequestMaterial { reason, .. } => Some(match reason {
                RequestReason::MissingMaterial => "missing_material",
                RequestReason::MissingTool => "missing_tool",
            }),
            BoardMessage::CannotSupply { reason, .. } => Some(match reason {
                RefusalReason::NoSurplus => "no_surplus",
                RefusalReason::Busy => "busy",
                RefusalReason::Unreachable => "unreachable",
            }),
            _ => None,
        };
        self.push(EventKind::Board {
            msg: msg.kind(),
            window,
            from: msg.from(),
            to: msg.to(),
            item: self.site.data.items().display(msg.item()).to_string(),
            count: msg.count().map(|c| c.get()),
            reason: reason.map(str::to_owned),
        });
    }

    pub(super) fn record_close(&mut self, c: &WindowClosed) {
        self.push(EventKind::Window {
            window: c.window,
            event: WindowEvent::Close,
            issue_id: None,
            outcome: Some(c.outcome),
        });
    }

    pub(super) fn record_reject(&mut self, agent: AgentId, msg: &BoardMessage, e: &BoardError) {
        self.push(EventKind::BoardReject {
            from: agent,
            error: e.kind(),
            msg: Some(msg.kind()),
            window: msg.window(),
            to: Some(msg.to()),
            item: Some(self.site.data.items().display(msg.item()).to_string()),
            count: msg.count().map(|c| c.get()),
        });
    }
}
