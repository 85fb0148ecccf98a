//! Hand-overs that cannot stall (DESIGN section 5.6): a giver that cannot deliver
//! withdraws its offer on the board at once, with `CANNOT_SUPPLY` (reason
//! `unreachable`), and the window goes to a teammate whose offer stood by.

use gatecrew_protocol::trace::{Event, EventKind, WindowEvent};
use gatecrew_protocol::{AgentId, CloseOutcome, MessageKind, Pos, Recipient, WindowId};

use crate::building::{run, setup_with};

/// The board messages of one window, in order: kind, sender, addressee, reason.
fn messages(events: &[Event], w: WindowId) -> Vec<(MessageKind, AgentId, Recipient, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Board { msg, window, from, to, reason, .. } if *window == w => {
                Some((*msg, *from, *to, reason.clone()))
            }
            _ => None,
        })
        .collect()
}

fn outcome(events: &[Event], w: WindowId) -> Option<CloseOutcome> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::Window { window, event: WindowEvent::Close, outcome, .. } if *window == w => *outcome,
        _ => None,
    })
}

/// bot0 holds no glass; bot1 and bot2 hold the same spare. bot1 stands on a stone
/// column two blocks high, from which no walk leads down (a drop is one block at
/// most), so it cannot get to bot0: it offers first, finds no path, and withdraws; the
/// window goes to bot2, whose offer stood by, and bot0's glass arrives.
#[test]
fn a_stranded_givers_window_goes_to_the_other_teammate() {
    let dir = tempfile::tempdir().unwrap();
    let bp = "name = \"row\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [8, 0, 0]\nblock = \"glass\"\n";
    let column = "fill = [{ from = [4, 0, 4], to = [4, 1, 4], block = \"stone\" }]\n";
    let agents =
        [(Pos::new(-2, 0, 2), "dirt = 1"), (Pos::new(4, 2, 4), "glass = 9"), (Pos::new(10, 0, 2), "glass = 9")];
    let s = setup_with(dir.path(), bp, &agents, 8, column);
    let (events, _) = run(&s);
    let (bot0, bot1, bot2) = (AgentId(0), AgentId(1), AgentId(2));
    // bot0's first request: both teammates offered, bot1's offer was awaited.
    let first = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Board { msg: MessageKind::RequestMaterial, window, from, .. } if *from == bot0 => Some(*window),
            _ => None,
        })
        .expect("bot0 asks for glass");
    let msgs = messages(&events, first);
    eprintln!("{msgs:?}");
    let offers: Vec<AgentId> = msgs.iter().filter(|m| m.0 == MessageKind::OfferTransfer).map(|m| m.1).collect();
    assert_eq!(offers, vec![bot1, bot2], "the second offer is not refused: {msgs:?}");
    let withdrawn = msgs
        .iter()
        .position(|m| m.0 == MessageKind::CannotSupply && m.1 == bot1 && m.3.as_deref() == Some("unreachable"));
    let confirmed = msgs.iter().position(|m| m.0 == MessageKind::ConfirmTransfer && m.2 == Recipient::Agent(bot2));
    assert!(withdrawn.is_some() && confirmed > withdrawn, "bot1 withdraws, then bot2 delivers: {msgs:?}");
    assert_eq!(outcome(&events, first), Some(CloseOutcome::Confirmed));
    let rejected = events.iter().filter(|e| matches!(e.kind, EventKind::BoardReject { .. })).count();
    assert_eq!(rejected, 0, "nothing was refused as already offered");
    // No window of the episode waited out its handover deadline.
    let timeouts = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Window { outcome: Some(CloseOutcome::Timeout), .. }))
        .count();
    assert_eq!(timeouts, 0, "a window timed out");
}

