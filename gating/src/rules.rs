//! Tier 1: the rules (DESIGN section 5.2), in order; the first that fires decides and
//! its id is logged. Two rules are ours, each closing a gap in the specification:
//!
//! * `no_message` (first): the protocol has a message only for materials and tools, so a
//!   blocked dependency or an unreachable target cannot be escalated at all;
//! * `no_local_option` (last): staying local means `LOCAL_RECOVER` (needs R > 0) or
//!   `LOCAL_SKIP` (needs independent work left, DESIGN 5.5). When neither exists, a
//!   teammate may still help (A >= 1) and asking has not failed repeatedly (H <= 1),
//!   the only option left is to ask.

use gatecrew_protocol::trace::{Decision, GateAction};

use crate::features::Features;
use crate::level::Level;

/// The rules, by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleId {
    /// The issue kind has no protocol message.
    NoMessage,
    /// H = 3: a `CANNOT_SUPPLY` cooldown is active.
    Cooldown,
    /// R = 3: the fix lies in reach.
    Immediate,
    /// No teammate exists or none is known to be reachable.
    Alone,
    /// C = 3, R = 0 and A >= 2.
    CriticalExact,
    /// C = 0 and other independent work remains.
    Cosmetic,
    /// R = 0, no other work, A >= 1, H <= 1: no local option is left.
    NoLocalOption,
}

impl RuleId {
    /// The id logged in the trace.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::NoMessage => "no_message",
            RuleId::Cooldown => "cooldown",
            RuleId::Immediate => "immediate",
            RuleId::Alone => "alone",
            RuleId::CriticalExact => "critical_exact",
            RuleId::Cosmetic => "cosmetic",
            RuleId::NoLocalOption => "no_local_option",
        }
    }
}

/// What the rules need besides the features.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleContext {
    /// The issue can be carried by a `REQUEST_MATERIAL`.
    pub requestable: bool,
    /// A teammate exists and is known to be reachable.
    pub teammate_reachable: bool,
    /// Independent work remains besides the blocked node.
    pub other_work: bool,
}

/// A rule that fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleHit {
    /// The rule that fired first (the trace's `rule`).
    pub rule: RuleId,
    /// What the rule decides: escalate or stay local.
    pub decision: Decision,
    /// What the agent does.
    pub action: GateAction,
}

/// The local action when staying local: recover if some local way is known, otherwise
/// set the node aside.
pub fn local_action(f: Features) -> GateAction {
    if f.r > Level::L0 { GateAction::LocalRecover } else { GateAction::LocalSkip }
}

/// Runs the rules in order.
pub fn tier1(f: Features, ctx: RuleContext) -> Option<RuleHit> {
    let stay = |rule, action| Some(RuleHit { rule, decision: Decision::StayLocal, action });
    if !ctx.requestable {
        return stay(RuleId::NoMessage, local_action(f));
    }
    if f.h == Level::L3 {
        return stay(RuleId::Cooldown, local_action(f));
    }
    if f.r == Level::L3 {
        return stay(RuleId::Immediate, GateAction::LocalRecover);
    }
    if !ctx.teammate_reachable {
        return stay(RuleId::Alone, local_action(f));
    }
    if f.c == Level::L3 && f.r == Level::L0 && f.a >= Level::L2 {
        return Some(RuleHit {
            rule: RuleId::CriticalExact,
            decision: Decision::Escalate,
            action: GateAction::RequestMaterial,
        });
    }
    if f.c == Level::L0 && ctx.other_work {
        return stay(RuleId::Cosmetic, GateAction::LocalSkip);
    }
    if f.r == Level::L0 && !ctx.other_work && f.a >= Level::L1 && f.h <= Level::L1 {
        return Some(RuleHit {
            rule: RuleId::NoLocalOption,
            decision: Decision::Escalate,
            action: GateAction::RequestMaterial,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: RuleContext = RuleContext { requestable: true, teammate_reachable: true, other_work: true };

    fn f(c: u8, a: u8, d: u8, r: u8, h: u8) -> Features {
        Features::new(c, a, d, r, h).unwrap()
    }

    fn rule(feat: Features, ctx: RuleContext) -> Option<RuleId> {
        tier1(feat, ctx).map(|h| h.rule)
    }

    #[test]
    fn each_rule_fires_on_its_case() {
        assert_eq!(rule(f(3, 3, 3, 0, 0), RuleContext { requestable: false, ..OPEN }), Some(RuleId::NoMessage));
        let hit = tier1(f(3, 3, 3, 0, 3), OPEN).unwrap();
        assert_eq!(
            (hit.rule, hit.decision, hit.action),
            (RuleId::Cooldown, Decision::StayLocal, GateAction::LocalSkip)
        );
        let hit = tier1(f(3, 3, 3, 3, 0), OPEN).unwrap();
        assert_eq!((hit.rule, hit.action), (RuleId::Immediate, GateAction::LocalRecover));
        assert_eq!(rule(f(3, 0, 3, 0, 0), RuleContext { teammate_reachable: false, ..OPEN }), Some(RuleId::Alone));
        let hit = tier1(f(3, 2, 1, 0, 0), OPEN).unwrap();
        assert_eq!(
            (hit.rule, hit.decision, hit.action),
            (RuleId::CriticalExact, Decision::Escalate, GateAction::RequestMaterial)
        );
        let hit = tier1(f(0, 1, 0, 1, 0), OPEN).unwrap();
        assert_eq!((hit.rule, hit.action), (RuleId::Cosmetic, GateAction::LocalSkip));
        let idle = RuleContext { other_work: false, ..OPEN };
        let hit = tier1(f(1, 1, 2, 0, 1), idle).unwrap();
        assert_eq!((hit.rule, hit.decision), (RuleId::NoLocalOption, Decision::Escalate));
    }

    #[test]
    fn no_local_option_respects_history_and_refusals() {
        let idle = RuleContext { other_work: false, ..OPEN };
        assert_eq!(rule(f(1, 1, 2, 0, 2), idle), None, "asked repeatedly with zero yield");
        assert_eq!(rule(f(1, 0, 2, 0, 0), idle), None, "every teammate refused");
        assert_eq!(rule(f(1, 1, 2, 1, 0), idle), None, "a local way exists");
        assert_eq!(rule(f(1, 1, 2, 0, 0), OPEN), None, "other work remains: skip is an option");
    }

    #[test]
    fn order_and_boundaries() {
        // Cooldown beats immediate.
        assert_eq!(rule(f(0, 0, 0, 3, 3), OPEN), Some(RuleId::Cooldown));
        // critical_exact needs A >= 2 and R = 0 exactly.
        assert_eq!(rule(f(3, 1, 3, 0, 0), OPEN), None);
        assert_eq!(rule(f(3, 2, 3, 1, 0), OPEN), None);
        // cosmetic needs other work.
        assert_eq!(rule(f(0, 1, 0, 1, 0), RuleContext { other_work: false, ..OPEN }), None);
        // Nothing fires in the middle.
        assert_eq!(rule(f(2, 1, 2, 1, 0), OPEN), None);
    }
}
