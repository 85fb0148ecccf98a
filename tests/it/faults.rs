//! Crews under injected faults: every fault of DESIGN section 3 at random
//! rates, random seeds and policies. Whatever happens, no item is created or lost, the
//! episode ends by its tick limit, no idle agent waits on a window past its deadline,
//! no issue is escalated again inside its cooldown, and the same seed replays the same
//! trace.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_protocol::trace::{EventKind, GateAction, MessageFault};
use gatecrew_protocol::{AgentId, IssueId};
use gatecrew_world::GameData;
use proptest::prelude::*;

use crate::common::{data, default_config};

/// The fault rates of one run, as a `[faults]` table.
#[derive(Debug, Clone)]
pub struct Rates {
    pub action: f64,
    pub path: f64,
    pub drop: f64,
    pub delay: f64,
    pub duplicate: f64,
    pub crash: f64,
    pub mute: Option<u32>,
}

impl Rates {
    /// Sets these rates in a config's `[faults]` table, keeping what the file has
    /// (a suite episode's muted teammate).
    fn apply(&self, text: &str) -> String {
        let mut doc: toml::Table = text.parse().unwrap();
        let faults = doc.entry("faults").or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let t = faults.as_table_mut().unwrap();
        for (k, v) in [
            ("action_failure_rate", self.action),
            ("path_block_rate", self.path),
            ("message_drop_rate", self.drop),
            ("message_delay_rate", self.delay),
            ("message_duplicate_rate", self.duplicate),
            ("crash_rate", self.crash),
        ] {
            t.insert(k.into(), toml::Value::Float(v));
        }
        t.insert("message_delay_ticks".into(), toml::Value::Integer(15));
        if let Some(a) = self.mute {
            t.insert("mute".into(), toml::Value::Array(vec![toml::Value::Integer(i64::from(a))]));
        }
        toml::to_string(&doc).unwrap()
    }
}

fn rates() -> impl Strategy<Value = Rates> {
    (0.0..0.15f64, 0.0..0.15f64, 0.0..0.3f64, 0.0..0.3f64, 0.0..0.3f64, 0.0..0.05f64, prop::option::of(0..3u32))
        .prop_map(|(action, path, drop, delay, duplicate, crash, mute)| Rates {
            action,
            path,
            drop,
            delay,
            duplicate,
            crash,
            mute,
        })
}

/// A crew config (its text, read from `path`) with faults on.
pub fn faulted(path: &std::path::Path, rates: &Rates, seed: u64, policy: Policy, data: Arc<GameData>) -> Setup {
    let text = rates.apply(&std::fs::read_to_string(path).unwrap());
    let ov = Overrides { seed: Some(seed), policy: Some(policy), ..Overrides::default() };
    Setup::parse_with_data(&text, path, &ov, data).unwrap_or_else(|e| panic!("{e}"))
}

pub use gatecrew_crew::invariants::{Checked, run_checked as run};

