//! Counted search work: the cells the walk searches of this thread looked at (the
//! world's A* expansions and the pillar planner's breadth-first visits). A count, not
//! a clock: deterministic for a given episode run on one thread (the stepper), so a
//! test can compare the cost of two episodes exactly.

use std::cell::Cell;

thread_local! {
    static LOOKED_AT: Cell<u64> = const { Cell::new(0) };
}

/// Cells looked at by the searches on this thread so far.
pub fn searched() -> u64 {
    LOOKED_AT.with(Cell::get)
}

/// Adds one search's count.
pub(crate) fn add(n: u64) {
    LOOKED_AT.with(|c| c.set(c.get().wrapping_add(n)));
}
