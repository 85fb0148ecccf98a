//! The stop rule: a deterministic test, applied before any other interpretation of a
//! line (the parser's and the model's), of whether the person means *halt*. A person who
//! types "stop" and watches the bot keep going will not type to it again, so the rule
//! errs towards stopping: any imperative halt word (stop, halt, freeze, pause, wait,
//! hold on, cancel, enough, "don't do anything", "stop doing X") in any case, with
//! punctuation, politeness, repeated letters, common typos and trailing clauses, is a
//! stop. What is not: a negated halt ("don't stop", "no need to wait"), a halt taken
//! back later in the line ("wait, no, keep going"), a quoted or mentioned one ("what
//! does 'halt' do", "the stop sign"), and a question about stopping ("why did you
//! stop?").
//!
//! A halt followed by a command ("stop that and get planks") is [`Halt::StopThen`]: the
//! bot halts its current work either way, and the command decides what comes next.

mod languages;
mod lexicon;
mod token;

use lexicon::{COMMAND, FILLER, GO_ON, HALT_CLAUSES, MENTION, NEGATION, QUESTION, REQUEST};
use token::{Tok, clauses, keyword, tokens, unquote};

/// What the stop rule says about a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// The line means halt.
    Stop,
    /// A halt followed by a command: the command (a new task, a switch) decides.
    StopThen,
    /// A negated halt, or one taken back: the person wants the bot to go on.
    GoOn,
    /// Halt words only quoted, mentioned or asked about; or none at all.
    None,
}

fn strip_fillers(c: &[String]) -> Vec<String> {
    c.iter().filter(|w| !FILLER.contains(&w.as_str())).cloned().collect()
}

fn has_seq(ws: &[String], seq: &[&str]) -> Option<usize> {
    (0..ws.len()).find(|&i| ws.len() >= i + seq.len() && ws[i..i + seq.len()].iter().zip(seq).all(|(a, b)| a == b))
}

/// What a clause says: `Some(true)` halt, `Some(false)` go on, `None` neither.
fn clause_halt(c: &[String]) -> Option<bool> {
    let core = strip_fillers(c);
    let body: Vec<String> =
        core.iter().skip_while(|w| ["and", "but", "so", "then", "or"].contains(&w.as_str())).cloned().collect();
    if body.is_empty() {
        return None;
    }
    // "para", "warte", "стоп", "等一下": the other languages' halt words.
    if let Some(v) = languages::clause(&body) {
        return Some(v);
    }
    const TAIL: &[&str] = &[
        "yet", "else", "now", "for", "a", "sec", "second", "moment", "minute", "bit", "while", "right", "there",
        "here", "muscle", "more", "no",
    ];
    if HALT_CLAUSES.iter().any(|h| {
        body.len() >= h.len()
            && body.iter().zip(h.iter()).all(|(a, b)| a == b)
            && body[h.len()..].iter().all(|w| TAIL.contains(&w.as_str()))
    }) {
        return Some(true);
    }
    // "would you mind stopping", "try pausing".
    if body.windows(2).any(|p| {
        ["mind", "try", "start", "consider"].contains(&p[0].as_str())
            && ["stopping", "halting", "pausing", "waiting", "freezing"].contains(&p[1].as_str())
    }) {
        return Some(true);
    }
    if GO_ON.iter().any(|g| has_seq(&body, g).is_some()) {
        // "don't stop" is go-on; "never mind, keep going" too.
        return Some(false);
    }
    for (i, w) in body.iter().enumerate() {
        let Some(k) = keyword(w) else { continue };
        let before = &body[..i];
        let after = &body[i + 1..];
        let next = after.first().map(String::as_str);
        // Each keyword's own shape.
        let shape_ok = match k {
            // "hold off on the roof" puts a part off; "hold off" alone halts.
            "hold" => {
                next.is_none_or(|n| ["on", "up", "it", "off", "still", "everything", "that", "tight"].contains(&n))
                    && !(next == Some("off")
                        && after.get(1).is_some_and(|w| ["on", "with", "the"].contains(&w.as_str())))
            }
            "stay" => next.is_none_or(|n| ["put", "there", "still", "here", "where"].contains(&n)),
            "quit" => next.is_none_or(|n| ["it", "that", "this", "now"].contains(&n) || n.ends_with("ing")),
            "cancel" | "abort" => {
                next.is_none_or(|n| {
                    [
                        "it",
                        "that",
                        "this",
                        "everything",
                        "all",
                        "the",
                        "now",
                        "what",
                        "whatever",
                        "current",
                        "your",
                        "order",
                        "task",
                        "plan",
                        "job",
                    ]
                    .contains(&n)
                }) && !(next == Some("the")
                    && after.get(1).is_some_and(|n| !["plan", "task", "job", "order"].contains(&n.as_str())))
            }
            "enough" => {
                let lead_ok = before
                    .iter()
                    .all(|b| ["thats", "that", "is", "its", "ok", "okay", "alright"].contains(&b.as_str()));
                let tail_ok = after.iter().enumerate().all(|(j, a)| {
                    ["already", "for", "today", "of", "that", "this", "now", "then"].contains(&a.as_str())
                        || (j == 0 && a.ends_with("ing"))
                });
                lead_ok && tail_ok
            }
            // An order to the bot ("wait", "no wait", "can you wait"), not someone else
            // waiting ("I'll wait", "the roof can wait").
            "wait" => {
                before.iter().all(|b| {
                    [
                        "no", "nope", "actually", "and", "but", "so", "hey", "oh", "whoa", "wait", "hold", "on", "pls",
                        "dont", "do", "not", "never", "need", "to",
                    ]
                    .contains(&b.as_str())
                }) || before.iter().any(|b| ["you", "u", "please"].contains(&b.as_str()))
            }
            _ => true,
        };
        // "I can't wait to see it": an idiom, not a halt either way.
        if !shape_ok || (k == "wait" && before.last().is_some_and(|b| b == "cant")) {
            continue;
        }
        // Mentioned, not used: "the stop sign", "what does stop mean", "a bus stop".
        if next.is_some_and(|n| MENTION.contains(&n))
            || before.last().is_some_and(|b| ["bus", "pit", "full", "the", "a"].contains(&b.as_str()))
        {
            continue;
        }
        // Negated: "don't stop", "no need to wait", "never pause"; but "why won't you
        // stop", "you didn't stop" (a complaint: halt).
        let window: Vec<&str> = before.iter().rev().take(4).map(String::as_str).collect();
        let negated = window.iter().any(|b| NEGATION.contains(b))
            || window.windows(2).any(|p| ["need", "reason", "point"].contains(&p[0]) && p[1] == "no");
        // "you didn't stop!", "why won't you stop": the person wanted a halt.
        let complaint =
            window.iter().any(|b| ["didnt", "wont", "arent", "havent"].contains(b)) && window.contains(&"you");
        if negated && !complaint {
            return Some(false);
        }
        // Asked about, not ordered: "why did you stop", "did it stop".
        let request = before.iter().any(|b| REQUEST.contains(&b.as_str()));
        // "is it going to stop?": "is"/"are" ask only when they open the clause ("this
        // is wrong stop" is a halt).
        let question = before.iter().any(|b| QUESTION.contains(&b.as_str()))
            || (k != "enough" && before.first().is_some_and(|b| b == "is" || b == "are"));
        // "how do I stop you": asked, but about halting the bot now.
        let object = next.is_some_and(|n| ["you", "it", "this", "him", "that"].contains(&n));
        if question && !request && !complaint && !object {
            continue;
        }
        return Some(true);
    }
    None
}

