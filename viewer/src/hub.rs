//! The live feed: the run hands every trace event to a [`Feed`], which only pushes it
//! onto a shared queue (an uncontended lock, no task wake-up: the crew never waits for
//! the viewer). One hub task takes the queue every [`PUBLISH_EVERY`], folds the events
//! into the [`ViewState`] and publishes a JSON snapshot on a `watch` channel. A watch
//! channel holds only the latest value, so a browser that lags simply skips to the
//! newest state.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatecrew_protocol::trace::{Event, EventKind};
use tokio::sync::watch;

use crate::scene::Scene;
use crate::state::ViewState;

/// How often the page's state is refreshed at most.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(100);

type Queue = Arc<Mutex<Vec<Event>>>;

/// The run's end of the live feed. Sending never blocks on the viewer; when every
/// clone is dropped the hub publishes what is left and keeps the last state.
#[derive(Debug, Clone)]
pub struct Feed {
    queue: Queue,
}

impl Feed {
    /// Hands one trace event to the viewer.
    pub fn event(&self, ev: &Event) {
        self.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(ev.clone());
    }
}

/// The snapshots' end: what the server's websockets read.
pub type Snapshots = watch::Receiver<Arc<str>>;

/// Starts the hub on the current tokio runtime. `pace`, in ticks per second, holds
/// the page back to a watchable speed (the run itself is never slowed; events wait in
/// the hub's queue); `None` shows events as they come.
pub fn start(scene: Scene, pace: Option<f64>) -> (Feed, Snapshots) {
    let queue: Queue = Arc::default();
    let state = ViewState::new(&scene, "live");
    let (out, snapshots) = watch::channel(snapshot(&state));
    tokio::spawn(run(queue.clone(), scene, pace, out));
    (Feed { queue }, snapshots)
}

/// The JSON message the page receives (of a refreshed state).
pub fn snapshot(state: &ViewState) -> Arc<str> {
    let v = serde_json::json!({ "type": "state", "state": state });
    Arc::from(v.to_string())
}

async fn run(shared: Queue, scene: Scene, pace: Option<f64>, out: watch::Sender<Arc<str>>) {
    let mut state = ViewState::new(&scene, "live");
    let mut tick = tokio::time::interval(PUBLISH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut queue: VecDeque<Event> = VecDeque::new();
    let started = tokio::time::Instant::now();
    let mut first_tick: Option<u64> = None;
    loop {
        tick.tick().await;
        // Every feed gone: the run is over once the queue is drained.
        let open = Arc::strong_count(&shared) > 1;
        queue.extend(std::mem::take(&mut *shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner)));
        let allowed = match pace {
            Some(tps) => {
                let t0 = *first_tick.get_or_insert_with(|| queue.front().map_or(0, |e| e.t));
                t0.saturating_add((started.elapsed().as_secs_f64() * tps) as u64)
            }
            None => u64::MAX,
        };
        let mut dirty = false;
        while let Some(ev) = queue.front().filter(|e| e.t <= allowed) {
            // A feed that goes on to another episode starts the view afresh.
            if matches!(ev.kind, EventKind::EpisodeStart { .. }) && state.events > 0 {
                state = ViewState::new(&scene, "live");
            }
            state.observe(ev);
            queue.pop_front();
            dirty = true;
        }
        if pace.is_some() && allowed > state.tick && !queue.is_empty() {
            state.at(allowed);
            dirty = true;
        }
        if dirty {
            state.refresh();
            out.send_replace(snapshot(&state));
        }
        if !open && queue.is_empty() {
            // Keep the last state for late browsers: the sender lives on in this task
            // until every receiver is gone.
            out.closed().await;
            return;
        }
    }
}
