//! `reproduce 004 --bots model`: who drives the bots in every run, and Table 8 without
//! `calibrate`. Calibration's decision replay re-simulates scripted bots only (a model's
//! replies are not a function of the gate's inputs), so under model bots the paper's
//! four perturbations run as ordinary `suite run`s of `gated` on the test split, each
//! with its perturbed gate written as a file beside the traces; the table is scored
//! with calibrate's own objective, so its columns mean what `calibrate --perturb`'s do.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use gatecrew_calibrate::Objective;
use gatecrew_calibrate::objective::Score;
use gatecrew_calibrate::perturb::{PerturbRow, Perturbation, perturbations};
use gatecrew_gating::GateSpec;
use gatecrew_protocol::metrics::EpisodeMetrics;

use gatecrew_crew::bots::BotsKind;

use super::{ReproduceArgs, Runs};
use crate::BadInput;

/// Who drives the bots in every run of the reproduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bots {
    /// The agent core.
    Scripted,
    /// A language model, live.
    Live {
        /// The endpoint.
        url: String,
        /// The model name.
        model: String,
    },
    /// The recordings of an earlier `reproduce 004 --bots model`, one folder per run.
    Replayed(PathBuf),
}

impl Bots {
    /// Who drives the bots, from the flags; refused before any run when they cannot go
    /// together.
    pub fn from_args(a: &ReproduceArgs) -> Result<Bots, BadInput> {
        let bots = match (&a.replay_model, a.bots, &a.llm_url, &a.model) {
            (Some(d), Some(BotsKind::Scripted), _, _) => {
                return Err(BadInput(format!(
                    "--replay-model {} replays model bots: not with --bots scripted",
                    d.display()
                )));
            }
            (Some(d), ..) if !d.is_dir() => {
                return Err(BadInput(format!(
                    "--replay-model {}: not the --out folder of a `reproduce 004 --bots model`",
                    d.display()
                )));
            }
            (Some(d), ..) => Bots::Replayed(d.clone()),
            (None, Some(BotsKind::Model), Some(url), Some(model)) => {
                Bots::Live { url: url.clone(), model: model.clone() }
            }
            (None, Some(BotsKind::Model), ..) => {
                return Err(BadInput(
                    "--bots model needs --llm-url URL and --model NAME (or --replay-model DIR)".into(),
                ));
            }
            (None, _, None, None) => Bots::Scripted,
            (None, ..) => return Err(BadInput("--llm-url and --model go with --bots model".into())),
        };
        if a.llm_timeout_ms.is_some() && !matches!(bots, Bots::Live { .. }) {
            return Err(BadInput("--llm-timeout-ms goes with --bots model and a live --llm-url".into()));
        }
        Ok(bots)
    }

    /// The flags that carry the bots to the run in folder `name`.
    pub fn flags(&self, a: &ReproduceArgs, name: &str) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        match self {
            Bots::Scripted => {
                if a.bots.is_some() {
                    v.extend(["--bots".into(), "scripted".into()]);
                }
            }
            Bots::Live { url, model } => {
                v.extend([
                    "--bots".into(),
                    "model".into(),
                    "--llm-url".into(),
                    url.clone(),
                    "--model".into(),
                    model.clone(),
                ]);
                if let Some(ms) = a.llm_timeout_ms {
                    v.extend(["--llm-timeout-ms".into(), ms.to_string()]);
                }
            }
            Bots::Replayed(dir) => v.extend(["--replay-model".into(), dir.join(name).display().to_string()]),
        }
        v
    }

    /// Whether a model decides.
    pub fn model(&self) -> bool {
        *self != Bots::Scripted
    }

    /// One sentence for the document's opening.
    pub fn sentence(&self) -> String {
        match self {
            Bots::Scripted => "with scripted bots: the figures are about the coordination structure, not about a language model's judgement".into(),
            Bots::Live { url, model } => format!(
                "with model-driven bots (`--bots model`: every decision point asks `{model}` at {url}): figures measured with a small model are about the machinery (calls, tokens, fallbacks, replay), not evidence about coordination quality"
            ),
            Bots::Replayed(dir) => format!(
                "with model-driven bots replayed from the recordings in `{}` (`--replay-model`): figures measured with a small model are about the machinery (calls, tokens, fallbacks, replay), not evidence about coordination quality",
                dir.display()
            ),
        }
    }
}

/// The run folders of the perturbation table under model bots, in the order of
/// [`perturbations`].
pub(crate) const PERTURB_RUNS: [&str; 5] =
    ["perturb-chosen", "perturb-equal", "perturb-low-wc", "perturb-wr0", "perturb-high-wh"];

/// The perturbed gates of `base`, each with the file its run reads: the chosen point is
/// `base_file` itself, the four variants are written into `dir`.
pub(crate) fn gate_files(base_file: &Path, dir: &Path) -> anyhow::Result<Vec<(&'static str, PathBuf)>> {
    let base = crate::run::gate_only(base_file)?
        .ok_or_else(|| BadInput(format!("{}: not a file of a `[gate]` table only", base_file.display())))?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut files = Vec::new();
    for (k, (run, (name, _, spec))) in PERTURB_RUNS.iter().zip(perturbations(base)).enumerate() {
        if k == 0 {
            files.push((*run, base_file.to_owned()));
            continue;
        }
        #[derive(serde::Serialize)]
        struct GateFile {
            gate: GateSpec,
        }
        let path = dir.join(format!("{run}.toml"));
        let text = format!(
            "# Table 8's \"{name}\" of {}, written by `gatecrew reproduce 004 --bots model`.\n{}",
            base_file.display(),
            toml::to_string(&GateFile { gate: spec })?
        );
        gatecrew_protocol::replace::replace(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        files.push((*run, path));
    }
    Ok(files)
}

/// Table 8 from the perturbation runs' episodes (test split only: the calibration split
/// is not run, its columns are empty).
pub(crate) fn perturbation(base: GateSpec, suite: &Path, of: &dyn Fn(&str) -> Vec<EpisodeMetrics>) -> Perturbation {
    let objective = Objective::default();
    let mut test_episodes = 0;
    let rows = PERTURB_RUNS
        .iter()
        .zip(perturbations(base))
        .map(|(run, (name, rationale, spec))| {
            let eps = of(run);
            test_episodes = test_episodes.max(eps.len());
            PerturbRow::new(name, rationale, spec, objective.score(&eps.iter().collect::<Vec<_>>()), Score::default())
        })
        .collect();
    Perturbation { suite: suite.display().to_string(), test_episodes, calibration_episodes: 0, rows }
}

/// The model's use per run and policy: calls, decisions, invalid replies, fallbacks,
/// tokens (empty under scripted bots).
pub(crate) fn calls_section(runs: &Runs) -> String {
    if !runs.bots.model() {
        return String::new();
    }
    let mut s = String::from(
        "\n## Model calls\n\nWhat the model-driven bots asked, per run and policy (`gatecrew analyze` of each run's folder):\n\n| run | policy | episodes | calls | decisions | invalid replies | fallbacks | prompt tokens | completion tokens |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for (name, report) in runs.reports.iter().filter(|r| !matches!(r.0, "boundary" | "transfer-all")) {
        for p in &report.policies {
            let Some(g) = report.group(p, "all") else { continue };
            let m = &g.model;
            let _ = writeln!(
                s,
                "| {name} | {p} | {} | {} | {} | {} | {} | {} | {} |",
                g.episodes, m.calls, m.decisions, m.invalid, m.fallbacks, m.prompt_tokens, m.completion_tokens
            );
        }
    }
    s
}
