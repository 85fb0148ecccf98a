//! A stop typed while a walk is under way: the walk is cut where the bot has
//! got to within the tick the stop is typed, it stays there and places nothing while
//! stopped, and "go on" re-plans from where it stands and finishes the house. The
//! session is driven round by round so that the bot's position can be read each tick.

use gatecrew_crew::{ByAdjudicator, Observer, Overrides, Setup};
use gatecrew_gating::Deterministic;
use gatecrew_hitl::classify::ParserClassifier;
use gatecrew_hitl::driver::{Driver, Output};
use gatecrew_hitl::recipe::PlannerConfig;
use gatecrew_hitl::session::{Partner, PartnerConfig};
use gatecrew_protocol::trace::{ActionName, Event, EventKind};
use gatecrew_protocol::{AgentId, Pos, Tick};

use crate::common::root;

const BOT: AgentId = AgentId(0);

#[derive(Default)]
struct Rec {
    events: Vec<Event>,
    said: Vec<(u64, String)>,
}

impl Observer for Rec {
    fn event(&mut self, e: &Event) {
        self.events.push(e.clone());
    }
}

impl Output for Rec {
    fn said(&mut self, t: Tick, _: AgentId, text: &str) {
        self.said.push((t.0, text.to_owned()));
    }
}

/// Runs the house with `lines` at their ticks; returns what was recorded and the bot's
/// position after every round, by tick.
fn session(lines: &[(u64, &str)]) -> (Rec, Vec<(u64, Pos)>) {
    session_as(lines, false)
}

/// As [`session`]; with `server`, a stop lets a placement in flight finish, as on a
/// Minecraft server ([`Partner::finish_actions_on_stop`]).
fn session_as(lines: &[(u64, &str)], server: bool) -> (Rec, Vec<(u64, Pos)>) {
    let setup = Setup::load(&root().join("tests/fixtures/hitl/house.toml"), &Overrides::default()).unwrap();
    let cfg = PartnerConfig {
        agent: BOT,
        merge_ticks: 5,
        planner: PlannerConfig::default(),
        world: setup.name.clone(),
        run: "halt".into(),
    };
    let mut partner = Partner::new(cfg, &setup, Box::new(ParserClassifier), None).unwrap();
    if server {
        partner.finish_actions_on_stop();
    }
    let resolver = Box::new(ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() }));
    let mut d = Driver::new(&setup, partner, resolver);
    let mut queue: std::collections::VecDeque<(u64, String)> =
        lines.iter().map(|(t, l)| (*t, (*l).to_owned())).collect();
    let (mut rec, mut at) = (Rec::default(), Vec::new());
    loop {
        d.hold_open(!queue.is_empty() || d.partner().holding());
        let next = queue.front().map(|(t, _)| Tick(*t));
        let mut take = |now: Tick| {
            let mut v = Vec::new();
            while queue.front().is_some_and(|(t, _)| *t <= now.0) {
                v.extend(queue.pop_front().map(|(_, l)| l));
            }
            v
        };
        if !d.round(next, &mut take, &mut rec).unwrap() {
            break;
        }
        at.push((d.tick().0, d.world().body(BOT).unwrap().pos));
    }
    let _ = d.finish(&mut rec);
    (rec, at)
}

/// The bot's walks: (end tick, ticks, ok, reason).
fn walks(ev: &[Event]) -> Vec<(u64, u64, bool, Option<String>)> {
    ev.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Action { agent, action: ActionName::MoveTo, ok, reason, ticks, .. } if *agent == BOT => {
                Some((e.t, ticks.unwrap_or(0), *ok, reason.clone()))
            }
            _ => None,
        })
        .collect()
}

fn placed(ev: &[Event]) -> Vec<u64> {
    ev.iter()
        .filter(|e| matches!(&e.kind, EventKind::Action { agent, action: ActionName::Place, ok: true, .. } if *agent == BOT))
        .map(|e| e.t)
        .collect()
}

fn pos_at(at: &[(u64, Pos)], t: u64) -> Pos {
    at.iter().rev().find(|(u, _)| *u <= t).map(|(_, p)| *p).expect("a round by then")
}

