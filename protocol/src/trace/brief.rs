//! What the metrics read of an event, borrowed from the line it came from.
//!
//! [`crate::metrics::EpisodeMetrics`] reads a handful of fields of a few kinds. A
//! [`Brief`] carries exactly those, so that `gatecrew analyze` can fold a trace without
//! building an [`Event`] per line (its strings, its vectors, its moves):
//! [`super::TraceReader::next_brief`] scans a line the writer wrote straight into one
//! ([`super::scan`]), and reads any other line as an [`Event`] and takes its brief
//! ([`Brief::of`]), so the two ways give the same brief and the same errors.

use super::event::{CallKind, Decision, Event, EventKind, IssueName, ResolvedBy, Tier, WindowEvent};
use super::{EndReason, Policy, SuiteClass};
use crate::CloseOutcome;
use crate::ids::IssueId;

/// One event as the metrics see it: its episode, its tick and the fields of its kind
/// that they read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Brief<'a> {
    /// Episode id.
    pub ep: &'a str,
    /// Tick.
    pub t: u64,
    /// What happened, as far as the metrics care.
    pub kind: BriefKind,
}

/// The fields of each kind the metrics read; every kind they only count or skip has
/// none.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum BriefKind {
    /// `episode_start`.
    EpisodeStart {
        /// The policy.
        policy: Policy,
        /// Suite class, if any.
        class: Option<SuiteClass>,
        /// Crew size (the length of `agents`).
        agents: usize,
    },
    /// `action`.
    Action,
    /// `board`.
    Board,
    /// `board_reject`.
    BoardReject,
    /// `chat`.
    Chat {
        /// Modelled tokens.
        tokens: u32,
    },
    /// `manager`.
    Manager {
        /// Modelled tokens.
        tokens: u32,
    },
    /// `issue`.
    Issue {
        /// Its id.
        issue_id: IssueId,
        /// Its kind.
        issue: IssueName,
    },
    /// `gate`.
    Gate {
        /// The issue.
        issue_id: IssueId,
        /// The deciding tier.
        tier: Tier,
        /// The tier-1 rule that fired.
        rule: Option<RuleTag>,
        /// The recoverability feature R the bot computed from its own knowledge.
        r: u8,
        /// The verdict.
        decision: Decision,
        /// Whether the oracle knew a local recovery.
        oracle_local_feasible: bool,
        /// The rollout oracle's ticks.
        oracle_ticks: Option<u64>,
    },
    /// `adjudication`.
    Adjudication {
        /// Prompt tokens.
        prompt_tokens: u32,
        /// Completion tokens.
        completion_tokens: u32,
        /// Round trip in ms.
        latency_ms: u64,
        /// Whether the fallback decided.
        fallback: bool,
    },
    /// `window`.
    Window {
        /// Open or close.
        event: WindowEvent,
        /// How it closed.
        outcome: Option<CloseOutcome>,
    },
    /// `resolved`.
    Resolved {
        /// The issue.
        issue_id: IssueId,
        /// How.
        by: ResolvedBy,
    },
    /// `episode_end`.
    EpisodeEnd {
        /// Block-level completion.
        tsr: f64,
        /// Whether every block is correct.
        complete: bool,
        /// Why it ended.
        reason: EndReason,
    },
    /// `llm_call`.
    LlmCall {
        /// What the model was asked.
        call: CallKind,
        /// Prompt plus completion tokens.
        tokens: u64,
        /// Game ticks the call took.
        ticks: u64,
        /// It went wrong.
        mistake: bool,
    },
    /// `model_call` (a model-driven bot's decision, `--bots model`).
    ModelCall {
        /// 1, or 2 for the call that fed an unusable reply back.
        attempt: u8,
        /// Server-counted prompt tokens.
        prompt_tokens: u32,
        /// Server-counted completion tokens.
        completion_tokens: u32,
        /// The reply was unusable.
        invalid: bool,
        /// The scripted decision stood in after this call.
        fallback: bool,
    },
    /// Any other kind (the metrics read nothing of it).
    Else,
}

