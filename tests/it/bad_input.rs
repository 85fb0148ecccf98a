//! The bad-input corpus, `tests/bad_input/`, with what each file must produce in its
//! `EXPECT.toml`. For every file: the library parser returns a typed error that says
//! what is wrong (and names the line, where the format has lines) and never panics;
//! the command line (`run`, `analyze`, `check`) exits non-zero with stderr naming the
//! file and the line.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use gatecrew_crew::{Overrides, Policy, Setup, SetupError};
use gatecrew_gating::llm::{LlmSpec, parse_verdict};
use gatecrew_protocol::WireMessage;
use gatecrew_protocol::trace::TraceReader;
use gatecrew_tasks::{Aliases, TaskErrorKind, TaskFile, TaskOptions};
use gatecrew_world::Blueprint;

use crate::cli::gatecrew;
use crate::common::{data, root};

/// One entry of `EXPECT.toml` (its header says what each field means).
#[derive(Debug)]
struct Case {
    file: String,
    parser: String,
    line: Option<u64>,
    at: Option<String>,
    error: String,
    analyze_exit: u8,
    absent: bool,
}

impl Case {
    fn path(&self) -> PathBuf {
        corpus().join(&self.file)
    }
}

/// A library error, as text, with the line its type names (if it names one).
struct LibError {
    text: String,
    line: Option<u64>,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bad_input")
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(corpus().join("EXPECT.toml")).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    let str_of = |t: &toml::Table, k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    doc["case"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let t = v.as_table().unwrap();
            Case {
                file: str_of(t, "file").unwrap(),
                parser: str_of(t, "parser").unwrap(),
                line: t.get("line").and_then(|v| v.as_integer()).map(|l| l as u64),
                at: str_of(t, "at"),
                error: str_of(t, "error").unwrap(),
                analyze_exit: t.get("analyze_exit").and_then(|v| v.as_integer()).map_or(2, |c| c as u8),
                absent: t.get("absent").and_then(|v| v.as_bool()).unwrap_or(false),
            }
        })
        .collect()
}

/// The parser's error on the file; `Err` says why there is none.
fn library(case: &Case) -> Result<LibError, String> {
    let path = case.path();
    match case.parser.as_str() {
        "config" => match Setup::load(&path, &Overrides::default()) {
            Ok(_) => Err("the config loaded".into()),
            Err(SetupError::Load(e)) => Ok(LibError { text: e.to_string(), line: e.line_number().map(|l| l as u64) }),
        },
        "blueprint" => match Blueprint::load(&path, &data()) {
            Ok(_) => Err("the blueprint loaded".into()),
            Err(e) => Ok(LibError { text: e.to_string(), line: e.line_number().map(|l| l as u64) }),
        },
        "task" => {
            let aliases = Aliases::load(&root().join("configs/aliases.toml"), &data()).unwrap();
            let opts = TaskOptions { data: data(), seed: 7, policy: Policy::Gated, agents: None };
            let result = TaskFile::read(&path)
                .and_then(|f| f.import(None, &data(), &aliases))
                .and_then(|t| gatecrew_tasks::setup(&t, &path, &opts));
            match result {
                Ok(_) => Err("the task set up".into()),
                Err(e) => {
                    let line = match e.kind() {
                        TaskErrorKind::Syntax { line, .. } => Some(*line as u64),
                        _ => None,
                    };
                    Ok(LibError { text: e.to_string(), line })
                }
            }
        }
        "trace" => {
            let file = std::fs::File::open(&path).unwrap();
            match TraceReader::new(std::io::BufReader::new(file)).find_map(Result::err) {
                None => Err("every line read".into()),
                Some(e) => Ok(LibError { text: e.to_string(), line: Some(e.line()) }),
            }
        }
        "message" => {
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let err = match serde_json::from_str::<WireMessage>(line) {
                    Err(e) => e.to_string(),
                    Ok(w) => match w.parse(data().items()) {
                        Err(e) => e.to_string(),
                        Ok(_) => continue,
                    },
                };
                return Ok(LibError { text: err, line: Some(i as u64 + 1) });
            }
            Err("every message parsed".into())
        }
        "reply" => {
            let text = std::fs::read_to_string(&path).unwrap();
            match parse_verdict(&text, LlmSpec::default().confidence_floor) {
                Ok(v) => Err(format!("the reply parsed: {v:?}")),
                // A reply is one document: the type names the reason, not a line.
                Err((reason, _)) => Ok(LibError { text: reason.tag(), line: None }),
            }
        }
        other => panic!("EXPECT.toml: unknown parser {other}"),
    }
}

