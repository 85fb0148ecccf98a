//! Scripted sessions: timed chat lines drive every intervention type; the plan updates
//! and what the bot then does are checked in the trace.

use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{ActionName, EventKind};

use super::{intents, plan_ops, run_script, said};

/// add, switch (away from the crew share, which resumes afterwards), and add of a told
/// source under the active OR (switched to at once); nothing done is undone.
#[test]
fn add_switch_and_a_told_source_keep_completed_work() {
    let dir = tempfile::tempdir().unwrap();
    let script = "0 also get 3 oak logs\n10 switch to the oak logs\n60 there are oak logs in the chest at 6 0 -6\n";
    let (code, out, ev) = run_script(dir.path(), "a", script, &["--no-memory"]);
    assert_eq!(code, 0, "{out}");
    let ops: Vec<String> = plan_ops(&ev).into_iter().map(|(_, op, _)| op).collect();
    assert_eq!(ops, ["start", "add", "switch", "add"], "{ev:#?}");
    let kinds: Vec<String> = intents(&ev).into_iter().map(|(_, k, _, _)| k).collect();
    assert_eq!(kinds, ["add", "switch", "add"]);
    // The switch left the share half done; the told chest became the active leaf.
    let last = plan_ops(&ev).pop().unwrap();
    assert_eq!(last.2.as_deref(), Some("take oak log from the chest at (6, 0, -6)"));
    let bot0 = AgentId(0);
    let place_before_switch = ev
        .iter()
        .filter(|e| e.t <= 10)
        .filter(|e| matches!(&e.kind, EventKind::Action { agent, action: ActionName::Place, ok: true, .. } if *agent == bot0))
        .count();
    let withdrew = ev.iter().any(|e| {
        matches!(&e.kind, EventKind::Action { agent, action: ActionName::Withdraw, ok: true, .. } if *agent == bot0)
    });
    assert!(withdrew, "the bot took logs from the told chest");
    // Logs mined before the told source count: the goal's validator passes on the sum.
    let goal = ev
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Validator(v) if v.label == "obtain 3 oak log" => Some(v.clone()),
            _ => None,
        })
        .expect("the goal was judged");
    assert!(goal.pass, "{goal:?}");
    assert_eq!(goal.evidence.items[0].after, 3);
    // The share (the wall's cells of bot0, as parts of place leaves) resumed after the
    // goal and the wall is complete: no block was undone; each cell judged in place.
    let placed: Vec<bool> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Validator(v) if v.label.starts_with("place cobblestone at") => Some(v.pass),
            _ => None,
        })
        .collect();
    assert_eq!(placed, [true; 6], "{:#?}", said(&ev));
    assert!(said(&ev).iter().any(|(_, _, t)| t.starts_with("Done: build my share")), "{:#?}", said(&ev));
    let end = ev.iter().find_map(|e| match &e.kind {
        EventKind::EpisodeEnd { tsr, .. } => Some(*tsr),
        _ => None,
    });
    assert_eq!(end, Some(1.0));
    let placed_total = ev
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Action { agent, action: ActionName::Place, ok: true, .. } if *agent == bot0))
        .count();
    assert_eq!(placed_total, 6, "each block placed once: {place_before_switch} before the switch");
    assert!(said(&ev).iter().any(|(_, w, t)| w == "preview" && t.starts_with("OK, I'll stop \"place cobblestone at")));
}

