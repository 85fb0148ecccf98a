//! Tier-3 consults in the episode core (DESIGN 5.4, "determinism with a live model").
//!
//! An agent's gray-zone [`Consult`] is recorded when its step output is applied, with
//! the tick its verdict will enter: the consult tick plus `verdict_delay_ticks`. The
//! circuit breaker is asked then, in agent-id order; when it refuses, the fallback
//! decides at once and no call is made. Between the two ticks the driver resolves the
//! consult however it likes — at once, through a blocking call, concurrently on tokio
//! tasks, from a recorded trace — and hands the result back with
//! [`Episode::adjudicated`]. At the entry tick the `adjudication` event is written, the
//! breaker counts the verdict, and the agent wakes with it. Nothing of the wall clock
//! but the recorded latency reaches the trace, so the episode is a function of its
//! verdicts: replaying them reproduces it byte for byte.

use std::collections::BTreeMap;

use gatecrew_gating::llm::{Admission, Breaker, EpisodeTerms, FallbackReason, LlmSpec, Transition};
use gatecrew_gating::{Adjudication, Adjudicator, DecisionCard, Deterministic};
use gatecrew_protocol::trace::Decision;
use gatecrew_protocol::trace::EventKind;
use gatecrew_protocol::{AgentId, IssueId, Tick};

use super::Episode;
use crate::agent::Consult;
use crate::setup::Setup;

pub use gatecrew_engine::{ByAdjudicator, ConsultRequest, ResolveError, Resolver};

#[derive(Debug, Clone)]
struct Pending {
    agent: AgentId,
    card: DecisionCard,
    score: f64,
    admission: Admission,
    dispatched: bool,
    result: Option<Adjudication>,
}

/// The episode's tier-3 state: terms, breaker, consults in flight by entry tick.
#[derive(Debug, Clone)]
pub(super) struct Tier3 {
    terms: EpisodeTerms,
    det: Deterministic,
    breaker: Breaker,
    pending: BTreeMap<(Tick, IssueId), Pending>,
    /// The gated bots' own model judges the gray zone (the `llm` executor without an
    /// external adjudicator): no driver is asked, no breaker counts, and the verdict
    /// is recorded by the `llm_call` and `gate` events, not an `adjudication` event.
    in_process: bool,
}

impl Tier3 {
    /// The tier-3 state of an episode that consults an external adjudicator.
    pub(super) fn for_setup(setup: &Setup) -> Option<Self> {
        let in_process = !setup.consults();
        if in_process && !setup.parks_gray() {
            return None;
        }
        let terms = match &setup.llm {
            Some(spec) if !in_process => spec.episode_terms(),
            _ => LlmSpec::default().episode_terms(),
        };
        Some(Tier3 {
            terms,
            det: Deterministic { midpoint: setup.gate.midpoint() },
            breaker: Breaker::new(terms.breaker),
            pending: BTreeMap::new(),
            in_process,
        })
    }

    /// The earliest entry tick in flight.
    pub(super) fn next_due(&self) -> Option<Tick> {
        self.pending.keys().next().map(|(t, _)| *t)
    }
}

fn request(&(due, issue_id): &(Tick, IssueId), p: &Pending) -> ConsultRequest {
    ConsultRequest { agent: p.agent, issue_id, card: p.card.clone(), score: p.score, due }
}

fn log_transition(t: Option<Transition>, now: Tick) {
    let Some(t) = t else {
        return;
    };
    let name = match t {
        Transition::Opened => "open",
        Transition::HalfOpened => "half_open",
        Transition::Closed => "closed",
    };
    metrics::counter!("gatecrew_adjudicator_breaker_transitions_total", "to" => name).increment(1);
    tracing::info!(tick = now.0, state = name, "adjudicator circuit breaker");
}

impl Episode {
    /// Records an agent's consult (called from [`Episode::apply`]).
    pub(super) fn consult(&mut self, agent: AgentId, c: Consult) {
        let now = self.clock.tick;
        let Some(t3) = &mut self.coord.tier3 else {
            tracing::warn!(%agent, issue = %c.issue_id, "a consult without an adjudicator; it is dropped");
            return;
        };
        if t3.in_process {
            self.consult_own_model(agent, c);
            return;
        }
        let (admission, moved) = t3.breaker.admit(now);
        log_transition(moved, now);
        let result = (admission == Admission::Refused).then(|| {
            let v = t3.terms.fallback.verdict(t3.det, c.card.f.r, c.score);
            Adjudication::fallback(v, FallbackReason::BreakerOpen, String::new(), 0)
        });
        let delay = t3.terms.verdict_delay_ticks;
        let delay = self.exec_consult(agent, &c.card).unwrap_or(delay);
        let Some(t3) = &mut self.coord.tier3 else { return };
        let due = now + delay;
        let p = Pending { agent, card: c.card, score: c.score, admission, dispatched: result.is_some(), result };
        t3.pending.insert((due, c.issue_id), p);
    }

