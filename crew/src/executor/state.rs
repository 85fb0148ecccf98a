//! An episode's executor state: each bot's stream of draws and the token lengths of the
//! lines in its context. Pure: the episode core calls it and applies what it says.

use std::collections::VecDeque;
use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::LlmModel;

/// Mixed into the episode seed so the executor's streams differ from the world's and
/// the faults'.
const STREAM: u64 = 0x6578_6563_7574_6f72;

/// One call's cost and fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// Prompt tokens.
    pub prompt: u32,
    /// Completion tokens.
    pub completion: u32,
    /// Ticks it takes.
    pub ticks: u64,
    /// It went wrong.
    pub mistake: bool,
    /// A second draw for what a mistake hits (which line, which order), drawn
    /// whatever the kind of call so that every call moves the stream alike.
    pub pick: u64,
}

#[derive(Debug, Clone)]
struct Mind {
    rng: ChaCha8Rng,
    /// Token lengths of the lines in context, oldest first.
    lines: VecDeque<u32>,
    context_tokens: u32,
}

/// The executor state of one episode.
#[derive(Debug, Clone)]
pub(crate) struct ExecState {
    model: Arc<LlmModel>,
    /// One per agent, then the central manager's.
    minds: Vec<Mind>,
}

impl ExecState {
    /// The state of an episode with `agents` bots (and a manager's stream after them).
    pub fn new(model: Arc<LlmModel>, seed: u64, agents: usize) -> Self {
        let minds = (0..=agents as u64)
            .map(|k| Mind {
                rng: ChaCha8Rng::seed_from_u64(seed ^ STREAM ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                lines: VecDeque::new(),
                context_tokens: 0,
            })
            .collect();
        ExecState { model, minds }
    }

    /// The model.
    pub fn model(&self) -> &LlmModel {
        &self.model
    }

    /// The central manager's index.
    pub fn manager(&self) -> usize {
        self.minds.len() - 1
    }

    /// A teammate's line enters `who`'s context; the oldest scrolls out past the window.
    pub fn hear(&mut self, who: usize, tokens: u32) {
        let cap = self.model.context_lines();
        let Some(m) = self.minds.get_mut(who) else { return };
        m.lines.push_back(tokens);
        m.context_tokens += tokens;
        while m.lines.len() > cap {
            m.context_tokens -= m.lines.pop_front().unwrap_or(0);
        }
    }

    /// Tokens of `who`'s context lines.
    pub fn context_tokens(&self, who: usize) -> u32 {
        self.minds.get(who).map_or(0, |m| m.context_tokens)
    }

    /// One call by `who`: the prompt is the system prompt, `own` tokens of its own
    /// (its state, a card, a status) and, when `with_context`, its context lines.
    pub fn call(&mut self, who: usize, own: u32, with_context: bool, completion: u32) -> Call {
        let context = if with_context { self.context_tokens(who) } else { 0 };
        let prompt = self.model.system_tokens().saturating_add(own).saturating_add(context);
        self.call_bare(who, prompt, completion)
    }

    /// One call by `who` with a prompt of its own (not the executor's system prompt:
    /// the tier-3 adjudicator's).
    pub fn call_bare(&mut self, who: usize, prompt: u32, completion: u32) -> Call {
        let p = self.model.p_mistake(prompt);
        let m = &mut self.minds[who];
        let u: f64 = m.rng.random();
        let pick: u64 = m.rng.random();
        Call { prompt, completion, ticks: self.model.ticks(prompt, completion), mistake: u < p, pick }
    }
}

#[cfg(test)]
mod tests {
    use gatecrew_gating::llm::{ErrorRates, Latency, LlmProfile};

    use super::*;

    fn model(p0: f64, p1: f64, lines: u32) -> Arc<LlmModel> {
        let profile = LlmProfile {
            model: "m".into(),
            source: "test".into(),
            latency: Latency { a: 2.0, b: 0.01, c: 0.1, samples: 0, r2: None },
            errors: Some(ErrorRates { p0, p1, source: "test".into() }),
            tokenizer: Default::default(),
        };
        Arc::new(LlmModel::new(profile, lines, 1.0))
    }

    #[test]
    fn the_context_keeps_the_last_lines_only() {
        let mut x = ExecState::new(model(0.0, 0.0, 3), 1, 2);
        for t in [10, 20, 30, 40] {
            x.hear(0, t);
        }
        assert_eq!(x.context_tokens(0), 20 + 30 + 40);
        assert_eq!(x.context_tokens(1), 0, "one bot's lines are not another's");
    }

    #[test]
    fn a_call_costs_the_latency_line_over_its_real_prompt() {
        let mut x = ExecState::new(model(0.0, 0.0, 15), 1, 1);
        x.hear(0, 100);
        let sys = x.model().system_tokens();
        assert!(sys > 300, "the system prompt is counted: {sys}");
        let c = x.call(0, 50, true, 10);
        assert_eq!(c.prompt, sys + 150);
        assert_eq!(c.ticks, (2.0 + 0.01 * f64::from(c.prompt) + 1.0).ceil() as u64);
        assert!(!c.mistake);
        assert_eq!(x.call(0, 50, false, 10).prompt, sys + 50);
    }

    #[test]
    fn draws_are_per_agent_and_do_not_depend_on_the_kind_of_call() {
        // Agent 1's n-th call draws the same whatever agent 0 did, and whatever the
        // calls' sizes: only the probability it is compared with changes.
        let mut a = ExecState::new(model(0.5, 0.0, 15), 9, 2);
        let mut b = a.clone();
        for _ in 0..5 {
            a.call(0, 10, true, 1);
        }
        let xs: Vec<_> = (0..50).map(|_| a.call(1, 10, true, 1)).map(|c| (c.mistake, c.pick)).collect();
        let ys: Vec<_> = (0..50).map(|_| b.call(1, 900, false, 40)).map(|c| (c.mistake, c.pick)).collect();
        assert_eq!(xs, ys);
        let rate = xs.iter().filter(|(m, _)| *m).count();
        assert!((15..=35).contains(&rate), "p = 0.5 over 50 calls: {rate}");
    }

    #[test]
    fn mistakes_grow_with_the_prompt() {
        let m = model(0.01, 0.2, 15);
        assert!((m.p_mistake(0) - 0.01).abs() < 1e-12);
        assert!((m.p_mistake(2000) - 0.41).abs() < 1e-12);
        assert_eq!(model(0.5, 1.0, 15).p_mistake(10_000), 1.0, "capped");
    }
}
