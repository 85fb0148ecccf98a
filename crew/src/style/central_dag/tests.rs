//! The manager never reads an inventory it was not told ("fair baselines",
//! docs/baselines.md): the default house, where bot 0 holds the glass bot 2 lacks, with
//! the manager's belief made to disagree with the world, as after a report went stale.

use gatecrew_protocol::trace::{Event, EventKind, WindowEvent};
use gatecrew_protocol::{AgentId, Board, CloseOutcome, IssueId, ItemId};

use super::manager::{Directive, ManagerAsk, Report};
use crate::episode::{Answer, Episode, Need, stepper};
use crate::setup::{Overrides, Setup};
use crate::style::{Aside, Delivery};

fn setup() -> Setup {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/crew.toml");
    let ov = Overrides { policy: Some(crate::policy::Policy::CentralDag), ..Overrides::default() };
    Setup::load(&path, &ov).unwrap()
}

fn glass(s: &Setup) -> ItemId {
    s.data.item("glass").unwrap()
}

fn tell(ep: &mut Episode, agent: AgentId, ask: ManagerAsk) {
    ep.hear(agent, Aside::Ask(ask));
}

/// Bot 0 "reported" no glass (the world gives it 4) and bot 1 "reported" 3 (the world
/// gives it none): what each would have said before its inventory changed.
fn stale_reports(ep: &mut Episode, glass: ItemId) {
    tell(ep, AgentId(0), ManagerAsk::Report(Report { items: Vec::new() }));
    tell(ep, AgentId(1), ManagerAsk::Report(Report { items: vec![(glass, 3)] }));
}

fn delivers(ep: &Episode, agent: AgentId) -> Vec<Directive> {
    ep.deliveries(agent)
        .iter()
        .map(|Delivery::Directive(d)| *d)
        .filter(|d| matches!(d, Directive::Deliver { .. }))
        .collect()
}

#[test]
fn the_manager_orders_by_the_reports_not_by_the_world() {
    let s = setup();
    let glass = glass(&s);
    let mut ep = Episode::new(&s);
    assert_eq!(ep.world().body(AgentId(0)).unwrap().inventory.count(glass), 4, "the world's glass is bot 0's");
    stale_reports(&mut ep, glass);
    let issue = IssueId::new(AgentId(2), 999);
    tell(&mut ep, AgentId(2), ManagerAsk::Issue { issue, item: Some((glass, 2)) });
    assert!(delivers(&ep, AgentId(0)).is_empty(), "bot 0's glass was never reported");
    assert!(matches!(delivers(&ep, AgentId(1))[..], [Directive::Deliver { to: AgentId(2), count: 2, .. }]));
}

/// The whole episode on the stepper's loop, with the stale reports folded in after the
/// agents' own first ones: bot 2's request for glass is sent to bot 1, which holds none
/// and so gives none; the window runs out and bot 2 is told to recover.
#[test]
fn an_order_built_on_a_stale_report_fails_honestly() {
    let s = setup();
    let glass = glass(&s);
    let mut ep = Episode::new(&s);
    let mut board = Board::new(s.roster(), s.data.items().clone(), s.board);
    let mut agents = s.agents();
    let mut events: Vec<Event> = Vec::new();
    let mut injected = false;
    loop {
        let answer = match ep.poll() {
            Need::Deadline => Answer::Deadline(board.next_deadline()),
            Need::Adjudicate(_) => unreachable!("no external adjudicator"),
            Need::Expire(now) => Answer::Expired(board.expire(now)),
            Need::Post { from, msg, now } => Answer::Posted(board.post(from, msg, now)),
            Need::Outside(_) | Need::Over(_) => Answer::Ready,
            Need::Step(inputs) => Answer::Stepped(stepper::step_all(&mut agents, inputs)),
            Need::Flush => {
                events.extend(ep.drain());
                if !injected {
                    stale_reports(&mut ep, glass);
                    injected = true;
                }
                Answer::Ready
            }
            Need::Done(_) => break,
        };
        ep.answer(answer);
    }
    let opened = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::Window { event: WindowEvent::Open, .. }))
        .expect("bot 2 asked for glass and the manager ordered a delivery");
    let EventKind::Window { window, .. } = events[opened].kind else { unreachable!() };
    assert!(
        matches!(events[opened + 1].kind, EventKind::Manager { from: None, to: Some(AgentId(1)), .. }),
        "the order goes to bot 1, as its report said: {:?}",
        events[opened + 1]
    );
    let gave_glass = |e: &Event| {
        matches!(&e.kind, EventKind::Action { agent: AgentId(1), action, ok: true, item, .. }
            if action.as_str() == "give" && item.as_deref() == Some("glass"))
    };
    assert!(!events.iter().any(gave_glass), "bot 1 cannot give glass it does not hold");
    assert!(
        events.iter().any(|e| matches!(e.kind, EventKind::Window { window: w, event: WindowEvent::Close, outcome: Some(CloseOutcome::Timeout), .. } if w == window)),
        "the delivery's window runs out"
    );
}
