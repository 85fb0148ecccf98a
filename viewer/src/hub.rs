//! The live feed. The run's trace writer hands the hub the bytes it writes (through a
//! [`TraceTee`]) and the run's probe the inventories that changed, as item counts; on
//! the run's side that is a copy into shared buffers under an uncontended lock, and a
//! wake-up only every [`TAKE_AT`] bytes: the crew never waits for the viewer and
//! allocates nothing for it. One hub task takes the buffers every [`PUBLISH_EVERY`] (or
//! sooner, at [`TAKE_AT`] bytes) and keeps the bytes; only when the page is about to
//! get them (a publish while a browser watches, the end of the run, or [`STASH_MAX`]
//! bytes waiting) does it parse the lines, from the last episode's start on, put the
//! inventories back among the events by their line counts, and fold both into the
//! [`ViewState`] (inventories are named only when published). While a browser is
//! connected and the state changed, it serialises it once into a shared [`Published`]
//! (the whole state and the sections that changed since the last one) and puts it on a
//! `watch` channel. A watch channel holds only the latest value, so a browser that lags
//! simply skips to the newest state; every websocket sends the same bytes, never a copy
//! of its own.

mod feed;
mod lines;
mod publish;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gatecrew_protocol::trace::EventKind;
use gatecrew_world::{GameData, Inventory};
use tokio::sync::watch;

pub use feed::{Feed, TAKE_AT, TraceTee};
pub use publish::{Published, Publisher};

use crate::inventory::named;
use crate::scene::Scene;
use crate::state::ViewState;
use feed::{Batch, Shared};
use lines::{Item, Lines};

/// How often the page's state is refreshed at most.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// Trace bytes the hub keeps unparsed at most while nobody watches. It bounds the hub's
/// memory (the run's own trace file holds the same bytes). 8 MiB is the trace of about
/// 490 default episodes (17,007 bytes each: `gatecrew run --trace`): a long run is
/// parsed in steps of this size while nobody looks, and a browser that connects waits
/// for one such parse at most.
pub const STASH_MAX: usize = 8 << 20;

/// The browsers' end: the latest published state, and how many browsers watch it.
#[derive(Debug, Clone)]
pub struct Live {
    rx: watch::Receiver<Arc<Published>>,
    clients: Arc<AtomicUsize>,
}

impl Live {
    /// A browser starts watching: the hub serialises states while any does.
    pub fn subscribe(&self) -> Subscription {
        self.clients.fetch_add(1, Ordering::Relaxed);
        Subscription { rx: self.rx.clone(), clients: self.clients.clone() }
    }

    /// Browsers watching now.
    pub fn clients(&self) -> usize {
        self.clients.load(Ordering::Relaxed)
    }
}

/// One browser's view of the published states; counted until dropped.
#[derive(Debug)]
pub struct Subscription {
    rx: watch::Receiver<Arc<Published>>,
    clients: Arc<AtomicUsize>,
}

impl Subscription {
    /// The latest state, marked as seen.
    pub fn latest(&mut self) -> Arc<Published> {
        self.rx.borrow_and_update().clone()
    }

