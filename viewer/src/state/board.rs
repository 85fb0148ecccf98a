//! The board as threads: one per window, REQUEST -> OFFER -> CONFIRM or CANNOT_SUPPLY,
//! each with the gate decision that opened it.

use std::collections::HashMap;

use gatecrew_protocol::trace::{Decision, Event, EventKind, FeatureVec, WindowEvent};
use gatecrew_protocol::{CloseOutcome, MessageKind, Recipient};
use serde::Serialize;

/// The gate decision behind a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateView {
    /// 1 rules, 2 score, 3 adjudicator, 0 no gate (the policy decided).
    pub tier: u8,
    /// The tier-1 rule that fired.
    pub rule: Option<String>,
    /// The five features, each 0..=3.
    pub features: FeatureVec,
    /// The normalised score.
    pub score: f64,
    /// `escalate` or `stay_local`.
    pub decision: &'static str,
    /// Whether the oracle knew a local recovery (an unnecessary escalation if so).
    pub oracle_local_feasible: bool,
}

/// One message of a thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadMessage {
    /// Tick.
    pub t: u64,
    /// REQUEST_MATERIAL, OFFER_TRANSFER, CONFIRM_TRANSFER or CANNOT_SUPPLY.
    pub msg: MessageKind,
    /// Sender.
    pub from: u32,
    /// Addressee: an agent id, `"all"`, or a request's ring as a list of ids.
    pub to: Recipient,
    /// Item.
    pub item: String,
    /// Count.
    pub count: Option<u32>,
    /// Reason tag.
    pub reason: Option<String>,
}

/// One window's thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadView {
    /// The window.
    pub window: u32,
    /// Who asked.
    pub requester: Option<u32>,
    /// What for.
    pub item: Option<String>,
    /// The issue behind it.
    pub issue_id: Option<u64>,
    /// The gate decision that escalated the issue.
    pub gate: Option<GateView>,
    /// The messages, in order.
    pub messages: Vec<ThreadMessage>,
    /// `open`, or how it closed (`confirmed`, `cannot_supply`, `timeout`, ...).
    pub state: String,
    /// Opened at.
    pub opened: u64,
    /// Closed at.
    pub closed: Option<u64>,
}

/// What a closing window means for the bots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Items changed hands (the supplier's `give` already left its inventory).
    Confirmed { to: u32, from: u32, item: String, count: u32 },
    /// A teammate could not supply: the requester's cooldown starts.
    Refused { requester: u32, item: String },
}

/// A public line of a policy without board messages: a `flatcomm` chat line or a
/// `central_dag` manager line. The trace records who wrote to whom and the line's
/// modelled tokens, not its words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublicLine {
    /// Tick.
    pub t: u64,
    /// `chat` or `manager`.
    pub channel: &'static str,
    /// The writer; `None`: the manager.
    pub from: Option<u32>,
    /// The addressee: an agent id, `"all"`, a ring of ids; `None`: the manager.
    pub to: Option<Recipient>,
    /// Modelled tokens.
    pub tokens: u32,
}

/// The board.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Board {
    /// Threads by window, in opening order.
    pub threads: Vec<ThreadView>,
    /// Chat and manager lines, in order.
    pub lines: Vec<PublicLine>,
    #[serde(skip)]
    gates: HashMap<u64, GateView>,
    /// Who met each issue, and for what item: a window's requester and item when no
    /// REQUEST_MATERIAL names them (flatcomm and central_dag write none).
    #[serde(skip)]
    issues: HashMap<u64, (u32, Option<String>)>,
    #[serde(skip)]
    index: HashMap<u32, usize>,
}

impl Board {
    fn thread(&mut self, window: u32, t: u64) -> &mut ThreadView {
        let i = *self.index.entry(window).or_insert_with(|| {
            self.threads.push(ThreadView {
                window,
                requester: None,
                item: None,
                issue_id: None,
                gate: None,
                messages: Vec::new(),
                state: "open".into(),
                opened: t,
                closed: None,
            });
            self.threads.len() - 1
        });
        &mut self.threads[i]
    }

    /// Folds one event in; returns what a closing window settles.
    pub(crate) fn observe(&mut self, ev: &Event) -> Option<Settled> {
        match &ev.kind {
            EventKind::Issue { agent, issue_id, item, .. } => {
                self.issues.insert(issue_id.0, (agent.0, item.clone()));
                None
            }
            EventKind::Chat { from, to, tokens } => {
                self.lines.push(PublicLine {
                    t: ev.t,
                    channel: "chat",
                    from: Some(from.0),
                    to: Some(*to),
                    tokens: *tokens,
                });
                None
            }
            EventKind::Manager { from, to, tokens } => {
                let to = to.map(Recipient::Agent);
                self.lines.push(PublicLine {
                    t: ev.t,
                    channel: "manager",
                    from: from.map(|a| a.0),
                    to,
                    tokens: *tokens,
                });
                None
            }
            EventKind::Gate { issue_id, tier, rule, features, score, decision, oracle_local_feasible, .. } => {
                let gate = GateView {
                    tier: tier.number(),
                    rule: rule.clone(),
                    features: *features,
                    score: *score,
                    decision: match decision {
                        Decision::Escalate => "escalate",
                        Decision::StayLocal => "stay_local",
                    },
                    oracle_local_feasible: *oracle_local_feasible,
                };
                self.gates.insert(issue_id.0, gate);
                None
            }
            EventKind::Window { window, event: WindowEvent::Open, issue_id, .. } => {
                let gate = issue_id.and_then(|i| self.gates.get(&i.0).cloned());
                let met = issue_id.and_then(|i| self.issues.get(&i.0).cloned());
                let th = self.thread(window.0, ev.t);
                th.issue_id = issue_id.map(|i| i.0);
                th.gate = gate;
                if let Some((agent, item)) = met {
                    th.requester.get_or_insert(agent);
                    if th.item.is_none() {
                        th.item = item;
                    }
                }
                None
            }
            EventKind::Board { msg, window, from, to, item, count, reason } => {
                let th = self.thread(window.0, ev.t);
                if *msg == MessageKind::RequestMaterial {
                    th.requester = Some(from.0);
                    th.item = Some(item.clone());
                }
                th.messages.push(ThreadMessage {
                    t: ev.t,
                    msg: *msg,
                    from: from.0,
                    to: *to,
                    item: item.clone(),
                    count: *count,
                    reason: reason.clone(),
                });
                None
            }
            EventKind::Window { window, event: WindowEvent::Close, outcome, .. } => {
                let th = self.thread(window.0, ev.t);
                th.state = outcome.map_or("closed", CloseOutcome::as_str).to_owned();
                th.closed = Some(ev.t);
                let requester = th.requester?;
                let item = th.item.clone()?;
                match outcome {
                    Some(CloseOutcome::Confirmed) => {
                        // The supplier is the one whose offer was confirmed; the count, the
                        // confirmed one (or the offer's).
                        let confirm = th.messages.iter().rev().find(|m| m.msg == MessageKind::ConfirmTransfer);
                        let offer = th.messages.iter().rev().find(|m| m.msg == MessageKind::OfferTransfer);
                        let giver = |c: &ThreadMessage| match c.to {
                            Recipient::Agent(a) => Some(a.0),
                            _ => None,
                        };
                        let from = confirm.and_then(giver).or(offer.map(|o| o.from))?;
                        let count = confirm.and_then(|c| c.count).or(offer.and_then(|o| o.count))?;
                        Some(Settled::Confirmed { to: requester, from, item, count })
                    }
                    Some(CloseOutcome::CannotSupply) => Some(Settled::Refused { requester, item }),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
