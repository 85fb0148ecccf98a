//! Every size and number a reader takes from outside is bounded where it is parsed: a
//! value at its bound reads, one past it is a clear error naming the file, the key or
//! line, and the bound, before anything is allocated. One property per reader: agent
//! ids in traces, the grid's ranges and combinations, the recipe graph's depth and
//! expansion, the keys of a TOML file, `--linger`, and the numbers of a trace.

use std::path::Path;

use gatecrew_calibrate::Grid;
use gatecrew_calibrate::grid::MAX_RANGE_VALUES;
use gatecrew_kitchen::load::{MAX_EXPANSION, MAX_RECIPE_DEPTH, parse_recipes};
use gatecrew_protocol::AgentId;
use gatecrew_protocol::limits::MAX_TOML_KEYS;
use gatecrew_protocol::trace::TraceReader;
use proptest::prelude::*;

use crate::cli::gatecrew;
use crate::common::write;

fn trace_with(agent: u64, tsr: &str) -> String {
    format!(
        "{{\"v\":1,\"ep\":\"e\",\"t\":0,\"kind\":\"episode_start\",\"policy\":\"gated\",\"seed\":1,\"config_hash\":\"x\",\"agents\":[0],\"blueprint_blocks\":1,\"class\":\"A\"}}\n\
         {{\"v\":1,\"ep\":\"e\",\"t\":3,\"kind\":\"action\",\"agent\":{agent},\"action\":\"place\",\"ok\":true}}\n\
         {{\"v\":1,\"ep\":\"e\",\"t\":4,\"kind\":\"episode_end\",\"tsr\":{tsr},\"complete\":true,\"correct_blocks\":1,\"blueprint_blocks\":1,\"reason\":\"complete\"}}\n"
    )
}

