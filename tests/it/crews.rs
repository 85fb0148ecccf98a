//! Crews larger than a ring (DESIGN section 5.6, "Addressing"): requests name at most k
//! teammates and go on to the next ring when one refuses whole; bots wait out slow
//! teammates instead of stalling the crew.

use std::path::Path;

use gatecrew_crew::agent::{BoardNews, StepInput};
use gatecrew_crew::{EndReason, Overrides, Setup};
use gatecrew_protocol::trace::{Event, EventKind};
use gatecrew_protocol::{AgentId, BoardMessage, CloseOutcome, Count, Handover, MessageKind, Recipient, Tick, WindowId};

use crate::common::{default_config, item, root, write};

/// A crew around a one-block blueprint: the glass at the origin, which the split gives to
/// bot0, who holds none. The other bots are listed as `(x, z, glass)`.
///
/// The crew spans 40 blocks, more than the view radius (16): a holder hands over to a
/// requester it has never seen by walking to the requester's share of the blueprint.
fn glass_crew(dir: &Path, others: &[(i32, i32, u32)]) -> Setup {
    write(dir, "configs/blueprints/bp.toml", "name = \"pane\"\n[[block]]\nat = [0, 0, 0]\nblock = \"glass\"\n");
    let data_file = dir.join("configs/data/minecraft-1.20.4.json");
    std::fs::create_dir_all(data_file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("configs/data/minecraft-1.20.4.json"), &data_file).unwrap();
    let mut cfg = String::from(
        "blueprint = \"blueprints/bp.toml\"\ndata = \"data/minecraft-1.20.4.json\"\n[episode]\nname = \"ring\"\nseed = 1\ntick_limit = 6000\npolicy = \"gated\"\n[world]\nbounds = { min = [-30, 0, -30], max = [30, 4, 30] }\n[[agents]]\nstart = [1, 0, 1]\ninventory = { cobblestone = 1 }\n",
    );
    for (x, z, glass) in others {
        let inv = if *glass > 0 { format!("glass = {glass}") } else { "cobblestone = 1".into() };
        cfg.push_str(&format!("[[agents]]\nstart = [{x}, 0, {z}]\ninventory = {{ {inv} }}\n"));
    }
    let path = write(dir, "configs/crew.toml", &cfg);
    Setup::load(&path, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn run(setup: &Setup) -> (Vec<Event>, gatecrew_crew::Finished) {
    let mut events = Vec::new();
    let (f, _) = gatecrew_crew::run_to_end(setup, &mut |e: &Event| events.push(e.clone()));
    (events, f)
}

fn requests(events: &[Event]) -> Vec<Recipient> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Board { msg: MessageKind::RequestMaterial, to, .. } => Some(*to),
            _ => None,
        })
        .collect()
}

fn ring(to: &Recipient) -> Vec<u32> {
    match to {
        Recipient::Agents(r) => r.as_slice().iter().map(|a| a.0).collect(),
        other => panic!("expected a ring, got {other}"),
    }
}

#[test]
fn a_request_goes_to_the_four_nearest_and_then_to_the_next_ring() {
    let dir = tempfile::tempdir().unwrap();
    // Four bots near the site hold no glass; the only glass is with the farthest bot.
    let others = [(2, 2, 0), (-2, 2, 0), (2, -2, 0), (-2, -2, 0), (12, 12, 0), (-14, 12, 0), (20, -20, 3)];
    let (events, f) = run(&glass_crew(dir.path(), &others));
    assert_eq!(f.reason, EndReason::Complete, "{f:?}");
    let asked = requests(&events);
    assert_eq!(asked.len(), 2, "one escalation, two rings: {asked:?}");
    assert_eq!(ring(&asked[0]), vec![1, 2, 3, 4], "the nearest work regions first");
    assert_eq!(ring(&asked[1]), vec![5, 6, 7], "then everyone not yet asked");
    let refusals = |w: u32| {
        events
            .iter()
            .filter(
                |e| matches!(&e.kind, EventKind::Board { msg: MessageKind::CannotSupply, window, .. } if window.0 == w),
            )
            .count()
    };
    assert_eq!(refusals(0), 4, "the first ring refuses whole, and only it answers");
    assert_eq!(refusals(1), 2);
    let confirmed = events.iter().any(|e| {
        matches!(&e.kind, EventKind::Window { window, outcome: Some(CloseOutcome::Confirmed), .. } if window.0 == 1)
    });
    assert!(confirmed, "the holder in the second ring hands the glass over");
    let gates = events.iter().filter(|e| matches!(e.kind, EventKind::Gate { .. })).count();
    assert_eq!(gates, 1, "the second ring carries on the same escalation: no new gate decision");
}

