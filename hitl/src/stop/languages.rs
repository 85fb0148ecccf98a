//! Halt and go-on words in the other languages Minecraft players most use in chat:
//! Spanish, Portuguese, French, German, Russian, Chinese and Japanese (English is the
//! rest of the stop rule). Words are compared without accents ("arrête" is
//! "arrete"). A halt word is a stop wherever it stands in a clause, unless a negation
//! of its language comes just before it ("no pares", "ne t'arrête pas", "nicht
//! aufhören", "не останавливайся", "不要停", "止めないで" are go-on). The few halt
//! words that are also everyday words elsewhere ("para" is "for", "alto" "tall",
//! "moment" a noun) halt only when they open a short clause ("para!", "para ya").
//!
//! Chinese and Japanese are written without spaces, so a run of their characters is
//! one token; their halt words are looked for inside it.

/// One language's words: halt words, go-on words, negations.
pub(super) struct Language {
    /// ISO 639-1 code.
    pub code: &'static str,
    /// Words that halt (imperatives of stop and wait, "enough", "don't move").
    pub halt: &'static [&'static str],
    /// Words that halt only when they open a short clause.
    pub halt_opening: &'static [&'static str],
    /// Words that mean go on.
    pub go_on: &'static [&'static str],
    /// Negations that make a halt word after them go-on.
    pub negation: &'static [&'static str],
}

/// The languages with spaces between words.
pub(super) const LANGUAGES: &[Language] = &[
    Language {
        code: "es",
        halt: &[
            "pare", "pares", "parad", "parate", "detente", "detenete", "deten", "detengan", "espera", "esperate",
            "esperen", "esperad", "aguarda", "basta", "quieto", "quieta", "quietos", "frena", "cancela",
        ],
        halt_opening: &["para", "alto", "momento"],
        go_on: &["sigue", "segui", "continua", "continue", "dale", "adelante", "prosigue"],
        negation: &["no", "nunca", "sin"],
    },
    Language {
        code: "pt",
        halt: &["pare", "parem", "espere", "esperem", "aguarde", "aguenta", "perai"],
        halt_opening: &["para", "calma", "chega"],
        go_on: &["continua", "continue", "segue", "prossiga"],
        negation: &["nao", "nunca", "sem"],
    },
    Language {
        code: "fr",
        halt: &[
            "arrete", "arretez", "arretes", "tarrete", "stoppe", "stoppez", "attends", "attendez", "halte", "bouge",
            "bougez",
        ],
        halt_opening: &["minute", "pause", "assez"],
        go_on: &["continue", "continuez", "vasy", "allez", "poursuis", "poursuivez"],
        negation: &["ne", "pas", "jamais", "sans", "narrete", "narretez", "narretes"],
    },
    Language {
        code: "de",
        halt: &[
            "stopp",
            "warte",
            "warten",
            "wartet",
            "aufhoren",
            "aufhoeren",
            "anhalten",
            "abbrechen",
            "stehenbleiben",
            "hor",
            "hoer",
            "horauf",
            "bleib",
        ],
        halt_opening: &["moment", "sekunde", "genug"],
        go_on: &["weiter", "weitermachen", "fortfahren", "mach", "weiterarbeiten"],
        negation: &["nicht", "nie", "kein", "keine", "ohne"],
    },
    Language {
        code: "ru",
        halt: &[
            "стоп",
            "стой",
            "стойте",
            "стоять",
            "остановись",
            "остановитесь",
            "остановиться",
            "останавливайся",
            "подожди",
            "подождите",
            "погоди",
            "погодите",
            "хватит",
            "перестань",
            "перестаньте",
            "прекрати",
            "прекратите",
            "замри",
            "жди",
            "ждите",
            "тормози",
            "отмена",
            "харэ",
            "сиди",
        ],
        halt_opening: &["секунду", "минуту"],
        go_on: &["продолжай", "продолжайте", "дальше"],
        negation: &["не", "никогда", "без"],
    },
];

