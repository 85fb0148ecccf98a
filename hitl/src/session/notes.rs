//! What the person tells about their world and their taste, kept in task memory with
//! its provenance (told): landmarks ("my house is here", "our farm is at 10 0 5",
//! "this is my base") and preferences ("i like spruce", "i prefer birch planks").
//! "Here" is where the bot stands when it hears the line (the person's own position is
//! not known to it). A later question ("where is my house?") is answered from them,
//! "go to my house" walks there before the rest of the plan, preferences steer the
//! recipe planner's choices ([`crate::recipe::Likes`]), and a later run in the same
//! world reads them back.

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{EventKind, MemoryNote, MemoryOp, PlanOp, SayKind};

use super::Partner;
use crate::memory::{Fact, Provenance};
use crate::plan::{Kind, Leaf, Origin};
use crate::words::{coords, words};

/// One thing the person told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Note {
    /// A named place ("house" at a position).
    Landmark {
        /// Its name, as said ("house", "wheat farm").
        name: String,
        /// Where.
        pos: Pos,
    },
    /// Something the person likes ("spruce").
    Preference {
        /// What, as said.
        what: String,
    },
}

/// Words that send the bot somewhere ("go to my house", "come back to our base", "meet
/// me at my farm").
const GO: [&str; 11] = ["go", "goto", "come", "walk", "head", "run", "return", "meet", "travel", "move", "back"];

/// Words that end a place's name in a line ("go to my house and wait", "go to my farm now").
const NAME_ENDS: [&str; 12] =
    ["and", "then", "now", "please", "pls", "first", "quick", "asap", "when", "after", "so", "to"];

/// The place a line sends the bot to ("go to my house": `house`), if it does: a going
/// word, then "to" or "at" and "my" or "our" and the place's name ("go back to building
/// my house" is not a trip).
pub(crate) fn trip_words(text: &str) -> Option<String> {
    let ws = words(text);
    let at = ws.iter().position(|w| w == "my" || w == "our")?;
    let towards = at > 0 && ["to", "at", "towards", "toward"].contains(&ws[at - 1].as_str());
    if !towards || !ws[..at].iter().any(|w| GO.contains(&w.as_str())) {
        return None;
    }
    let name: Vec<&str> =
        ws[at + 1..].iter().map(String::as_str).take_while(|w| !NAME_ENDS.contains(w)).take(3).collect();
    (!name.is_empty()).then(|| name.join(" "))
}

/// Fact kinds in task memory.
const LANDMARK: &str = "landmark";
const PREFERENCE: &str = "preference";

const LIKES: [&str; 10] = [
    "i really like",
    "i like",
    "i prefer",
    "i love",
    "id prefer",
    "id rather have",
    "i would prefer",
    "my favourite is",
    "my favorite is",
    "i want everything in",
];

/// Reads a landmark or a preference from a line, if it is one.
pub(crate) fn read_note(text: &str, here: Pos) -> Option<Note> {
    let ws = words(text);
    let s = |i: usize| ws.get(i).map(String::as_str);
    for lead in LIKES {
        let lw: Vec<&str> = lead.split(' ').collect();
        if ws.len() > lw.len() && ws.iter().zip(&lw).all(|(a, b)| a == b) {
            let rest: Vec<&str> = ws[lw.len()..]
                .iter()
                .map(String::as_str)
                .skip_while(|w| ["using", "the", "to", "use", "a", "an"].contains(w))
                .take_while(|w| !["more", "better", "best", "please", "pls", "too"].contains(w))
                .collect();
            if !rest.is_empty() && rest.len() <= 3 {
                return Some(Note::Preference { what: rest.join(" ") });
            }
        }
    }
    // "my house is here", "our farm is at 10 0 5", "this is my base", "here is my house".
    let at = coords(&ws).map(|(p, _)| p);
    let name_after = |from: usize| -> Vec<&str> {
        ws[from..]
            .iter()
            .map(String::as_str)
            .take_while(|w| !["is", "at", "here", "over", "right"].contains(w))
            .collect()
    };
    let (name, place) = match (s(0), s(1), s(2)) {
        (Some("my" | "our"), Some(_), _) => {
            let n = name_after(1);
            let tail: Vec<&str> = ws[1 + n.len()..].iter().map(String::as_str).collect();
            let place = match tail.as_slice() {
                ["is", "here", ..] | ["is", "right", "here", ..] | ["here", ..] => Some(here),
                ["is", "at", ..] | ["is", ..] if at.is_some() => at,
                _ => None,
            };
            (n, place)
        }
        (Some("this" | "here"), Some("is"), Some("my" | "our")) => (name_after(3), at.or(Some(here))),
        _ => (Vec::new(), None),
    };
    match (name.as_slice(), place) {
        ([_, ..], Some(pos)) if name.len() <= 3 => Some(Note::Landmark { name: name.join(" "), pos }),
        _ => None,
    }
}

