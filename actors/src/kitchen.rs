//! The kitchen (MindAgent's CuisineWorld, `gatecrew-kitchen`) on actors: thin shells
//! around the kitchen's pure cores, as for the construction world.
//!
//! * [`CookActor`] owns one crew agent's private state
//!   ([`MemberState`](gatecrew_kitchen::MemberState)) of the `gated` or `flatcomm` crew;
//! * [`DeskActor`] owns what that crew shares: the board (gated) or the chat
//!   (flatcomm), with the judge and the counts ([`Desk`](gatecrew_kitchen::Desk));
//! * [`DispatcherActor`] owns the `dispatcher`, one central planner;
//! * [`KitchenWorldActor`] owns the [`EpisodeCore`](gatecrew_kitchen::EpisodeCore) (the
//!   world, the executor, the trace) and drives the lockstep.
//!
//! One step: the world actor sends the world as it stands to the dispatcher, or opens
//! the desk and gives each cook its turn; it applies the actions through the same
//! `EpisodeCore::step` the stepper's loop calls; then every cook observes the step's
//! report concurrently (each reads only its own outcome).
//!
//! Cooks take their turns in agent-id order, one at a time, not concurrently: in the
//! kitchen crew an agent's turn reads the board as the agents before it left it in the
//! same step (agent 0's request is answered by agent 1 in that step), and the stepper
//! has always run it so. Asking the cooks concurrently from one snapshot would be a
//! different policy, with different results; a cook borrows the desk from the desk
//! actor for its turn and hands it back. The trace is byte-identical to the stepper's
//! (`tests/it/kitchen/actors.rs`).

mod cook;
mod desk;
mod dispatcher;
mod messages;
mod run;
mod world;

pub use cook::{CookActor, CookState};
pub use desk::{DeskActor, DeskLent};
pub use dispatcher::DispatcherActor;
pub use messages::{CookMsg, DeskMsg, DispatcherMsg, Finished, KitchenWorldMsg};
pub use run::{KitchenRunError, run_kitchen_episode};
pub use world::{Deciders, KitchenWorldActor, KitchenWorldState};
