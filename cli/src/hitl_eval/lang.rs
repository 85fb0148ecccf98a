//! Accuracy by language and by type within each language, for sets whose lines carry
//! a `lang` tag: a parser that reads English well and misses Spanish stops shows here,
//! not in the overall figure.

use std::collections::BTreeMap;

use comfy_table::Table;
use gatecrew_analyze::table;
use gatecrew_hitl::intent::IntentType;
use gatecrew_hitl_app::eval::{Row, Score};

/// One language's figures under one classifier.
#[derive(serde::Serialize)]
pub(super) struct PerLang {
    classifier: String,
    lang: String,
    n: usize,
    type_right: usize,
    right: usize,
    /// Per expected type: (type right, lines).
    by_type: BTreeMap<&'static str, (usize, usize)>,
}

/// The figures per language, in language order.
pub(super) fn per_lang(name: &str, rows: &[Row]) -> Vec<PerLang> {
    let mut by: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by.entry(r.lang.as_str()).or_default().push(r);
    }
    by.into_iter()
        .map(|(lang, v)| {
            let mut by_type: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
            for r in &v {
                let e = by_type.entry(r.expected.as_str()).or_default();
                e.1 += 1;
                if r.got == r.expected {
                    e.0 += 1;
                }
            }
            PerLang {
                classifier: name.to_owned(),
                lang: lang.to_owned(),
                n: v.len(),
                type_right: v.iter().filter(|r| r.score != Score::WrongType).count(),
                right: v.iter().filter(|r| r.score == Score::Right).count(),
                by_type,
            }
        })
        .collect()
}

/// The table: one row per classifier and language; a column per type ("right of n").
pub(super) fn table(v: &[PerLang]) -> Table {
    let pct = |a: usize, b: usize| format!("{:.1}%", 100.0 * a as f64 / b.max(1) as f64);
    let mut header: Vec<String> =
        ["classifier", "lang", "n", "type acc", "accuracy"].iter().map(|s| (*s).to_owned()).collect();
    header.extend(IntentType::ALL.iter().map(|k| k.as_str().to_owned()));
    let mut t = table::new(header);
    for p in v {
        let mut row =
            vec![p.classifier.clone(), p.lang.clone(), p.n.to_string(), pct(p.type_right, p.n), pct(p.right, p.n)];
        row.extend(IntentType::ALL.iter().map(|k| match p.by_type.get(k.as_str()) {
            Some((a, b)) => format!("{a}/{b}"),
            None => ".".into(),
        }));
        t.add_row(row);
    }
    t
}
