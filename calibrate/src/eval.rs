//! Evaluating grid points on a set of episodes, with the decision-replay cache.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use gatecrew_crew::executor::LlmModel;
use gatecrew_crew::{Policy, Setup};
use gatecrew_gating::{
    DecisionCard, Deterministic, Features, Gate, GateParams, GatePolicy, GateQuery, RuleContext, Stage,
};
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{CallKind, Decision, Event, EventKind, GateAction, Tier};
use serde::{Deserialize, Serialize};

use crate::objective::{Objective, Score};

/// One episode of the set, with its suite labels.
#[derive(Debug, Clone)]
pub struct Case {
    /// Episode id.
    pub id: String,
    /// The suite template it was generated from.
    pub template: String,
    /// Template family.
    pub family: String,
    /// Calibration or test: which half of the study it scores in.
    pub split: gatecrew_protocol::trace::Split,
    /// The episode, loaded and checked, ready to run under any gate.
    pub setup: Setup,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Query {
    features: Features,
    ctx: RuleContext,
    decision: Decision,
    action: GateAction,
    /// Settled in the gray zone, at this unrounded score.
    tier3: bool,
    score: f64,
}

#[derive(Debug)]
struct Trajectory {
    queries: Vec<Query>,
    metrics: Arc<EpisodeMetrics>,
    /// The deterministic adjudicator's midpoint of the gate it was simulated under.
    midpoint: f64,
}

/// Whether a new gate takes `q` exactly as the recorded run did, so that the run from
/// there on is the same. Without an executor model only the decision and the local
/// action matter (which tier took them changes only the modelled adjudicator tokens).
/// Under the `llm` executor a gray-zone decision is a call of the bot's own model, so
/// the tier must agree, and so must what the call does with the card: its prompt's
/// tokens (the call's ticks and its chance of going wrong; the two draws are made
/// whatever the card) and the deterministic verdict (which a mistake flips). The card
/// differs between points only in its score, so the prompt's tokens agree when the
/// score's text does ([`ScoreTokens`]): then the decision is the recorded one.
fn same_step(gate: &Gate, q: &Query, midpoint: f64, tokens: Option<&ScoreTokens>) -> Option<bool> {
    let query = GateQuery { features: q.features, ctx: q.ctx };
    let stage = gate.assess(query);
    match (tokens, stage) {
        (Some(tokens), Stage::Gray { score }) => {
            let r = q.features.r.get();
            let same = q.tier3
                && tokens.same(score, q.score)
                && gate.deterministic().verdict(r, score).decision
                    == Deterministic { midpoint }.verdict(r, q.score).decision;
            same.then_some(true)
        }
        _ => {
            let (d, a, tier3) = settle(gate, query, stage);
            ((d, a) == (q.decision, q.action) && (tokens.is_none() || !q.tier3)).then_some(tier3)
        }
    }
}

/// The tokens the score takes in a decision card's prompt, by the executor model's
/// tokenizer. The score is the card's last field and follows `"s":`, so both
/// tokenizers' pre-splitting cuts the text before and after the number whatever the
/// rest of the card says (digits are split from punctuation): two cards that differ only
/// in their scores have prompts of the same length exactly when the scores' texts have
/// the same number of tokens (test `the_score_alone_changes_a_cards_prompt_length`).
#[derive(Debug)]
pub struct ScoreTokens {
    model: Arc<LlmModel>,
    /// Tokens of the card scores 0.00 to 1.00, by hundredths: every score the gate
    /// normalises; others are counted when met.
    table: Vec<u32>,
}

impl ScoreTokens {
    /// The table for a model.
    pub fn new(model: Arc<LlmModel>) -> Self {
        let table = (0..=100).map(|c| model.tokens(&score_text(f64::from(c) / 100.0))).collect();
        ScoreTokens { model, table }
    }

    /// Tokens of a score as a card shows it.
    pub fn of(&self, score: f64) -> u32 {
        let cents = (score * 100.0).round();
        if (0.0..=100.0).contains(&cents) {
            return self.table[cents as usize];
        }
        self.model.tokens(&score_text(score))
    }

    /// Whether two scores' cards have prompts of the same length.
    pub fn same(&self, a: f64, b: f64) -> bool {
        DecisionCard::card_score(a) == DecisionCard::card_score(b) || self.of(a) == self.of(b)
    }
}

/// The score's text in a card: its JSON, as `DecisionCard::prompt` writes it.
pub fn score_text(score: f64) -> String {
    serde_json::to_string(&DecisionCard::card_score(score)).unwrap_or_default()
}

/// A point's figures on a set of episodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PointMetrics {
    /// Index in the grid's full product.
    pub index: usize,
    /// Weights C, A, D, R, H.
    pub weights: [f64; 5],
    /// theta_low.
    pub theta_low: f64,
    /// theta_high.
    pub theta_high: f64,
    /// The objective and its parts.
    pub score: Score,
}

impl PointMetrics {
    /// Builds the record of a point.
    pub fn new(index: usize, params: &GateParams, score: Score) -> Self {
        let s = params.spec();
        let w = s.weights;
        PointMetrics {
            index,
            weights: [w.c, w.a, w.d, w.r, w.h],
            theta_low: s.theta_low,
            theta_high: s.theta_high,
            score,
        }
    }
}

/// The gate's decision on a query, as the `gated` agent takes it without a language
/// model (the gray zone settled by the deterministic adjudicator), and whether tier 3
/// settled it.
pub fn decide(gate: &Gate, q: GateQuery) -> (Decision, GateAction, bool) {
    settle(gate, q, gate.assess(q))
}

