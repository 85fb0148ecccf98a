//! The dispatcher over a real model: its reply parser, request and constraint (pure),
//! the policy on an in-process model (no HTTP), and `gatecrew cos --llm-url` against
//! the real local llama.cpp server ([`live`]) and a fake one for the faults the real
//! one cannot produce ([`faults`]).

mod faults;
mod live;

use std::collections::VecDeque;
use std::sync::Arc;

use gatecrew_gating::llm::{ChatRequest, FallbackReason, OutputMode, Usage};
use gatecrew_kitchen::dispatch::grammar::{commands, gbnf, longest_reply};
use gatecrew_kitchen::dispatch::{
    CommandErrorKind, Constraint, DispatchModel, DispatchRequest, History, ReplyError, parse_command, parse_reply,
};
use gatecrew_kitchen::executor::render;
use gatecrew_kitchen::policy::llm_dispatcher::{DispatchOptions, FallbackRule, LlmDispatcher};
use gatecrew_kitchen::trace::TraceDir;
use gatecrew_kitchen::{Action, Built, Policy, PolicyKind, RunSpec, World, cos_row_with};

use super::common::{BLENDER, STORAGE, cuisine, world};
use crate::cli::gatecrew;

fn level0() -> World {
    world(&cuisine(), "level_0", 2, 5, 20)
}

#[test]
fn every_command_of_every_level_parses_back_to_its_action() {
    let c = cuisine();
    for level in &c.levels {
        let w = World::new(Arc::clone(level), Arc::clone(&c.book), 3, level.file_timing(1.0), 0);
        for k in 0..3 {
            let all = commands(&w, k);
            assert!(all.len() >= 5, "{}: {all:?}", level.name);
            for cmd in &all {
                let (agent, a) = parse_command(&w, 3, cmd).unwrap_or_else(|e| panic!("{}: {e}", level.name));
                assert_eq!(agent, k);
                assert_eq!(&render::command(&w, k, a), cmd, "round trip on {}", level.name);
            }
        }
    }
}

#[test]
fn garbage_is_a_typed_error_naming_the_token() {
    let w = level0();
    let kind = |t: &str| {
        let e = parse_command(&w, 2, t).unwrap_err();
        assert_eq!(e.token, t);
        e.kind
    };
    assert_eq!(kind("jump_agent0_storage0"), CommandErrorKind::UnknownVerb("jump".into()));
    assert_eq!(kind("goto_bob_storage0"), CommandErrorKind::NotAnAgent("bob".into()));
    assert_eq!(kind("goto_agent7_storage0"), CommandErrorKind::UnknownAgent { agent: 7, agents: 2 });
    assert_eq!(kind("goto_agent0_fridge0"), CommandErrorKind::UnknownLocation("fridge0".into()));
    assert_eq!(kind("get_agent0_caviar_storage0"), CommandErrorKind::UnknownItem("caviar".into()));
    assert!(matches!(kind("goto_agent0"), CommandErrorKind::Arity { verb: "goto", .. }));
    assert!(matches!(kind("noop_agent0_storage0"), CommandErrorKind::Arity { verb: "noop", .. }));
    let e = parse_command(&w, 2, "jump_agent0_storage0").unwrap_err();
    assert_eq!(e.to_string(), "jump_agent0_storage0: unknown verb \"jump\" (goto, get, put, activate, noop)");
}

