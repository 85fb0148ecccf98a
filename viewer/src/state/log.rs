//! The event log: every trace event in words, with the bots it concerns, so that the
//! page can filter it by bot and by kind. It keeps the latest [`LOG_MAX`] entries.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use gatecrew_protocol::Recipient;
use gatecrew_protocol::trace::{Decision, Event, EventKind, FeatureVec, GateAction, ResolvedBy, WindowEvent};
use serde::Serialize;

/// Entries kept. The default episode writes 120 events with 3 bots and 318 with 40
/// (`gatecrew run --trace`, `gatecrew run --agents 40 --trace`): a default episode fits
/// several times over, and a long one shows its latest 2,000 (the trace holds the rest).
pub const LOG_MAX: usize = 2_000;

/// One event in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// Tick.
    pub t: u64,
    /// The trace's kind (`action`, `gate`, `chat`, ...).
    pub kind: &'static str,
    /// The bots it names (actor, sender, addressees).
    pub bots: Vec<u32>,
    /// Addressed to every bot (a chat line or a request to all).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// What happened.
    pub text: String,
}

/// The latest events.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Log {
    /// Which log this is (unique in the process): a publisher sends a browser only the
    /// new entries of the log it sent before, and all of a new one.
    #[serde(skip)]
    pub epoch: u64,
    /// Events logged since the episode started (the first entry kept is number
    /// `total - entries.len()`).
    pub total: u64,
    /// Entries kept at most.
    pub max: usize,
    /// The latest entries, oldest first.
    pub entries: VecDeque<LogEntry>,
}

impl Log {
    pub(crate) fn new() -> Self {
        static EPOCHS: AtomicU64 = AtomicU64::new(1);
        Log { epoch: EPOCHS.fetch_add(1, Ordering::Relaxed), total: 0, max: LOG_MAX, entries: VecDeque::new() }
    }

    pub(crate) fn observe(&mut self, ev: &Event) {
        if self.entries.len() == self.max {
            self.entries.pop_front();
        }
        self.entries.push_back(entry(ev));
        self.total += 1;
    }

    /// The entries logged after the first `seen` of this log, if it still holds them all.
    pub fn since(&self, seen: u64) -> Option<impl Iterator<Item = &LogEntry>> {
        let new = usize::try_from(self.total.checked_sub(seen)?).ok()?;
        (new <= self.entries.len()).then(|| self.entries.iter().skip(self.entries.len() - new))
    }
}

/// The page's names for the five features (DESIGN section 5.1).
pub fn features(f: &FeatureVec) -> String {
    format!("C{} A{} D{} R{} H{}", f.c, f.a, f.d, f.r, f.h)
}

fn decision(d: Decision) -> &'static str {
    match d {
        Decision::Escalate => "escalate",
        Decision::StayLocal => "stay_local",
    }
}

fn gate_action(a: GateAction) -> &'static str {
    match a {
        GateAction::LocalRecover => "LOCAL_RECOVER",
        GateAction::LocalSkip => "LOCAL_SKIP",
        GateAction::RequestMaterial => "REQUEST_MATERIAL",
    }
}

