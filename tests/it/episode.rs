//! Whole episodes: the default house, determinism, and the actor runtime matching the
//! synchronous stepper byte for byte.

use gatecrew_crew::Policy as GatePolicy;
use gatecrew_crew::{EndReason, Overrides, Setup};
use gatecrew_protocol::trace::{Decision, Event, EventKind, ResolvedBy, Tier, TraceReader, TraceWriter};

use crate::common::{default_config, default_setup};

/// The trace of an episode on the stepper.
pub fn stepper_trace(setup: &Setup) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new());
    gatecrew_crew::run(setup, &mut |e: &Event| w.write(e).unwrap());
    w.into_inner()
}

/// The trace of an episode on the actor runtime.
pub fn actor_trace(setup: &Setup) -> Vec<u8> {
    let buf = SharedBuf::default();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(gatecrew_actors::run_episode(setup, Box::new(buf.clone()), None)).unwrap();
    buf.take()
}

/// A writer the test keeps a handle on.
#[derive(Clone, Default)]
pub struct SharedBuf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl SharedBuf {
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

impl std::io::Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub fn events(bytes: &[u8]) -> Vec<Event> {
    TraceReader::new(bytes).map(|r| r.unwrap()).collect()
}

#[test]
fn the_default_episode_builds_the_house_with_one_transfer_and_one_local_fix() {
    let setup = default_setup();
    let evs = events(&stepper_trace(&setup));
    let Some(EventKind::EpisodeEnd { tsr, complete, reason, .. }) = evs.last().map(|e| &e.kind) else { panic!() };
    assert_eq!((*tsr, *complete, *reason), (1.0, true, gatecrew_protocol::trace::EndReason::Complete));
    let confirmed = evs
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::Window { outcome: Some(gatecrew_protocol::CloseOutcome::Confirmed), .. })
        })
        .count();
    assert!(confirmed >= 1, "at least one transfer through the board");
    let local = evs.iter().filter(|e| matches!(e.kind, EventKind::Resolved { by: ResolvedBy::Local, .. })).count();
    let recovered = evs.iter().filter(|e| matches!(e.kind, EventKind::Recovery { ok: true, .. })).count();
    assert!(local >= 1 && recovered >= 1, "at least one issue fixed by the local solver");
}

#[test]
fn every_issue_is_gated_in_order_and_every_escalation_gets_a_window() {
    for policy in [GatePolicy::Gated, GatePolicy::RuleScore, GatePolicy::RuleOnly, GatePolicy::NoGate] {
        let setup =
            Setup::load(&default_config(), &Overrides { policy: Some(policy), ..Overrides::default() }).unwrap();
        let evs = events(&stepper_trace(&setup));
        let issues: Vec<_> = evs
            .iter()
            .filter_map(|e| if let EventKind::Issue { issue_id, .. } = e.kind { Some(issue_id) } else { None })
            .collect();
        let gates: Vec<_> = evs
            .iter()
            .filter_map(|e| if let EventKind::Gate { issue_id, .. } = e.kind { Some(issue_id) } else { None })
            .collect();
        // Each issue is gated when detected; a blocker met again is the same issue and
        // is gated again under its id (DESIGN section 8), never before it was detected.
        let mut first_gates = gates.clone();
        let mut seen = std::collections::BTreeSet::new();
        first_gates.retain(|g| seen.insert(*g));
        assert_eq!(issues, first_gates, "{policy:?}: every issue gated, in order of detection");
        let escalations =
            evs.iter().filter(|e| matches!(e.kind, EventKind::Gate { decision: Decision::Escalate, .. })).count();
        let opened = evs.iter().filter(|e| matches!(e.kind, EventKind::Window { issue_id: Some(_), .. })).count();
        assert_eq!(escalations, opened, "{policy:?}");
        if policy == GatePolicy::RuleOnly {
            // What the rules leave is asked about: some escalation is the policy's own.
            let passed = evs
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Gate { tier: Tier::Policy, decision: Decision::Escalate, .. }))
                .count();
            assert!(passed >= 1, "rule_only escalates what its rules leave");
        }
    }
}

#[test]
fn same_seed_same_trace_byte_for_byte() {
    let a = stepper_trace(&default_setup());
    let b = stepper_trace(&default_setup());
    assert_eq!(a, b);
    let other = Setup::load(&default_config(), &Overrides { seed: Some(8), ..Overrides::default() }).unwrap();
    let c = stepper_trace(&other);
    assert_ne!(a, c, "the seed is part of the trace");
}

#[test]
fn actors_and_stepper_give_the_same_trace() {
    let setup = default_setup();
    let stepper = stepper_trace(&setup);
    let actors = actor_trace(&setup);
    assert!(!stepper.is_empty());
    assert_eq!(String::from_utf8(actors).unwrap(), String::from_utf8(stepper).unwrap());
    // And again: scheduling differences between runs do not leak into the trace.
    assert_eq!(actor_trace(&setup), actor_trace(&setup));
}

/// Ten bots stalled at 95 of 96 blocks: a bot went for an oak log a teammate had
/// already taken, its local recovery failed, and every revisit found the same gate
/// features and only set the planks aside again, so it neither tried another tree nor
/// asked, until it gave up. A failed recovery is now carried out again on the revisit.
#[test]
fn the_default_house_completes_with_every_crew_size_from_one_to_sixteen() {
    for agents in 1..=16 {
        let setup =
            Setup::load(&default_config(), &Overrides { agents: Some(agents), ..Overrides::default() }).unwrap();
        let (f, _) = gatecrew_crew::run_to_end(&setup, &mut |_: &Event| {});
        assert_eq!(f.reason, EndReason::Complete, "{agents} bots: {f:?}");
        assert_eq!(f.progress.correct, f.progress.total, "{agents} bots: {f:?}");
    }
}

#[test]
fn two_bots_and_other_policies_finish_without_stalling_forever() {
    for (agents, policy) in [(2, GatePolicy::Gated), (4, GatePolicy::NoGate), (1, GatePolicy::Gated)] {
        let setup = Setup::load(
            &default_config(),
            &Overrides { agents: Some(agents), policy: Some(policy), ..Overrides::default() },
        )
        .unwrap();
        let (f, _) = gatecrew_crew::run_to_end(&setup, &mut |_: &Event| {});
        assert!(f.reason != EndReason::TickLimit || f.progress.tick <= setup.tick_limit);
        assert!(f.progress.correct > f.progress.total / 2, "{agents} bots, {policy:?}: {f:?}");
    }
}
