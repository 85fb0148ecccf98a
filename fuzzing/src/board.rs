//! Board messages: a structure-aware script (through `arbitrary`) of posts, wire
//! messages and deadlines on one board, with the board's invariants checked after every
//! step.
//!
//! After each post: a rejected post changed nothing; an accepted one appended exactly
//! one log entry from its caller, on an open window, and its wire form parses back to
//! the same message. At all times: windows are numbered densely; each holds at most one
//! offer, and exactly when the log has one; a closed window stays closed as it was and
//! never accepts another message; a window closed by refusals was refused by every
//! addressee; `next_deadline` is the earliest deadline of an open window. Expiry closes
//! exactly the open windows that are due.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use arbitrary::{Arbitrary, Unstructured};
use gatecrew_protocol::{
    AgentId, Board, BoardConfig, BoardMessage, CloseOutcome, Handover, ItemId, ItemRegistry, MessageKind, Pos,
    Recipient, Tick, WindowId, WireMessage,
};

/// A small registry: name lookups with a suggestion scan are quick.
static ITEMS: LazyLock<Arc<ItemRegistry>> = LazyLock::new(|| {
    Arc::new(ItemRegistry::new([("glass", 64), ("oak_planks", 64), ("bucket", 16)]).expect("a valid registry"))
});

/// Item names a script may use: known, namespaced, misspelt, empty.
const NAMES: [&str; 6] = ["glass", "oak_planks", "bucket", "minecraft:glass", "glas", ""];
const KINDS: [&str; 5] = ["REQUEST_MATERIAL", "OFFER_TRANSFER", "CONFIRM_TRANSFER", "CANNOT_SUPPLY", "SHOUT"];
const REASONS: [&str; 6] = ["missing_material", "missing_tool", "no_surplus", "busy", "unreachable", "bored"];

#[derive(Debug, Arbitrary)]
struct Script {
    crew: u8,
    window_ticks: u8,
    handover_ticks: u8,
    steps: Vec<Step>,
}

#[derive(Debug, Arbitrary)]
enum Step {
    /// A message built field by field, posted through the wire parser.
    Post { caller: u8, msg: Fields, dt: u8 },
    /// A parsed message with its item id replaced by one outside the registry.
    Foreign { caller: u8, msg: Fields, item: u16 },
    /// Wire JSON as a remote peer might send it.
    Json { caller: u8, text: String },
    /// Time passes; due windows expire.
    Expire { dt: u16 },
}

/// One message, field by field. Every field has a natural value that makes the
/// message acceptable in the board's current state (the window's requester, item and
/// giver; the caller as sender) and rare byte values that break it in one way, so that
/// scripts reach offers, confirmations and refusals as well as every rejection.
#[derive(Debug, Arbitrary)]
struct Fields {
    /// Modulo 4 the four kinds; 255 an unknown kind.
    kind: u8,
    /// Answers: modulo the number of windows + 1 (one past the last is unknown); 255
    /// none. Requests: none; 255 one.
    window: u8,
    /// Below 16: claims to be that agent. Otherwise the caller.
    from: u8,
    /// Below 32: that agent. Otherwise everybody (requests) or the other party.
    to: u8,
    /// Requests: modulo 3 a known item. Answers: the window's item. At or above 240,
    /// modulo 6 a name from [`NAMES`] (namespaced, misspelt, empty).
    item: u8,
    /// `1 + count % 16`; 0 none, 254 negative, 255 more than a bot can carry.
    /// Refusals have none unless the byte is at or above 250.
    count: u8,
    /// At or above 224: a reason tag, any kind's. Otherwise none.
    reason: u8,
    /// Offers: modulo 3 none, give, drop at. Others: none; at or above 240, give.
    handover: u8,
    drop_at: (i8, i8, i8),
}

/// The `board_message` target.
pub fn board_message(data: &[u8]) {
    let Ok(script) = Script::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let crew = u32::from(script.crew % 5);
    let config = BoardConfig {
        window_ticks: u64::from(script.window_ticks),
        handover_ticks: u64::from(script.handover_ticks),
        ..BoardConfig::default()
    };
    let mut board = Board::new((0..crew).map(AgentId), ITEMS.clone(), config);
    // Agent bytes reach one id past the crew, so that strangers post too.
    let agent = |b: u8| AgentId(u32::from(b) % (crew + 2));
    let mut now = Tick(0);
    for step in script.steps {
        match step {
            Step::Post { caller, msg, dt } => {
                now = now + u64::from(dt);
                let wire = fields_to_wire(&msg, agent(caller), &board, agent);
                post(&mut board, agent(caller), now, Input::Wire(&wire));
            }
            Step::Foreign { caller, msg, item } => {
                let wire = fields_to_wire(&msg, agent(caller), &board, agent);
                if let Ok(mut m) = wire.parse(&ITEMS) {
                    set_item(&mut m, ItemId(item));
                    post(&mut board, agent(caller), now, Input::Typed(m));
                }
            }
            Step::Json { caller, text } => {
                if let Ok(wire) = serde_json::from_str::<WireMessage>(&text) {
                    post(&mut board, agent(caller), now, Input::Wire(&wire));
                }
            }
            Step::Expire { dt } => {
                now = now + u64::from(dt);
                expire(&mut board, now);
            }
        }
        check_board(&board);
    }
}

