//! Reading a trace line without buffering it.
//!
//! The derived `Deserialize` of [`Event`] (a flattened, internally tagged enum) buffers
//! every line through serde's `Content` twice before it builds the event: almost half
//! the time of `gatecrew analyze`. A line as [`super::TraceWriter`] writes it starts with
//! `v`, `ep`, `t` and `kind`; [`parse`] reads those four, then hands the rest of the
//! same map straight to the fields of that kind. Any other line (another key order, a
//! head key repeated, anything malformed) is read again by the derived path, so the
//! values and the error messages stay exactly those of `serde_json::from_str::<Event>`:
//! this is a shortcut through the same grammar, never a second one.

use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, VariantAccess, Visitor};

use super::TaskScores;
use super::event::{
    ActionName, Decision, Event, EventKind, FeatureVec, GateAction, GateContext, IssueName, MessageFault, ResolvedBy,
    Tier, WindowEvent,
};
use crate::ids::{AgentId, IssueId, WindowId};
use crate::message::Recipient;
use crate::pos::Pos;

/// Reads one trace line: the direct path when the line starts the way the writer starts
/// it, else (and for every error) the derived one.
pub(super) fn parse(text: &str) -> Result<Event, serde_json::Error> {
    match direct(text) {
        Some(ev) => Ok(ev),
        None => serde_json::from_str(text),
    }
}

/// The direct path; `None` when it does not apply or the line is malformed.
fn direct(text: &str) -> Option<Event> {
    let mut de = serde_json::Deserializer::from_str(text);
    let ev = de.deserialize_map(EventVisitor).ok()?;
    de.end().ok()?;
    Some(ev)
}

/// Why the direct path gave up (never shown: the derived path reads the line again).
const ASIDE: &str = "not in the writer's order";

/// A key of the line's head.
enum Head {
    V,
    Ep,
    T,
    Kind,
    Else,
}

impl<'de> Deserialize<'de> for Head {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Head;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Head, E> {
                Ok(match s {
                    "v" => Head::V,
                    "ep" => Head::Ep,
                    "t" => Head::T,
                    "kind" => Head::Kind,
                    _ => Head::Else,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a trace event")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
        let (mut v, mut ep, mut t) = (None, None, None);
        let kind = loop {
            match map.next_key::<Head>()? {
                Some(Head::V) if v.is_none() => v = Some(map.next_value::<u32>()?),
                Some(Head::Ep) if ep.is_none() => ep = Some(map.next_value::<String>()?),
                Some(Head::T) if t.is_none() => t = Some(map.next_value::<u64>()?),
                Some(Head::Kind) => break map.next_value::<Key<'de>>()?,
                _ => return Err(de::Error::custom(ASIDE)),
            }
        };
        // A kind this build does not know (`EventKind::Other`) fails here and is left to
        // the derived path, as is a name written with escapes: rare, and never misread.
        let Key::Borrowed(name) = kind else {
            return Err(de::Error::custom(ASIDE));
        };
        let kind = KindDef::deserialize(Variant { name, rest: Rest(map) })?;
        match (v, ep, t) {
            (Some(v), Some(ep), Some(t)) => Ok(Event { v, ep, t, kind }),
            _ => Err(de::Error::custom(ASIDE)),
        }
    }
}

/// The rest of the line after `kind`: the fields of that kind. A head key seen again
/// sends the line to the derived path (which reports a duplicate, or reads `v` late).
struct Rest<A>(A);

/// A key as read: borrowed from the line unless it had escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(s))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s.to_owned()))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s))
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Rest<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let Some(key) = self.0.next_key::<Key<'de>>()? else {
            return Ok(None);
        };
        let text = match &key {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s.as_str(),
        };
        if matches!(text, "v" | "ep" | "t" | "kind") {
            return Err(de::Error::custom(ASIDE));
        }
        match key {
            Key::Borrowed(s) => seed.deserialize(BorrowedStrDeserializer::new(s)).map(Some),
            Key::Owned(s) => seed.deserialize(StringDeserializer::new(s)).map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(seed)
    }
}

/// The kind's name and its fields, presented to the derived deserializer of
/// [`KindDef`] as an externally tagged enum.
struct Variant<'de, A> {
    name: &'de str,
    rest: Rest<A>,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Variant<'de, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(ASIDE))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for Variant<'de, A> {
    type Error = A::Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), A::Error> {
        let v = seed.deserialize(BorrowedStrDeserializer::<A::Error>::new(self.name))?;
        Ok((v, self))
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Variant<'de, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        Err(de::Error::custom(ASIDE))
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        seed.deserialize(MapAccessDeserializer::new(self.rest))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(ASIDE))
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.rest)
    }
}

