//! Serialising the live state once per publish, for every browser at once. The state
//! is cut into sections (bot cards, board, blueprint progress, hand-overs, the event
//! log, and the small rest); each publish carries the whole state and, for a browser
//! that got the previous publish, only the sections that changed since, and of the
//! log only the entries added since (`log_add`: the page appends them). Both are
//! shared bytes: fifty websockets send the same buffer, and an unchanged state is not
//! published.

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;

use crate::inventory::InventorySource;
use crate::state::{Log, LogEntry, Panel, ViewState};

/// One published state, as every websocket sends it.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// Publish number, from 0.
    pub seq: u64,
    /// `{"type":"state","state":{...}}` with every section.
    pub full: Utf8Bytes,
    /// The same with only the sections changed since publish `seq - 1` (the page merges
    /// sections into the state it holds); `None` for the first.
    pub delta: Option<Utf8Bytes>,
}

impl Published {
    /// What to send a browser that last got publish `sent` (`None`: nothing yet).
    pub fn for_browser(&self, sent: Option<u64>) -> Option<Utf8Bytes> {
        match sent {
            Some(s) if s == self.seq => None,
            Some(s) if s + 1 == self.seq => Some(self.delta.clone().unwrap_or_else(|| self.full.clone())),
            _ => Some(self.full.clone()),
        }
    }
}

/// Everything but the sections: small, sent every time.
#[derive(Serialize)]
struct Meta<'a> {
    mode: &'a str,
    episode: &'a str,
    policy: &'a str,
    seed: u64,
    blueprint: &'a str,
    tick: u64,
    ended: &'a Option<String>,
    events: u64,
    from_setup: bool,
    inventory_from: InventorySource,
    inventory_tick: Option<u64>,
    notes: &'a [String],
    metrics: &'a Panel,
}

/// The log's new entries, for a browser that has the rest.
#[derive(Serialize)]
struct LogAdd<'a> {
    total: u64,
    entries: Vec<&'a LogEntry>,
}

const SECTIONS: [&str; 4] = ["bots", "board", "blocks", "handovers"];

/// Turns states into [`Published`]s, remembering the last one's sections.
#[derive(Debug, Default)]
pub struct Publisher {
    seq: Option<u64>,
    meta: String,
    sections: [String; 4],
    /// The log last published: its epoch and entry count.
    log: (u64, u64),
}

impl Publisher {
    /// The state as published, or `None` when nothing changed since the last publish.
    pub fn publish(&mut self, s: &ViewState) -> Option<Published> {
        let meta = Meta {
            mode: s.mode,
            episode: &s.episode,
            policy: &s.policy,
            seed: s.seed,
            blueprint: &s.blueprint,
            tick: s.tick,
            ended: &s.ended,
            events: s.events,
            from_setup: s.from_setup,
            inventory_from: s.inventory_from,
            inventory_tick: s.inventory_tick,
            notes: &s.notes,
            metrics: &s.metrics,
        };
        let meta = json(&meta);
        let sections = [json(&s.bots), json(&s.board), json(&s.blocks), json(&s.handovers)];
        let changed: Vec<bool> = sections.iter().zip(&self.sections).map(|(new, old)| new != old).collect();
        let log_changed = self.log != (s.log.epoch, s.log.total);
        if self.seq.is_some() && meta == self.meta && !changed.contains(&true) && !log_changed {
            return None;
        }
        let seq = self.seq.map_or(0, |s| s + 1);
        let whole_log = ("log", json(&s.log));
        let full = message(&meta, &sections, &[true; 4], Some(&whole_log));
        let delta = self.seq.map(|_| {
            let log = log_changed.then(|| match log_delta(&s.log, self.log) {
                Some(add) => ("log_add", add),
                None => whole_log.clone(),
            });
            message(&meta, &sections, &changed, log.as_ref())
        });
        self.seq = Some(seq);
        self.meta = meta;
        self.sections = sections;
        self.log = (s.log.epoch, s.log.total);
        Some(Published { seq, full: full.into(), delta: delta.map(Into::into) })
    }
}

/// The entries added to `log` since `(epoch, total)` was published, or `None` when
/// the page needs the whole log (another log, or entries it missed are gone).
fn log_delta(log: &Log, (epoch, total): (u64, u64)) -> Option<String> {
    if epoch != log.epoch {
        return None;
    }
    let entries: Vec<&LogEntry> = log.since(total)?.collect();
    Some(json(&LogAdd { total: log.total, entries }))
}

