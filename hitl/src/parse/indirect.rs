//! Indirect phrasings, as players put orders in chat: a request wrapped round an
//! order ("can you also ...", "could you skip ..."), an add tied to the end of the
//! current work ("... when you're done", "once you're finished with the bed, ..."),
//! a step the person has or does ("leave the planks, I have some", "I already have
//! wool", "I'll do the roof myself", "leave the door to me"), and a step not needed
//! ("the sticks aren't needed"). Each rule is a shape over the words, not a sentence.

use super::lexicon::TASK_LEADS;
use super::{after, before, join, strip_lead};
use crate::intent::{Intent, IntentType};

/// Leads that wrap an order in a request; what follows is parsed as the order.
pub(super) const REQUESTS: [&str; 17] = [
    "can you please",
    "could you please",
    "would you please",
    "would you mind",
    "can you",
    "could you",
    "would you",
    "will you",
    "you can",
    "you could",
    "you should",
    "i want you to",
    "i need you to",
    "id like you to",
    "i would like you to",
    "maybe",
    "please",
];

/// The words that end the current work: "when/once/after (you're) done/finished".
const DONE: [&str; 6] = ["done", "finished", "finish", "free", "through", "ready"];
const WHEN: [&str; 5] = ["when", "once", "after", "afterwards", "whenever"];
const YOU: [&str; 6] = ["youre", "you", "are", "have", "ve", "youve"];

/// The span of a "when you're done (with the X)" clause, if the line has one.
pub(super) fn done_clause(ws: &[String]) -> Option<std::ops::Range<usize>> {
    let start = ws.iter().position(|w| WHEN.contains(&w.as_str()))?;
    let mut j = start + 1;
    while j < ws.len() && YOU.contains(&ws[j].as_str()) {
        j += 1;
    }
    if !ws.get(j).is_some_and(|w| DONE.contains(&w.as_str())) {
        // "afterwards" alone, "after that/this".
        return match ws.get(start + 1).map(String::as_str) {
            Some("that" | "this" | "it") if ws[start] == "after" => Some(start..start + 2),
            None if ws[start] == "afterwards" => Some(start..start + 1),
            _ => None,
        };
    }
    j += 1;
    // "... with the bed" / "... with that": up to an order verb.
    if ws.get(j).is_some_and(|w| w == "with" || w == "here") {
        j += 1;
        while j < ws.len()
            && !TASK_LEADS.contains(&ws[j].as_str())
            && !["then", "also", "and"].contains(&ws[j].as_str())
        {
            j += 1;
        }
    }
    Some(start..j)
}

/// The words of an add tied to the end of the current work, the clause cut out.
pub(super) fn added_when_done(ws: &[String], has_goal: &dyn Fn(&[String]) -> bool) -> Option<Intent> {
    let span = done_clause(ws)?;
    let mut body: Vec<String> = ws[..span.start].to_vec();
    body.extend_from_slice(&ws[span.end..]);
    let body = strip_lead(&body, &["and", "then", "also", "please", "can", "you", "could", "pls"]);
    let body = strip_lead(body, &TASK_LEADS);
    let body = strip_lead(body, &["also", "and", "then", "please"]);
    let body = strip_lead(body, &TASK_LEADS);
    let body = super::strip_fillers(body);
    (!body.is_empty() && has_goal(body)).then(|| Intent::about(IntentType::Add, join(body)))
}

/// First-person leads of a step the person does ("I'll do the roof myself").
const I_DO: [&str; 14] = [
    "ill just",
    "ill",
    "i will",
    "i can just",
    "i can",
    "i could",
    "let me",
    "im going to",
    "i am going to",
    "im gonna",
    "i want to",
    "i wanna",
    "i",
    "we",
];

/// Verbs of a step ("do", "make", "handle").
const DO_VERBS: [&str; 21] = [
    "do", "make", "get", "craft", "build", "place", "put", "handle", "collect", "mine", "chop", "gather", "fetch",
    "grab", "take", "smelt", "finish", "cut", "dig", "go", "find",
];

/// Things that say the person holds what a step gets ("I have some").
const HAVE: [&str; 8] =
    ["i have", "i got", "ive got", "i already have", "i already got", "ive already got", "ive", "i have got"];
