//! The accounting DESIGN section 8 (as amended) puts every policy on a common base:
//! LRR and RSR over the issues a message could carry, retries counted apart, the
//! unnecessary escalations split by what the bot could see, and every gate decision by
//! the tier and rule that made it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::ids::IssueId;
use crate::trace::{Decision, IssueName, ResolvedBy, RuleTag, Tier};

/// What an issue is, for the accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A missing material or tool: the issues a `REQUEST_MATERIAL` can carry.
    Item,
    /// A failed action or an unreachable target: no message carries it, so no policy
    /// can escalate it; the bot tries again.
    Retry,
}

/// One row of the gate-decision table: which tier decided (its [`Tier::number`]),
/// which rule fired (tier 1), and whether it escalated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GateRow {
    /// [`Tier::number`]: 0 the policy, 1 rules, 2 score, 3 adjudicator.
    pub tier: u8,
    /// The rule, for tier 1.
    pub rule: Option<RuleTag>,
    /// Whether the decision escalated.
    pub escalate: bool,
}

impl GateRow {
    /// The row of a decision.
    pub fn of(tier: Tier, rule: Option<RuleTag>, decision: Decision) -> GateRow {
        GateRow { tier: tier.number(), rule, escalate: decision == Decision::Escalate }
    }

    /// The row's label: `tier 1 cooldown -> stay_local`, `policy -> escalate`.
    pub fn label(&self) -> String {
        let tier = match self.tier {
            0 => "policy".to_owned(),
            n => format!("tier {n}"),
        };
        let rule = self.rule.map(|r| format!(" {}", r.as_str())).unwrap_or_default();
        let verdict = if self.escalate { "escalate" } else { "stay_local" };
        format!("{tier}{rule} -> {verdict}")
    }
}

/// The counts of the amended accounting for one episode (or, added up, a group).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Accounting {
    /// Missing-material and missing-tool issues detected: LRR's and RSR's base.
    pub item_issues: u64,
    /// Of those, resolved by the local solver alone.
    pub item_resolved_local: u64,
    /// Of those, resolved through a confirmed transfer.
    pub item_resolved_board: u64,
    /// Failed actions and unreachable targets (`action_failed`, `unreachable`): retried
    /// by every policy, reported in a row of their own.
    pub retries: u64,
    /// Of those, resolved.
    pub retries_resolved: u64,
    /// Unnecessary escalations (the oracle knew a local recovery) where the bot's own
    /// knowledge held a local route too (R >= 1 when it decided): the gate's error. The
    /// rest of the unnecessary ones had their source out of the bot's knowledge: the
    /// partition's cost.
    pub escalated_unnecessary_known: u64,
    /// Tier-3 consults the `llm` executor modelled (`llm_call` events of kind
    /// `consult`): a gray zone settled by a modelled model, not by the deterministic
    /// adjudicator.
    pub consults: u64,
    /// The calls of model-driven bots (`model_call` events).
    pub model: ModelUse,
    /// Gate decisions by tier, rule and verdict.
    #[serde(skip)]
    pub decisions: BTreeMap<GateRow, u64>,
    /// The class of each issue detected and not yet resolved.
    #[serde(skip)]
    open: BTreeMap<IssueId, Class>,
}

impl Accounting {
    /// An issue was detected (waits on a teammate's block are not counted here).
    pub fn issue(&mut self, id: IssueId, name: IssueName) {
        let class = match name {
            IssueName::MissingMaterial | IssueName::MissingTool => Class::Item,
            IssueName::ActionFailed | IssueName::Unreachable => Class::Retry,
            IssueName::DependencyBlocked => return,
        };
        match class {
            Class::Item => self.item_issues += 1,
            Class::Retry => self.retries += 1,
        }
        self.open.insert(id, class);
    }

    /// An issue was resolved.
    pub fn resolved(&mut self, id: IssueId, by: ResolvedBy) {
        match (self.open.remove(&id), by) {
            (Some(Class::Item), ResolvedBy::Local) => self.item_resolved_local += 1,
            (Some(Class::Item), ResolvedBy::Board) => self.item_resolved_board += 1,
            (Some(Class::Retry), _) => self.retries_resolved += 1,
            (None, _) => {}
        }
    }

    /// A gate decision; `unnecessary`: an escalation the oracle found a local recovery
    /// for, `r` the bot's own recoverability feature.
    pub fn gate(&mut self, row: GateRow, unnecessary: bool, r: u8) {
        *self.decisions.entry(row).or_default() += 1;
        if row.escalate && unnecessary && r >= 1 {
            self.escalated_unnecessary_known += 1;
        }
    }

    /// Item issues resolved either way.
    pub fn item_resolved(&self) -> u64 {
        self.item_resolved_local + self.item_resolved_board
    }

    /// Adds another episode's counts (a group's pool).
    pub fn add(&mut self, o: &Accounting) {
        self.item_issues += o.item_issues;
        self.item_resolved_local += o.item_resolved_local;
        self.item_resolved_board += o.item_resolved_board;
        self.retries += o.retries;
        self.retries_resolved += o.retries_resolved;
        self.escalated_unnecessary_known += o.escalated_unnecessary_known;
        self.consults += o.consults;
        self.model.add(&o.model);
        for (row, n) in &o.decisions {
            *self.decisions.entry(*row).or_default() += n;
        }
    }
}

/// What model-driven bots (`--bots model`) asked their model: every `model_call`, its
/// server-counted tokens, and the replies that could not be used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ModelUse {
    /// Calls, feedback calls included.
    pub calls: u64,
    /// Decision points asked (first attempts): `calls - decisions` replies were fed back.
    pub decisions: u64,
    /// Prompt tokens, from the server's `usage`.
    pub prompt_tokens: u64,
    /// Completion tokens, from the server's `usage`.
    pub completion_tokens: u64,
    /// The largest prompt of one call: how far a bot's context grew.
    pub prompt_max: u32,
    /// Unusable replies (transport failures, malformed, not an option).
    pub invalid: u64,
    /// Decisions the scripted core made after two unusable replies.
    pub fallbacks: u64,
}

impl ModelUse {
    /// One `model_call`.
    pub fn call(&mut self, attempt: u8, prompt_tokens: u32, completion_tokens: u32, invalid: bool, fallback: bool) {
        self.calls += 1;
        self.decisions += u64::from(attempt <= 1);
        self.prompt_tokens += u64::from(prompt_tokens);
        self.completion_tokens += u64::from(completion_tokens);
        self.prompt_max = self.prompt_max.max(prompt_tokens);
        self.invalid += u64::from(invalid);
        self.fallbacks += u64::from(fallback);
    }

    /// Adds another episode's calls.
    pub fn add(&mut self, o: &ModelUse) {
        self.calls += o.calls;
        self.decisions += o.decisions;
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.prompt_max = self.prompt_max.max(o.prompt_max);
        self.invalid += o.invalid;
        self.fallbacks += o.fallbacks;
    }
}
