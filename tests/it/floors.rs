//! Solid floors: every cell but the border's is out of reach of the ground around the
//! floor, so a bot lays it standing on what is laid already, as a player does. A 40 x 40
//! slab on 100 bots completes, and the search work per cell stays within 4 times the
//! 20 x 20's: the cells the walk and pillar searches looked at (`gatecrew_world::work`),
//! a count, exact on the stepper's one thread.

use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, EventKind};

use crate::common::root;

/// Runs `configs/slab-N.toml` on 100 bots: whether it completed, why it ended, and the
/// search work per blueprint cell.
fn slab(n: u32) -> (bool, String, f64) {
    let ov = Overrides { agents: Some(100), ..Overrides::default() };
    let setup = Setup::load(&root().join(format!("configs/slab-{n}.toml")), &ov).unwrap();
    assert_eq!(setup.blueprint.len() as u32, n * n);
    let before = gatecrew_world::work::searched();
    let mut end = None;
    gatecrew_crew::run(&setup, &mut |e: &Event| {
        if let EventKind::EpisodeEnd { complete, tsr, reason, .. } = &e.kind {
            end = Some((*complete, format!("{} at TSR {tsr}", reason.as_str())));
        }
    });
    let work = gatecrew_world::work::searched() - before;
    let (complete, why) = end.expect("episode_end");
    (complete, why, work as f64 / f64::from(n * n))
}

#[test]
fn a_40_by_40_floor_on_100_bots_completes_at_a_linear_search_cost() {
    let (small, small_why, small_work) = slab(20);
    assert!(small, "20 x 20: {small_why}");
    let (large, large_why, large_work) = slab(40);
    assert!(large, "40 x 40: {large_why}");
    let ratio = large_work / small_work;
    // The figures docs/building.md quotes (shown with --nocapture).
    eprintln!("cells searched per cell: 20 x 20 {small_work:.1}, 40 x 40 {large_work:.1} ({ratio:.2}x)");
    assert!(ratio <= 4.0, "cells searched per cell: 20 x 20 {small_work:.0}, 40 x 40 {large_work:.0} ({ratio:.2}x)");
}