#[test]
fn a_crew_that_fits_in_one_ring_still_asks_everyone() {
    let dir = tempfile::tempdir().unwrap();
    let others = [(2, 2, 0), (-2, 2, 0), (2, -2, 0), (20, -20, 3)];
    let (events, f) = run(&glass_crew(dir.path(), &others));
    assert_eq!(f.reason, EndReason::Complete, "{f:?}");
    assert_eq!(requests(&events), vec![Recipient::All], "k + 1 = 5 bots: one request to all");
}

#[test]
fn a_teammate_seen_offering_the_item_is_asked_first() {
    let dir = tempfile::tempdir().unwrap();
    let setup = glass_crew(dir.path(), &[(2, 2, 0), (-2, 2, 0), (2, -2, 0), (-2, -2, 0), (25, 25, 1)]);
    let mut agents = setup.agents();
    // What bot0 reads on the board at its first wake-up: bot5 offering glass to bot1.
    let seen = BoardMessage::OfferTransfer {
        window: WindowId(0),
        from: AgentId(5),
        to: AgentId(1),
        item: item("glass"),
        count: Count::new(1).unwrap(),
        handover: Handover::Give,
    };
    let input = StepInput {
        tick: Tick(0),
        outcome: None,
        receipts: Vec::new(),
        board: vec![BoardNews::Posted { window: WindowId(0), msg: seen }],
        view: setup.world.observe(AgentId(0)),
        verdicts: Vec::new(),
        final_call: false,
        crash: false,
        style: Vec::new(),
    };
    let out = agents[0].step(input);
    let asked: Vec<Recipient> = out
        .posts
        .iter()
        .filter_map(|(m, _)| match m {
            BoardMessage::RequestMaterial { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "bot0 holds no glass and no source is known: it asks at once");
    assert_eq!(ring(&asked[0]), vec![1, 2, 3, 5], "bot5, seen offering glass, before the fourth nearest");
}

#[test]
fn the_default_house_completes_with_crews_far_larger_than_a_ring() {
    for agents in [27, 40, 75, 200] {
        let setup =
            Setup::load(&default_config(), &Overrides { agents: Some(agents), ..Overrides::default() }).unwrap();
        let (f, _) = gatecrew_crew::run_to_end(&setup, &mut |_: &Event| {});
        assert_eq!(f.reason, EndReason::Complete, "{agents} bots: {f:?}");
    }
}

#[test]
fn extra_bots_start_on_distinct_free_cells_around_the_site() {
    let setup = Setup::load(&default_config(), &Overrides { agents: Some(400), ..Overrides::default() }).unwrap();
    let starts: Vec<_> = setup.roster().iter().map(|&a| setup.world.body(a).unwrap().pos).collect();
    let distinct: std::collections::BTreeSet<_> = starts.iter().collect();
    assert_eq!(distinct.len(), starts.len(), "the default world has room for 400 distinct starts");
    let too_many = Setup::load(&default_config(), &Overrides { agents: Some(10_001), ..Overrides::default() });
    let e = too_many.expect_err("10,001 bots is over the limit").to_string();
    assert!(e.contains("1 to 10000 bots"), "{e}");
}

#[test]
fn actors_and_stepper_agree_on_crews_larger_than_a_ring() {
    use crate::episode::{actor_trace, stepper_trace};
    for agents in [12, 75] {
        let setup =
            Setup::load(&default_config(), &Overrides { agents: Some(agents), ..Overrides::default() }).unwrap();
        let stepper = stepper_trace(&setup);
        assert_eq!(
            String::from_utf8(actor_trace(&setup)).unwrap(),
            String::from_utf8(stepper).unwrap(),
            "{agents} bots"
        );
    }
}

/// The village (every suite template on one site, `scripts/gen-village.py`) with a
/// thousand bots, the materials dealt out by share: nobody needs to ask. Before bots
/// went to look at a cell they knew no standing spot for, it stalled at 3,102 of 3,104:
/// the middle of a 9 x 9 floor (reached only from the floor) whose owner set it aside
/// from 28 blocks away at tick 0 and, never seeing the floor built, gave up on it.
#[test]
fn a_thousand_bots_build_the_village() {
    let cfg = root().join("configs/village.toml");
    let setup = Setup::load(&cfg, &Overrides { agents: Some(1000), ..Overrides::default() }).unwrap();
    let (f, _) = gatecrew_crew::run_to_end(&setup, &mut |_: &Event| {});
    assert_eq!(f.progress.correct, f.progress.total, "{f:?}");
    assert_eq!(f.reason, EndReason::Complete, "{f:?}");
}

/// Runs `ep` as the stepper does, the board and the agents' cores held here, and returns
/// its trace events. Each step need's inputs go to `on_step` first, with the episode as
/// it stands; `after` sees the episode after every answer.
fn drive(
    setup: &Setup,
    ep: &mut gatecrew_crew::Episode,
    mut on_step: impl FnMut(&gatecrew_crew::Episode, &mut [(AgentId, StepInput)]),
    mut after: impl FnMut(&gatecrew_crew::Episode),
) -> Vec<Event> {
    use gatecrew_crew::episode::stepper::step_all;
    use gatecrew_crew::{Answer, Need};
    let mut board = gatecrew_protocol::Board::new(setup.roster(), setup.data.items().clone(), setup.board);
    let mut cores = setup.agents();
    let mut events = Vec::new();
    loop {
        let answer = match ep.poll() {
            Need::Deadline => Answer::Deadline(board.next_deadline()),
            Need::Adjudicate(_) => unreachable!("the default config has no tier 3"),
            Need::Expire(now) => Answer::Expired(board.expire(now)),
            Need::Post { from, msg, now } => Answer::Posted(board.post(from, msg, now)),
            Need::Outside(_) | Need::Over(_) => Answer::Ready,
            Need::Step(mut inputs) => {
                on_step(ep, &mut inputs);
                Answer::Stepped(step_all(&mut cores, inputs))
            }
            Need::Flush => {
                events.extend(ep.drain());
                Answer::Ready
            }
            Need::Done(_) => return events,
        };
        ep.answer(answer);
        after(ep);
    }
}

/// A round with more awake agents than [`STEP_BATCH`] is handed to the driver in
/// batches (a whole round's observations would be most of a large crew's memory):
/// no `Step` need is larger, some round is split, every input's view is what the world
/// shows at that moment (nothing moves between the batches of a round), and the actors,
/// which step each batch concurrently, write the stepper's trace.
#[test]
fn a_large_round_is_stepped_in_batches() {
    use gatecrew_crew::{Episode, STEP_BATCH};
    let agents = 2 * STEP_BATCH + 44;
    let setup = Setup::load(&default_config(), &Overrides { agents: Some(agents), ..Overrides::default() }).unwrap();
    let mut largest = 0;
    // Batches per round, by the round's tick (the last step is a round of its own).
    let mut batches: std::collections::BTreeMap<(u64, bool), usize> = Default::default();
    let on_step = |ep: &Episode, inputs: &mut [(AgentId, StepInput)]| {
        largest = largest.max(inputs.len());
        if let Some((_, first)) = inputs.first() {
            *batches.entry((first.tick.0, first.final_call)).or_default() += 1;
        }
        for (id, input) in inputs.iter() {
            assert_eq!(input.view, ep.world().observe(*id), "{id}'s view at tick {}", input.tick.0);
        }
    };
    drive(&setup, &mut Episode::new(&setup), on_step, |_| {});
    assert!(largest <= STEP_BATCH, "a step need of {largest} inputs");
    assert!(batches.values().any(|&n| n > 1), "no round of {agents} bots was split");
    use crate::episode::{actor_trace, stepper_trace};
    assert!(String::from_utf8(actor_trace(&setup)).unwrap() == String::from_utf8(stepper_trace(&setup)).unwrap());
}

/// The views the agents take themselves (`Episode::defer_views`, what the actor runtime
/// does): every input comes without its view, the round's sight fills it with what the
/// episode would have shown, the trace is the stepper's, and a driver that lets go of
/// every sight before answering never makes the episode copy its world. One that holds
/// a sight until the next round costs a copy, and still the same trace.
#[test]
fn views_taken_by_the_agents_are_the_episodes_own() {
    use gatecrew_crew::{Episode, STEP_BATCH};
    use gatecrew_world::Observation;
    let agents = STEP_BATCH + 44;
    let setup = Setup::load(&default_config(), &Overrides { agents: Some(agents), ..Overrides::default() }).unwrap();
    let run = |hold: bool| {
        let mut ep = Episode::new(&setup);
        assert!(ep.defer_views(), "the scripted simulator defers");
        let mut held = Vec::new();
        let on_step = |ep: &Episode, inputs: &mut [(AgentId, StepInput)]| {
            let sight = ep.sight().expect("views are deferred");
            for (id, input) in inputs.iter_mut() {
                assert_eq!(input.view, Observation::default(), "{id} came with a view");
                sight.clone().fill(*id, input);
                assert_eq!(input.view, ep.world().observe(*id), "{id}'s view at tick {}", input.tick.0);
            }
            // Held until the next step: through the outputs' application.
            held.clear();
            held.extend(hold.then_some(sight));
        };
        let (mut copies, mut world) = (0, std::ptr::from_ref(ep.world()));
        let after = |ep: &Episode| {
            if !std::ptr::eq(world, ep.world()) {
                copies += 1;
                world = ep.world();
            }
        };
        let events = drive(&setup, &mut ep, on_step, after);
        (events, copies)
    };
    let mut stepper = Vec::new();
    gatecrew_crew::run(&setup, &mut |e: &Event| stepper.push(e.clone()));
    let (events, copies) = run(false);
    assert_eq!(copies, 0, "the world was copied with no sight held");
    assert!(events == stepper, "the deferred views changed the trace");
    let (events, copies) = run(true);
    assert!(copies > 0, "a sight held into the next round did not cost a copy: the test sees nothing");
    assert!(events == stepper, "a copied world changed the trace");
}
