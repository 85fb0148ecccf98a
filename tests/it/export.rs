//! `gatecrew export`: typed Parquet and CSV tables whose figures, recomputed with the
//! SQL and the polars code of docs/analysis.md, equal `gatecrew analyze`'s.
//!
//! DuckDB and polars run in the tests' own Python venv (`crate::common::python_checks`,
//! pinned wheels installed on first use): both checks always run.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::gatecrew;
use crate::common::{python_checks, root};

/// A small suite run (one template, every test-split class, two policies) and its
/// analysis, made once.
fn suite_run(dir: &Path) -> PathBuf {
    let runs = dir.join("runs");
    let suite = root().join("configs/suite");
    let (code, out, err) = gatecrew(&[
        "suite",
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--split",
        "test",
        "--filter",
        "pyramid-5",
        "--policy",
        "gated,no_gate",
        "--jobs",
        "2",
        "--out",
        runs.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    runs
}

/// The fenced blocks of one language in docs/analysis.md, in order.
fn doc_blocks(lang: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/analysis.md")).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim() == format!("```{lang}") => current = Some(String::new()),
            Some(b) if line.trim() == "```" => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn run_python(python: &Path, script: &str, args: &[&Path]) -> serde_json::Value {
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args.iter().map(|p| p.as_os_str()))
        .output()
        .expect("python starts");
    assert!(out.status.success(), "python failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `gatecrew analyze --json --by class` as (policy, key, metric) -> value.
fn analyze(runs: &Path) -> Vec<(String, String, String, Option<f64>)> {
    let (code, out, err) = gatecrew(&["analyze", runs.to_str().unwrap(), "--json", "--by", "class"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut rows = Vec::new();
    for g in v["report"]["groups"].as_array().unwrap() {
        for c in g["cells"].as_array().unwrap() {
            rows.push((
                g["policy"].as_str().unwrap().to_owned(),
                g["key"].as_str().unwrap().to_owned(),
                c["metric"].as_str().unwrap().to_owned(),
                c["interval"]["value"].as_f64(),
            ));
        }
    }
    rows
}

/// Checks every metric a query computed against analyze's; returns how many matched.
fn compare(analyzed: &[(String, String, String, Option<f64>)], rows: &serde_json::Value, what: &str) -> usize {
    let rows = rows.as_array().unwrap();
    let mut checked = 0;
    for (policy, key, metric, want) in analyzed {
        let Some(row) = rows.iter().find(|r| r["policy"] == policy.as_str() && r["key"] == key.as_str()) else {
            panic!("{what}: no row for {policy}/{key}");
        };
        let Some(got) = row.get(metric.as_str()) else { continue };
        let got = got.as_f64().filter(|g| g.is_finite());
        match (want, got) {
            (Some(w), Some(g)) => {
                assert!((w - g).abs() < 1e-9, "{what}: {policy}/{key} {metric}: analyze {w}, got {g}")
            }
            (None, None) => {}
            (w, g) => panic!("{what}: {policy}/{key} {metric}: analyze {w:?}, got {g:?}"),
        }
        checked += 1;
    }
    checked
}

const DUCKDB: &str = r#"
import duckdb, json, sys
sql, episodes = sys.argv[1], sys.argv[2]
sql = open(sql).read().replace("'export/episodes.parquet'", "'" + episodes + "'")
rel = duckdb.sql(sql)
print(json.dumps([dict(zip(rel.columns, row)) for row in rel.fetchall()]))
"#;

const POLARS: &str = r#"
import json, sys, io, contextlib
code, episodes = sys.argv[1], sys.argv[2]
code = open(code).read().replace('"export/episodes.parquet"', json.dumps(episodes))
scope = {}
with contextlib.redirect_stdout(io.StringIO()):
    exec(code, scope)
nan = lambda v: None if isinstance(v, float) and v != v else v
print(json.dumps([{k: nan(v) for k, v in r.items()} for r in scope["table"].to_dicts()]))
"#;

#[test]
fn duckdb_and_polars_over_the_export_equal_gatecrew_analyze() {
    let dir = tempfile::tempdir().unwrap();
    let runs = suite_run(dir.path());
    let analyzed = analyze(&runs);
    assert!(analyzed.len() > 30, "a few groups with every metric");
    let out = dir.path().join("export");
    let (code, stdout, err) =
        gatecrew(&["export", runs.to_str().unwrap(), "--format", "parquet", "--out", out.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let sum: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let episodes = out.join("episodes.parquet");
    assert!(episodes.is_file() && out.join("events.parquet").is_file());
    let n_episodes = sum["episodes"].as_u64().unwrap();
    assert!(n_episodes >= 4, "{sum}");

    let sql = doc_blocks("sql");
    assert!(sql.len() >= 2, "docs/analysis.md has its SQL blocks");
    let sql_file = dir.path().join("metrics.sql");
    std::fs::write(&sql_file, &sql[0]).unwrap();
    let python = python_checks();
    let rows = run_python(&python, DUCKDB, &[&sql_file, &episodes]);
    let checked = compare(&analyzed, &rows, "duckdb");
    assert!(checked >= 20, "only {checked} figures compared");
    // The events-table query gives the same pooled rates.
    let ev_file = dir.path().join("events.sql");
    let events = out.join("events.parquet");
    std::fs::write(&ev_file, sql[1].replace("'export/events.parquet'", &format!("'{}'", events.display()))).unwrap();
    let rows = run_python(&python, DUCKDB, &[&ev_file, &episodes]);
    let overall: Vec<_> = analyzed
        .iter()
        .filter(|(_, k, m, _)| k == "all" && ["lrr", "uer", "ecr"].contains(&m.as_str()))
        .cloned()
        .collect();
    let rows: Vec<serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["key"] = "all".into();
            r
        })
        .collect();
    assert_eq!(compare(&overall, &serde_json::Value::Array(rows), "duckdb events"), overall.len());
    let py = doc_blocks("python");
    let metrics = py.iter().find(|b| !b.contains("schema.json")).expect("docs' polars block");
    let py_file = dir.path().join("metrics.py");
    std::fs::write(&py_file, metrics).unwrap();
    let rows = run_python(&python, POLARS, &[&py_file, &episodes]);
    assert!(compare(&analyzed, &rows, "polars") >= 20);
}

#[test]
fn the_tables_have_typed_columns_and_labels_on_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let (code, _, err) = gatecrew(&["run", "--stepper", "--quiet", "--json", "--trace", trace.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines = std::fs::read_to_string(&trace).unwrap().lines().count();
    let out = dir.path().join("csv");
    let (code, stdout, err) =
        gatecrew(&["export", trace.to_str().unwrap(), "--format", "csv", "--out", out.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let sum: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(sum["events"].as_u64(), Some(lines as u64));
    let events = std::fs::read_to_string(out.join("events.csv")).unwrap();
    let mut rows = events.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (policy, seed, t, kind, f_c) = (col("policy"), col("seed"), col("t"), col("kind"), col("f_c"));
    let rows: Vec<Vec<&str>> = rows.map(|r| r.split(',').collect()).collect();
    assert_eq!(rows.len(), lines);
    for r in &rows {
        assert!(!r[policy].is_empty() && r[seed].parse::<u64>().is_ok(), "labels on every row: {r:?}");
        assert!(r[t].parse::<u64>().is_ok(), "ticks as integers: {r:?}");
    }
    let gates: Vec<_> = rows.iter().filter(|r| r[kind] == "gate").collect();
    assert!(!gates.is_empty());
    assert!(gates.iter().all(|r| r[f_c].parse::<u8>().is_ok_and(|v| v <= 3)), "features as small integers");
    // A column no event of this run fills (an LLM's latency, a fault) is typed through
    // schema.json as docs/analysis.md reads it, in DuckDB and in polars.
    let empty: Vec<&str> =
        header.iter().enumerate().filter(|(i, _)| rows.iter().all(|r| r[*i].is_empty())).map(|(_, h)| *h).collect();
    assert!(empty.contains(&"latency_ms") && empty.contains(&"oracle_ticks"), "{empty:?}");
    let block = doc_blocks("python").into_iter().find(|b| b.contains("schema.json")).expect("docs' CSV block");
    let block_file = dir.path().join("typed.py");
    std::fs::write(&block_file, block).unwrap();
    let read = run_python(&python_checks(), TYPED_CSV, &[block_file.as_path(), out.as_path()]);
    for table in ["episodes", "events"] {
        let t = &read[table];
        assert!(t["columns"].as_u64().unwrap() > 10, "{read}");
        assert_eq!(t["duckdb_mismatches"], serde_json::json!([]), "{table}: {read}");
        assert_eq!(t["polars_mismatches"], serde_json::json!([]), "{table}: {read}");
    }
    assert_eq!(read["events"]["latency_ms"], serde_json::json!(["UBIGINT", "UInt64"]), "{read}");
    assert_eq!(read["events"]["untyped_latency_ms"], "VARCHAR", "without schema.json the column is text: {read}");
}

/// Runs docs/analysis.md's block that reads the CSV tables with schema.json (the
/// folder `export/` replaced by the test's), reads the episodes table the same way, and
/// prints each column whose type differs from the schema's.
const TYPED_CSV: &str = r#"
import duckdb, json, sys, pathlib, io, contextlib
import polars as pl
block, out = open(sys.argv[1]).read(), pathlib.Path(sys.argv[2])
scope = {}
with contextlib.redirect_stdout(io.StringIO()):
    exec(block.replace('"export/', '"' + str(out) + '/'), scope)
schema = json.loads((out / "schema.json").read_text())
ep = str(out / "episodes.csv")
read = {
    "events": (scope["events"], scope["events_pl"]),
    "episodes": (
        duckdb.read_csv(ep, header=True, dtype={c["name"]: c["duckdb"] for c in schema["episodes"]}),
        pl.read_csv(ep, schema={c["name"]: getattr(pl, c["polars"]) for c in schema["episodes"]}),
    ),
}
res = {}
for table, cols in schema.items():
    rel, df = read[table]
    got = dict(zip(rel.columns, [str(t) for t in rel.types]))
    pgot = {k: str(v) for k, v in df.schema.items()}
    r = {
        "columns": len(cols),
        "duckdb_mismatches": [c["name"] for c in cols if got.get(c["name"]) != c["duckdb"]],
        "polars_mismatches": [c["name"] for c in cols if pgot.get(c["name"]) != c["polars"]],
    }
    if table == "events":
        r["latency_ms"] = [got["latency_ms"], pgot["latency_ms"]]
        untyped = duckdb.read_csv(str(out / "events.csv"), header=True)
        r["untyped_latency_ms"] = str(dict(zip(untyped.columns, untyped.types))["latency_ms"])
    res[table] = r
print(json.dumps(res))
"#;

#[test]
fn a_bad_trace_line_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("bad.jsonl");
    std::fs::write(&trace, "{\"v\":1,\"ep\":\"e\",\"t\":0,\"kind\":\"episode_start\"}\nnot json\n{}\n").unwrap();
    let out = dir.path().join("x");
    let (code, _, err) = gatecrew(&["export", trace.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.jsonl:1") || err.contains("bad.jsonl:2"), "{err}");
}
