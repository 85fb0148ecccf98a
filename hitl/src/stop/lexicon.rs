//! The stop rule's word lists: halt words' typos, request and question words,
//! negations, mentions, go-on phrases, fillers, whole halt clauses and command verbs.

/// Misspellings of the halt words seen in chat: transposed, dropped or doubled letters.
/// Only words with no everyday neighbour are matched loosely ("stop" not "step", "want"
/// is not "wait").
pub(super) const TYPOS: &[(&str, &str)] = &[
    ("stpo", "stop"),
    ("sotp", "stop"),
    ("stp", "stop"),
    ("sop", "stop"),
    ("stopt", "stop"),
    ("stoip", "stop"),
    ("stahp", "stop"),
    ("stap", "stop"),
    ("stoo", "stop"),
    ("tsop", "stop"),
    ("hlat", "halt"),
    ("hault", "halt"),
    ("frez", "freeze"),
    ("freze", "freeze"),
    ("wiat", "wait"),
    ("cancle", "cancel"),
    ("cancell", "cancel"),
    ("canel", "cancel"),
    ("enuf", "enough"),
    ("enogh", "enough"),
];

/// Words that turn a halt word after them into a request ("can you stop").
pub(super) const REQUEST: &[&str] = &[
    "can", "could", "would", "will", "please", "pls", "plz", "need", "want", "must", "gotta", "should", "wont",
    "better",
];

/// Words that turn a halt word after them into a question or a report ("why did you
/// stop", "when do you stop").
pub(super) const QUESTION: &[&str] =
    &["did", "do", "does", "why", "when", "how", "where", "what", "was", "were", "has", "whether"];

/// Negations before a halt word ("don't stop", "no need to wait", "never pause").
pub(super) const NEGATION: &[&str] =
    &["dont", "never", "not", "without", "cant", "cannot", "shouldnt", "mustnt", "doesnt"];

/// Words after a halt word that make it a noun being talked about.
pub(super) const MENTION: &[&str] =
    &["sign", "button", "word", "words", "command", "means", "mean", "key", "signs", "block", "spelled", "sound"];

/// Phrases that mean go on; the last of halt and go-on in a line wins.
pub(super) const GO_ON: &[&[&str]] = &[
    &["keep", "going"],
    &["keep", "on"],
    &["keep", "working"],
    &["keep", "building"],
    &["go", "on"],
    &["carry", "on"],
    &["continue"],
    &["resume"],
    &["proceed"],
    &["go", "ahead"],
    &["as", "you", "were"],
    &["back", "to", "work"],
    &["keep", "it", "up"],
    &["dont", "stop"],
];

/// Words in a clause that do not change its meaning.
pub(super) const FILLER: &[&str] = &[
    "ok", "okay", "alright", "right", "yeah", "ya", "hey", "um", "uh", "bot", "buddy", "please", "pls", "plz",
    "thanks", "now", "just", "oh", "oi", "yo", "hmm", "man", "dude", "bro", "sir", "thx",
];

/// Whole clauses that mean halt.
pub(super) const HALT_CLAUSES: &[&[&str]] = &[
    &["dont", "do", "anything"],
    &["dont", "do", "anything", "else"],
    &["do", "not", "do", "anything"],
    &["do", "nothing"],
    &["dont", "move"],
    &["do", "not", "move"],
    &["dont", "touch", "anything"],
    &["dont", "do", "that"],
    &["dont", "do", "it"],
    &["stand", "still"],
    &["stand", "by"],
    &["standby"],
    &["stand", "down"],
    &["cut", "it", "out"],
    &["knock", "it", "off"],
    &["belay", "that"],
    &["shut", "it", "down"],
    &["forget", "it"],
    &["forget", "about", "it"],
    &["never", "mind"],
    &["no", "no"],
    &["no", "no", "no"],
    &["nope", "nope"],
    &["time", "out"],
    &["timeout"],
    &["take", "a", "break"],
    &["that", "will", "do"],
    &["thatll", "do"],
    &["not", "now"],
    &["hang", "on"],
    &["hold", "your", "horses"],
    &["hold", "fire"],
    &["one", "sec"],
    &["one", "second"],
    &["one", "moment"],
    &["one", "minute"],
    &["a", "sec"],
    &["a", "moment"],
    &["gimme", "a", "sec"],
    &["gimme", "a", "second"],
    &["give", "me", "a", "sec"],
    &["give", "me", "a", "second"],
    &["give", "me", "a", "minute"],
    &["give", "me", "a", "moment"],
];

/// A command verb opening a clause after a halt: the line goes on with a new order.
pub(super) const COMMAND: &[&str] = &[
    "get", "make", "craft", "build", "collect", "mine", "chop", "gather", "bring", "fetch", "find", "smelt", "cook",
    "go", "do", "work", "switch", "focus", "start", "skip", "place", "put", "take", "dig", "cut", "harvest", "add",
    "finish", "help", "grab", "use", "leave", "remove", "drop",
];