fn json<T: Serialize>(v: &T) -> String {
    // The view's types serialise infallibly (string keys, no custom serialisers).
    serde_json::to_string(v).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

/// `{"type":"state","state":{<meta's fields>,"bots":...,...}}` with the chosen sections
/// and the log's, as `(key, json)`.
fn message(meta: &str, sections: &[String; 4], include: &[bool], log: Option<&(&str, String)>) -> String {
    let len = meta.len()
        + 64
        + log.map_or(0, |(_, l)| l.len())
        + sections.iter().zip(include).filter(|(_, i)| **i).map(|(s, _)| s.len() + 16).sum::<usize>();
    let mut m = String::with_capacity(len);
    m.push_str(r#"{"type":"state","state":"#);
    // The meta object without its closing brace, then the sections.
    m.push_str(meta.strip_suffix('}').unwrap_or(meta));
    for ((name, body), _) in SECTIONS.iter().zip(sections).zip(include).filter(|(_, i)| **i) {
        m.push_str(",\"");
        m.push_str(name);
        m.push_str("\":");
        m.push_str(body);
    }
    if let Some((key, body)) = log {
        m.push_str(",\"");
        m.push_str(key);
        m.push_str("\":");
        m.push_str(body);
    }
    m.push_str("}}");
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    fn parse(b: &Utf8Bytes) -> serde_json::Value {
        serde_json::from_str(b.as_str()).expect("json")
    }

    #[test]
    fn the_full_message_is_the_whole_state_and_a_delta_only_what_changed() {
        let mut s = ViewState::new(&Scene::default(), "live");
        let mut p = Publisher::default();
        let first = p.publish(&s).expect("first");
        assert_eq!(first.seq, 0);
        assert!(first.delta.is_none());
        let whole = serde_json::json!({ "type": "state", "state": s });
        assert_eq!(parse(&first.full), whole, "every field of the view, sections included");
        assert!(p.publish(&s).is_none(), "nothing changed: nothing published");
        s.tick = 7;
        let second = p.publish(&s).expect("tick changed");
        assert_eq!(second.seq, 1);
        let delta = parse(second.delta.as_ref().expect("delta"));
        assert_eq!(delta["state"]["tick"], 7);
        for name in SECTIONS {
            assert!(delta["state"].get(name).is_none(), "{name} did not change");
        }
        assert_eq!(parse(&second.full), serde_json::json!({ "type": "state", "state": s }));
        // A browser that has publish 0 gets the delta; one that has nothing or older, the whole.
        assert_eq!(second.for_browser(Some(0)).as_ref(), second.delta.as_ref());
        assert_eq!(second.for_browser(None).as_ref(), Some(&second.full));
        assert_eq!(second.for_browser(Some(1)), None);
    }

    fn event(t: u64) -> gatecrew_protocol::trace::Event {
        let kind =
            gatecrew_protocol::trace::EventKind::Restart { agent: gatecrew_protocol::AgentId(1), cause: "x".into() };
        gatecrew_protocol::trace::Event { v: gatecrew_protocol::trace::TRACE_VERSION, ep: "e".into(), t, kind }
    }

    #[test]
    fn a_delta_carries_only_the_log_entries_added_and_a_new_log_whole() {
        let mut s = ViewState::new(&Scene::default(), "live");
        let mut p = Publisher::default();
        s.observe(&event(1));
        p.publish(&s).expect("first");
        s.observe(&event(2));
        s.observe(&event(3));
        let second = p.publish(&s).expect("two events");
        let delta = parse(second.delta.as_ref().expect("delta"));
        assert!(delta["state"].get("log").is_none(), "{delta}");
        let add = &delta["state"]["log_add"];
        assert_eq!(add["total"], 3);
        let ticks: Vec<_> = add["entries"].as_array().expect("entries").iter().map(|e| e["t"].clone()).collect();
        assert_eq!(ticks, [2, 3], "only the new entries");
        assert_eq!(parse(&second.full)["state"]["log"]["entries"].as_array().map(Vec::len), Some(3));
        // The hub starts another view for another episode: its log is sent whole.
        let mut other = ViewState::new(&Scene::default(), "live");
        for t in 10..15 {
            other.observe(&event(t));
        }
        let third = p.publish(&other).expect("another log");
        let delta = parse(third.delta.as_ref().expect("delta"));
        assert!(delta["state"].get("log_add").is_none());
        assert_eq!(delta["state"]["log"]["total"], 5);
        assert_eq!(delta["state"]["log"]["entries"][0]["t"], 10);
    }
}