const PRONOUN: [&str; 11] = ["one", "some", "it", "them", "enough", "plenty", "those", "that", "these", "this", "lots"];

/// A step the person does or already has, to drop: the words naming it.
pub(super) fn person_does(text: &str, ws: &[String], has_goal: &dyn Fn(&[String]) -> bool) -> Option<Intent> {
    // "I'll do the roof myself", "I can get the wool on my own".
    let core = before(ws, "myself").or_else(|| before(ws, "on my own")).or_else(|| before(ws, "by myself"));
    if let Some(core) = core {
        let rest = strip_lead(core, &I_DO);
        let rest = strip_lead(rest, &["just", "go", "and"]);
        let rest = strip_lead(rest, &DO_VERBS);
        if !rest.is_empty() && rest.len() < core.len() && has_goal(rest) {
            return Some(Intent::about(IntentType::Delete, join(rest)));
        }
    }
    // "leave the door to me".
    if let Some(rest) = after(ws, "leave").and_then(|r| before(r, "to me")) {
        if has_goal(rest) {
            return Some(Intent::about(IntentType::Delete, join(rest)));
        }
    }
    // "leave the planks, I have some", "I already have wool", "no planks, I have them".
    let clauses: Vec<Vec<String>> =
        text.split([',', ';', '.', '!']).map(crate::words::words).filter(|c| !c.is_empty()).collect();
    let has = clauses.iter().enumerate().find_map(|(i, c)| {
        let c = strip_lead(c, &["but", "and", "cause", "because", "since", "as", "coz", "cuz", "so"]);
        HAVE.iter().find_map(|h| after(c, h)).map(|rest| (i, rest.to_vec()))
    });
    if let Some((i, rest)) = has {
        let already = ws.iter().any(|w| w == "already");
        let object: Vec<String> = rest
            .iter()
            .filter(|w| !["already", "a", "an", "the", "got", "my", "own"].contains(&w.as_str()))
            .cloned()
            .collect();
        let pronoun = object.iter().all(|w| PRONOUN.contains(&w.as_str()));
        if !pronoun && already && has_goal(&object) {
            return Some(Intent::about(IntentType::Delete, join(&object)));
        }
        if pronoun {
            // The step is the one another clause named.
            let other = clauses.iter().enumerate().filter(|(j, _)| *j != i).find_map(|(_, c)| {
                let c = strip_lead(c, &["leave", "skip", "forget", "no", "dont", "make", "get", "need", "the", "any"]);
                let c = strip_lead(c, &["out", "about", "the", "any", "bother", "with", "need", "for", "to"]);
                let c = strip_lead(c, &TASK_LEADS);
                has_goal(c).then(|| join(c))
            });
            if let Some(w) = other {
                return Some(Intent::about(IntentType::Delete, w));
            }
        }
    }
    // "leave the planks": the step is left undone.
    // ("leave out X" and "leave off X" are the delete leads' and the parts' own.)
    let leave = after(ws, "leave").filter(|r| r.first().is_some_and(|w| w != "out" && w != "off"));
    if let Some(rest) = leave {
        let rest = strip_lead(rest, &["the", "all", "those", "any"]);
        if !rest.is_empty()
            && has_goal(rest)
            && !rest.iter().any(|w| ["in", "at", "on", "there", "here", "for", "open"].contains(&w.as_str()))
        {
            return Some(Intent::about(IntentType::Delete, join(rest)));
        }
    }
    None
}

/// Tails that say a step is not needed ("the sticks aren't needed").
const NOT_NEEDED: [&str; 9] = [
    "isnt needed",
    "is not needed",
    "not needed",
    "arent needed",
    "are not needed",
    "no longer needed",
    "isnt necessary",
    "not necessary",
    "arent necessary",
];

/// "the sticks aren't needed": the step to drop.
pub(super) fn not_needed(ws: &[String], has_goal: &dyn Fn(&[String]) -> bool) -> Option<Intent> {
    let rest = NOT_NEEDED.iter().find_map(|t| before(ws, t))?;
    let rest = strip_lead(rest, &["the", "any", "more"]);
    has_goal(rest).then(|| Intent::about(IntentType::Delete, join(rest)))
}
