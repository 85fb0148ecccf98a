//! The deterministic construction world of gatecrew (DESIGN section 3).
//!
//! A [`World`] is a 3-D grid of Minecraft blocks over fixed bounds with the ground just
//! below `y = 0`, bots with 36-slot inventories and a reach of 4.5 blocks, chests,
//! furnaces, crafting tables and natural resources. Everything about items, blocks,
//! tools and recipes comes from the [`GameData`] file derived from Minecraft 1.20.4;
//! nothing about recipes is written in Rust.
//!
//! Every [`Action`] is priced in ticks by [`World::begin`] and applied at its
//! completion by [`World::complete`], which returns a verified [`Outcome`]: success
//! with the state delta, or a typed [`Failure`] that changed nothing. Bots see the world
//! only through [`World::observe`]. [`World::oracle`] answers, with full knowledge,
//! whether a bot could get an item on its own within a tick budget: the trace records
//! that answer for UER; agents never see it. The one RNG of an episode lives here and
//! is seeded from the episode seed.
//!
//! No async, no clocks: the same seed and the same calls give the same world.

pub mod action;
pub mod blueprint;
pub mod cost;
pub mod data;
pub mod error;
pub mod grid;
pub mod inventory;
pub mod limits;
pub mod observe;
pub mod oracle;
pub mod path;
pub mod placement;
pub mod scaffold;
pub mod scenario;
pub mod state;
pub mod work;
mod world;

pub use action::{Action, Delta, Failure, Outcome, Receipt};
pub use blueprint::{Blueprint, Cell, LeftOut, LeftOutReason, Part};
pub use data::{Attach, BlockId, GameData, RecipeId};
pub use error::{LoadError, LoadErrorKind};
pub use grid::{Bounds, reach_distance};
pub use inventory::Inventory;
pub use observe::{ContainerKind, ContainerView, Observation};
pub use scenario::{AgentSpec, Source, WorldSpec};
pub use state::BlockState;
pub use world::{Body, Furnace, Pending, Rules, TickCosts, UnknownRuleBlock, World};
