//! Checking a plan and repairing it by rules, never by asking a model again: the
//! deterministic post-processing paper 000 (section 6.2) calls for. A planner bug, an
//! add that closes a cycle or a delete that empties a recipe leaves a flaw; each flaw
//! has one fix, applied until the plan is clean.

use std::collections::{BTreeMap, BTreeSet};

use super::{Kind, Plan, State, StepId};

/// Something wrong with a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// An edge from a node to itself.
    SelfLoop {
        /// The node pointing at itself.
        node: StepId,
    },
    /// A second edge between the same parent and child.
    Duplicate {
        /// Where both edges start.
        parent: StepId,
        /// Where both edges end.
        child: StepId,
        /// The later edge's creation order.
        seq: u64,
    },
    /// A cycle; `seq` is its newest edge.
    Cycle {
        /// The newest edge's parent.
        parent: StepId,
        /// The newest edge's child.
        child: StepId,
        /// Its creation order.
        seq: u64,
    },
    /// An edge into the root.
    RootHasParent {
        /// The node with the edge into the root.
        parent: StepId,
    },
    /// A leaf with children.
    LeafWithChildren {
        /// The leaf that has children.
        node: StepId,
    },
    /// A node the root does not reach and no other node points to.
    Orphan {
        /// The node cut off from the root.
        node: StepId,
    },
    /// An OR without alternatives that is still pending.
    EmptyOr {
        /// The OR with no alternative left.
        node: StepId,
    },
    /// An AND without children (not the root).
    EmptyAnd {
        /// The AND with no child left.
        node: StepId,
    },
}

impl Flaw {
    /// The name of the rule that fixes it, for the trace.
    pub fn rule(&self) -> &'static str {
        match self {
            Flaw::SelfLoop { .. } => "remove_self_loop",
            Flaw::Duplicate { .. } => "remove_duplicate_edge",
            Flaw::Cycle { .. } => "remove_newest_cycle_edge",
            Flaw::RootHasParent { .. } => "remove_edge_into_root",
            Flaw::LeafWithChildren { .. } => "reconnect_children_of_leaf",
            Flaw::Orphan { .. } => "reconnect_orphan_to_root",
            Flaw::EmptyOr { .. } => "fail_empty_or",
            Flaw::EmptyAnd { .. } => "remove_empty_and",
        }
    }
}

/// Every flaw of the plan, in a fixed order.
pub fn validate(plan: &Plan) -> Vec<Flaw> {
    let mut out = Vec::new();
    let links = plan.links();
    let mut seen: BTreeMap<(StepId, StepId), u64> = BTreeMap::new();
    for &(p, c, l) in &links {
        if p == c {
            out.push(Flaw::SelfLoop { node: p });
            continue;
        }
        if c == plan.root() {
            out.push(Flaw::RootHasParent { parent: p });
        }
        match seen.get(&(p, c)) {
            Some(first) => {
                out.push(Flaw::Duplicate { parent: p, child: c, seq: l.seq.max(*first) });
            }
            None => {
                seen.insert((p, c), l.seq);
            }
        }
    }
    if let Some(f) = find_cycle(plan) {
        out.push(f);
    }
    let reach = plan.reachable();
    for n in plan.ids() {
        let kids = plan.children(n);
        let step = plan.step(n);
        if step.kind.is_leaf() && !kids.is_empty() {
            out.push(Flaw::LeafWithChildren { node: n });
        }
        if !reach.contains(&n) && plan.parents(n).is_empty() {
            out.push(Flaw::Orphan { node: n });
        }
        if step.kind.is_or() && kids.is_empty() && step.state == State::Pending {
            out.push(Flaw::EmptyOr { node: n });
        }
        if step.kind == Kind::AllOf && kids.is_empty() {
            out.push(Flaw::EmptyAnd { node: n });
        }
    }
    out
}

