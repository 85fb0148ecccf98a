//! Construction task files of other systems, read as they are, and their scores.
//!
//! * [`minecollab`]: MindCraft's MineCollab construction tasks (levels of 2-D grids,
//!   inline block states, per-agent inventories, agent count, timeout);
//! * [`villager`]: VillagerBench's description lines in their three shapes;
//! * [`raw`]: VillagerBench's raw `{name, size, blocks}` blueprints.
//!
//! [`TaskFile::read`] detects the format from the content; [`TaskFile::import`] picks a
//! task and resolves every block and item name (all unknown names are reported at once,
//! each with its JSON path; an optional [`Aliases`] table maps foreign spellings).
//! [`site::setup`] turns a task into an ordinary episode [`gatecrew_crew::Setup`], and
//! [`score`] computes MindCraft's per-block accuracy and VillagerBench's block recall,
//! which the episode writes into `episode_end`.

pub mod error;
mod json;
pub mod minecollab;
pub mod names;
pub mod raw;
pub mod score;
pub mod site;
pub mod task;
pub mod villager;

use std::path::{Path, PathBuf};

use gatecrew_world::GameData;
use serde_json::Value;

pub use error::{TaskError, TaskErrorKind};
pub use names::Aliases;
pub use score::{Accuracy, Recall, TaskScorer, mindcraft_accuracy, villager_recall};
pub use site::{TaskOptions, setup};
pub use task::{Format, ImportedTask, TaskCell};

/// A task file, parsed and classified, its tasks not yet resolved.
#[derive(Debug, Clone)]
pub struct TaskFile {
    path: PathBuf,
    format: Format,
    /// (id, JSON path of the entry, the entry).
    entries: Vec<(String, String, Value)>,
}

/// One line of a file's listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSummary {
    /// The id to pass as `--task-id`.
    pub id: String,
    /// What it is, in a few words.
    pub about: String,
}

fn classify(v: &Value) -> Option<Format> {
    if minecollab::looks_like(v) {
        Some(Format::MineCollab)
    } else if villager::looks_like(v) {
        Some(Format::VillagerLines)
    } else if raw::looks_like(v) {
        Some(Format::VillagerRaw)
    } else {
        None
    }
}

impl TaskFile {
    /// Reads and classifies a file.
    pub fn read(path: &Path) -> Result<TaskFile, TaskError> {
        let text = std::fs::read_to_string(path).map_err(|e| TaskError::new(path, TaskErrorKind::Io(e.to_string())))?;
        Self::parse(&text, path)
    }

    /// Parses and classifies a file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<TaskFile, TaskError> {
        let doc: Value = serde_json::from_str(text).map_err(|e| {
            TaskError::new(path, TaskErrorKind::Syntax { line: e.line(), column: e.column(), message: e.to_string() })
        })?;
        let unrecognised = |why: String| TaskError::new(path, TaskErrorKind::Unrecognised(why));
        let entries: Vec<(String, String, Value)> = match &doc {
            // A bare raw blueprint, named by its `name` or the file's stem.
            Value::Object(m) if raw::looks_like(&doc) => {
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("task");
                let id = m.get("name").and_then(Value::as_str).unwrap_or(stem).to_owned();
                vec![(id, "$".to_owned(), doc.clone())]
            }
            Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), json::key("$", k), v.clone())).collect(),
            // VillagerBench keeps its raw blueprints in a list, each with a `name`.
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let id = v.get("name").and_then(Value::as_str).map_or_else(|| i.to_string(), str::to_owned);
                    (id, json::index("$", i), v.clone())
                })
                .collect(),
            _ => return Err(unrecognised("the top level is neither an object nor a list".into())),
        };
        let Some((_, first_path, first)) = entries.first() else {
            return Err(unrecognised("the file holds no task".into()));
        };
        let format = classify(first).ok_or_else(|| {
            TaskError::at(
                path,
                first_path.clone(),
                "neither a MineCollab task (blueprint.levels), VillagerBench lines (a list of \"material: ...\") \
                 nor a raw blueprint (blocks)",
            )
        })?;
        // MineCollab files may mix in other task types; they are listed and refused when
        // picked. Other formats must be uniform.
        if format != Format::MineCollab {
            if let Some((_, p, _)) = entries.iter().find(|(_, _, v)| classify(v) != Some(format)) {
                return Err(TaskError::at(path, p.clone(), format!("not a {} task like the first", format.as_str())));
            }
        }
        Ok(TaskFile { path: path.to_path_buf(), format, entries })
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The task ids, in file order.
    pub fn ids(&self) -> Vec<&str> {
        self.entries.iter().map(|(id, _, _)| id.as_str()).collect()
    }

    /// One line per task.
    pub fn listing(&self) -> Vec<TaskSummary> {
        self.entries
            .iter()
            .map(|(id, _, v)| {
                let about = match self.format {
                    Format::MineCollab => {
                        let kind = v.get("type").and_then(Value::as_str).unwrap_or("construction");
                        let agents = v.get("agent_count").and_then(Value::as_u64).unwrap_or(1);
                        let levels = v.pointer("/blueprint/levels").and_then(Value::as_array).map_or(0, Vec::len);
                        format!("MineCollab {kind} task, {agents} agents, {levels} levels")
                    }
                    Format::VillagerLines => {
                        format!("VillagerBench description, {} lines", v.as_array().map_or(0, Vec::len))
                    }
                    Format::VillagerRaw => format!(
                        "VillagerBench raw blueprint, {} blocks",
                        v.get("blocks").and_then(Value::as_array).map_or(0, Vec::len)
                    ),
                };
                TaskSummary { id: id.clone(), about }
            })
            .collect()
    }

    /// Resolves one task: the one named, or the only one. A file with several tasks
    /// and no id is [`TaskErrorKind::Several`].
    pub fn import(&self, id: Option<&str>, data: &GameData, aliases: &Aliases) -> Result<ImportedTask, TaskError> {
        let (id, base, v) = match id {
            Some(want) => self.entries.iter().find(|(i, _, _)| i == want).ok_or_else(|| {
                TaskError::new(
                    &self.path,
                    TaskErrorKind::NoSuchTask {
                        id: want.to_owned(),
                        known: self.ids().into_iter().map(String::from).collect(),
                    },
                )
            })?,
            None if self.entries.len() == 1 => &self.entries[0],
            None => {
                return Err(TaskError::new(
                    &self.path,
                    TaskErrorKind::Several(self.ids().into_iter().map(String::from).collect()),
                ));
            }
        };
        let mut names = names::Resolver::new(data, aliases);
        let task = match self.format {
            Format::MineCollab => minecollab::import(&self.path, id, v, &mut names),
            Format::VillagerLines => villager::import_lines(&self.path, id, v, &mut names),
            Format::VillagerRaw => raw::import(&self.path, id, base, v, &mut names),
        };
        // Unknown names come first: they are all listed at once.
        names.finish(&self.path)?;
        let task = task?;
        tracing::debug!(file = %self.path.display(), id = %task.id, cells = task.cells.len(), "task imported");
        Ok(task)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
