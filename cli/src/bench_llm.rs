//! `gatecrew bench-llm --llm-url URL --model NAME`: times an OpenAI-compatible
//! endpoint on prompts and completions of several sizes and fits the `llm` executor's
//! latency line, `a + b * prompt_tokens + c * completion_tokens` ticks.
//!
//! The design is a full grid (every prompt size with every completion cap, repeated),
//! so that prefill and decoding cost are told apart; token counts are the server's own
//! (`usage`), never estimates. One unrecorded request first warms the server (model
//! load). Requests run one at a time: a decision of one bot waits for its own answer,
//! and concurrent requests would measure the server's queue instead.
//!
//! Every prompt starts with the request's own number, so that no server reuses the
//! previous prompt's cache: llama.cpp keeps the longest common prefix of the last prompt
//! in its slot, and an identical prompt would be timed at a fraction of its cold cost
//! (docs/benchmarks.md). The fit is the cold cost of a
//! prompt; a bot whose prompts share a long prefix may pay less.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use gatecrew_gating::llm::profile::{Sample, fit};
use gatecrew_gating::llm::{ChatMessage, ChatRequest, LlmClient, LlmProfile, LlmSpec, redact_url};
use gatecrew_gating::{Deterministic, GateSpec};

use crate::BadInput;

/// Arguments of `gatecrew bench-llm`.
#[derive(Debug, clap::Args)]
pub struct BenchLlmArgs {
    /// The OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL")]
    llm_url: String,
    /// Model name sent in each request
    #[arg(long, value_name = "NAME")]
    model: String,
    /// Prompt sizes to try, in approximate tokens (the server's count is what is fitted)
    #[arg(long, value_delimiter = ',', default_values_t = [100u32, 400, 800, 1400])]
    prompts: Vec<u32>,
    /// Completion caps to try (`max_tokens`); the prompt asks the model to copy its context, so the cap is reached
    #[arg(long, value_delimiter = ',', default_values_t = [8u32, 32, 96])]
    completions: Vec<u32>,
    /// Requests per grid point
    #[arg(long, default_value_t = 3, value_parser = crate::counts::between::<u32>(1, 100))]
    repeat: u32,
    /// Timeout of one request, in milliseconds (also `--llm-timeout-ms`, as `run` and
    /// `adjudicate` name it)
    #[arg(long, visible_alias = "llm-timeout-ms", default_value_t = 120_000, value_parser = crate::counts::between::<u64>(1, 600_000))]
    timeout_ms: u64,
    /// Environment variable holding the API key (none: no key is sent)
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Write the profile here (else it is printed)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// A line of the kind a chat-reading bot keeps in its context: the prompt is padded
/// with these, so that its tokens are like a real prompt's (words, numbers, names).
const FILLER: &str = "bot2: I need 4 oak_planks for the north wall at 12 64 -3, can anyone spare some?\n";
/// Tenths of a character per token of [`FILLER`], for sizing only: SmolLM2's server
/// counted 663 prompt tokens for 19 lines (1,596 characters) and the instructions, 2.4.
const DECICHARS_PER_TOKEN: usize = 24;

fn request<'a>(model: &'a str, n: usize, prompt_tokens: u32, max_tokens: u32) -> ChatRequest<'a> {
    let lines = (prompt_tokens as usize * DECICHARS_PER_TOKEN / 10).div_ceil(FILLER.len()).max(1);
    let context = FILLER.repeat(lines);
    ChatRequest {
        model,
        messages: vec![
            ChatMessage::new(
                "system",
                format!("Request {n}. You are a Minecraft construction bot. Recent chat:\n{context}"),
            ),
            // Copying the context keeps a small model talking until the cap (asked to
            // count, SmolLM2 stops after about 20 tokens).
            ChatMessage::new("user", "Repeat the recent chat above, line by line, word for word."),
        ],
        max_tokens,
        temperature: 0.0,
        stream: false,
        response_format: None,
        grammar: None,
    }
}

