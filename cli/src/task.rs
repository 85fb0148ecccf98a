//! `gatecrew run --task FILE [--task-id ID]`: an episode from a MineCollab or
//! VillagerBench task file instead of a crew config.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_crew::Policy;
use gatecrew_crew::Setup;
use gatecrew_tasks::{Aliases, TaskErrorKind, TaskFile, TaskOptions};
use gatecrew_world::GameData;

use crate::BadInput;
use crate::paths;

/// A task's episode, with how its file was read.
pub struct TaskRun {
    /// The episode.
    pub setup: Setup,
    /// Notes on how the file was read (stacked levels, left-out entities).
    pub notes: Vec<String>,
    /// The format's name.
    pub format: &'static str,
}

/// What `--task` needs besides the file.
pub struct TaskArgs<'a> {
    /// The file.
    pub file: &'a Path,
    /// `--task-id`.
    pub id: Option<&'a str>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--policy`.
    pub policy: Option<Policy>,
    /// `--agents`.
    pub agents: Option<usize>,
}

/// The folder of the default configs (game data, the alias table).
fn configs_dir() -> Option<PathBuf> {
    paths::default_config().and_then(|c| c.parent().map(Path::to_path_buf))
}

/// Reads the task; a file with several tasks and no `--task-id` lists them on `out`.
pub fn load(args: &TaskArgs<'_>, out: &mut dyn Write) -> anyhow::Result<TaskRun> {
    let bad = |e: &dyn std::fmt::Display| BadInput(e.to_string());
    let dir = configs_dir().ok_or_else(|| BadInput("no configs/ folder here with the game data".into()))?;
    let data = Arc::new(GameData::load(&dir.join("data/minecraft-1.20.4.json")).map_err(|e| bad(&e))?);
    let alias_file = dir.join("aliases.toml");
    let aliases =
        if alias_file.is_file() { Aliases::load(&alias_file, &data).map_err(|e| bad(&e))? } else { Aliases::none() };
    let file = TaskFile::read(args.file).map_err(|e| bad(&e))?;
    let task = match file.import(args.id, &data, &aliases) {
        Ok(t) => t,
        Err(e) if matches!(e.kind(), TaskErrorKind::Several(_)) => {
            writeln!(out, "{} holds {} tasks ({}):", args.file.display(), file.ids().len(), file.format().as_str())?;
            for t in file.listing() {
                writeln!(out, "  {:<24} {}", t.id, t.about)?;
            }
            return Err(bad(&e).into());
        }
        Err(e) => return Err(bad(&e).into()),
    };
    let opts = TaskOptions {
        data,
        seed: args.seed.unwrap_or(gatecrew_crew::setup::EpisodeSpec::default().seed),
        policy: args.policy.unwrap_or(Policy::Gated),
        agents: args.agents,
    };
    let setup = gatecrew_tasks::setup(&task, args.file, &opts).map_err(|e| bad(&e))?;
    Ok(TaskRun { setup, notes: task.notes, format: task.format.as_str() })
}
