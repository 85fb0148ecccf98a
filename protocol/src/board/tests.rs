use super::*;
use crate::message::{Handover, RefusalReason, RequestReason};

const A0: AgentId = AgentId(0);
const A1: AgentId = AgentId(1);
const A2: AgentId = AgentId(2);

fn board() -> Board {
    let items = ItemRegistry::new([("glass", 64), ("oak_planks", 64)]).unwrap();
    Board::new([A0, A1, A2], Arc::new(items), BoardConfig::default())
}

fn n(v: i64) -> Count {
    Count::new(v).unwrap()
}

const GLASS: ItemId = ItemId(0);
const PLANKS: ItemId = ItemId(1);

fn request(b: &mut Board) -> WindowId {
    let msg = BoardMessage::RequestMaterial {
        from: A0,
        to: Recipient::All,
        item: GLASS,
        count: n(2),
        reason: RequestReason::MissingMaterial,
    };
    b.post(A0, msg, Tick(10)).unwrap().posted.window
}

fn offer(window: WindowId, from: AgentId, count: i64) -> BoardMessage {
    BoardMessage::OfferTransfer { window, from, to: A0, item: GLASS, count: n(count), handover: Handover::Give }
}

fn refuse(window: WindowId, from: AgentId) -> BoardMessage {
    BoardMessage::CannotSupply { window, from, to: A0, item: GLASS, reason: RefusalReason::NoSurplus }
}

/// Posts `msg`, expects the rejection `kind`, and checks that nothing changed.
fn rejected(b: &mut Board, caller: AgentId, msg: BoardMessage, kind: RejectKind) {
    let (log, windows) = (b.log().to_vec(), b.windows().to_vec());
    let err = b.post(caller, msg, Tick(12)).unwrap_err();
    assert_eq!(err.kind(), kind, "{err}");
    assert_eq!(b.log(), &log[..], "a rejected message must not be logged");
    assert_eq!(b.windows(), &windows[..], "a rejected message must not touch windows");
}

#[test]
fn full_exchange_closes_confirmed() {
    let mut b = board();
    let w = request(&mut b);
    assert_eq!(b.window(w).unwrap().addressees, vec![A1, A2]);
    assert_eq!(b.next_deadline(), Some(Tick(50)));
    b.post(A2, refuse(w, A2), Tick(11)).unwrap();
    let r = b.post(A1, offer(w, A1, 2), Tick(11)).unwrap();
    assert!(r.closed.is_none());
    assert_eq!(b.next_deadline(), Some(Tick(211)), "an offer extends to the handover deadline");
    let confirm = BoardMessage::ConfirmTransfer { window: w, from: A0, to: A1, item: GLASS, count: n(2) };
    let r = b.post(A0, confirm, Tick(30)).unwrap();
    assert_eq!(r.closed.unwrap().outcome, CloseOutcome::Confirmed);
    assert_eq!(b.log().len(), 4);
    assert!(b.next_deadline().is_none());
}

#[test]
fn every_refusal_closes_cannot_supply() {
    let mut b = board();
    let w = request(&mut b);
    assert!(b.post(A1, refuse(w, A1), Tick(11)).unwrap().closed.is_none());
    let closed = b.post(A2, refuse(w, A2), Tick(12)).unwrap().closed.unwrap();
    assert_eq!(closed.outcome, CloseOutcome::CannotSupply);
}

#[test]
fn silence_times_out_at_the_deadline() {
    let mut b = board();
    let w = request(&mut b);
    assert!(b.expire(Tick(49)).is_empty());
    let closed = b.expire(Tick(50));
    assert_eq!(closed.len(), 1);
    assert_eq!((closed[0].window, closed[0].outcome), (w, CloseOutcome::Timeout));
    assert!(b.expire(Tick(60)).is_empty(), "a window closes once");
}

#[test]
fn rejects_forged_sender() {
    let mut b = board();
    let w = request(&mut b);
    rejected(&mut b, A2, offer(w, A1, 1), RejectKind::ForgedSender);
}

