//! The chat reader as rules over families of words: every abbreviation is spelled
//! out, no everyday word is ever changed, a typo of a lexicon word is read as that
//! word or left alone (never as another word), and reading twice changes nothing.

use std::path::Path;

use gatecrew_world::GameData;

use super::*;

fn vocab() -> Vocabulary {
    let d = GameData::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json")))
        .unwrap();
    Vocabulary::new(&d).unwrap()
}

#[test]
fn slang_is_spelled_out_in_any_line() {
    let v = vocab();
    for (typed, want) in [
        ("can u also get 4 torches", "can you also get 4 torches"),
        ("pls skip the planks", "please skip the planks"),
        ("nvm", "never mind"),
        ("make a chest when ur done", "make a chest when youre done"),
        ("get ur pickaxe", "get your pickaxe"),
        ("r u done?", "are you done?"),
        ("y did u stop", "why did you stop"),
        ("w8!!", "wait!!"),
        ("lol get wood", " get wood"),
    ] {
        assert_eq!(read(typed, &v).text, want, "{typed:?}");
    }
    // A line that is only laughter keeps it (it is chat).
    assert_eq!(read("lol", &v).text, "lol");
}

#[test]
fn everyday_and_lexicon_words_are_never_changed() {
    let v = vocab();
    let mut changed = Vec::new();
    for w in english::WORDS.iter().chain(lexicon().iter()).chain(english::PART_WORDS) {
        let r = read(w, &v);
        if r.fixes.iter().any(|f| f.kind == FixKind::Typo) {
            changed.push(format!("{w} -> {}", r.text));
        }
    }
    assert!(changed.is_empty(), "{changed:?}");
}

/// Single-edit typos of `word`: a letter dropped, two neighbours swapped, a letter
/// doubled (never the first letter: typists keep it).
fn typos(word: &str) -> Vec<String> {
    let c: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    for i in 1..c.len() {
        let mut d = c.clone();
        d.remove(i);
        out.push(d.iter().collect());
        let mut dup = c.clone();
        dup.insert(i, c[i]);
        out.push(dup.iter().collect());
        if i + 1 < c.len() {
            let mut s = c.clone();
            s.swap(i, i + 1);
            out.push(s.iter().collect());
        }
    }
    out.sort();
    out.dedup();
    out.retain(|t| t != word);
    out
}

#[test]
fn a_typo_is_read_as_its_word_or_left_alone_never_as_another() {
    let v = vocab();
    let targets = [
        "planks",
        "crafting",
        "table",
        "sticks",
        "wool",
        "pickaxe",
        "furnace",
        "torches",
        "chest",
        "white",
        "skip",
        "switch",
        "first",
        "instead",
        "also",
        "collect",
        "windows",
        "roof",
        "walls",
        "door",
        "cobblestone",
        "string",
    ];
    let (mut right, mut total) = (0, 0);
    let mut wrong = Vec::new();
    for t in targets {
        for typo in typos(t) {
            if known(&typo, &v) {
                continue; // "wol" may be a word of its own
            }
            total += 1;
            let got = read(&typo, &v).text;
            // "sticsk" read as "stick" is right: the parser reads both as the item.
            if singular(&got) == singular(t) {
                right += 1;
            } else if got != typo {
                wrong.push(format!("{typo} -> {got} (meant {t})"));
            }
        }
    }
    assert!(wrong.is_empty(), "{} misread: {wrong:?}", wrong.len());
    // Most single-letter slips of four letters and more come back.
    assert!(right * 10 >= total * 7, "{right} of {total} typos corrected");
}

#[test]
fn the_issue_typos_are_read() {
    let v = vocab();
    assert_eq!(read("get a crafitng tabel", &v).text, "get a crafting table");
    assert_eq!(read("skip the plnks", &v).text, "skip the planks");
    assert_eq!(read("Make A Whte Bed!", &v).text, "Make A white Bed!");
}

#[test]
fn reading_twice_changes_nothing() {
    let v = vocab();
    let sets = [
        include_str!("../../data/eval/tune.jsonl"),
        include_str!("../../data/eval/heldout.jsonl"),
        include_str!("../../data/eval/chat.jsonl"),
    ];
    for set in sets {
        for line in set.lines().filter(|l| l.starts_with('{')) {
            let text = serde_json::from_str::<serde_json::Value>(line).unwrap()["text"].as_str().unwrap().to_owned();
            let once = read(&text, &v).text;
            assert_eq!(read(&once, &v).text, once, "{text:?}");
        }
    }
}
