use super::*;

/// A payload for the tests: how it branches and whether it is pending.
#[derive(Debug, Clone, Copy, PartialEq)]
struct P(Branch, bool);

impl Branching for P {
    fn branch(&self) -> Branch {
        self.0
    }
    fn pending(&self) -> bool {
        self.1
    }
}

/// A link that keeps when it was made, like the partner's.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Made(u32, u64);

impl ChildLink for Made {
    fn new(rank: u32, seq: u64) -> Self {
        Made(rank, seq)
    }
    fn rank(&self) -> u32 {
        self.0
    }
    fn set_rank(&mut self, rank: u32) {
        self.0 = rank;
    }
    fn seq(&self) -> u64 {
        self.1
    }
}

/// Children come in rank order; `link_at` shifts the later siblings; a shared child has
/// two parents; unlinking by creation order removes that one edge.
#[test]
fn children_keep_their_order_through_insertions_and_unlinks() {
    let mut g: AndOr<P, Made> = AndOr::default();
    let root = g.add(P(Branch::Tasks, true));
    let [a, b, c] = [0; 3].map(|_| g.add(P(Branch::Leaf, true)));
    g.link(root, a);
    g.link(root, b);
    g.link_at(root, c, 1);
    assert_eq!(g.children(root), [a, c, b]);
    let or = g.add(P(Branch::Or, true));
    g.link(or, c);
    assert_eq!(g.parents(c), [root, or]);
    let seq_of = |g: &AndOr<P, Made>, p, x| g.links().into_iter().find(|(q, y, _)| (*q, *y) == (p, x)).map(|l| l.2.1);
    let s = seq_of(&g, or, c).unwrap();
    assert!(g.unlink_seq(s));
    assert_eq!(g.parents(c), [root]);
    assert!(g.unlink(root, c) && !g.unlink(root, c));
    assert_eq!(g.children(root), [a, b]);
    g.link(root, c);
    assert_eq!(g.children(root), [a, b, c]);
}

/// The crew's links are bare ranks: appended children number 0, 1, 2 as the crew's
/// build numbers them; prerequisites are not children.
#[test]
fn bare_ranks_and_prerequisites() {
    let mut g: AndOr<P> = AndOr::default();
    let root = g.add(P(Branch::Tasks, true));
    let kids: Vec<NodeId> = (0..3).map(|_| g.add(P(Branch::Leaf, true))).collect();
    for k in &kids {
        g.link(root, *k);
    }
    g.add_requires(kids[0], kids[2]);
    g.add_requires(kids[2], kids[1]);
    assert_eq!(g.links().iter().map(|l| l.2).collect::<Vec<u32>>(), [0, 1, 2]);
    assert_eq!(g.children(root), kids);
    assert_eq!(g.parent(kids[2]), Some(root));
    let mut out = Vec::new();
    g.descendants_into(kids[0], &mut out);
    assert_eq!(out, [kids[1], kids[2]]);
    assert_eq!(g.requires_iter(kids[1]).collect::<Vec<_>>(), [kids[2]]);
}

/// Backtracking reads only the payload's branching: the next pending alternative of
/// an OR, else another pending goal of a task AND; an ALL-OF fails with its child.
#[test]
fn backtracking_finds_the_nearest_branching_point() {
    let mut g: AndOr<P> = AndOr::default();
    let goals = g.add(P(Branch::Tasks, true));
    let or = g.add(P(Branch::Or, true));
    let other_goal = g.add(P(Branch::Leaf, true));
    g.link(goals, or);
    g.link(goals, other_goal);
    let all = g.add(P(Branch::AllOf, true));
    let spent = g.add(P(Branch::Leaf, false));
    let fallback = g.add(P(Branch::Leaf, true));
    for x in [all, spent, fallback] {
        g.link(or, x);
    }
    let ing = g.add(P(Branch::Leaf, true));
    g.link(all, ing);
    assert_eq!(g.backtrack(ing), Backtrack::Alternative { or, next: fallback });
    g.node_mut(fallback).1 = false;
    assert_eq!(g.backtrack(ing), Backtrack::Continue { and: goals, set_aside: or });
    g.node_mut(other_goal).1 = false;
    assert_eq!(g.backtrack(ing), Backtrack::Exhausted);
}
