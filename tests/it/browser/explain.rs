//! What the page explains, in Chromium: a replay's scrubber markers, keys and URL per
//! tick, and flatcomm's chat lines and windows.

use serde_json::{Value, json};

use super::{Browser, READ, browser, check_page, serve, wait_tick};
use gatecrew_protocol::trace::{Event, EventKind, TraceReader};
use gatecrew_viewer::replay::Recording;

/// Presses one key (a WebDriver key code), with Shift when asked, once the focus is
/// off the page's controls.
async fn key(b: &Browser, code: &str, shift: bool) {
    b.js("if (document.activeElement) document.activeElement.blur(); return 0;").await;
    let mut keys = Vec::new();
    if shift {
        keys.push(json!({"type": "keyDown", "value": "\u{E008}"}));
    }
    keys.push(json!({"type": "keyDown", "value": code}));
    keys.push(json!({"type": "keyUp", "value": code}));
    if shift {
        keys.push(json!({"type": "keyUp", "value": "\u{E008}"}));
    }
    let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]});
    b.call(reqwest::Method::POST, "/actions", actions).await;
}

const RIGHT: &str = "\u{E014}";
const LEFT: &str = "\u{E012}";
const END: &str = "\u{E010}";

/// The markers a replay draws: one per tick and kind, in trace order.
fn drawn(rec: &Recording) -> Vec<(u64, &'static str)> {
    let mut seen = std::collections::HashSet::new();
    rec.marks().into_iter().map(|m| (m.t, m.kind)).filter(|k| seen.insert(*k)).collect()
}

/// On a replay page: the scrubber's markers, a click on one, the keys, and the URL.
pub(super) async fn replay_controls(b: &Browser, rec: &Recording, url: &str) {
    let page = b.js(READ).await;
    let marks = drawn(rec);
    assert!(marks.len() > 3, "{marks:?}");
    assert_eq!(page["marks"], json!(marks.iter().map(|m| m.0).collect::<Vec<_>>()), "{page}");
    // A click on the first confirmed transfer's marker shows its tick, and the URL says so.
    let (t, _) = *marks.iter().find(|m| m.1 == "confirmed").expect("a confirmed transfer");
    let click =
        format!("document.querySelector('#marks .mark[data-t=\"{t}\"][data-kind=\"confirmed\"]').click(); return 0;");
    b.js(&click).await;
    let tick = wait_tick(b, |x| x == t).await;
    assert_eq!(b.js(READ).await["hash"], format!("#t={tick}"));
    // Keys: a step either way, the next marker, the end.
    key(b, RIGHT, false).await;
    let tick = wait_tick(b, |x| x == rec.next_tick(t)).await;
    key(b, LEFT, false).await;
    let tick = wait_tick(b, |x| x == rec.prev_tick(tick)).await;
    assert_eq!(tick, t);
    key(b, RIGHT, true).await;
    let next = marks.iter().map(|m| m.0).find(|&m| m > t).expect("a later marker");
    wait_tick(b, |x| x == next).await;
    key(b, END, false).await;
    wait_tick(b, |x| x == rec.span().1).await;
    // A URL with a tick opens the replay at that tick.
    let (lo, hi) = rec.span();
    let third = rec.next_tick(lo + (hi - lo) / 3);
    b.goto("about:blank").await;
    b.goto(&format!("{url}#t={third}")).await;
    let tick = wait_tick(b, |x| x == third).await;
    check_page(b, rec, tick).await;
}

fn read_trace(path: &std::path::Path) -> Vec<Event> {
    TraceReader::new(std::io::BufReader::new(std::fs::File::open(path).unwrap())).map(|e| e.unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flatcomm_replay_names_each_windows_bot_and_item_and_lists_its_chat() {
    let (chromium, driver) = browser();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("flatcomm.jsonl");
    let t = trace.to_str().unwrap();
    let setup = gatecrew_crew::Setup::load(
        &crate::common::default_config(),
        &gatecrew_crew::Overrides { policy: Some(gatecrew_protocol::trace::Policy::Flatcomm), ..Default::default() },
    )
    .unwrap();
    let mut w = gatecrew_protocol::trace::TraceWriter::new(Vec::new());
    gatecrew_crew::run(&setup, &mut |e: &Event| w.write(e).unwrap());
    std::fs::write(&trace, w.into_inner()).unwrap();
    let config = crate::common::default_config();
    let args = ["replay", t, "--serve", "127.0.0.1:0", "--config", config.to_str().unwrap(), "--linger", "20"];
    let (addr, replay) = serve(args.map(String::from).to_vec());
    let events = read_trace(&trace);
    let chats: Vec<u32> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Chat { tokens, .. } => Some(tokens),
            _ => None,
        })
        .collect();
    assert!(!chats.is_empty(), "flatcomm chats");
    let b = Browser::start(&chromium, &driver).await;
    let end = events.last().unwrap().t;
    b.goto(&format!("http://{addr}/#t={end}")).await;
    wait_tick(&b, |x| x == end).await;
    let page: Value = b.js(READ).await;
    assert_eq!(page["lines"].as_u64(), Some(chats.len() as u64), "every chat line: {page}");
    let titles = page["titles"].as_array().unwrap();
    assert!(!titles.is_empty(), "{page}");
    for t in titles {
        assert!(!t.as_str().unwrap().contains('?'), "a window names its bot and item: {t}");
    }
    let tokens: u64 = chats.iter().map(|&t| u64::from(t)).sum();
    assert_eq!(page["metrics"]["msg"], format!("{} ({tokens} tokens)", chats.len()), "{page}");
    b.screenshot("viewer-flatcomm.png").await;
    drop(b);
    let _ = replay.join();
}

