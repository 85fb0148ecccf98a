//! What of the crew a model-driven bot's prompt holds, by policy (`--bots model`): under
//! `gated` only the protocol messages addressed to it while their windows are open;
//! under `no_partition` every board message; under `flatcomm` the chat as MindCraft
//! keeps it (15 lines, then the oldest 5 go); under `central_dag` the manager's
//! re-plans are model calls of their own. An in-process endpoint stands in for the
//! model: it always proposes to ask (so the board fills), and reports as the call's
//! `prompt_tokens` the number of crew lines (`> ...`) the prompt carried, so that the
//! trace says, call by call, what each prompt held; those counts are checked against
//! the board and chat the trace records.

use std::collections::BTreeSet;

use gatecrew_protocol::trace::{Event, EventKind, WindowEvent};
use gatecrew_protocol::{AgentId, WindowId};

use crate::llm::fake::{Fake, Reply, Seen, completion_with};
use crate::llm::{MODEL, gatecrew, model_config, trace};

/// MindCraft's `max_messages` and `summary_chunk_size` (the crate's constants, checked
/// here against the figures of settings.js and history.js).
const MAX_MESSAGES: u32 = 15;

/// The crew lines of a request's user message.
fn lines_in(seen: &Seen) -> u32 {
    let body: serde_json::Value = serde_json::from_slice(&seen.body).unwrap_or_default();
    let user = body["messages"][1]["content"].as_str().unwrap_or("");
    user.lines().filter(|l| l.starts_with("> ")).count() as u32
}

/// Asks at every issue, refuses every request, has the manager send the bot to recover
/// locally, answers garbage for cells (the scripted choice stands): and counts the
/// prompt's crew lines.
fn counting(_: usize, seen: &Seen) -> Reply {
    let body = String::from_utf8_lossy(&seen.body);
    let content = if body.contains("manager of a Minecraft") {
        r#"{"choice":"recover_locally"}"#
    } else if body.contains("You need") {
        r#"{"choice":"ask"}"#
    } else if body.contains("asks you for") {
        r#"{"choice":"cannot_supply"}"#
    } else {
        "place it somewhere"
    };
    Reply::Full { status: 200, body: completion_with(content, lines_in(seen).into(), 9) }
}

fn run(policy: &str, url: &str, dir: &std::path::Path) -> Vec<Event> {
    let cfg = model_config(dir, 5000);
    let t = dir.join(format!("{policy}.jsonl"));
    let args = [
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--llm-url",
        url,
        "--model",
        MODEL,
        "--stepper",
        "--quiet",
        "--policy",
        policy,
        "--trace",
        t.to_str().unwrap(),
    ];
    let (code, out, err) = gatecrew(&args);
    assert_eq!(code, 0, "{policy}:\n{out}\n{err}");
    trace(&t)
}

/// Each bot's call that was answered (a first attempt): tick, bot, crew lines.
fn prompts(evs: &[Event]) -> Vec<(u64, Option<AgentId>, u32)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelCall { agent, attempt: 1, prompt_tokens, .. } => Some((e.t, *agent, *prompt_tokens)),
            _ => None,
        })
        .collect()
}

/// Board messages: tick, window, sender, whether `a` is addressed.
fn board(evs: &[Event]) -> Vec<(u64, WindowId, AgentId, gatecrew_protocol::Recipient)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Board { window, from, to, .. } => Some((e.t, *window, *from, *to)),
            _ => None,
        })
        .collect()
}

/// When each window closed.
fn closings(evs: &[Event]) -> std::collections::BTreeMap<WindowId, u64> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Window { window, event: WindowEvent::Close, .. } => Some((*window, e.t)),
            _ => None,
        })
        .collect()
}

