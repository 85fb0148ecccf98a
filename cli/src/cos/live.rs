//! `gatecrew cos --llm-url URL --model NAME`: MindAgent's dispatcher with a real model
//! deciding ([`gatecrew_kitchen::policy::llm_dispatcher`]), over the gate's
//! OpenAI-compatible client on a current-thread runtime of its own (the episode loop
//! is synchronous and waits for each reply, as MindAgent's turn-based game does).
//!
//! A dead or slow endpoint never hangs the run: each call is bounded by
//! `--llm-timeout-ms` (connect, send, the whole body), and a call that fails is a
//! counted, labelled fallback (`--llm-fallback`), shown per episode on stderr and in
//! the table.

use std::io::Write;
use std::sync::Arc;

use clap::ValueEnum;
use gatecrew_gating::Deterministic;
use gatecrew_gating::llm::{ChatRequest, FallbackReason, LlmClient, LlmSpec, OutputMode, Usage};
use gatecrew_kitchen::dispatch::DispatchModel;
use gatecrew_kitchen::policy::llm_dispatcher::{DispatchOptions, FallbackRule, LlmDispatcher};
use gatecrew_kitchen::trace::TraceDir;
use gatecrew_kitchen::{Built, CosRow, Cuisine, EpisodeOutcome, Executor, FACTORS, Policy, PolicyKind, RunSpec};

use super::Runtime;
use crate::BadInput;

/// 20 s: a ~1,100-token prompt on the local SmolLM2-135M with two shared cores takes
/// a few seconds cold (the launcher's server caches the repeated prefix after the first
/// call); the adjudicator's 2 s default would cut most first calls short.
const DEFAULT_TIMEOUT_MS: u64 = 20_000;

/// The flags of the dispatcher over a real model.
#[derive(Debug, Clone, clap::Args)]
pub struct LiveArgs {
    /// Let this OpenAI-compatible endpoint's model be the dispatcher (needs --policy dispatcher), e.g. http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL")]
    llm_url: Option<String>,
    /// Model name for --llm-url
    #[arg(long, value_name = "NAME", requires = "llm_url")]
    model: Option<String>,
    /// Whole-request timeout of each dispatcher call, in milliseconds (1 to 600000; default 20000)
    #[arg(long, value_name = "N", requires = "llm_url", value_parser = crate::counts::between::<u64>(1, 600_000))]
    llm_timeout_ms: Option<u64>,
    /// The reply's constraint: `grammar` (GBNF, llama.cpp), `json-schema` (response_format) or `none`
    #[arg(long, value_enum, default_value = "grammar", requires = "llm_url")]
    llm_output: Output,
    /// What decides a step whose reply is unusable: `planner` (the deterministic dispatcher) or `noop`
    #[arg(long, value_enum, default_value = "planner", requires = "llm_url")]
    llm_fallback: Fallback,
    /// Interval factors to run (default MindAgent's five); with --llm-url only
    #[arg(long, value_delimiter = ',', value_name = "X", requires = "llm_url")]
    factors: Option<Vec<f64>>,
}

/// `--llm-output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    Grammar,
    JsonSchema,
    None,
}

/// `--llm-fallback`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Fallback {
    Planner,
    Noop,
}

impl LiveArgs {
    /// Whether a real model dispatches.
    pub fn on(&self) -> bool {
        self.llm_url.is_some()
    }

    /// The header line of the tables.
    pub fn describe(&self) -> String {
        format!(
            "dispatcher: model {} at {}, output {}, fallback {}, timeout {} ms; an invalid command is its agent's noop and fed back, an unusable reply a counted fallback",
            self.model.as_deref().unwrap_or("?"),
            self.llm_url.as_deref().map(gatecrew_gating::llm::redact_url).unwrap_or_default(),
            self.llm_output.to_possible_value().map_or_else(String::new, |v| v.get_name().to_owned()),
            self.llm_fallback.to_possible_value().map_or_else(String::new, |v| v.get_name().to_owned()),
            self.llm_timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)
        )
    }
}

/// The gate's client as a [`DispatchModel`]; clones share the client and the runtime,
/// so every episode's policy asks through one connection pool.
#[derive(Clone)]
struct HttpModel {
    rt: Arc<tokio::runtime::Runtime>,
    client: Arc<LlmClient>,
}

impl DispatchModel for HttpModel {
    fn model(&self) -> &str {
        self.client.model()
    }

