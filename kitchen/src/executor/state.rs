//! An episode's executor state: each agent's stream of draws (and the dispatcher's),
//! the token lengths of the lines in each agent's context, the dispatcher's history,
//! each agent's last refusal. The runner calls [`EpisodeExec::step`] between a policy's
//! decision and the world's step, and [`EpisodeExec::observe`] after it.

use std::sync::Arc;

use std::collections::VecDeque;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::{CONTEXT_LINES, LlmModel, ModelUse, render};
use crate::policy::Line;
use crate::tool::ToolKind;
use crate::world::{Action, LocationId, StepReport, World};

/// Mixed into the episode seed so that the executor's streams differ from the world's
/// order draws ("kitchen").
const STREAM: u64 = 0x6b69_7463_6865_6e21;

/// One model call.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CallRecord {
    /// The step it decided.
    pub step: u32,
    /// The caller: an agent, or the crew size for the dispatcher.
    pub who: usize,
    /// Prompt tokens.
    pub prompt: u32,
    /// Completion tokens.
    pub completion: u32,
    /// Its latency (seconds).
    pub seconds: f64,
    /// The first draw was below the mistake probability.
    pub mistake: bool,
    /// The second draw (what a mistake hits), drawn whatever happened.
    pub pick: u64,
    /// The agent whose command a mistake replaced.
    pub hit: Option<usize>,
}

/// The executor state of one episode under the `llm` executor.
#[derive(Debug, Clone)]
pub struct EpisodeExec {
    model: Arc<LlmModel>,
    agents: usize,
    max_steps: u32,
    /// One per agent, then the dispatcher's.
    rngs: Vec<ChaCha8Rng>,
    /// Token lengths of each agent's context lines, oldest first, and their sum.
    context: Vec<(VecDeque<u32>, u32)>,
    /// The dispatcher's history lines' token lengths, and their sum.
    history: (VecDeque<u32>, u32),
    /// Each agent's last refused command, as feedback.
    feedback: Vec<Option<String>>,
    /// Tokens of the level's recipe book (rendered at the first step).
    book_tokens: Option<u32>,
    calls: Vec<CallRecord>,
    usage: ModelUse,
}

