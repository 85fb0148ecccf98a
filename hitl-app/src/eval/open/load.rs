//! Reading the open format: one labelled line per JSON object, its plan reference
//! resolved against the file's folder; unknown keys are errors naming file and line.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use gatecrew_hitl::intent::IntentType;

/// The plan a line is said over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum PlanRef {
    /// A built-in plan.
    Builtin(String),
    /// A goal planned by the recipe planner with nothing known of the world.
    Goal(String),
    /// A blueprint file (or a crew config, whose blueprint is used).
    Blueprint(PathBuf),
    /// Another system's task file, and the task in it.
    Task(PathBuf, Option<String>),
}

impl PlanRef {
    /// A short name for tables.
    pub fn key(&self) -> String {
        match self {
            PlanRef::Builtin(n) => n.clone(),
            PlanRef::Goal(g) => format!("goal: {g}"),
            PlanRef::Blueprint(p) => {
                p.file_name().map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into())
            }
            PlanRef::Task(p, id) => {
                let f = p.file_name().map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into_owned());
                id.as_ref().map_or(f.clone(), |i| format!("{f}#{i}"))
            }
        }
    }
}

/// One labelled line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Labelled {
    /// 1-based line in its file.
    pub line: usize,
    /// The line's `id`, if any.
    pub id: Option<String>,
    /// The plan the line is said over.
    pub plan: PlanRef,
    /// The chat line.
    pub text: String,
    /// The expected type.
    pub kind: IntentType,
    /// The node or part meant.
    pub node: Option<String>,
    /// The goal of an add or new task.
    pub goal: Option<String>,
    /// An add's parent.
    pub parent: Option<String>,
    /// An answer's options.
    pub options: Vec<String>,
    /// The line's language (ISO 639-1: `en`, `es`, `zh`, ...), if tagged.
    pub lang: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    #[serde(alias = "say", alias = "utterance", alias = "line")]
    text: String,
    #[serde(rename = "type", alias = "intent", alias = "label")]
    kind: IntentType,
    plan: Value,
    #[serde(default, alias = "part")]
    node: Option<String>,
    #[serde(default)]
    goal: Option<String>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    options: Vec<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

/// Built-in plan names.
pub const BUILTIN: [&str; 4] = ["pickaxe", "battle", "master", "house"];

fn plan_ref(v: &Value, dir: &Path) -> Result<PlanRef, String> {
    let file = |s: &str| dir.join(s);
    let looks_like_file = |s: &str| {
        let l = s.to_ascii_lowercase();
        [".toml", ".json", ".jsonl", ".yaml", ".yml", ".nbt", ".schem", ".txt"].iter().any(|e| l.ends_with(e))
    };
    match v {
        Value::String(s) if BUILTIN.contains(&s.as_str()) => Ok(PlanRef::Builtin(s.clone())),
        Value::String(s) if looks_like_file(s) && s.ends_with(".toml") => Ok(PlanRef::Blueprint(file(s))),
        Value::String(s) if looks_like_file(s) => Ok(PlanRef::Task(file(s), None)),
        Value::String(s) if !s.trim().is_empty() => Ok(PlanRef::Goal(s.clone())),
        Value::Object(m) => {
            const KEYS: [&str; 5] = ["builtin", "goal", "blueprint", "task", "id"];
            if let Some(k) = m.keys().find(|k| !KEYS.contains(&k.as_str())) {
                return Err(format!("key `plan.{k}`: unknown (expected one of builtin, goal, blueprint, task, id)"));
            }
            let get = |k: &str| -> Result<Option<String>, String> {
                match m.get(k) {
                    None => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s.clone())),
                    Some(_) => Err(format!("key `plan.{k}`: expected a string")),
                }
            };
            let (b, g, bp, t, id) = (get("builtin")?, get("goal")?, get("blueprint")?, get("task")?, get("id")?);
            match (b, g, bp, t) {
                (Some(b), None, None, None) => Ok(PlanRef::Builtin(b)),
                (None, Some(g), None, None) => Ok(PlanRef::Goal(g)),
                (None, None, Some(p), None) => Ok(PlanRef::Blueprint(file(&p))),
                (None, None, None, Some(p)) => Ok(PlanRef::Task(file(&p), id)),
                _ => Err("key `plan`: give exactly one of builtin, goal, blueprint, task".into()),
            }
        }
        _ => Err("key `plan`: expected a plan name, a goal, a file, or an object".into()),
    }
}

/// Reads a JSON Lines file of labelled lines; an error names the file, the line and
/// the key. Blank lines and lines starting with `#` or `//` are skipped.
pub fn load(path: &Path) -> Result<Vec<Labelled>, String> {
    let text =
        gatecrew_protocol::limits::read_text_file(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with("//") {
            continue;
        }
        let at = |e: String| format!("{}:{}: {e}", path.display(), i + 1);
        let raw: RawLine = serde_json::from_str(t).map_err(|e| at(e.to_string()))?;
        let plan = plan_ref(&raw.plan, dir).map_err(at)?;
        out.push(Labelled {
            line: i + 1,
            id: raw.id,
            plan,
            text: raw.text,
            kind: raw.kind,
            node: raw.node,
            goal: raw.goal,
            parent: raw.parent,
            options: raw.options,
            lang: raw.lang,
        });
    }
    Ok(out)
}