/// Runs `gatecrew bench-llm`.
pub fn run(a: BenchLlmArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    if a.prompts.is_empty() || a.completions.is_empty() || a.prompts.iter().chain(&a.completions).any(|n| *n == 0) {
        return Err(BadInput("--prompts and --completions: sizes of at least 1".into()).into());
    }
    let spec = LlmSpec {
        url: Some(a.llm_url.clone()),
        model: Some(a.model.clone()),
        api_key_env: a.api_key_env.clone(),
        timeout_ms: a.timeout_ms,
        // A long completion's body: 96 numbers are well under this.
        max_body_bytes: 1 << 20,
        ..LlmSpec::default()
    };
    spec.check().map_err(|e| BadInput(format!("{}: {}", e.key, e.message)))?;
    let g = GateSpec::default();
    let client = LlmClient::new(spec, Deterministic { midpoint: (g.theta_low + g.theta_high) / 2.0 })
        .map_err(|e| BadInput(e.to_string()))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting a runtime")?;
    let shown = redact_url(&a.llm_url);
    let sent = std::cell::Cell::new(0_usize);
    let once = |p: u32, c: u32| -> anyhow::Result<Sample> {
        sent.set(sent.get() + 1);
        let body = request(&a.model, sent.get(), p, c);
        let started = Instant::now();
        let (_, usage) = rt.block_on(client.chat(&body)).map_err(|(reason, text)| {
            anyhow::anyhow!("{shown}: request of ~{p} prompt tokens failed: {reason} {text}")
        })?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        if usage.prompt_tokens == 0 {
            anyhow::bail!("{shown}: the server reports no token usage; bench-llm fits the server's own counts");
        }
        Ok(Sample { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, ms })
    };
    once(a.prompts[0], a.completions[0]).context("warm-up request")?;
    let points: Vec<(u32, u32)> = (0..a.repeat)
        .flat_map(|_| a.prompts.iter().flat_map(|p| a.completions.iter().map(move |c| (*p, *c))))
        .collect();
    let bar = crate::progress::bar(points.len() as u64, "requests");
    let mut samples = Vec::with_capacity(points.len());
    for (p, c) in points {
        samples.push(once(p, c)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let latency = fit(&samples).map_err(|e| anyhow::anyhow!("{e}"))?;
    let load = std::fs::read_to_string("/proc/loadavg").ok().and_then(|l| l.split(' ').next().map(str::to_owned));
    let profile = LlmProfile {
        model: a.model.clone(),
        source: format!(
            "measured: gatecrew bench-llm --llm-url {shown} --model {} on {}, {} requests (prompts {:?}, completions {:?}, x{}), load average {}",
            a.model,
            today(),
            samples.len(),
            a.prompts,
            a.completions,
            a.repeat,
            load.as_deref().unwrap_or("unknown"),
        ),
        latency,
        // Latency only: mistakes are fitted on the suite, not measured here, and the
        // token counts the latency line is read against are the executor's.
        errors: None,
        tokenizer: Default::default(),
    };
    writeln!(err, "{:>8} {:>10} {:>10}", "prompt", "completion", "ms")?;
    for s in &samples {
        writeln!(err, "{:>8} {:>10} {:>10.1}", s.prompt_tokens, s.completion_tokens, s.ms)?;
    }
    writeln!(
        err,
        "fit: {:.2} + {:.5} x prompt + {:.4} x completion ticks (R² {:.3}, {} requests)",
        latency.a,
        latency.b,
        latency.c,
        latency.r2.unwrap_or(f64::NAN),
        latency.samples
    )?;
    match &a.out {
        Some(path) => {
            gatecrew_protocol::replace::replace(path, profile.to_toml().as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            writeln!(out, "wrote {}", path.display())?;
        }
        None => write!(out, "{}", profile.to_toml())?,
    }
    Ok(())
}

/// Today's date (UTC), for the profile's source line.
fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}
