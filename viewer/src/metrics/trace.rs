//! Series derived from the run's trace events.

use std::collections::HashMap;

use gatecrew_protocol::trace::{Decision, Event, EventKind, Tier, WindowEvent};
use metrics::{Key, Label, Level, Metadata, Recorder};

use super::Exporter;
use super::families::{self, Kind};

fn meta() -> Metadata<'static> {
    Metadata::new(module_path!(), Level::INFO, Some(module_path!()))
}

fn key(name: &'static str, labels: &[(&'static str, &str)]) -> Key {
    Key::from_parts(name, labels.iter().map(|(k, v)| Label::new(*k, v.to_string())).collect::<Vec<_>>())
}

/// Describes every family the recorder serves (the process ones are written apart)
/// and sets `gatecrew_build_info`.
pub(super) fn build_info(e: &Exporter) {
    let r = e.recorder();
    let described = families::TRACE.iter().chain(families::LIBRARY.iter()).chain(std::iter::once(&families::BUILD));
    for f in described {
        let unit = (f.unit == "seconds").then_some(metrics::Unit::Seconds);
        let help = format!("{} ({})", f.help, f.unit);
        match f.kind {
            Kind::Counter => r.describe_counter(f.name.into(), unit, help.into()),
            Kind::Gauge => r.describe_gauge(f.name.into(), unit, help.into()),
            Kind::Histogram => r.describe_histogram(f.name.into(), unit, help.into()),
        }
    }
    let k = key(families::BUILD.name, &[("version", env!("CARGO_PKG_VERSION"))]);
    r.register_gauge(&k, &meta()).set(1.0);
}

/// Records one episode's trace events as Prometheus series. One per episode (it keeps
/// the episode's open requests to time them to their confirmation).
pub struct TraceMetrics {
    exporter: Exporter,
    /// Tick of each window's REQUEST_MATERIAL.
    requested: HashMap<u32, u64>,
    /// This episode's share of the blueprint gauges: placed, remaining.
    blocks: (f64, f64),
    /// Whether the gauges keep the episode's last values after its end (one run) or
    /// give them back (many episodes: the gauges then sum the episodes running now).
    keep_final: bool,
}

impl std::fmt::Debug for TraceMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceMetrics").field("open_requests", &self.requested.len()).finish()
    }
}

fn tier_label(t: Tier) -> &'static str {
    match t {
        Tier::Rules => "1",
        Tier::Score => "2",
        Tier::Adjudicator => "3",
        Tier::Policy => "policy",
    }
}

impl TraceMetrics {
    /// For one episode; `keep_final` for a single run (see the field).
    pub fn new(exporter: Exporter, keep_final: bool) -> Self {
        TraceMetrics { exporter, requested: HashMap::new(), blocks: (0.0, 0.0), keep_final }
    }