/// As above, but bot2 spares fewer than bot0 needs, and bot0 places its row of four from
/// where it stands: after bot1's withdrawal bot2 hands over what it can, bot0 lays it and
/// asks for the rest once it runs out. bot1, still stranded where it found no walk to bot0
/// (neither has moved), says so at once instead of winning the window a second time;
/// nobody else has glass, and the row stays short.
#[test]
fn a_stranded_giver_does_not_win_a_second_window_it_cannot_deliver() {
    let dir = tempfile::tempdir().unwrap();
    let bp = "name = \"row\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [3, 0, 0]\nblock = \"glass\"\n";
    let column = "fill = [{ from = [4, 0, 4], to = [4, 1, 4], block = \"stone\" }]\n";
    let agents = [(Pos::new(1, 0, 2), "dirt = 1"), (Pos::new(4, 2, 4), "glass = 9"), (Pos::new(10, 0, 2), "glass = 2")];
    let s = setup_with(dir.path(), bp, &agents, 8, column);
    let (events, _) = run(&s);
    let (bot0, bot1, bot2) = (AgentId(0), AgentId(1), AgentId(2));
    let requests: Vec<WindowId> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Board { msg: MessageKind::RequestMaterial, window, from, .. } if *from == bot0 => Some(*window),
            _ => None,
        })
        .collect();
    assert!(requests.len() >= 2, "bot0 asked for the rest: {requests:?}");
    let (first, rest) = (messages(&events, requests[0]), messages(&events, requests[1]));
    let delivered = first.iter().any(|m| m.0 == MessageKind::ConfirmTransfer && m.2 == Recipient::Agent(bot2));
    assert!(delivered, "bot2 delivered its part: {first:?}");
    assert!(
        !rest.iter().any(|m| m.0 == MessageKind::OfferTransfer && m.1 == bot1),
        "bot1 offered again where it cannot deliver: {rest:?}"
    );
    let said_so =
        rest.iter().any(|m| m.0 == MessageKind::CannotSupply && m.1 == bot1 && m.3.as_deref() == Some("unreachable"));
    assert!(said_so, "bot1 answers that it cannot get there: {rest:?}");
}

/// MindCraft's flower for three: a giver that walked to where it last saw the receiver
/// and finds it out of reach, and out of view, does not try the same give there again
/// (it looks for the receiver at its share of the blueprint): one failed give, not a
/// dozen in a row, and the crew completes under gated and under gated central_dag.
#[test]
fn a_give_that_finds_the_receiver_gone_is_not_tried_again_at_the_same_place() {
    use gatecrew_crew::Policy;
    use gatecrew_protocol::trace::ActionName;
    use gatecrew_tasks::{Aliases, TaskFile, TaskOptions};
    let file = crate::common::root().join("tests/fixtures/external/minecollab/flower_three_agents.json");
    let data = crate::common::data();
    let task = TaskFile::read(&file).unwrap().import(None, &data, &Aliases::none()).unwrap();
    for policy in [Policy::Gated, Policy::GatedCentralDag] {
        let s = gatecrew_tasks::setup(&task, &file, &TaskOptions { data: data.clone(), seed: 1, policy, agents: None })
            .unwrap();
        let (events, _) = run(&s);
        let failed = events
            .iter()
            .filter(|e| {
                matches!(&e.kind, EventKind::Action { action: ActionName::Give, ok: false, reason: Some(r), .. }
                    if r == "out_of_reach")
            })
            .count();
        assert!(failed <= 2, "{policy:?}: {failed} gives failed out of reach");
        let Some(EventKind::EpisodeEnd { complete, tsr, .. }) = events.last().map(|e| &e.kind) else { panic!() };
        assert!(*complete, "{policy:?}: tsr {tsr}");
    }
}

/// bot0 holds no glass for its share of a row; bot1 and bot2 each spare less than it
/// needs. The first hand-over brings part of it and bot0 asks for the rest at once; while
/// that request is open it lays the glass it holds (placements that end after the
/// request), rather than holding every glass cell back until the rest arrives.
#[test]
fn what_a_partial_transfer_brought_is_placed_while_the_rest_is_asked_for() {
    use gatecrew_protocol::trace::ActionName;
    let dir = tempfile::tempdir().unwrap();
    let bp = "name = \"row\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [8, 0, 0]\nblock = \"glass\"\n";
    let agents = [(Pos::new(1, 0, 2), "dirt = 1"), (Pos::new(4, 0, 6), "glass = 4"), (Pos::new(12, 0, 2), "glass = 5")];
    let s = setup_with(dir.path(), bp, &agents, 8, "");
    let (events, _) = run(&s);
    let bot0 = AgentId(0);
    let requests: Vec<(u64, WindowId)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Board { msg: MessageKind::RequestMaterial, window, from, .. } if *from == bot0 => {
                Some((e.t, *window))
            }
            _ => None,
        })
        .collect();
    assert!(requests.len() >= 2, "bot0 asked for the rest: {requests:?}");
    let (opened, rest) = requests[1];
    let closed = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Window { window, event: WindowEvent::Close, .. } if *window == rest => Some(e.t),
            _ => None,
        })
        .expect("the rest's window closed");
    let laid = events
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::Action { agent, action: ActionName::Place, ok: true, pos: Some(p), .. }
                if *agent == bot0 && s.blueprint.cell_at(*p).is_some())
                && e.t > opened
                && e.t < closed
        })
        .count();
    assert!(
        laid > 0,
        "bot0 laid nothing while it waited for the rest ({opened}..{closed}): {:?}",
        messages(&events, rest)
    );
    let Some(EventKind::EpisodeEnd { complete, tsr, .. }) = events.last().map(|e| &e.kind) else { panic!("no end") };
    assert!(*complete, "tsr {tsr}");
}