fn fields_to_wire(f: &Fields, caller: AgentId, board: &Board, agent: impl Fn(u8) -> AgentId) -> WireMessage {
    let kind = if f.kind == 255 { 4 } else { usize::from(f.kind % 4) };
    let request = kind == 0;
    let window = match (request, f.window) {
        (true, 255) => Some(0),
        (true, _) | (false, 255) => None,
        (false, w) => Some(u32::from(w) % (board.windows().len() as u32 + 1)),
    };
    let open = window.and_then(|w| board.window(WindowId(w)));
    let other_party = match (kind, open) {
        // A confirmation goes to the giver, other answers to the requester.
        (2, Some(w)) => w.offer().map_or(w.requester, |o| o.from),
        (_, Some(w)) => w.requester,
        _ => caller,
    };
    let to = match (f.to, request) {
        (t, _) if t < 32 => Recipient::Agent(agent(t)),
        // A ring: two names, possibly the same one twice or the caller itself.
        (t, _) if t < 48 => gatecrew_protocol::Addressees::new([agent(t), agent(t.wrapping_mul(7))])
            .map_or(Recipient::Agent(agent(t)), Recipient::Agents),
        (_, true) => Recipient::All,
        (_, false) => Recipient::Agent(other_party),
    };
    let item = match (f.item, open) {
        (i, _) if i >= 240 => NAMES[usize::from(i) % NAMES.len()].to_owned(),
        (_, Some(w)) => ITEMS.name(w.item).to_owned(),
        (i, None) => NAMES[usize::from(i % 3)].to_owned(),
    };
    let count = match f.count {
        0 => None,
        254 => Some(-1),
        255 => Some(i64::from(gatecrew_protocol::MAX_COUNT) + 1),
        c if kind == 3 && c < 250 => None,
        c => Some(i64::from(c % 16) + 1),
    };
    let handover = match (kind, f.handover) {
        (1, h) if h % 3 == 1 => Some(Handover::Give),
        (1, h) if h % 3 == 2 => {
            let (x, y, z) = f.drop_at;
            Some(Handover::DropAt(Pos::new(x.into(), y.into(), z.into())))
        }
        (1, _) => None,
        (_, h) if h >= 240 => Some(Handover::Give),
        _ => None,
    };
    WireMessage {
        msg: KINDS[kind].to_owned(),
        window,
        from: if f.from < 16 { agent(f.from).0 } else { caller.0 },
        to,
        item,
        count,
        reason: (f.reason >= 224).then(|| REASONS[usize::from(f.reason) % REASONS.len()].to_owned()),
        handover,
    }
}

fn set_item(m: &mut BoardMessage, to: ItemId) {
    match m {
        BoardMessage::RequestMaterial { item, .. }
        | BoardMessage::OfferTransfer { item, .. }
        | BoardMessage::ConfirmTransfer { item, .. }
        | BoardMessage::CannotSupply { item, .. } => *item = to,
    }
}

enum Input<'a> {
    Wire(&'a WireMessage),
    Typed(BoardMessage),
}

