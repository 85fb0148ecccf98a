//! A person beside the partner on the local flying-squid server: a second
//! mineflayer client, the person, types in the game's chat where the wool is, "make a
//! white bed", a stop while the bot walks to the chest, and "go on". The walk is cut
//! in the round the stop enters, the bot makes the bed afterwards, the person reads
//! the partner's replies in the game's chat, and the trace holds the person's lines in
//! the order they were typed.

use std::time::Duration;

use gatecrew_crew::{Overrides, Setup};
use gatecrew_hitl::classify::ParserClassifier;
use gatecrew_hitl::recipe::PlannerConfig;
use gatecrew_hitl::session::{Partner, PartnerConfig};
use gatecrew_mcworld::Bridge;
use gatecrew_mcworld::partner::Talk;
use gatecrew_mcworld::wire::{Command, Event as BridgeEvent};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::trace::{ActionName, Event, EventKind};
use tokio::sync::mpsc::UnboundedReceiver;

use super::{bridge_dir, gone, local_server, on_harness, runtime, serial};
use crate::common::root;

const PERSON: &str = "alex";
const LINES: [&str; 4] = ["the white wool is in the chest at 6 0 -10", "make a white bed", "stop", "go on"];

/// Waits for a line of the partner's (`<bot0> ...`) starting with `start`; every chat
/// line seen goes to `seen`.
async fn hear(rx: &mut UnboundedReceiver<BridgeEvent>, start: &str, seen: &mut Vec<String>) {
    let wait = async {
        while let Some(ev) = rx.recv().await {
            if let BridgeEvent::Chat { text, .. } = ev {
                seen.push(text.clone());
                if text.strip_prefix("<bot0> ").is_some_and(|t| t.starts_with(start)) {
                    return true;
                }
            }
        }
        false
    };
    // Generous: a loaded two-core machine; what is measured is the trace's ticks.
    let heard = tokio::time::timeout(Duration::from_secs(90), wait).await.unwrap_or(false);
    assert!(heard, "the person never read a line starting {start:?} in the game's chat; they read {seen:#?}");
}

/// The person: joins, waits for the partner's first line, types the lines, each after
/// the reply to the one before, and leaves once the bed is done. Returns what they read.
async fn person(port: u16) -> Vec<String> {
    let (bridge, mut rx) = Bridge::start(&bridge_dir()).await.unwrap();
    let spawn = Command::SpawnBot {
        host: "127.0.0.1".into(),
        port,
        version: "1.20.4".into(),
        standins: false,
        timeout_ms: 30_000,
    };
    bridge.request(PERSON, &spawn, Duration::from_secs(40)).await.unwrap();
    let mut seen = Vec::new();
    let say = |text: &str| Command::Chat { text: text.to_owned() };
    hear(&mut rx, "I will place cobblestone", &mut seen).await;
    // Each line after the partner's answer to the one before; the bed once the crew
    // share is done, so that the stop comes while the bot walks to the chest.
    let replies = ["Done: build my share", "New task: obtain 1 white bed", "Stopped:", "Going on."];
    for (line, reply) in LINES.iter().zip(replies) {
        bridge.request(PERSON, &say(line), Duration::from_secs(10)).await.unwrap();
        hear(&mut rx, reply, &mut seen).await;
    }
    hear(&mut rx, "Done: obtain 1 white bed", &mut seen).await;
    bridge.stop(Duration::from_secs(3)).await;
    assert!(gone(bridge.pid()));
    seen
}

#[test]
fn a_person_in_the_game_stops_the_partner_mid_walk_and_it_goes_on_to_make_the_bed() {
    let _one = serial();
    runtime().block_on(async {
        let server = local_server().await;
        let mut setup = Setup::load(&root().join("configs/hitl/minecraft.toml"), &Overrides::default()).unwrap();
        // A minute of game time: a session that goes wrong ends there, not in five.
        setup.tick_limit = 1200;
        let cfg = PartnerConfig {
            agent: AgentId(0),
            merge_ticks: 5,
            planner: PlannerConfig::default(),
            world: setup.name.clone(),
            run: "minecraft".into(),
        };
        let mut talk = Talk::new(Partner::new(cfg, &setup, Box::new(ParserClassifier), None).unwrap());
        let reader = tokio::spawn(person(server.port()));
        let mut events: Vec<Event> = Vec::new();
        let mut sink = |e: &Event| events.push(e.clone());
        let run = gatecrew_mcworld::run_talking(&setup, &on_harness(&server), &mut sink, &mut talk).await.unwrap();
        let actions: Vec<String> = events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Action { .. } | EventKind::Human(_)))
            .map(|e| serde_json::to_string(e).unwrap_or_default())
            .collect();
        let read = reader.await.unwrap_or_else(|e| panic!("{e}\nthe trace's actions and lines: {actions:#?}"));
        assert!(gone(run.bridge_pid), "the bridge (pid {}) is still there", run.bridge_pid);
        let pid = server.pid();
        server.stop(Duration::from_secs(3)).await;
        assert!(gone(pid), "the server (pid {pid}) is still there");
        assert!(run.failed.is_empty(), "{:?}", run.failed);
        assert_eq!(talk.people().iter().collect::<Vec<_>>(), [PERSON]);

        // The person's lines, each as typed, in the order typed.
        let human: Vec<(u64, &str)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Human(h) => Some((e.t, h.text.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(human.iter().map(|(_, t)| *t).collect::<Vec<_>>(), LINES, "{human:?}");
        let stop = human[2].0;
        // The walk to the chest was under way and is cut in the round the stop entered.
        let walks: Vec<(u64, bool, Option<String>)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Action { agent: AgentId(0), action: ActionName::MoveTo, ok, reason, .. } => {
                    Some((e.t, *ok, reason.clone()))
                }
                _ => None,
            })
            .collect();
        let cut: Vec<_> = walks.iter().filter(|(_, _, r)| r.as_deref() == Some("interrupted")).collect();
        assert_eq!(cut.len(), 1, "one walk cut: {walks:?}");
        assert!(cut[0].0 >= stop && cut[0].0 <= stop + 1, "the stop entered at {stop}, the walk was cut at {}", cut[0].0);
        // Nothing is done while stopped; after "go on" the bed is made.
        let go_on = human[3].0;
        let acted: Vec<u64> = events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Action { agent: AgentId(0), ok: true, .. }))
            .map(|e| e.t)
            .collect();
        assert!(acted.iter().all(|t| *t <= stop || *t > go_on), "acted while stopped: {acted:?}");
        let bed = events.iter().find(|e| {
            matches!(&e.kind, EventKind::Action { agent: AgentId(0), action: ActionName::Craft, ok: true, item: Some(i), .. } if i == "white_bed")
        });
        assert!(bed.is_some_and(|e| e.t > go_on), "no bed crafted after go on");
        // The partner's replies reached the game's chat.
        assert!(read.iter().any(|l| l.starts_with("<bot0> Stopped: I was going to")), "{read:#?}");
    });
}
