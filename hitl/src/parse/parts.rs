//! Phrasings about the parts of a build ("leave out the glass", "the roof can wait",
//! "put the windows back", "no door"): the parser's rules for them, before the general
//! ones. A part is anything [`crate::parts::mentions_part`] recognises; lines naming an
//! item to get ("get 10 logs later") are left to the general rules.

use super::{after, before, join, strip_lead};
use crate::goal::{Goal, read_goal_checked};
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
const OUT_LEADS: [&str; 44] = [
    "we wont need",
    "wont need",
    "you wont need",
    "you dont need",
    "dont need",
    "dont want",
    "do not want",
    "no more",
    "ill put",
    "ill build",
    "ill place",
    "ill do",
    "ill make",
    "ill handle",
    "ill take care of",
    "i will build",
    "i will do",
    "let me do",
    "let me build",
    "ill add",
    "not the",
    "never mind",
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

/// Words before a part to do now ("do layer 3 next").
const NOW_VERBS: [&str; 12] =
    ["do", "build", "make", "place", "put", "then", "and", "work on", "lets do", "go", "finish", "start"];

/// Leads that bring a part back.
const BACK_LEADS: [&str; 8] = ["put", "add", "bring", "do", "build", "include", "also", "also build"];

/// Words naming a part: a function, layer or side word, and no count ("get 5 glass
/// later" is an item to get).
fn is_part(ws: &[String], vocab: &Vocabulary) -> bool {
    let text = join(ws);
    let counted = matches!(read_goal_checked(&text, vocab), Some(Ok(Goal::Obtain { count, .. })) if count.get() > 1)
        || matches!(read_goal_checked(&text, vocab), Some(Err(_)))
        || ws.iter().any(|w| {
            w.chars().all(|c| c.is_ascii_digit()) && !["1", "2", "3", "4", "5", "6", "7", "8"].contains(&w.as_str())
        })
        || crate::words::count(ws, None).is_some_and(|n| n.is_err() || n.is_ok_and(|c| c.get() > 8));
    !ws.is_empty() && mentions_part(&text) && !counted
}

/// The part's words without what trails them ("a door in", "the roof myself").
fn trim_tail(ws: &[String]) -> &[String] {
    let mut ws = ws;
    for t in ["myself", "please", "in", "on", "there", "up", "for me", "thanks"] {
        ws = before(ws, t).unwrap_or(ws);
    }
    ws
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
    // "leave out the glass", "no windows", "skip the roof".
    for lead in OUT_LEADS.iter().chain(&["no", "skip", "remove", "drop", "cancel"]) {
        if let Some(rest) = after(ws, lead) {
            let rest = trim_tail(rest);
            if is_part(rest, vocab) {
                return Some(Intent::about(IntentType::Delete, join(rest)));
            }
        }
    }
    // "we can skip the north wall", "you could just drop the roof".
    const SOFT: [&str; 16] = [
        "we", "can", "you", "just", "lets", "please", "could", "maybe", "i", "think", "should", "ok", "so", "might",
        "as", "well",
    ];
    for (i, w) in ws.iter().enumerate().skip(1) {
        if ["skip", "drop", "remove", "ditch", "scrap", "omit", "exclude", "forget"].contains(&w.as_str())
            && ws[..i].iter().all(|b| SOFT.contains(&b.as_str()))
        {
            let rest = trim_tail(&ws[i + 1..]);
            if is_part(rest, vocab) {
                return Some(Intent::about(IntentType::Delete, join(rest)));
            }
        }
    }
    // "the windows before the roof": the first one now.
    if let Some(i) = ws.iter().position(|w| w == "before") {
        let head = strip_lead(&ws[..i], &NOW_VERBS);
        if is_part(head, vocab) && is_part(&ws[i + 1..], vocab) {
            return Some(Intent::about(IntentType::Switch, join(head)));
        }
    }
    // "roof now", "do layer 3 next", "the door first": work on it now.
    for tail in ["right now", "now", "next", "first", "asap", "first please"] {
        if let Some(body) = before(ws, tail) {
            let body = strip_lead(body, &NOW_VERBS);
            if is_part(body, vocab) {
                return Some(Intent::about(IntentType::Switch, join(body)));
            }
        }
    }
    // "the roof isn't needed", "the windows can go", "leave the roof off".
    for tail in
        ["isnt needed", "is not needed", "not needed", "isnt necessary", "is unnecessary", "can go", "can be skipped"]
    {
        if let Some(body) = before(ws, tail) {
            if is_part(body, vocab) {
                return Some(Intent::about(IntentType::Delete, join(body)));
            }
        }
    }
    for tail in ["off", "empty", "open", "blank", "out"] {
        if let Some(body) = after(ws, "leave").and_then(|r| before(r, tail)) {
            if is_part(body, vocab) {
                return Some(Intent::about(IntentType::Delete, join(body)));
            }
        }
    }
    // A part alone ("the roof!"), or first in a sequence ("the roof, then the walls").
    const NOT_BARE: [&str; 21] = [
        "dont", "do", "not", "no", "skip", "bother", "leave", "need", "isnt", "wont", "without", "forget", "remove",
        "cancel", "never", "empty", "off", "out", "back", "is", "again",
    ];
    let head = ws.iter().position(|w| w == "then").map_or(ws, |i| &ws[..i]);
    if head.len() <= 4 && is_part(head, vocab) && !head.iter().any(|w| NOT_BARE.contains(&w.as_str())) {
        return Some(Intent::about(IntentType::Switch, join(head)));
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