/// A clarifying question and its answer, delete, chat, stop, resume, new task.
#[test]
fn question_delete_chat_stop_resume_and_new_task() {
    let dir = tempfile::tempdir().unwrap();
    let script = "\
0 also get 2 oak logs
10 also get 4 oak logs
20 switch to the oak logs
30 the second one
50 skip building
80 hi, how many oak logs do you have?
100 stop
200 go on
300 stop what you're doing and make a crafting table
";
    let (code, out, ev) = run_script(dir.path(), "b", script, &["--no-memory"]);
    assert_eq!(code, 0, "{out}");
    let got: Vec<(u64, String)> = intents(&ev).into_iter().map(|(t, k, _, _)| (t, k)).collect();
    // Each line is handled when the 5-tick merge window after it has passed; a halt
    // (by the stop rule, also one followed by a new order) at once.
    let want = [
        (5, "add"),
        (15, "add"),
        (25, "switch"),
        (35, "answer"),
        (55, "delete"),
        (85, "chat"),
        (100, "stop"),
        (205, "switch"),
        (300, "new_task"),
    ];
    assert_eq!(got, want.map(|(t, k)| (t, k.to_owned())).to_vec());
    // One question with both goals, answered with the second.
    let i = intents(&ev);
    assert_eq!(i[2].3.len(), 2, "two options: {:?}", i[2]);
    assert_eq!(i[3].2, Some(i[2].3[1]), "the answer picked the second option");
    let q = said(&ev).into_iter().find(|(_, w, _)| w == "question").unwrap();
    assert!(q.2.contains("1) obtain 2 oak log") && q.2.contains("2) obtain 4 oak log"), "{q:?}");
    let ops = plan_ops(&ev);
    let ops_names: Vec<&str> = ops.iter().map(|(_, o, _)| o.as_str()).collect();
    assert_eq!(ops_names, ["start", "add", "add", "switch", "delete", "stop", "resume", "new_task"]);
    assert_eq!(ops[3].2.as_deref(), Some("obtain 4 oak log"));
    // Stopped: bot0 starts nothing between the stop and the resume.
    let bot0 = AgentId(0);
    let acts_while_stopped = ev
        .iter()
        .filter(|e| e.t > 100 && e.t <= 205)
        .filter(|e| matches!(&e.kind, EventKind::Action { agent, .. } if *agent == bot0))
        .count();
    assert!(acts_while_stopped <= 1, "at most the action in flight completes");
    // The chat answer says the count and the plan goes on.
    let chat = said(&ev).into_iter().find(|(t, w, _)| *t == 85 && w == "answer").unwrap();
    assert!(chat.2.contains("I have") && chat.2.contains("oak log"), "{chat:?}");
    // The new task replaced the plan and got done.
    let table = ev.iter().rev().find_map(|e| match &e.kind {
        EventKind::Validator(v) if v.label == "obtain 1 crafting table" => Some(v.pass),
        _ => None,
    });
    assert_eq!(table, Some(true), "{:#?}", said(&ev));
}

/// A scripted session with the parser is deterministic: the same trace twice.
#[test]
fn a_scripted_session_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let script = "0 also get 2 oak logs\n10 also get 4 oak logs\n20 switch to the oak logs\n30 the second one\n50 skip building\n100 stop\n200 go on\n";
    let (c1, _, _) = run_script(dir.path(), "d1", script, &["--no-memory"]);
    let (c2, _, _) = run_script(dir.path(), "d2", script, &["--no-memory"]);
    assert_eq!((c1, c2), (0, 0));
    let a = std::fs::read(dir.path().join("d1.jsonl")).unwrap();
    let b = std::fs::read(dir.path().join("d2.jsonl")).unwrap();
    assert!(a == b, "two runs of one script differ");
}

/// Lines typed in a burst become one intent.
#[test]
fn a_burst_of_lines_is_one_intent() {
    let dir = tempfile::tempdir().unwrap();
    let script = "0 hi\n3 mine wood\n6 2 pieces\n";
    let (code, out, ev) = run_script(dir.path(), "m", script, &["--no-memory", "--merge-ticks", "20"]);
    assert_eq!(code, 0, "{out}");
    let humans: Vec<(u64, String, u32)> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Human(h) => Some((e.t, h.text.clone(), h.lines)),
            _ => None,
        })
        .collect();
    assert_eq!(humans, [(26, "hi mine wood 2 pieces".to_owned(), 3)]);
    let i = intents(&ev);
    assert_eq!(i.len(), 1);
    assert_eq!(i[0].1, "new_task");
    assert_eq!(plan_ops(&ev).last().unwrap().1, "new_task");
    assert!(said(&ev).iter().any(|(_, _, t)| t.contains("New task: obtain 2 oak log")));
}

/// A bad script line is an error naming the file and line.
#[test]
fn a_bad_script_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = run_script(dir.path(), "bad", "0 hi\nlater hello\n", &["--no-memory"]);
    assert_eq!(code, 2);
    assert!(out.contains("bad.txt:2: expected a tick"), "{out}");
}