fn read_all(text: &str) -> Result<usize, String> {
    let mut n = 0;
    for item in TraceReader::new(text.as_bytes()) {
        item.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

/// Trace lines with an agent id at `ID`, one line a field an id can stand in.
const AGENT_FIELDS: &[&str] = &[
    r#"{"v":1,"ep":"e","t":1,"kind":"board","msg":"REQUEST_MATERIAL","window":0,"from":ID,"to":"all","item":"glass","count":2,"reason":"missing_material"}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"board","msg":"OFFER_TRANSFER","window":0,"from":0,"to":ID,"item":"glass","count":2}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"board","msg":"CONFIRM_TRANSFER","window":0,"to":ID,"from":0,"item":"glass","count":2}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"board","msg":"REQUEST_MATERIAL","window":0,"from":0,"to":[1,ID],"item":"glass","count":2,"reason":"missing_material"}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"chat","from":0,"to":ID,"tokens":12}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"chat","from":ID,"to":"all","tokens":12}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"manager","to":ID,"tokens":30}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"board_reject","from":0,"error":"unknown_window","msg":"OFFER_TRANSFER","window":9,"to":ID,"item":"stone","count":1}"#,
    r#"{"v":1,"ep":"e","t":1,"kind":"episode_start","policy":"gated","seed":1,"config_hash":"x","agents":[0,ID],"blueprint_blocks":1,"class":"A"}"#,
];

fn agent_ids() -> impl Strategy<Value = u64> {
    let limit = u64::from(AgentId::LIMIT);
    prop_oneof![limit - 4..limit + 4, 0..limit, limit..=u64::from(u32::MAX), Just(u64::from(u32::MAX))]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// An agent id reads below the bound and is refused at and past it, by the reader
    /// every command shares, whichever of its two paths reads the line.
    #[test]
    fn agent_ids_in_traces_are_bounded(id in agent_ids()) {
        let text = trace_with(id, "1.0");
        let got = read_all(&text);
        // The same line in another key order goes the derived way.
        let reordered = text.replace("\"agent\":", "\"ok\":true,\"agent\":").replacen(",\"ok\":true}", "}", 1);
        if id < u64::from(AgentId::LIMIT) {
            prop_assert_eq!(got, Ok(3));
            prop_assert_eq!(read_all(&reordered), Ok(3));
        } else {
            let e = got.unwrap_err();
            prop_assert!(e.contains("line 2") && e.contains(&format!("agent id {id}")) && e.contains("16383"), "{}", e);
            prop_assert!(read_all(&reordered).is_err());
        }
    }

    /// Every field that names an agent is bounded the same way: the sender and the
    /// recipient of a board message (one id, or a list), of a chat or manager line, a
    /// rejected message's parties and the crew of `episode_start`.
    #[test]
    fn agent_ids_in_every_field_are_bounded(id in agent_ids(), field in 0..AGENT_FIELDS.len()) {
        let line = AGENT_FIELDS[field].replace("ID", &id.to_string());
        let text = trace_with(0, "1.0").replacen('\n', &format!("\n{line}\n"), 1);
        let got = read_all(&text);
        if id < u64::from(AgentId::LIMIT) {
            prop_assert_eq!(got, Ok(4), "{}", line);
        } else {
            let e = got.unwrap_err();
            prop_assert!(e.contains("line 2") && e.contains("16383"), "{}: {}", line, e);
        }
    }

    /// A range's values and the grid's combinations are counted before anything is
    /// allocated: at the bound the grid loads, past it the file and key are named.
    #[test]
    fn grid_ranges_are_bounded(values in 1usize..3 * MAX_RANGE_VALUES) {
        // `values` points from 0 to 1: step 1 / (values - 1), or one point.
        let step = if values == 1 { 1.0 } else { 1.0 / (values - 1) as f64 };
        let to = if values == 1 { 0.0 } else { 1.0 };
        let text = format!(
            "[weights]\nc = [0.35]\na = [0.2]\nd = [0.2]\nr = [0.15]\nh = {{ from = 0.0, to = {to}, step = {step} }}\n[thresholds]\ntheta_low = [0.5]\ntheta_high = [0.9]\n"
        );
        let got = Grid::parse(&text, Path::new("g.toml"));
        if values < MAX_RANGE_VALUES {
            // h = 0 breaks wH > 0 and h >= 0.15 the hierarchy; some point in between holds.
            prop_assert!(got.is_ok() || values < 8, "{:?}", got.err());
        } else if values > MAX_RANGE_VALUES + 1 {
            let e = got.unwrap_err().to_string();
            prop_assert!(e.contains("g.toml") && e.contains("weights.h") && e.contains("at most 1000"), "{}", e);
        }
    }

    /// A recipe graph loads while it is at most MAX_RECIPE_DEPTH deep and every
    /// item's expansion (itself, the recipes and raw ingredients below it, with
    /// repeats: the work of each walk down from it) has at most MAX_EXPANSION nodes;
    /// past either it is refused, naming the file, the item and the bound. The loader
    /// counts each expansion, and the count must be the graph's exact size.
    #[test]
    fn recipe_graphs_are_bounded(depth in 1usize..40, fan in 1usize..=5) {
        // item0 takes `fan` of item1, ..., item(depth-1) takes `fan` of raw.
        let mut recipes = serde_json::Map::new();
        for level in 0..depth {
            let next = if level + 1 == depth { "raw".to_owned() } else { format!("item{}", level + 1) };
            recipes.insert(
                format!("item{level}"),
                serde_json::json!({ "ingredients": vec![next; fan], "location": "pot" }),
            );
        }
        let text = serde_json::Value::Object(recipes).to_string();
        let got = parse_recipes(&text, Path::new("recipe.json"));
        // item_k's expansion: 1 + fan + fan^2 + ... + fan^(depth - k) nodes.
        let nodes = |k: usize| (0..=depth - k).fold(0u64, |n, j| n.saturating_add((fan as u64).saturating_pow(j as u32)));
        if depth <= MAX_RECIPE_DEPTH && nodes(0) <= MAX_EXPANSION {
            let book = got.map_err(|e| TestCaseError::fail(e.to_string()))?;
            for k in 0..depth {
                let item = book.item(&format!("item{k}")).unwrap();
                prop_assert_eq!(book.expansion(item), nodes(k), "item{}", k);
            }
            prop_assert_eq!(book.expansion(book.item("raw").unwrap()), 1);
        } else {
            let e = got.unwrap_err().to_string();
            prop_assert!(e.contains("recipe.json") && e.contains("$.item"), "{}", e);
            if depth > MAX_RECIPE_DEPTH {
                prop_assert!(e.contains("at most 8"), "{}", e);
            } else {
                prop_assert!(e.contains("recipes and raw ingredients") && e.contains("at most 1000"), "{}", e);
            }
        }
    }
}

/// A TOML file's keys are counted before it is parsed: up to the bound it parses,
/// past it the line where the count passed is named (plain and dotted keys; a dotted
/// key counts twice, for the key and the table it opens).
#[test]
fn toml_keys_are_bounded() {
    for n in [MAX_TOML_KEYS - 1, MAX_TOML_KEYS, MAX_TOML_KEYS + 1, MAX_TOML_KEYS + 2] {
        for dotted in [false, true] {
            let lines = if dotted { n / 2 } else { n };
            let key = |i: usize| if dotted { format!("a{i}.b = {i}\n") } else { format!("k{i} = {i}\n") };
            let text: String = (0..lines).map(key).collect();
            let counted = if dotted { lines * 2 } else { lines };
            let got = gatecrew_world::error::parse_toml::<toml::Table>(Path::new("c.toml"), &text);
            if counted <= MAX_TOML_KEYS {
                assert!(got.is_ok(), "{n} {dotted}: {:?}", got.err());
            } else {
                let e = got.unwrap_err().to_string();
                // Named at the line where the count passed the bound.
                let at = (MAX_TOML_KEYS + 1).div_ceil(if dotted { 2 } else { 1 });
                assert!(e.contains(&format!("c.toml:{at}:")) && e.contains("at most 100000"), "{n} {dotted}: {e}");
            }
        }
    }
}

/// `replay --serve` on a trace naming an agent past the bound exits 2 naming the line,
/// instead of allocating gigabytes; `check` refuses the same file.
#[test]
fn replay_and_check_refuse_an_agent_past_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "t.jsonl", &trace_with(u64::from(u32::MAX), "1.0"));
    let t = t.to_str().unwrap();
    let (code, _, err) = gatecrew(&["replay", t, "--serve", "127.0.0.1:0", "--linger", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("t.jsonl") && err.contains("agent id 4294967295"), "{err}");
    let (code, _, err) = gatecrew(&["check", t]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("t.jsonl:2") && err.contains("16383"), "{err}");
}

/// A rate is in [0, 1] and not -0 after parsing: `check` and `analyze` refuse the rest
/// with the line; `analyze --plot` never sees them.
#[test]
fn a_tsr_outside_its_range_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    for (tsr, ok) in [
        ("0", true),
        ("1", true),
        ("0.5", true),
        ("5e-324", true),
        ("1.5", false),
        ("-0", false),
        ("-0.0", false),
        ("1.7976931348623157e308", false),
        ("1.0000000000000002", false),
        ("-1e-300", false),
    ] {
        let t = write(dir.path(), "t.jsonl", &trace_with(0, tsr));
        let t = t.to_str().unwrap();
        let plot = dir.path().join("p.svg");
        for args in [vec!["check", t], vec!["analyze", t, "--plot", plot.to_str().unwrap()]] {
            let (code, _, err) = gatecrew(&args);
            if ok {
                assert_eq!(code, 0, "{tsr} {args:?}: {err}");
            } else {
                assert_eq!(code, 2, "{tsr} {args:?}: {err}");
                assert!(err.contains(":3") || err.contains("line 3"), "{tsr}: {err}");
                assert!(err.contains("tsr") && err.contains("[0, 1]"), "{tsr}: {err}");
            }
        }
    }
}

