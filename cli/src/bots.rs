//! `--bots model`: the seat's endpoint, live (`--llm-url`, `--model`, one or more
//! servers: [`live`]) or recorded (`--replay-model TRACE`).

mod live;

use std::path::Path;
use std::sync::Arc;

use gatecrew_crew::Setup;
use gatecrew_crew::bots::ReplayEndpoint;
use gatecrew_gating::Deterministic;
use gatecrew_gating::llm::{BlockingChat, LlmClient, LlmSpec, redact_url};

use crate::BadInput;

/// `--bots KIND`.
pub(crate) fn parse_kind(s: &str) -> Result<gatecrew_crew::bots::BotsKind, String> {
    s.parse()
}

/// What a run must check when it is over: a replay that went another way fails it.
#[derive(Debug, Default)]
pub struct Attached {
    replay: Option<Arc<ReplayEndpoint>>,
}

impl Attached {
    /// Fails when the replayed episode diverged from its recording.
    pub fn check(&self) -> anyhow::Result<()> {
        match &self.replay {
            Some(r) => r.check().map_err(|e| BadInput(e.to_string()).into()),
            None => Ok(()),
        }
    }
}

/// Where a model-driven crew's calls go: the endpoints and how many calls each takes at once.
#[derive(Debug, Clone, Copy)]
pub struct Endpoints<'a> {
    /// `--llm-url`, in the order given (empty: none).
    pub urls: &'a [String],
    /// `--model`.
    pub model: Option<&'a str>,
    /// `--llm-concurrency`: calls in flight per endpoint (`None`: the server's slots, else 1).
    pub concurrency: Option<usize>,
}

/// Attaches the seat the setup's model-driven bots ask, if it has any.
pub fn attach(setup: &mut Setup, to: Endpoints<'_>, replay: Option<&Path>) -> anyhow::Result<Attached> {
    let model = to.model;
    let Some(terms) = setup.model_bots.clone() else {
        if !to.urls.is_empty() || replay.is_some() {
            // Scripted bots: --llm-url is the adjudicator's, and --replay-model has nothing to replay.
            if replay.is_some() {
                return Err(BadInput("--replay-model needs --bots model".into()).into());
            }
        }
        return Ok(Attached::default());
    };
    if let Some(path) = replay {
        let r = Arc::new(ReplayEndpoint::load(path).map_err(|e| BadInput(e.to_string()))?);
        if r.config_hash().as_deref() != Some(setup.config_hash.as_str()) {
            return Err(BadInput(format!(
                "{}: recorded with config hash {}, this run has {}: replay with the same config, seed and flags",
                path.display(),
                r.config_hash().as_deref().unwrap_or("(none)"),
                setup.config_hash
            ))
            .into());
        }
        setup.attach_seat(r.clone(), model.unwrap_or("replay"));
        return Ok(Attached { replay: Some(r) });
    }
    let (false, Some(model)) = (to.urls.is_empty(), model) else {
        return Err(
            BadInput("--bots model needs --llm-url URL and --model NAME (or --replay-model TRACE)".into()).into()
        );
    };
    let det = Deterministic { midpoint: setup.gate.midpoint() };
    let mut servers = Vec::with_capacity(to.urls.len());
    for url in to.urls {
        let spec = LlmSpec {
            url: Some(url.clone()),
            model: Some(model.to_owned()),
            timeout_ms: terms.timeout_ms,
            max_tokens: terms.max_tokens.max(32),
            ..setup.llm.clone().unwrap_or_default()
        };
        let shown = redact_url(url);
        spec.check().map_err(|e| BadInput(format!("--llm-url {shown}: {}: {}", e.key, e.message)))?;
        let n = match to.concurrency {
            Some(n) => n,
            None => {
                let key = spec.api_key_env.as_deref().and_then(|v| std::env::var(v).ok());
                let slots = live::server_slots(url, key.as_deref());
                tracing::info!(endpoint = %shown, ?slots, "calls in flight: the server's slots (1 if it says none)");
                slots.unwrap_or(1)
            }
        };
        let clients = (0..n)
            .map(|_| LlmClient::new(spec.clone(), det))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| BadInput(e.to_string()))?;
        let chat = BlockingChat::pool(clients).map_err(|e| BadInput(e.to_string()))?;
        servers.push(live::Server { chat, shown });
    }
    setup.attach_seat(Arc::new(live::Live(servers)), model);
    Ok(Attached::default())
}

/// `--llm-concurrency N`: at least one call, at most 256 (a server with more slots
/// than that is no single machine's).
pub(crate) fn parse_concurrency(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ 1..=256) => Ok(n),
        _ => Err(format!("{s:?} is not a number of calls in 1..=256")),
    }
}