#[test]
fn rejects_unknown_item() {
    let mut b = board();
    let msg = BoardMessage::RequestMaterial {
        from: A0,
        to: Recipient::All,
        item: ItemId(999),
        count: n(1),
        reason: RequestReason::MissingMaterial,
    };
    rejected(&mut b, A0, msg, RejectKind::UnknownItem);
    let wire: WireMessage =
        serde_json::from_str(r#"{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"unobtainium","count":1}"#)
            .unwrap();
    let before = b.log().len();
    assert_eq!(b.post_wire(A0, &wire, Tick(1)).unwrap_err().kind(), RejectKind::UnknownItem);
    assert_eq!(b.log().len(), before);
}

#[test]
fn rejects_zero_negative_and_absurd_counts() {
    let mut b = board();
    for count in ["0", "-5", "1000000"] {
        let wire: WireMessage = serde_json::from_str(&format!(
            r#"{{"msg":"REQUEST_MATERIAL","from":0,"to":"all","item":"glass","count":{count}}}"#
        ))
        .unwrap();
        let err = b.post_wire(A0, &wire, Tick(1)).unwrap_err();
        assert_eq!(err.kind(), RejectKind::Malformed, "{count}: {err}");
    }
    assert!(b.log().is_empty() && b.windows().is_empty());
    // A typed offer above the requested count.
    let w = request(&mut b);
    rejected(&mut b, A1, offer(w, A1, 3), RejectKind::CountExceeded);
}

#[test]
fn rejects_messages_in_a_closed_window() {
    let mut b = board();
    let w = request(&mut b);
    b.expire(Tick(50));
    rejected(&mut b, A1, offer(w, A1, 1), RejectKind::WindowClosed);
    rejected(&mut b, A2, refuse(w, A2), RejectKind::WindowClosed);
    rejected(&mut b, A1, offer(WindowId(7), A1, 1), RejectKind::UnknownWindow);
}

#[test]
fn rejects_self_addressed_and_unknown_agents() {
    let mut b = board();
    let msg = BoardMessage::RequestMaterial {
        from: A1,
        to: Recipient::Agent(A1),
        item: GLASS,
        count: n(1),
        reason: RequestReason::MissingMaterial,
    };
    rejected(&mut b, A1, msg, RejectKind::SelfAddressed);
    let msg = BoardMessage::RequestMaterial {
        from: A1,
        to: Recipient::Agent(AgentId(9)),
        item: GLASS,
        count: n(1),
        reason: RequestReason::MissingMaterial,
    };
    rejected(&mut b, A1, msg.clone(), RejectKind::UnknownAgent);
    rejected(&mut b, AgentId(9), msg, RejectKind::UnknownAgent);
}

#[test]
fn rejects_wrong_parties_and_second_offers() {
    let mut b = board();
    let w = request(&mut b);
    // The requester cannot offer to itself; an offer must go to the requester.
    let wrong_to =
        BoardMessage::OfferTransfer { window: w, from: A1, to: A2, item: GLASS, count: n(1), handover: Handover::Give };
    rejected(&mut b, A1, wrong_to, RejectKind::WrongParty);
    let wrong_item = BoardMessage::OfferTransfer {
        window: w,
        from: A1,
        to: A0,
        item: PLANKS,
        count: n(1),
        handover: Handover::Give,
    };
    rejected(&mut b, A1, wrong_item, RejectKind::ItemMismatch);
    let early_confirm = BoardMessage::ConfirmTransfer { window: w, from: A0, to: A1, item: GLASS, count: n(1) };
    rejected(&mut b, A0, early_confirm, RejectKind::NoOffer);
    b.post(A1, offer(w, A1, 2), Tick(11)).unwrap();
    rejected(&mut b, A1, offer(w, A1, 1), RejectKind::AlreadyOffered);
    let foreign_confirm = BoardMessage::ConfirmTransfer { window: w, from: A2, to: A1, item: GLASS, count: n(1) };
    rejected(&mut b, A2, foreign_confirm, RejectKind::WrongParty);
    b.post(A2, refuse(w, A2), Tick(12)).unwrap();
    // The same refusal again is a duplicate (idempotent); a different one is a second refusal.
    rejected(&mut b, A2, refuse(w, A2), RejectKind::Duplicate);
    let busy = BoardMessage::CannotSupply { window: w, from: A2, to: A0, item: GLASS, reason: RefusalReason::Busy };
    rejected(&mut b, A2, busy, RejectKind::DuplicateRefusal);
    assert!(b.window(w).unwrap().is_open(), "a refusal after an offer does not close the window");
}

#[test]
fn a_second_offer_stands_by_and_a_withdrawal_passes_the_window_on() {
    let items = ItemRegistry::new([("glass", 64)]).unwrap();
    let crew: Vec<AgentId> = (0..4).map(AgentId).collect();
    let mut b = Board::new(crew, Arc::new(items), BoardConfig::default());
    let msg = BoardMessage::RequestMaterial {
        from: A0,
        to: Recipient::All,
        item: GLASS,
        count: n(4),
        reason: RequestReason::MissingMaterial,
    };
    let w = b.post(A0, msg, Tick(10)).unwrap().posted.window;
    let a3 = AgentId(3);
    b.post(A1, offer(w, A1, 2), Tick(11)).unwrap();
    assert_eq!(b.window(w).unwrap().offer().map(|o| o.from), Some(A1));
    // An equal offer stands by; a larger one is awaited instead, from now.
    b.post(A2, offer(w, A2, 2), Tick(12)).unwrap();
    assert_eq!(b.window(w).unwrap().offer().map(|o| o.from), Some(A1), "the earlier of equals is awaited");
    assert_eq!(b.next_deadline(), Some(Tick(211)));
    b.post(a3, offer(w, a3, 3), Tick(13)).unwrap();
    assert_eq!(b.window(w).unwrap().offer().map(|o| (o.from, o.count)), Some((a3, n(3))));
    assert_eq!(b.next_deadline(), Some(Tick(213)), "a new awaited offer has its own handover deadline");
    // The awaited giver cannot deliver: it withdraws, and the earliest of the rest is
    // awaited from then on.
    let unreachable =
        BoardMessage::CannotSupply { window: w, from: a3, to: A0, item: GLASS, reason: RefusalReason::Unreachable };
    assert!(b.post(a3, unreachable, Tick(40)).unwrap().closed.is_none());
    assert_eq!(b.window(w).unwrap().offer().map(|o| o.from), Some(A1));
    assert_eq!(b.next_deadline(), Some(Tick(240)));
    // A standing giver that is not awaited may still deliver first: its items confirm.
    let confirm = BoardMessage::ConfirmTransfer { window: w, from: A0, to: A2, item: GLASS, count: n(2) };
    rejected(
        &mut b,
        A0,
        BoardMessage::ConfirmTransfer { window: w, from: A0, to: a3, item: GLASS, count: n(1) },
        RejectKind::WrongParty,
    );
    assert_eq!(b.post(A0, confirm, Tick(41)).unwrap().closed.unwrap().outcome, CloseOutcome::Confirmed);
}

#[test]
fn the_last_giver_withdrawing_closes_or_reopens_the_window() {
    let mut b = board();
    let w = request(&mut b);
    b.post(A1, offer(w, A1, 2), Tick(11)).unwrap();
    let gone =
        BoardMessage::CannotSupply { window: w, from: A1, to: A0, item: GLASS, reason: RefusalReason::Unreachable };
    assert!(b.post(A1, gone, Tick(20)).unwrap().closed.is_none(), "A2 has not answered yet");
    assert_eq!(b.next_deadline(), Some(Tick(50)), "back to the answer deadline");
    assert!(b.window(w).unwrap().offer().is_none());
    let closed = b.post(A2, refuse(w, A2), Tick(21)).unwrap().closed.unwrap();
    assert_eq!(closed.outcome, CloseOutcome::CannotSupply, "every addressee has now said no");
}

#[test]
fn request_to_all_needs_a_teammate() {
    let items = ItemRegistry::new([("glass", 64)]).unwrap();
    let mut b = Board::new([A0], Arc::new(items), BoardConfig::default());
    let msg = BoardMessage::RequestMaterial {
        from: A0,
        to: Recipient::All,
        item: GLASS,
        count: n(1),
        reason: RequestReason::MissingMaterial,
    };
    rejected(&mut b, A0, msg, RejectKind::NoAddressee);
}

#[test]
fn a_ring_request_waits_only_for_its_addressees() {
    let items = ItemRegistry::new([("glass", 64), ("oak_planks", 64)]).unwrap();
    let crew: Vec<AgentId> = (0..6).map(AgentId).collect();
    let mut b = Board::new(crew, Arc::new(items), BoardConfig::default());
    let ring = crate::Addressees::new([AgentId(4), A2]).unwrap();
    let req = |to| BoardMessage::RequestMaterial {
        from: A0,
        to,
        item: GLASS,
        count: n(2),
        reason: RequestReason::MissingMaterial,
    };
    let w = b.post(A0, req(Recipient::Agents(ring)), Tick(10)).unwrap().posted.window;
    assert_eq!(b.window(w).unwrap().addressees, vec![A2, AgentId(4)]);
    // A teammate outside the ring was not asked.
    rejected(&mut b, A1, refuse(w, A1), RejectKind::WrongParty);
    assert!(b.post(A2, refuse(w, A2), Tick(11)).unwrap().closed.is_none());
    let closed = b.post(AgentId(4), refuse(w, AgentId(4)), Tick(12)).unwrap().closed.unwrap();
    assert_eq!(closed.outcome, CloseOutcome::CannotSupply, "two refusals close a ring of two");
    // A ring naming the sender or a stranger is refused whole.
    let selfish = crate::Addressees::new([A0, A1]).unwrap();
    rejected(&mut b, A0, req(Recipient::Agents(selfish)), RejectKind::SelfAddressed);
    let stranger = crate::Addressees::new([A1, AgentId(9)]).unwrap();
    rejected(&mut b, A0, req(Recipient::Agents(stranger)), RejectKind::UnknownAgent);
}

#[test]
fn a_giver_awaited_in_two_windows_gets_the_second_its_handover_time_from_the_first_ending() {
    let mut b = board();
    let first = request(&mut b);
    let ask = BoardMessage::RequestMaterial {
        from: A2,
        to: Recipient::All,
        item: GLASS,
        count: n(2),
        reason: RequestReason::MissingMaterial,
    };
    let second = b.post(A2, ask, Tick(10)).unwrap().posted.window;
    b.post(A1, offer(first, A1, 2), Tick(11)).unwrap();
    let to_a2 = BoardMessage::OfferTransfer {
        window: second,
        from: A1,
        to: A2,
        item: GLASS,
        count: n(2),
        handover: Handover::Give,
    };
    b.post(A1, to_a2, Tick(11)).unwrap();
    assert_eq!(b.window(second).unwrap().deadline, Tick(211));
    // A1 walks to A0 first and delivers at 150: its walk to A2 starts then.
    let confirm = BoardMessage::ConfirmTransfer { window: first, from: A0, to: A1, item: GLASS, count: n(2) };
    b.post(A0, confirm, Tick(150)).unwrap();
    assert_eq!(b.window(second).unwrap().deadline, Tick(350));
    assert!(b.expire(Tick(211)).is_empty(), "the second window waits for the walk that started at 150");
    // A withdrawal frees the giver as a delivery does; a refusal from a giver that was
    // not awaited there changes nothing.
    let third = request(&mut b);
    b.post(A1, offer(third, A1, 2), Tick(160)).unwrap();
    b.post(A2, refuse(third, A2), Tick(161)).unwrap();
    assert_eq!(b.window(second).unwrap().deadline, Tick(350));
    let withdraw =
        BoardMessage::CannotSupply { window: third, from: A1, to: A0, item: GLASS, reason: RefusalReason::Unreachable };
    b.post(A1, withdraw, Tick(170)).unwrap();
    assert_eq!(b.window(second).unwrap().deadline, Tick(370));
}
