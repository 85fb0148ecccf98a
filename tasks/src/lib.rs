//! Construction task files of other systems, read as they are, and their scores.
//!
//! * [`minecollab`]: MindCraft's MineCollab construction tasks (levels of 2-D grids,
//!   inline block states, per-agent inventories, agent count, timeout);
//! * [`villager`]: VillagerBench's description lines, every shape its published file holds;
//! * [`raw`]: VillagerBench's raw `{name, size, blocks}` blueprints.
//!
//! [`TaskFile::read`] indexes a file one task at a time (a file of hundreds of tasks is
//! never held whole) and detects each task's format from its content; a task that
//! cannot be read is listed with its problem and the others stay runnable.
//! [`TaskFile::import`] parses one task and resolves every block and item name (all unknown names are reported at once,
//! each with its JSON path; an optional [`Aliases`] table maps foreign spellings).
//! [`site::setup`] turns a task into an ordinary episode [`gatecrew_crew::Setup`], and
//! [`score`] computes MindCraft's per-block accuracy and VillagerBench's block recall,
//! which the episode writes into `episode_end`.
//!
//! Nothing is dropped silently: an [`ImportedTask`] counts the cells its text describes
//! ([`ImportedTask::described`]); each is a target cell or counted in a [`Warning`]
//! that says where and why, and `gatecrew run` shows the warnings and writes them into
//! the trace's `episode_start`.

pub mod error;
mod index;
mod json;
mod left_out;
pub mod minecollab;
pub mod names;
pub mod raw;
pub mod score;
pub mod site;
pub mod task;
pub mod villager;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_world::GameData;
use serde_json::Value;

pub use error::{TaskError, TaskErrorKind};
pub use index::{DEFAULT_MAX_TASK_FILE_BYTES, MAX_TASK_FILE_BYTES_VAR, max_task_file_bytes};
pub use names::Aliases;
pub use score::{Accuracy, Recall, TaskScorer, mindcraft_accuracy, villager_recall};
pub use site::{TaskOptions, setup};
pub use task::{Format, ImportedTask, TaskCell, Warning};

use index::{Source, Top};

/// A task file, indexed: every task's id, format and size, none of them kept.
#[derive(Debug, Clone)]
pub struct TaskFile {
    path: PathBuf,
    source: Source,
    format: Format,
    /// The whole document, when it is one raw blueprint (kept from the index's pass,
    /// so the file is read once).
    bare: Option<Arc<Value>>,
    entries: Vec<Entry>,
}

/// What the index knows of one task.
#[derive(Debug, Clone)]
struct Entry {
    id: String,
    json_path: String,
    ordinal: usize,
    format: Option<Format>,
    summary: TaskSummary,
}

/// One line of a file's listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSummary {
    /// The id to pass as `--task-id`.
    pub id: String,
    /// What it is, in a few words.
    pub about: String,
    /// Blocks the task describes (air not counted), when it could be read.
    pub blocks: Option<usize>,
    /// Bots in the crew, when the file says.
    pub bots: Option<usize>,
    /// Human participants.
    pub humans: usize,
    /// Why the task cannot run, when the index already knows (the rest of the file
    /// stays runnable).
    pub problem: Option<String>,
    /// Cells left out because they can never be built, once the task was imported
    /// ([`TaskFile::survey`]); `None` from the index alone.
    pub cells_dropped: Option<usize>,
}