impl<'a> Brief<'a> {
    /// The brief of an event read whole.
    pub fn of(ev: &'a Event) -> Brief<'a> {
        let kind = match &ev.kind {
            EventKind::EpisodeStart { policy, agents, class, .. } => {
                BriefKind::EpisodeStart { policy: *policy, class: *class, agents: agents.len() }
            }
            EventKind::Action { .. } => BriefKind::Action,
            EventKind::Board { .. } => BriefKind::Board,
            EventKind::BoardReject { .. } => BriefKind::BoardReject,
            EventKind::Chat { tokens, .. } => BriefKind::Chat { tokens: *tokens },
            EventKind::Manager { tokens, .. } => BriefKind::Manager { tokens: *tokens },
            EventKind::Issue { issue_id, issue, .. } => BriefKind::Issue { issue_id: *issue_id, issue: *issue },
            EventKind::Gate {
                issue_id, tier, rule, features, decision, oracle_local_feasible, oracle_ticks, ..
            } => BriefKind::Gate {
                issue_id: *issue_id,
                tier: *tier,
                rule: rule.as_deref().map(RuleTag::of),
                r: features.r,
                decision: *decision,
                oracle_local_feasible: *oracle_local_feasible,
                oracle_ticks: *oracle_ticks,
            },
            EventKind::Adjudication { prompt_tokens, completion_tokens, latency_ms, fallback, .. } => {
                BriefKind::Adjudication {
                    prompt_tokens: *prompt_tokens,
                    completion_tokens: *completion_tokens,
                    latency_ms: *latency_ms,
                    fallback: fallback.is_some(),
                }
            }
            EventKind::Window { event, outcome, .. } => BriefKind::Window { event: *event, outcome: *outcome },
            EventKind::Resolved { issue_id, by, .. } => BriefKind::Resolved { issue_id: *issue_id, by: *by },
            EventKind::EpisodeEnd { tsr, complete, reason, .. } => {
                BriefKind::EpisodeEnd { tsr: *tsr, complete: *complete, reason: *reason }
            }
            EventKind::LlmCall { call, prompt_tokens, completion_tokens, ticks, mistake, .. } => BriefKind::LlmCall {
                call: *call,
                tokens: u64::from(*prompt_tokens) + u64::from(*completion_tokens),
                ticks: *ticks,
                mistake: *mistake,
            },
            EventKind::ModelCall { attempt, prompt_tokens, completion_tokens, error, fallback, .. } => {
                BriefKind::ModelCall {
                    attempt: *attempt,
                    prompt_tokens: *prompt_tokens,
                    completion_tokens: *completion_tokens,
                    invalid: error.is_some(),
                    fallback: *fallback,
                }
            }
            EventKind::Recovery { .. }
            | EventKind::Unfinished { .. }
            | EventKind::Restart { .. }
            | EventKind::Fallback { .. }
            | EventKind::AgentFailed { .. }
            | EventKind::MessageFault { .. }
            | EventKind::Human(_)
            | EventKind::Intent(_)
            | EventKind::Plan(_)
            | EventKind::Say(_)
            | EventKind::Validator(_)
            | EventKind::Memory(_)
            | EventKind::Other => BriefKind::Else,
        };
        Brief { ep: &ev.ep, t: ev.t, kind }
    }
}

/// The tier-1 rule a gate event names, as the metrics count it: the rules DESIGN section
/// 5.2 lists, by their trace ids, and any other id (a trace from another gate) as
/// [`RuleTag::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleTag {
    /// `no_message`.
    NoMessage,
    /// `cooldown`.
    Cooldown,
    /// `immediate`.
    Immediate,
    /// `alone`.
    Alone,
    /// `critical_exact`.
    CriticalExact,
    /// `cosmetic`.
    Cosmetic,
    /// `no_local_option`.
    NoLocalOption,
    /// Any other id.
    Other,
}

impl RuleTag {
    /// Every tag, in the rules' order.
    pub const ALL: [RuleTag; 8] = [
        RuleTag::NoMessage,
        RuleTag::Cooldown,
        RuleTag::Immediate,
        RuleTag::Alone,
        RuleTag::CriticalExact,
        RuleTag::Cosmetic,
        RuleTag::NoLocalOption,
        RuleTag::Other,
    ];

    /// The tag of a rule id.
    pub fn of(id: &str) -> RuleTag {
        RuleTag::ALL[..7].iter().copied().find(|t| t.as_str() == id).unwrap_or(RuleTag::Other)
    }

    /// The trace id (`other` for [`RuleTag::Other`]).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleTag::NoMessage => "no_message",
            RuleTag::Cooldown => "cooldown",
            RuleTag::Immediate => "immediate",
            RuleTag::Alone => "alone",
            RuleTag::CriticalExact => "critical_exact",
            RuleTag::Cosmetic => "cosmetic",
            RuleTag::NoLocalOption => "no_local_option",
            RuleTag::Other => "other",
        }
    }
}
