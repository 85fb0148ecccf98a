//! `suite run --bots model`: every episode's bots ask a language model, live
//! (`--llm-url`, `--model`) or from the traces of an earlier run (`--replay-model DIR`).

use std::path::{Path, PathBuf};

use gatecrew_crew::Setup;
use gatecrew_crew::bots::BotsKind;

use crate::BadInput;

/// The model options of `gatecrew suite run`.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// Who decides at the bots' decision points: `scripted` (the agent core) or `model`
    /// (a language model at --llm-url / --model) [default: each episode's config, else scripted]
    #[arg(long, value_name = "KIND", value_parser = crate::bots::parse_kind)]
    pub bots: Option<BotsKind>,
    /// With --bots model: the bots' OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1;
    /// may be given several times (bot i's calls go to the (i mod k)-th)
    #[arg(long, value_name = "URL")]
    pub llm_url: Vec<String>,
    /// With --bots model: the model name the requests carry
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// With --bots model: one call's timeout in ms [default: each episode's [bots] timeout_ms, 10000]
    #[arg(long, value_name = "MS", value_parser = crate::counts::between::<u64>(1, 600_000))]
    pub llm_timeout_ms: Option<u64>,
    /// With --bots model: calls in flight at once per --llm-url [default: the server's
    /// slots, from llama.cpp's /props or /slots, else 1]
    #[arg(long, value_name = "N", value_parser = crate::bots::parse_concurrency)]
    pub llm_concurrency: Option<usize>,
    /// Re-run a `suite run --bots model` from its traces, DIR/<policy>/<episode>.jsonl (no
    /// server); same suite, split, policies and flags. Implies --bots model
    #[arg(long, value_name = "DIR", conflicts_with_all = ["llm_url", "model"])]
    pub replay_model: Option<PathBuf>,
}

impl ModelArgs {
    /// Who decides, as the episodes' overrides carry it.
    pub fn kind(&self) -> Option<BotsKind> {
        if self.replay_model.is_some() { Some(BotsKind::Model) } else { self.bots }
    }

    /// Refuses combinations that cannot run, before any episode starts.
    pub fn check(&self) -> Result<(), BadInput> {
        let model = self.kind() == Some(BotsKind::Model);
        if !model && (!self.llm_url.is_empty() || self.model.is_some()) {
            // Suite episodes settle the gray zone deterministically; a model adjudicator
            // over the suite is scripts/suite-llm.sh.
            return Err(BadInput("--llm-url and --model go with --bots model in `suite run`".into()));
        }
        if model && self.replay_model.is_none() && (self.llm_url.is_empty() || self.model.is_none()) {
            return Err(BadInput("--bots model needs --llm-url URL and --model NAME (or --replay-model DIR)".into()));
        }
        if let Some(d) = &self.replay_model
            && !d.is_dir()
        {
            return Err(BadInput(format!(
                "--replay-model {}: not a folder of a `suite run --bots model`",
                d.display()
            )));
        }
        Ok(())
    }

    /// Whether episodes call a live endpoint.
    pub fn live(&self) -> bool {
        self.kind() == Some(BotsKind::Model) && self.replay_model.is_none()
    }

    /// Attaches the seat of one episode, whose trace is `trace` relative to the output
    /// folder (`<policy>/<episode>.jsonl`): the recording of the same path under
    /// `--replay-model`.
    pub fn attach(&self, setup: &mut Setup, trace: &Path) -> anyhow::Result<crate::bots::Attached> {
        // Not in the config hash: a timeout shapes the replies, and they are recorded.
        if let (Some(ms), Some(t)) = (self.llm_timeout_ms, setup.model_bots.as_mut()) {
            t.timeout_ms = ms;
        }
        let replay = self.replay_model.as_ref().map(|d| d.join(trace));
        if let Some(r) = replay.as_ref().filter(|r| !r.is_file()) {
            return Err(BadInput(format!("--replay-model: no recording {}", r.display())).into());
        }
        let to = crate::bots::Endpoints {
            urls: &self.llm_url,
            model: self.model.as_deref(),
            concurrency: self.llm_concurrency,
        };
        crate::bots::attach(setup, to, replay.as_deref())
    }
}