#[test]
fn a_stop_during_a_walk_cuts_it_within_the_tick_and_go_on_finishes_the_house() {
    let (quiet, quiet_at) = session(&[]);
    assert_eq!(placed(&quiet.events).len(), 95, "the house is built without a stop");
    // The first walk of two blocks or more (10 ticks: from the start towards the site,
    // on open ground), stopped one tick before it would arrive: every step but the
    // last is walked. (A walk cut while crossing cells still to be built ends on the
    // last cell it may stand on, which can be where it started.)
    let all = walks(&quiet.events);
    let (end, ticks, ..) = all
        .iter()
        .find(|(_, n, ok, _)| *ok && *n >= 10)
        .cloned()
        .unwrap_or_else(|| panic!("a walk of 10 ticks or more: {all:?}"));
    let start = end - ticks;
    let stop = end - 1;
    let resume = stop + 150;
    let walk_end = pos_at(&quiet_at, end);
    let walk_start = pos_at(&quiet_at, start);

    // A question on the next tick makes the clock stop there (it changes nothing).
    let (ev, at) = session(&[(stop, "STOP"), (stop + 1, "where are you?"), (resume, "go on")]);
    let e = &ev.events;
    // Until the stop both runs are the same.
    let before = |v: &[Event]| v.iter().filter(|x| x.t < stop).cloned().collect::<Vec<_>>();
    assert_eq!(before(e), before(&quiet.events));
    // The walk is recorded as cut at the stop's tick, after the ticks walked so far.
    let cut: Vec<_> = walks(e).into_iter().filter(|(t, ..)| *t == stop).collect();
    assert_eq!(cut, [(stop, stop - start, false, Some("interrupted".to_owned()))], "{:?}", walks(e));
    // Where it stands after the stop's round: part of the way, not at the walk's end.
    let here = pos_at(&at, stop);
    assert_ne!(here, walk_end, "the walk went on to its end");
    assert_ne!(here, walk_start, "{} of {ticks} ticks walked move the bot", ticks - 1);
    // It stays there on every round until "go on", and nothing is placed meanwhile.
    let rounds: Vec<_> = at.iter().filter(|(t, _)| *t > stop && *t < resume).collect();
    assert_eq!(rounds.first().map(|(t, _)| *t), Some(stop + 1), "a round on the next tick");
    assert!(rounds.iter().all(|(_, p)| *p == here), "moved while stopped: {rounds:?}");
    assert!(placed(e).iter().all(|t| *t <= start || *t > resume), "placed while stopped: {:?}", placed(e));
    let line = ev.said.iter().find(|(t, _)| *t == stop).expect("the bot answers the stop");
    assert!(
        line.1.starts_with("Stopped: I was going to place") && line.1.contains("I stop walking where I am"),
        "{line:?}"
    );
    assert!(line.1.contains("say \"go on\" and I will place"), "{line:?}");
    // "go on" re-plans from where it stands: its next walk starts there, and the house
    // is finished.
    assert!(walks(e).iter().any(|(t, ..)| *t > resume), "no walk after go on");
    assert_eq!(placed(e).len(), 95, "{:#?}", ev.said);
}

/// The bot's actions: (end tick, name, ticks, ok).
fn actions(ev: &[Event]) -> Vec<(u64, ActionName, u64, bool)> {
    ev.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Action { agent, action, ok, ticks, .. } if *agent == BOT => {
                Some((e.t, *action, ticks.unwrap_or(0), *ok))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn on_a_server_a_stop_during_a_placement_lets_it_finish_and_then_the_bot_stops() {
    let (quiet, _) = session(&[]);
    // The first placement that takes two ticks or more, stopped one tick before its end.
    let all = actions(&quiet.events);
    let (end, _, ticks, _) = all
        .iter()
        .find(|(_, a, n, ok)| *a == ActionName::Place && *ok && *n >= 2)
        .copied()
        .unwrap_or_else(|| panic!("a placement of 2 ticks or more: {all:?}"));
    let stop = end - 1;
    let resume = end + 150;
    let (ev, _) = session_as(&[(stop, "stop"), (resume, "go on")], true);
    let e = &ev.events;
    // The placement is made, at the tick it would have been without the stop: never
    // left half done, and not recorded as cut.
    let at_end: Vec<_> = actions(e).into_iter().filter(|(t, ..)| *t == end).collect();
    assert_eq!(at_end, [(end, ActionName::Place, ticks, true)], "{:?}", actions(e));
    assert!(!actions(e).iter().any(|(t, _, _, ok)| *t == stop && !ok), "an action was cut: {:?}", actions(e));
    // Then the bot stops: no action of its own ends between the placement and "go on".
    let meanwhile: Vec<_> = actions(e).into_iter().filter(|(t, ..)| *t > end && *t <= resume).collect();
    assert!(meanwhile.is_empty(), "acted while stopped: {meanwhile:?}");
    let line = ev.said.iter().find(|(t, _)| *t == stop).expect("the bot answers the stop");
    assert!(line.1.contains("I finish placing the block I started, then stop."), "{line:?}");
    assert!(!line.1.contains("is not placed"), "{line:?}");
    // "go on" finishes the house.
    assert_eq!(placed(e).len(), 95, "{:#?}", ev.said);
}