    fn dispatch(&mut self, request: &ChatRequest<'_>) -> Result<(String, Usage), FallbackReason> {
        self.rt.block_on(self.client.chat(request)).map_err(|(reason, _)| reason)
    }
}

/// Checks the flags against the rest of `gatecrew cos`'s.
pub fn check(live: &LiveArgs, policies: &[PolicyKind], executor: &Executor, runtime: Runtime) -> anyhow::Result<()> {
    if !live.on() {
        return Ok(());
    }
    let bad = |m: &str| Err(BadInput(m.to_owned()).into());
    if live.model.is_none() {
        return bad("--llm-url needs --model NAME");
    }
    if policies != [PolicyKind::Dispatcher] {
        return bad("--llm-url makes the model the dispatcher: use it with --policy dispatcher");
    }
    if !matches!(executor, Executor::Scripted) {
        return bad("--llm-url and --executor llm do not go together: the real model's commands are not simulated");
    }
    if runtime != Runtime::Stepper {
        return bad("--llm-url runs on the stepper only (--runtime stepper)");
    }
    if let Some(f) = &live.factors {
        if f.is_empty() || f.iter().any(|x| !x.is_finite() || *x <= 0.0) {
            return bad("--factors: positive interval factors, e.g. 1.0,2.0");
        }
    }
    Ok(())
}

/// The rows, one per level and crew size, each episode's counts on `err` as it ends.
#[allow(clippy::too_many_arguments)]
pub fn table(
    live: &LiveArgs,
    cuisine: &Cuisine,
    levels: Option<&[String]>,
    agents: &[usize],
    spec: &RunSpec,
    traces: Option<&TraceDir>,
    err: &mut dyn Write,
) -> anyhow::Result<Vec<CosRow>> {
    let llm = LlmSpec {
        url: live.llm_url.clone(),
        model: live.model.clone(),
        timeout_ms: live.llm_timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
        ..LlmSpec::default()
    };
    // The midpoint is the adjudicator's fallback, which `chat` never uses.
    let client = LlmClient::new(llm, Deterministic { midpoint: 0.75 }).map_err(|e| BadInput(e.to_string()))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let model = HttpModel { rt: Arc::new(rt), client: Arc::new(client) };
    let name = model.model().to_owned();
    let output = match live.llm_output {
        Output::Grammar => OutputMode::Grammar,
        Output::JsonSchema => OutputMode::JsonSchema,
        Output::None => OutputMode::None,
    };
    let fallback = match live.llm_fallback {
        Fallback::Planner => FallbackRule::Planner,
        Fallback::Noop => FallbackRule::Noop,
    };
    let factors = live.factors.clone().unwrap_or_else(|| FACTORS.to_vec());
    let chosen: Vec<_> = match levels {
        None => cuisine.levels.iter().collect(),
        Some(names) => {
            names.iter().map(|n| cuisine.level(n)).collect::<Result<_, _>>().map_err(|e| BadInput(e.to_string()))?
        }
    };
    let mut rows = Vec::new();
    for level in chosen {
        for &n in agents {
            let spec = RunSpec { agents: n, ..spec.clone() };
            let build = |_: &gatecrew_kitchen::World, max_steps: u32| -> Box<dyn Policy + Send> {
                let opts = DispatchOptions { output, temperature: 0.0, max_steps, fallback };
                Box::new(LlmDispatcher::new(Box::new(model.clone()), n, opts))
            };
            let b = Built { policy: PolicyKind::Dispatcher, factors: &factors, build: &build, live_model: Some(&name) };
            let mut each = |e: &EpisodeOutcome| {
                let _ = writeln!(err, "{}", progress(e));
            };
            rows.push(gatecrew_kitchen::cos_row_with(&cuisine.book, level, &spec, &b, traces, &mut each)?);
        }
    }
    Ok(rows)
}

/// One episode's line on stderr.
fn progress(e: &EpisodeOutcome) -> String {
    let m = &e.model;
    format!(
        "  {} dispatcher x{}: {:.2} ({}/{}/{} orders), {} calls, {} prompt + {} completion tokens, {} invalid commands, {} fallbacks, {:.1} s waiting",
        e.level,
        e.factor,
        e.rate_pending_excluded(),
        e.completed,
        e.failed,
        e.pending,
        m.calls,
        m.prompt_tokens,
        m.completion_tokens,
        m.invalid_commands,
        m.fallbacks,
        m.wait_seconds
    )
}
