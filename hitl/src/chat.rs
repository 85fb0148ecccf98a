//! Game chat as players type it, read into the words the rest of the partner knows,
//! before any classifier sees the line: slang and abbreviations spelled out ("u" ->
//! "you", "pls" -> "please", "nvm" -> "never mind", "when ur done" -> "when youre
//! done"), and typos of the words the partner understands corrected by edit distance
//! ("crafitng tabel" -> "crafting table", "plnks" -> "planks").
//!
//! A word is corrected only when it is not a word the partner or everyday English
//! knows, is at least four letters long, keeps its first letter (or swaps the first
//! two), and exactly one lexicon word is nearest: one edit for words up to six
//! letters, two from seven. Anything else is left as typed: a wrong correction would
//! put words in the person's mouth, an uncorrected typo only makes the parser unsure
//! (it then asks). Reading is idempotent (what it writes it reads unchanged), so a
//! line may pass through it twice.
//!
//! Punctuation, case of untouched words and words in other scripts are kept: the stop
//! rule reads them.

mod english;
mod slang;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use crate::words::{Vocabulary, singular};

/// A line as the partner reads it, and what was changed in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The line with slang spelled out and typos corrected.
    pub text: String,
    /// Each change, left to right.
    pub fixes: Vec<Fix>,
}

/// One word the reader changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// The word as typed (lower-case, apostrophes dropped).
    pub typed: String,
    /// What it was read as (may be several words, or none).
    pub read: String,
    /// Why.
    pub kind: FixKind,
}

/// Why a word was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixKind {
    /// An abbreviation or chat slang.
    Slang,
    /// A typo of a lexicon word.
    Typo,
}

