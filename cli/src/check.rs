//! `gatecrew check`: reads input files the way the other commands read them, runs
//! nothing, and names the file and line of every defect.
//!
//! Crew configs, blueprints and task files go through the loaders `gatecrew run` uses;
//! traces through the reader `gatecrew analyze` uses; board messages (one wire message
//! per line) through the protocol's `WireMessage` parser; adjudicator replies (one
//! reply per file, as the model wrote it) through `parse_verdict`. Good files print
//! `FILE: ok` on stdout, defects `FILE:LINE: error: ...` on stderr; any defect makes
//! the exit code 2. Kitchen traces (`gatecrew cos --trace`, recognised by their first
//! line) go through the kitchen's reader and fold ([`kitchen`]). Unlike `analyze`, which skips a trace's truncated last line with a
//! warning, `check` counts it as a defect: the question here is whether the file is
//! whole. An empty trace and an episode without its `episode_end` are defects too
//! (`analyze` leaves both out of its figures).

use std::cell::OnceCell;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_gating::llm::{FallbackReason, LlmSpec, parse_verdict};
use gatecrew_protocol::WireMessage;
use gatecrew_protocol::text::escape;
use gatecrew_protocol::trace::{EventKind, TraceReader};
use gatecrew_tasks::{Aliases, TaskError, TaskErrorKind, TaskFile, TaskOptions};
use gatecrew_world::{Blueprint, GameData, LoadError};

use crate::BadInput;
use crate::paths;

mod kitchen;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// A crew config (TOML), as `gatecrew run --config` reads it.
    Config,
    /// A blueprint (TOML), as `gatecrew run --blueprint` reads it.
    Blueprint,
    /// A MineCollab or VillagerBench task file (JSON), every task in it.
    Task,
    /// A JSON Lines trace.
    Trace,
    /// Board messages in their wire form, one JSON object per line.
    Message,
    /// One adjudicator reply, as the model wrote it.
    Reply,
}

/// Arguments of `gatecrew check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// What the files hold [default: from the extension: .jsonl trace, .json task, .toml
    /// blueprint when it has [[fill]] or [[block]] tables, else config]
    #[arg(long, value_enum)]
    kind: Option<Kind>,
    /// The files to check
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print one JSON object with every file's errors, warnings and note instead of the
    /// lines (docs/faults.md, "check --json"); the exit code is the same
    #[arg(long)]
    json: bool,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Config => "config",
            Kind::Blueprint => "blueprint",
            Kind::Task => "task",
            Kind::Trace => "trace",
            Kind::Message => "message",
            Kind::Reply => "reply",
        }
    }
}

/// What a file's reading said besides its defects: `warning:` lines (a task file read
/// whole but not exactly as written) and one `note:` (its cell accounts).
#[derive(Debug, Default)]
struct Said {
    warnings: Vec<String>,
    warnings_total: usize,
    note: Option<String>,
}

/// The errors a file's `--json` entry lists at most, with their total beside them.
const MAX_JSON_ERRORS: usize = 1000;

/// Defects shown per file: a whole trace of another version has one on every line.
const MAX_SHOWN: usize = 10;

/// One defect: where it is and what it is.
#[derive(Debug)]
struct Defect {
    file: PathBuf,
    line: Option<u64>,
    message: String,
}

impl Defect {
    /// A defect from an error whose text starts with `file[:line[:column]]: `, as every
    /// loader's error does; the location is taken apart so that it is printed once.
    fn located(file: &Path, line: Option<u64>, text: &str) -> Defect {
        let shown = file.display().to_string();
        let mut rest = text.strip_prefix(shown.as_str()).unwrap_or(text);
        if let Some(l) = line {
            rest = rest.strip_prefix(format!(":{l}").as_str()).unwrap_or(rest);
            // A column after the line (JSON syntax errors) says nothing the message does not.
            if let Some(after) = rest.strip_prefix(':') {
                let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                if digits > 0 {
                    rest = &after[digits..];
                }
            }
        }
        let message = rest.strip_prefix(": ").unwrap_or(rest).to_owned();
        Defect { file: file.to_path_buf(), line, message }
    }

    fn from_load(e: &LoadError) -> Defect {
        Defect::located(e.file(), e.line_number().map(|l| l as u64), &e.to_string())
    }

    fn from_task(e: &TaskError) -> Defect {
        let line = match e.kind() {
            TaskErrorKind::Syntax { line, .. } => Some(*line as u64),
            _ => None,
        };
        Defect::located(e.file(), line, &e.to_string())
    }

    /// A defect of one task of a file: the message names the task, unless it starts
    /// with the task's own JSON path already.
    fn of_task(id: &str, e: &TaskError) -> Defect {
        let mut d = Defect::from_task(e);
        let path = gatecrew_tasks::task_json_path(id);
        let named = d.message.starts_with(&path)
            && d.message[path.len()..].chars().next().is_none_or(|c| matches!(c, ':' | '.' | '['));
        if !named {
            d.message = format!("task \"{id}\": {}", d.message);
        }
        d
    }