#[test]
fn a_reply_gives_each_agent_one_action_and_reports_the_rest() {
    let w = level0();
    let salmon = cuisine().book.item("salmon").unwrap();
    // Prose around the commands is skipped; a missing agent does noop.
    let p = parse_reply(&w, 2, "Sure! Here you go.\n-action:\nget_agent0_salmon_storage0\n").unwrap();
    assert_eq!(p.actions, vec![Action::Get { at: STORAGE, item: Some(salmon) }, Action::Noop]);
    assert_eq!(p.commanded, vec![true, false]);
    assert!(p.invalid.is_empty());
    // A duplicate is reported and the first command stands; a bad one is its agent's noop.
    let p = parse_reply(&w, 2, "-action:\nput_agent0_blender0\nactivate_agent0_blender0\nfly_agent1_moon0").unwrap();
    assert_eq!(p.actions, vec![Action::Put(BLENDER), Action::Noop]);
    let kinds: Vec<_> = p.invalid.iter().map(|e| e.kind.clone()).collect();
    assert_eq!(kinds, vec![CommandErrorKind::Duplicate(0), CommandErrorKind::UnknownVerb("fly".into())]);
    // The JSON form's values are the commands.
    let p = parse_reply(&w, 2, r#"{"agent0":"noop_agent0","agent1":"goto_agent1_blender0"}"#).unwrap();
    assert_eq!(p.actions, vec![Action::Noop, Action::Goto(BLENDER)]);
    // Nothing usable: the whole reply is an error (the policy's fallback decides).
    assert_eq!(parse_reply(&w, 2, "I think we should cook."), Err(ReplyError::NoCommands));
    match parse_reply(&w, 2, "goto_agent9_storage0 get_agent0_caviar_storage0") {
        Err(ReplyError::AllInvalid(v)) => assert_eq!(v.len(), 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_grammar_admits_exactly_each_agents_commands_in_order() {
    let w = level0();
    let g = gbnf(&w, 2);
    assert!(g.starts_with("root ::= \"-action:\\n\" agent0 \"\\n\" agent1 \"\\n\"\n"), "{g}");
    for k in 0..2 {
        let rule = g.lines().find_map(|l| l.strip_prefix(&format!("agent{k} ::= "))).expect("a rule per agent");
        let alts: Vec<String> = rule.split(" | ").map(|a| a.trim_matches('"').to_owned()).collect();
        assert_eq!(alts, commands(&w, k));
        // Every string the grammar admits for the crew parses with no invalid command.
        for a in &alts {
            let reply =
                if k == 0 { format!("-action:\n{a}\nnoop_agent1\n") } else { format!("-action:\nnoop_agent0\n{a}\n") };
            let p = parse_reply(&w, 2, &reply).unwrap();
            assert!(p.invalid.is_empty() && p.commanded == vec![true, true], "{reply}");
        }
    }
    // level_0: noop, goto x3, get (2 raw from storage0, the blender's content), put x3, activate x1.
    assert_eq!(commands(&w, 0).len(), 1 + 3 + (2 + 1) + 3 + 1);
    let longest = commands(&w, 0).iter().map(String::len).max().unwrap();
    assert!(longest_reply(&w, 2) as usize >= "-action:\n".len() + 2 * (longest + 1));
}

#[test]
fn the_request_holds_the_prompt_the_book_the_state_and_the_last_history_lines() {
    let w = level0();
    let mut h = History::new();
    for i in 0..20 {
        h.push(format!("step {i}: noop_agent0: done"));
    }
    let c = Constraint::new(&w, 2);
    let req = DispatchRequest::new(&w, 60, &h, &c);
    assert!(req.system.starts_with("You are the dispatcher of a kitchen in CuisineWorld."));
    assert!(req.user.starts_with(&render::book(&w)));
    assert!(req.user.contains(&render::state(&w, 60)));
    assert!(!req.user.contains("step 4: noop_agent0"), "only the last 15 lines");
    assert!(req.user.contains("step 5: noop_agent0: done\n") && req.user.contains("step 19: noop_agent0: done\n"));
    assert!(req.user.ends_with("-action:\n"));
    let v = serde_json::to_value(req.chat("m", OutputMode::Grammar, 0.0)).unwrap();
    assert_eq!(v["grammar"].as_str().unwrap(), c.grammar);
    assert!(v.get("response_format").is_none());
    assert_eq!(v["max_tokens"], c.max_tokens);
    let v = serde_json::to_value(req.chat("m", OutputMode::JsonSchema, 0.0)).unwrap();
    assert!(v.get("grammar").is_none());
    assert_eq!(v["response_format"]["json_schema"]["schema"]["required"], serde_json::json!(["agent0", "agent1"]));
}

/// A model that answers from a list (then repeats its last answer).
#[derive(Clone)]
struct Canned(VecDeque<Result<String, FallbackReason>>);

impl DispatchModel for Canned {
    fn model(&self) -> &str {
        "canned"
    }
    fn dispatch(&mut self, _: &ChatRequest<'_>) -> Result<(String, Usage), FallbackReason> {
        let next = if self.0.len() > 1 { self.0.pop_front() } else { self.0.front().cloned() };
        next.unwrap_or(Err(FallbackReason::Transport)).map(|t| (t, Usage { prompt_tokens: 100, completion_tokens: 10 }))
    }
}

#[test]
fn an_unusable_reply_is_a_counted_labelled_fallback_and_the_trace_reads_back() {
    let c = cuisine();
    let level = c.level("level_0").unwrap();
    let replies: VecDeque<_> = [
        Err(FallbackReason::Timeout),
        Ok("no idea".to_owned()),
        Ok("-action:\ngoto_agent0_storage0\nfly_agent1\n".to_owned()),
        Ok("-action:\nnoop_agent0\nnoop_agent1\n".to_owned()),
    ]
    .into();
    let model = Canned(replies);
    let build = |_: &World, max_steps: u32| -> Box<dyn Policy + Send> {
        let opts = DispatchOptions {
            output: OutputMode::Grammar,
            temperature: 0.0,
            max_steps,
            fallback: FallbackRule::Planner,
        };
        Box::new(LlmDispatcher::new(Box::new(model.clone()), 2, opts))
    };
    let dir = tempfile::tempdir().unwrap();
    let spec = RunSpec { horizon: 6, ..RunSpec::new(2, 0) };
    let b = Built { policy: PolicyKind::Dispatcher, factors: &[1.0], build: &build, live_model: Some("canned") };
    let mut seen = 0;
    let row = cos_row_with(&c.book, level, &spec, &b, Some(&TraceDir::create(dir.path()).unwrap()), &mut |_| seen += 1)
        .unwrap();
    assert_eq!(seen, 1);
    let m = row.model;
    assert_eq!((m.calls, m.prompt_tokens, m.completion_tokens), (6, 500, 50), "the timeout has no usage");
    assert_eq!((m.fallbacks, m.invalid_commands), (2, 1));
    assert_eq!(row.messages, 12, "a command per agent per step");
    let text = std::fs::read_to_string(dir.path().join("level_0-dispatcher-a2-x1-file-live-s0.jsonl")).unwrap();
    assert!(text.contains(r#""live_model":"canned""#));
    assert!(text.contains(r#""fallback":"timeout""#) && text.contains(r#""fallback":"no_commands""#));
    assert!(text.contains(r#""invalid":["fly_agent1: unknown verb"#));
    let (code, out, err) = gatecrew(&["analyze", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let an: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(an["kitchen"]["report"]["rows"].as_array().unwrap().len(), 1);
}

#[test]
fn an_llm_call_line_written_before_the_live_fields_still_reads() {
    let old = r#"{"v":1,"ep":"e","step":3,"kind":"llm_call","caller":"dispatcher","prompt_tokens":900,"completion_tokens":20,"latency_s":1.5,"mistake":false}"#;
    let rec = gatecrew_kitchen::trace::parse_line(old).unwrap();
    match rec.event {
        gatecrew_kitchen::trace::Event::LlmCall(c) => assert!(c.invalid.is_empty() && c.fallback.is_none()),
        other => panic!("{other:?}"),
    }
}
