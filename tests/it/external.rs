//! The episode core's external mode (what the Minecraft driver uses), driven here by a
//! stand-in "server": a second copy of the scenario world that applies each action the
//! moment it starts. No Node, no network: this checks the core's side of the contract.

use gatecrew_crew::episode::stepper::step_all;
use gatecrew_crew::{Answer, EndReason, Episode, Need, Overrides, Setup};
use gatecrew_protocol::trace::{Event, EventKind};
use gatecrew_protocol::{AgentId, Board, Tick};

use crate::common::root;

fn wall() -> Setup {
    Setup::load(&root().join("configs/minecraft/wall.toml"), &Overrides::default()).unwrap()
}

/// Runs the episode in external mode; `fail` takes agents out at given ticks. The
/// "server" completes each action the moment the round hands it out.
fn drive(setup: &Setup, fail: &[(AgentId, u64)]) -> (Episode, Vec<Event>) {
    let mut ep = Episode::new_external(setup);
    let mut server = setup.world.clone();
    let mut board = Board::new(setup.roster(), setup.data.items().clone(), setup.board);
    let mut agents = setup.agents();
    let mut events = Vec::new();
    let mut pending_fail = fail.to_vec();
    let mut rounds = 0;
    loop {
        let answer = match ep.poll() {
            Need::Deadline => {
                rounds += 1;
                assert!(rounds < 10_000, "runaway");
                Answer::Deadline(board.next_deadline())
            }
            Need::Adjudicate(_) => unreachable!("the wall config has no tier 3"),
            Need::Expire(now) => Answer::Expired(board.expire(now)),
            Need::Post { from, msg, now } => Answer::Posted(board.post(from, msg, now)),
            Need::Outside(now) => {
                for (a, _) in pending_fail.iter().filter(|(_, t)| *t <= now.0) {
                    ep.fail_agent(*a, "test: gone");
                }
                pending_fail.retain(|(_, t)| *t > now.0);
                Answer::Ready
            }
            Need::Step(inputs) => Answer::Stepped(step_all(&mut agents, inputs)),
            Need::Flush => {
                let now = ep.tick();
                for (agent, action) in ep.take_started() {
                    assert!(ep.in_flight() > 0);
                    let p = server.begin(agent, action);
                    let ticks = p.ticks;
                    let (outcome, receipt) = server.complete(agent, p);
                    ep.deliver(agent, outcome, receipt, now + ticks);
                    // The driver keeps the episode's world in step with what bots observe.
                    *ep.world_mut() = server.clone();
                }
                assert_eq!(ep.in_flight(), 0, "every started action was delivered");
                events.extend(ep.drain());
                Answer::Ready
            }
            Need::Over(_) => Answer::Ready,
            Need::Done(_) => return (ep, events),
        };
        ep.answer(answer);
    }
}

/// Polls and answers until the episode needs agents stepped; returns their inputs.
fn until_step(ep: &mut Episode, board: &mut Board) -> Vec<(AgentId, gatecrew_crew::agent::StepInput)> {
    loop {
        let answer = match ep.poll() {
            Need::Deadline => Answer::Deadline(board.next_deadline()),
            Need::Expire(now) => Answer::Expired(board.expire(now)),
            Need::Post { from, msg, now } => Answer::Posted(board.post(from, msg, now)),
            Need::Outside(_) => Answer::Ready,
            Need::Step(inputs) => return inputs,
            other => panic!("unexpected before the first step: {other:?}"),
        };
        ep.answer(answer);
    }
}

#[test]
fn delivered_outcomes_build_the_wall_with_one_transfer() {
    let setup = wall();
    let (ep, events) = drive(&setup, &[]);
    assert_eq!(ep.ended(), Some(EndReason::Complete));
    assert_eq!(ep.progress().correct, 12);
    let confirms =
        events.iter().filter(|e| matches!(&e.kind, EventKind::Board { msg, .. } if *msg == gatecrew_protocol::MessageKind::ConfirmTransfer)).count();
    assert_eq!(confirms, 1);
    // Delivered outcomes are recorded at the tick they were delivered for.
    assert!(events.iter().any(|e| matches!(e.kind, EventKind::Action { .. }) && e.t > 0));
    assert!(!events.iter().any(|e| matches!(e.kind, EventKind::AgentFailed { .. })));
}

