//! Chat abbreviations and slang, spelled out as the parser's words (which drop
//! apostrophes: "youre", "dont"). A few depend on their neighbours: "ur" is "youre"
//! before a state ("ur done") and "your" before a noun; a lone "k" is "ok"; "y" opening
//! a line is "why"; "r" between words is "are".

/// Where a word stands in its line.
pub(super) struct Around<'a> {
    /// The word before, if any.
    pub prev: Option<&'a str>,
    /// The word after, if any.
    pub next: Option<&'a str>,
    /// The first word of the line.
    pub first: bool,
    /// The only word of the line.
    pub only: bool,
}

/// Words that always mean the same, whatever is around them.
const ALWAYS: &[(&str, &str)] = &[
    ("u", "you"),
    ("yu", "you"),
    ("pls", "please"),
    ("plz", "please"),
    ("plox", "please"),
    ("pl0x", "please"),
    ("plss", "please"),
    ("plzz", "please"),
    ("pleas", "please"),
    ("pleaz", "please"),
    ("thx", "thanks"),
    ("thnx", "thanks"),
    ("thanx", "thanks"),
    ("tnx", "thanks"),
    ("ty", "thanks"),
    ("nvm", "never mind"),
    ("nvmd", "never mind"),
    ("nm", "never mind"),
    ("nevermind", "never mind"),
    ("idk", "i dont know"),
    ("dunno", "dont know"),
    ("idc", "i dont care"),
    ("wanna", "want to"),
    ("gonna", "going to"),
    ("gotta", "have to"),
    ("gimme", "give me"),
    ("lemme", "let me"),
    ("cuz", "because"),
    ("coz", "because"),
    ("bc", "because"),
    ("rn", "right now"),
    ("atm", "right now"),
    ("b4", "before"),
    ("l8r", "later"),
    ("ltr", "later"),
    ("w8", "wait"),
    ("abt", "about"),
    ("smth", "something"),
    ("sth", "something"),
    ("wat", "what"),
    ("wut", "what"),
    ("wht", "what"),
    ("dnt", "dont"),
    ("shud", "should"),
    ("cud", "could"),
    ("wud", "would"),
    ("thru", "through"),
    ("tho", "though"),
    ("okk", "ok"),
    ("kk", "ok"),
    ("okey", "ok"),
    ("oki", "ok"),
    ("mk", "ok"),
    ("ye", "yes"),
    ("yea", "yes"),
    ("yeh", "yes"),
    ("yep", "yes"),
    ("yup", "yes"),
    ("srsly", "seriously"),
    ("pickax", "pickaxe"),
    ("craftin", "crafting"),
    ("gettin", "getting"),
    ("makin", "making"),
    ("doin", "doing"),
    ("buildin", "building"),
    ("goin", "going"),
    ("sry", "sorry"),
    ("ppl", "people"),
    ("bout", "about"),
    ("ima", "im going to"),
    ("imma", "im going to"),
];

/// Words dropped from a line with other words (laughter, emphasis).
const NOISE: &[&str] = &["lol", "lmao", "lmfao", "rofl", "xd", "haha", "hahaha", "hehe", "ffs", "omg", "pog"];

/// What "ur" is before these: a state of the person addressed ("ur done").
const STATES: &[&str] = &[
    "done", "finished", "free", "ready", "busy", "doing", "going", "gonna", "working", "building", "making", "getting",
    "not", "almost", "nearly", "back", "there", "slow", "fast", "good", "the", "a", "so", "still", "being", "on", "at",
    "in", "out", "awesome", "great", "amazing",
];

/// The words a slang word stands for here, if it is one ("" drops it).
pub(super) fn expand(w: &str, at: &Around<'_>) -> Option<&'static str> {
    match w {
        // The line's only word keeps its meaning ("lol" alone is chat, "k" alone is ok).
        _ if NOISE.contains(&w) => (!at.only).then_some(""),
        "ur" | "yr" if at.next.is_some_and(|n| STATES.contains(&n)) => Some("youre"),
        "ur" | "yr" => Some("your"),
        "k" if at.only || at.first => Some("ok"),
        "y" if at.first && !at.only => Some("why"),
        "r" if at.next.is_some() => Some("are"),
        "n" if at.prev.is_some() && at.next.is_some() => Some("and"),
        "w" if at.prev.is_some() && at.next.is_some() => Some("with"),
        // "no need 4 planks": a count never follows "need" directly.
        "4" if at.prev == Some("need") => Some("for"),
        _ => ALWAYS.iter().find(|(s, _)| *s == w).map(|(_, r)| *r),
    }
}