/// What a crew of 40 looks like on the page: the cards, their colours, the map's labels.
const READ_CREW: &str = r#"
const q = (s) => [...document.querySelectorAll(s)];
const rect = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
return {
  tick: Number(document.getElementById('tick').textContent),
  cards: q('#bots .bot').length,
  compact: q('#bots .bot.compact').length,
  grouped: q('#bots h4.group').map((e) => Number(/\((\d+)\)$/.exec(e.textContent)[1])).reduce((a, b) => a + b, 0),
  height: document.getElementById('bots').scrollHeight,
  fills: q('#map g.bot circle').map((e) => getComputedStyle(e).fill),
  labels: q('#map g.bot text').map(rect),
  strip: q('#strip .layer').length,
  layers: q('#layers tbody tr').length,
};
"#;

/// `rgb(r, g, b)` as numbers.
fn rgb(s: &str) -> [f64; 3] {
    let v: Vec<f64> =
        s.trim_start_matches("rgb(").trim_end_matches(')').split(',').map(|x| x.trim().parse().unwrap()).collect();
    [v[0], v[1], v[2]]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_bots_get_grouped_compact_cards_distinct_colours_and_labels_that_do_not_overlap() {
    let (chromium, driver) = browser();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("forty.jsonl");
    let args = ["run", "--quiet", "--json", "--agents", "40", "--trace", trace.to_str().unwrap()];
    // Paced so that the page shows the crew at work for about ten seconds: the default
    // episode with 40 bots lasts 1,268 ticks (`gatecrew run --agents 40`).
    let serving = ["--serve", "127.0.0.1:0", "--pace", "120", "--linger", "30"];
    let (addr, run) = serve(args.iter().chain(&serving).map(|s| s.to_string()).collect());
    let b = Browser::start(&chromium, &driver).await;
    b.goto(&format!("http://{addr}/")).await;
    let started = std::time::Instant::now();
    let page = loop {
        let v = b.js(READ_CREW).await;
        if v["cards"] == 40 && v["fills"].as_array().map(Vec::len) == Some(40) {
            break v;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(90), "the page never showed 40 bots: {v}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    b.screenshot("viewer-40.png").await;
    assert_eq!(page["compact"], 40, "one line per bot: {page}");
    assert_eq!(page["grouped"], 40, "every bot in one group: {page}");
    // A full card each ran to 7,300 px at 40 bots.
    assert!(page["height"].as_f64().unwrap() < 1_600.0, "{page}");
    let fills: Vec<[f64; 3]> = page["fills"].as_array().unwrap().iter().map(|f| rgb(f.as_str().unwrap())).collect();
    for (i, a) in fills.iter().enumerate() {
        for (j, c) in fills.iter().enumerate().skip(i + 1) {
            let d = a.iter().zip(c).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
            assert!(d >= 30.0, "bots {i} and {j} look alike: {a:?} {c:?}");
        }
    }
    let labels: Vec<Vec<f64>> = page["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect())
        .collect();
    assert_eq!(labels.len(), 40);
    for (i, a) in labels.iter().enumerate() {
        for (j, c) in labels.iter().enumerate().skip(i + 1) {
            let apart = a[2] <= c[0] || c[2] <= a[0] || a[3] <= c[1] || c[3] <= a[1];
            assert!(apart, "the labels of bots {i} and {j} overlap: {a:?} {c:?}");
        }
    }
    assert_eq!(page["strip"], page["layers"], "the strip shows every layer: {page}");
    drop(b);
    let _ = run.join();
}
