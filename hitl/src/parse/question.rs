//! Whether a sentence asks rather than orders (a question is chat, answered from the
//! bot's state, and changes nothing).

use super::lexicon::{DELETE_LEADS, SWITCH_TAILS, TASK_LEADS};
use super::strip_fillers;
use crate::words::words;

/// Words that open a question.
const QUESTION_LEADS: [&str; 22] = [
    "what", "whats", "where", "wheres", "why", "whys", "how", "hows", "when", "which", "who", "whose", "is", "are",
    "do", "does", "did", "have", "has", "am", "was", "were",
];

/// Whether a sentence asks rather than orders: it opens with a question word ("what
/// are you doing", "do you have planks", "is the roof done"), or ends with `?` and is
/// not a request ("can you get planks?", "the roof first?").
pub fn is_question(sentence: &str) -> bool {
    let ws = words(sentence);
    let ws = strip_fillers(&ws);
    let Some(first) = ws.first().map(String::as_str) else { return false };
    let second = ws.get(1).map(String::as_str);
    // "can you / could you / would you / will you X": a polite order.
    let request = ["can", "could", "would", "will", "wanna", "mind"].contains(&first)
        && second.is_some_and(|s| ["you", "u", "ya"].contains(&s))
        && ws.get(2).is_some_and(|v| !["tell", "see", "hear", "explain", "say", "show"].contains(&v.as_str()));
    if request {
        return false;
    }
    // "do the roof first", "have a look": orders that open with a question word.
    if ["do", "have"].contains(&first) && !second.is_some_and(|s| ["you", "u", "we", "i", "they", "it"].contains(&s)) {
        return false;
    }
    // "how about the roof", "what about the door": a suggestion, not a question.
    if ["how", "what"].contains(&first) && second == Some("about") {
        return false;
    }
    let asks = sentence.trim_end().ends_with('?');
    // "what/where/why/how/who/which ...": a question; "is it done", "do you have":
    // a question when a subject follows; "when you're done, get a bucket": a condition.
    const WH: [&str; 10] = ["what", "whats", "where", "wheres", "why", "whys", "how", "hows", "which", "who"];
    const SUBJECT: [&str; 10] = ["you", "u", "it", "the", "there", "that", "this", "we", "i", "your"];
    if WH.contains(&first)
        || (QUESTION_LEADS.contains(&first) && (asks || second.is_some_and(|s| SUBJECT.contains(&s))))
    {
        return first != "when" || asks;
    }
    // "the roof first?", "skip the glass?": a tentative order.
    asks && ws.len() >= 2
        && !ws.iter().any(|w| SWITCH_TAILS.contains(&w.as_str()) || DELETE_LEADS.contains(&w.as_str()))
        && !TASK_LEADS.contains(&first)
}
