//! Replaying recorded adjudications: the `adjudication` events of a trace, keyed by
//! issue id, fed back as the verdicts of the same consults. An issue met again is
//! adjudicated again under its id (one issue per blocker, DESIGN section 8): its
//! adjudications replay in the order they were recorded. With the same config and
//! seed the episode then reproduces its trace byte for byte — the recorded raw reply,
//! tokens and latency included — without any server.

use std::collections::{BTreeMap, VecDeque};
use std::io::BufReader;
use std::path::Path;

use gatecrew_gating::{Adjudication, Verdict};
use gatecrew_protocol::IssueId;
use gatecrew_protocol::trace::{Event, EventKind, TraceError, TraceReader};

use super::consult::{ConsultRequest, ResolveError, Resolver};

/// A trace that cannot be replayed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The file cannot be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The trace file, as given.
        path: String,
        /// Why it could not be opened.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a trace event.
    #[error("{path}: {source}")]
    Trace {
        /// The trace file, as given.
        path: String,
        /// The reader's error (names the line).
        source: TraceError,
    },
    /// An event the replay cannot use.
    #[error("{path}: line {line}: {reason}")]
    Event {
        /// The trace file, as given.
        path: String,
        /// The 1-based line of the offending event.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Recorded adjudications by issue, each issue's in trace order.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    recorded: BTreeMap<IssueId, VecDeque<(serde_json::Value, Adjudication)>>,
    config_hash: Option<String>,
}

impl Replay {
    /// Reads a trace file.
    pub fn load(path: &Path) -> Result<Replay, ReplayError> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|source| ReplayError::Io { path: name.clone(), source })?;
        let mut events = Vec::new();
        for ev in TraceReader::new(BufReader::new(file)) {
            events.push(ev.map_err(|source| ReplayError::Trace { path: name.clone(), source })?);
        }
        Self::from_events(&events).map_err(|(line, reason)| ReplayError::Event { path: name, line, reason })
    }

    /// From events in trace order; an error names the 1-based position and the fault.
    pub fn from_events(events: &[Event]) -> Result<Replay, (usize, String)> {
        let mut r = Replay::default();
        for ev in events {
            match &ev.kind {
                EventKind::EpisodeStart { config_hash, .. } if r.config_hash.is_none() => {
                    r.config_hash = Some(config_hash.clone());
                }
                EventKind::Adjudication {
                    issue_id,
                    card,
                    reply,
                    decision,
                    confidence,
                    prompt_tokens,
                    completion_tokens,
                    latency_ms,
                    fallback,
                    ..
                } => {
                    let adj = Adjudication {
                        verdict: Verdict { decision: *decision, confidence: *confidence },
                        reply: reply.clone(),
                        prompt_tokens: *prompt_tokens,
                        completion_tokens: *completion_tokens,
                        latency_ms: *latency_ms,
                        fallback: *fallback,
                    };
                    r.recorded.entry(*issue_id).or_default().push_back((card.clone(), adj));
                }
                _ => {}
            }
        }
        Ok(r)
    }

    /// The recorded episode's config hash.
    pub fn config_hash(&self) -> Option<&str> {
        self.config_hash.as_deref()
    }

    /// Adjudications left.
    pub fn len(&self) -> usize {
        self.recorded.values().map(VecDeque::len).sum()
    }

    /// Whether none are left.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl Resolver for Replay {
    fn resolve(&mut self, req: &ConsultRequest) -> Result<Adjudication, ResolveError> {
        let queue = self.recorded.get_mut(&req.issue_id).ok_or(ResolveError::Missing(req.issue_id))?;
        let (card, adj) = queue.pop_front().ok_or(ResolveError::Missing(req.issue_id))?;
        if queue.is_empty() {
            self.recorded.remove(&req.issue_id);
        }
        let now = req.card.to_value();
        if card != now {
            return Err(ResolveError::Diverged {
                issue: req.issue_id,
                recorded: card.to_string(),
                now: now.to_string(),
            });
        }
        Ok(adj)
    }
}
