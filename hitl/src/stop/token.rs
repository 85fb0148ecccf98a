//! A line into words and clauses for the stop rule: quoted spans set aside, repeated
//! letters squeezed, spelled letters joined, typos of the halt words mapped.

use super::lexicon::TYPOS;

/// One token: a word (lower-case, apostrophes dropped) or a clause break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Word(String),
    Break,
}

/// Quote characters that open and close a quoted span.
pub(super) const QUOTES: &[(char, char)] =
    &[('"', '"'), ('\u{201c}', '\u{201d}'), ('`', '`'), ('\u{ab}', '\u{bb}'), ('\'', '\'')];

/// Replaces quoted spans by the word `quoted`. A `'` counts as a quote only at a word
/// boundary ("'stop'"), not inside a word ("don't").
pub(super) fn unquote(text: &str) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut any = false;
    while i < chars.len() {
        let c = chars[i];
        let open = QUOTES.iter().find(|(o, _)| *o == c).map(|(_, cl)| *cl);
        let boundary_before = i == 0 || !chars[i - 1].is_alphanumeric();
        if let Some(close) = open.filter(|_| c != '\'' || boundary_before) {
            let end = (i + 1..chars.len()).find(|&j| {
                chars[j] == close && (close != '\'' || chars.get(j + 1).is_none_or(|n| !n.is_alphanumeric()))
            });
            if let Some(j) = end.filter(|j| *j > i + 1) {
                out.push_str(" quoted ");
                any = true;
                i = j + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    (out, any)
}

pub(super) fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if c == '\'' || c == '\u{2019}' {
            // "don't" -> "dont"
        } else {
            if !cur.is_empty() {
                out.push(Tok::Word(std::mem::take(&mut cur)));
            }
            if matches!(c, ',' | ';' | '.' | '!' | '?' | ':' | '\u{2026}' | '\u{2014}' | '\u{2013}' | '(' | ')' | '\n')
                || matches!(c, '\u{3001}' | '\u{3002}' | '\u{ff01}' | '\u{ff0c}' | '\u{ff1f}')
            {
                out.push(Tok::Break);
            }
        }
    }
    if !cur.is_empty() {
        out.push(Tok::Word(cur));
    }
    // "S.T.O.P", "s t o p": three or more single letters in a row are one word.
    let mut joined: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < out.len() {
        let mut j = i;
        let mut letters = String::new();
        while j < out.len() {
            match &out[j] {
                Tok::Word(w) if w.chars().count() == 1 && w.chars().all(char::is_alphabetic) => {
                    letters.push_str(w);
                    j += 1;
                    if matches!(out.get(j), Some(Tok::Break))
                        && matches!(out.get(j + 1), Some(Tok::Word(n)) if n.chars().count() == 1)
                    {
                        j += 1;
                    }
                }
                _ => break,
            }
        }
        if letters.chars().count() >= 3 {
            joined.push(Tok::Word(letters));
            i = j;
        } else {
            joined.push(out[i].clone());
            i += 1;
        }
    }
    joined
}

/// Clauses: split at punctuation and at the conjunctions that start a new command.
pub(super) fn clauses(toks: &[Tok]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for t in toks {
        match t {
            Tok::Break => out.push(Vec::new()),
            Tok::Word(w)
                if ["and", "but", "then", "so", "or", "plus", "because", "cause", "cuz"].contains(&w.as_str()) =>
            {
                out.push(vec![w.clone()]);
            }
            Tok::Word(w) => {
                if let Some(last) = out.last_mut() {
                    last.push(w.clone());
                }
            }
        }
    }
    out.retain(|c| !c.is_empty());
    // "Don't. Move." is one clause.
    let mut merged: Vec<Vec<String>> = Vec::new();
    for c in out {
        match merged.last_mut() {
            Some(prev) if prev == &["dont"] || prev == &["do", "not"] => prev.extend(c),
            _ => merged.push(c),
        }
    }
    merged
}

/// Runs of a repeated letter collapsed ("stoooop" -> "stop", "freeze" -> "freze").
pub(super) fn squeeze(w: &str) -> String {
    let mut out = String::new();
    for c in w.chars() {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

/// The halt keywords.
pub(super) const KEYS: &[&str] = &[
    "stop",
    "halt",
    "freeze",
    "pause",
    "wait",
    "cancel",
    "abort",
    "cease",
    "quit",
    "enough",
    "hold",
    "stay",
    "whoa",
    "desist",
    "nevermind",
    "nvm",
];

/// A word's halt keyword, after squeezing and the typo list.
pub(super) fn keyword(w: &str) -> Option<&'static str> {
    let s = squeeze(w);
    if let Some(k) = KEYS.iter().find(|k| squeeze(k) == s) {
        return Some(k);
    }
    if ["woah", "whoah", "wo"].contains(&s.as_str()) {
        return Some("whoa");
    }
    if let Some((_, k)) = TYPOS.iter().find(|(t, _)| squeeze(t) == s) {
        return Some(k);
    }
    // One edit from "stop"/"cancel"/"freeze" on a word of 4+ letters that is not an
    // everyday word.
    const NEAR_STOP: &[&str] = &[
        "step", "stomp", "stoop", "atop", "shop", "slop", "stow", "top", "spot", "soup", "strop", "stops", "post",
        "opts", "stock", "store",
    ];
    if s.len() >= 4 && !NEAR_STOP.contains(&w) && !NEAR_STOP.contains(&s.as_str()) {
        for k in ["stop", "cancel", "freeze"] {
            if strsim::damerau_levenshtein(&s, k) == 1 && s.starts_with(&k[..1]) {
                return Some(k);
            }
        }
    }
    None
}
