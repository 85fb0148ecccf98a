//! Serialising the live state once per publish, for every browser at once. The state
//! is cut into sections (bot cards, board, blueprint progress, hand-overs, and the
//! small rest); each publish carries the whole state and, for a browser that got the
//! previous publish, only the sections that changed since. Both are shared bytes:
//! fifty websockets send the same buffer, and an unchanged state is not published.

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;

use crate::inventory::InventorySource;
use crate::state::ViewState;

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
}

const SECTIONS: [&str; 4] = ["bots", "board", "blocks", "handovers"];

/// Turns states into [`Published`]s, remembering the last one's sections.
#[derive(Debug, Default)]
pub struct Publisher {
    seq: Option<u64>,
    meta: String,
    sections: [String; 4],
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
        };
        let meta = json(&meta);
        let sections = [json(&s.bots), json(&s.board), json(&s.blocks), json(&s.handovers)];
        let changed: Vec<bool> = sections.iter().zip(&self.sections).map(|(new, old)| new != old).collect();
        if self.seq.is_some() && meta == self.meta && !changed.contains(&true) {
            return None;
        }
        let seq = self.seq.map_or(0, |s| s + 1);
        let full = message(&meta, &sections, &[true; 4]);
        let delta = self.seq.map(|_| message(&meta, &sections, &changed));
        self.seq = Some(seq);
        self.meta = meta;
        self.sections = sections;
        Some(Published { seq, full: full.into(), delta: delta.map(Into::into) })
    }
}

fn json<T: Serialize>(v: &T) -> String {
    // The view's types serialise infallibly (string keys, no custom serialisers).
    serde_json::to_string(v).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

/// `{"type":"state","state":{<meta's fields>,"bots":...,...}}` with the chosen sections.
fn message(meta: &str, sections: &[String; 4], include: &[bool]) -> String {
    let len =
        meta.len() + 64 + sections.iter().zip(include).filter(|(_, i)| **i).map(|(s, _)| s.len() + 16).sum::<usize>();
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
}