/// The JSON path of the task keyed `id` in a file's top object (`$.id`, `$["0"]`).
pub fn task_json_path(id: &str) -> String {
    json::key("$", id)
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

const UNRECOGNISED: &str = "neither a MineCollab task (blueprint.levels), VillagerBench lines (a list of \"material: ...\") \
                            nor a raw blueprint (blocks)";

/// A listing line for an entry, from its value alone (no names resolved).
fn summarise(id: &str, format: Option<Format>, v: &Value) -> TaskSummary {
    let mut s = TaskSummary {
        id: id.to_owned(),
        about: String::new(),
        blocks: None,
        bots: None,
        humans: 0,
        problem: None,
        cells_dropped: None,
    };
    match format {
        None => s.problem = Some(UNRECOGNISED.to_owned()),
        Some(Format::MineCollab) => {
            let kind = v.get("type").and_then(Value::as_str).unwrap_or("construction");
            let levels = v.pointer("/blueprint/levels").and_then(Value::as_array);
            s.about = format!("MineCollab {kind} task, {} levels", levels.map_or(0, Vec::len));
            s.blocks = levels.map(|ls| {
                ls.iter()
                    .filter_map(|l| l.get("placement").and_then(Value::as_array))
                    .flatten()
                    .filter_map(Value::as_array)
                    .flatten()
                    .filter(|c| c.as_str().is_some_and(|c| c.trim() != "air" && c.trim() != "minecraft:air"))
                    .count()
            });
            s.bots = v.get("agent_count").and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
            s.humans = v.get("human_count").and_then(Value::as_u64).map_or(0, |n| n.min(u64::from(u16::MAX)) as usize);
            if kind != "construction" {
                s.problem = Some(format!("a \"{kind}\" task; only construction tasks run"));
            }
        }
        Some(Format::VillagerLines) => {
            s.about = format!("VillagerBench description, {} lines", v.as_array().map_or(0, Vec::len));
            match villager::count_cells(v) {
                Ok(n) => s.blocks = Some(n),
                Err(e) => s.problem = Some(e),
            }
        }
        Some(Format::VillagerRaw) => {
            let n = v.get("blocks").and_then(Value::as_array).map_or(0, Vec::len);
            s.about = "VillagerBench raw blueprint".to_owned();
            s.blocks = Some(n);
        }
    }
    s
}

impl TaskFile {
    /// Reads and indexes a file, one task at a time: memory is bounded by the largest
    /// task, not the file, for a regular file; a pipe or FIFO, which can be read only
    /// once, is held whole (within [`max_task_file_bytes`]).
    pub fn read(path: &Path) -> Result<TaskFile, TaskError> {
        Self::index(Source::open(path)?, path, &mut |_, _| {})
    }

    /// Indexes a file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<TaskFile, TaskError> {
        Self::index(Source::Text(Arc::from(text)), path, &mut |_, _| {})
    }

    /// Reads a file and imports every task in the same single pass (time linear in
    /// the file, memory bounded by the largest task; a pipe can be read), handing each
    /// task's listing line and import to `f` in file order. An entry whose id an earlier
    /// entry has is not imported (`import` runs the first; the listing names both).
    pub fn read_each(
        path: &Path,
        data: &GameData,
        aliases: &Aliases,
        f: &mut dyn FnMut(&TaskSummary, Result<ImportedTask, TaskError>),
    ) -> Result<TaskFile, TaskError> {
        // Entries of no known format are reported once the file is known not to be one
        // bare raw blueprint, whose top-level keys are not tasks.
        let mut unknown: Vec<Entry> = Vec::new();
        let file = Self::index(Source::open(path)?, path, &mut |entry, value| match entry.format {
            Some(format) => f(&entry.summary, import_entry(path, entry, format, value, data, aliases)),
            None => unknown.push(entry.clone()),
        })?;
        if file.bare.is_some() {
            file.import_each(data, aliases, f)?;
        } else {
            for e in unknown {
                f(&e.summary, Err(TaskError::at(path, e.json_path.clone(), UNRECOGNISED)));
            }
        }
        Ok(file)
    }

    fn index(source: Source, path: &Path, on_entry: &mut dyn FnMut(&Entry, &Value)) -> Result<TaskFile, TaskError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut first_at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        // A bare raw blueprint is one object whose `blocks` is a list of blocks.
        let mut bare_blocks = false;
        let mut name: Option<String> = None;
        // The top object's members of no task format, kept in case the whole document
        // is one raw blueprint (tasks themselves are dropped as they pass).
        let mut members = serde_json::Map::new();
        let mut all_members = true;
        let top = index::walk(&source, path, &mut |key, i, v| {
            if key.as_deref() == Some("blocks") && v.as_array().is_some_and(|a| a.iter().all(Value::is_object)) {
                bare_blocks = true;
            }
            if key.as_deref() == Some("name") {
                name = v.as_str().map(str::to_owned);
            }
            let (id, json_path) = match &key {
                Some(k) => (k.clone(), json::key("$", k)),
                // VillagerBench keeps its raw blueprints in a list, each with a `name`.
                None => (
                    v.get("name").and_then(Value::as_str).map_or_else(|| i.to_string(), str::to_owned),
                    json::index("$", i),
                ),
            };
            let format = classify(&v);
            let mut summary = summarise(&id, format, &v);
            let first = *first_at.entry(id.clone()).or_insert(entries.len());
            let again = first != entries.len();
            if again {
                let at = &entries[first].json_path;
                summary.problem = Some(format!("the id \"{id}\" is also given at {at}; that one runs"));
            }
            entries.push(Entry { id, json_path, ordinal: i, format, summary });
            if !again {
                on_entry(&entries[entries.len() - 1], &v);
            }
            match (key, format) {
                (Some(k), None) if all_members => {
                    members.insert(k, v);
                }
                (Some(_), None) => {}
                _ => {
                    all_members = false;
                    members.clear();
                }
            }
        })?;
        if top == Top::Object && bare_blocks {
            // A member that looked like a task was not kept: only then is the file read again.
            let v = if all_members { Value::Object(members) } else { index::whole(&source, path)? };
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("task");
            let id = name.unwrap_or_else(|| stem.to_owned());
            let summary = summarise(&id, Some(Format::VillagerRaw), &v);
            let entry = Entry { id, json_path: "$".to_owned(), ordinal: 0, format: Some(Format::VillagerRaw), summary };
            return Ok(TaskFile {
                path: path.to_path_buf(),
                source,
                format: Format::VillagerRaw,
                bare: Some(Arc::new(v)),
                entries: vec![entry],
            });
        }
        let Some(first) = entries.first() else {
            return Err(TaskError::new(path, TaskErrorKind::Unrecognised("the file holds no task".into())));
        };
        let Some(format) = entries.iter().find_map(|e| e.format) else {
            return Err(TaskError::at(path, first.json_path.clone(), UNRECOGNISED));
        };
        Ok(TaskFile { path: path.to_path_buf(), source, format, bare: None, entries })
    }

    /// The format of the file's first readable task.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The task ids, in file order.
    pub fn ids(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.id.as_str()).collect()
    }

    /// One line per task.
    pub fn listing(&self) -> Vec<TaskSummary> {
        self.entries.iter().map(|e| e.summary.clone()).collect()
    }

    /// Resolves one task: the one named, or the only one. A file with several tasks
    /// and no id is [`TaskErrorKind::Several`]. Only that task is parsed: another
    /// task's faults do not matter.
    pub fn import(&self, id: Option<&str>, data: &GameData, aliases: &Aliases) -> Result<ImportedTask, TaskError> {
        let entry = match id {
            Some(want) => self.entries.iter().find(|e| e.id == want).ok_or_else(|| {
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
        let Some(format) = entry.format else {
            return Err(TaskError::at(&self.path, entry.json_path.clone(), UNRECOGNISED));
        };
        let value = if let Some(v) = &self.bare {
            Value::clone(v)
        } else {
            let mut found = None;
            index::walk(&self.source, &self.path, &mut |_, i, v| {
                if i == entry.ordinal {
                    found = Some(v);
                }
            })?;
            found.ok_or_else(|| {
                TaskError::at(&self.path, entry.json_path.clone(), "the file changed while it was read")
            })?
        };
        import_entry(&self.path, entry, format, &value, data, aliases)
    }

    /// Imports every task of the file in one pass over it (time linear in the file,
    /// memory bounded by the largest task), handing each entry and its import to `f` in
    /// file order. An entry whose id an earlier entry has is skipped (`import` runs the
    /// first; the listing names both).
    pub fn import_each(
        &self,
        data: &GameData,
        aliases: &Aliases,
        f: &mut dyn FnMut(&TaskSummary, Result<ImportedTask, TaskError>),
    ) -> Result<(), TaskError> {
        let mut one = |entry: &Entry, value: &Value| {
            let result = match entry.format {
                Some(format) => import_entry(&self.path, entry, format, value, data, aliases),
                None => Err(TaskError::at(&self.path, entry.json_path.clone(), UNRECOGNISED)),
            };
            f(&entry.summary, result);
        };
        if let Some(value) = &self.bare {
            one(&self.entries[0], value);
            return Ok(());
        }
        let mut seen = std::collections::BTreeSet::new();
        index::walk(&self.source, &self.path, &mut |_, i, v| {
            let Some(entry) = self.entries.get(i) else { return };
            if seen.insert(entry.id.as_str()) {
                one(entry, &v);
            }
        })?;
        Ok(())
    }

    /// The listing with what only an import tells: a task that cannot run says why
    /// (its first line), and one that runs with cells left out says how many
    /// ([`TaskSummary::cells_dropped`]). One pass over the file.
    pub fn survey(&self, data: &GameData, aliases: &Aliases) -> Result<Vec<TaskSummary>, TaskError> {
        let mut imported: std::collections::BTreeMap<String, Result<usize, String>> = Default::default();
        self.import_each(data, aliases, &mut |s, r| {
            let r = r.map(|t| t.cells_dropped()).map_err(|e| {
                let text = e.to_string();
                let shown = self.path.display().to_string();
                let text = text.strip_prefix(shown.as_str()).map_or(text.as_str(), |t| t.trim_start_matches(": "));
                text.lines().next().unwrap_or_default().trim_end_matches(':').to_owned()
            });
            imported.insert(s.id.clone(), r);
        })?;
        let mut out = self.listing();
        for s in out.iter_mut().filter(|s| s.problem.is_none()) {
            match imported.get(&s.id) {
                Some(Ok(n)) => s.cells_dropped = Some(*n),
                Some(Err(e)) => s.problem = Some(e.clone()),
                None => {}
            }
        }
        Ok(out)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Imports one entry's value: names resolved, cells that can never be built left out.
fn import_entry(
    file: &Path,
    entry: &Entry,
    format: Format,
    value: &Value,
    data: &GameData,
    aliases: &Aliases,
) -> Result<ImportedTask, TaskError> {
    let mut names = names::Resolver::new(data, aliases);
    let task = match format {
        Format::MineCollab => minecollab::import(file, &entry.id, value, &mut names),
        Format::VillagerLines => villager::import_lines(file, &entry.id, value, &mut names),
        Format::VillagerRaw => raw::import(file, &entry.id, &entry.json_path, value, &mut names),
    };
    // Unknown names come first: they are all listed at once.
    names.finish(file)?;
    let task = left_out::leave_out_unplaceable(task?, data, &entry.json_path);
    let task = left_out::leave_out_unbuildable(task, data, &entry.json_path, file)?;
    tracing::debug!(file = %file.display(), id = %task.id, cells = task.cells.len(), dropped = task.dropped(), left_out = task.cells_dropped(), "task imported");
    Ok(task)
}