/// Posts one message and checks what the post did.
fn post(board: &mut Board, caller: AgentId, now: Tick, input: Input<'_>) {
    let before = board.clone();
    let target = match &input {
        Input::Wire(w) => w.window.map(WindowId),
        Input::Typed(m) => m.window(),
    };
    let result = match input {
        Input::Wire(w) => board.post_wire(caller, w, now),
        Input::Typed(m) => board.post(caller, m, now),
    };
    let Ok(receipt) = result else {
        assert_eq!(board.log(), before.log(), "a rejected post changed the log");
        assert_eq!(board.windows(), before.windows(), "a rejected post changed a window");
        return;
    };
    let posted = &receipt.posted;
    assert_eq!(board.log().len(), before.log().len() + 1, "an accepted post is one log entry");
    assert_eq!(board.log().last(), Some(posted));
    assert_eq!(posted.seq as usize, before.log().len());
    assert_eq!(posted.at, now);
    assert_eq!(posted.msg.from(), caller, "accepted a message from someone else than the caller");
    assert!(ITEMS.contains(posted.msg.item()), "accepted an item outside the registry");
    if posted.msg.kind() == MessageKind::RequestMaterial {
        assert_eq!(posted.window.0 as usize, before.windows().len(), "a request opens the next window");
        assert_eq!(board.windows().len(), before.windows().len() + 1);
    } else {
        assert_eq!(Some(posted.window), target);
        assert_eq!(board.windows().len(), before.windows().len(), "only requests open windows");
        let w = before.window(posted.window).expect("an accepted answer names a window");
        assert!(w.is_open(), "a closed window accepted {:?}", posted.msg.kind());
        assert_eq!(w.item, posted.msg.item());
    }
    if let Some(closed) = receipt.closed {
        assert_eq!(closed.window, posted.window);
        assert_eq!(board.window(closed.window).and_then(|w| w.closed), Some((now, closed.outcome)));
    }
    // The wire form of what was accepted parses back to it.
    let wire = WireMessage::from_message(&posted.msg, &ITEMS);
    assert_eq!(wire.parse(&ITEMS).as_ref(), Ok(&posted.msg), "the wire form does not round-trip");
    let json = serde_json::to_string(&wire).expect("a wire message serializes");
    assert_eq!(serde_json::from_str::<WireMessage>(&json).ok().as_ref(), Some(&wire), "wire JSON: {json}");
    check_history(&before, board);
}

/// Expires due windows and checks that exactly those closed.
fn expire(board: &mut Board, now: Tick) {
    let before = board.clone();
    let closed = board.expire(now);
    let due: Vec<WindowId> =
        before.windows().iter().filter(|w| w.is_open() && w.deadline <= now).map(|w| w.id).collect();
    assert_eq!(closed.iter().map(|c| c.window).collect::<Vec<_>>(), due, "expiry closed the wrong windows");
    assert!(closed.iter().all(|c| c.outcome == CloseOutcome::Timeout && c.at == now));
    assert_eq!(board.log(), before.log(), "expiry posted a message");
    assert!(board.next_deadline().is_none_or(|d| d > now), "a due window is still open");
    check_history(&before, board);
}

/// What a step may not undo: closed windows stay closed as they were, offers stay until
/// their giver withdraws them with a refusal.
fn check_history(before: &Board, after: &Board) {
    for (old, new) in before.windows().iter().zip(after.windows()) {
        if old.closed.is_some() {
            assert_eq!(old, new, "a closed window changed");
        }
        for o in old.offers.all() {
            let kept = new.offers.by(o.from) == Some(*o);
            assert!(kept || new.refused.contains(&o.from), "an offer changed or went without its giver's refusal");
        }
        assert!(old.refused.is_subset(&new.refused), "a refusal was withdrawn");
    }
}

fn check_board(board: &Board) {
    let mut offers: BTreeMap<WindowId, Vec<AgentId>> = BTreeMap::new();
    for p in board.log() {
        if p.msg.kind() == MessageKind::OfferTransfer {
            offers.entry(p.window).or_default().push(p.msg.from());
        }
    }
    for (i, w) in board.windows().iter().enumerate() {
        assert_eq!(w.id.0 as usize, i, "windows are not numbered densely");
        // The offers standing are those logged whose giver has not refused since.
        let logged: Vec<AgentId> = offers.get(&w.id).into_iter().flatten().copied().collect();
        let mut unique = logged.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), logged.len(), "{}: a giver offered twice", w.id);
        let standing: Vec<AgentId> = logged.into_iter().filter(|a| !w.refused.contains(a)).collect();
        let held: Vec<AgentId> = w.offers.all().iter().map(|o| o.from).collect();
        assert_eq!(held, standing, "{}: the offers and the log disagree", w.id);
        assert!(!w.addressees.is_empty() && !w.addressees.contains(&w.requester));
        assert!(w.refused.iter().all(|a| w.addressees.contains(a)), "a refusal from someone not asked");
        for o in w.offers.all() {
            assert!(w.addressees.contains(&o.from) && o.count <= w.count);
        }
        if let Some(o) = w.offer() {
            assert!(w.offers.all().iter().all(|other| other.count <= o.count), "a larger offer is not awaited");
        }
        assert!(w.deadline >= w.opened);
        match w.closed {
            Some((_, CloseOutcome::CannotSupply)) => {
                assert!(w.offers.is_empty() && w.addressees.iter().all(|a| w.refused.contains(a)));
            }
            Some((_, CloseOutcome::Confirmed)) => assert!(!w.offers.is_empty(), "confirmed without an offer"),
            _ => {}
        }
    }
    let earliest = board.windows().iter().filter(|w| w.is_open()).map(|w| w.deadline).min();
    assert_eq!(board.next_deadline(), earliest);
}
