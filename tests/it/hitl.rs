//! A human partner in the loop: scripted sessions over the hitl world drive
//! every intervention type and check the plan updates and the bot's behaviour; task
//! memory across restarts and a corrupted file; the plan operations and repair rules;
//! the live session over a websocket; the intent benchmark's sets and the open
//! evaluation format; the model classifier against the real llama.cpp server; a house
//! built as named parts (leaving out the glass, the top layer first, a stop
//! in any phrasing, a stop that cuts a walk, a question that changes nothing, a house that obtains
//! the glass it lacks); counts typed out of bounds; game chat as players type
//! it, stops in eight languages, questions before acting on an unsure or plan-dropping
//! reading, preferences that steer the planner, named places to go to, a stop that
//! lets a placement finish as on a server, every failure with its reason.

mod chat;
mod counts;
mod eval;
mod halt;
mod house;
mod live;
mod llm;
mod memory;
mod notes;
mod plan;
mod robust;
mod scripted;
mod transcript;
mod why;

use std::path::{Path, PathBuf};

use gatecrew_protocol::trace::{Event, EventKind, TraceReader};

use crate::common::{root, write};

/// The hitl world's crew config.
pub fn partner_config() -> PathBuf {
    root().join("configs/hitl/partner.toml")
}

/// Runs `gatecrew run --interactive --script` on the hitl world; returns the exit code,
/// stdout and the trace.
pub fn run_script(dir: &Path, name: &str, script: &str, extra: &[&str]) -> (u8, String, Vec<Event>) {
    run_script_on(&partner_config(), dir, name, script, extra)
}

/// As [`run_script`], on another crew config.
pub fn run_script_on(config: &Path, dir: &Path, name: &str, script: &str, extra: &[&str]) -> (u8, String, Vec<Event>) {
    let script_path = write(dir, &format!("{name}.txt"), script);
    let trace = dir.join(format!("{name}.jsonl"));
    let mut args: Vec<String> = vec![
        "gatecrew".into(),
        "run".into(),
        "--config".into(),
        config.display().to_string(),
        "--interactive".into(),
        "--script".into(),
        script_path.display().to_string(),
        "--trace".into(),
        trace.display().to_string(),
        "--quiet".into(),
    ];
    if !extra.contains(&"--merge-ticks") {
        args.extend(["--merge-ticks".to_owned(), "5".to_owned()]);
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = gatecrew_cli::main_with(args, &mut out, &mut err);
    let code = [0u8, 1, 2].into_iter().find(|c| std::process::ExitCode::from(*c) == code).unwrap_or(255);
    let stdout = String::from_utf8_lossy(&out).into_owned() + &String::from_utf8_lossy(&err);
    let events = if trace.exists() { read_trace(&trace) } else { Vec::new() };
    (code, stdout, events)
}

/// Every event of a trace.
pub fn read_trace(path: &Path) -> Vec<Event> {
    let f = std::fs::File::open(path).unwrap();
    TraceReader::new(std::io::BufReader::new(f)).map(|r| r.unwrap()).collect()
}

/// The partner's plan updates: (tick, op, active label).
pub fn plan_ops(events: &[Event]) -> Vec<(u64, String, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Plan(p) => Some((e.t, p.op.as_str().to_owned(), p.label.clone())),
            _ => None,
        })
        .collect()
}

/// The intents: (tick, type, resolved node, options).
pub fn intents(events: &[Event]) -> Vec<(u64, String, Option<u32>, Vec<u32>)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Intent(i) => Some((e.t, i.intent.as_str().to_owned(), i.resolved, i.options.clone())),
            _ => None,
        })
        .collect()
}

/// The bot's lines: (tick, what, text).
pub fn said(events: &[Event]) -> Vec<(u64, String, String)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Say(s) => Some((e.t, s.what.as_str().to_owned(), s.text.clone())),
            _ => None,
        })
        .collect()
}