    fn count(&self, name: &'static str, labels: &[(&'static str, &str)], n: u64) {
        self.exporter.recorder().register_counter(&key(name, labels), &meta()).increment(n);
    }

    fn observe_value(&self, name: &'static str, v: f64) {
        self.exporter.recorder().register_histogram(&key(name, &[]), &meta()).record(v);
    }

    fn set_blocks(&mut self, placed: f64, remaining: f64) {
        let r = self.exporter.recorder();
        let (p0, r0) = self.blocks;
        r.register_gauge(&key("gatecrew_blueprint_blocks", &[("state", "placed")]), &meta()).increment(placed - p0);
        r.register_gauge(&key("gatecrew_blueprint_blocks", &[("state", "remaining")]), &meta())
            .increment(remaining - r0);
        self.blocks = (placed, remaining);
    }

    /// Blocks in place after a step (runs that report progress).
    pub fn progress(&mut self, correct: u32, total: u32) {
        self.set_blocks(f64::from(correct), f64::from(total.saturating_sub(correct)));
    }

    /// Folds one trace event in.
    pub fn observe(&mut self, ev: &Event) {
        self.count("gatecrew_trace_events_total", &[("kind", ev.kind.name())], 1);
        match &ev.kind {
            EventKind::EpisodeStart { blueprint_blocks, .. } => {
                self.requested.clear();
                self.set_blocks(0.0, f64::from(*blueprint_blocks));
            }
            EventKind::Board { msg, window, .. } => {
                self.count("gatecrew_board_messages_total", &[("kind", msg.as_str())], 1);
                if *msg == gatecrew_protocol::MessageKind::RequestMaterial {
                    self.requested.insert(window.0, ev.t);
                }
            }
            EventKind::BoardReject { error, .. } => {
                self.count("gatecrew_board_rejected_total", &[("error", error.as_str())], 1);
            }
            EventKind::Chat { tokens, .. } => {
                self.count("gatecrew_chat_messages_total", &[("channel", "chat")], 1);
                self.count("gatecrew_chat_tokens_total", &[("channel", "chat")], u64::from(*tokens));
            }
            EventKind::Manager { tokens, .. } => {
                self.count("gatecrew_chat_messages_total", &[("channel", "manager")], 1);
                self.count("gatecrew_chat_tokens_total", &[("channel", "manager")], u64::from(*tokens));
            }
            EventKind::Issue { issue, .. } => self.count("gatecrew_issues_total", &[("issue", issue.as_str())], 1),
            EventKind::Gate { tier, decision, .. } => {
                let d = match decision {
                    Decision::Escalate => "escalate",
                    Decision::StayLocal => "stay_local",
                };
                self.count("gatecrew_gate_decisions_total", &[("tier", tier_label(*tier)), ("decision", d)], 1);
            }
            EventKind::Adjudication { prompt_tokens, completion_tokens, latency_ms, fallback, .. } => {
                self.count("gatecrew_llm_tokens_total", &[("type", "prompt")], u64::from(*prompt_tokens));
                self.count("gatecrew_llm_tokens_total", &[("type", "completion")], u64::from(*completion_tokens));
                let by = if fallback.is_some() { "fallback" } else { "model" };
                self.count("gatecrew_llm_requests_total", &[("decided_by", by)], 1);
                self.observe_value("gatecrew_llm_latency_seconds", *latency_ms as f64 / 1000.0);
            }
            EventKind::Window { window, event: WindowEvent::Close, outcome, .. } => {
                // A close without an outcome (a newer writer) is counted as `other`.
                let label = outcome.map_or("other", gatecrew_protocol::CloseOutcome::as_str);
                self.count("gatecrew_transfers_total", &[("outcome", label)], 1);
                if let Some(at) = self.requested.remove(&window.0) {
                    if *outcome == Some(gatecrew_protocol::CloseOutcome::Confirmed) {
                        let ticks = ev.t.saturating_sub(at) as f64;
                        self.observe_value("gatecrew_request_to_confirm_ticks", ticks);
                    }
                }
            }
            EventKind::Resolved { by, .. } => {
                let by = match by {
                    gatecrew_protocol::trace::ResolvedBy::Local => "local",
                    gatecrew_protocol::trace::ResolvedBy::Board => "board",
                };
                self.count("gatecrew_issues_resolved_total", &[("by", by)], 1);
            }
            EventKind::EpisodeEnd { correct_blocks, blueprint_blocks, reason, .. } => {
                self.count("gatecrew_episodes_total", &[("reason", reason.as_str())], 1);
                self.observe_value("gatecrew_episode_ticks", ev.t as f64);
                let missing = blueprint_blocks.saturating_sub(*correct_blocks);
                self.count("gatecrew_episode_blocks_total", &[("state", "correct")], u64::from(*correct_blocks));
                self.count("gatecrew_episode_blocks_total", &[("state", "missing")], u64::from(missing));
                if self.keep_final {
                    self.set_blocks(f64::from(*correct_blocks), f64::from(missing));
                } else {
                    self.set_blocks(0.0, 0.0);
                }
            }
            _ => {}
        }
    }
}