impl Partner {
    /// Keeps a note: in this session, in task memory, in the trace; the answer.
    pub(super) fn keep_note(&mut self, note: Note) -> String {
        let (fact, reply) = match &note {
            Note::Landmark { name, pos } => (
                Fact {
                    world: self.cfg.world.clone(),
                    kind: LANDMARK.into(),
                    item: name.clone(),
                    pos: Some((pos.x, pos.y, pos.z)),
                    count: None,
                    provenance: Provenance::Told,
                    run: self.cfg.run.clone(),
                    tick: self.now.0,
                },
                format!("Noted: your {name} is at ({}, {}, {}).", pos.x, pos.y, pos.z),
            ),
            Note::Preference { what } => (
                Fact {
                    world: self.cfg.world.clone(),
                    kind: PREFERENCE.into(),
                    item: what.clone(),
                    pos: None,
                    count: None,
                    provenance: Provenance::Told,
                    run: self.cfg.run.clone(),
                    tick: self.now.0,
                },
                format!("Noted: you like {what}; I will choose it where a new goal lets me."),
            ),
        };
        if let Some(store) = &self.store {
            if let Err(e) = store.add_fact(&fact) {
                tracing::warn!(error = %e, "task memory: a note was not stored");
            }
        }
        self.events.push(EventKind::Memory(MemoryNote {
            agent: self.cfg.agent,
            op: MemoryOp::Write,
            text: super::recall::fact_text(&fact),
            provenance: Provenance::Told,
        }));
        self.notes.retain(|n| !same_subject(n, &note));
        self.notes.push(note);
        reply
    }

    /// A note read back from task memory (an earlier run in this world).
    pub(super) fn recall_note(&mut self, f: &Fact) -> bool {
        let note = match (f.kind.as_str(), f.pos) {
            (LANDMARK, Some((x, y, z))) => Note::Landmark { name: f.item.clone(), pos: Pos::new(x, y, z) },
            (PREFERENCE, _) => Note::Preference { what: f.item.clone() },
            _ => return false,
        };
        self.notes.retain(|n| !same_subject(n, &note));
        self.notes.push(note);
        true
    }

    /// "Go to my house": the told landmark the line sends the bot to (`Ok`), or the
    /// name of a place it was never told of (`Err`); `None` when the line sends it
    /// nowhere.
    pub(super) fn trip(&self, text: &str) -> Option<Result<(String, Pos), String>> {
        let said = trip_words(text)?;
        let ws = words(&said);
        let known = self.notes.iter().rev().find_map(|n| match n {
            Note::Landmark { name, pos } if name.split(' ').all(|w| ws.iter().any(|x| x == w)) => {
                Some((name.clone(), *pos))
            }
            _ => None,
        });
        Some(known.ok_or(said))
    }

    /// Walks to a told landmark before the rest of the plan: a step of its own, first,
    /// worked now; the rest goes on after it.
    pub(super) fn go_to(&mut self, name: &str, to: Pos) -> &'static str {
        let root = self.plan.root();
        let label = format!("go to your {name} at ({}, {}, {})", to.x, to.y, to.z);
        let n = self.plan.add_step(Kind::Leaf(Leaf::GoTo { to }), label.clone(), Origin::Person);
        self.plan.link_at(root, n, 0);
        let mut up = self.plan.switch_to(n).unwrap_or_default();
        up.added = 1;
        self.note_plan(PlanOp::Add, &up, &[]);
        self.log.feedback.push(format!("go to: {name}"));
        let p = self.plan.preview();
        self.say(SayKind::Preview, format!("Going to your {name} at ({}, {}, {}). {p}", to.x, to.y, to.z));
        "add"
    }

    /// "Where is my house?": the landmark the line names, if the person told one.
    pub(super) fn where_landmark(&self, text: &str) -> Option<String> {
        let ws = words(text);
        self.notes.iter().rev().find_map(|n| match n {
            Note::Landmark { name, pos } if name.split(' ').all(|w| ws.iter().any(|x| x == w)) => {
                Some(format!("You told me your {name} is at ({}, {}, {}).", pos.x, pos.y, pos.z))
            }
            _ => None,
        })
    }

    /// The preferences told, newest first, as the recipe planner's taste.
    pub(super) fn taste(&self) -> crate::recipe::Likes {
        crate::recipe::Likes::new(self.notes.iter().rev().filter_map(|n| match n {
            Note::Preference { what } => Some(what.as_str()),
            Note::Landmark { .. } => None,
        }))
    }

    /// "What do I like?": the preferences told.
    pub(super) fn likes(&self) -> Option<String> {
        let v: Vec<&str> = self
            .notes
            .iter()
            .filter_map(|n| match n {
                Note::Preference { what } => Some(what.as_str()),
                Note::Landmark { .. } => None,
            })
            .collect();
        (!v.is_empty()).then(|| format!("You told me you like {}.", v.join(" and ")))
    }
}

/// Two notes about the same landmark (a newer place replaces the older).
fn same_subject(a: &Note, b: &Note) -> bool {
    match (a, b) {
        (Note::Landmark { name: x, .. }, Note::Landmark { name: y, .. }) => x == y,
        (Note::Preference { what: x }, Note::Preference { what: y }) => x == y,
        _ => false,
    }
}
