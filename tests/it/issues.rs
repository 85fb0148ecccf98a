//! What an issue is (DESIGN section 8): one blocker of one agent. A blocker met
//! again is the same issue (the gate runs again under its id); items that arrive resolve
//! it whichever way they came; waits on a teammate's block are counted apart.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_crew::{Overrides, Policy, Setup};
use gatecrew_protocol::metrics::EpisodeMetrics;
use gatecrew_protocol::trace::{Event, EventKind, IssueName, ResolvedBy};
use gatecrew_protocol::{AgentId, IssueId};

fn run(path: &std::path::Path, policy: Policy) -> Vec<Event> {
    let setup = Setup::load(path, &Overrides { policy: Some(policy), ..Overrides::default() }).unwrap();
    crate::common::run_events(&setup)
}

/// Classes B and D: a bot lacks an item a teammate holds (or no one does), asks, is
/// refused or waits, and meets the same shortage again.
fn shortage_episodes() -> Vec<std::path::PathBuf> {
    crate::common::suite_episodes(|p, _| {
        let name = p.file_name().unwrap().to_str().unwrap();
        name.contains("-B-") || name.contains("-D-")
    })
}

#[test]
fn a_re_detected_blocker_is_one_issue() {
    let mut regated = 0;
    for path in shortage_episodes() {
        for policy in [Policy::Gated, Policy::RuleScore, Policy::NoGate, Policy::Flatcomm] {
            let events = run(&path, policy);
            let at = |e: &Event| format!("{}: {policy:?}: t={}", path.display(), e.t);
            // Open issues by (agent, item, kind): a second issue line for one that is
            // open would be a re-detection counted as a new issue.
            let mut open: BTreeMap<(AgentId, Option<String>, Option<u32>, IssueName), IssueId> = BTreeMap::new();
            let mut key_of: BTreeMap<IssueId, (AgentId, Option<String>, Option<u32>, IssueName)> = BTreeMap::new();
            let mut gated: BTreeSet<IssueId> = BTreeSet::new();
            for e in &events {
                match &e.kind {
                    EventKind::Issue { agent, issue_id, issue, item, node, .. } => {
                        // Item issues are keyed by the item, node issues by the node.
                        let node = if item.is_some() { None } else { *node };
                        let key = (*agent, item.clone(), node, *issue);
                        if let Some(prev) = open.get(&key) {
                            panic!("{}: {key:?} detected again as {issue_id} while {prev} is open", at(e));
                        }
                        open.insert(key.clone(), *issue_id);
                        key_of.insert(*issue_id, key);
                    }
                    EventKind::Gate { issue_id, .. } => {
                        assert!(key_of.contains_key(issue_id), "{}: a gate on an issue never detected", at(e));
                        if !gated.insert(*issue_id) {
                            regated += 1;
                        }
                    }
                    EventKind::Resolved { issue_id, .. } => {
                        let key = key_of.get(issue_id).unwrap_or_else(|| panic!("{}: resolved unknown", at(e)));
                        assert_eq!(open.remove(key), Some(*issue_id), "{}: resolved twice", at(e));
                    }
                    _ => {}
                }
            }
        }
    }
    // Not vacuous: bots do meet their blockers again, and the gate runs again on them.
    assert!(regated >= 20, "re-gated issues: {regated}");
}

#[test]
fn a_hand_over_resolves_the_issue_and_waits_are_counted_apart() {
    let (mut by_board, mut waits) = (0, 0);
    for path in shortage_episodes() {
        for policy in [Policy::Gated, Policy::NoGate, Policy::CentralDag] {
            let events = run(&path, policy);
            let mut m = EpisodeMetrics::default();
            let mut wait_ids = BTreeSet::new();
            for e in &events {
                m.observe(e);
                match &e.kind {
                    EventKind::Issue { issue_id, issue: IssueName::DependencyBlocked, .. } => {
                        wait_ids.insert(*issue_id);
                    }
                    EventKind::Resolved { issue_id, by, .. } => {
                        by_board += u32::from(*by == ResolvedBy::Board);
                        waits += u32::from(wait_ids.contains(issue_id));
                    }
                    _ => {}
                }
            }
            let issues = events.iter().filter(|e| matches!(e.kind, EventKind::Issue { .. })).count() as u64;
            assert_eq!(m.issues + m.waits, issues, "{}: every issue line counts once", path.display());
            assert_eq!(m.waits, wait_ids.len() as u64);
            assert!(m.resolved() <= m.issues && m.waits_cleared <= m.waits, "{}: {m:?}", path.display());
        }
    }
    assert!(by_board >= 50, "issues resolved by a teammate's items: {by_board}");
    assert!(waits >= 10, "waits that cleared: {waits}");
}
