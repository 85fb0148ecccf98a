//! Watching a crew: the state a person sees, folded from trace events alone
//! ([`state`]), a live feed that never slows the crew ([`hub`]), recorded episodes
//! viewable at any tick ([`replay`]), the one-page web server ([`server`]), and the
//! Prometheus exposition of a run ([`metrics`]).
//!
//! Nothing here adds to a trace: the viewer and the metrics read the events the run
//! writes anyway, and the bots' exact inventories come from a read-only look at the
//! world after each step ([`crew`], [`inventory`]), so a run with `--serve` or
//! `--metrics` writes the same trace byte for byte.

pub mod crew;
pub mod hub;
pub mod inventory;
pub mod metrics;
pub mod replay;
pub mod scene;
pub mod server;
pub mod state;

pub use inventory::{Inventories, InventorySource};
pub use scene::{Scene, SceneBot, SceneCell};
pub use state::ViewState;