    fn at(file: &Path, line: usize, message: String) -> Defect {
        Defect { file: file.to_path_buf(), line: Some(line as u64), message }
    }

    fn unreadable(file: &Path, e: &dyn std::fmt::Display) -> Defect {
        Defect { file: file.to_path_buf(), line: None, message: format!("cannot read: {e}") }
    }
}

/// The game data, loaded on first use: traces and replies do not need it.
struct Data(OnceCell<Arc<GameData>>);

impl Data {
    fn get(&self) -> anyhow::Result<Arc<GameData>> {
        if let Some(d) = self.0.get() {
            return Ok(d.clone());
        }
        let path =
            paths::default_data().ok_or_else(|| BadInput("no configs/ folder here with the game data".into()))?;
        let data = Arc::new(GameData::load(&path).map_err(|e| BadInput(e.to_string()))?);
        Ok(self.0.get_or_init(|| data).clone())
    }
}

/// Runs `gatecrew check`.
pub fn run(args: CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let data = Data(OnceCell::new());
    let mut bad = 0;
    let mut entries = Vec::new();
    for file in &args.files {
        let kind = match args.kind {
            Some(k) => Some(k),
            None => guess(file)?,
        };
        let mut said = Said::default();
        // Every file is opened once and read once: a FIFO or `/dev/stdin` has no second
        // reading. A TOML file's kind is told from its text, a trace's from
        // its first line, as they are read.
        let (kind, defects) = match kind {
            None | Some(Kind::Config | Kind::Blueprint) => toml_file(file, kind, &data)?,
            Some(Kind::Task) => (kind, task(file, &data.get()?, &mut said)?),
            Some(Kind::Trace) => (kind, trace(file)),
            Some(Kind::Message) => (kind, messages(file, data.get()?.as_ref())),
            Some(Kind::Reply) => (kind, reply(file)),
        };
        if !defects.is_empty() {
            bad += 1;
        }
        if args.json {
            entries.push(json_entry(file, kind, &defects, &said));
            continue;
        }
        for w in &said.warnings {
            writeln!(err, "{}: warning: {w}", file.display())?;
        }
        if said.warnings_total > said.warnings.len() {
            writeln!(err, "{}: {} more warnings not shown", file.display(), said.warnings_total - said.warnings.len())?;
        }
        if let Some(n) = &said.note {
            writeln!(err, "{}: note: {n}", file.display())?;
        }
        if defects.is_empty() {
            writeln!(out, "{}: ok", file.display())?;
            continue;
        }
        let more = defects.len().saturating_sub(MAX_SHOWN);
        for d in defects.into_iter().take(MAX_SHOWN) {
            // A message quotes the file (an id, a name, a bad value): one line each.
            let message = escape(&d.message);
            match d.line {
                Some(l) => writeln!(err, "{}:{l}: error: {message}", d.file.display())?,
                None => writeln!(err, "{}: error: {message}", d.file.display())?,
            }
        }
        if more > 0 {
            writeln!(err, "{}: {more} more errors not shown", file.display())?;
        }
    }
    if args.json {
        let v = serde_json::json!({ "files": entries, "checked": args.files.len(), "with_errors": bad });
        writeln!(out, "{v}")?;
    }
    if bad > 0 {
        return Err(BadInput(format!("{bad} of {} files have errors", args.files.len())).into());
    }
    Ok(())
}

/// One file of `--json`: `{file, kind, ok, errors: [{file, line, message}], errors_total,
/// warnings, warnings_total, note}`; strings as they are (JSON escapes them).
fn json_entry(file: &Path, kind: Option<Kind>, defects: &[Defect], said: &Said) -> serde_json::Value {
    let errors: Vec<serde_json::Value> = defects
        .iter()
        .take(MAX_JSON_ERRORS)
        .map(|d| serde_json::json!({ "file": d.file.display().to_string(), "line": d.line, "message": d.message }))
        .collect();
    serde_json::json!({
        "file": file.display().to_string(),
        "kind": kind.map(Kind::name),
        "ok": defects.is_empty(),
        "errors": errors,
        "errors_total": defects.len(),
        "warnings": said.warnings,
        "warnings_total": said.warnings_total,
        "note": said.note,
    })
}

/// The kind of a file from its extension; `None` for TOML, told apart by its tables
/// once it is read ([`toml_file`]).
fn guess(file: &Path) -> anyhow::Result<Option<Kind>> {
    match file.extension().and_then(|e| e.to_str()) {
        Some("jsonl") => Ok(Some(Kind::Trace)),
        Some("json") => Ok(Some(Kind::Task)),
        Some("toml") => Ok(None),
        _ => Err(BadInput(format!("{}: cannot tell what the file holds; pass --kind", file.display())).into()),
    }
}

