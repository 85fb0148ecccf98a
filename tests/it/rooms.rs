//! Rooms built by a crew whose planks are split unevenly: the bots short of planks ask,
//! the one holding most hands them over, and no hand-over window waits out its deadline
//! (DESIGN section 5.6). The room has no door, so the bots work from outside, each on its
//! own side of the walls.

use gatecrew_protocol::trace::{Event, EventKind, WindowEvent};
use gatecrew_protocol::{CloseOutcome, MessageKind, Pos};

use crate::building::{finished_clean, run, setup_with};

/// Four walls of oak planks around a 7 x 7 floor, `height` blocks high, under a flat
/// roof when `roof` says so.
fn room(height: i32, roof: bool) -> String {
    let top = height - 1;
    let mut bp = String::from("name = \"room\"\n");
    for (from, to) in [([0, 0, 0], [8, top, 0]), ([0, 0, 8], [8, top, 8]), ([0, 0, 1], [0, top, 7]), ([8, 0, 1], [8, top, 7])]
    {
        bp.push_str(&format!("[[fill]]\nfrom = {from:?}\nto = {to:?}\nblock = \"oak_planks\"\n"));
    }
    if roof {
        bp.push_str(&format!("[[fill]]\nfrom = [0, {height}, 0]\nto = [8, {height}, 8]\nblock = \"oak_planks\"\n"));
    }
    bp
}

/// The windows that closed with `outcome`.
fn closed_with(events: &[Event], outcome: CloseOutcome) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Window { event: WindowEvent::Close, outcome: Some(o), .. } if o == outcome))
        .count()
}

/// The board's story of the episode, for a failure message: every message and
/// rejection, and the end.
fn story(events: &[Event]) -> String {
    events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Board { .. }
                    | EventKind::BoardReject { .. }
                    | EventKind::Window { .. }
                    | EventKind::Fallback { .. }
                    | EventKind::Unfinished { .. }
                    | EventKind::EpisodeEnd { .. }
            )
        })
        .take(80)
        .map(|e| format!("{} {:?}", e.t, e.kind))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Builds the room with three bots outside it, on three sides: the first holds the
/// planks for its own share and both others' shortfalls, the other two a few each.
fn three_bots_build(height: i32, roof: bool) {
    let dir = tempfile::tempdir().unwrap();
    let n = 32 * height + if roof { 81 } else { 0 };
    let few = 8;
    let most = format!("oak_planks = {}, dirt = 12", n - 2 * few);
    let some = format!("oak_planks = {few}, dirt = 12");
    let agents = [(Pos::new(-3, 0, 4), most.as_str()), (Pos::new(11, 0, 4), some.as_str()), (Pos::new(4, 0, 11), some.as_str())];
    let s = setup_with(dir.path(), &room(height, roof), &agents, height + 8, "");
    assert_eq!(s.blueprint.len() as i32, n);
    let (events, ep) = run(&s);
    let asked = events.iter().any(|e| matches!(e.kind, EventKind::Board { msg: MessageKind::RequestMaterial, .. }));
    assert!(asked, "the bots short of planks asked for them");
    let timeouts = closed_with(&events, CloseOutcome::Timeout);
    assert_eq!(timeouts, 0, "a window timed out:\n{}", story(&events));
    let rejected = events.iter().filter(|e| matches!(e.kind, EventKind::BoardReject { .. })).count();
    assert_eq!(rejected, 0, "the board refused a message:\n{}", story(&events));
    finished_clean(&s, &events, &ep);
}

#[test]
fn three_bots_build_a_walled_room_with_the_planks_split_between_them() {
    three_bots_build(3, false);
}

#[test]
fn three_bots_build_a_roofed_room_with_the_planks_split_between_them() {
    three_bots_build(3, true);
}