#[test]
fn a_failed_agent_is_never_woken_again_and_the_crew_goes_on() {
    let setup = wall();
    let (ep, events) = drive(&setup, &[(AgentId(0), 1)]);
    let failed: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AgentFailed { agent, cause } => Some((e.t, *agent, cause.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(failed.len(), 1, "one agent_failed event, even if failed again");
    let (t_fail, agent, cause) = failed[0].clone();
    assert_eq!((agent, cause.as_str()), (AgentId(0), "test: gone"));
    assert!(ep.is_failed(AgentId(0)) && !ep.is_failed(AgentId(1)));
    let acts = |a: AgentId| {
        events
            .iter()
            .filter(move |e| e.t > t_fail && matches!(&e.kind, EventKind::Action { agent, .. } if *agent == a))
            .count()
    };
    assert_eq!(acts(AgentId(0)), 0, "the failed agent acted");
    assert!(acts(AgentId(1)) > 0, "bot1 went on");
    let placed_by_bot1 = events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Action { agent: AgentId(1), action, ok: true, .. } if action.as_str() == "place"))
        .count();
    assert_eq!(placed_by_bot1, 6, "bot1 built its half");
    assert_eq!(ep.ended(), Some(EndReason::Stalled));
    assert!(events.iter().any(|e| matches!(&e.kind, EventKind::Unfinished { agent: AgentId(0), .. })));
}

#[test]
fn when_every_agent_failed_the_episode_ends_as_agents_failed() {
    let setup = wall();
    let (ep, events) = drive(&setup, &[(AgentId(0), 0), (AgentId(1), 0)]);
    assert_eq!(ep.ended(), Some(EndReason::AgentsFailed));
    let Some(EventKind::EpisodeEnd { reason, complete, .. }) = events.last().map(|e| &e.kind) else {
        panic!("no episode_end");
    };
    assert_eq!((reason.as_str(), *complete), ("agents_failed", false));
    assert!(!events.iter().any(|e| matches!(e.kind, EventKind::Action { .. })));
}

#[test]
fn next_due_waits_for_outcomes_in_flight() {
    let setup = wall();
    let mut ep = Episode::new_external(&setup);
    let mut board = Board::new(setup.roster(), setup.data.items().clone(), setup.board);
    let mut agents = setup.agents();
    assert_eq!(ep.next_due(None), Some(Tick(0)), "not started: due now");
    let inputs = until_step(&mut ep, &mut board);
    let stepped = step_all(&mut agents, inputs);
    ep.answer(Answer::Stepped(stepped));
    // Posts (none expected at tick 0 for the wall), then the round's flush.
    loop {
        match ep.poll() {
            Need::Post { from, msg, now } => ep.answer(Answer::Posted(board.post(from, msg, now))),
            Need::Flush => break,
            other => panic!("unexpected after the first step: {other:?}"),
        }
    }
    let started = ep.take_started();
    assert_eq!(started.len(), 2, "both agents started an action");
    assert!(ep.take_started().is_empty(), "taken once");
    assert_eq!(ep.in_flight(), 2);
    // Nothing is scheduled while both actions run on the server.
    assert_eq!(ep.next_due(board.next_deadline()), None);
    // An outcome delivered for a past tick is applied now, not in the past.
    let mut server = setup.world.clone();
    let (agent, action) = started[0];
    let p = server.begin(agent, action);
    let (o, r) = server.complete(agent, p);
    ep.deliver(agent, o, r, Tick(0));
    *ep.world_mut() = server;
    assert_eq!(ep.in_flight(), 1);
    assert_eq!(ep.next_due(board.next_deadline()), Some(Tick(0)));
}

/// `central_dag` with the glass holder gone after its first report (docs/baselines.md,
/// central_dag): the manager, which learns inventories only from reports and has no
/// word of the failure, still orders the holder to deliver; the order is not delivered,
/// nothing comes, the window runs out, and the failed bot never acts again.
#[test]
fn under_central_dag_a_failed_holder_is_ordered_but_never_delivers() {
    use gatecrew_protocol::CloseOutcome;
    use gatecrew_protocol::trace::WindowEvent;
    let ov = Overrides { policy: Some(gatecrew_crew::Policy::CentralDag), ..Overrides::default() };
    let setup = Setup::load(&root().join("configs/minecraft/wall.toml"), &ov).unwrap();
    let (_, events) = drive(&setup, &[(AgentId(1), 1)]);
    let reported = |e: &Event| e.t == 0 && matches!(e.kind, EventKind::Manager { from: Some(AgentId(1)), .. });
    assert!(events.iter().any(reported), "bot1 reported its glass at its first step");
    let t_fail = events.iter().find(|e| matches!(e.kind, EventKind::AgentFailed { .. })).unwrap().t;
    let open = events
        .iter()
        .position(|e| matches!(e.kind, EventKind::Window { event: WindowEvent::Open, .. }))
        .expect("bot0 asked the manager for glass");
    assert!(
        matches!(events[open + 1].kind, EventKind::Manager { from: None, to: Some(AgentId(1)), .. }),
        "the order goes to bot1, as its report said: {:?}",
        events[open + 1]
    );
    assert!(!events.iter().any(|e| e.t > t_fail && matches!(&e.kind, EventKind::Action { agent: AgentId(1), .. })));
    let timed_out = |e: &Event| {
        matches!(e.kind, EventKind::Window { event: WindowEvent::Close, outcome: Some(CloseOutcome::Timeout), .. })
    };
    assert!(events.iter().any(timed_out), "the delivery's window runs out");
}