/// A crew config or a blueprint (`kind`, or `None` to tell from the text: a blueprint
/// has `[[fill]]` or `[[block]]` tables), read once through the larger of the two
/// size limits and held to its own.
fn toml_file(file: &Path, kind: Option<Kind>, data: &Data) -> anyhow::Result<(Option<Kind>, Vec<Defect>)> {
    use gatecrew_protocol::limits::{ReadFileError, max_file_bytes, read_text_file_capped};
    let config_max = max_file_bytes();
    let blueprint_max = gatecrew_world::limits::max_blueprint_bytes().unwrap_or(0);
    let text = match read_text_file_capped(file, config_max.max(blueprint_max)) {
        Ok(t) => t,
        Err(e) => return Ok((kind, vec![Defect::unreadable(file, &e)])),
    };
    let kind = kind.unwrap_or_else(|| if is_blueprint(&text) { Kind::Blueprint } else { Kind::Config });
    if kind == Kind::Blueprint {
        let defects = match Blueprint::parse(&text, file, data.get()?.as_ref()) {
            Ok(_) => Vec::new(),
            Err(e) => vec![Defect::from_load(&e)],
        };
        return Ok((Some(kind), defects));
    }
    if u64::try_from(text.len()).unwrap_or(u64::MAX) > config_max {
        return Ok((Some(kind), vec![Defect::unreadable(file, &ReadFileError::TooLarge { limit: config_max })]));
    }
    let defects = match Setup::parse(&text, file, &Overrides::default()) {
        Ok(_) => Vec::new(),
        Err(gatecrew_crew::SetupError::Load(e)) => vec![Defect::from_load(&e)],
    };
    Ok((Some(kind), defects))
}

/// Whether TOML text holds blueprint tables. A text that does not parse goes to the
/// config loader, which names the line.
fn is_blueprint(text: &str) -> bool {
    let limit = gatecrew_protocol::limits::MAX_TOML_KEYS;
    gatecrew_protocol::limits::count_keys(text, limit).is_ok()
        && text.parse::<toml::Table>().is_ok_and(|t| t.contains_key("fill") || t.contains_key("block"))
}

/// Every task of the file, imported and set up as `gatecrew run --task` would. The
/// cell accounts are the file's `note` (cells described, in the blueprints, reported),
/// and each warning one of its `warnings`, so that a file that reads whole but not
/// exactly as written says so even when it is `ok`.
fn task(file: &Path, data: &Arc<GameData>, said: &mut Said) -> anyhow::Result<Vec<Defect>> {
    let alias_file = paths::configs_file("aliases.toml");
    let aliases = match alias_file {
        Some(a) => Aliases::load(&a, data).map_err(|e| BadInput(e.to_string()))?,
        None => Aliases::none(),
    };
    let opts = TaskOptions {
        data: data.clone(),
        seed: gatecrew_crew::setup::EpisodeSpec::default().seed,
        policy: Policy::Gated,
        agents: None,
    };
    let (mut described, mut built, mut dropped, mut warnings) = (0usize, 0usize, 0usize, 0usize);
    let (mut count, mut partial, mut left_out) = (0usize, 0usize, 0usize);
    let mut defects = Vec::new();
    // One pass over the file: each task is imported and set up as it is read.
    let walked = TaskFile::read_each(file, data, &aliases, &mut |summary, imported| {
        count += 1;
        let t = match imported {
            Ok(t) => t,
            Err(e) => return defects.push(Defect::of_task(&summary.id, &e)),
        };
        described += t.described;
        built += t.cells.len();
        dropped += t.dropped();
        if t.cells_dropped() > 0 {
            partial += 1;
            left_out += t.cells_dropped();
        }
        for w in &t.warnings {
            warnings += 1;
            if warnings <= MAX_SHOWN {
                let named = w.path.starts_with(&gatecrew_tasks::task_json_path(&t.id));
                let who = if named { String::new() } else { format!("task \"{}\": ", t.id) };
                said.warnings.push(format!("{who}{w}"));
            }
        }
        if let Err(e) = gatecrew_tasks::setup(&t, file, &opts) {
            defects.push(Defect::of_task(&t.id, &e));
        }
    });
    said.warnings_total = warnings;
    if let Err(e) = walked {
        defects.push(Defect::from_task(&e));
        return Ok(defects);
    }
    said.note = Some(format!(
        "{count} tasks; {described} cells described, {built} in the blueprints, {dropped} reported in {warnings} warnings; {partial} tasks partial ({left_out} cells left out that can never be built)",
    ));
    Ok(defects)
}

