//! The wide `events` table: one row per trace event.

use std::path::Path;

use gatecrew_protocol::Recipient;
use gatecrew_protocol::trace::{Decision, Event, EventKind, GateAction, ResolvedBy, WindowEvent};

use super::sink::{Bool, Col, F64, Format, I32, Sink, Str, U8, U32, U64, table, write_err};
use super::{BATCH_ROWS, ExportError, Labels};

table!(
    Row,
    Columns {
        ep: Str,
        policy: Str,
        class: Str,
        seed: U64,
        split: Str,
        t: U64,
        kind: Str,
        agent: U32,
        action: Str,
        ok: Bool,
        reason: Str,
        item: Str,
        count: U32,
        x: I32,
        y: I32,
        z: I32,
        ticks: U64,
        issue_id: U64,
        issue: Str,
        node: U32,
        tier: U8,
        rule: Str,
        f_c: U8,
        f_a: U8,
        f_d: U8,
        f_r: U8,
        f_h: U8,
        score: F64,
        decision: Str,
        gate_action: Str,
        oracle_local_feasible: Bool,
        oracle_ticks: U64,
        requestable: Bool,
        reachable: Bool,
        other_work: Bool,
        confidence: F64,
        prompt_tokens: U32,
        completion_tokens: U32,
        latency_ms: U64,
        fallback: Str,
        msg: Str,
        window: U32,
        from_agent: U32,
        to_agent: U32,
        to_all: Bool,
        to_agents: Str,
        error: Str,
        tokens: U32,
        window_event: Str,
        outcome: Str,
        step: Str,
        resolved_by: Str,
        why: Str,
        block: Str,
        cause: Str,
        fault: Str,
        until: U64,
        detail: Str,
    }
);

/// The events table being written.
pub(crate) struct Table {
    cols: Columns,
    sink: Sink,
}

impl Table {
    pub fn new(format: Format, path: &Path) -> Result<Self, ExportError> {
        Ok(Table { cols: Columns::new(), sink: Sink::create(format, path, Columns::schema())? })
    }

    pub fn push(&mut self, labels: &Labels, ev: &Event) -> Result<(), ExportError> {
        self.cols.append(row(labels, ev));
        if self.cols.rows() >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExportError> {
        if self.cols.rows() == 0 {
            return Ok(());
        }
        let batch = self.cols.finish(self.sink.schema()).map_err(|e| write_err(self.sink.path(), e))?;
        self.sink.write(&batch)
    }

    pub fn close(mut self) -> Result<gatecrew_protocol::replace::Replacement, ExportError> {
        self.flush()?;
        self.sink.close()
    }
}

fn decision_name(d: Decision) -> &'static str {
    match d {
        Decision::StayLocal => "stay_local",
        Decision::Escalate => "escalate",
    }
}

fn gate_action_name(a: GateAction) -> &'static str {
    match a {
        GateAction::LocalRecover => "LOCAL_RECOVER",
        GateAction::LocalSkip => "LOCAL_SKIP",
        GateAction::RequestMaterial => "REQUEST_MATERIAL",
    }
}

fn set_to(r: &mut Row, to: &Recipient) {
    match to {
        Recipient::Agent(a) => {
            r.to_agent = Some(a.0);
            r.to_all = Some(false);
        }
        Recipient::All => r.to_all = Some(true),
        Recipient::Agents(ring) => {
            r.to_all = Some(false);
            r.to_agents = Some(ring.as_slice().iter().map(|a| a.0.to_string()).collect::<Vec<_>>().join(","));
        }
    }
}

fn set_pos(r: &mut Row, pos: Option<gatecrew_protocol::Pos>) {
    if let Some(p) = pos {
        (r.x, r.y, r.z) = (Some(p.x), Some(p.y), Some(p.z));
    }
}

