//! Views the agents take themselves.
//!
//! An agent's view of the world ([`World::observe`]) lists every teammate in sight, so
//! on a crowded site taking the views is the round's largest serial cost (measured in
//! docs/benchmarks.md, eighth pass). They
//! are independent of one another and of the agents' steps, and the world does not
//! change while a round's views are taken (the outputs are applied after the round's
//! last batch), so a runtime that steps agents in parallel can let each agent take its
//! own view where it steps, from the same world, and get the view the episode would
//! have given it. [`Episode::defer_views`] turns this on; each batch then comes with
//! its inputs' views empty and the round's [`Sight`], which fills them.

use std::sync::Arc;

use gatecrew_protocol::AgentId;
use gatecrew_world::World;

use super::Episode;
use crate::agent::StepInput;

/// The world as a round's views see it: shared, read-only, until every agent of the
/// round has taken its view. The episode changes the world again only after the
/// round's outputs are in, and a sight still held then costs a copy of the world
/// ([`Arc::make_mut`]), so a runtime drops each one before the agent answers.
#[derive(Debug, Clone)]
pub struct Sight(Arc<World>);

impl Sight {
    /// Fills `input`'s view with what `agent` sees, and lets go of the world.
    pub fn fill(self, agent: AgentId, input: &mut StepInput) {
        input.view = self.0.observe(agent);
    }
}

impl Episode {
    /// Leaves taking the agents' views to the driver, through [`Episode::sight`]: from
    /// now on every [`Need::Step`](super::Need::Step) comes with its inputs' views
    /// empty, and the driver fills each with [`Sight::fill`] before the agent steps.
    /// Returns whether the views are deferred: not in an episode with the executor
    /// model, which prices each wake from the agent's view as it wakes it, nor in one
    /// whose actions run in an external world.
    pub fn defer_views(&mut self) -> bool {
        self.crew.defer_views = self.exec.is_none() && self.site.external.is_none();
        self.crew.defer_views
    }

    /// The world for this round's views, if the driver takes them
    /// ([`Episode::defer_views`]).
    pub fn sight(&self) -> Option<Sight> {
        self.crew.defer_views.then(|| Sight(Arc::clone(&self.site.world)))
    }

    /// What `agent` sees now, unless the driver takes the views.
    pub(super) fn view_for(&self, agent: AgentId) -> gatecrew_world::Observation {
        if self.crew.defer_views { Default::default() } else { self.site.world.observe(agent) }
    }
}
