//! What the person tells about their world and their taste, kept in task memory with
//! its provenance (told): landmarks ("my house is here", "our farm is at 10 0 5",
//! "this is my base") and preferences ("i like spruce", "i prefer birch planks").
//! "Here" is where the bot stands when it hears the line (the person's own position is
//! not known to it). A later question ("where is my house?") is answered from them,
//! and a later run in the same world reads them back.

use gatecrew_protocol::Pos;
use gatecrew_protocol::trace::{EventKind, MemoryNote, MemoryOp};

use super::Partner;
use crate::memory::{Fact, Provenance};
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
                format!("Noted: you like {what}."),
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
