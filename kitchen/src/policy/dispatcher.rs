//! MindAgent's coordination: one central dispatcher that sees the full state and issues
//! every agent's action each step. MindAgent's dispatcher is GPT-4 prompted with the
//! recipes, the rules and the state; this one is a deterministic planner with the same
//! view and the same authority, so it bounds what such a dispatcher can do here
//! (without its mistakes, and without its foresight beyond the pending orders).
//!
//! Each step: the pending orders most urgent first (MindAgent sorts its task list by
//! lifetime left); an order that cannot be finished within its lifetime even with every
//! agent on it is planned last, so work goes to orders that can still be saved. The
//! tasks are handed out in that order, each to a free empty-handed agent, the one
//! already standing where the task starts first. An agent holding what no task needs
//! throws it into the storage when there is other work for it.

use gatecrew_protocol::ItemId;

use super::plan::{Planner, Task, act, dispose};
use super::{Counters, Policy};
use crate::world::{Action, StepReport, World};

/// The dispatcher. Its only memory is which tool it is filling for which product.
pub(crate) struct Dispatcher {
    agents: usize,
    bind: Vec<Option<ItemId>>,
    counters: Counters,
}

impl Dispatcher {
    pub fn new(agents: usize) -> Self {
        Dispatcher { agents, bind: Vec::new(), counters: Counters::default() }
    }
}

impl Policy for Dispatcher {
    fn decide(&mut self, w: &World) -> Vec<Action> {
        let n = self.agents.min(w.agents().len());
        let mut p = Planner::new(w, vec![true; n], vec![true; w.locations().len()], std::mem::take(&mut self.bind));
        let mut tasks = Vec::new();
        let mut late = Vec::new();
        for o in w.pending() {
            let saved = p.claims.clone();
            let mark = tasks.len();
            match p.order(&o.serve, &mut tasks) {
                Ok(est) if est.par > o.remaining => {
                    p.restore(saved);
                    tasks.truncate(mark);
                    late.push(o);
                }
                Ok(_) => {}
                Err(stuck) => tracing::trace!(order = o.id.0, ?stuck, "dispatcher: order waits"),
            }
        }
        for o in late {
            let _ = p.order(&o.serve, &mut tasks);
        }
        self.bind = p.claims.bind.clone();
        let actions = assign(w, n, &tasks);
        self.counters.messages += actions.len() as u64;
        actions
    }

    fn observe(&mut self, _: &World, _: &StepReport) {}

    fn counters(&self) -> Counters {
        self.counters
    }

    fn central(&self) -> bool {
        true
    }
}

/// Hands tasks to agents: carries to their holders, the rest in order to free
/// empty-handed agents, preferring one already at the task's start.
fn assign(w: &World, n: usize, tasks: &[Task]) -> Vec<Action> {
    let mut task_of: Vec<Option<Task>> = vec![None; n];
    for &t in tasks {
        if let Task::Carry { agent, .. } = t {
            task_of[agent] = Some(t);
        }
    }
    let mut unassigned = 0;
    for &t in tasks.iter().filter(|t| !matches!(t, Task::Carry { .. })) {
        let free =
            |i: &usize| task_of[*i].is_none() && w.agents()[*i].holding.is_none() && w.agents()[*i].occupied == 0;
        let pick = (0..n).filter(free).find(|&i| w.agents()[i].at == t.start()).or_else(|| (0..n).find(free));
        match pick {
            Some(i) => task_of[i] = Some(t),
            None => unassigned += 1,
        }
    }
    (0..n)
        .map(|i| match task_of[i] {
            Some(t) => act(w, i, t),
            None if w.agents()[i].holding.is_some() && unassigned > 0 => dispose(w, i),
            None => Action::Noop,
        })
        .collect()
}