/// Whether a clause is a command of its own (after a halt).
fn clause_command(c: &[String]) -> bool {
    let core = strip_fillers(c);
    let body: Vec<&str> = core
        .iter()
        .map(String::as_str)
        .skip_while(|w| ["and", "but", "so", "then", "or", "instead", "rather", "first"].contains(w))
        .collect();
    const WANT: [&[&str]; 7] = [
        &["i", "want"],
        &["i", "need"],
        &["we", "need"],
        &["id", "like"],
        &["i", "would", "like"],
        &["lets"],
        &["can", "you"],
    ];
    let wants = WANT.iter().any(|w| body.len() > w.len() && body.iter().zip(w.iter()).all(|(a, b)| a == b));
    body.len() >= 2 && (COMMAND.contains(&body[0]) || wants) && clause_halt(c).is_none()
}

/// The stop rule. See the module docs.
pub fn halt(text: &str) -> Halt {
    let (plain, quoted) = unquote(text);
    let toks = tokens(&plain);
    let cl = clauses(&toks);
    // "I said 'stop'": the speaker quoting their own order.
    if quoted && halt_words_in_quotes(text) {
        let said = cl.iter().any(|c| {
            has_seq(c, &["i", "said", "quoted"]).is_some() || has_seq(c, &["i", "told", "you", "quoted"]).is_some()
        });
        if said {
            return Halt::Stop;
        }
    }
    let mut last: Option<(usize, bool)> = None;
    for (i, c) in cl.iter().enumerate() {
        if let Some(h) = clause_halt(c) {
            last = Some((i, h));
        }
    }
    match last {
        None => Halt::None,
        Some((_, false)) => Halt::GoOn,
        Some((i, true)) => {
            // "stop what you're doing and mine wood": a new order after the halt.
            let first_halt = cl.iter().position(|c| clause_halt(c) == Some(true)).unwrap_or(i);
            if cl[first_halt + 1..].iter().any(|c| clause_command(c)) || halt_then_inline(&cl[first_halt]) {
                Halt::StopThen
            } else {
                Halt::Stop
            }
        }
    }
}

/// "stop what you're doing and X" inside one clause, or "forget it, X".
fn halt_then_inline(c: &[String]) -> bool {
    let core = strip_fillers(c);
    ["what", "whatever"].iter().any(|w| {
        has_seq(&core, &[w, "youre", "doing"])
            .is_some_and(|i| core.len() > i + 3 && COMMAND.contains(&core[i + 3].as_str()))
    })
}

fn halt_words_in_quotes(text: &str) -> bool {
    let toks = tokens(text);
    toks.iter().any(|t| matches!(t, Tok::Word(w) if keyword(w).is_some()))
}

/// Every word of the stop rule's lists (what the chat reader corrects typos towards).
pub fn lexicon_phrases() -> impl Iterator<Item = &'static str> {
    let flat = [REQUEST, QUESTION, NEGATION, MENTION, FILLER, COMMAND].into_iter().flatten().copied();
    let seqs = GO_ON.iter().chain(HALT_CLAUSES.iter()).flat_map(|s| s.iter().copied());
    flat.chain(seqs).chain(token::KEYS.iter().copied())
}

/// Whether a word is a halt, go-on or negation word of one of the other languages.
pub fn foreign_word(w: &str) -> bool {
    let w = languages::fold(w);
    languages::LANGUAGES.iter().any(|l| {
        l.halt.contains(&w.as_str())
            || l.halt_opening.contains(&w.as_str())
            || l.go_on.contains(&w.as_str())
            || l.negation.contains(&w.as_str())
    })
}

/// Whether the line is a halt (plain or followed by a command).
pub fn is_halt(text: &str) -> bool {
    matches!(halt(text), Halt::Stop | Halt::StopThen)
}

#[cfg(test)]
mod tests;
