//! Teammates out of sight are still teammates: a crew knows its members from the start,
//! so the gate's `alone` rule does not fire for a bot that sees nobody, and its request
//! reaches the teammates holding the item wherever they work (DESIGN section 5.2).

use std::path::Path;

use gatecrew_crew::{Policy, Setup};
use gatecrew_protocol::MessageKind;
use gatecrew_protocol::trace::{Decision, Event, EventKind, IssueName};
use gatecrew_tasks::{Aliases, TaskFile, TaskOptions};
use serde_json::{Value, json};

use crate::common::{data, root, run_events};

const WOOL: [&str; 3] = ["red_wool", "blue_wool", "lime_wool"];

/// A flat 30x20 floor of three wool colours in diagonal stripes, so that every bot's
/// share of it holds every colour whatever the split; bot `i` holds all of colour `i`.
fn striped_floor() -> Value {
    let (w, d) = (30usize, 20usize);
    let grid: Vec<Vec<&str>> = (0..d).map(|z| (0..w).map(|x| WOOL[(x + z) % 3]).collect()).collect();
    let mut counts = [0u32; 3];
    for row in &grid {
        for cell in row {
            counts[WOOL.iter().position(|c| c == cell).unwrap()] += 1;
        }
    }
    let inv: serde_json::Map<String, Value> = (0..3).map(|i| (i.to_string(), json!({ WOOL[i]: counts[i] }))).collect();
    json!({
        "type": "construction",
        "goal": "Make a floor with the blueprint",
        "agent_count": 3,
        "initial_inventory": inv,
        "blueprint": {"levels": [{"level": 0, "coordinates": [0, -60, 0], "placement": grid}]}
    })
}

fn setup_of(file: &Path, policy: Policy) -> Setup {
    let task = TaskFile::read(file).unwrap().import(None, &data(), &Aliases::none()).unwrap();
    gatecrew_tasks::setup(&task, file, &TaskOptions { data: data(), seed: 1, policy, agents: None }).unwrap()
}

fn complete(events: &[Event]) -> bool {
    matches!(events.last().map(|e| &e.kind), Some(EventKind::EpisodeEnd { complete: true, .. }))
}

/// Escalations decided while the bot saw no teammate (A = 0: nobody within 32 blocks
/// as far as it can see).
fn unseen_escalations(events: &[Event]) -> usize {
    events
        .iter()
        .filter(
            |e| matches!(&e.kind, EventKind::Gate { decision: Decision::Escalate, features, .. } if features.a == 0),
        )
        .count()
}

#[test]
fn a_floor_whose_wool_only_teammates_out_of_sight_hold_completes_under_gated() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("floor.json");
    std::fs::write(&file, serde_json::to_string(&json!({"floor": striped_floor()})).unwrap()).unwrap();
    let events = run_events(&setup_of(&file, Policy::Gated));
    let alone =
        events.iter().filter(|e| matches!(&e.kind, EventKind::Gate { rule: Some(r), .. } if r == "alone")).count();
    assert_eq!(alone, 0, "a crew of three is never alone");
    assert!(unseen_escalations(&events) > 0, "some request was made with nobody in sight");
    assert!(complete(&events), "the floor completes");
}

/// MindCraft's flower for three: every bot short of a colour a teammate holds asks for
/// it (before, the bot short of 174 wool never asked: it saw nobody).
#[test]
fn in_mindcrafts_flower_for_three_every_bot_short_of_wool_asks() {
    let file = root().join("tests/fixtures/external/minecollab/flower_three_agents.json");
    let events = run_events(&setup_of(&file, Policy::Gated));
    let mut short = std::collections::BTreeSet::new();
    let mut asked = std::collections::BTreeSet::new();
    for e in &events {
        match &e.kind {
            EventKind::Issue { agent, issue: IssueName::MissingMaterial, item: Some(item), .. } => {
                short.insert((*agent, item.clone()));
            }
            EventKind::Board { msg: MessageKind::RequestMaterial, from, item, .. } => {
                asked.insert((*from, item.clone()));
            }
            _ => {}
        }
    }
    assert!(!short.is_empty());
    let silent: Vec<_> = short.difference(&asked).collect();
    assert!(silent.is_empty(), "short of these and never asked: {silent:?}");
}