#[test]
fn gated_prompts_stay_bounded_while_no_partition_and_flatcomm_grow_with_the_crews_lines() {
    let fake = Fake::start(counting);
    let dir = tempfile::tempdir().unwrap();

    // gated: a line per message addressed to the bot, for as long as its window is open.
    // A step at tick t has heard everything posted before t (news comes a tick later),
    // and maybe what was posted at t in an earlier round.
    let gated = run("gated", &fake.url, dir.path());
    let (msgs, closed) = (board(&gated), closings(&gated));
    let open_at =
        |t: u64, w: WindowId, strict: bool| closed.get(&w).is_none_or(|&c| if strict { c >= t } else { c > t });
    let ps = prompts(&gated);
    assert!(!ps.is_empty());
    for &(t, agent, n) in &ps {
        let a = agent.expect("every gated call is a bot's");
        let mine = |m: &&(u64, WindowId, AgentId, gatecrew_protocol::Recipient)| m.2 != a && m.3.includes(a);
        let low = msgs.iter().filter(mine).filter(|m| m.0 < t && open_at(t, m.1, false)).count() as u32;
        let high = msgs.iter().filter(mine).filter(|m| m.0 <= t && open_at(t, m.1, true)).count() as u32;
        assert!((low..=high).contains(&n), "gated {a} at t={t}: {n} lines, expected {low}..={high}");
    }
    let gated_most = ps.iter().map(|p| p.2).max().unwrap();
    assert!(
        (gated_most as usize) < msgs.len() / 2,
        "gated held {gated_most} lines at most; the board had {}",
        msgs.len()
    );

    // no_partition: every board message so far.
    let np = run("no_partition", &fake.url, dir.path());
    let msgs = board(&np);
    let ps = prompts(&np);
    for &(t, agent, n) in &ps {
        let low = msgs.iter().filter(|m| m.0 < t).count() as u32;
        let high = msgs.iter().filter(|m| m.0 <= t).count() as u32;
        assert!((low..=high).contains(&n), "no_partition {agent:?} at t={t}: {n} lines, expected {low}..={high}");
    }
    let np_most = ps.iter().map(|p| p.2).max().unwrap();
    assert!(np_most > gated_most, "no_partition {np_most} lines at most, gated {gated_most}");

    // flatcomm: every chat line heard, until fifteen are held and the oldest five go:
    // after n lines a prompt holds n (n < 15), else 10 + (n - 15) mod 5.
    let fc = run("flatcomm", &fake.url, dir.path());
    let chat: Vec<u64> = fc.iter().filter(|e| matches!(e.kind, EventKind::Chat { .. })).map(|e| e.t).collect();
    let held = |n: u32| if n < MAX_MESSAGES { n } else { MAX_MESSAGES - 5 + (n - MAX_MESSAGES) % 5 };
    let ps = prompts(&fc);
    for &(t, agent, n) in &ps {
        let low = chat.iter().filter(|&&c| c < t).count() as u32;
        let high = chat.iter().filter(|&&c| c <= t).count() as u32;
        assert!(
            (low..=high).any(|k| held(k) == n),
            "flatcomm {agent:?} at t={t}: {n} lines after {low}..={high} chat lines"
        );
    }
    let heard: BTreeSet<u32> = ps.iter().map(|p| p.2).collect();
    assert!(heard.len() > 1, "the prompts did not grow with the chat: {heard:?}");
}

#[test]
fn central_dag_replans_are_model_calls_and_replay_with_the_bots_calls() {
    let fake = Fake::start(counting);
    let dir = tempfile::tempdir().unwrap();
    let evs = run("central_dag", &fake.url, dir.path());
    let replans: Vec<&EventKind> = evs
        .iter()
        .map(|e| &e.kind)
        .filter(|k| matches!(k, EventKind::ModelCall { point, .. } if point == "replan"))
        .collect();
    assert!(!replans.is_empty(), "the manager never re-planned with a model");
    let mut replanned = BTreeSet::new();
    for k in &replans {
        let EventKind::ModelCall { agent, issue_id, choice, .. } = k else { unreachable!() };
        assert!(agent.is_none(), "{k:?}");
        assert_eq!(choice.as_deref(), Some("recover_locally"));
        replanned.insert(issue_id.expect("a re-plan is about an issue"));
    }
    // The model's choice is the manager's: no delivery opened for those issues, though
    // a teammate was believed to have some to spare (else there was nothing to ask).
    let delivered: Vec<_> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Window { event: WindowEvent::Open, issue_id: Some(i), .. } => Some(*i),
            _ => None,
        })
        .filter(|i| replanned.contains(i))
        .collect();
    assert!(delivered.is_empty(), "deliveries opened against the model's choice: {delivered:?}");
    let cfg = dir.path().join("configs/crew.toml");
    let again = dir.path().join("again.jsonl");
    let recorded = dir.path().join("central_dag.jsonl");
    let args = [
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--replay-model",
        recorded.to_str().unwrap(),
        "--stepper",
        "--quiet",
        "--policy",
        "central_dag",
        "--trace",
        again.to_str().unwrap(),
    ];
    let (code, out, err) = gatecrew(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        std::fs::read(&again).unwrap() == std::fs::read(&recorded).unwrap(),
        "the replay differs from the recording"
    );
}
