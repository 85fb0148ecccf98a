#!/usr/bin/env python3
"""Trace reading throughput of `gatecrew analyze` against DuckDB and polars, on the same
files, in one run (issue 20; docs/benchmarks.md, "Analysis").

usage: scripts/analysis-vs-duckdb.py BIN DIR [--repeat N] [--before BIN2]

DIR holds the traces (e.g. written by `BIN suite run --split all --policy ... --out DIR`).
Each reader is timed N times (default 3) and its best time kept:
  gatecrew analyze DIR --json, on one core (RAYON_NUM_THREADS=1) and on every core;
  DuckDB: read_json_auto (its defaults) over every file, one thread (SET threads = 1),
  counting events per episode and kind;
  polars: scan_ndjson of the same files, one thread (POLARS_MAX_THREADS=1), the same
  count.
With --before, BIN2 (another build, e.g. the commit before a change) is timed the same
way in the same run, for a before/after taken under the same load.
Prints MB/s of each and the ratios to DuckDB's single thread. Each reader runs in its own
process, so the thread settings hold and a warm page cache serves them all alike (every
file is read once before timing).
"""
import glob
import os
import subprocess
import sys
import time

DUCKDB = """
import duckdb, sys
con = duckdb.connect()
con.execute("SET threads = 1")
n = con.execute(
    "SELECT count(*) FROM (SELECT ep, kind, count(*) FROM read_json_auto(?) GROUP BY ep, kind)",
    [sys.argv[1]],
).fetchone()[0]
print(n)
"""

POLARS = """
import polars as pl, sys
schema = {"v": pl.Int64, "ep": pl.String, "t": pl.Int64, "kind": pl.String}
lf = pl.scan_ndjson(sys.argv[1], schema=schema)
print(lf.group_by("ep", "kind").len().collect().height)
"""


def best(cmd, env, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bin_, root = sys.argv[1], sys.argv[2]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    pattern = os.path.join(root, "**", "*.jsonl")
    files = sorted(glob.glob(pattern, recursive=True))
    if not files:
        sys.exit(f"no .jsonl under {root}")
    size = 0
    for f in files:
        with open(f, "rb") as fh:
            size += len(fh.read())
    before = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
    env = dict(os.environ)
    one = dict(env, RAYON_NUM_THREADS="1", POLARS_MAX_THREADS="1")
    rows = [
        ("gatecrew analyze, 1 core", best([bin_, "analyze", root, "--json"], one, repeat)),
        (f"gatecrew analyze, {os.cpu_count()} cores", best([bin_, "analyze", root, "--json"], env, repeat)),
        ("DuckDB read_json_auto, 1 thread", best([sys.executable, "-c", DUCKDB, pattern], one, repeat)),
        ("polars scan_ndjson, 1 thread", best([sys.executable, "-c", POLARS, pattern], one, repeat)),
    ]
    if before:
        rows += [
            ("before: analyze, 1 core", best([before, "analyze", root, "--json"], one, repeat)),
            (f"before: analyze, {os.cpu_count()} cores", best([before, "analyze", root, "--json"], env, repeat)),
        ]
    duck = rows[2][1]
    print(f"{len(files)} traces, {size / 1e6:.1f} MB; best of {repeat}")
    print(f"{'reader':34} {'s':>7} {'MB/s':>8} {'vs DuckDB':>10}")
    for name, secs in rows:
        print(f"{name:34} {secs:7.3f} {size / 1e6 / secs:8.1f} {duck / secs:9.2f}x")


if __name__ == "__main__":
    main()
