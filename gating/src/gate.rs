//! The three-tier gate and the policies that use parts of it (DESIGN sections 5-6).

use gatecrew_protocol::trace::{Decision, GateAction, Tier};
use serde::{Deserialize, Serialize};

use crate::adjudicator::Deterministic;
use crate::config::GateParams;
use crate::features::Features;
use crate::rules::{RuleContext, RuleId, local_action, tier1};
use crate::score::normalised;

/// Which decision procedure an agent uses for its issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GatePolicy {
    /// All three tiers; the gray zone goes to the configured adjudicator.
    Gated,
    /// Tiers 1 and 2 with no gray zone: one threshold at the midpoint of
    /// `theta_low` and `theta_high` (DESIGN section 6; the paper's Table 9 variant
    /// without an adjudicator).
    RuleScore,
    /// Tier 1; everything its rules leave is escalated (the paper's "Rules only" row:
    /// the rules filter the basic cases of a communication-first agent, DESIGN
    /// section 6).
    RuleOnly,
    /// No gate: every issue the protocol can carry is escalated.
    NoGate,
}

impl GatePolicy {
    /// The policy name.
    pub fn as_str(self) -> &'static str {
        match self {
            GatePolicy::Gated => "gated",
            GatePolicy::RuleScore => "rule_score",
            GatePolicy::RuleOnly => "rule_only",
            GatePolicy::NoGate => "no_gate",
        }
    }
}

/// What the gate is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateQuery {
    /// The five features the score weighs.
    pub features: Features,
    /// Rule context.
    pub ctx: RuleContext,
}

/// A settled decision, as the trace logs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateDecision {
    /// The deciding tier.
    pub tier: Tier,
    /// The rule that fired, for tier 1.
    pub rule: Option<RuleId>,
    /// The normalised score (computed for every issue, logged always).
    pub score: f64,
    /// Escalate or stay local.
    pub decision: Decision,
    /// What the agent does.
    pub action: GateAction,
}

/// Where the gate got to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stage {
    /// Decided by tier 1 or 2, or by the policy.
    Decided(GateDecision),
    /// In the gray zone: an adjudicator must settle it with [`Gate::settle`].
    Gray {
        /// The normalised score.
        score: f64,
    },
}

/// The gate: checked parameters and a policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    params: GateParams,
    policy: GatePolicy,
}

impl Gate {
    /// A gate with these weights and thresholds, deciding by `policy`'s procedure.
    pub fn new(params: GateParams, policy: GatePolicy) -> Self {
        Gate { params, policy }
    }

    /// Its weights, thresholds and cooldowns (the trace's config hash covers them).
    pub fn params(&self) -> &GateParams {
        &self.params
    }

    /// The policy.
    pub fn policy(&self) -> GatePolicy {
        self.policy
    }

    /// Tiers 1 and 2 (and the policy's shortcuts). Only [`GatePolicy::Gated`] returns
    /// [`Stage::Gray`]; `rule_score` has no gray zone: its one threshold is the
    /// midpoint, and tier 2 decides every issue tier 1 leaves (no R = 0 clause: that is
    /// the deterministic adjudicator's, and `rule_score` has none).
    pub fn assess(&self, q: GateQuery) -> Stage {
        let f = q.features;
        let score = normalised(self.params.weights(), f);
        let decided =
            |tier, rule, decision, action| Stage::Decided(GateDecision { tier, rule, score, decision, action });
        if self.policy == GatePolicy::NoGate {
            return if q.ctx.requestable {
                decided(Tier::Policy, None, Decision::Escalate, GateAction::RequestMaterial)
            } else {
                decided(Tier::Policy, None, Decision::StayLocal, local_action(f))
            };
        }
        if let Some(hit) = tier1(f, q.ctx) {
            return decided(Tier::Rules, Some(hit.rule), hit.decision, hit.action);
        }
        // Past tier 1 an issue is always one the protocol can carry (`no_message` keeps
        // the rest local), so `rule_only` asks for it.
        if self.policy == GatePolicy::RuleOnly {
            return decided(Tier::Policy, None, Decision::Escalate, GateAction::RequestMaterial);
        }
        let spec = self.params.spec();
        if self.policy == GatePolicy::RuleScore {
            return if score >= self.params.midpoint() {
                decided(Tier::Score, None, Decision::Escalate, GateAction::RequestMaterial)
            } else {
                decided(Tier::Score, None, Decision::StayLocal, local_action(f))
            };
        }
        if score < spec.theta_low {
            return decided(Tier::Score, None, Decision::StayLocal, local_action(f));
        }
        if score >= spec.theta_high {
            return decided(Tier::Score, None, Decision::Escalate, GateAction::RequestMaterial);
        }
        Stage::Gray { score }
    }

    /// Settles a gray-zone case with an adjudicator's verdict (tier 3).
    pub fn settle(&self, q: GateQuery, score: f64, decision: Decision) -> GateDecision {
        let action = match decision {
            Decision::Escalate => GateAction::RequestMaterial,
            Decision::StayLocal => local_action(q.features),
        };
        GateDecision { tier: Tier::Adjudicator, rule: None, score, decision, action }
    }

