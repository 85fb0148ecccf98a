//! Words to items, counts and coordinates: the vocabulary behind the deterministic
//! parser, node resolution and the recipe planner's tie-breaks. The everyday words
//! ("wood", "planks", "bed") are data, in `configs/hitl/vocabulary.toml`, embedded at
//! build time and checked against the game data when loaded.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{Count, CountError, ItemId, Pos};
use gatecrew_world::{BlockId, GameData};
use serde::Deserialize;

/// The vocabulary file shipped with gatecrew.
pub const VOCABULARY: &str = include_str!("../../configs/hitl/vocabulary.toml");
/// Where [`VOCABULARY`] comes from, as its errors name it.
const VOCABULARY_FILE: &str = "configs/hitl/vocabulary.toml";

/// Longest item phrase, in words.
const MAX_PHRASE: usize = 4;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVocabulary {
    synonyms: BTreeMap<String, String>,
    natural: RawNatural,
    prefer: RawPrefer,
    ignore: RawIgnore,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNatural {
    blocks: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrefer {
    items: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIgnore {
    words: Vec<String>,
}

/// A vocabulary that does not fit the game data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VocabularyError {
    /// More keys than a TOML file may hold (names the file, the key and the bound).
    #[error(transparent)]
    Keys(#[from] gatecrew_protocol::limits::TomlKeysError),
    /// The TOML is malformed.
    #[error("configs/hitl/vocabulary.toml: {0}")]
    Toml(#[source] toml::de::Error),
    /// A name the game data does not know.
    #[error("configs/hitl/vocabulary.toml: key `{key}`: unknown {what} `{name}`")]
    Unknown {
        /// The TOML key holding the name.
        key: String,
        /// `item` or `block`.
        what: &'static str,
        /// The name as written.
        name: String,
    },
}

/// Words to items. See the module docs.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    phrases: BTreeMap<String, ItemId>,
    natural: BTreeSet<BlockId>,
    prefer: BTreeMap<ItemId, usize>,
    /// Every word of a phrase (singular): what the chat reader corrects typos towards.
    known: BTreeSet<String>,
}

impl Vocabulary {
    /// The shipped vocabulary over `data`.
    pub fn new(data: &GameData) -> Result<Self, VocabularyError> {
        Self::parse(VOCABULARY, data)
    }

    /// A vocabulary from TOML text.
    pub fn parse(text: &str, data: &GameData) -> Result<Self, VocabularyError> {
        gatecrew_protocol::limits::check_toml_keys(std::path::Path::new(VOCABULARY_FILE), text)?;
        let raw: RawVocabulary = toml::from_str(text).map_err(VocabularyError::Toml)?;
        let item = |key: String, name: &str| {
            data.item(name).map_err(|_| VocabularyError::Unknown { key, what: "item", name: name.to_owned() })
        };
        let ignore: BTreeSet<String> = raw.ignore.words.iter().map(|w| phrase_key(&w.replace('_', " "))).collect();
        let mut phrases = BTreeMap::new();
        let reg = data.items();
        for id in (0..reg.len()).filter_map(|i| u16::try_from(i).ok()).map(ItemId) {
            let name = reg.name(id);
            let key = phrase_key(&name.replace('_', " "));
            if !ignore.contains(&key) && key.split(' ').count() <= MAX_PHRASE {
                phrases.insert(key, id);
            }
        }
        // Synonyms win over item names ("bed" is the white bed, "light" a torch).
        for (word, name) in &raw.synonyms {
            let id = item(format!("synonyms.{word}"), name)?;
            phrases.insert(phrase_key(word), id);
        }
        let mut natural = BTreeSet::new();
        for b in &raw.natural.blocks {
            let id = data.block(b).ok_or_else(|| VocabularyError::Unknown {
                key: "natural.blocks".into(),
                what: "block",
                name: b.clone(),
            })?;
            natural.insert(id);
        }
        let mut prefer = BTreeMap::new();
        for (i, name) in raw.prefer.items.iter().enumerate() {
            prefer.insert(item("prefer.items".into(), name)?, i);
        }
        let known = phrases.keys().flat_map(|k| k.split(' ')).filter(|w| !w.is_empty()).map(str::to_owned).collect();
        Ok(Vocabulary { phrases, natural, prefer, known })
    }

    /// Items named in the words, left to right, longest phrase first; with the word
    /// range each covers.
    pub fn items_in(&self, words: &[String]) -> Vec<(ItemId, std::ops::Range<usize>)> {
        let sing: Vec<String> = words.iter().map(|w| singular(w)).collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < sing.len() {
            let mut hit = None;
            for len in (1..=MAX_PHRASE.min(sing.len() - i)).rev() {
                let key = sing[i..i + len].join(" ");
                if let Some(&id) = self.phrases.get(&key) {
                    hit = Some((id, len));
                    break;
                }
            }
            match hit {
                Some((id, len)) => {
                    out.push((id, i..i + len));
                    i += len;
                }
                None => i += 1,
            }
        }
        out
    }

    /// The first item named in a text.
    pub fn item_in(&self, text: &str) -> Option<ItemId> {
        self.items_in(&words(text)).first().map(|(i, _)| *i)
    }

    /// Whether a (singular) word is part of an item's name or synonym.
    pub fn knows_word(&self, w: &str) -> bool {
        self.known.contains(w)
    }

    /// Every word of the item names and synonyms (singular).
    pub fn words(&self) -> &BTreeSet<String> {
        &self.known
    }

    /// Whether the planner may plan to mine this block before having seen one.
    pub fn natural(&self, block: BlockId) -> bool {
        self.natural.contains(&block)
    }

    /// Tie-break rank of an item among unpriced alternatives (lower first).
    pub fn preference(&self, item: ItemId) -> usize {
        self.prefer.get(&item).copied().unwrap_or(usize::MAX)
    }
}

fn phrase_key(s: &str) -> String {
    words(s).iter().map(|w| singular(w)).collect::<Vec<_>>().join(" ")
}

/// Lower-case words: letters, digits, a leading minus on numbers and a decimal point
/// between digits ("1.5" is one word, so that it is read as the fraction it is, not as
/// "1"); everything else separates.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let minus = c == '-' && cur.is_empty() && next_digit;
        let point = c == '.' && cur.ends_with(|p: char| p.is_ascii_digit()) && next_digit;
        if c.is_alphanumeric() || c == '\'' || minus || point {
            if c != '\'' {
                cur.extend(c.to_lowercase());
            }
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A plural noun's singular, by the usual English endings ("torches", "logs"); words
/// ending in "ss" or shorter than four letters are kept.
pub fn singular(w: &str) -> String {
    if w.len() < 4 || w.ends_with("ss") || w.chars().any(|c| c.is_ascii_digit()) {
        return w.to_owned();
    }
    for end in ["ches", "shes", "xes", "sses"] {
        if let Some(stem) = w.strip_suffix(end) {
            return format!("{stem}{}", &end[..end.len() - 2]);
        }
    }
    if let Some(stem) = w.strip_suffix("ies") {
        return format!("{stem}y");
    }
    w.strip_suffix('s').map_or_else(|| w.to_owned(), str::to_owned)
}

fn integer(w: &str) -> Option<i64> {
    w.parse::<i64>().ok()
}

/// Three integers in a row ("at 3 0 -2", "x=3, y=0, z=-2"): a position, and the word
/// range it covers.
pub fn coords(ws: &[String]) -> Option<(Pos, std::ops::Range<usize>)> {
    let nums: Vec<(usize, i64)> = ws.iter().enumerate().filter_map(|(i, w)| integer(w).map(|n| (i, n))).collect();
    for win in nums.windows(3) {
        let (a, b, c) = (win[0], win[1], win[2]);
        // Adjacent except for x/y/z labels in between.
        let gap_ok = |from: usize, to: usize| ws[from + 1..to].iter().all(|w| matches!(w.as_str(), "x" | "y" | "z"));
        if gap_ok(a.0, b.0) && gap_ok(b.0, c.0) {
            let fits = |v: i64| i32::try_from(v).ok();
            let pos = Pos::new(fits(a.1)?, fits(b.1)?, fits(c.1)?);
            return Some((pos, a.0..c.0 + 1));
        }
    }
    None
}

/// Why a count that was said is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CountProblem {
    /// A whole number outside 1 to [`gatecrew_protocol::MAX_COUNT`].
    #[error(transparent)]
    OutOfBounds(#[from] CountError),
    /// A number with a fractional part ("1.5", "2.5e0").
    #[error("a count is a whole number")]
    NotWhole,
}

/// A count that was said but is not one: the word as the person wrote it (letters,
/// digits, `-` and `.` only, see [`words`]), so that the answer quotes what was said
/// rather than the value it saturated to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{said}\": {problem}")]
pub struct NotACount {
    /// The word that said the count.
    pub said: String,
    /// What is wrong with it.
    pub problem: CountProblem,
}

/// A count said in words or digits, outside `skip` (the coordinates): "10", "ten",
/// "a dozen", "a stack", "a couple". Read once into a [`Count`]: `Some(Err)` when one
/// is said but is 0, a fraction, or more than one bot can carry ("get 0 sticks", "get
/// 1.5 sticks", "get 1100000000 crafting tables").
pub fn count(ws: &[String], skip: Option<&std::ops::Range<usize>>) -> Option<Result<Count, NotACount>> {
    let (i, said) = said_count(ws, skip)?;
    let word = || ws[i].clone();
    Some(match said {
        Some(n) => Count::new(n).map_err(|e| NotACount { said: word(), problem: e.into() }),
        None => Err(NotACount { said: word(), problem: CountProblem::NotWhole }),
    })
}

/// The word that says a count, and its whole value (`None`: a fraction).
fn said_count(ws: &[String], skip: Option<&std::ops::Range<usize>>) -> Option<(usize, Option<i64>)> {
    const NUMBERS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    for (i, w) in ws.iter().enumerate() {
        if skip.is_some_and(|r| r.contains(&i)) {
            continue;
        }
        if let Some(n) = number(w) {
            return Some((i, n));
        }
        if let Some(n) = NUMBERS.iter().position(|x| x == w) {
            return Some((i, Some(n as i64)));
        }
        let next = ws.get(i + 1).map(String::as_str);
        let n = match (w.as_str(), next) {
            ("dozen", _) => 12,
            ("stack", _) if i > 0 && ws[i - 1] == "a" => 64,
            ("couple", _) => 2,
            ("few", _) => 3,
            _ => continue,
        };
        return Some((i, Some(n)));
    }
    None
}

/// A number written in digits, as the count it says: "12"; "-1" (a count below one, not
/// a word to skip, which left the default of one); "1e3" is 1000 and "1e400" or digits
/// past `i64` a count far too large, never a failed read. The value
/// saturates at the `i64` bounds, where [`Count::new`] refuses it either way. `Some(None)`:
/// a number with a fractional part ("1.5", "2.5e0"), which is no count.
fn number(w: &str) -> Option<Option<i64>> {
    let digits = w.strip_prefix('-').unwrap_or(w);
    // "nan", "inf" and "e5" are words; a number starts with a digit.
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if let Ok(n) = w.parse::<i64>() {
        return Some(Some(n));
    }
    let negative = w.starts_with('-');
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Some(if negative { i64::MIN } else { i64::MAX }));
    }
    // `as` saturates: an infinite or huge value is i64::MAX (or MIN).
    let f = w.parse::<f64>().ok()?;
    Some((f.fract() == 0.0 || f.is_infinite()).then_some(f as i64))
}

/// An item's name in words ("oak planks").
pub fn item_words(data: &GameData, item: ItemId) -> String {
    data.item_name(item).replace('_', " ")
}
