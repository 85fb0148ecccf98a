//! The one-line plan preview (paper 003, "Plan preview"; paper 000, 3.2.2): what the
//! bot will do now, for which goal, and what comes after.

use super::{Kind, Plan, State, StepId};

impl Plan {
    /// The leaf the bot would work on next: down from the active node (or the root)
    /// through the first child still open: an OR's first alternative not failed, an
    /// AND's first child not done.
    pub fn next_leaf(&self) -> Option<StepId> {
        if self.idle() {
            return None;
        }
        let mut n = self.active().unwrap_or(self.root());
        for _ in 0..self.len() + 1 {
            if self.step(n).kind.is_leaf() {
                return Some(n);
            }
            let kids = self.children(n);
            let next = if self.step(n).kind.is_or() {
                kids.into_iter().find(|c| self.step(*c).state != State::Failed)
            } else {
                kids.into_iter().find(|c| self.step(*c).state == State::Pending)
            };
            n = next?;
        }
        None
    }

    /// The goal (a child of the root) a node serves: the one on the active path, else
    /// the first goal below which it lies.
    pub fn goal_of(&self, n: StepId) -> Option<StepId> {
        if n == self.root() {
            return None;
        }
        let path = self.path();
        if path.contains(&n) && path.len() > 1 {
            return Some(path[1]);
        }
        self.children(self.root()).into_iter().find(|g| self.below(*g).contains(&n))
    }

    /// Goals not done yet, in order.
    pub fn open_goals(&self) -> Vec<StepId> {
        self.children(self.root()).into_iter().filter(|g| self.step(*g).state == State::Pending).collect()
    }

    /// What the bot will do now, in one line.
    pub fn preview(&self) -> String {
        if self.idle() {
            return "I am stopped; tell me what to do next.".into();
        }
        let Some(leaf) = self.next_leaf() else {
            return if self.children(self.root()).is_empty() {
                "I have nothing to do.".into()
            } else {
                "Everything in my plan is finished.".into()
            };
        };
        let goal = self.goal_of(leaf);
        let mut s = format!("I will {}", self.label(leaf));
        if let Some(g) = goal.filter(|g| *g != leaf) {
            s.push_str(&format!(" for \"{}\"", self.label(g)));
        }
        let after: Vec<StepId> = self.open_goals().into_iter().filter(|g| Some(*g) != goal).collect();
        if let Some(next) = after.first() {
            s.push_str(&format!("; then {}", self.label(*next)));
            if after.len() > 1 {
                s.push_str(&format!(" (+{} more)", after.len() - 1));
            }
        }
        s.push('.');
        s
    }

    /// The plan as indented lines (for `gatecrew run --interactive`'s `plan` command and
    /// for debugging): state, label, `*` on the active path.
    pub fn outline(&self, max_lines: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(self.root(), 0usize)];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((n, depth)) = stack.pop() {
            if out.len() >= max_lines {
                out.push("...".into());
                break;
            }
            let step = self.step(n);
            let mark = if self.path().contains(&n) { "*" } else { " " };
            let state = match step.state {
                State::Pending => " ",
                State::Done => "x",
                State::Failed => "!",
            };
            let shared = if seen.insert(n) { "" } else { " (shared, see above)" };
            let or = if matches!(step.kind, Kind::Obtain { .. } | Kind::Station { .. }) { " [one of]" } else { "" };
            out.push(format!("{mark}[{state}] {}{}{or}{shared}", "  ".repeat(depth), step.label));
            if shared.is_empty() {
                for c in self.children(n).into_iter().rev() {
                    stack.push((c, depth + 1));
                }
            }
        }
        out
    }
}
