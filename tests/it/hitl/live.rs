//! A live session: wall-clock pacing, lines from a websocket client on 127.0.0.1 and
//! from a line reader, replies to every client.

use std::sync::mpsc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use gatecrew_crew::{ByAdjudicator, Observer, Overrides, Setup};
use gatecrew_hitl::classify::ParserClassifier;
use gatecrew_hitl::driver::{Driver, Output};
use gatecrew_hitl::recipe::PlannerConfig;
use gatecrew_hitl::session::{Partner, PartnerConfig};
use gatecrew_hitl_app::live::{Live, run_live};
use gatecrew_protocol::trace::{Event, EventKind};
use gatecrew_protocol::{AgentId, Tick};
use tokio_tungstenite::tungstenite::Message;

use super::partner_config;

#[derive(Default)]
struct Collect {
    events: Vec<Event>,
    said: Vec<String>,
}

impl Observer for Collect {
    fn event(&mut self, e: &Event) {
        self.events.push(e.clone());
    }
}

impl Output for Collect {
    fn said(&mut self, _: Tick, _: AgentId, text: &str) {
        self.said.push(text.to_owned());
    }
}

fn driver() -> Driver {
    let setup = Setup::load(&partner_config(), &Overrides::default()).unwrap();
    let cfg = PartnerConfig {
        agent: AgentId(0),
        merge_ticks: 0,
        planner: PlannerConfig::default(),
        world: setup.name.clone(),
        run: "live-test".into(),
    };
    let partner = Partner::new(cfg, &setup, Box::new(ParserClassifier), None).unwrap();
    let det = gatecrew_gating::Deterministic { midpoint: setup.gate.midpoint() };
    Driver::new(&setup, partner, Box::new(ByAdjudicator(det)))
}

#[test]
fn a_websocket_client_talks_to_the_bot_and_quits() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let (addr_tx, addr_rx) = mpsc::channel::<String>();
        let mut shown = Vec::new();
        let mut show = |l: &str| {
            if let Some(rest) = l.strip_prefix("websocket: ") {
                let _ = addr_tx.send(rest.split_whitespace().next().unwrap_or_default().to_owned());
            }
            shown.push(l.to_owned());
        };
        let cfg = Live { tick_ms: 2, ws: Some("127.0.0.1:0".parse().unwrap()) };
        let session =
            run_live::<_, tokio::io::BufReader<tokio::io::Empty>>(driver(), cfg, None, Collect::default(), &mut show);
        let client = async {
            // With a deadline: a session that never listens fails the test, not hangs it.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            let url = loop {
                if let Ok(u) = addr_rx.try_recv() {
                    break u;
                }
                assert!(tokio::time::Instant::now() < deadline, "the session never said where it listens");
                tokio::time::sleep(Duration::from_millis(5)).await;
            };
            assert!(url.starts_with("ws://127.0.0.1:"), "{url}");
            let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str()).await.unwrap();
            ws.send(Message::Text("also get 2 oak logs".into())).await.unwrap();
            let mut heard = Vec::new();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            while tokio::time::Instant::now() < deadline {
                match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
                    Ok(Some(Ok(Message::Text(t)))) => {
                        let t = t.as_str().to_owned();
                        let done = t.contains("Added \"obtain 2 oak log\"");
                        heard.push(t);
                        if done {
                            break;
                        }
                    }
                    Ok(Some(Ok(_))) => {}
                    _ => break,
                }
            }
            ws.send(Message::Text("/quit".into())).await.unwrap();
            heard
        };
        let (end, heard) = tokio::join!(session, client);
        let end = end.unwrap();
        assert!(heard.iter().any(|h| h.starts_with("bot0> Added \"obtain 2 oak log\"")), "{heard:?}");
        assert!(
            end.out.events.iter().any(|e| matches!(&e.kind, EventKind::Human(h) if h.text == "also get 2 oak logs"))
        );
        assert!(end.out.events.iter().any(|e| matches!(&e.kind, EventKind::EpisodeEnd { .. })));
        assert!(shown.iter().any(|l| l.starts_with("websocket: ws://127.0.0.1:")));
    });
}

#[test]
fn end_of_terminal_input_ends_the_session() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let input = tokio::io::BufReader::new(&b"stop\ngo on\n"[..]);
        let mut show = |_: &str| {};
        let cfg = Live { tick_ms: 1, ws: None };
        let end = run_live(driver(), cfg, Some(input), Collect::default(), &mut show).await.unwrap();
        let kinds: Vec<String> = end
            .out
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Intent(i) => Some(i.intent.as_str().to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(kinds, ["stop", "switch"]);
        assert!(end.out.said.iter().any(|s| s.starts_with("Stopped")));
    });
}