/// A cycle, found by depth-first search from every node in id order; its newest edge.
fn find_cycle(plan: &Plan) -> Option<Flaw> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Closed,
    }
    let mut mark: BTreeMap<StepId, Mark> = BTreeMap::new();
    let seqs: BTreeMap<(StepId, StepId), u64> = plan.links().into_iter().map(|(p, c, l)| ((p, c), l.seq)).collect();
    for start in plan.ids() {
        if mark.contains_key(&start) {
            continue;
        }
        // Iterative DFS keeping the current path, so a back edge yields its cycle.
        let mut stack: Vec<(StepId, Vec<StepId>, usize)> = vec![(start, plan.children(start), 0)];
        mark.insert(start, Mark::Open);
        while let Some((node, kids, i)) = stack.last_mut() {
            if *i >= kids.len() {
                mark.insert(*node, Mark::Closed);
                stack.pop();
                continue;
            }
            let c = kids[*i];
            *i += 1;
            let node = *node;
            match mark.get(&c) {
                Some(Mark::Open) if c != node => {
                    // The cycle: c .. node -> c. Its newest edge goes.
                    let on: Vec<StepId> = stack.iter().map(|(n, _, _)| *n).collect();
                    let from = on.iter().position(|n| *n == c).unwrap_or(0);
                    let cyc = &on[from..];
                    let mut edges: Vec<(StepId, StepId)> = cyc.windows(2).map(|w| (w[0], w[1])).collect();
                    edges.push((node, c));
                    let (p, ch, seq) = edges
                        .into_iter()
                        .map(|(p, ch)| (p, ch, seqs.get(&(p, ch)).copied().unwrap_or(0)))
                        .max_by_key(|(_, _, s)| *s)?;
                    return Some(Flaw::Cycle { parent: p, child: ch, seq });
                }
                Some(_) => {}
                None => {
                    mark.insert(c, Mark::Open);
                    let grand = plan.children(c);
                    stack.push((c, grand, 0));
                }
            }
        }
    }
    None
}

/// A fix that was applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// The repair rule's name, as the trace's `repairs` lists it.
    pub rule: &'static str,
    /// The node it was about.
    pub node: StepId,
}

/// Repairs the plan rule by rule until it is clean (bounded: every fix removes an edge
/// or a node, or settles a node for good). Returns the fixes in order.
pub fn repair(plan: &mut Plan) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let mut settled: BTreeSet<StepId> = BTreeSet::new();
    for _ in 0..(4 * plan.len() + 16) {
        let flaws = validate(plan);
        let Some(flaw) = flaws.into_iter().find(|f| !matches!(f, Flaw::EmptyOr { node } if settled.contains(node)))
        else {
            break;
        };
        let node = match flaw {
            Flaw::SelfLoop { node } => {
                plan.unlink(node, node);
                node
            }
            Flaw::Duplicate { seq, child, .. } | Flaw::Cycle { seq, child, .. } => {
                plan.unlink_seq(seq);
                child
            }
            Flaw::RootHasParent { parent } => {
                let root = plan.root();
                plan.unlink(parent, root);
                parent
            }
            Flaw::LeafWithChildren { node } => {
                let up = plan.parents(node).first().copied().unwrap_or(plan.root());
                for c in plan.children(node) {
                    plan.unlink(node, c);
                    if !plan.children(up).contains(&c) && c != up {
                        plan.link(up, c);
                    }
                }
                node
            }
            Flaw::Orphan { node } => {
                let root = plan.root();
                plan.link(root, node);
                node
            }
            Flaw::EmptyOr { node } => {
                plan.set_state(node, State::Failed);
                settled.insert(node);
                node
            }
            Flaw::EmptyAnd { node } => {
                for p in plan.parents(node) {
                    plan.unlink(p, node);
                }
                plan.remove(node);
                node
            }
        };
        tracing::debug!(rule = flaw.rule(), node = node.index(), "plan repaired");
        metrics::counter!("gatecrew_hitl_repairs_total", "rule" => flaw.rule()).increment(1);
        fixes.push(Fix { rule: flaw.rule(), node });
    }
    fixes
}