/// Checks the library parser on one case; `Err` describes the failure.
fn check_library(case: &Case) -> Result<(), String> {
    let got = catch_unwind(AssertUnwindSafe(|| library(case))).map_err(|_| "the parser panicked".to_owned())??;
    if !got.text.contains(&case.error) {
        return Err(format!("error {:?} lacks {:?}", got.text, case.error));
    }
    if case.parser != "reply" {
        if let Some(want) = case.line {
            if got.line != Some(want) {
                return Err(format!("error names line {:?}, expected {want}: {}", got.line, got.text));
            }
            // Messages are parsed a line at a time: the line is where parsing stopped.
            let shown = [format!(":{want}:"), format!("line {want}")];
            if case.parser != "message" && !shown.iter().any(|s| got.text.contains(s)) {
                return Err(format!("error text does not show line {want}: {}", got.text));
            }
        }
    }
    if let Some(at) = &case.at {
        if !got.text.contains(at.as_str()) {
            return Err(format!("error {:?} does not name {at}", got.text));
        }
    }
    // File loaders name the file; the trace reader, message and reply parsers read text
    // and leave the file to their caller.
    let names_file = matches!(case.parser.as_str(), "config" | "blueprint" | "task");
    if names_file && !got.text.contains(&case.path().display().to_string()) {
        return Err(format!("error {:?} does not name the file", got.text));
    }
    Ok(())
}

/// The command lines that read the case's file, with the exit code each must give.
fn commands(case: &Case, trace: &Path) -> Vec<(Vec<String>, u8)> {
    let p = case.path().display().to_string();
    let t = trace.display().to_string();
    let run = |flag: &str| {
        let args = ["run", flag, &p, "--trace", &t, "--quiet", "--stepper"];
        (args.iter().map(|s| s.to_string()).collect::<Vec<_>>(), 2)
    };
    let check = (vec!["check".to_owned(), "--kind".to_owned(), case.parser.clone(), p.clone()], 2);
    match case.parser.as_str() {
        "config" => vec![run("--config"), check],
        "blueprint" => vec![run("--blueprint"), check],
        "task" => vec![run("--task"), check],
        "trace" => vec![(vec!["analyze".to_owned(), p.clone()], case.analyze_exit), check],
        _ => vec![check],
    }
}