    /// Waits for a newer state; `false` once the hub is gone.
    pub async fn changed(&mut self) -> bool {
        self.rx.changed().await.is_ok()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.clients.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Starts the hub on the current tokio runtime. `pace`, in ticks per second, holds
/// the page back to a watchable speed from the moment the first browser watches (the
/// run itself is never slowed; events wait in the hub's queue); `None` shows events as
/// they come.
pub fn start(scene: Scene, pace: Option<f64>) -> (Feed, Live) {
    start_parsing(scene, pace, Parse::WhenShown)
}

/// When the hub parses the trace's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parse {
    /// Only when the page is about to get them, and only from the last episode's start
    /// (what `start` does).
    WhenShown,
    /// Every line, as it arrives: what the hub costs when every line must be shown, as
    /// in one long episode watched throughout (the viewer bench measures both).
    EveryLine,
}

/// [`start`], choosing when lines are parsed.
pub fn start_parsing(scene: Scene, pace: Option<f64>, parse: Parse) -> (Feed, Live) {
    let shared: Arc<Shared> = Arc::default();
    let mut publisher = Publisher::default();
    let first = publisher.publish(&ViewState::new(&scene, "live")).unwrap_or_default();
    let (out, rx) = watch::channel(Arc::new(first));
    let live = Live { rx, clients: Arc::default() };
    let hub = Hub { scene, pace, parse, publisher, clients: live.clients.clone() };
    tokio::spawn(hub.run(shared.clone(), out));
    (Feed { shared }, live)
}

struct Hub {
    scene: Scene,
    pace: Option<f64>,
    parse: Parse,
    publisher: Publisher,
    clients: Arc<AtomicUsize>,
}

impl Hub {
    async fn run(mut self, shared: Arc<Shared>, out: watch::Sender<Arc<Published>>) {
        let mut folding = Folding::new(&self.scene);
        let mut tick = tokio::time::interval(PUBLISH_EVERY);
        let mut last_publish: Option<tokio::time::Instant> = None;
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut queue: VecDeque<Item> = VecDeque::new();
        let mut lines = Lines::default();
        let mut spare = Batch::default();
        // A paced page's clock: when it started, and the tick it started from.
        let mut clock: Option<(tokio::time::Instant, u64)> = None;
        // Folded but not yet published (no browser was watching).
        let mut unpublished = false;
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = shared.full.notified() => {}
            }
            // Finished, or every feed gone: the run is over once the queue is drained.
            let open = !shared.finished.load(Ordering::Acquire) && Arc::strong_count(&shared) > 1;
            // The run appends to the buffer it finds; handing it an emptied one that
            // keeps its capacity spares the run's thread from growing a new one.
            std::mem::swap(&mut *shared.lock(), &mut spare);
            lines.stash(&mut spare);
            let watched = self.clients.load(Ordering::Relaxed) > 0;
            let due = last_publish.is_none_or(|t| t.elapsed() >= PUBLISH_EVERY);
            // Lines are parsed only when the page is about to get them (or the stash
            // would hold too much): a paced page shows them item by item, so it gets
            // every line at once.
            let every = self.pace.is_some() || self.parse == Parse::EveryLine;
            if every || !open || (watched && due) || lines.stashed() >= STASH_MAX {
                lines.parse(!every, &mut queue);
            }
            if !open {
                lines.close(&mut queue);
            }
            let allowed = match self.pace {
                // The clock starts when the first browser watches, so that whoever opens
                // the page sees the run from its start at the pace asked for, however long
                // the browser took to come up; until then the events wait in the queue.
                Some(tps) => {
                    if watched && clock.is_none() {
                        clock = Some((tokio::time::Instant::now(), queue.front().map_or(0, Item::tick)));
                    }
                    clock.map_or(0, |(at, t0)| t0.saturating_add((at.elapsed().as_secs_f64() * tps) as u64))
                }
                None => u64::MAX,
            };
            while queue.front().is_some_and(|i| i.tick() <= allowed) {
                if let Some(item) = queue.pop_front() {
                    folding.take(item, &self.scene);
                    unpublished = true;
                }
            }
            if self.pace.is_some() && allowed > folding.state.tick && !queue.is_empty() {
                folding.state.at(allowed);
                unpublished = true;
            }
            let over = !open && queue.is_empty();
            // Nobody watching: do not serialise, except the last state, which late
            // browsers get.
            if unpublished && ((due && watched) || over) {
                last_publish = Some(tokio::time::Instant::now());
                if let Some(p) = self.publisher.publish(folding.settle()) {
                    out.send_replace(Arc::new(p));
                }
                unpublished = false;
            }
            if over {
                // Keep the last state for late browsers: the sender lives on in this task
                // until every receiver is gone.
                out.closed().await;
                return;
            }
        }
    }
}

/// The hub's state: the view, and the world's inventories received since the last
/// publish, kept as the world holds them. Steps come far more often than publishes, so
/// item names are looked up only for what is published (each bot's latest).
struct Folding {
    state: ViewState,
    world: BTreeMap<u32, Inventory>,
    world_tick: u64,
    data: Option<Arc<GameData>>,
}

impl Folding {
    fn new(scene: &Scene) -> Self {
        Folding { state: ViewState::new(scene, "live"), world: BTreeMap::new(), world_tick: 0, data: None }
    }

    /// Folds one item in.
    fn take(&mut self, item: Item, scene: &Scene) {
        match item {
            Item::Event(ev) => {
                // A feed that goes on to another episode starts the view afresh.
                if matches!(ev.kind, EventKind::EpisodeStart { .. }) && self.state.events > 0 {
                    *self = Folding::new(scene);
                }
                self.state.observe(&ev);
            }
            Item::World(w) => {
                self.world.extend(w.bots);
                self.world_tick = w.tick;
                self.data = Some(w.data);
            }
        }
    }