    /// The deterministic adjudicator for these parameters.
    pub fn deterministic(&self) -> Deterministic {
        Deterministic { midpoint: self.params.midpoint() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GateSpec;

    const CTX: RuleContext = RuleContext { requestable: true, teammate_reachable: true, other_work: true };

    fn q(c: u8, a: u8, d: u8, r: u8, h: u8) -> GateQuery {
        GateQuery { features: Features::new(c, a, d, r, h).unwrap(), ctx: CTX }
    }

    fn gate(policy: GatePolicy) -> Gate {
        Gate::new(GateParams::new(GateSpec::default()).unwrap(), policy)
    }

    #[test]
    fn tier2_low_high_and_gray() {
        let g = gate(GatePolicy::Gated);
        // C2 A1 D0 R2 H0 -> 0.4167 < 0.60: stay local, recover.
        match g.assess(q(2, 1, 0, 2, 0)) {
            Stage::Decided(d) => {
                assert_eq!((d.tier, d.decision, d.action), (Tier::Score, Decision::StayLocal, GateAction::LocalRecover))
            }
            s => panic!("{s:?}"),
        }
        // C3 A3 D3 R1 H0 -> (1.05+0.6+0.6-0.2+0.75)/3 = 0.9333 >= 0.90: escalate.
        match g.assess(q(3, 3, 3, 1, 0)) {
            Stage::Decided(d) => {
                assert_eq!((d.tier, d.decision), (Tier::Score, Decision::Escalate))
            }
            s => panic!("{s:?}"),
        }
        // C3 A1 D3 R0 H0 -> 0.8667: gray.
        assert!(matches!(g.assess(q(3, 1, 3, 0, 0)), Stage::Gray { score } if (score - 2.6 / 3.0).abs() < 1e-12));
    }

    #[test]
    fn no_local_action_is_settled_by_the_no_local_option_rule() {
        let g = gate(GatePolicy::Gated);
        let idle = |c, a, d, r, h| GateQuery { ctx: RuleContext { other_work: false, ..CTX }, ..q(c, a, d, r, h) };
        // C1 A1 D2 R0 H0 -> 0.5667 < 0.60, but nothing else to do and no local way: ask.
        let Stage::Decided(d) = g.assess(idle(1, 1, 2, 0, 0)) else { panic!() };
        assert_eq!((d.tier, d.rule, d.decision), (Tier::Rules, Some(RuleId::NoLocalOption), Decision::Escalate));
        // The same with other work left: stay local and skip.
        let Stage::Decided(d) = g.assess(q(1, 1, 2, 0, 0)) else { panic!() };
        assert_eq!((d.tier, d.action), (Tier::Score, GateAction::LocalSkip));
        // Everyone refused already (A = 0): no more asking.
        let Stage::Decided(d) = g.assess(idle(1, 0, 2, 0, 0)) else { panic!() };
        assert_eq!((d.tier, d.decision), (Tier::Score, Decision::StayLocal));
    }

    #[test]
    fn rule_score_has_one_threshold_at_the_midpoint() {
        let g = gate(GatePolicy::RuleScore);
        // C3 A1 D3 R0 H0 -> 0.8667 >= the midpoint 0.75: escalate, by the score.
        let Stage::Decided(d) = g.assess(q(3, 1, 3, 0, 0)) else { panic!() };
        assert_eq!((d.tier, d.decision), (Tier::Score, Decision::Escalate));
        // C2 A0 D3 R0 H0 -> 0.6833: R = 0, but below the midpoint and no R = 0 clause
        // (the gated policy's deterministic adjudicator would escalate it): stay local.
        let Stage::Decided(d) = g.assess(q(2, 0, 3, 0, 0)) else { panic!() };
        assert_eq!((d.tier, d.decision), (Tier::Score, Decision::StayLocal));
        // C2 A1 D3 R1 H0 -> (0.7+0.2+0.6-0.2+0.75)/3 = 0.6833: stay local and recover.
        let Stage::Decided(d) = g.assess(q(2, 1, 3, 1, 0)) else { panic!() };
        assert_eq!((d.tier, d.decision, d.action), (Tier::Score, Decision::StayLocal, GateAction::LocalRecover));
    }

    #[test]
    fn rule_only_and_no_gate() {
        // No rule fires on C3 A1 D3 R0 H0 with other work left: rule_only escalates it.
        let Stage::Decided(d) = gate(GatePolicy::RuleOnly).assess(q(3, 1, 3, 0, 0)) else { panic!() };
        assert_eq!((d.tier, d.decision, d.action), (Tier::Policy, Decision::Escalate, GateAction::RequestMaterial));
        // C2 A1 D0 R2 H0 scores 0.4167, well below theta_low: gated keeps it local, rule_only
        // (no rule fires) asks.
        let Stage::Decided(d) = gate(GatePolicy::Gated).assess(q(2, 1, 0, 2, 0)) else { panic!() };
        assert_eq!(d.decision, Decision::StayLocal);
        let Stage::Decided(d) = gate(GatePolicy::RuleOnly).assess(q(2, 1, 0, 2, 0)) else { panic!() };
        assert_eq!((d.tier, d.decision), (Tier::Policy, Decision::Escalate));
        // What the rules decide stays decided: R = 3 is recovered in reach.
        let Stage::Decided(d) = gate(GatePolicy::RuleOnly).assess(q(3, 1, 3, 3, 0)) else { panic!() };
        assert_eq!((d.tier, d.rule, d.decision), (Tier::Rules, Some(RuleId::Immediate), Decision::StayLocal));
        let Stage::Decided(d) = gate(GatePolicy::NoGate).assess(q(0, 0, 0, 3, 3)) else { panic!() };
        assert_eq!((d.tier, d.decision), (Tier::Policy, Decision::Escalate));
        let unrequestable = GateQuery { ctx: RuleContext { requestable: false, ..CTX }, ..q(3, 3, 3, 0, 0) };
        let Stage::Decided(d) = gate(GatePolicy::NoGate).assess(unrequestable) else { panic!() };
        assert_eq!(d.decision, Decision::StayLocal);
    }
}
