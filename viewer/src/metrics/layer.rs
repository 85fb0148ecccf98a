//! The layer between the libraries' `metrics` calls and the exporter.

use std::sync::Arc;

use metrics::{Counter, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use metrics_exporter_prometheus::PrometheusRecorder;

/// Library series that the trace-derived ones replace: `gatecrew_board_messages_total`
/// (now by `kind`), `gatecrew_board_rejected_total` (now by `error`),
/// `gatecrew_gate_decisions_total` (now by `tier` and `decision`), and the episode
/// counter and length, which the library counts at every run of an episode (a soak
/// re-runs some on the actor runtime to compare) and the trace once per recorded end.
pub const SUPERSEDED: [&str; 5] = [
    "gatecrew_board_messages_total",
    "gatecrew_board_rejected_total",
    "gatecrew_gate_decisions_total",
    "gatecrew_episodes_total",
    "gatecrew_episode_ticks",
];

pub(super) struct Layer {
    inner: Arc<PrometheusRecorder>,
}

impl Layer {
    pub(super) fn new(inner: Arc<PrometheusRecorder>) -> Self {
        Layer { inner }
    }
}

/// A `_ms` histogram recorded in seconds.
struct Scaled(Histogram);

impl HistogramFn for Scaled {
    fn record(&self, value: f64) {
        self.0.record(value / 1000.0);
    }
}

fn seconds_name(name: &str) -> Option<String> {
    name.strip_suffix("_ms").map(|base| format!("{base}_seconds"))
}

impl Recorder for Layer {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        if !SUPERSEDED.contains(&key.as_str()) {
            self.inner.describe_counter(key, unit, description);
        }
    }

    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.inner.describe_gauge(key, unit, description);
    }

    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        if SUPERSEDED.contains(&key.as_str()) {
            return;
        }
        match seconds_name(key.as_str()) {
            Some(name) => self.inner.describe_histogram(KeyName::from(name), Some(Unit::Seconds), description),
            None => self.inner.describe_histogram(key, unit, description),
        }
    }

    fn register_counter(&self, key: &Key, metadata: &Metadata<'_>) -> Counter {
        if SUPERSEDED.contains(&key.name()) {
            return Counter::noop();
        }
        self.inner.register_counter(key, metadata)
    }

    fn register_gauge(&self, key: &Key, metadata: &Metadata<'_>) -> Gauge {
        self.inner.register_gauge(key, metadata)
    }

    fn register_histogram(&self, key: &Key, metadata: &Metadata<'_>) -> Histogram {
        if SUPERSEDED.contains(&key.name()) {
            return Histogram::noop();
        }
        match seconds_name(key.name()) {
            Some(name) => {
                let renamed = Key::from_parts(name, key.labels().cloned().collect::<Vec<_>>());
                Histogram::from_arc(Arc::new(Scaled(self.inner.register_histogram(&renamed, metadata))))
            }
            None => self.inner.register_histogram(key, metadata),
        }
    }
}
