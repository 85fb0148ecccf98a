//! `--executor scripted|llm [--llm-profile FILE]`, shared by `run`,
//! `suite run` and `calibrate`: every episode of the command runs under the same
//! executor model, whatever its policy.

use std::path::{Path, PathBuf};

use gatecrew_crew::executor::{DEFAULT_CONTEXT_LINES, Executor, ExecutorKind, ExecutorSpec};

use crate::BadInput;

/// The executor flags.
#[derive(Debug, Clone, clap::Args)]
pub struct ExecutorArgs {
    /// What drives the bots: `scripted` (the agent cores, free) or `llm` (a model of
    /// language-model-driven bots: every decision costs game time and can go wrong)
    /// [default: the config's [executor], else scripted]
    #[arg(long, value_name = "KIND", value_parser = parse_kind)]
    pub executor: Option<ExecutorKind>,
    /// The latency and error profile for --executor llm [default: the built-in
    /// configs/llm-profiles/gpt-4o-published.toml]
    #[arg(long, value_name = "FILE", requires = "executor")]
    pub llm_profile: Option<PathBuf>,
    /// Teammate lines a bot keeps in its context under --executor llm (1 to 10000, the
    /// executor's own bound)
    #[arg(long, value_name = "N", requires = "executor", default_value_t = DEFAULT_CONTEXT_LINES,
          value_parser = crate::counts::between::<u32>(1, 10_000))]
    pub context_lines: u32,
    /// Multiplies the profile's error rates under --executor llm (0 turns mistakes off)
    #[arg(long, value_name = "X", requires = "executor", default_value_t = 1.0)]
    pub error_scale: f64,
}

fn parse_kind(s: &str) -> Result<ExecutorKind, String> {
    s.parse()
}

impl ExecutorArgs {
    /// The executor the flags name, resolved against the working directory, or `None`
    /// (each config's own `[executor]` applies).
    pub fn resolve(&self) -> anyhow::Result<Option<Executor>> {
        let Some(kind) = self.executor else { return Ok(None) };
        if kind == ExecutorKind::Scripted && self.llm_profile.is_some() {
            return Err(BadInput("--llm-profile goes with --executor llm".into()).into());
        }
        let spec = ExecutorSpec {
            kind,
            profile: self.llm_profile.clone(),
            context_lines: self.context_lines,
            error_scale: self.error_scale,
        };
        let e = Executor::resolve(&spec, Path::new(".")).map_err(|e| BadInput(format!("--executor: {e}")))?;
        Ok(Some(e))
    }
}
