//! The gate's ablation as the paper defines it and the gate in front of each baseline's
//! channel (DESIGN section 6): `rule_only` asks about what its rules leave, and the
//! gated baselines (`gated_flatcomm`, `gated_central_dag`) put an issue on their channel
//! only after the bot's gate escalated it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_gating::GateSpec;
use gatecrew_protocol::trace::{Decision, Event, EventKind, Tier, WindowEvent};
use gatecrew_protocol::{AgentId, CloseOutcome, IssueId};

use crate::common::{default_config, muted_episodes, run_events, suite_episodes};

fn setup(path: &std::path::Path, policy: Policy) -> Setup {
    Setup::load(path, &Overrides { policy: Some(policy), ..Overrides::default() }).unwrap()
}

/// The default house and a spread of suite v1 episodes (every class, muted holders too).
fn episodes() -> Vec<PathBuf> {
    let mut v = vec![default_config()];
    v.extend(
        suite_episodes(|p, _| p.file_name().is_some_and(|n| n.to_string_lossy().contains("-s0")))
            .into_iter()
            .step_by(5),
    );
    v.extend(muted_episodes().into_iter().take(3));
    v
}

/// The latest gate decision about each issue, in trace order, and for every window
/// opened the decision standing for its issue when it opened.
fn decisions_at_windows(evs: &[Event]) -> Vec<(IssueId, Option<Decision>)> {
    let mut last: BTreeMap<IssueId, Decision> = BTreeMap::new();
    let mut at = Vec::new();
    for e in evs {
        match e.kind {
            EventKind::Gate { issue_id, decision, .. } => {
                last.insert(issue_id, decision);
            }
            EventKind::Window { event: WindowEvent::Open, issue_id: Some(id), .. } => {
                at.push((id, last.get(&id).copied()));
            }
            _ => {}
        }
    }
    at
}

/// Requestable issues the gate kept local (what no gateless baseline does).
fn kept_local(evs: &[Event]) -> usize {
    evs.iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::Gate { decision: Decision::StayLocal, context: Some(c), .. } if c.requestable)
        })
        .count()
}

#[test]
fn rule_only_asks_about_what_its_rules_leave_even_where_the_score_stays_local() {
    let theta_low = GateSpec::default().theta_low;
    let mut low_score_requests = 0;
    for path in episodes() {
        let evs = run_events(&setup(&path, Policy::RuleOnly));
        let opened: std::collections::BTreeSet<IssueId> = evs
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Window { event: WindowEvent::Open, issue_id, .. } => issue_id,
                _ => None,
            })
            .collect();
        for e in &evs {
            let EventKind::Gate { issue_id, tier, rule, score, decision, context, .. } = &e.kind else { continue };
            // Past tier 1 nothing stays local: the policy's pass-through escalates.
            if *tier == Tier::Policy {
                assert_eq!(*decision, Decision::Escalate, "{}: {issue_id} left by the rules", path.display());
                assert!(rule.is_none() && context.is_some_and(|c| c.requestable));
                // The score would have kept it local (tier 2 of `gated`), yet a request
                // went out: the window of its issue opened.
                if *score < theta_low && opened.contains(issue_id) {
                    low_score_requests += 1;
                }
            }
        }
    }
    assert!(low_score_requests > 0, "no episode showed a request the score would have kept local");
}

#[test]
fn gated_flatcomm_chats_about_an_issue_only_after_its_gate_escalates() {
    let (mut filtered, mut fewer) = (0, 0);
    for path in episodes() {
        let gated = run_events(&setup(&path, Policy::GatedFlatcomm));
        let name = path.display();
        for (id, d) in decisions_at_windows(&gated) {
            assert_eq!(d, Some(Decision::Escalate), "{name}: a request about {id} without an escalation");
        }
        let escalations =
            gated.iter().filter(|e| matches!(e.kind, EventKind::Gate { decision: Decision::Escalate, .. })).count();
        let opened = gated
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Window { event: WindowEvent::Open, issue_id: Some(_), .. }))
            .count();
        assert_eq!(escalations, opened, "{name}: every escalation is one request line");
        assert!(gated.iter().all(|e| !matches!(e.kind, EventKind::Board { .. })), "{name}: the channel is the chat");
        filtered += kept_local(&gated);
        let chat = |evs: &[Event]| evs.iter().filter(|e| matches!(e.kind, EventKind::Chat { .. })).count();
        let plain = run_events(&setup(&path, Policy::Flatcomm));
        assert_eq!(kept_local(&plain), 0, "{name}: flatcomm has no gate");
        fewer += usize::from(chat(&gated) < chat(&plain));
    }
    assert!(filtered > 0, "the gate kept no requestable issue local");
    assert!(fewer > 0, "the gate never saved a chat line");
}

#[test]
fn gated_central_dag_reports_an_issue_only_after_its_gate_escalates() {
    let mut filtered = 0;
    for path in episodes() {
        let evs = run_events(&setup(&path, Policy::GatedCentralDag));
        let name = path.display();
        for (id, d) in decisions_at_windows(&evs) {
            assert_eq!(d, Some(Decision::Escalate), "{name}: a delivery for {id} without an escalation");
        }
        // A bot speaks to the manager at its first step (its first report), with an
        // escalation (the issue and a fresh report), or to confirm a delivery (which
        // closes the window at the same tick): never about an issue kept local.
        let mut spoke: BTreeMap<AgentId, bool> = BTreeMap::new();
        for (i, e) in evs.iter().enumerate() {
            let EventKind::Manager { from: Some(a), .. } = e.kind else { continue };
            let first = !spoke.insert(a, true).unwrap_or(false);
            let same_tick = || evs.iter().filter(|f| f.t == e.t);
            let escalated = same_tick()
                .any(|f| matches!(f.kind, EventKind::Gate { agent, decision: Decision::Escalate, .. } if agent == a));
            let confirms = same_tick().any(|f| {
                matches!(
                    f.kind,
                    EventKind::Window { event: WindowEvent::Close, outcome: Some(CloseOutcome::Confirmed), .. }
                )
            });
            assert!(first || escalated || confirms, "{name}: line {i} from {a} at t={} with no escalation", e.t);
        }
        filtered += kept_local(&evs);
    }
    assert!(filtered > 0, "the gate kept no requestable issue local");
}

#[test]
fn the_gated_baselines_run_alike_on_both_runtimes() {
    for policy in [Policy::GatedFlatcomm, Policy::GatedCentralDag] {
        let s = setup(&default_config(), policy);
        assert_eq!(crate::episode::stepper_trace(&s), crate::episode::actor_trace(&s), "{policy}");
    }
}
