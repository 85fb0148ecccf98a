//! The deterministic parser: explicit phrasings to intents, used when no model is
//! configured and whenever the model's answer is unusable. It recognises the shapes
//! players use (paper 000's examples and the everyday variants): "switch to X", "X
//! first", "don't collect X, get Y", "skip X", "I'll get X", "X is in the chest at
//! x y z", "also get X", "stop", "stop what you're doing and X", and a bare goal ("get
//! 10 oak logs"). Everything else is chat. Node names stay words here; they are
//! resolved against the live plan afterwards.

mod indirect;
mod lexicon;
mod parts;
mod question;

use lexicon::{
    ADD_LEADS, ADD_TAILS, DELETE_LEADS, FILLERS, NEGATIONS, NEW_TASK, POSITIVE_VERBS, RESUME, STOPS, SWITCH_LEADS,
    SWITCH_TAILS, TASK_LEADS,
};
pub use question::is_question;

use crate::goal::read_goal_checked;
use crate::intent::{Intent, IntentType};
use crate::stop::{Halt, halt};
use crate::words::{Vocabulary, coords, words};

/// Every phrase of the parser's word lists (what the chat reader corrects typos
/// towards).
pub fn lexicon_phrases() -> impl Iterator<Item = &'static str> {
    let lists: [&'static [&'static str]; 12] = [
        &FILLERS,
        &STOPS,
        &NEW_TASK,
        &RESUME,
        &SWITCH_LEADS,
        &SWITCH_TAILS,
        &DELETE_LEADS,
        &ADD_LEADS,
        &ADD_TAILS,
        &TASK_LEADS,
        &NEGATIONS,
        &POSITIVE_VERBS,
    ];
    lists.into_iter().flatten().copied()
}

/// Words a line leads with, joined: `Some(rest)` when `ws` starts with `lead`.
fn after<'a>(ws: &'a [String], lead: &str) -> Option<&'a [String]> {
    let lw: Vec<&str> = lead.split(' ').collect();
    (ws.len() >= lw.len() && ws.iter().zip(&lw).all(|(a, b)| a == b)).then(|| &ws[lw.len()..])
}

fn before<'a>(ws: &'a [String], tail: &str) -> Option<&'a [String]> {
    let tw: Vec<&str> = tail.split(' ').collect();
    (ws.len() > tw.len() && ws[ws.len() - tw.len()..].iter().zip(&tw).all(|(a, b)| a == b))
        .then(|| &ws[..ws.len() - tw.len()])
}

fn join(ws: &[String]) -> String {
    ws.join(" ")
}

fn strip_lead<'a>(mut ws: &'a [String], leads: &[&str]) -> &'a [String] {
    while let Some(rest) = leads.iter().find_map(|l| after(ws, l)) {
        if rest.len() == ws.len() {
            break;
        }
        ws = rest;
    }
    ws
}

fn strip_fillers(ws: &[String]) -> &[String] {
    let mut ws = ws;
    while let Some(first) = ws.first() {
        if FILLERS.contains(&first.as_str()) && ws.len() > 1 {
            ws = &ws[1..];
        } else {
            break;
        }
    }
    while let Some(last) = ws.last() {
        if ["please", "pls", "thanks", "thx"].contains(&last.as_str()) && ws.len() > 1 {
            ws = &ws[..ws.len() - 1];
        } else {
            break;
        }
    }
    ws
}

/// Classifies one (possibly merged) line. `asked` is whether the bot has a clarifying
/// question open: then a short line that is not a command is its answer.
///
/// The stop rule ([`crate::stop::halt`]) comes first: a halt is a stop whatever else
/// the line says; a halt followed by an order is that order (a new task, a switch), or
/// a stop when the order is not understood; a negated halt ("don't stop") is never a
/// stop.
pub fn parse(text: &str, vocab: &Vocabulary, asked: bool) -> Intent {
    let h = halt(text);
    if h == Halt::Stop {
        return Intent::bare(IntentType::Stop);
    }
    let i = parse_rest(text, vocab, asked);
    match h {
        Halt::StopThen if matches!(i.kind, IntentType::Chat | IntentType::Answer) => Intent::bare(IntentType::Stop),
        Halt::GoOn if matches!(i.kind, IntentType::Stop | IntentType::Chat) => Intent::bare(IntentType::Switch),
        _ => i,
    }
}