/// A piece of a line: a word (letters, digits, apostrophes) or what separates words.
#[derive(Debug)]
enum Piece<'a> {
    Word(&'a str),
    Sep(&'a str),
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_word = None;
    for (i, c) in text.char_indices() {
        let w = c.is_alphanumeric() || ((c == '\'' || c == '\u{2019}') && in_word == Some(true));
        match in_word {
            Some(prev) if prev != w => {
                out.push(if prev { Piece::Word(&text[start..i]) } else { Piece::Sep(&text[start..i]) });
                start = i;
            }
            _ => {}
        }
        in_word = Some(w);
    }
    if let Some(prev) = in_word {
        out.push(if prev { Piece::Word(&text[start..]) } else { Piece::Sep(&text[start..]) });
    }
    out
}

/// The lower-case key of a word, apostrophes dropped (as [`crate::words::words`]).
fn key(w: &str) -> String {
    w.chars().filter(|c| *c != '\'' && *c != '\u{2019}').flat_map(char::to_lowercase).collect()
}

/// Reads one line. See the module docs.
pub fn read(text: &str, vocab: &Vocabulary) -> Reading {
    let ps = pieces(text);
    let keys: Vec<Option<String>> =
        ps.iter().map(|p| if let Piece::Word(w) = p { Some(key(w)) } else { None }).collect();
    let word_at: Vec<usize> = (0..ps.len()).filter(|&i| keys[i].is_some()).collect();
    let mut out = String::new();
    let mut fixes = Vec::new();
    for (i, p) in ps.iter().enumerate() {
        match p {
            Piece::Sep(s) => out.push_str(s),
            Piece::Word(w) => {
                let k = keys[i].clone().unwrap_or_default();
                let pos = word_at.iter().position(|&j| j == i).unwrap_or(0);
                let next = word_at.get(pos + 1).and_then(|&j| keys[j].as_deref());
                let prev = pos.checked_sub(1).and_then(|q| word_at.get(q)).and_then(|&j| keys[j].as_deref());
                let ctx = slang::Around { prev, next, first: pos == 0, only: word_at.len() == 1 };
                if let Some(r) = slang::expand(&k, &ctx) {
                    fixes.push(Fix { typed: k.clone(), read: r.to_owned(), kind: FixKind::Slang });
                    out.push_str(r);
                } else if let Some(r) = correct(&k, vocab) {
                    fixes.push(Fix { typed: k.clone(), read: r.clone(), kind: FixKind::Typo });
                    out.push_str(&r);
                } else {
                    out.push_str(w);
                }
            }
        }
    }
    Reading { text: out, fixes }
}

/// The words the partner acts on, typos are corrected towards: the parser's and the
/// stop rule's lexicons, the names of parts, and (from the vocabulary) every word of
/// an item's name or synonym.
fn lexicon() -> &'static BTreeSet<&'static str> {
    static LEX: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    LEX.get_or_init(|| {
        let mut s: BTreeSet<&'static str> = BTreeSet::new();
        for phrase in crate::parse::lexicon_phrases().chain(crate::stop::lexicon_phrases()) {
            s.extend(phrase.split(' '));
        }
        for f in crate::parts::Function::ALL {
            s.extend(f.words().iter().copied());
            s.extend(f.name().split(' '));
        }
        s.extend(crate::parts::LAYER_WORDS);
        s.extend(english::PART_WORDS);
        s
    })
}

/// Whether a word is one the reader leaves alone: a lexicon, item or everyday word,
/// an inflection of one, or a halt or go-on word of another language ("para" is not a
/// typo of "part").
fn known(w: &str, vocab: &Vocabulary) -> bool {
    let stems = [
        Some(w.to_owned()),
        Some(singular(w)),
        w.strip_suffix("ing").map(str::to_owned),
        w.strip_suffix("ing").map(|s| format!("{s}e")),
        w.strip_suffix("ed").map(str::to_owned),
        w.strip_suffix('d').map(str::to_owned),
        w.strip_suffix("ly").map(str::to_owned),
        w.strip_suffix("er").map(str::to_owned),
        w.strip_suffix("s").map(str::to_owned),
    ];
    crate::stop::foreign_word(w)
        || stems
            .iter()
            .flatten()
            .any(|s| lexicon().contains(s.as_str()) || english::WORDS.contains(&s.as_str()) || vocab.knows_word(s))
}

/// The correction of a typo, if exactly one lexicon word is nearest.
fn correct(w: &str, vocab: &Vocabulary) -> Option<String> {
    let n = w.chars().count();
    if n < 4 || !w.chars().all(|c| c.is_ascii_lowercase()) || known(w, vocab) {
        return None;
    }
    // A plural is matched as typed and by its singular (written back with its ending).
    let max = if n >= 7 { 2 } else { 1 };
    let stem = singular(w);
    let first: Vec<char> = w.chars().take(2).collect();
    let lex = lexicon().iter().copied().filter(|w| w.len() >= 4);
    let items = vocab.words().iter().map(String::as_str);
    // (edits, similarity, typed as a plural, candidate): fewest edits first, then the
    // most similar (Jaro-Winkler); as typed before the singular on a tie.
    let mut scored: Vec<(usize, f64, bool, &str)> = Vec::new();
    for cand in lex.chain(items) {
        let c: Vec<char> = cand.chars().take(2).collect();
        let starts =
            c.first() == first.first() || (c.len() == 2 && first.len() == 2 && c[0] == first[1] && c[1] == first[0]);
        if cand.len() < 3 || !starts {
            continue;
        }
        let forms = [(w, false), (stem.as_str(), stem != w)];
        let best = forms
            .iter()
            .filter(|(f, plural)| !*plural || *f != w)
            .map(|(f, plural)| (strsim::damerau_levenshtein(f, cand), strsim::jaro_winkler(f, cand), *plural))
            .min_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)).then(x.2.cmp(&y.2)));
        if let Some((d, jw, plural)) = best.filter(|b| b.0 <= max && b.0 > 0) {
            scored.push((d, jw, plural, cand));
        }
    }
    scored.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)).then(x.3.cmp(y.3)));
    scored.dedup_by(|a, b| a.3 == b.3);
    let (d, jw, plural, cand) = *scored.first()?;
    // Two words as near and about as similar: which was meant is not known.
    if scored.get(1).is_some_and(|s| s.0 == d && jw - s.1 < SIMILAR) {
        return None;
    }
    Some(if plural { plural_of(cand, w, &stem) } else { cand.to_owned() })
}

/// How much more similar (Jaro-Winkler) the nearest word must be than the next one as
/// near for a typo to be read as it: a tenth of the scale's width between a word and
/// its one-letter slip (about 0.95) and an unrelated neighbour (about 0.75).
const SIMILAR: f64 = 0.02;

/// `b` with the plural ending `typed` had over its singular `stem`.
fn plural_of(b: &str, typed: &str, stem: &str) -> String {
    match (typed.strip_suffix("ies"), b.strip_suffix('y')) {
        _ if b.ends_with('s') => b.to_owned(),
        (Some(_), Some(base)) => format!("{base}ies"),
        _ => format!("{b}{}", typed.get(stem.len()..).unwrap_or("s")),
    }
}

#[cfg(test)]
mod tests;
