//! `central_dag` (DESIGN section 6, VillagerAgent-like): a central manager holds the
//! whole task graph; every issue goes to it and it re-plans while the crew waits
//! (`crew/src/episode/manager.rs` is the manager; the agent's side of its directives
//! is in `crew/src/agent/baseline.rs`).

pub mod manager;

use super::Style;

/// `central_dag`: the manager holds the plan (the only answer that differs).
#[derive(Debug, Clone, Copy)]
pub struct CentralDag;

impl Style for CentralDag {
    fn central_manager(&self) -> bool {
        true
    }

    fn writes_with_model(&self) -> bool {
        true
    }
}
