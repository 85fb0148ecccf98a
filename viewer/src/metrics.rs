//! Prometheus exposition (`--metrics`).
//!
//! [`install`] puts a Prometheus recorder behind the `metrics` facade, once per
//! process. Two kinds of series come out:
//! - trace-derived ones, recorded by [`TraceMetrics`] from the run's own trace events
//!   straight on the exporter, so that at the end they equal what the trace says;
//! - the libraries' own `metrics::counter!` calls, passed through a small layer that
//!   turns `_ms` histograms into base-unit `_seconds` ones and drops the library
//!   series that the trace-derived set replaces ([`SUPERSEDED`]: finer labels, or
//!   counting recorded episodes rather than every run of one; two series of one name
//!   would double every sum);
//! - this process's memory, CPU and threads from `/proc/self`, read at each scrape.
//!
//! Every family is described in [`families`] (HELP and unit), histograms are
//! histograms with buckets (never summaries: those cannot be summed across runs), and
//! game time is counted in ticks, never as seconds.
//!
//! Labels are always from small closed sets (message kinds, tiers, decisions,
//! outcomes): never ids, items or coordinates.

pub mod families;
mod layer;
pub mod process;
mod trace;

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder};

pub use layer::SUPERSEDED;
pub use trace::TraceMetrics;

/// Why the exporter could not start.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// Another `metrics` recorder is installed in this process.
    #[error("another metrics recorder is already installed in this process")]
    Taken,
    /// The bucket list was refused.
    #[error("prometheus exporter: {0}")]
    Build(String),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
}

/// Histogram buckets for every `_seconds` series (wall time): bridge overheads and
/// intent classification (milliseconds) to LLM round trips (seconds, a 135M model on
/// two loaded cores took up to tens of seconds).
pub const SECONDS_BUCKETS: [f64; 14] =
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0];

/// Histogram buckets for every `_ticks` series (game time, 20 ticks a second): a
/// request confirmed in a few ticks to episodes at the default cap of 24,000 ticks
/// (20 game minutes: `[episode] tick_limit`'s default in crew/src/setup.rs).
pub const TICKS_BUCKETS: [f64; 12] =
    [5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 24000.0];

/// Histogram buckets for `_tokens` series: one adjudication's prompt and completion,
/// a few hundred tokens for the decision card, up to the model's context.
pub const TOKENS_BUCKETS: [f64; 9] = [64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0];

/// The installed exporter: renders the exposition and records trace-derived series.
#[derive(Clone)]
pub struct Exporter {
    recorder: Arc<PrometheusRecorder>,
    handle: PrometheusHandle,
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Exporter")
    }
}

impl Exporter {
    /// The Prometheus text exposition now, with this process's gauges read afresh.
    pub fn render(&self) -> String {
        let mut text = self.handle.render();
        text.push_str(&process::render(&process::Sample::read()));
        text
    }

    pub(crate) fn recorder(&self) -> &PrometheusRecorder {
        &self.recorder
    }
}

static EXPORTER: OnceLock<Result<Exporter, String>> = OnceLock::new();

/// Installs the exporter as this process's `metrics` recorder (once; later calls return
/// the same exporter) and sets `gatecrew_build_info`.
pub fn install() -> Result<Exporter, MetricsError> {
    let r = EXPORTER.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &SECONDS_BUCKETS)
            .and_then(|b| b.set_buckets_for_metric(Matcher::Suffix("_ticks".into()), &TICKS_BUCKETS))
            .and_then(|b| b.set_buckets_for_metric(Matcher::Suffix("_tokens".into()), &TOKENS_BUCKETS))
            .map_err(|e| e.to_string())?
            .build_recorder();
        let handle = recorder.handle();
        let recorder = Arc::new(recorder);
        metrics::set_global_recorder(layer::Layer::new(recorder.clone())).map_err(|_| "taken".to_owned())?;
        let e = Exporter { recorder, handle };
        trace::build_info(&e);
        Ok(e)
    });
    match r {
        Ok(e) => Ok(e.clone()),
        Err(t) if t == "taken" => Err(MetricsError::Taken),
        Err(e) => Err(MetricsError::Build(e.clone())),
    }
}

/// A bound `/metrics` endpoint.
pub struct MetricsServer {
    listener: tokio::net::TcpListener,
    app: Router,
    addr: SocketAddr,
}

impl MetricsServer {
    /// Binds `GET /metrics` to `addr`.
    pub async fn bind(addr: SocketAddr, exporter: Exporter) -> Result<Self, MetricsError> {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|source| MetricsError::Bind { addr, source })?;
        let bound = listener.local_addr().map_err(|source| MetricsError::Bind { addr, source })?;
        let app =
            Router::new().route(
                "/metrics",
                get(move || {
                    let text = exporter.render();
                    async move {
                        ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
                    }
                }),
            );
        Ok(MetricsServer { listener, app, addr: bound })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until the task is dropped.
    pub async fn serve(self) -> std::io::Result<()> {
        axum::serve(self.listener, self.app).await
    }
}

/// Starts `/metrics` on a thread of its own (for the commands that run no tokio
/// runtime: `suite run`, `soak`); it serves until the process exits.
pub fn serve_in_background(addr: SocketAddr, exporter: Exporter) -> Result<SocketAddr, MetricsError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = tx.send(Err(MetricsError::Bind { addr, source: e }));
                    return;
                }
            };
            rt.block_on(async move {
                match MetricsServer::bind(addr, exporter).await {
                    Ok(s) => {
                        let _ = tx.send(Ok(s.addr()));
                        if let Err(e) = s.serve().await {
                            tracing::warn!("metrics server stopped: {e}");
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            });
        })
        .map_err(|source| MetricsError::Bind { addr, source })?;
    rx.recv().unwrap_or_else(|_| {
        Err(MetricsError::Bind { addr, source: std::io::Error::other("the metrics thread ended before binding") })
    })
}