    /// A gated bot's own model judges its gray-zone issue (`llm` executor): the verdict
    /// is the deterministic adjudicator's, or the other decision when the call went
    /// wrong, and it enters when the call is done; the bot works on meanwhile.
    fn consult_own_model(&mut self, agent: AgentId, c: Consult) {
        let (ticks, mistake) = match self.exec.is_some() {
            true => {
                let call = self.consult_call(agent, &c.card);
                self.record_call(Some(agent), gatecrew_protocol::trace::CallKind::Consult, &call);
                (call.ticks, call.mistake)
            }
            // A real server's episode drops the model on attach: the verdict is at once.
            false => (0, false),
        };
        let Some(t3) = &mut self.coord.tier3 else { return };
        let mut adj = t3.det.adjudicate(&c.card, c.score);
        if mistake {
            adj.verdict.decision = match adj.verdict.decision {
                Decision::Escalate => Decision::StayLocal,
                Decision::StayLocal => Decision::Escalate,
            };
        }
        let p = Pending {
            agent,
            card: c.card,
            score: c.score,
            admission: Admission::Call,
            dispatched: true,
            result: Some(adj),
        };
        t3.pending.insert((self.clock.tick + ticks, c.issue_id), p);
    }

    /// Consults that need a call and were not handed out yet, in order; each is handed
    /// out once. A driver that can work concurrently starts them now.
    pub fn take_new_consults(&mut self) -> Vec<ConsultRequest> {
        let Some(t3) = &mut self.coord.tier3 else {
            return Vec::new();
        };
        t3.pending
            .iter_mut()
            .filter(|(_, p)| !p.dispatched)
            .map(|(k, p)| {
                p.dispatched = true;
                request(k, p)
            })
            .collect()
    }

    /// Consults whose verdicts enter at the next [`Episode::advance`] and that have no
    /// result yet: the driver must resolve them first. Empty when the episode is about
    /// to end (their verdicts would never enter).
    pub(super) fn consults_due(&self, board_deadline: Option<Tick>) -> Vec<ConsultRequest> {
        let Some(t3) = &self.coord.tier3 else {
            return Vec::new();
        };
        if self.clock.ended.is_some() || !self.clock.started || self.work_over() {
            return Vec::new();
        }
        let Some(next) = self.next_event(board_deadline).filter(|t| t.0 <= self.clock.tick_limit) else {
            return Vec::new();
        };
        t3.pending
            .iter()
            .take_while(|((due, _), _)| *due <= next)
            .filter(|(_, p)| p.result.is_none())
            .map(|(k, p)| request(k, p))
            .collect()
    }

    /// The result of a consult.
    pub(super) fn adjudicated(&mut self, issue_id: IssueId, adj: Adjudication) {
        if let Some(p) =
            self.coord.tier3.as_mut().and_then(|t3| t3.pending.iter_mut().find(|((_, i), _)| *i == issue_id))
        {
            p.1.result = Some(adj);
        }
    }

    /// Enters every verdict due now, in (tick, issue) order: trace, breaker, agent.
    pub(super) fn enter_verdicts(&mut self) {
        let now = self.clock.tick;
        let Some(t3) = &mut self.coord.tier3 else {
            return;
        };
        let mut entered = Vec::new();
        while let Some(entry) = t3.pending.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let ((_, issue_id), p) = entry.remove_entry();
            let adj = p.result.unwrap_or_else(|| {
                // A driver that did not resolve in time: the crew never waits on it.
                tracing::warn!(issue = %issue_id, "no adjudication by its entry tick; falling back");
                let v = t3.terms.fallback.verdict(t3.det, p.card.f.r, p.score);
                Adjudication::fallback(v, FallbackReason::Timeout, String::new(), 0)
            });
            if !t3.in_process {
                let failed = adj.fallback.is_some_and(FallbackReason::is_failure);
                log_transition(t3.breaker.record(now, p.admission, failed), now);
            }
            entered.push((p.agent, issue_id, p.card, adj));
        }
        let in_process = t3.in_process;
        for (agent, issue_id, card, adj) in entered {
            if let Some(s) = self.crew.slots.get_mut(agent.index()) {
                s.verdicts.push((issue_id, adj.verdict));
                s.wake = true;
            }
            if in_process {
                continue;
            }
            self.push(EventKind::Adjudication {
                agent,
                issue_id,
                card: card.to_value(),
                reply: adj.reply,
                decision: adj.verdict.decision,
                confidence: adj.verdict.confidence,
                prompt_tokens: adj.prompt_tokens,
                completion_tokens: adj.completion_tokens,
                latency_ms: adj.latency_ms,
                fallback: adj.fallback,
            });
        }
    }
}