/// Checks every command line on one case; `Err` describes the failures.
fn check_cli(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let path = case.path().display().to_string();
    let mut failures = Vec::new();
    for (args, want) in commands(case, &trace) {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let Ok((code, _out, err)) = catch_unwind(|| gatecrew(&argv)) else {
            failures.push(format!("`gatecrew {}` panicked", args.join(" ")));
            continue;
        };
        let cmd = format!("`gatecrew {}`", args[..2].join(" "));
        if code != want {
            failures.push(format!("{cmd} exited {code}, expected {want}: {err}"));
        }
        // The reply's tag is what both say; the other kinds share the message.
        if !err.contains(&case.error) {
            failures.push(format!("{cmd}: stderr lacks {:?}: {err}", case.error));
        }
        let place = match case.line {
            Some(l) => format!("{path}:{l}:"),
            None => path.clone(),
        };
        if !err.contains(&place) {
            failures.push(format!("{cmd}: stderr does not name {place}: {err}"));
        }
        if let Some(at) = &case.at {
            if !err.contains(at.as_str()) {
                failures.push(format!("{cmd}: stderr does not name {at}: {err}"));
            }
        }
        if want == 0 && !err.contains("warning:") {
            failures.push(format!("{cmd}: no warning: {err}"));
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n  ")) }
}

/// Runs every case of one parser through the library and the command line.
fn corpus_of(parser: &str) {
    let cases: Vec<Case> = cases().into_iter().filter(|c| c.parser == parser).collect();
    assert!(cases.len() >= 6, "only {} {parser} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        assert_eq!(case.path().exists(), !case.absent, "{}: absent = {}", case.file, case.absent);
        for result in [check_library(case), check_cli(case)] {
            if let Err(why) = result {
                failures.push(format!("{}: {why}", case.file));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_corpus_file_has_one_expectation() {
    let cases = cases();
    let mut listed: Vec<&str> = cases.iter().filter(|c| !c.absent).map(|c| c.file.as_str()).collect();
    listed.sort_unstable();
    let before = listed.len();
    listed.dedup();
    assert_eq!(before, listed.len(), "a file is listed twice in EXPECT.toml");
    let mut found = Vec::new();
    for kind in std::fs::read_dir(corpus()).unwrap() {
        let kind = kind.unwrap().path();
        if kind.is_dir() {
            for f in std::fs::read_dir(&kind).unwrap() {
                let f = f.unwrap().path();
                found.push(f.strip_prefix(corpus()).unwrap().to_str().unwrap().replace('\\', "/"));
            }
        }
    }
    found.sort_unstable();
    assert_eq!(listed, found, "EXPECT.toml and the corpus folders disagree");
}

#[test]
fn bad_configs() {
    corpus_of("config");
}

#[test]
fn bad_blueprints() {
    corpus_of("blueprint");
}

#[test]
fn bad_task_files() {
    corpus_of("task");
}

#[test]
fn bad_traces() {
    corpus_of("trace");
}

#[test]
fn bad_board_messages() {
    corpus_of("message");
}

#[test]
fn bad_llm_replies() {
    corpus_of("reply");
}

/// `check` is no blanket "bad": good files of each kind pass, with the kind guessed from
/// the extension where it can be.
#[test]
fn check_passes_good_files_of_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    let messages = crate::common::write(
        dir.path(),
        "board.jsonl",
        "{\"msg\":\"REQUEST_MATERIAL\",\"from\":2,\"to\":\"all\",\"item\":\"glass\",\"count\":2}\n\n\
         {\"msg\":\"CANNOT_SUPPLY\",\"window\":0,\"from\":1,\"to\":2,\"item\":\"glass\",\"reason\":\"busy\"}\n",
    );
    let reply = crate::common::write(dir.path(), "reply.txt", "{\"decision\": \"escalate\", \"confidence\": 0.8}");
    let trace = dir.path().join("t.jsonl");
    let config = root().join("configs/crew.toml");
    let (code, _, err) =
        gatecrew(&["run", "--config", config.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let files = [
        root().join("configs/crew.toml"),
        root().join("configs/blueprints/house.toml"),
        root().join("tests/fixtures/external/minecollab/pyramid.json"),
        trace,
    ];
    let mut argv = vec!["check".to_owned()];
    argv.extend(files.iter().map(|f| f.display().to_string()));
    let (code, out, err) = gatecrew(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    for f in &files {
        assert!(out.contains(&format!("{}: ok", f.display())), "{out}");
    }
    for (kind, f) in [("message", &messages), ("reply", &reply)] {
        let (code, out, err) = gatecrew(&["check", "--kind", kind, f.to_str().unwrap()]);
        assert_eq!((code, out.trim()), (0, format!("{}: ok", f.display()).as_str()), "{err}");
    }
    // Without --kind, a file the extension says nothing about is refused, not guessed.
    let (code, _, err) = gatecrew(&["check", reply.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("pass --kind"), "{err}");
}