/// [`decide`] from a stage already assessed.
fn settle(gate: &Gate, q: GateQuery, stage: Stage) -> (Decision, GateAction, bool) {
    match stage {
        Stage::Decided(d) => (d.decision, d.action, false),
        Stage::Gray { score } => {
            let v = gate.deterministic().verdict(q.features.r.get(), score);
            let d = gate.settle(q, score, v.decision);
            (d.decision, d.action, true)
        }
    }
}

/// Evaluates gate parameters on episodes, reusing trajectories whose decisions a new
/// point would take unchanged.
#[derive(Debug)]
pub struct Evaluator {
    cases: Vec<Case>,
    cache: Vec<Mutex<Vec<Trajectory>>>,
    /// Per episode, its executor model's score tokens (`None`: scripted).
    tokens: Vec<Option<ScoreTokens>>,
    simulated: AtomicU64,
    replayed: AtomicU64,
}

impl Evaluator {
    /// An evaluator over these episodes.
    pub fn new(cases: Vec<Case>) -> Self {
        let cache = cases.iter().map(|_| Mutex::new(Vec::new())).collect();
        let tokens = cases.iter().map(|c| c.setup.executor.model().map(|m| ScoreTokens::new(m.clone()))).collect();
        Evaluator { cases, cache, tokens, simulated: AtomicU64::new(0), replayed: AtomicU64::new(0) }
    }

    /// The episodes.
    pub fn cases(&self) -> &[Case] {
        &self.cases
    }

    /// Episodes simulated and episodes answered from the cache so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.simulated.load(Ordering::Relaxed), self.replayed.load(Ordering::Relaxed))
    }

    /// Simulates an episode under `params` and records its gate inputs.
    fn simulate(&self, i: usize, params: GateParams) -> (Option<Vec<Query>>, Arc<EpisodeMetrics>) {
        let mut setup = self.cases[i].setup.clone();
        setup.gate = params;
        setup.policy = Policy::Gated;
        // Offline: the gray zone is settled by the deterministic adjudicator.
        setup.llm = None;
        let mut metrics = EpisodeMetrics::default();
        let mut queries = Vec::new();
        let mut consults = 0usize;
        gatecrew_crew::run(&setup, &mut |ev: &Event| {
            metrics.observe(ev);
            if let EventKind::LlmCall { call: CallKind::Consult, .. } = &ev.kind {
                consults += 1;
            }
            if let EventKind::Gate { features, decision, action: Some(action), context: Some(c), tier, score, .. } =
                &ev.kind
            {
                let f = Features::new(features.c, features.a, features.d, features.r, features.h).unwrap_or_default();
                let ctx = RuleContext {
                    requestable: c.requestable,
                    teammate_reachable: c.reachable,
                    other_work: c.other_work,
                };
                queries.push(Query {
                    features: f,
                    ctx,
                    decision: *decision,
                    action: *action,
                    tier3: *tier == Tier::Adjudicator,
                    score: *score,
                });
            }
        });
        self.simulated.fetch_add(1, Ordering::Relaxed);
        // A consult still in flight at the end wrote no `gate` event: its features are
        // unknown, so no replay can vouch for the run (`None`: never reused).
        let complete = consults == queries.iter().filter(|q| q.tier3).count() || consults == 0;
        (complete.then_some(queries), Arc::new(metrics))
    }

    /// The metrics of episode `i` under `params`. With `fast`, a cached trajectory whose
    /// every decision the new gate takes identically is reused.
    pub fn episode(&self, i: usize, params: GateParams, fast: bool) -> Arc<EpisodeMetrics> {
        if fast {
            let gate = Gate::new(params, GatePolicy::Gated);
            let tokens = self.tokens[i].as_ref();
            // Same steps: same trajectory ([`same_step`]); the tier-3 count is taken
            // from the replay.
            let replay = |t: &Trajectory| {
                let mut gray = 0u64;
                for q in &t.queries {
                    gray += u64::from(same_step(&gate, q, t.midpoint, tokens)?);
                }
                Some(gray)
            };
            let cached =
                self.cache[i].lock().map(|c| c.iter().find_map(|t| replay(t).map(|gray| (t.metrics.clone(), gray))));
            if let Ok(Some((m, gray))) = cached {
                self.replayed.fetch_add(1, Ordering::Relaxed);
                if m.gray == gray {
                    return m;
                }
                let mut m = (*m).clone();
                m.gray = gray;
                return Arc::new(m);
            }
        }
        let (queries, metrics) = self.simulate(i, params);
        if let (true, Some(queries)) = (fast, queries) {
            if let Ok(mut c) = self.cache[i].lock() {
                if !c.iter().any(|t| t.queries == queries) {
                    c.push(Trajectory { queries, metrics: metrics.clone(), midpoint: params.midpoint() });
                }
            }
        }
        metrics
    }

    /// Scores `params` on a subset of the episodes (indices into [`Self::cases`]).
    pub fn score(&self, params: GateParams, subset: &[usize], objective: &Objective, fast: bool) -> Score {
        let metrics: Vec<Arc<EpisodeMetrics>> = subset.iter().map(|&i| self.episode(i, params, fast)).collect();
        let refs: Vec<&EpisodeMetrics> = metrics.iter().map(|m| m.as_ref()).collect();
        objective.score(&refs)
    }

    /// Indices of the episodes matching a predicate.
    pub fn select(&self, f: impl Fn(&Case) -> bool) -> Vec<usize> {
        self.cases.iter().enumerate().filter(|(_, c)| f(c)).map(|(i, _)| i).collect()
    }
}