/// [`EventKind`]'s fields once more, externally tagged, deserialising straight into
/// `EventKind` (`serde(remote)`). The field attributes are those of `EventKind` that
/// matter when reading (`default`, `flatten`); the equivalence test below reads every
/// kind both ways. A field added to `EventKind` and not here fails to compile; a kind
/// added there and not here is read by the derived path (right, only slower).
#[derive(Deserialize)]
#[serde(remote = "EventKind", rename_all = "snake_case")]
enum KindDef {
    EpisodeStart {
        policy: super::Policy,
        seed: u64,
        config_hash: String,
        agents: Vec<AgentId>,
        blueprint_blocks: u32,
        #[serde(default)]
        class: Option<super::SuiteClass>,
        #[serde(default)]
        template: Option<String>,
        #[serde(default)]
        split: Option<super::Split>,
        #[serde(default)]
        blueprint: Option<String>,
        #[serde(default)]
        warnings: Vec<String>,
        #[serde(default)]
        cells_dropped: Option<u32>,
        #[serde(default)]
        humans: Vec<String>,
        #[serde(default)]
        executor: Option<super::ExecutorLabel>,
        #[serde(default)]
        experiment: bool,
    },
    Action {
        agent: AgentId,
        action: ActionName,
        ok: bool,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        item: Option<String>,
        #[serde(default)]
        count: Option<u32>,
        #[serde(default)]
        pos: Option<Pos>,
        #[serde(default)]
        ticks: Option<u64>,
    },
    Issue {
        agent: AgentId,
        issue_id: IssueId,
        issue: IssueName,
        #[serde(default)]
        item: Option<String>,
        #[serde(default)]
        count: Option<u32>,
        #[serde(default)]
        node: Option<u32>,
        #[serde(default)]
        pos: Option<Pos>,
        #[serde(default)]
        reason: Option<String>,
    },
    Gate {
        agent: AgentId,
        issue_id: IssueId,
        tier: Tier,
        #[serde(default)]
        rule: Option<String>,
        features: FeatureVec,
        score: f64,
        decision: Decision,
        #[serde(default)]
        action: Option<GateAction>,
        oracle_local_feasible: bool,
        #[serde(default)]
        context: Option<GateContext>,
        #[serde(default)]
        oracle_ticks: Option<u64>,
    },
    Adjudication {
        agent: AgentId,
        issue_id: IssueId,
        card: serde_json::Value,
        reply: String,
        decision: Decision,
        confidence: f64,
        prompt_tokens: u32,
        completion_tokens: u32,
        latency_ms: u64,
        #[serde(default)]
        fallback: Option<super::FallbackReason>,
    },
    Board {
        msg: crate::MessageKind,
        window: WindowId,
        from: AgentId,
        to: Recipient,
        item: String,
        #[serde(default)]
        count: Option<u32>,
        #[serde(default)]
        reason: Option<String>,
    },
    BoardReject {
        from: AgentId,
        error: crate::RejectKind,
        #[serde(default)]
        msg: Option<crate::MessageKind>,
        #[serde(default)]
        window: Option<WindowId>,
        #[serde(default)]
        to: Option<Recipient>,
        #[serde(default)]
        item: Option<String>,
        #[serde(default)]
        count: Option<u32>,
    },
    Chat {
        from: AgentId,
        to: Recipient,
        tokens: u32,
    },
    Manager {
        #[serde(default)]
        from: Option<AgentId>,
        #[serde(default)]
        to: Option<AgentId>,
        tokens: u32,
    },
    Window {
        window: WindowId,
        event: WindowEvent,
        #[serde(default)]
        issue_id: Option<IssueId>,
        #[serde(default)]
        outcome: Option<crate::CloseOutcome>,
    },
    Recovery {
        agent: AgentId,
        issue_id: IssueId,
        step: String,
        ok: bool,
    },
    Resolved {
        agent: AgentId,
        issue_id: IssueId,
        by: ResolvedBy,
    },
    Unfinished {
        agent: AgentId,
        node: u32,
        #[serde(default)]
        pos: Option<Pos>,
        #[serde(default)]
        block: Option<String>,
        why: String,
    },
    Fallback {
        agent: AgentId,
        issue_id: IssueId,
        action: GateAction,
        cause: super::FallbackCause,
    },
    Restart {
        agent: AgentId,
        cause: String,
    },
    MessageFault {
        agent: AgentId,
        fault: MessageFault,
        msg: super::LineKind,
        #[serde(default)]
        until: Option<u64>,
    },
    AgentFailed {
        agent: AgentId,
        cause: String,
    },
    EpisodeEnd {
        tsr: f64,
        complete: bool,
        correct_blocks: u32,
        blueprint_blocks: u32,
        reason: super::EndReason,
        #[serde(default)]
        blocks_replaced: Option<u32>,
        #[serde(flatten)]
        scores: TaskScores,
    },
    Human(super::hitl::HumanLine),
    Intent(super::hitl::IntentNote),
    Plan(super::hitl::PlanNote),
    Say(super::hitl::SayNote),
    Validator(super::hitl::ValidatorNote),
    Memory(super::hitl::MemoryNote),
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// One line of every kind, as the writer orders them, with optional fields set.
    const EVERY_KIND: &[&str] = &[
        r#"{"v":1,"ep":"e","t":0,"kind":"episode_start","policy":"gated","seed":7,"config_hash":"abc","agents":[0,1],"blueprint_blocks":4,"class":"A","template":"hut","split":"test","blueprint":"b","warnings":["$.x: y"],"humans":["ann"]}"#,
        r#"{"v":1,"ep":"e","t":1,"kind":"action","agent":0,"action":"place","ok":false,"reason":"no \"support\"","item":"oak_planks","count":2,"pos":[1,-2,3],"ticks":5}"#,
        r#"{"v":1,"ep":"e","t":2,"kind":"issue","agent":1,"issue_id":3,"issue":"missing_material","item":"stone","count":4,"node":9,"pos":[0,0,0],"reason":"r"}"#,
        r#"{"v":1,"ep":"e","t":3,"kind":"gate","agent":1,"issue_id":3,"tier":1,"rule":"R1","features":{"C":2,"A":1,"D":2,"R":0,"H":0},"score":0.625,"decision":"escalate","action":"REQUEST_MATERIAL","oracle_local_feasible":true,"context":{"requestable":true,"reachable":true,"other_work":false},"oracle_ticks":412}"#,
        r#"{"v":1,"ep":"e","t":3,"kind":"gate","agent":1,"issue_id":4,"tier":"policy","features":{"C":0,"A":0,"D":0,"R":3,"H":0},"score":1e-3,"decision":"stay_local","oracle_local_feasible":false}"#,
        r#"{"v":1,"ep":"e","t":4,"kind":"adjudication","agent":1,"issue_id":3,"card":{"f":[1,2.5,null],"s":"x"},"reply":"{}","decision":"escalate","confidence":0.5,"prompt_tokens":101,"completion_tokens":23,"latency_ms":80,"fallback":"timeout"}"#,
        r#"{"v":1,"ep":"e","t":5,"kind":"board","msg":"REQUEST_MATERIAL","window":2,"from":1,"to":"all","item":"stone","count":4,"reason":"missing_material"}"#,
        r#"{"v":1,"ep":"e","t":5,"kind":"board","msg":"CANNOT_SUPPLY","window":2,"from":0,"to":1,"item":"stone"}"#,
        r#"{"v":1,"ep":"e","t":6,"kind":"board_reject","from":0,"error":"unknown_window","msg":"OFFER_TRANSFER","window":9,"to":1,"item":"stone","count":1}"#,
        r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
        r#"{"v":1,"ep":"e","t":8,"kind":"manager","from":1,"tokens":30}"#,
        r#"{"v":1,"ep":"e","t":8,"kind":"manager","to":1,"tokens":30}"#,
        r#"{"v":1,"ep":"e","t":9,"kind":"window","window":2,"event":"open","issue_id":3}"#,
        r#"{"v":1,"ep":"e","t":9,"kind":"window","window":2,"event":"close","outcome":"confirmed"}"#,
        r#"{"v":1,"ep":"e","t":10,"kind":"recovery","agent":1,"issue_id":3,"step":"mine","ok":true}"#,
        r#"{"v":1,"ep":"e","t":11,"kind":"resolved","agent":1,"issue_id":3,"by":"board"}"#,
        r#"{"v":1,"ep":"e","t":12,"kind":"unfinished","agent":0,"node":4,"pos":[1,2,3],"block":"stone","why":"w"}"#,
        r#"{"v":1,"ep":"e","t":13,"kind":"fallback","agent":1,"issue_id":3,"action":"LOCAL_SKIP","cause":"cannot_supply"}"#,
        r#"{"v":1,"ep":"e","t":14,"kind":"restart","agent":1,"cause":"panic"}"#,
        r#"{"v":1,"ep":"e","t":15,"kind":"message_fault","agent":1,"fault":"delayed","msg":"OFFER_TRANSFER","until":20}"#,
        r#"{"v":1,"ep":"e","t":16,"kind":"agent_failed","agent":1,"cause":"kicked"}"#,
        r#"{"v":1,"ep":"e","t":17,"kind":"human","agent":1,"text":"build it","lines":1}"#,
        r#"{"v":1,"ep":"e","t":17,"kind":"intent","agent":1,"type":"add","node":"n","parent":"p","classifier":"parser","fallback":"timeout","resolved":2,"options":[1,2]}"#,
        r#"{"v":1,"ep":"e","t":17,"kind":"plan","agent":1,"op":"add","active":1,"label":"l","pivot":0,"added":1,"removed":0,"nodes":5,"repairs":["r"]}"#,
        r#"{"v":1,"ep":"e","t":17,"kind":"say","agent":1,"what":"answer","text":"ok"}"#,
        r#"{"v":1,"ep":"e","t":18,"kind":"validator","agent":1,"node":2,"label":"l","criterion":"c","pass":true,"evidence":{"items":[{"item":"stone","before":0,"after":1}],"from":[0,0,0],"at":[1,1,1],"blocks":[{"pos":[1,1,1],"block":"stone"}],"container":[[2,2,2],5],"share":[1,3]}}"#,
        r#"{"v":1,"ep":"e","t":18,"kind":"memory","agent":1,"op":"write","text":"t","provenance":"told"}"#,
        r#"{"v":1,"ep":"e","t":19,"kind":"episode_end","tsr":1,"complete":true,"correct_blocks":4,"blueprint_blocks":4,"reason":"complete","blocks_replaced":2,"mindcraft_accuracy":0.5,"villager_blocks":3,"extra":{"x":1}}"#,
    ];

