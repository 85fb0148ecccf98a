//! Harnesses for what reaches gatecrew from outside at run time: crew
//! configs, scripted sessions, a person's chat line through intent reading into the
//! recipe planner, the line splitter under the websocket and the bridge (and the
//! websocket's origin check), and the bridge's protocol lines.
//!
//! Each returns on inputs handled as they should be (an error included) and panics on
//! a bug: a panic inside, an unbounded result, or a broken invariant checked here.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use gatecrew_crew::{Overrides, Setup};
use gatecrew_hitl::goal::{Goal, read_goal};
use gatecrew_hitl::plan::{Origin, Plan};
use gatecrew_hitl::recipe::{PlannerConfig, RecipePlanner};
use gatecrew_hitl::script::Script;
use gatecrew_hitl::words::Vocabulary;
use gatecrew_protocol::limits::{Line, LineBuf, read_line_capped};
use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::cost::Knowledge;
use gatecrew_world::{BlockId, GameData, TickCosts};

use crate::data::game_data;

/// The house blueprint, written once to a temporary file: a crew config names a
/// blueprint file, and the harness gives it this one (`--blueprint`), so that the
/// config's own text is what is fuzzed.
static BLUEPRINT: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("gatecrew-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let p = dir.join("house.toml");
    std::fs::write(&p, include_str!("../../configs/blueprints/house.toml")).expect("the blueprint is written");
    p
});

/// The `crew_config` target: a config loads into a setup with at least one bot, or
/// its error names the file.
pub fn crew_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let path = Path::new("fuzz/crew.toml");
    let ov = Overrides { blueprint: Some(BLUEPRINT.clone()), ..Overrides::default() };
    match Setup::parse_with_data(text, path, &ov, game_data().clone()) {
        Ok(setup) => {
            assert!(setup.world.agent_count() >= 1, "a setup without bots");
            assert!(setup.faults.check().is_ok(), "faults out of range were accepted");
        }
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz/crew.toml"), "the error does not name the file: {shown}");
        }
    }
}

/// The `script` target: a scripted session's ticks never go backwards, every line has
/// text within the chat limit; an error names a line of the file.
pub fn script(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let max = 256;
    match Script::parse_with_limit(text, Path::new("s.txt"), max) {
        Ok(s) => {
            assert!(s.lines.windows(2).all(|w| w[0].0 <= w[1].0), "ticks go backwards");
            assert!(s.lines.iter().all(|(_, l)| !l.is_empty() && l.len() <= max), "an empty or overlong line");
        }
        Err(e) => {
            assert!((1..=text.lines().count()).contains(&e.line()), "line {} of {}", e.line(), text.lines().count())
        }
    }
}

/// A bot that knows of everything, in large numbers, far away.
struct Everything(&'static GameData);

impl Knowledge for Everything {
    fn data(&self) -> &GameData {
        self.0
    }
    fn here(&self) -> Pos {
        Pos::new(0, 0, 0)
    }
    fn held(&self, _: ItemId) -> u32 {
        0
    }
    fn stored(&self, _: ItemId) -> Vec<(Pos, u32)> {
        vec![(Pos::new(i32::MAX, 0, 0), u32::MAX)]
    }
    fn nearest_resource(&self, _: BlockId) -> Option<Pos> {
        Some(Pos::new(0, 0, i32::MIN))
    }
    fn table(&self) -> Option<Pos> {
        None
    }
    fn furnace(&self) -> Option<Pos> {
        None
    }
    fn table_item(&self) -> Option<ItemId> {
        self.0.item("crafting_table").ok()
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.0.item("furnace").ok()
    }
    fn reach(&self) -> f64 {
        4.5
    }
    fn ticks(&self) -> TickCosts {
        TickCosts::default()
    }
}

static VOCAB: LazyLock<Vocabulary> = LazyLock::new(|| Vocabulary::new(game_data()).expect("the vocabulary builds"));

/// The `chat_plan` target: a chat line read as a goal and planned: the planner ends,
/// within its node bound, with the goal's count in the top node's label.
pub fn chat_plan(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some(goal) = read_goal(text, &VOCAB) else { return };
    let d: &'static GameData = game_data();
    let k = Everything(d);
    let mut plan = Plan::new("my tasks");
    let mut p = RecipePlanner::new(d, &VOCAB, &k, PlannerConfig::default(), Origin::Planner);
    let top = p.plan_goal(&mut plan, &goal);
    if let Goal::Obtain { count, .. } = goal {
        assert!(plan.label(top).starts_with(&format!("obtain {count} ")), "{}", plan.label(top));
    }
    // Ten levels of at most three alternatives of a few ingredients: far below this.
    assert!(p.added() < 100_000, "{} nodes for {text:?}", p.added());
}

/// The `line_split` target: what the websocket and bridge readers do with a stream.
/// Bytes split into lines by [`LineBuf`] fed in arbitrary chunks give the same lines as
/// the blocking reader, none longer than the limit; and the websocket's origin check
/// only lets loopback pages in.
pub fn line_split(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let max = usize::from(first % 64) + 1;
    let mut reference = Vec::new();
    let mut r = rest;
    while let Some(l) = read_line_capped(&mut r, max).expect("reading a slice") {
        reference.push(l);
    }
    let chunk = usize::from(first / 64) + 1;
    let (mut got, mut lb, mut at) = (Vec::new(), LineBuf::new(max), 0);
    while at < rest.len() {
        let end = (at + chunk).min(rest.len());
        let mut piece = &rest[at..end];
        while !piece.is_empty() {
            let (used, line) = lb.feed(piece);
            piece = &piece[used..];
            got.extend(line);
        }
        at = end;
    }
    got.extend(lb.finish());
    assert_eq!(got, reference, "chunked and whole reading differ");
    for l in &got {
        if let Line::Text(b) | Line::Unterminated(b) = l {
            assert!(b.len() <= max, "a line of {} bytes over the limit of {max}", b.len());
        }
    }
    if let Ok(origin) = std::str::from_utf8(rest) {
        if gatecrew_hitl_app::ws::origin_allowed(Some(origin)) {
            // Judged independently by the URL parser: a bare http(s) origin on a
            // loopback host.
            let url = url::Url::parse(origin).unwrap_or_else(|e| panic!("{origin:?} was let in: {e}"));
            let loopback = match url.host() {
                Some(url::Host::Domain(d)) => d == "localhost",
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                None => false,
            };
            let bare = url.username().is_empty() && url.query().is_none() && url.path() == "/";
            assert!(loopback && bare && matches!(url.scheme(), "http" | "https"), "{origin:?} was let in");
        }
    }
}

/// The `bridge_line` target: a line from the bridge is a reply, an event or an error
/// naming what is wrong; server chat in it is cut to the chat limit.
pub fn bridge_line(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match gatecrew_mcworld::wire::parse_line(text) {
        Ok(gatecrew_mcworld::wire::Incoming::Event(gatecrew_mcworld::wire::Event::Chat { text, .. })) => {
            let max = gatecrew_protocol::limits::max_chat_bytes();
            assert!(text.len() <= max + " [cut]".len(), "server chat of {} bytes kept", text.len());
        }
        Ok(_) => {}
        Err(e) => assert!(!e.is_empty(), "an error without a word"),
    }
}
