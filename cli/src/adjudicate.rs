//! `gatecrew adjudicate --card FILE|-`: one decision card to the LLM adjudicator, its
//! verdict, tokens and latency printed, so that users can check an endpoint before a
//! run. Exit 0 when the model decided, 1 when a fallback had to.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use gatecrew_crew::{Overrides, Setup};
use gatecrew_gating::llm::{BlockingLlm, LlmClient, LlmSpec};
use gatecrew_gating::{Adjudicator, DecisionCard, Deterministic, GateSpec};
use gatecrew_protocol::trace::Decision;
use serde_json::json;

use crate::{BadInput, paths};

/// Arguments of `gatecrew adjudicate`.
#[derive(Debug, clap::Args)]
pub struct AdjudicateArgs {
    /// The decision card (JSON, as in the trace's `adjudication` events); `-` reads stdin
    #[arg(long, value_name = "FILE|-")]
    card: PathBuf,
    /// Crew config whose [llm] and [gate] sections apply [default: configs/crew.toml if present]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL")]
    llm_url: Option<String>,
    /// Model name
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// How long the call may take, in ms [default: the config's llm.timeout_ms, else
    /// 2000]; past it the verdict is the fallback's (timeout), as in a run. The same
    /// flag as `run --llm-timeout-ms`
    #[arg(long, visible_alias = "timeout-ms", value_name = "MS", value_parser = crate::counts::between::<u64>(1, 600_000))]
    llm_timeout_ms: Option<u64>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

fn read_card(path: &Path) -> anyhow::Result<DecisionCard> {
    let (name, text) = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("reading the card from stdin")?;
        ("<stdin>".to_owned(), s)
    } else {
        let s = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|e| BadInput(format!("{}: cannot read: {e}", path.display())))?;
        (path.display().to_string(), s)
    };
    serde_json::from_str(&text).map_err(|e| BadInput(format!("{name}: not a decision card: {e}")).into())
}

/// The `[llm]` spec and the deterministic adjudicator from the config and the flags.
fn spec(args: &AdjudicateArgs) -> anyhow::Result<(LlmSpec, Deterministic)> {
    let config = args.config.clone().or_else(paths::default_config);
    let ov = Overrides {
        llm_url: args.llm_url.clone(),
        llm_model: args.model.clone(),
        consult: true,
        ..Overrides::default()
    };
    match config {
        Some(path) => {
            let setup = Setup::load(&path, &ov).map_err(|e| BadInput(e.to_string()))?;
            let det = Deterministic { midpoint: setup.gate.midpoint() };
            Ok((setup.llm.unwrap_or_default(), det))
        }
        None => {
            let spec = LlmSpec { url: args.llm_url.clone(), model: args.model.clone(), ..LlmSpec::default() };
            spec.check().map_err(|e| BadInput(format!("{}: {}", e.key, e.message)))?;
            let g = GateSpec::default();
            Ok((spec, Deterministic { midpoint: (g.theta_low + g.theta_high) / 2.0 }))
        }
    }
}

/// Runs `gatecrew adjudicate`.
pub fn adjudicate(args: AdjudicateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let card = read_card(&args.card)?;
    let (mut spec, det) = spec(&args)?;
    if let Some(ms) = args.llm_timeout_ms {
        spec.timeout_ms = ms;
    }
    // Credentials in the URL are never printed.
    let url = spec.url.as_deref().map_or_else(|| "-".to_owned(), gatecrew_gating::llm::redact_url);
    let endpoint = format!("{url} (model {})", spec.model.as_deref().unwrap_or("-").escape_debug());
    let spec_timeout = spec.timeout_ms;
    let client = LlmClient::new(spec, det).map_err(|e| BadInput(e.to_string()))?;
    let mut llm = BlockingLlm::new(client)?;
    let a = llm.adjudicate(&card, card.s);
    let decision = match a.verdict.decision {
        Decision::StayLocal => "stay_local",
        Decision::Escalate => "escalate",
    };
    let fallback = a.fallback.map(|r| r.tag());
    if args.json {
        let v = json!({
            "decision": decision,
            "confidence": a.verdict.confidence,
            "fallback": fallback,
            "prompt_tokens": a.prompt_tokens,
            "completion_tokens": a.completion_tokens,
            "tokens": a.tokens(),
            "latency_ms": a.latency_ms,
            "timeout_ms": spec_timeout,
            "reply": a.reply,
        });
        writeln!(out, "{v}")?;
    } else {
        let by = fallback.as_ref().map_or("the model".to_owned(), |r| format!("the fallback ({r})"));
        writeln!(out, "endpoint  {endpoint}")?;
        writeln!(out, "card      {}", card.to_json())?;
        // What the model read: the same facts, in fewer tokens.
        writeln!(out, "sent      {}", card.prompt())?;
        // Quoted and escaped: a reply with newlines and terminal escapes could otherwise
        // print a forged "verdict ... decided by the model" line.
        writeln!(out, "reply     {:?}", a.reply)?;
        writeln!(out, "verdict   {decision}, confidence {:.2}, decided by {by}", a.verdict.confidence)?;
        writeln!(out, "tokens    {} prompt + {} completion = {}", a.prompt_tokens, a.completion_tokens, a.tokens())?;
        writeln!(out, "latency   {} ms (timeout {spec_timeout} ms)", a.latency_ms)?;
    }
    match fallback {
        None => Ok(()),
        Some(r) => anyhow::bail!("the endpoint gave no usable verdict ({r}); a run would use the fallback"),
    }
}