    /// The state with the latest inventories named and the derived parts up to date.
    fn settle(&mut self) -> &ViewState {
        if let Some(data) = &self.data {
            for (id, inv) in std::mem::take(&mut self.world) {
                self.state.inventory(id, named(data, &inv), self.world_tick);
            }
        }
        self.state.refresh();
        &self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::WorldChange;
    use gatecrew_crew::{Overrides, Policy, Setup};
    use gatecrew_protocol::trace::{Event, TraceWriter};

    /// Two default episodes (the second under another policy and seed) as one feed's
    /// bytes, with inventories placed among them by line count.
    fn two_episodes() -> (Vec<u8>, Vec<(u64, WorldChange)>, Scene) {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let config = root.join("configs/crew.toml");
        let first = Setup::load(&config, &Overrides::default()).expect("default config");
        let other = Overrides { seed: Some(11), policy: Some(Policy::Flatcomm), ..Overrides::default() };
        let second = Setup::load(&config, &other).expect("default config");
        let mut w = TraceWriter::new(Vec::new());
        let mut lines = Vec::new();
        for s in [&first, &second] {
            let mut n = 0u64;
            gatecrew_crew::run(s, &mut |e: &Event| {
                w.write(e).expect("write");
                n += 1;
            });
            lines.push(n);
        }
        let data = first.data.clone();
        let inv = |tick: u64, id: u32, item: &str, n: u32| {
            let mut i = Inventory::default();
            i.insert_unchecked(data.item(item).expect("item"), n);
            WorldChange { tick, bots: vec![(id, i)], data: data.clone() }
        };
        let world = vec![
            (3, inv(1, 0, "dirt", 1)),
            (lines[0], inv(2, 1, "stone", 2)),
            (lines[0] + 1, inv(3, 2, "glass", 3)),
            (lines[0] + lines[1], inv(4, 0, "oak_log", 4)),
        ];
        (w.into_inner(), world, crate::crew::scene(&first))
    }

    /// The published state after feeding `bytes` in batches cut at `cuts`, parsing
    /// after each batch, skipping or not.
    fn fold(bytes: &[u8], world: &[(u64, WorldChange)], cuts: &[usize], skip: bool, scene: &Scene) -> (String, u64) {
        let mut lines = Lines::default();
        let mut queue = VecDeque::new();
        let mut folding = Folding::new(scene);
        let mut from = 0;
        for (i, &cut) in cuts.iter().chain([&bytes.len()]).enumerate() {
            let mut batch = Batch { bytes: bytes[from..cut].to_vec(), ..Batch::default() };
            // The inventories all come with the first batch, as the probe's flat marks.
            for (after, w) in world.iter().filter(|_| i == 0) {
                for (id, inv) in &w.bots {
                    let items: Vec<_> = inv.iter().collect();
                    batch.push_world(*after, w.tick, &w.data, [(*id, &items[..])]);
                }
            }
            from = cut;
            lines.stash(&mut batch);
            lines.parse(skip, &mut queue);
        }
        lines.close(&mut queue);
        for item in queue {
            folding.take(item, scene);
        }
        let state = serde_json::to_string(folding.settle()).expect("json");
        (state, lines.skipped())
    }

    #[test]
    fn episodes_over_before_the_page_saw_them_are_skipped_and_change_nothing() {
        let (bytes, world, scene) = two_episodes();
        // Where the second episode's first line begins.
        let text = std::str::from_utf8(&bytes).expect("utf-8");
        let second_start = text
            .match_indices('\n')
            .map(|(i, _)| i + 1)
            .find(|&i| text[i..].split('\n').next().is_some_and(|l| l.contains("\"kind\":\"episode_start\"")))
            .expect("second start");
        let second_start_end = second_start + text[second_start..].find('\n').expect("whole line");
        let (all, none_skipped) = fold(&bytes, &world, &[], false, &scene);
        assert_eq!(none_skipped, 0);
        assert!(all.contains("flatcomm"), "the state is the second episode's");
        // In one batch, and cut just before, inside and just after the second start line.
        for cuts in
            [vec![], vec![second_start - 1], vec![second_start + 10], vec![second_start_end + 1], vec![7, second_start]]
        {
            let (skipping, skipped) = fold(&bytes, &world, &cuts, true, &scene);
            assert_eq!(skipping, all, "cuts {cuts:?}");
            // Skipping needs the second start line whole in the same parse as the first
            // episode's lines.
            if cuts.first().is_none_or(|&c| c > second_start_end) {
                assert!(skipped > 0, "cuts {cuts:?}: the first episode was not parsed");
            }
        }
    }
    /// The tick of a published state.
    fn tick_of(p: &Published) -> u64 {
        let v: serde_json::Value = serde_json::from_str(p.full.as_str()).expect("json");
        v["state"]["tick"].as_u64().expect("a state with its tick")
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_paced_page_starts_its_clock_when_the_first_browser_watches() {
        let (bytes, _, scene) = two_episodes();
        // Fast enough to show both episodes within a second once watched.
        let (feed, live) = start(scene, Some(100_000.0));
        let mut out = feed.trace(std::io::sink());
        std::io::Write::write_all(&mut out, &bytes).expect("feed");
        feed.finish();
        tokio::time::sleep(PUBLISH_EVERY * 5).await;
        let mut early = live.subscribe();
        let first = early.latest();
        assert_eq!(tick_of(&first), 0, "nothing was shown while nobody watched");
        assert!(!first.full.as_str().contains("\"ended\":\""), "the end was not shown while nobody watched");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        let mut ticks = vec![];
        let mut ended = false;
        while !ended && tokio::time::Instant::now() < deadline && early.changed().await {
            let p = early.latest();
            ticks.push(tick_of(&p));
            ended = p.full.as_str().contains("\"ended\":\"");
        }
        assert!(ended, "the watched page reached the end: {ticks:?}");
        assert!(ticks.iter().any(|&t| t > 0), "the page was shown ticks past the first: {ticks:?}");
    }
}
