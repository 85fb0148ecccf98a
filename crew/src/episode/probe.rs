//! A read-only look at the world after every step, for what the trace does not record
//! (the drops a `mine` or `pick_up` yields, a `smelt`'s output): a live viewer's exact
//! inventories. The probe sees the world and the step's events but cannot change
//! either, so a run with one writes the same trace byte for byte.

use std::fmt;

use gatecrew_protocol::Tick;
use gatecrew_protocol::trace::Event;
use gatecrew_world::World;

/// Sees the world each time the episode's events are drained: after every step of
/// every driver (the stepper, the actor runtime's world actor, a real server's), and
/// once at the end. The events are the ones being drained, so the world it sees is the
/// world right after them, in order, whatever thread later carries them to the trace.
///
/// It runs on the driver's thread between the step and the hand-over of its events:
/// it must be cheap and must never block (hand the data off, do not process it here).
pub trait WorldProbe: Send + Sync + fmt::Debug {
    /// The world at `tick`, right after `events` (this step's, possibly none).
    fn step(&self, tick: Tick, world: &World, events: &[Event]);
}
