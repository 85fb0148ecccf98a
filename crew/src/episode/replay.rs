//! Replaying recorded adjudications: the `adjudication` events of a trace, keyed by
//! issue id, fed back as the verdicts of the same consults. With the same config and
//! seed the episode then reproduces its trace byte for byte — the recorded raw reply,
//! tokens and latency included — without any server.

use std::collections::BTreeMap;
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
    /// The trace adjudicates one issue twice, so which verdict to replay is unclear.
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

/// Recorded adjudications by issue.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    recorded: BTreeMap<IssueId, (serde_json::Value, Adjudication)>,
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
        for (i, ev) in events.iter().enumerate() {
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
                    if r.recorded.insert(*issue_id, (card.clone(), adj)).is_some() {
                        return Err((i + 1, format!("a second adjudication of issue {issue_id}")));
                    }
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
        self.recorded.len()
    }

    /// Whether none are left.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

impl Resolver for Replay {
    fn resolve(&mut self, req: &ConsultRequest) -> Result<Adjudication, ResolveError> {
        let (card, adj) = self.recorded.remove(&req.issue_id).ok_or(ResolveError::Missing(req.issue_id))?;
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
