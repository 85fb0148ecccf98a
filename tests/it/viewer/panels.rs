//! The page's explanations, folded from the trace: the metrics panel equal to what
//! `gatecrew analyze` reports once the episode has ended, every policy's public lines
//! and its windows' requesters, the event log, and the replay's scrubber markers.

use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, EventKind, Policy, TraceWriter};
use gatecrew_viewer::ViewState;
use gatecrew_viewer::replay::Recording;

use crate::cli::gatecrew;
use crate::common::default_config;

fn setup(policy: Policy) -> Setup {
    Setup::load(&default_config(), &Overrides { policy: Some(policy), ..Overrides::default() }).unwrap()
}

fn fold(setup: &Setup) -> (ViewState, Vec<Event>) {
    let events = crate::common::run_events(setup);
    let mut s = ViewState::new(&gatecrew_cli::viewer_scene(setup), "replay");
    for ev in &events {
        s.observe(ev);
    }
    s.refresh();
    (s, events)
}

/// `gatecrew analyze --json` on one trace: the value of each metric of its one group.
fn analyze(events: &[Event]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let mut w = TraceWriter::new(Vec::new());
    for e in events {
        w.write(e).unwrap();
    }
    std::fs::write(dir.path().join("ep.jsonl"), w.into_inner()).unwrap();
    let (code, out, err) = gatecrew(&["analyze", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cells = v["report"]["groups"][0]["cells"].as_array().unwrap().clone();
    cells.into_iter().map(|c| (c["metric"].as_str().unwrap().to_owned(), c["interval"]["value"].clone())).collect()
}

fn ratio(c: gatecrew_viewer::state::Counts) -> serde_json::Value {
    if c.of == 0 { serde_json::Value::Null } else { serde_json::json!(c.n as f64 / c.of as f64) }
}

#[test]
fn at_the_end_the_metrics_panel_shows_what_analyze_reports_for_every_policy() {
    for policy in [Policy::Gated, Policy::Flatcomm, Policy::CentralDag, Policy::NoGate] {
        let (s, events) = fold(&setup(policy));
        let m = &s.metrics;
        let want = analyze(&events);
        assert!(m.tsr_final, "{policy}: the episode ended");
        assert_eq!(serde_json::json!(m.tsr.unwrap()), want["tsr"], "{policy}: TSR");
        assert_eq!(serde_json::json!(m.msg as f64), want["msg"], "{policy}: Msg");
        assert!(m.msg > 0, "{policy}: the default episode has public messages");
        assert_eq!(ratio(m.lrr), want["lrr"], "{policy}: LRR");
        assert_eq!(ratio(m.ecr), want["ecr"], "{policy}: ECR");
        assert_eq!(ratio(m.uer), want["uer"], "{policy}: UER");
    }
}

#[test]
fn before_the_end_the_tsr_is_the_share_of_blueprint_cells_in_place() {
    let setup = setup(Policy::Gated);
    let events = crate::common::run_events(&setup);
    let mut s = ViewState::new(&gatecrew_cli::viewer_scene(&setup), "live");
    let half = events.len() / 2;
    for ev in &events[..half] {
        s.observe(ev);
    }
    s.refresh();
    assert!(!s.metrics.tsr_final);
    assert!(s.blocks.placed > 0 && s.blocks.placed < s.blocks.total, "{:?}", s.blocks.placed);
    assert_eq!(s.metrics.tsr, Some(f64::from(s.blocks.placed) / f64::from(s.blocks.total)));
    let board = events[..half].iter().filter(|e| matches!(e.kind, EventKind::Board { .. })).count();
    assert_eq!(s.metrics.msg, board as u64, "Msg counts the board messages so far");
}

#[test]
fn flatcomm_and_central_dag_show_their_lines_and_who_each_window_is_for() {
    for (policy, kind) in [(Policy::Flatcomm, "chat"), (Policy::CentralDag, "manager")] {
        let (s, events) = fold(&setup(policy));
        let said = events.iter().filter(|e| e.kind.name() == kind).count();
        assert!(said > 0, "{policy} speaks");
        assert_eq!(s.board.lines.len(), said, "{policy}: every line");
        assert!(s.board.lines.iter().all(|l| l.channel == kind));
        assert!(!s.board.threads.is_empty(), "{policy} opens windows");
        for t in &s.board.threads {
            // The issue the window opened for names the bot and the item.
            let issue = events
                .iter()
                .find_map(|e| match &e.kind {
                    EventKind::Issue { agent, issue_id, item, .. } if Some(issue_id.0) == t.issue_id => {
                        Some((agent.0, item.clone()))
                    }
                    _ => None,
                })
                .expect("the window's issue");
            assert_eq!((t.requester, t.item.clone()), (Some(issue.0), issue.1), "{policy} w{}", t.window);
        }
    }
    // The manager's own lines have no sender; the bots' have no addressee.
    let (s, _) = fold(&setup(Policy::CentralDag));
    assert!(s.board.lines.iter().any(|l| l.from.is_none() && l.to.is_some()));
    assert!(s.board.lines.iter().any(|l| l.from.is_some() && l.to.is_none()));
}

#[test]
fn the_event_log_holds_every_event_with_the_bots_it_names() {
    let (s, events) = fold(&setup(Policy::Gated));
    assert_eq!(s.log.total, events.len() as u64);
    assert_eq!(s.log.entries.len(), events.len(), "a default episode fits in the log");
    for (e, ev) in s.log.entries.iter().zip(&events) {
        assert_eq!((e.t, e.kind), (ev.t, ev.kind.name()));
        assert!(!e.text.is_empty());
        if let EventKind::Action { agent, .. } | EventKind::Issue { agent, .. } | EventKind::Gate { agent, .. } =
            &ev.kind
        {
            assert_eq!(e.bots, [agent.0], "{}", e.text);
        }
        if let EventKind::Gate { features: f, .. } = &ev.kind {
            assert!(e.text.contains(&format!("C{} A{} D{} R{} H{}", f.c, f.a, f.d, f.r, f.h)), "{}", e.text);
        }
    }
    let confirm = s.log.entries.iter().find(|e| e.text.contains("CONFIRM_TRANSFER")).expect("a confirmation");
    assert_eq!(confirm.bots.len(), 2, "sender and addressee: {confirm:?}");
}

#[test]
fn the_scrubber_marks_issues_escalations_window_closes_and_the_end() {
    let setup = setup(Policy::Gated);
    let events = crate::common::run_events(&setup);
    let rec = Recording::new(gatecrew_cli::viewer_scene(&setup), events.clone());
    let marks = rec.marks();
    let count = |k: &str| marks.iter().filter(|m| m.kind == k).count();
    let issues = events.iter().filter(|e| matches!(e.kind, EventKind::Issue { .. })).count();
    assert_eq!(count("issue"), issues);
    let escalations = events.iter().filter(|e| matches!(&e.kind, EventKind::Gate { decision, .. } if *decision == gatecrew_protocol::trace::Decision::Escalate)).count();
    assert!(escalations > 0);
    assert_eq!(count("escalate"), escalations);
    assert!(count("confirmed") > 0);
    assert_eq!(count("end"), 1);
    assert_eq!(marks.last().map(|m| m.t), Some(rec.span().1), "the end is the last mark");
}
