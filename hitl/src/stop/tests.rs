use super::*;

/// The labelled lines of `hitl/data/stop_lines.tsv`.
const LINES: &str = include_str!("../../data/stop_lines.tsv");

fn labelled() -> Vec<(&'static str, &'static str)> {
    LINES
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once('\t').unwrap_or_else(|| panic!("stop_lines.tsv: no tab in {l:?}")))
        .collect()
}

#[test]
fn every_labelled_line_gets_its_label() {
    let set = labelled();
    assert!(set.len() >= 60, "{} lines", set.len());
    let mut wrong = Vec::new();
    for (label, line) in &set {
        let got = halt(line);
        let ok = match *label {
            "stop" => got == Halt::Stop,
            "then" => got == Halt::StopThen,
            "go" => got == Halt::GoOn,
            "not" => !is_halt(line),
            other => panic!("stop_lines.tsv: unknown label {other:?}"),
        };
        if !ok {
            wrong.push(format!("{label}\t{line}\t-> {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), set.len(), wrong.join("\n"));
}

#[test]
fn stop_recall_holds_under_case_punctuation_and_politeness() {
    // Every stop line of the file, shouted, with politeness around it, with a trailing
    // clause: still a halt.
    for (label, line) in labelled() {
        if label != "stop" {
            continue;
        }
        for v in [
            line.to_uppercase(),
            format!("please {line}"),
            format!("{line}!!"),
            format!("hey, {line}, thanks"),
            format!("{line}, this is wrong"),
        ] {
            assert!(is_halt(&v), "{v:?} (from {line:?}) is not a halt");
        }
    }
}

#[test]
fn quotes_are_mentions_but_apostrophes_are_not_quotes() {
    assert_eq!(halt("what does \u{201c}freeze\u{201d} mean"), Halt::None);
    assert_eq!(halt("the sign says \"stop\". ok, stop"), Halt::Stop, "the halt outside the quotes counts");
    assert_eq!(halt("don't stop"), Halt::GoOn);
}

/// Prints the rule's verdict on the `|`-separated lines of `PROBE` (a debugging aid:
/// `PROBE='hold up|why did you stop' cargo test -p gatecrew-hitl --lib probe -- --ignored --nocapture`).
#[test]
#[ignore = "a debugging aid"]
fn probe() {
    for l in std::env::var("PROBE").unwrap_or_default().split('|') {
        eprintln!("{:?}\t{l}", halt(l));
    }
}

/// Every halt word of every language, alone and in the shapes chat gives it (shouted,
/// with marks, with a filler, twice), is a stop; after its language's negation it is
/// go-on; every go-on word is go-on.
#[test]
fn every_languages_halt_word_stops_in_any_shape() {
    let mut wrong = Vec::new();
    for lang in languages::LANGUAGES {
        // Words that halt only with their pair are tried below.
        for w in lang.halt.iter().filter(|w| !["hor", "hoer", "bleib", "bouge", "bougez"].contains(*w)) {
            let shapes = [
                (*w).to_owned(),
                format!("{w}!"),
                format!("{}!!!", w.to_uppercase()),
                format!("ok {w}"),
                format!("{w}, {w}"),
                format!("bot {w} pls"),
            ];
            for s in shapes {
                if halt(&s) != Halt::Stop {
                    wrong.push(format!("{}: {s:?} -> {:?}", lang.code, halt(&s)));
                }
            }
            for neg in lang.negation.iter().filter(|n| !n.starts_with("narr")) {
                let s = if *neg == "pas" { format!("ne {w} pas") } else { format!("{neg} {w}") };
                // "ne bouge pas" is "don't move": a halt in any case.
                let want = if w.starts_with("boug") { Halt::Stop } else { Halt::GoOn };
                if halt(&s) != want {
                    wrong.push(format!("{}: {s:?} -> {:?}", lang.code, halt(&s)));
                }
            }
        }
        for w in lang.halt_opening {
            for s in [(*w).to_owned(), format!("{w}!"), format!("{} ya", w.to_uppercase()), format!("{w} {w}")] {
                if halt(&s) != Halt::Stop {
                    wrong.push(format!("{}: {s:?} -> {:?}", lang.code, halt(&s)));
                }
            }
        }
        for w in lang.go_on.iter().filter(|w| **w != "mach") {
            if halt(w) != Halt::GoOn {
                wrong.push(format!("{}: {w:?} -> {:?}", lang.code, halt(w)));
            }
        }
    }
    for s in ["hör auf", "hoer auf", "bleib stehen", "ne bouge pas", "bouge pas", "nicht aufhören"] {
        let want = if s.starts_with("nicht") { Halt::GoOn } else { Halt::Stop };
        if halt(s) != want {
            wrong.push(format!("{s:?} -> {:?}", halt(s)));
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

/// A word that halts only at the head of a short clause is the everyday word
/// elsewhere: "para" is "for", "alto" "tall", "moment" a noun.
#[test]
fn opening_only_halt_words_are_everyday_words_inside_a_sentence() {
    for line in
        ["haz una cama para mi", "un muro alto", "get wool para la cama", "in einem moment bitte die wand bauen"]
    {
        assert!(!is_halt(line), "{line:?}");
    }
}

/// Chinese and Japanese halt words inside a run of characters, with and without
/// full-width marks; their negated forms and go-on words.
#[test]
fn chinese_and_japanese_halts_are_found_inside_the_run() {
    for line in
        ["停", "停下来", "快停下！", "等一下", "等等，", "别动", "止まって", "ちょっと待って", "やめて！", "ストップ"]
    {
        assert_eq!(halt(line), Halt::Stop, "{line:?}");
    }
    for line in ["不要停", "别停", "继续", "続けて", "止まらないで"] {
        assert_eq!(halt(line), Halt::GoOn, "{line:?}");
    }
}