/// Chinese and Japanese halt words, looked for inside a run of their characters.
const CJK_HALT: &[(&str, &str)] = &[
    ("zh", "停"),
    ("zh", "等一下"),
    ("zh", "等等"),
    ("zh", "等一等"),
    ("zh", "别动"),
    ("zh", "不要动"),
    ("zh", "住手"),
    ("zh", "够了"),
    ("zh", "取消"),
    ("ja", "止まって"),
    ("ja", "とまって"),
    ("ja", "止まれ"),
    ("ja", "とまれ"),
    ("ja", "止めて"),
    ("ja", "とめて"),
    ("ja", "やめて"),
    ("ja", "ヤメテ"),
    ("ja", "やめろ"),
    ("ja", "待って"),
    ("ja", "まって"),
    ("ja", "待て"),
    ("ja", "ストップ"),
    ("ja", "中止"),
    ("ja", "動くな"),
];

/// Chinese and Japanese go-on words and negated halts ("别停": don't stop; "不停":
/// without stopping); these win over a halt word they contain.
const CJK_GO_ON: &[&str] = &[
    "继续",
    "不要停",
    "别停",
    "不停",
    "不用停",
    "没停",
    "停车",
    "続けて",
    "つづけて",
    "続行",
    "止まらないで",
    "やめないで",
    "止めないで",
    "待たないで",
];

/// A word without its accents (Latin letters only; others are kept).
pub(super) fn fold(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => out.push('a'),
            'ç' => out.push('c'),
            'è' | 'é' | 'ê' | 'ë' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' => out.push('i'),
            'ñ' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' => out.push('u'),
            'ß' => out.push_str("ss"),
            'ё' => out.push('е'),
            c => out.push(c),
        }
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff | 0xff66..=0xff9f)
}

/// Words that may follow an opening-only halt word ("para ya", "moment mal").
const OPENING_TAIL: &[&str] = &[
    "ya", "ahora", "por", "favor", "porfa", "porfavor", "ja", "agora", "ai", "mal", "bitte", "jetzt", "sofort", "bot",
    "amigo", "tio", "cara", "mano", "un", "una", "einen", "kurz", "s", "stp", "svp", "si", "pf", "plz", "please",
    "pls",
];

/// What a clause says in one of these languages: `Some(true)` halt, `Some(false)` go
/// on, `None` none of their words. `body` is the clause's words, lower-case.
pub(super) fn clause(body: &[String]) -> Option<bool> {
    let ws: Vec<String> = body.iter().map(|w| fold(w)).collect();
    let mut verdict = None;
    for (i, w) in ws.iter().enumerate() {
        if w.chars().any(is_cjk) {
            if CJK_GO_ON.iter().any(|g| w.contains(g)) {
                verdict = Some(false);
            } else if CJK_HALT.iter().any(|(_, h)| w.contains(h)) {
                verdict = Some(true);
            }
            continue;
        }
        for lang in LANGUAGES {
            let opening = i == 0
                && lang.halt_opening.contains(&w.as_str())
                && ws[1..].iter().all(|t| OPENING_TAIL.contains(&t.as_str()) || t == w);
            if lang.halt.contains(&w.as_str()) || opening {
                // Spanish and Portuguese share halt words ("pare"): any language's
                // negation before it counts.
                let negation = |b: &String| LANGUAGES.iter().any(|l| l.negation.contains(&b.as_str()));
                let negated = ws[..i].iter().rev().take(2).any(negation)
                    || ws.get(i + 1).is_some_and(|a| lang.code == "fr" && lang.negation.contains(&a.as_str()));
                // German "hör auf" and "bleib stehen" are halts only as the pair.
                let pair_ok = match w.as_str() {
                    "hor" | "hoer" => ws.get(i + 1).is_some_and(|a| a == "auf"),
                    "bleib" => ws.get(i + 1).is_some_and(|a| a == "stehen"),
                    "bouge" | "bougez" => {
                        ws[..i].iter().any(|b| b == "ne") || ws.get(i + 1).is_some_and(|a| a == "pas")
                    }
                    _ => true,
                };
                if pair_ok {
                    // "ne bouge pas" is "don't move": a halt, not a negated one.
                    let dont_move = w.starts_with("boug");
                    verdict = Some(dont_move || !negated);
                }
                break;
            }
            if lang.go_on.contains(&w.as_str()) {
                // "mach weiter" needs its pair.
                let pair_ok = w != "mach" || ws.get(i + 1).is_some_and(|a| a == "weiter");
                if pair_ok {
                    verdict = Some(false);
                }
                break;
            }
        }
        // French negations also close: "n'arrête pas" (folded "narrete pas").
        if ["narrete", "narretez", "narretes"].contains(&w.as_str()) {
            verdict = Some(false);
        }
    }
    verdict
}
