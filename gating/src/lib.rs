//! The escalation gate of gatecrew (DESIGN sections 4-5).
//!
//! An agent runs the gate only when it detects an [`Issue`], never every tick. The gate
//! reads five ordinal [`Features`] (criticality, coordination advantage, downstream
//! impact, local recoverability, history), each computed by a decision table in
//! [`features`] from plain facts the agent gathered. Then:
//!
//! 1. **Tier 1**, [`rules::tier1`]: ordered rules with logged ids;
//! 2. **Tier 2**, [`score`]: a weighted score normalised to `[0, 1]` against an
//!    asymmetric operating point (`theta_low`, `theta_high`) with a large stay-local
//!    region;
//! 3. **Tier 3**, an [`Adjudicator`] for the gray zone between the thresholds: the
//!    deterministic one here, a language model in [`llm`] (its HTTP client behind the
//!    cargo feature `http`).
//!
//! [`GateParams`] can only be built from a spec whose weights satisfy the hierarchy
//! `wC > max(wA, wD, wR)` and `min(wA, wD, wR) > wH > 0`. [`History`] keeps cooldowns
//! and zero-yield counts per issue key. Everything here is pure and synchronous, except
//! the HTTP client of [`llm`].

pub mod adjudicator;
pub mod config;
pub mod features;
mod gate;
mod history;
mod issue;
mod level;
pub mod llm;
pub mod rules;
pub mod score;

pub use adjudicator::{Adjudication, Adjudicator, DecisionCard, Deterministic, FallbackPolicy, Verdict};
pub use config::{GateConfigError, GateParams, GateSpec, MAX_WEIGHT, Weights};
pub use features::Features;
pub use gate::{Gate, GateDecision, GatePolicy, GateQuery, Stage};
pub use history::History;
pub use issue::{Issue, IssueKey};
pub use level::Level;
pub use rules::{RuleContext, RuleId};
