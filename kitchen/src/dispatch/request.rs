//! The dispatcher's request: MindAgent's prompt parts over the episode's real values.
//! The system message is the dispatcher's instructions
//! (`executor/dispatcher-prompt.txt`, the same text the simulated `llm` executor counts);
//! the user message is the level's recipe book, the state, and the last
//! [`CONTEXT_LINES`] history lines (each command sent and the world's answer or
//! refusal, each invalid command and why), all rendered by [`crate::executor::render`]
//! in the forms the executor already counts, then the `-action:` cue.

use std::collections::VecDeque;
use std::fmt::Write;

use gatecrew_gating::llm::{ChatMessage, ChatRequest, OutputMode};
use serde_json::{Value, json};

use crate::executor::{CONTEXT_LINES, DISPATCHER_PROMPT, render};
use crate::world::{StepReport, World};

/// The dispatcher's history: its last [`CONTEXT_LINES`] lines, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    lines: VecDeque<String>,
}

impl History {
    /// An empty history.
    pub fn new() -> Self {
        History::default()
    }

    /// Adds a line, dropping the oldest beyond [`CONTEXT_LINES`].
    pub fn push(&mut self, line: String) {
        self.lines.push_back(line);
        while self.lines.len() > CONTEXT_LINES {
            self.lines.pop_front();
        }
    }

    /// The world's answers to a step's commands, one line an agent, as the `llm`
    /// executor forms them (`step N: goto_agent0_storage0: done`, or the refusal).
    pub fn observe(&mut self, w: &World, agents: usize, report: &StepReport) {
        for (k, (a, r)) in report.outcomes.iter().enumerate().take(agents) {
            let line = match r {
                Ok(()) => format!("step {}: {}: done", report.step, render::command(w, k, *a)),
                Err(why) => format!("step {}: {}", report.step, render::refusal(w, k, *a, *why)),
            };
            self.push(line);
        }
    }

    /// The lines, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(String::as_str)
    }
}

/// One request's texts and constraints, owned (a [`ChatRequest`] borrows them).
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchRequest {
    /// The system message.
    pub system: &'static str,
    /// The user message.
    pub user: String,
    /// The GBNF grammar (llama.cpp's `grammar`).
    pub grammar: String,
    /// The JSON schema (`response_format`).
    pub schema: Value,
    /// `max_tokens`: the longest reply the constraint admits ([`super::grammar::longest_reply`]).
    pub max_tokens: u32,
}

/// The user message: book, state, history, cue.
pub fn user_message(w: &World, max_steps: u32, history: &History) -> String {
    let mut s = render::book(w);
    s.push('\n');
    s.push_str(&render::state(w, max_steps));
    s.push_str("-history:\n");
    let mut any = false;
    for l in history.lines() {
        let _ = writeln!(s, "{l}");
        any = true;
    }
    if !any {
        s.push_str("None\n");
    }
    s.push_str("Give one command for each agent.\n-action:\n");
    s
}

impl DispatchRequest {
    /// The request for the step `w` is at, for a crew of `agents`. `grammar`, `schema`
    /// and `max_tokens` depend only on the level and the crew: the policy builds them
    /// once ([`super::Constraint`]) and passes them in.
    pub fn new(w: &World, max_steps: u32, history: &History, c: &super::Constraint) -> Self {
        DispatchRequest {
            system: DISPATCHER_PROMPT,
            user: user_message(w, max_steps, history),
            grammar: c.grammar.clone(),
            schema: c.schema.clone(),
            max_tokens: c.max_tokens,
        }
    }

    /// The chat request with the constraint `output` names.
    pub fn chat<'a>(&'a self, model: &'a str, output: OutputMode, temperature: f64) -> ChatRequest<'a> {
        let (response_format, grammar) = match output {
            OutputMode::Grammar => (None, Some(self.grammar.as_str())),
            OutputMode::JsonSchema => (
                Some(json!({
                    "type": "json_schema",
                    "json_schema": { "name": "dispatch", "strict": true, "schema": self.schema }
                })),
                None,
            ),
            OutputMode::None => (None, None),
        };
        ChatRequest {
            model,
            messages: vec![ChatMessage::new("system", self.system), ChatMessage::new("user", self.user.clone())],
            max_tokens: self.max_tokens,
            temperature,
            stream: false,
            response_format,
            grammar,
        }
    }
}
