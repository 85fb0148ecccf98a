//! The viewer: its state folded from the default episode's trace, replays at any tick,
//! the websocket's Origin check, browsers that never touch the trace, and the cards'
//! inventories equal to the world's, live and in a replay.

use std::sync::Arc;

use gatecrew_protocol::trace::{Event, EventKind, WindowEvent};
use gatecrew_viewer::ViewState;
use gatecrew_viewer::replay::{Cursor, Recording};

use crate::cli::gatecrew;
use crate::common::default_setup;

mod inventories;
mod panels;
mod socket;

pub(super) fn episode() -> (gatecrew_viewer::Scene, Vec<Event>) {
    let setup = default_setup();
    let mut events = Vec::new();
    gatecrew_crew::run(&setup, &mut |e: &Event| events.push(e.clone()));
    (gatecrew_cli::viewer_scene(&setup), events)
}

pub(super) fn json(s: &ViewState) -> serde_json::Value {
    serde_json::to_value(s).unwrap()
}

#[test]
fn the_state_follows_the_default_episode_to_its_end() {
    let (scene, events) = episode();
    let mut s = ViewState::new(&scene, "live");
    let mut confirmed = 0;
    for ev in &events {
        s.observe(ev);
        if let EventKind::Window { event: WindowEvent::Close, outcome: Some(o), .. } = &ev.kind {
            confirmed += usize::from(*o == gatecrew_protocol::CloseOutcome::Confirmed);
        }
    }
    s.refresh();
    let Some(EventKind::EpisodeEnd { correct_blocks, blueprint_blocks, complete, .. }) = events.last().map(|e| &e.kind)
    else {
        panic!("no end")
    };
    assert!(complete, "the default episode completes");
    assert_eq!(s.blocks.total, *blueprint_blocks);
    assert_eq!(s.blocks.placed, *correct_blocks, "placed blocks follow the verified place outcomes");
    assert_eq!(s.blocks.remaining, 0);
    assert_eq!(s.blocks.layers.iter().map(|l| l.placed).sum::<u32>(), s.blocks.placed);
    assert_eq!(s.ended.as_deref(), Some("complete"));
    assert!(s.bots.len() >= 2 && s.bots.iter().all(|b| b.pos.is_some() && b.actions > 0));
    assert!(confirmed >= 1, "the default episode hands items over");
    assert_eq!(s.handovers.len(), confirmed);
    let done: Vec<_> = s.board.threads.iter().filter(|t| t.state == "confirmed").collect();
    assert_eq!(done.len(), confirmed);
    for t in done {
        let kinds: Vec<&str> = t.messages.iter().map(|m| m.msg.as_str()).collect();
        assert_eq!(kinds.first(), Some(&"REQUEST_MATERIAL"), "{kinds:?}");
        assert_eq!(kinds.last(), Some(&"CONFIRM_TRANSFER"), "{kinds:?}");
        assert!(kinds.contains(&"OFFER_TRANSFER"));
        let g = t.gate.as_ref().expect("the gate decision that escalated");
        assert_eq!(g.decision, "escalate");
    }
    // At the end nobody is blocked.
    assert!(s.bots.iter().all(|b| b.blocker.is_none()), "{:?}", s.bots);
}

#[test]
fn a_bot_is_blocked_from_its_issue_until_its_resolution() {
    let (scene, events) = episode();
    let (agent, id, t0) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Issue { agent, issue_id, .. } => Some((agent.0, issue_id.0, e.t)),
            _ => None,
        })
        .expect("the default episode has an issue");
    let t1 = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Resolved { issue_id, .. } if issue_id.0 == id => Some(e.t),
            _ => None,
        })
        .expect("resolved");
    let rec = Recording::new(scene, events);
    let before = rec.state_at(t0.saturating_sub(1));
    assert!(before.bots[agent as usize].blocker.as_ref().is_none_or(|b| b.issue_id != id));
    let during = rec.state_at(t0);
    assert_eq!(during.bots[agent as usize].blocker.as_ref().map(|b| b.issue_id), Some(id));
    if t1 > t0 {
        let after = rec.state_at(t1);
        assert!(after.bots[agent as usize].blocker.as_ref().is_none_or(|b| b.issue_id != id));
    }
}

#[test]
fn a_cursor_moving_back_and_forth_shows_what_a_fresh_fold_shows() {
    let (scene, events) = episode();
    let rec = Arc::new(Recording::new(scene, events));
    let (first, last) = rec.span();
    let mut c = Cursor::new(rec.clone());
    for t in [last / 2, last / 4, last, first, rec.next_tick(last / 3), rec.prev_tick(last / 3)] {
        assert_eq!(json(c.seek(t)), json(&rec.state_at(t)), "at tick {t}");
    }
    assert!(rec.next_tick(first) > first && rec.prev_tick(last) < last);
}

#[test]
fn run_with_serve_writes_the_same_trace_and_replay_refuses_a_bad_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let (code, _, err) = gatecrew(&["run", "--stepper", "--quiet", "--json", "--trace", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = gatecrew(&[
        "run",
        "--quiet",
        "--json",
        "--trace",
        b.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--linger",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("viewer: http://127.0.0.1:"), "{err}");
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"v\":1}\n").unwrap();
    let (code, _, err) = gatecrew(&["replay", bad.to_str().unwrap(), "--serve", "127.0.0.1:0", "--linger", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.jsonl") && err.contains("line 1"), "{err}");
    let (code, out, err) = gatecrew(&[
        "replay",
        a.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--linger",
        "0",
        "--config",
        crate::common::default_config().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("replaying") && out.contains("inventories exact") && !err.contains("warning"), "{out}{err}");
    // Without the config, or with a trace the config does not reproduce: the trace's
    // counts, and a warning saying so.
    let (code, out, err) = gatecrew(&["replay", a.to_str().unwrap(), "--serve", "127.0.0.1:0", "--linger", "0"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("inventories approximate") && err.contains("warning: no --config"), "{out}{err}");
    let text = std::fs::read_to_string(&a).unwrap();
    let edited = dir.path().join("edited.jsonl");
    let changed = text.replacen("\"seed\":7", "\"seed\":8", 1);
    assert_ne!(changed, text, "the trace names its seed");
    std::fs::write(&edited, changed).unwrap();
    let (code, out, err) = gatecrew(&[
        "replay",
        edited.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--linger",
        "0",
        "--config",
        crate::common::default_config().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("inventories approximate"), "{out}");
    assert!(err.contains("does not reproduce the trace"), "{err}");
}
