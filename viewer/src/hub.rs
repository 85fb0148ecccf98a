//! The live feed: the run hands every trace event to a [`Feed`] (a non-blocking send on
//! an unbounded channel: the crew never waits for the viewer), and one hub task folds
//! them into the [`ViewState`] and publishes a JSON snapshot at most every
//! [`PUBLISH_EVERY`] on a `watch` channel. A watch channel holds only the latest
//! value, so a browser that lags simply skips to the newest state.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use gatecrew_protocol::trace::Event;
use tokio::sync::{mpsc, watch};

use crate::scene::Scene;
use crate::state::ViewState;

/// How often the page's state is refreshed at most.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// The run's end of the live feed. Cheap to clone; sending never blocks.
#[derive(Debug, Clone)]
pub struct Feed {
    tx: mpsc::UnboundedSender<Event>,
}

impl Feed {
    /// Hands one trace event to the viewer.
    pub fn event(&self, ev: &Event) {
        // The hub is gone only when the server stopped: nobody is watching.
        let _ = self.tx.send(ev.clone());
    }
}

/// The snapshots' end: what the server's websockets read.
pub type Snapshots = watch::Receiver<Arc<str>>;

/// Starts the hub on the current tokio runtime. `pace`, in ticks per second, holds
/// the page back to a watchable speed (the run itself is never slowed; events wait in
/// the hub's queue); `None` shows events as they come.
pub fn start(scene: Scene, pace: Option<f64>) -> (Feed, Snapshots) {
    let (tx, rx) = mpsc::unbounded_channel();
    let state = ViewState::new(&scene, "live");
    let (out, snapshots) = watch::channel(snapshot(&state));
    tokio::spawn(run(rx, state, pace, out));
    (Feed { tx }, snapshots)
}

/// The JSON message the page receives.
pub fn snapshot(state: &ViewState) -> Arc<str> {
    let v = serde_json::json!({ "type": "state", "state": state });
    Arc::from(v.to_string())
}

async fn run(
    mut rx: mpsc::UnboundedReceiver<Event>,
    mut state: ViewState,
    pace: Option<f64>,
    out: watch::Sender<Arc<str>>,
) {
    let mut tick = tokio::time::interval(PUBLISH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut queue: VecDeque<Event> = VecDeque::new();
    let mut open = true;
    let mut dirty = false;
    let started = tokio::time::Instant::now();
    let mut first_tick: Option<u64> = None;
    loop {
        tokio::select! {
            ev = rx.recv(), if open => match ev {
                Some(ev) => queue.push_back(ev),
                None => open = false,
            },
            _ = tick.tick() => {
                let allowed = match pace {
                    Some(tps) => {
                        let t0 = *first_tick.get_or_insert_with(|| queue.front().map_or(0, |e| e.t));
                        t0.saturating_add((started.elapsed().as_secs_f64() * tps) as u64)
                    }
                    None => u64::MAX,
                };
                while let Some(ev) = queue.front().filter(|e| e.t <= allowed) {
                    state.observe(ev);
                    queue.pop_front();
                    dirty = true;
                }
                if pace.is_some() && allowed != u64::MAX && allowed > state.tick && !queue.is_empty() {
                    state.at(allowed);
                    dirty = true;
                }
                if dirty {
                    out.send_replace(snapshot(&state));
                    dirty = false;
                }
                if !open && queue.is_empty() {
                    // Keep the last state for late browsers: the sender lives on in
                    // this task until every receiver is gone.
                    out.closed().await;
                    return;
                }
            }
        }
    }
}
