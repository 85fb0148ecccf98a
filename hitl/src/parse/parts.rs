//! Phrasings about the parts of a build ("leave out the glass", "the roof can wait",
//! "put the windows back", "no door"): the parser's rules for them, before the general
//! ones. A part is anything [`crate::parts::mentions_part`] recognises; lines naming an
//! item to get ("get 10 logs later") are left to the general rules.

use super::{after, before, join, strip_lead};
use crate::goal::{Goal, read_goal};
use crate::intent::{Intent, IntentType};
use crate::parts::mentions_part;
use crate::words::Vocabulary;

/// Tails that put something off.
const LATER_TAILS: [&str; 16] = [
    "can wait",
    "could wait",
    "can come later",
    "for later",
    "for last",
    "later on",
    "later",
    "last",
    "at the end",
    "after everything else",
    "after the rest",
    "until later",
    "until the end",
    "till later",
    "till the end",
    "yet",
];

/// Leads that put something off.
const LATER_LEADS: [&str; 8] =
    ["hold off on", "hold off with", "put off", "postpone", "delay", "leave off on", "wait on", "wait with"];

/// Words before the part in a put-off line ("leave the roof for later").
const LATER_VERBS: [&str; 14] =
    ["leave", "save", "do", "build", "make", "place", "let", "lets", "and", "please", "keep", "not", "dont", "do"];

/// Leads that leave a part out.
const OUT_LEADS: [&str; 22] = [
    "leave out",
    "dont build",
    "dont place",
    "dont put",
    "dont add",
    "dont do",
    "do not build",
    "do not do",
    "without",
    "no need for",
    "forget",
    "get rid of",
    "scrap",
    "ditch",
    "omit",
    "exclude",
    "take out",
    "delete",
    "we dont need",
    "i dont want",
    "we dont want",
    "lets skip",
];

/// Leads that bring a part back.
const BACK_LEADS: [&str; 8] = ["put", "add", "bring", "do", "build", "include", "also", "also build"];

fn is_part(ws: &[String], vocab: &Vocabulary) -> bool {
    let text = join(ws);
    !ws.is_empty() && mentions_part(&text) && matches!(read_goal(&text, vocab), None | Some(Goal::Build))
}

/// The intent of a line about a part, if it is one.
pub(super) fn part_intent(ws: &[String], vocab: &Vocabulary) -> Option<Intent> {
    // "hold off on the roof", "postpone the windows".
    for lead in LATER_LEADS {
        if let Some(rest) = after(ws, lead) {
            let rest = strip_lead(rest, &["the"]);
            if is_part(rest, vocab) {
                return Some(Intent::later(join(rest)));
            }
        }
    }
    // "the roof can wait", "leave the windows for later", "do the door last".
    for tail in LATER_TAILS {
        if let Some(body) = before(ws, tail) {
            let body = strip_lead(body, &LATER_VERBS);
            let body = before(body, "until").unwrap_or(body);
            if is_part(body, vocab) {
                return Some(Intent::later(join(body)));
            }
        }
    }
    // "leave the glass out", "leave out the glass", "no windows", "skip the roof".
    if let Some(body) = after(ws, "leave").and_then(|r| before(r, "out")) {
        if is_part(body, vocab) {
            return Some(Intent::about(IntentType::Delete, join(body)));
        }
    }
    for lead in OUT_LEADS.iter().chain(&["no", "skip", "remove", "drop", "cancel", "never mind"]) {
        if let Some(rest) = after(ws, lead) {
            let rest = before(rest, "please").unwrap_or(rest);
            if is_part(rest, vocab) {
                return Some(Intent::about(IntentType::Delete, join(rest)));
            }
        }
    }
    // "put the windows back", "add the glass back in", "build the roof again after all".
    for tail in ["back in", "back", "again", "after all"] {
        if let Some(body) = before(ws, tail) {
            let body = strip_lead(body, &BACK_LEADS);
            if is_part(body, vocab) {
                return Some(Intent::about(IntentType::Add, join(body)));
            }
        }
    }
    None
}