fn ok(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// `item ×n`, or what there is of it.
fn what(item: Option<&str>, count: Option<u32>) -> String {
    match (item, count) {
        (Some(i), Some(n)) => format!(" {i} ×{n}"),
        (Some(i), None) => format!(" {i}"),
        _ => String::new(),
    }
}

/// The ids a recipient names, and whether it is everyone.
fn named(to: &Recipient) -> (Vec<u32>, bool) {
    match to {
        Recipient::Agent(a) => (vec![a.0], false),
        Recipient::All => (Vec::new(), true),
        Recipient::Agents(ring) => (ring.as_slice().iter().map(|a| a.0).collect(), false),
    }
}

fn entry(ev: &Event) -> LogEntry {
    let mut bots = Vec::new();
    let mut all = false;
    let text = match &ev.kind {
        EventKind::EpisodeStart { policy, seed, agents, blueprint_blocks, .. } => {
            format!("episode {} starts: {policy}, seed {seed}, {} bots, {blueprint_blocks} blocks", ev.ep, agents.len())
        }
        EventKind::Action { agent, action, ok: good, reason, item, count, pos, .. } => {
            bots.push(agent.0);
            let mut s = format!("{agent} {}{}", action.as_str(), what(item.as_deref(), *count));
            if let Some(p) = pos {
                let _ = write!(s, " at {p}");
            }
            let _ = write!(s, " {}", ok(*good));
            if let Some(r) = reason {
                let _ = write!(s, " {r}");
            }
            s
        }
        EventKind::Issue { agent, issue_id, issue, item, count, reason, .. } => {
            bots.push(agent.0);
            let why = reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
            format!("{agent} issue {issue_id}: {}{}{why}", issue.as_str(), what(item.as_deref(), *count))
        }
        EventKind::Gate { agent, issue_id, tier, rule, features: f, score, decision: d, action, .. } => {
            bots.push(agent.0);
            let by = match tier.number() {
                0 => "the policy".to_owned(),
                n => format!("tier {n}"),
            };
            let rule = rule.as_deref().map(|r| format!(", rule {r}")).unwrap_or_default();
            let act = action.map(|a| format!(" → {}", gate_action(a))).unwrap_or_default();
            format!(
                "{agent} gate on {issue_id}: {} by {by}{rule}, {}, score {score:.3}{act}",
                decision(*d),
                features(f)
            )
        }
        EventKind::Adjudication {
            agent, issue_id, decision: d, confidence, prompt_tokens, completion_tokens, ..
        } => {
            bots.push(agent.0);
            format!(
                "{agent} adjudicator on {issue_id}: {} (confidence {confidence:.2}, {} tokens)",
                decision(*d),
                u64::from(*prompt_tokens) + u64::from(*completion_tokens)
            )
        }
        EventKind::Board { msg, window, from, to, item, count, reason } => {
            bots.push(from.0);
            let (ids, every) = named(to);
            bots.extend(ids);
            all = every;
            let why = reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
            format!("{window} {msg} {from} → {to}{}{why}", what(Some(item), *count))
        }
        EventKind::BoardReject { from, error, msg, .. } => {
            bots.push(from.0);
            let m = msg.map(|m| format!(" {m}")).unwrap_or_default();
            format!("the board rejected{m} from {from}: {error}")
        }
        EventKind::Chat { from, to, tokens } => {
            bots.push(from.0);
            let (ids, every) = named(to);
            bots.extend(ids);
            all = every;
            format!("chat {from} → {to} ({tokens} tokens)")
        }
        EventKind::Manager { from, to, tokens } => {
            bots.extend(from.iter().chain(to).map(|a| a.0));
            let who = |a: &Option<gatecrew_protocol::AgentId>| a.map_or("manager".to_owned(), |a| a.to_string());
            format!("manager line {} → {} ({tokens} tokens)", who(from), who(to))
        }
        EventKind::Window { window, event, issue_id, outcome } => match event {
            WindowEvent::Open => {
                format!("{window} opens{}", issue_id.map(|i| format!(" for {i}")).unwrap_or_default())
            }
            WindowEvent::Close => format!("{window} closes: {}", outcome.map_or("closed", |o| o.as_str())),
        },
        EventKind::Recovery { agent, issue_id, step, ok: good } => {
            bots.push(agent.0);
            format!("{agent} recovers {issue_id}: {step} {}", ok(*good))
        }
        EventKind::Resolved { agent, issue_id, by } => {
            bots.push(agent.0);
            let by = match by {
                ResolvedBy::Local => "locally",
                ResolvedBy::Board => "through the board",
            };
            format!("{agent} {issue_id} resolved {by}")
        }
        EventKind::Unfinished { agent, node, pos, block, why } => {
            bots.push(agent.0);
            let at = pos.map(|p| format!(" at {p}")).unwrap_or_default();
            format!("{agent} left node {node} unfinished ({}{at}): {why}", block.as_deref().unwrap_or("?"))
        }
        EventKind::Fallback { agent, issue_id, action, cause } => {
            bots.push(agent.0);
            format!("{agent} falls back on {issue_id}: {} ({cause})", gate_action(*action))
        }
        EventKind::Restart { agent, cause } => {
            bots.push(agent.0);
            format!("{agent} restarted: {cause}")
        }
        EventKind::MessageFault { agent, fault, .. } => {
            bots.push(agent.0);
            format!("{agent} message fault: {}", fault.as_str())
        }
        EventKind::AgentFailed { agent, cause } => {
            bots.push(agent.0);
            format!("{agent} left the episode: {cause}")
        }
        EventKind::EpisodeEnd { tsr, correct_blocks, blueprint_blocks, reason, .. } => {
            format!("episode ends: {reason}, TSR {tsr:.3} ({correct_blocks}/{blueprint_blocks} blocks)")
        }
        EventKind::LlmCall { agent, call, prompt_tokens, completion_tokens, ticks, mistake } => {
            bots.extend(agent.map(|a| a.0));
            let m = if *mistake { ", a mistake" } else { "" };
            let tokens = u64::from(*prompt_tokens) + u64::from(*completion_tokens);
            format!("model call ({}): {tokens} tokens, {ticks} ticks{m}", call.as_str())
        }
        EventKind::ModelCall { agent, point, choice, .. } => {
            bots.extend(agent.map(|a| a.0));
            let who = agent.map_or_else(|| "manager".to_owned(), |a| a.to_string());
            format!("{who} model call at {point}{}", choice.as_deref().map(|c| format!(": {c}")).unwrap_or_default())
        }
        other => other.name().to_owned(),
    };
    bots.sort_unstable();
    bots.dedup();
    LogEntry { t: ev.t, kind: ev.kind.name(), bots, all, text }
}
