//! Coordination metrics computed from trace events alone (DESIGN section 8).
//!
//! [`EpisodeMetrics`] folds one episode's events; [`GroupMetrics`] pools episodes the
//! way the design says: TSR, CS and Msg are means over episodes, the rates pool their
//! counts before dividing, and every figure travels with its episode count.

mod accounting;

use serde::Serialize;

pub use accounting::{Accounting, GateRow, ModelUse};

use crate::trace::{Brief, BriefKind, CallKind, Decision, Event, ResolvedBy, WindowEvent};

/// The budgets, in ticks, UER is reported at (DESIGN section 8): 15 s to 2 min of game
/// time. The rollout oracle runs to the largest.
pub const UER_BUDGETS: [u64; 4] = [300, 600, 1_200, 2_400];

/// Counts for one episode.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EpisodeMetrics {
    /// Episode id.
    pub episode: String,
    /// Policy.
    pub policy: String,
    /// Suite class, if any.
    pub class: Option<String>,
    /// Crew size.
    pub agents: u32,
    /// Block-level completion at the end.
    pub tsr: f64,
    /// Whether the blueprint was fully built.
    pub complete: bool,
    /// Environment-interacting actions (CS).
    pub cs: u64,
    /// Public messages: board, chat and manager lines (Msg).
    pub msg: u64,
    /// Modelled tokens of chat and manager messages (the baselines' LLM traffic).
    pub msg_tokens: u64,
    /// Board messages the board rejected.
    pub rejected: u64,
    /// Issues detected (one per blocker; waits on a teammate's block are counted apart,
    /// in `waits`).
    pub issues: u64,
    /// `dependency_blocked` issues: waits on a teammate's block. They clear when the
    /// teammate builds, whatever the policy decided, so DESIGN section 8 keeps them out
    /// of LRR and RSR and reports them in a row of their own.
    pub waits: u64,
    /// Waits that cleared before the episode ended.
    pub waits_cleared: u64,
    /// Gate events.
    pub gated: u64,
    /// Gate events that escalated.
    pub escalated: u64,
    /// Escalations where the oracle knew a local recovery.
    pub escalated_unnecessary: u64,
    /// Escalations whose rollout oracle got the items alone within each of
    /// [`UER_BUDGETS`] (DESIGN section 8's sweep).
    pub escalated_unnecessary_within: [u64; 4],
    /// Escalations whose rollout got the items before the issue was resolved after the
    /// escalation (settled when it is; see [`EpisodeMetrics::escalated_faster`]).
    pub escalated_faster_settled: u64,
    /// Escalated issues with a finished rollout not resolved yet: the tick of the
    /// escalation and the rollout's ticks.
    #[serde(skip)]
    pub rollouts_open: std::collections::BTreeMap<crate::ids::IssueId, Vec<(u64, u64)>>,
    /// Issues resolved by the local solver alone.
    pub resolved_local: u64,
    /// Issues resolved through a confirmed transfer.
    pub resolved_board: u64,
    /// Windows opened.
    pub windows_opened: u64,
    /// Windows closed by a confirmed transfer.
    pub windows_confirmed: u64,
    /// Tier-3 adjudications.
    pub adjudications: u64,
    /// Adjudication tokens (prompt + completion).
    pub tokens: u64,
    /// Adjudications decided by the fallback.
    pub fallbacks: u64,
    /// Adjudication latencies in ms.
    pub latencies_ms: Vec<u64>,
    /// Gate decisions settled by tier 3 (the gray zone).
    pub gray: u64,
    /// Calls to the bots' language model under the `llm` executor.
    pub exec_calls: u64,
    /// Their tokens (prompt + completion).
    pub exec_tokens: u64,
    /// Their game ticks.
    pub exec_ticks: u64,
    /// Calls that went wrong.
    pub exec_mistakes: u64,
    /// Ticks from detection to resolution, summed over issues resolved locally.
    pub local_recovery_ticks: u64,
    /// When each open issue was detected.
    #[serde(skip)]
    pub detected: std::collections::BTreeMap<crate::ids::IssueId, u64>,
    /// Open waits (`dependency_blocked` issues).
    #[serde(skip)]
    pub open_waits: std::collections::BTreeSet<crate::ids::IssueId>,
    /// Last tick seen.
    pub ticks: u64,
    /// Why the episode ended, once it has.
    pub end_reason: Option<crate::trace::EndReason>,
    /// The common-base accounting (DESIGN section 8 as amended): item issues, retries,
    /// UER by what the bot knew, decisions by tier and rule.
    pub acct: Accounting,
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

impl EpisodeMetrics {
    /// Folds one event in.
    pub fn observe(&mut self, ev: &Event) {
        self.observe_brief(&Brief::of(ev));
    }