    fn derived(line: &str) -> Result<Event, String> {
        serde_json::from_str::<Event>(line).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_reads_directly_to_the_derived_value() {
        let mut names = std::collections::BTreeSet::new();
        for line in EVERY_KIND {
            let ev = direct(line).unwrap_or_else(|| panic!("not read directly: {line}"));
            assert_eq!(Ok(&ev), derived(line).as_ref(), "{line}");
            names.insert(ev.kind.name());
        }
        // Every kind but `other`: a kind added to `EventKind` must be added above.
        assert_eq!(names.len(), 24, "{names:?}");
    }

    #[test]
    fn other_lines_go_the_derived_way_with_the_same_result() {
        let lines = [
            // Another key order, late or repeated head keys, an unknown kind, escapes.
            r#"{"kind":"chat","v":1,"ep":"e","t":7,"from":0,"to":"all","tokens":12}"#,
            r#"{"v":1,"ep":"e","kind":"chat","t":7,"from":0,"to":"all","tokens":12}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12,"v":1}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12,"kind":"chat"}"#,
            r#"{"v":1,"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"telemetry","x":[1,2]}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"other"}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"ch\u0061t","from":0,"to":"all","tokens":12}"#,
            r#"{"v":1,"ep":"e","t":7,"x":0,"kind":"chat","from":0,"to":"all","tokens":12}"#,
            // Malformed: every error is the derived path's own.
            r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12,"tokens":3}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all"}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":-1}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":5}"#,
            r#"{"v":"1","ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
            r#"{"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}"#,
            r#"{"v":1,"ep":"e","t":7,"kind":"chat","from":0,"to":"all","tokens":12}]"#,
            r#"[1,2]"#,
        ];
        for line in lines {
            assert_eq!(parse(line).map_err(|e| e.to_string()), derived(line), "{line}");
        }
        assert!(direct(lines[0]).is_none() && direct(lines[2]).is_none() && direct(lines[5]).is_none());
    }

    /// Every line of the fuzzing corpus and the hostile traces: whatever the direct path
    /// accepts, the derived path accepts as the same event.
    #[test]
    fn the_corpus_reads_the_same_both_ways() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut direct_ok = 0;
        for dir in ["fuzz/corpus/trace_line", "fuzz/regressions/trace_line", "tests/bad_input/traces"] {
            let entries = std::fs::read_dir(root.join(dir)).expect("corpus folder");
            for e in entries {
                let bytes = std::fs::read(e.expect("entry").path()).expect("corpus file");
                for line in bytes.split(|b| *b == b'\n') {
                    let Ok(line) = std::str::from_utf8(line) else { continue };
                    if let Some(ev) = direct(line) {
                        assert_eq!(Ok(ev), derived(line), "{line}");
                        direct_ok += 1;
                    }
                    assert_eq!(parse(line).map_err(|e| e.to_string()), derived(line), "{line}");
                }
            }
        }
        assert!(direct_ok > 100, "only {direct_ok} corpus lines read directly");
    }
}
