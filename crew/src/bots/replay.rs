//! Replaying a model-driven episode with no server (`--replay-model TRACE`): the
//! trace's `model_call` events, each bot's in order, answer the same requests again.
//! A request whose digest differs from the recorded one means the episode went
//! another way (another config, seed or build): the replay says where and the run
//! fails, instead of quietly making up answers.

use std::collections::{BTreeMap, VecDeque};
use std::io::BufReader;
use std::path::Path;
use std::sync::Mutex;

use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{EventKind, TraceReader};

use super::{Endpoint, Exchange};

/// The reasons [`super::Question::parse`] gives: the reply arrived and was read. Any
/// other recorded error is the exchange's own failure, replayed as one.
const READ_ERRORS: [&str; 2] = ["malformed_reply", "not_an_option"];

/// A trace that cannot be replayed, or a replay that went another way.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayModelError {
    /// The file cannot be read or is not a trace (the reader names the line).
    #[error("{path}: {message}")]
    Read {
        /// The trace file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The trace has no model calls.
    #[error("{0}: no model_call events: it was not recorded with --bots model")]
    Empty(String),
    /// The episode asked something the recording did not.
    #[error(
        "the episode diverged from the recorded trace at {}'s call {call}: {why} (recorded with another config, seed or build?)",
        caller(*agent)
    )]
    Diverged {
        /// The bot (`None`: the central manager).
        agent: Option<AgentId>,
        /// Its 1-based call number.
        call: usize,
        /// What differs.
        why: String,
    },
}

/// Who made a call, as an error names it.
fn caller(agent: Option<AgentId>) -> String {
    agent.map_or_else(|| "the manager".to_owned(), |a| a.to_string())
}

/// Recorded exchanges by caller (`None`: the central manager).
#[derive(Debug, Default)]
struct State {
    queues: BTreeMap<Option<AgentId>, VecDeque<(String, Exchange)>>,
    served: BTreeMap<Option<AgentId>, usize>,
    diverged: Option<ReplayModelError>,
    config_hash: Option<String>,
}

/// Recorded exchanges by bot, answering in recorded order.
#[derive(Debug)]
pub struct ReplayEndpoint(Mutex<State>);

impl ReplayEndpoint {
    /// Reads a trace file.
    pub fn load(path: &Path) -> Result<ReplayEndpoint, ReplayModelError> {
        let name = path.display().to_string();
        let read = |message: String| ReplayModelError::Read { path: name.clone(), message };
        let file = std::fs::File::open(path).map_err(|e| read(format!("cannot read: {e}")))?;
        let mut state = State::default();
        for ev in TraceReader::new(BufReader::new(file)) {
            let ev = ev.map_err(|e| read(e.to_string()))?;
            if let EventKind::EpisodeStart { config_hash, .. } = &ev.kind {
                state.config_hash.get_or_insert_with(|| config_hash.clone());
            }
            if let EventKind::ModelCall {
                agent,
                digest,
                reply,
                prompt_tokens,
                completion_tokens,
                latency_ms,
                error,
                ..
            } = ev.kind
            {
                let result = match error {
                    Some(tag) if !READ_ERRORS.contains(&tag.as_str()) => Err((tag, reply)),
                    _ => Ok((reply, prompt_tokens, completion_tokens)),
                };
                state.queues.entry(agent).or_default().push_back((digest, Exchange { result, latency_ms }));
            }
        }
        if state.queues.is_empty() {
            return Err(ReplayModelError::Empty(name));
        }
        Ok(ReplayEndpoint(Mutex::new(state)))
    }

    /// The recorded episode's config hash.
    pub fn config_hash(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).config_hash.clone()
    }

    /// The first divergence, or recorded calls left unasked at the end.
    pub fn check(&self) -> Result<(), ReplayModelError> {
        let s = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = &s.diverged {
            return Err(e.clone());
        }
        if let Some((agent, q)) = s.queues.iter().find(|(_, q)| !q.is_empty()) {
            let call = s.served.get(agent).copied().unwrap_or(0) + 1;
            return Err(ReplayModelError::Diverged {
                agent: *agent,
                call,
                why: format!("{} recorded calls were never asked", q.len()),
            });
        }
        Ok(())
    }
}

impl Endpoint for ReplayEndpoint {
    fn chat(&self, agent: Option<AgentId>, digest: &str, _body: serde_json::Value) -> Exchange {
        let mut s = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let call = {
            let n = s.served.entry(agent).or_insert(0);
            *n += 1;
            *n
        };
        let next = s.queues.get_mut(&agent).and_then(VecDeque::pop_front);
        let why = match next {
            Some((d, ex)) if d == digest => return ex,
            Some((d, _)) => format!("request digest {digest}, recorded {d}"),
            None => "no recorded call left".to_owned(),
        };
        if s.diverged.is_none() {
            s.diverged = Some(ReplayModelError::Diverged { agent, call, why });
        }
        Exchange { result: Err(("replay_diverged".into(), String::new())), latency_ms: 0 }
    }
}