fn row(l: &Labels, ev: &Event) -> Row {
    let mut r = Row {
        ep: Some(ev.ep.clone()),
        policy: l.policy.clone(),
        class: l.class.clone(),
        seed: l.seed,
        split: l.split.clone(),
        t: Some(ev.t),
        kind: Some(ev.kind.name().to_owned()),
        ..Row::default()
    };
    let s = |v: &str| Some(v.to_owned());
    match &ev.kind {
        EventKind::EpisodeStart { .. } | EventKind::Other => {}
        EventKind::Action { agent, action, ok, reason, item, count, pos, ticks } => {
            r.agent = Some(agent.0);
            r.action = s(action.as_str());
            r.ok = Some(*ok);
            r.reason = reason.clone();
            r.item = item.clone();
            r.count = *count;
            set_pos(&mut r, *pos);
            r.ticks = *ticks;
        }
        EventKind::Issue { agent, issue_id, issue, item, count, node, pos, reason } => {
            r.agent = Some(agent.0);
            r.issue_id = Some(issue_id.0);
            r.issue = s(issue.as_str());
            r.item = item.clone();
            r.count = *count;
            r.node = *node;
            set_pos(&mut r, *pos);
            r.reason = reason.clone();
        }
        EventKind::Gate {
            agent,
            issue_id,
            tier,
            rule,
            features,
            score,
            decision,
            action,
            oracle_local_feasible,
            context,
            oracle_ticks,
        } => {
            r.agent = Some(agent.0);
            r.issue_id = Some(issue_id.0);
            r.tier = Some(tier.number());
            r.rule = rule.clone();
            (r.f_c, r.f_a, r.f_d, r.f_r, r.f_h) =
                (Some(features.c), Some(features.a), Some(features.d), Some(features.r), Some(features.h));
            r.score = Some(*score);
            r.decision = s(decision_name(*decision));
            r.gate_action = action.map(|a| gate_action_name(a).to_owned());
            r.oracle_local_feasible = Some(*oracle_local_feasible);
            r.oracle_ticks = *oracle_ticks;
            if let Some(c) = context {
                (r.requestable, r.reachable, r.other_work) =
                    (Some(c.requestable), Some(c.reachable), Some(c.other_work));
            }
        }
        EventKind::Adjudication {
            agent,
            issue_id,
            decision,
            confidence,
            prompt_tokens,
            completion_tokens,
            latency_ms,
            fallback,
            ..
        } => {
            r.agent = Some(agent.0);
            r.issue_id = Some(issue_id.0);
            r.decision = s(decision_name(*decision));
            r.confidence = Some(*confidence);
            r.prompt_tokens = Some(*prompt_tokens);
            r.completion_tokens = Some(*completion_tokens);
            r.tokens = Some(prompt_tokens.saturating_add(*completion_tokens));
            r.latency_ms = Some(*latency_ms);
            r.fallback = fallback.map(|f| f.tag());
        }
        EventKind::Board { msg, window, from, to, item, count, reason } => {
            r.msg = Some(msg.as_str().to_owned());
            r.window = Some(window.0);
            r.from_agent = Some(from.0);
            set_to(&mut r, to);
            r.item = Some(item.clone());
            r.count = *count;
            r.reason = reason.clone();
        }
        EventKind::BoardReject { from, error, msg, window, to, item, count } => {
            r.from_agent = Some(from.0);
            r.error = Some(error.as_str().to_owned());
            r.msg = msg.map(|m| m.as_str().to_owned());
            r.window = window.map(|w| w.0);
            if let Some(to) = to {
                set_to(&mut r, to);
            }
            r.item = item.clone();
            r.count = *count;
        }
        EventKind::LlmCall { agent, call, prompt_tokens, completion_tokens, ticks, mistake } => {
            // An executor call: `action` names what the model was asked (act, read,
            // write, replan, consult), `ok` is false for a mistake.
            r.agent = agent.map(|a| a.0);
            r.action = s(call.as_str());
            r.ok = Some(!*mistake);
            r.prompt_tokens = Some(*prompt_tokens);
            r.completion_tokens = Some(*completion_tokens);
            r.tokens = Some(prompt_tokens.saturating_add(*completion_tokens));
            r.ticks = Some(*ticks);
        }
        EventKind::ModelCall { agent, point, issue_id, prompt_tokens, completion_tokens, ticks, fallback, .. } => {
            // A model-driven bot's call: `action` names its decision point, `ok` is
            // false when the scripted decision stood in.
            r.agent = agent.map(|a| a.0);
            r.issue_id = issue_id.map(|i| i.0);
            r.action = s(point);
            r.ok = Some(!*fallback);
            r.prompt_tokens = Some(*prompt_tokens);
            r.completion_tokens = Some(*completion_tokens);
            r.tokens = Some(prompt_tokens.saturating_add(*completion_tokens));
            r.ticks = Some(*ticks);
        }
        EventKind::Chat { from, to, tokens } => {
            r.from_agent = Some(from.0);
            set_to(&mut r, to);
            r.tokens = Some(*tokens);
        }
        EventKind::Manager { from, to, tokens } => {
            r.from_agent = from.map(|a| a.0);
            r.to_agent = to.map(|a| a.0);
            r.tokens = Some(*tokens);
        }
        EventKind::Window { window, event, issue_id, outcome } => {
            r.window = Some(window.0);
            r.window_event = s(match event {
                WindowEvent::Open => "open",
                WindowEvent::Close => "close",
            });
            r.issue_id = issue_id.map(|i| i.0);
            r.outcome = outcome.map(|o| o.as_str().to_owned());
        }
        EventKind::Recovery { agent, issue_id, step, ok } => {
            r.agent = Some(agent.0);
            r.issue_id = Some(issue_id.0);
            r.step = Some(step.clone());
            r.ok = Some(*ok);
        }
        EventKind::Resolved { agent, issue_id, by } => {
            r.agent = Some(agent.0);
            r.issue_id = Some(issue_id.0);
            r.resolved_by = s(match by {
                ResolvedBy::Local => "local",
                ResolvedBy::Board => "board",
            });
        }
        EventKind::Unfinished { agent, node, pos, block, why } => {
            r.agent = Some(agent.0);
            r.node = Some(*node);
            set_pos(&mut r, *pos);
            r.block = block.clone();
            r.why = Some(why.clone());
        }
        EventKind::Fallback { agent, issue_id, action, cause } => {
            r.agent = Some(agent.0);
            r.issue_id = Some(issue_id.0);
            r.gate_action = s(gate_action_name(*action));
            r.cause = Some(cause.as_str().to_owned());
        }
        EventKind::Restart { agent, cause } | EventKind::AgentFailed { agent, cause } => {
            r.agent = Some(agent.0);
            r.cause = Some(cause.clone());
        }
        EventKind::MessageFault { agent, fault, msg, until } => {
            r.agent = Some(agent.0);
            r.fault = s(fault.as_str());
            r.msg = Some(msg.as_str().to_owned());
            r.until = *until;
        }
        EventKind::EpisodeEnd { reason, .. } => r.reason = Some(reason.as_str().to_owned()),
        // The interactive session's notes keep their own shapes: the agent, and the
        // rest as JSON text (DuckDB's json functions and polars' str.json_decode read it).
        EventKind::Human(n) => hitl(&mut r, n.agent, n),
        EventKind::Intent(n) => hitl(&mut r, n.agent, n),
        EventKind::Plan(n) => hitl(&mut r, n.agent, n),
        EventKind::Say(n) => hitl(&mut r, n.agent, n),
        EventKind::Validator(n) => hitl(&mut r, n.agent, n),
        EventKind::Memory(n) => hitl(&mut r, n.agent, n),
    }
    r
}

fn hitl<T: serde::Serialize>(r: &mut Row, agent: gatecrew_protocol::AgentId, note: &T) {
    r.agent = Some(agent.0);
    r.detail = serde_json::to_string(note).ok();
}