    /// Folds one event in from what the metrics read of it (the same as
    /// [`EpisodeMetrics::observe`] on the event; `gatecrew analyze` reads briefs).
    pub fn observe_brief(&mut self, ev: &Brief<'_>) {
        self.ticks = self.ticks.max(ev.t);
        match ev.kind {
            BriefKind::EpisodeStart { policy, agents, class } => {
                self.episode = ev.ep.to_owned();
                self.policy = policy.as_str().to_owned();
                self.class = class.map(|c| c.as_str().to_owned());
                self.agents = agents as u32;
            }
            BriefKind::Action => self.cs += 1,
            BriefKind::Board => self.msg += 1,
            BriefKind::Chat { tokens } | BriefKind::Manager { tokens } => {
                self.msg += 1;
                self.msg_tokens += u64::from(tokens);
            }
            BriefKind::BoardReject => self.rejected += 1,
            BriefKind::Issue { issue_id, issue: crate::trace::IssueName::DependencyBlocked } => {
                self.waits += 1;
                self.open_waits.insert(issue_id);
            }
            BriefKind::Issue { issue_id, issue } => {
                self.issues += 1;
                self.detected.insert(issue_id, ev.t);
                self.acct.issue(issue_id, issue);
            }
            BriefKind::Gate { decision, oracle_local_feasible, oracle_ticks, issue_id, tier, rule, r } => {
                self.gated += 1;
                self.acct.gate(crate::metrics::GateRow::of(tier, rule, decision), oracle_local_feasible, r);
                if tier == crate::trace::Tier::Adjudicator {
                    self.gray += 1;
                }
                if decision == Decision::Escalate {
                    self.escalated += 1;
                    if oracle_local_feasible {
                        self.escalated_unnecessary += 1;
                    }
                    if let Some(r) = oracle_ticks {
                        for (n, b) in self.escalated_unnecessary_within.iter_mut().zip(UER_BUDGETS) {
                            *n += u64::from(r <= b);
                        }
                        // An issue met again is escalated again under its id (one issue
                        // per blocker): each escalation is judged from its own tick.
                        self.rollouts_open.entry(issue_id).or_default().push((ev.t, r));
                    }
                }
            }
            BriefKind::LlmCall { call, tokens, ticks, mistake } => {
                self.exec_calls += 1;
                self.acct.consults += u64::from(call == CallKind::Consult);
                self.exec_tokens += tokens;
                self.exec_ticks += ticks;
                self.exec_mistakes += u64::from(mistake);
            }
            BriefKind::ModelCall { attempt, prompt_tokens, completion_tokens, invalid, fallback } => {
                self.acct.model.call(attempt, prompt_tokens, completion_tokens, invalid, fallback);
            }
            BriefKind::Adjudication { prompt_tokens, completion_tokens, latency_ms, fallback } => {
                self.adjudications += 1;
                self.tokens += u64::from(prompt_tokens) + u64::from(completion_tokens);
                self.latencies_ms.push(latency_ms);
                if fallback {
                    self.fallbacks += 1;
                }
            }
            BriefKind::Window { event, outcome } => match event {
                WindowEvent::Open => self.windows_opened += 1,
                WindowEvent::Close => {
                    if outcome == Some(crate::CloseOutcome::Confirmed) {
                        self.windows_confirmed += 1;
                    }
                }
            },
            BriefKind::Resolved { issue_id, .. } if self.open_waits.remove(&issue_id) => self.waits_cleared += 1,
            BriefKind::Resolved { by, issue_id } => {
                self.settle_rollout(issue_id, ev.t);
                self.acct.resolved(issue_id, by);
                let since = self.detected.remove(&issue_id).map_or(0, |t| ev.t.saturating_sub(t));
                match by {
                    ResolvedBy::Local => {
                        self.resolved_local += 1;
                        // Saturating: a trace's ticks are not checked, and an issue
                        // resolved at `t = u64::MAX` overflowed the sums (found while
                        // reviewing what the `trace_line` fuzz target checks).
                        self.local_recovery_ticks = self.local_recovery_ticks.saturating_add(since);
                    }
                    ResolvedBy::Board => self.resolved_board += 1,
                }
            }
            BriefKind::EpisodeEnd { tsr, complete, reason } => {
                self.tsr = tsr;
                self.complete = complete;
                self.end_reason = Some(reason);
            }
            BriefKind::Else => {}
        }
    }

    /// Issues resolved either way.
    pub fn resolved(&self) -> u64 {
        self.resolved_local + self.resolved_board
    }

    /// Gate decisions that stayed local.
    pub fn stayed_local(&self) -> u64 {
        self.gated - self.escalated
    }

    /// LRR: material and tool issues resolved locally / those resolved (retries of
    /// failed actions, which no policy can escalate, are counted apart: DESIGN section 8).
    pub fn lrr(&self) -> Option<f64> {
        ratio(self.acct.item_resolved_local, self.acct.item_resolved())
    }

    /// UER: unnecessary escalations / escalations.
    pub fn uer(&self) -> Option<f64> {
        ratio(self.escalated_unnecessary, self.escalated)
    }

    /// UER at each of [`UER_BUDGETS`]: escalations the rollout oracle would have
    /// resolved alone within the budget / escalations.
    pub fn uer_within(&self) -> [Option<f64>; 4] {
        self.escalated_unnecessary_within.map(|n| ratio(n, self.escalated))
    }

