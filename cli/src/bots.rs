//! `--bots model`: the seat's endpoint, live (`--llm-url`, `--model`) or recorded
//! (`--replay-model TRACE`).

use std::path::Path;
use std::sync::Arc;

use gatecrew_crew::Setup;
use gatecrew_crew::bots::{Endpoint, Exchange, ReplayEndpoint};
use gatecrew_gating::Deterministic;
use gatecrew_gating::llm::{BlockingChat, LlmClient, LlmSpec};
use gatecrew_protocol::AgentId;

use crate::BadInput;

/// `--bots KIND`.
pub(crate) fn parse_kind(s: &str) -> Result<gatecrew_crew::bots::BotsKind, String> {
    s.parse()
}

/// The HTTP client behind the seat.
#[derive(Debug)]
struct Live(BlockingChat);

impl Endpoint for Live {
    fn chat(&self, _agent: AgentId, _digest: &str, body: serde_json::Value) -> Exchange {
        let (result, latency_ms) = self.0.chat(body);
        Exchange {
            result: result.map(|(text, u)| (text, u.prompt_tokens, u.completion_tokens)).map_err(|(r, b)| (r.tag(), b)),
            latency_ms,
        }
    }
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

/// Attaches the seat the setup's model-driven bots ask, if it has any.
pub fn attach(
    setup: &mut Setup,
    url: Option<&str>,
    model: Option<&str>,
    replay: Option<&Path>,
) -> anyhow::Result<Attached> {
    let Some(terms) = setup.model_bots.clone() else {
        if url.is_some() || replay.is_some() {
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
    let (Some(url), Some(model)) = (url, model) else {
        return Err(
            BadInput("--bots model needs --llm-url URL and --model NAME (or --replay-model TRACE)".into()).into()
        );
    };
    let spec = LlmSpec {
        url: Some(url.to_owned()),
        model: Some(model.to_owned()),
        timeout_ms: terms.timeout_ms,
        max_tokens: terms.max_tokens.max(32),
        ..setup.llm.clone().unwrap_or_default()
    };
    spec.check().map_err(|e| BadInput(format!("--llm-url/--model: {}: {}", e.key, e.message)))?;
    let det = Deterministic { midpoint: setup.gate.midpoint() };
    let client = LlmClient::new(spec, det).map_err(|e| BadInput(e.to_string()))?;
    let chat = BlockingChat::new(client).map_err(|e| BadInput(e.to_string()))?;
    setup.attach_seat(Arc::new(Live(chat)), model);
    Ok(Attached::default())
}