impl EpisodeExec {
    /// The state of an episode with `agents` agents and `max_steps` steps, its streams
    /// seeded from `seed` (the episode's seed: the same for every policy).
    pub fn new(model: Arc<LlmModel>, seed: u64, agents: usize, max_steps: u32) -> Self {
        let rngs = (0..=agents as u64)
            .map(|k| ChaCha8Rng::seed_from_u64(seed ^ STREAM ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .collect();
        EpisodeExec {
            model,
            agents,
            max_steps,
            rngs,
            context: vec![(VecDeque::new(), 0); agents],
            history: (VecDeque::new(), 0),
            feedback: vec![None; agents],
            book_tokens: None,
            calls: Vec::new(),
            usage: ModelUse::default(),
        }
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> &[CallRecord] {
        &self.calls
    }

    /// The totals so far.
    pub fn usage(&self) -> ModelUse {
        self.usage
    }

    /// Tokens of an agent's context lines now.
    pub fn context_tokens(&self, agent: usize) -> u32 {
        self.context.get(agent).map_or(0, |c| c.1)
    }

    fn hear(&mut self, who: usize, tokens: u32) {
        let Some((lines, sum)) = self.context.get_mut(who) else { return };
        push_capped(lines, sum, tokens);
    }

    /// Two draws on `who`'s stream and the call's fate.
    fn call(&mut self, step: u32, who: usize, prompt: u32, completion: u32) -> CallRecord {
        let p = self.model.p_mistake(prompt);
        let rng = &mut self.rngs[who];
        let u: f64 = rng.random();
        let pick: u64 = rng.random();
        let seconds = self.model.seconds(prompt, completion);
        CallRecord { step, who, prompt, completion, seconds, mistake: u < p, pick, hit: None }
    }

    fn record(&mut self, c: CallRecord) {
        self.usage.calls += 1;
        self.usage.prompt_tokens += u64::from(c.prompt);
        self.usage.completion_tokens += u64::from(c.completion);
        self.usage.mistakes += u64::from(c.mistake);
        self.usage.model_seconds += c.seconds;
        self.calls.push(c);
    }

    /// The calls that decide one step: `intended` is the policy's decision, `lines`
    /// what its agents wrote while deciding (they enter their readers' contexts first,
    /// and the writers' completions). Returns the actions the world gets.
    pub(crate) fn step(&mut self, w: &World, central: bool, intended: &[Action], lines: &[Line]) -> Vec<Action> {
        let n = self.agents.min(w.agents().len());
        let mut actions: Vec<Action> =
            (0..w.agents().len()).map(|i| intended.get(i).copied().unwrap_or(Action::Noop)).collect();
        let m = Arc::clone(&self.model);
        let book = *self.book_tokens.get_or_insert_with(|| m.tokens(&render::book(w)));
        let mut written = vec![0u32; n];
        for l in lines {
            let t = m.tokens(&render::line(w, l));
            if let Some(x) = written.get_mut(l.from) {
                *x += t;
            }
            match l.to {
                Some(r) if r != l.from => self.hear(r, t),
                Some(_) => {}
                None => (0..n).filter(|&r| r != l.from).for_each(|r| self.hear(r, t)),
            }
        }
        let shared = m.tokens(&render::state(w, self.max_steps));
        let base = m.system_tokens(central).saturating_add(book).saturating_add(shared);
        let step = w.time();
        let mut wait = 0.0_f64;
        if central {
            let text: Vec<String> = (0..n).map(|k| render::command(w, k, actions[k])).collect();
            let completion = m.tokens(&format!("-action:\n{}\n", text.join("\n")));
            let prompt = base.saturating_add(self.history.1);
            let mut c = self.call(step, self.agents, prompt, completion);
            if c.mistake && n > 0 {
                let k = (c.pick % n as u64) as usize;
                let wrong = wrong_actions(w, k, actions[k]);
                if !wrong.is_empty() {
                    actions[k] = wrong[((c.pick / n as u64) % wrong.len() as u64) as usize];
                }
                c.hit = Some(k);
            }
            wait = c.seconds;
            self.record(c);
        } else {
            for (k, &extra) in written.iter().enumerate() {
                let own = m.tokens(&render::me(k, self.feedback[k].as_deref()));
                let prompt = base.saturating_add(own).saturating_add(self.context_tokens(k));
                let completion = m.tokens(&format!("-action:\n{}\n", render::command(w, k, actions[k]))) + extra;
                let mut c = self.call(step, k, prompt, completion);
                if c.mistake {
                    let wrong = wrong_actions(w, k, actions[k]);
                    if !wrong.is_empty() {
                        actions[k] = wrong[(c.pick % wrong.len() as u64) as usize];
                    }
                    c.hit = Some(k);
                }
                wait = wait.max(c.seconds);
                self.record(c);
            }
        }
        self.usage.wait_seconds += wait;
        actions
    }

    /// The world's answers to the step's commands: a refusal is the agent's feedback
    /// in its next prompt; every command and its answer is a dispatcher history line.
    pub(crate) fn observe(&mut self, w: &World, central: bool, report: &StepReport) {
        for (k, (a, r)) in report.outcomes.iter().enumerate().take(self.agents) {
            let text = match r {
                Ok(()) => None,
                Err(why) => Some(render::refusal(w, k, *a, *why)),
            };
            if central {
                let line = match &text {
                    Some(t) => format!("step {}: {t}", report.step),
                    None => format!("step {}: {}: done", report.step, render::command(w, k, *a)),
                };
                let t = self.model.tokens(&line);
                let (lines, sum) = &mut self.history;
                push_capped(lines, sum, t);
            }
            self.feedback[k] = text;
        }
    }
}

fn push_capped(lines: &mut VecDeque<u32>, sum: &mut u32, tokens: u32) {
    lines.push_back(tokens);
    *sum = sum.saturating_add(tokens);
    while lines.len() > CONTEXT_LINES {
        *sum = sum.saturating_sub(lines.pop_front().unwrap_or(0));
    }
}

/// The wrong commands a mistaken call can give `agent` instead of `intended`: its
/// action space where it stands, in this order — `noop`; `goto` every other location
/// in kitchen order; `get` (at the storage: each raw ingredient of the level's recipe
/// book, in item order; elsewhere: the content); `put` here; `activate` here when it is
/// a cooking tool — without the intended command.
pub fn wrong_actions(w: &World, agent: usize, intended: Action) -> Vec<Action> {
    let Some(body) = w.agents().get(agent) else { return Vec::new() };
    let here = body.at;
    let mut v = vec![Action::Noop];
    v.extend((0..w.locations().len()).map(|l| LocationId(l as u16)).filter(|&l| l != here).map(Action::Goto));
    let kind = w.location(here).kind;
    if kind == ToolKind::Storage {
        v.extend(render::level_raw(w).into_iter().map(|i| Action::Get { at: here, item: Some(i) }));
    } else {
        v.push(Action::Get { at: here, item: None });
    }
    v.push(Action::Put(here));
    if kind.cooks() {
        v.push(Action::Activate(here));
    }
    v.retain(|&a| a != intended);
    v
}