    /// Escalations whose rollout got the items before the issue was actually resolved
    /// (resolution tick minus escalation tick, whichever way it was resolved, the
    /// board's fallback included); one never resolved counts when its rollout finished.
    pub fn escalated_faster(&self) -> u64 {
        self.escalated_faster_settled + self.rollouts_open.values().map(|v| v.len() as u64).sum::<u64>()
    }

    /// `UER_faster`: [`EpisodeMetrics::escalated_faster`] / escalations.
    pub fn uer_faster(&self) -> Option<f64> {
        ratio(self.escalated_faster(), self.escalated)
    }

    /// An issue with a finished rollout is resolved at `t`: was the rollout faster?
    fn settle_rollout(&mut self, issue: crate::ids::IssueId, t: u64) {
        for (gate, r) in self.rollouts_open.remove(&issue).unwrap_or_default() {
            self.escalated_faster_settled += u64::from(r < t.saturating_sub(gate));
        }
    }

    /// ECR: confirmed windows / opened windows.
    pub fn ecr(&self) -> Option<f64> {
        ratio(self.windows_confirmed, self.windows_opened)
    }

    /// RSR: material and tool issues resolved / detected.
    pub fn rsr(&self) -> Option<f64> {
        ratio(self.acct.item_resolved(), self.acct.item_issues)
    }

    /// Transfer yield: confirmed transfers (windows closed by a confirmation) /
    /// escalations, the base every channel shares (ECR's windows differ between them).
    pub fn transfer_yield(&self) -> Option<f64> {
        ratio(self.windows_confirmed, self.escalated)
    }
}

/// Metrics pooled over a group of episodes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GroupMetrics {
    /// Episodes in the group.
    pub episodes: u64,
    /// Mean TSR.
    pub tsr: f64,
    /// Share of episodes fully completed.
    pub complete_share: f64,
    /// Mean CS.
    pub cs: f64,
    /// Mean Msg.
    pub msg: f64,
    /// Pooled LRR.
    pub lrr: Option<f64>,
    /// Pooled UER.
    pub uer: Option<f64>,
    /// Pooled UER at each of [`UER_BUDGETS`] (the rollout oracle).
    pub uer_within: [Option<f64>; 4],
    /// Pooled `UER_faster`.
    pub uer_faster: Option<f64>,
    /// Pooled ECR.
    pub ecr: Option<f64>,
    /// Pooled RSR.
    pub rsr: Option<f64>,
    /// Pooled transfer yield.
    pub transfer_yield: Option<f64>,
    /// Adjudications per gated issue.
    pub llm_call_rate: Option<f64>,
    /// Tokens per adjudication.
    pub tokens_per_call: Option<f64>,
    /// Pooled counts behind the rates.
    pub totals: EpisodeMetrics,
}

impl GroupMetrics {
    /// Pools the given episodes.
    pub fn pool<'a>(episodes: impl IntoIterator<Item = &'a EpisodeMetrics>) -> Self {
        let mut g = GroupMetrics::default();
        let t = &mut g.totals;
        let (mut tsr, mut cs, mut msg, mut complete) = (0.0, 0u64, 0u64, 0u64);
        for e in episodes {
            g.episodes += 1;
            tsr += e.tsr;
            cs += e.cs;
            msg += e.msg;
            complete += u64::from(e.complete);
            t.issues += e.issues;
            t.waits += e.waits;
            t.waits_cleared += e.waits_cleared;
            t.gated += e.gated;
            t.escalated += e.escalated;
            t.escalated_unnecessary += e.escalated_unnecessary;
            for (t, e) in t.escalated_unnecessary_within.iter_mut().zip(e.escalated_unnecessary_within) {
                *t += e;
            }
            t.escalated_faster_settled += e.escalated_faster();
            t.resolved_local += e.resolved_local;
            t.resolved_board += e.resolved_board;
            t.windows_opened += e.windows_opened;
            t.windows_confirmed += e.windows_confirmed;
            t.adjudications += e.adjudications;
            t.tokens += e.tokens;
            t.fallbacks += e.fallbacks;
            t.rejected += e.rejected;
            t.cs += e.cs;
            t.msg += e.msg;
            t.msg_tokens += e.msg_tokens;
            t.gray += e.gray;
            t.local_recovery_ticks = t.local_recovery_ticks.saturating_add(e.local_recovery_ticks);
            t.latencies_ms.extend_from_slice(&e.latencies_ms);
            t.acct.add(&e.acct);
        }
        if g.episodes > 0 {
            let n = g.episodes as f64;
            g.tsr = tsr / n;
            g.cs = cs as f64 / n;
            g.msg = msg as f64 / n;
            g.complete_share = complete as f64 / n;
        }
        let t = &g.totals;
        g.lrr = t.lrr();
        g.uer = t.uer();
        g.uer_within = t.uer_within();
        g.uer_faster = t.uer_faster();
        g.ecr = t.ecr();
        g.rsr = t.rsr();
        g.transfer_yield = t.transfer_yield();
        g.llm_call_rate = ratio(t.adjudications, t.gated);
        g.tokens_per_call = ratio(t.tokens, t.adjudications);
        g
    }
}
