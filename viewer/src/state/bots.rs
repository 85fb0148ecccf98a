//! Bot cards.

use std::collections::BTreeMap;

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{ActionName, Event, EventKind, IssueName};
use serde::Serialize;

use crate::scene::SceneBot;

/// A verified action outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Tick.
    pub t: u64,
    /// Which action.
    pub action: &'static str,
    /// Success.
    pub ok: bool,
    /// Failure reason.
    pub reason: Option<String>,
    /// The item involved.
    pub item: Option<String>,
    /// How many.
    pub count: Option<u32>,
    /// The target.
    pub pos: Option<Pos>,
}

/// What keeps a bot from its task: an open issue and what the gate made of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Blocker {
    /// Since when.
    pub since: u64,
    /// The issue id.
    pub issue_id: u64,
    /// Issue kind.
    pub issue: &'static str,
    /// The item (material or tool).
    pub item: Option<String>,
    /// How many are missing.
    pub count: Option<u32>,
    /// The failure reason, for `action_failed`.
    pub reason: Option<String>,
    /// The gate's verdict, once given: `stay_local` or `escalate`.
    pub decision: Option<&'static str>,
    /// The deciding tier: 1 rules, 2 score, 3 adjudicator, 0 no gate.
    pub tier: Option<u8>,
    /// The tier-1 rule that fired.
    pub rule: Option<String>,
}

/// A refusal's cooldown: the gate will not ask for this item again before `until`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cooldown {
    /// The refused item.
    pub item: String,
    /// First tick it may ask again.
    pub until: u64,
}

/// A confirmed hand-over, for the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handover {
    /// When it was confirmed.
    pub t: u64,
    /// The supplier.
    pub from: u32,
    /// The requester.
    pub to: u32,
    /// Item.
    pub item: String,
    /// How many.
    pub count: u32,
    /// The supplier's last known position.
    pub from_pos: Option<Pos>,
    /// The requester's last known position.
    pub to_pos: Option<Pos>,
}

/// One bot's card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BotView {
    /// Agent id.
    pub id: u32,
    /// Its name (`bot0`).
    pub name: String,
    /// Last known feet position (the start, then each verified `move_to` target).
    pub pos: Option<Pos>,
    /// What it is doing, in words: out, waiting on the board, recovering, or its last action.
    pub doing: String,
    /// Inventory: the world's (exact), or the start plus the movements the trace
    /// records (never below zero); the view's `inventory_from` says which.
    pub inventory: BTreeMap<String, u32>,
    /// Whether the starting inventory was known (from the setup).
    pub inventory_known: bool,
    /// The open issue, if any.
    pub blocker: Option<Blocker>,
    /// A refusal's cooldown, while it runs.
    pub cooldown: Option<Cooldown>,
    /// The last verified outcome.
    pub last: Option<Outcome>,
    /// Actions completed, and how many failed.
    pub actions: u64,
    /// Failed actions.
    pub failures: u64,
    /// LLM and chat tokens this bot spent (adjudications, chat and manager lines).
    pub tokens: u64,
    /// Supervisor restarts.
    pub restarts: u32,
    /// Why the bot left the episode, if it did.
    pub failed: Option<String>,
}

impl BotView {
    pub(crate) fn start(id: u32, b: &SceneBot) -> Self {
        BotView { pos: Some(b.pos), inventory: b.inventory.clone(), inventory_known: true, ..BotView::unknown(id) }
    }

    pub(crate) fn unknown(id: u32) -> Self {
        BotView {
            id,
            name: format!("bot{id}"),
            pos: None,
            doing: String::new(),
            inventory: BTreeMap::new(),
            inventory_known: false,
            blocker: None,
            cooldown: None,
            last: None,
            actions: 0,
            failures: 0,
            tokens: 0,
            restarts: 0,
            failed: None,
        }
    }