/// `--linger` is checked before it becomes a duration: no panic, a clear message.
#[test]
fn linger_values_are_range_checked() {
    for v in ["-1", "nan", "inf", "1e400", "18446744073709551615", "86400.5", "x"] {
        let (code, _, err) =
            gatecrew(&["replay", "/nonexistent.jsonl", "--serve", "127.0.0.1:0", &format!("--linger={v}")]);
        assert_eq!(code, 2, "{v}: {err}");
        assert!(err.contains("expected a number of seconds from 0 to 86400"), "{v}: {err}");
    }
    for v in ["0", "86400", "0.25"] {
        let (code, _, err) =
            gatecrew(&["replay", "/nonexistent.jsonl", "--serve", "127.0.0.1:0", &format!("--linger={v}")]);
        assert_ne!(code, 0, "{v}");
        assert!(!err.contains("expected a number of seconds"), "{v}: {err}");
    }
}

/// The other durations a command takes are range-checked before they are used: the
/// live pacing, and the model timeouts of `hitl-eval` and `cos` (the others' were).
#[test]
fn durations_are_range_checked() {
    let cases: [(&[&str], &str, &str); 3] = [
        (&["run", "--interactive", "--no-stdin"], "--tick-ms", "1..=60000"),
        (&["hitl-eval"], "--timeout-ms", "1..=600000"),
        (&["cos", "--llm-url", "http://127.0.0.1:9/v1"], "--llm-timeout-ms", "1..=600000"),
    ];
    for (args, flag, range) in cases {
        for v in ["0", "-1", "18446744073709551615", "18446744073709551616", "1e400", "nan", "600001"] {
            let mut argv = args.to_vec();
            let given = format!("{flag}={v}");
            argv.push(&given);
            let (code, _, err) = gatecrew(&argv);
            assert_eq!(code, 2, "{given}: {err}");
            // Every spelling is answered with the range: -1, 1e400 and nan as 600001 is.
            assert!(err.contains(flag) && err.contains(range) && !err.contains("panicked"), "{given}: {err}");
        }
    }
}

