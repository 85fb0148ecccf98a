//! `gatecrew run --task FILE [--task-id ID]`: an episode from a MineCollab or
//! VillagerBench task file instead of a crew config.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use comfy_table::Cell;
use gatecrew_analyze::table;
use gatecrew_crew::Policy;
use gatecrew_crew::Setup;
use gatecrew_protocol::text::cell;
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

/// A file's tasks as a table, one task a line: id, what it is, blocks, crew, and its
/// status: `ok`, `partial: N cells left out` (cells that can never be built, each
/// named in a warning when the task runs), or why it cannot run. Every task is imported
/// for it, in one pass over the file.
pub fn list(file: &TaskFile, data: &GameData, aliases: &Aliases, out: &mut dyn Write) -> anyhow::Result<()> {
    let listing = file.survey(data, aliases).map_err(|e| BadInput(e.to_string()))?;
    let broken = listing.iter().filter(|t| t.problem.is_some()).count();
    let partial = listing.iter().filter(|t| t.problem.is_none() && t.cells_dropped.is_some_and(|n| n > 0)).count();
    let mut counts = Vec::new();
    if partial > 0 {
        counts.push(format!("{partial} partial"));
    }
    if broken > 0 {
        counts.push(format!("{broken} of them cannot run"));
    }
    writeln!(
        out,
        "{} holds {} tasks ({}){}:",
        file.path().display(),
        listing.len(),
        file.format().as_str(),
        if counts.is_empty() { String::new() } else { format!(", {}", counts.join(", ")) }
    )?;
    let mut t = table::new(vec!["id", "task", "blocks", "crew", "status"]);
    for s in listing {
        let crew = match (s.bots, s.humans) {
            (Some(b), 0) => format!("{b} bots"),
            (Some(b), h) => format!("{b} bots + {h} humans"),
            (None, _) => "-".to_owned(),
        };
        let blocks = s.blocks.map_or("-".to_owned(), |b| b.to_string());
        t.add_row(vec![
            Cell::new(cell(&s.id)),
            Cell::new(cell(&s.about)),
            Cell::new(blocks),
            Cell::new(crew),
            Cell::new(match (&s.problem, s.cells_dropped) {
                (Some(p), _) => cell(p),
                (None, Some(n)) if n > 0 => format!("partial: {n} cell{} left out", if n == 1 { "" } else { "s" }),
                (None, _) => "ok".to_owned(),
            }),
        ]);
    }
    writeln!(out, "{t}")?;
    Ok(())
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
            list(&file, &data, &aliases, out)?;
            return Err(BadInput(format!(
                "{}: {} tasks; pick one with --task-id (listed above)",
                args.file.display(),
                file.ids().len()
            ))
            .into());
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