fn check(setup: &Setup) -> Result<Checked, TestCaseError> {
    let r = run(setup);
    prop_assert!(r.violations.is_empty(), "broken invariants: {:?}", r.violations);
    Ok(r)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn faulted_episodes_keep_every_invariant(
        rates in rates(),
        seed in 0..1_000u64,
        policy in prop::sample::select(vec![Policy::Gated, Policy::RuleOnly, Policy::Flatcomm, Policy::CentralDag]),
    ) {
        let setup = faulted(&default_config(), &rates, seed, policy, data());
        check(&setup)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random message sequences through the board (structure-aware scripts of posts,
    /// raw wire JSON, strangers, duplicates and expiries, built from the bytes): a
    /// rejected post changes nothing, at most one offer per window, a closed window
    /// never reopens (the fuzz harness's checks, here on proptest's inputs).
    #[test]
    fn random_board_message_sequences_keep_the_board_consistent(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        gatecrew_fuzzing::board_message(&bytes);
    }
}

#[test]
fn message_faults_happen_and_replay_byte_for_byte() {
    let rates = Rates { action: 0.05, path: 0.05, drop: 0.2, delay: 0.2, duplicate: 0.2, crash: 0.02, mute: None };
    let mut all = Vec::new();
    for seed in 1..=6 {
        let setup = faulted(&default_config(), &rates, seed, Policy::Gated, data());
        let a = check(&setup).unwrap();
        assert_eq!(a.events, run(&setup).events, "seed {seed}: same seed and faults, same trace");
        all.extend(a.events);
    }
    let count = |f: MessageFault| {
        all.iter().filter(|e| matches!(&e.kind, EventKind::MessageFault { fault, .. } if *fault == f)).count()
    };
    for f in [MessageFault::Dropped, MessageFault::Delayed, MessageFault::Duplicated] {
        assert!(count(f) > 0, "no {f:?} message was injected");
    }
    let kind = |k: &str| all.iter().filter(|e| e.kind.name() == k).count();
    assert!(kind("restart") > 0, "random crashes were injected and survived");
    // A duplicate reaches the board twice and the copy is refused as such: nothing is
    // offered, confirmed or handed over twice.
    let dup_rejects =
        all.iter().filter(|e| matches!(&e.kind, EventKind::BoardReject { error, .. } if *error == gatecrew_protocol::RejectKind::Duplicate)).count();
    assert_eq!(dup_rejects, count(MessageFault::Duplicated), "every copy was refused as a duplicate");
}

#[test]
fn bad_fault_settings_name_their_key_and_line() {
    let text = std::fs::read_to_string(default_config()).unwrap() + "\n[faults]\nmessage_drop_rate = 1.5\n";
    let err = Setup::parse_with_data(&text, &default_config(), &Overrides::default(), data()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("faults.message_drop_rate") && msg.contains("1.5"), "{msg}");
    let line = text.lines().position(|l| l.starts_with("message_drop_rate")).unwrap() + 1;
    assert!(msg.contains(&format!(":{line}")), "{msg} should name line {line}");
    let text = std::fs::read_to_string(default_config()).unwrap()
        + "\n[faults]\npath_block_rate = 0.1\npath_block = \"air\"\n";
    let msg = Setup::parse_with_data(&text, &default_config(), &Overrides::default(), data()).unwrap_err().to_string();
    assert!(msg.contains("faults.path_block"), "{msg}");
}

#[test]
fn the_actor_runtime_injects_the_same_faults_as_the_stepper() {
    let rates = Rates { action: 0.05, path: 0.05, drop: 0.15, delay: 0.15, duplicate: 0.15, crash: 0.02, mute: None };
    let setup = faulted(&default_config(), &rates, 5, Policy::Gated, data());
    let actors = crate::episode::actor_trace(&setup);
    assert!(crate::episode::events(&actors).iter().any(|e| e.kind.name() == "restart"), "a crash happened");
    assert_eq!(actors, crate::episode::stepper_trace(&setup), "same faults, same trace, on either runtime");
}

/// Class D (collaboration fails: nobody can supply, no local source) with faults on:
/// every chain of issues on one missing item ends in LOCAL_RECOVER or LOCAL_SKIP (a
/// gate decision, or the fallback after the board failed) or was resolved, and
/// requests are spaced by the window and the cooldown: nothing loops.
#[test]
fn class_d_episodes_with_faults_end_locally_and_never_loop() {
    let suite = crate::common::root().join("configs/suite");
    let m = gatecrew_suite::Manifest::load(&suite).unwrap();
    let rates = Rates { action: 0.05, path: 0.05, drop: 0.1, delay: 0.1, duplicate: 0.1, crash: 0.01, mute: None };
    let mut chains_checked = 0;
    use gatecrew_protocol::trace::SuiteClass;
    for e in m.episode.iter().filter(|e| matches!(e.class, SuiteClass::D | SuiteClass::DImpossible)) {
        let setup = faulted(&suite.join(&e.file), &rates, e.seed, Policy::Gated, data());
        let r = check(&setup).unwrap_or_else(|err| panic!("{}: {err}", e.id));
        let mut item_of = HashMap::new();
        let mut chains: BTreeMap<(AgentId, String), Vec<(IssueId, GateAction)>> = BTreeMap::new();
        let mut resolved = std::collections::HashSet::new();
        for ev in &r.events {
            match &ev.kind {
                EventKind::Issue { issue_id, item: Some(item), issue, .. } if issue.as_str() == "missing_material" => {
                    item_of.insert(*issue_id, item.clone());
                }
                EventKind::Gate { agent, issue_id, action: Some(a), .. }
                | EventKind::Fallback { agent, issue_id, action: a, .. } => {
                    if let Some(item) = item_of.get(issue_id) {
                        chains.entry((*agent, item.clone())).or_default().push((*issue_id, *a));
                    }
                }
                EventKind::Resolved { issue_id, .. } => {
                    resolved.insert(*issue_id);
                }
                _ => {}
            }
        }
        let end = r.events.last().map_or(0, |ev| ev.t);
        let spacing = setup.board.window_ticks + setup.gate.spec().cooldown_ticks;
        for ((agent, item), chain) in &chains {
            let requests = chain.iter().filter(|(_, a)| *a == GateAction::RequestMaterial).count() as u64;
            assert!(
                requests <= 1 + end / spacing,
                "{}: {agent} asked for {item} {requests} times in {end} ticks",
                e.id
            );
            let &(last_issue, last) = chain.last().unwrap();
            assert!(
                last != GateAction::RequestMaterial || resolved.contains(&last_issue),
                "{}: {agent}'s issues on {item} end with an unanswered request: {chain:?}",
                e.id
            );
            chains_checked += 1;
        }
    }
    assert!(chains_checked >= 50, "only {chains_checked} issue chains in class D");
}

/// A muted bot is cut off the board both ways (docs/baselines.md, "What a muted or
/// failed bot does"): it posts nothing, hears no request and hands nothing over, under
/// every policy. A hand-over queued while answering a request whose offer the mute
/// drops would let every "muted holder" episode complete through the muted bot.
#[test]
fn a_muted_holder_hands_nothing_over_under_any_policy() {
    let muted = crate::common::muted_episodes();
    for path in &muted {
        for policy in [Policy::Gated, Policy::NoGate, Policy::Flatcomm, Policy::CentralDag] {
            let setup = Setup::load(path, &Overrides { policy: Some(policy), ..Overrides::default() }).unwrap();
            let mute: Vec<AgentId> = setup.faults.mute.iter().map(|&a| AgentId(a)).collect();
            for e in &crate::common::run_events(&setup) {
                match &e.kind {
                    EventKind::Action { agent, action, .. } if mute.contains(agent) => {
                        assert_ne!(action.as_str(), "give", "{}: {policy:?}: muted {agent} gave", path.display());
                    }
                    EventKind::Board { from, .. } => {
                        assert!(!mute.contains(from), "{}: {policy:?}: muted {from} posted", path.display());
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(muted.len() >= 10, "the suite has muted-holder episodes: {}", muted.len());
}