fn trace(file: &Path) -> Vec<Defect> {
    let (is_kitchen, stream) = match File::open(file).and_then(gatecrew_analyze::kitchen::sniff) {
        Ok(x) => x,
        Err(e) => return vec![Defect::unreadable(file, &e)],
    };
    if is_kitchen {
        return kitchen::trace(file, stream);
    }
    let mut defects = Vec::new();
    // Episodes in order of their first line, and whether each reached its end.
    let mut episodes: Vec<(String, bool)> = Vec::new();
    let mut reader = TraceReader::new(BufReader::new(stream));
    for item in reader.by_ref() {
        match item {
            Ok(ev) => {
                let ended = matches!(ev.kind, EventKind::EpisodeEnd { .. });
                match episodes.iter_mut().find(|(ep, _)| *ep == ev.ep) {
                    Some(e) => e.1 |= ended,
                    None => episodes.push((ev.ep.clone(), ended)),
                }
            }
            Err(e) => {
                // The reader's message starts with "line N: "; the line goes in front of the file.
                let text = e.to_string();
                let message = text.strip_prefix(format!("line {}: ", e.line()).as_str()).unwrap_or(&text);
                defects.push(Defect {
                    file: file.to_path_buf(),
                    line: Some(e.line()),
                    message: without_json_position(message),
                });
            }
        }
    }
    // An empty trace and one cut short are not whole: `analyze` leaves both out.
    if episodes.is_empty() && defects.is_empty() {
        defects.push(Defect { file: file.to_path_buf(), line: None, message: "empty trace: no events".into() });
    }
    for (ep, _) in episodes.into_iter().filter(|e| !e.1) {
        defects.push(Defect {
            file: file.to_path_buf(),
            line: None,
            message: format!("episode {ep} has no episode_end (cut short)"),
        });
    }
    defects
}

/// One wire message per line; blank lines are skipped.
fn messages(file: &Path, data: &GameData) -> Vec<Defect> {
    let text = match gatecrew_protocol::limits::read_text_file(file) {
        Ok(t) => t,
        Err(e) => return vec![Defect::unreadable(file, &e)],
    };
    let mut defects = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line_no = i + 1;
        let wire: WireMessage = match serde_json::from_str(line) {
            Ok(w) => w,
            Err(e) => {
                defects.push(Defect::at(file, line_no, format!("not a board message: {}", json_message(&e))));
                continue;
            }
        };
        if let Err(e) = wire.parse(data.items()) {
            defects.push(Defect::at(file, line_no, e.to_string()));
        }
    }
    defects
}

/// The adjudicator's reply, checked against the default confidence floor.
fn reply(file: &Path) -> Vec<Defect> {
    let text = match gatecrew_protocol::limits::read_text_file(file) {
        Ok(t) => t,
        Err(e) => return vec![Defect::unreadable(file, &e)],
    };
    let floor = LlmSpec::default().confidence_floor;
    let Err((reason, confidence)) = parse_verdict(&text, floor) else {
        return Vec::new();
    };
    let (line, detail) = match serde_json::from_str::<serde_json::Value>(&text) {
        Err(_) if text.trim().is_empty() => (1, "the reply is empty".to_owned()),
        Err(e) => (e.line().max(1), json_message(&e)),
        Ok(v) => {
            // The JSON parsed: point at the field at fault.
            let field = if reason == FallbackReason::UnknownDecision { "\"decision\"" } else { "\"confidence\"" };
            let line = text.lines().position(|l| l.contains(field)).map_or(1, |i| i + 1);
            let detail = match (reason, confidence) {
                (FallbackReason::UnknownDecision, _) => {
                    format!("decision {} is neither \"stay_local\" nor \"escalate\"", v["decision"])
                }
                (FallbackReason::ConfidenceOutOfRange, Some(c)) => format!("confidence {c} is not in [0, 1]"),
                (FallbackReason::BelowFloor, Some(c)) => format!("confidence {c} is below the floor {floor}"),
                _ => "expected {\"decision\": \"stay_local\" | \"escalate\", \"confidence\": 0..1}".to_owned(),
            };
            (line, detail)
        }
    };
    vec![Defect::at(file, line, format!("reply refused ({reason}): {detail}"))]
}

/// A serde_json message without its " at line L column C" tail: the line is printed
/// in front, and on a one-line message the column is all the tail adds.
fn json_message(e: &serde_json::Error) -> String {
    without_json_position(&e.to_string())
}

/// `... at line 1 column 8` as `... (column 8)`: serde_json counts lines within the one
/// line it was given, which would contradict the file's line printed in front.
fn without_json_position(text: &str) -> String {
    let Some((head, tail)) = text.rsplit_once(" at line ") else {
        return text.to_owned();
    };
    match tail.split_once(" column ") {
        Some((line, column)) if line.parse::<u64>().is_ok() && column.parse::<u64>().is_ok() => {
            format!("{head} (column {column})")
        }
        _ => text.to_owned(),
    }
}
