//! Rooms built by three bots whose planks are split unevenly (DESIGN section 5.6): the
//! bots short of planks ask, their teammates hand the spare over, the whole of it, and no
//! hand-over window waits out its deadline. The room has no door: a bot that ends up
//! inside, or on the wall top, is out of every giver's walk, so what it lacks must reach
//! it before then.

use gatecrew_protocol::trace::{Event, EventKind, WindowEvent};
use gatecrew_protocol::{CloseOutcome, MessageKind, Pos};

use crate::building::{finished_clean, run, setup_with};

/// Four walls of oak planks around a 7 x 7 floor, `height` blocks high, under a flat
/// roof when `roof` says so.
fn room(height: i32, roof: bool) -> String {
    let top = height - 1;
    let mut bp = String::from("name = \"room\"\n");
    for (from, to) in
        [([0, 0, 0], [8, top, 0]), ([0, 0, 8], [8, top, 8]), ([0, 0, 1], [0, top, 7]), ([8, 0, 1], [8, top, 7])]
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
        .filter(
            |e| matches!(e.kind, EventKind::Window { event: WindowEvent::Close, outcome: Some(o), .. } if o == outcome),
        )
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

/// Builds the room (walls 3 high) with three bots starting outside it on three sides,
/// holding `planks` each (and, with `dirt`, 12 dirt for scaffolds): the blueprint
/// completes, no window waits out its deadline and the board refuses nothing.
fn three_bots_build(roof: bool, planks: [i32; 3], starts: [(i32, i32); 3], dirt: bool) {
    let dir = tempfile::tempdir().unwrap();
    let height = 3;
    let n = 32 * height + if roof { 81 } else { 0 };
    assert_eq!(planks.iter().sum::<i32>(), n, "the crew's planks cover the blueprint exactly");
    let inventories: Vec<String> = planks
        .iter()
        .map(|&k| {
            let mut items = Vec::new();
            if k > 0 {
                items.push(format!("oak_planks = {k}"));
            }
            if dirt {
                items.push("dirt = 12".to_owned());
            }
            items.join(", ")
        })
        .collect();
    let agents: Vec<(Pos, &str)> =
        starts.iter().zip(&inventories).map(|(&(x, z), inv)| (Pos::new(x, 0, z), inv.as_str())).collect();
    let s = setup_with(dir.path(), &room(height, roof), &agents, height + 8, "");
    assert_eq!(s.blueprint.len() as i32, n);
    let (events, ep) = run(&s);
    let asked = events.iter().any(|e| matches!(e.kind, EventKind::Board { msg: MessageKind::RequestMaterial, .. }));
    assert!(asked, "the bots short of planks asked for them");
    let timeouts = closed_with(&events, CloseOutcome::Timeout);
    assert_eq!(timeouts, 0, "a window timed out:\n{}", story(&events));
    let rejected = events.iter().filter(|e| matches!(e.kind, EventKind::BoardReject { .. })).count();
    assert_eq!(rejected, 0, "the board refused a message:\n{}", story(&events));
    let Some(EventKind::EpisodeEnd { complete, .. }) = events.last().map(|e| &e.kind) else { panic!("no end") };
    assert!(*complete, "the room stalled:\n{}", story(&events));
    finished_clean(&s, &events, &ep);
}

/// Two bots hold the planks for their shares and a dozen spare each; the third holds
/// eight and asks for the rest: both offer half, and the half that stood by is asked for
/// at once, before the third bot has walled itself in where no giver can walk to it.
#[test]
fn a_room_whose_spare_planks_two_bots_share_is_finished_by_all_three() {
    three_bots_build(false, [44, 8, 44], [(14, 5), (2, -3), (-3, 4)], false);
}

/// As above under a roof, with the third bot holding nothing at all.
#[test]
fn a_roofed_room_whose_spare_planks_two_bots_share_is_finished_by_all_three() {
    three_bots_build(true, [89, 88, 0], [(-3, 6), (7, 14), (14, 7)], true);
}

/// One bot holds every plank and both others ask at once: it walks to them in turn, and
/// the second window waits for its giver from the time the first hand-over ended.
#[test]
fn a_room_whose_planks_one_bot_holds_is_handed_out_in_turn_without_a_timeout() {
    three_bots_build(false, [0, 0, 96], [(13, 5), (4, 14), (8, -4)], true);
}