    pub(crate) fn give(&mut self, item: &str, n: u32) {
        if let Some(c) = self.inventory.get_mut(item) {
            *c = c.saturating_sub(n);
            if *c == 0 {
                self.inventory.remove(item);
            }
        }
    }

    pub(crate) fn receive(&mut self, item: &str, n: u32) {
        *self.inventory.entry(item.to_owned()).or_default() += n;
    }

    /// An action outcome; `counted`: the inventory follows the trace's item movements.
    pub(crate) fn action(&mut self, ev: &Event, counted: bool) {
        let EventKind::Action { action, ok, reason, item, count, pos, .. } = &ev.kind else { return };
        self.actions += 1;
        if !ok {
            self.failures += 1;
        }
        self.last = Some(Outcome {
            t: ev.t,
            action: action.as_str(),
            ok: *ok,
            reason: reason.clone(),
            item: item.clone(),
            count: *count,
            pos: *pos,
        });
        if !ok {
            return;
        }
        if *action == ActionName::MoveTo {
            self.pos = pos.or(self.pos);
        }
        if !counted {
            return;
        }
        let (item, n) = (item.as_deref().unwrap_or(""), count.unwrap_or(0));
        match action {
            ActionName::MoveTo => {}
            ActionName::Place | ActionName::Give | ActionName::Drop | ActionName::Deposit => self.give(item, n),
            ActionName::Craft | ActionName::Withdraw => self.receive(item, n),
            ActionName::Smelt => self.give(item, n),
            ActionName::Mine | ActionName::PickUp => {}
        }
    }

    /// An issue, gate, adjudication, resolution, fallback, restart or failure.
    pub(crate) fn note(&mut self, ev: &Event) {
        match &ev.kind {
            EventKind::Issue { issue_id, issue, item, count, reason, .. } => {
                self.blocker = Some(Blocker {
                    since: ev.t,
                    issue_id: issue_id.0,
                    issue: issue_name(*issue),
                    item: item.clone(),
                    count: *count,
                    reason: reason.clone(),
                    decision: None,
                    tier: None,
                    rule: None,
                });
            }
            EventKind::Gate { issue_id, tier, rule, decision, .. } => {
                if let Some(b) = self.blocker.as_mut().filter(|b| b.issue_id == issue_id.0) {
                    b.tier = Some(tier.number());
                    b.rule = rule.clone();
                    b.decision = Some(match decision {
                        gatecrew_protocol::trace::Decision::StayLocal => "stay_local",
                        gatecrew_protocol::trace::Decision::Escalate => "escalate",
                    });
                }
            }
            EventKind::Adjudication { prompt_tokens, completion_tokens, .. } => {
                self.tokens += u64::from(*prompt_tokens) + u64::from(*completion_tokens);
            }
            EventKind::Resolved { issue_id, .. } if self.blocker.as_ref().is_some_and(|b| b.issue_id == issue_id.0) => {
                self.blocker = None;
            }
            EventKind::Restart { .. } => self.restarts += 1,
            EventKind::AgentFailed { cause, .. } => self.failed = Some(cause.clone()),
            _ => {}
        }
    }
}

impl BotView {
    /// Refreshes `doing` from the rest of the card.
    pub(crate) fn refresh(&mut self, ended: bool) {
        self.doing = if let Some(cause) = &self.failed {
            format!("out of the episode: {cause}")
        } else if ended {
            "done".to_owned()
        } else if let Some(b) = &self.blocker {
            let what = b.item.as_deref().map(|i| format!(" {i}")).unwrap_or_default();
            match b.decision {
                Some("escalate") => format!("waiting on the board for{what}"),
                Some(_) => format!("recovering locally ({}{what})", b.issue),
                None => format!("blocked: {}{what}", b.issue),
            }
        } else if let Some(l) = &self.last {
            l.action.to_owned()
        } else {
            "starting".to_owned()
        };
    }
}

fn issue_name(i: IssueName) -> &'static str {
    i.as_str()
}