fn parse_rest(text: &str, vocab: &Vocabulary, asked: bool) -> Intent {
    // Questions are chat, answered from what the bot knows; a line that asks and also
    // orders ("what are you doing? get the planks") is its order.
    let sentences = sentences(text);
    if sentences.iter().any(|s| is_question(s)) {
        let orders: Vec<&str> = sentences.iter().filter(|s| !is_question(s)).map(String::as_str).collect();
        let rest = orders.join(". ");
        if words(&rest).iter().all(|w| FILLERS.contains(&w.as_str()) || w == "thanks") {
            return Intent::bare(IntentType::Chat);
        }
        return parse_plain(&rest, vocab, asked);
    }
    parse_plain(text, vocab, asked)
}

/// A line cut at `.`, `!`, `?` and `;` (the mark kept, so a question shows).
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if matches!(c, '.' | '!' | '?' | ';') {
            if !cur.trim().trim_matches(|c: char| !c.is_alphanumeric()).is_empty() {
                out.push(std::mem::take(&mut cur));
            } else if let Some(last) = out.last_mut() {
                last.push(c);
                cur.clear();
            }
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn parse_plain(text: &str, vocab: &Vocabulary, asked: bool) -> Intent {
    // "I have planks, skip them": a pronoun stands for what the line named before it.
    let text = &unpronoun(text);
    let all = words(text);
    let ws = strip_fillers(&all);
    let line = join(ws);
    let has_goal = |w: &[String]| read_goal_checked(&join(w), vocab).is_some() || crate::parts::mentions_part(&join(w));
    if ws.is_empty() || all.iter().all(|w| FILLERS.contains(&w.as_str())) {
        return Intent::bare(IntentType::Chat);
    }
    // A merged burst ("hi" "mine wood" "10 pieces") may carry the greeting mid-line.
    let task_anywhere = || -> Option<Intent> {
        (0..ws.len()).find_map(|i| {
            let tail = &ws[i..];
            TASK_LEADS.iter().find_map(|l| after(tail, l)).filter(|r| has_goal(r)).map(|_| {
                let rest = strip_lead(tail, &TASK_LEADS);
                Intent::about(IntentType::NewTask, join(rest))
            })
        })
    };
    if asked && !is_command(ws) {
        return Intent::about(IntentType::Answer, line);
    }
    // "can you also get wool", "could you skip the planks": the order inside.
    if let Some(rest) = indirect::REQUESTS.iter().find_map(|l| after(ws, l)).filter(|r| !r.is_empty()) {
        let inner = parse_plain(&join(rest), vocab, asked);
        if !matches!(inner.kind, IntentType::Chat | IntentType::NewTask) {
            return inner;
        }
    }
    // "make a chest when you're done": added after the plan, never instead of it.
    if let Some(i) = indirect::added_when_done(ws, &has_goal) {
        return i;
    }
    // 0. "forget the house, make me a bed": dropping the plan's goal for a new one.
    if let Some((first, rest)) = text.split_once([',', ';', '.']) {
        let fw = words(first);
        let fw = strip_fillers(&fw);
        let drops = ["forget", "never mind", "scrap", "ditch", "drop", "nevermind", "screw", "skip"];
        if drops.iter().any(|d| after(fw, d).is_some_and(|r| !r.is_empty())) {
            let rw = words(rest);
            let rw = strip_fillers(&rw);
            let rw = strip_lead(rw, &["and", "then", "just", "instead", "i", "actually"]);
            if TASK_LEADS.iter().any(|l| after(rw, l).is_some_and(&has_goal)) {
                let goal = strip_lead(rw, &TASK_LEADS);
                return Intent::about(IntentType::NewTask, join(goal));
            }
        }
    }
    // 1. New task after an explicit break with the plan.
    for lead in NEW_TASK {
        if let Some(rest) = after(ws, lead) {
            let rest = strip_lead(rest, &["and", "then", "just", "instead"]);
            let rest = strip_lead(rest, &TASK_LEADS);
            if !rest.is_empty() && has_goal(rest) {
                return Intent::about(IntentType::NewTask, join(rest));
            }
            if rest.is_empty() {
                return Intent::bare(IntentType::Stop);
            }
        }
    }
    // 2. Stop.
    if STOPS.contains(&line.as_str()) {
        return Intent::bare(IntentType::Stop);
    }
    // 3. Resume: switch back to the plan's root.
    if RESUME.contains(&line.as_str()) {
        return Intent::bare(IntentType::Switch);
    }
    // 4. "don't collect wool, get planks first": a switch to the second clause.
    if let Some(neg) = NEGATIONS.iter().find_map(|n| after(ws, n)) {
        if let Some(j) = (1..neg.len()).find(|&j| {
            POSITIVE_VERBS.contains(&neg[j].as_str())
                || (["and", "but", "instead"].contains(&neg[j].as_str()) && j + 1 < neg.len())
        }) {
            let second = strip_lead(&neg[j..], &["and", "but", "instead", "just"]);
            let second = SWITCH_TAILS.iter().find_map(|t| before(second, t)).unwrap_or(second);
            if !second.is_empty() {
                return Intent::about(IntentType::Switch, join(second));
            }
        }
    }
    // 4b. The parts of a build: left out, put off, brought back.
    if let Some(i) = parts::part_intent(ws, vocab) {
        return i;
    }
    // 4c. What the person does or has: "I'll do the roof myself", "leave the planks, I
    // have some"; what is not needed: "the sticks aren't needed".
    if let Some(i) = indirect::person_does(text, ws, &has_goal).or_else(|| indirect::not_needed(ws, &has_goal)) {
        return i;
    }
    // 5. Knowledge: "the wool is in the chest at 3 0 5".
    let place_words = ["chest", "barrel", "box", "storage", "ground", "floor", "lying"];
    if (coords(ws).is_some() || ws.iter().any(|w| place_words.contains(&w.as_str())))
        && !vocab.items_in(ws).is_empty()
        && ws.iter().any(|w| ["in", "at", "from", "inside", "on"].contains(&w.as_str()))
        && !TASK_LEADS.iter().any(|l| after(ws, l).is_some() && !["get", "take", "fetch"].contains(l))
    {
        return Intent::about(IntentType::Add, line);
    }
    // 6. Switch.
    for lead in SWITCH_LEADS {
        if let Some(rest) = after(ws, lead) {
            if !rest.is_empty() {
                let rest = SWITCH_TAILS.iter().find_map(|t| before(rest, t)).unwrap_or(rest);
                return Intent::about(IntentType::Switch, join(rest));
            }
        }
    }
    for tail in SWITCH_TAILS {
        if let Some(rest) = before(ws, tail) {
            return Intent::about(IntentType::Switch, join(rest));
        }
    }
    // 7. Delete.
    for lead in DELETE_LEADS {
        if let Some(rest) = after(ws, lead) {
            let rest = strip_lead(rest, &["to", "any", "more"]);
            // "I don't want you to stop" is no step dropped: these leads need a goal.
            let wants_goal = [
                "i dont need",
                "dont need",
                "i dont want",
                "we dont want",
                "you dont have to",
                "we dont have to",
                "dont have to",
            ]
            .contains(&lead);
            if !rest.is_empty() && (!wants_goal || has_goal(rest)) {
                let rest = before(rest, "myself").unwrap_or(rest);
                return Intent::about(IntentType::Delete, join(rest));
            }
        }
    }
    if let Some(rest) = after(ws, "no") {
        if !rest.is_empty() && has_goal(rest) {
            return Intent::about(IntentType::Delete, join(rest));
        }
    }
    // 8. Add: a goal with "also", "then", "too".
    let add_body = ADD_LEADS
        .iter()
        .find_map(|l| after(ws, l))
        .filter(|r| !r.is_empty())
        .or_else(|| ADD_TAILS.iter().find_map(|t| before(ws, t)));
    if let Some(body) = add_body {
        let body = strip_lead(body, &["and", "also", "then", "please"]);
        let body = strip_lead(body, &TASK_LEADS);
        if has_goal(body) {
            let (node, parent) = split_parent(body);
            let mut i = Intent::about(IntentType::Add, join(node));
            i.parent = parent.map(join);
            return i;
        }
    }
    // "get string for the wool": a sub-goal for a named node.
    if let Some(rest) = TASK_LEADS.iter().find_map(|l| after(ws, l)) {
        let (node, parent) = split_parent(rest);
        if let Some(p) = parent {
            if has_goal(node) && !p.is_empty() {
                let mut i = Intent::about(IntentType::Add, join(strip_lead(node, &TASK_LEADS)));
                i.parent = Some(join(p));
                return i;
            }
        }
    }
    // 9. A bare goal is a new task.
    if let Some(i) = task_anywhere() {
        return i;
    }
    if has_goal(ws) && vocab.items_in(ws).len() == 1 && ws.len() <= 4 && crate::words::count(ws, None).is_some() {
        return Intent::about(IntentType::NewTask, line);
    }
    unsure(ws, &has_goal)
}

/// The words of a line that name what it is about, quoted ("\"the planks\"").
pub fn goal_words(text: &str) -> String {
    let all = words(text);
    format!("\"{}\"", join(strip_fillers(&all)))
}

/// What no rule read: chat, or, when the line names a goal or part and reads as no
/// statement ("the planks", "wool pls", "more sticks"), chat the bot is unsure of: it
/// asks what the person meant instead of acting or guessing.
fn unsure(ws: &[String], has_goal: &dyn Fn(&[String]) -> bool) -> Intent {
    const STATEMENT: [&str; 22] = [
        "is", "are", "was", "were", "im", "i", "my", "its", "thats", "looks", "look", "nice", "cool", "good", "great",
        "love", "like", "thanks", "thank", "hi", "hello", "wow",
    ];
    let named = has_goal(ws);
    if named && !ws.iter().any(|w| STATEMENT.contains(&w.as_str())) {
        return Intent { unsure: true, ..Intent::bare(IntentType::Chat) };
    }
    Intent::bare(IntentType::Chat)
}

/// Replaces "skip them" / "drop it" in a later clause by the noun the earlier clause
/// named ("I have planks, skip them" -> "skip planks").
fn unpronoun(text: &str) -> String {
    const PRONOUNS: [&str; 6] = ["it", "them", "those", "that", "this", "these"];
    let Some((first, rest)) = text.split_once(',') else { return text.to_owned() };
    let rest_ws = words(rest);
    let Some(last) = rest_ws.last() else { return text.to_owned() };
    if !PRONOUNS.contains(&last.as_str()) || rest_ws.len() < 2 {
        return text.to_owned();
    }
    let lead = &rest_ws[..rest_ws.len() - 1];
    let is_order = DELETE_LEADS.iter().chain(SWITCH_LEADS.iter()).any(|l| join(lead) == *l);
    let noun: Vec<String> = words(first)
        .into_iter()
        .skip_while(|w| {
            ["i", "we", "have", "got", "already", "ive", "weve", "there", "are", "is", "some", "the", "my"]
                .contains(&w.as_str())
        })
        .collect();
    if !is_order || noun.is_empty() {
        return text.to_owned();
    }
    format!("{} {}", join(lead), join(&noun))
}

/// "X for the Y" / "X to the Y" / "X under Y": the goal and its parent's words.
fn split_parent(ws: &[String]) -> (&[String], Option<&[String]>) {
    for (i, w) in ws.iter().enumerate() {
        if ["for", "to", "under", "into"].contains(&w.as_str()) && i > 0 && i + 1 < ws.len() {
            let p = strip_lead(&ws[i + 1..], &["the", "a", "my", "your"]);
            return (&ws[..i], Some(p));
        }
    }
    (ws, None)
}

/// Whether words look like a command rather than an answer to a question.
fn is_command(ws: &[String]) -> bool {
    let line = join(ws);
    STOPS.contains(&line.as_str())
        || RESUME.contains(&line.as_str())
        || NEW_TASK.iter().any(|l| after(ws, l).is_some())
        || DELETE_LEADS.iter().any(|l| after(ws, l).is_some_and(|r| !r.is_empty()))
        || ["switch", "add", "also"].iter().any(|l| after(ws, l).is_some())
        || coords(ws).is_some()
}