/// A count that sizes what a command holds is refused past its bound at the command
/// line, before anything is allocated (`hitl-eval --reps` keeps one sample a repetition,
/// `--context-lines` the lines a model-driven bot keeps): however it is spelt (negative,
/// a fraction, an exponent, past `u64`), never read as another count, the error names
/// the flag and its range.
#[test]
fn counts_that_size_memory_are_range_checked() {
    let cases: [(&[&str], &str, &str); 3] = [
        (&["hitl-eval"], "--reps", "0..=1000000"),
        (&["run", "--stepper", "--quiet", "--executor", "llm"], "--context-lines", "1..=10000"),
        (&["run", "--stepper", "--quiet"], "--agents", "1..=10000"),
    ];
    for (args, flag, range) in cases {
        for v in ["1000001", "4294967296", "18446744073709551615", "18446744073709551616", "-1", "1e400", "1.5", "0x10"]
        {
            let mut argv = args.to_vec();
            let given = format!("{flag}={v}");
            argv.push(&given);
            let (code, _, err) = gatecrew(&argv);
            assert_eq!(code, 2, "{given}: {err}");
            assert!(err.contains(flag) && err.contains(range) && !err.contains("panicked"), "{given}: {err}");
        }
    }
}

/// Gate weights past the bound are refused where the config is read (`check` too),
/// so no score is NaN.
#[test]
fn gate_weights_past_the_bound_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let gate = "[gate]\ntheta_low = 0.6\ntheta_high = 0.85\n[gate.weights]\nc = 1.7e308\na = 1e308\nd = 1e308\nr = 1e308\nh = 1e300\n";
    let g = write(dir.path(), "gate.toml", gate);
    let (code, _, err) = gatecrew(&["run", "--stepper", "--quiet", "--gate", g.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gate.weights") && err.contains("from 0 to 1000000"), "{err}");
}
