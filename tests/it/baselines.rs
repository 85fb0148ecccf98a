//! The baselines know no more than their real counterparts (docs/baselines.md):
//! `central_dag`'s manager learns inventories only from the reports the agents send,
//! each a counted manager line, and a muted bot neither reports nor is sent to give.
//! (The manager's own tests, with beliefs that disagree with the world, are in
//! `crew/src/episode/{manager,baseline}.rs`.)

use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{Event, EventKind};

use crate::common::{default_config, muted_episodes, run_events};
use crate::episode::{actor_trace, events, stepper_trace};

fn central(path: &std::path::Path) -> Setup {
    Setup::load(path, &Overrides { policy: Some(Policy::CentralDag), ..Overrides::default() }).unwrap()
}

/// Every bot reports its inventory at its first step, before the manager says anything
/// to anyone, and each report is a manager line counted in Msg and its tokens.
#[test]
fn every_bot_reports_before_the_manager_directs_anyone_and_reports_are_counted() {
    let setup = central(&default_config());
    let evs = run_events(&setup);
    let first_directive = evs
        .iter()
        .position(|e| matches!(e.kind, EventKind::Manager { from: None, .. }))
        .expect("the default house needs the manager");
    for a in 0..3 {
        let first =
            evs.iter().position(|e| matches!(e.kind, EventKind::Manager { from: Some(f), .. } if f == AgentId(a)));
        assert!(first.is_some_and(|i| i < first_directive && evs[i].t == 0), "bot{a} reports at its first step");
    }
    let mut m = EpisodeMetrics::default();
    evs.iter().for_each(|e| m.observe(e));
    let lines: Vec<u32> = evs
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Manager { tokens, .. } => Some(tokens),
            _ => None,
        })
        .collect();
    let board = evs.iter().filter(|e| matches!(e.kind, EventKind::Board { .. })).count() as u64;
    assert_eq!(m.msg, board + lines.len() as u64, "every manager line is a message");
    assert_eq!(m.msg_tokens, lines.iter().map(|&t| u64::from(t)).sum::<u64>());
}

/// A muted holder under `central_dag`: it never reports, so the manager never sends it
/// to give (it is never written to at all: it raises nothing the manager could answer),
/// and it hands nothing over.
#[test]
fn the_manager_never_sends_a_muted_bot_to_give() {
    let muted = muted_episodes();
    for path in &muted {
        let setup = central(path);
        let mute: Vec<AgentId> = setup.faults.mute.iter().map(|&a| AgentId(a)).collect();
        for e in run_events(&setup) {
            let name = path.display();
            match e.kind {
                EventKind::Manager { from: Some(a), .. } => assert!(!mute.contains(&a), "{name}: muted {a} reported"),
                EventKind::Manager { to: Some(a), .. } => {
                    assert!(!mute.contains(&a), "{name}: the manager wrote to muted {a}")
                }
                EventKind::Action { agent, action, .. } if mute.contains(&agent) => {
                    assert_ne!(action.as_str(), "give", "{name}: muted {agent} gave");
                }
                _ => {}
            }
        }
    }
    assert!(muted.len() >= 10, "the suite has muted-holder episodes: {}", muted.len());
}

/// A muted bot's asks never reach the manager, so no re-plan ever answers them: like a
/// bot whose issue a drop fault lost, it hears nothing for a board window and recovers
/// locally, instead of waiting to the end of the episode: waiting, every muted bot with
/// an issue of its own would end "waiting for the manager's re-plan", and central_dag
/// would lose most of suite v2's class D.
#[test]
fn a_muted_bot_does_not_wait_for_the_manager_forever() {
    let mut lost = 0;
    // v1's muted holders have no shortage of their own; v2's often do.
    let dir = crate::common::root().join("configs/suite-v2/episodes");
    let mut v2: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    v2.retain(|p| std::fs::read_to_string(p).unwrap().contains("mute = ["));
    v2.sort();
    for path in muted_episodes().into_iter().chain(v2) {
        let setup = central(&path);
        let mute: Vec<AgentId> = setup.faults.mute.iter().map(|&a| AgentId(a)).collect();
        for e in run_events(&setup) {
            match &e.kind {
                EventKind::Unfinished { agent, why, .. } if mute.contains(agent) => {
                    assert!(!why.contains("waiting for the manager"), "{}: {agent}: {why}", path.display());
                }
                EventKind::Fallback { agent, .. } if mute.contains(agent) => lost += 1,
                _ => {}
            }
        }
    }
    assert!(lost >= 3, "muted bots' issues that fell back to the local solver: {lost}");
}

/// The reports change the order of a round (they reach the manager first): the actor
/// runtime still gives the stepper's trace byte for byte, on the default house (also
/// with message faults and crashes, so that reports get lost) and on a muted-holder
/// episode.
#[test]
fn central_dag_actors_match_the_stepper_with_reports() {
    let faults = gatecrew_crew::FaultSpec {
        message_drop_rate: 0.3,
        message_delay_rate: 0.1,
        message_duplicate_rate: 0.1,
        crash_rate: 0.02,
        ..gatecrew_crew::FaultSpec::default()
    };
    let ov =
        Overrides { policy: Some(Policy::CentralDag), seed: Some(5), faults: Some(faults), ..Overrides::default() };
    let faulted = Setup::load(&default_config(), &ov).unwrap();
    let stepper = stepper_trace(&faulted);
    let lost = |e: &Event| matches!(&e.kind, EventKind::MessageFault { msg, .. } if *msg == gatecrew_protocol::trace::LineKind::Manager);
    assert!(events(&stepper).iter().any(lost), "a line to the manager was lost");
    assert_eq!(actor_trace(&faulted), stepper, "faulted");
    let muted = muted_episodes().remove(0);
    for path in [default_config(), muted] {
        let setup = central(&path);
        let stepper = stepper_trace(&setup);
        assert!(events(&stepper).iter().any(|e| matches!(e.kind, EventKind::Manager { from: Some(_), .. })));
        assert_eq!(actor_trace(&setup), stepper, "{}", path.display());
    }
}
