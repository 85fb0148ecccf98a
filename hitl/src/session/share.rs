//! The bot's crew share as its crew core sees it: the blueprint cells assigned to it,
//! and how many of them it has seen in place.

use gatecrew_crew::agent::AgentCore;

/// The blueprint cells of the core's share.
pub(super) fn share_cells(core: &AgentCore) -> std::collections::BTreeSet<usize> {
    let plan = core.plan();
    let Some(root) = plan.agent_root(core.id()) else { return Default::default() };
    plan.children(root)
        .into_iter()
        .filter_map(|n| match plan.node(n).kind {
            gatecrew_crew::plan::NodeKind::Task(gatecrew_crew::plan::Task::Place { cell, .. }) => Some(cell as usize),
            _ => None,
        })
        .collect()
}

/// Blocks of the core's share it has seen in place, and the share's size.
pub(super) fn share_of(core: &AgentCore) -> (u32, u32) {
    let plan = core.plan();
    let Some(root) = plan.agent_root(core.id()) else { return (0, 0) };
    let kids = plan.children(root);
    let done = kids.iter().filter(|n| plan.node(**n).state == gatecrew_crew::plan::NodeState::Done).count();
    (done as u32, kids.len() as u32)
}
