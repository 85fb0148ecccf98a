#!/usr/bin/env python3
"""Fits the `llm` executor's latency and mistake parameters from recorded model-bot
traces (`gatecrew run|suite run --bots model`), never from a paper's figures.

Every `model_call` event of a live recording carries the server's token counts
(`usage`), the wall latency and whether the reply was usable. From those:

  latency  ticks = a + b * prompt_tokens + c * completion_tokens, least squares over
           the calls a server answered (20 ticks a second: latency_ms / 50);
  errors   p(mistake) = p0 + p1 * prompt_tokens / 1000, least squares over the first
           attempt of each decision whose reply arrived, a mistake being a reply the
           bot could not use (`malformed_reply`, `not_an_option`). Transport failures
           (timeouts, refused connections, HTTP errors) are the endpoint's, not the
           model's, and are left out. A replay has its recording's bytes: give each
           recording once.

Each fitted number names the recordings it comes from, with how many calls each gave,
in the profile's `source` lines and in --json's `from`.

usage: scripts/fit-errors.py TRACE_OR_DIR... [--model NAME] [--out PROFILE.toml] [--json]
  TRACE_OR_DIR  trace files (.jsonl) or folders searched for them (a `suite run --out`)
  --model       the model the recordings were made with (the traces do not name it)
  --out         write a latency profile (configs/llm-profiles format) there
  --json        print the fit as JSON instead of a summary

Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TICKS_PER_SECOND = 20  # DESIGN section 6: one tick is 50 ms of game time
READ_ERRORS = {"malformed_reply", "not_an_option"}


def traces(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(p.rglob("*.jsonl")))
        elif p.is_file():
            out.append(p)
        else:
            sys.exit(f"fit-errors: {p}: no such file or folder")
    if not out:
        sys.exit("fit-errors: no traces (.jsonl) among " + " ".join(paths))
    return out


def calls(path: Path) -> list[dict]:
    """The model_call events of one trace; a line that is not JSON is named and fails the run."""
    found = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"fit-errors: {path}:{n}: not a JSON line ({e.msg})")
            if ev.get("kind") == "model_call":
                for key in ("prompt_tokens", "completion_tokens", "latency_ms", "attempt"):
                    if not isinstance(ev.get(key), int):
                        sys.exit(f"fit-errors: {path}:{n}: model_call without an integer {key}")
                found.append(ev)
    return found


def solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None when singular."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def least_squares(xs: list[list[float]], ys: list[float]) -> tuple[list[float], float] | None:
    """Coefficients of y ~ x (x rows carry their own 1 for an intercept) and R^2.

    A column that never varies (every completion the same length) cannot be told from
    the intercept: its coefficient is 0 and the intercept takes it."""
    k = len(xs[0])
    keep = [j for j in range(k) if j == 0 or len({x[j] for x in xs}) > 1]
    xtx = [[sum(x[i] * x[j] for x in xs) for j in keep] for i in keep]
    xty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in keep]
    sol = solve(xtx, xty)
    if sol is None:
        return None
    beta = [0.0] * k
    for j, v in zip(keep, sol):
        beta[j] = v
    mean = sum(ys) / len(ys)
    ss_tot = sum((y - mean) ** 2 for y in ys)
    ss_res = sum((y - sum(bj * xj for bj, xj in zip(beta, x))) ** 2 for x, y in zip(xs, ys))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return beta, r2


def provenance(rows: list[tuple[Path, dict]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p, _ in rows:
        counts[str(p)] = counts.get(str(p), 0) + 1
    return counts


def fit(paths: list[Path]) -> dict:
    answered: list[tuple[Path, dict]] = []
    decided: list[tuple[Path, dict]] = []
    skipped_transport = 0
    for p in paths:
        for ev in calls(p):
            err = ev.get("error")
            if err is not None and err not in READ_ERRORS:
                skipped_transport += 1
                continue
            if ev["latency_ms"] > 0:
                answered.append((p, ev))
            if ev["attempt"] == 1:
                decided.append((p, ev))
    if not answered:
        sys.exit("fit-errors: no answered model calls with a wall latency: were these live --bots model recordings?")
    xs = [[1.0, float(e["prompt_tokens"]), float(e["completion_tokens"])] for _, e in answered]
    ys = [e["latency_ms"] * TICKS_PER_SECOND / 1000.0 for _, e in answered]
    lat = least_squares(xs, ys)
    if lat is None:
        sys.exit("fit-errors: the latencies cannot be fitted (every call had the same token counts?)")
    (a, b, c), r2 = lat
    clamped = [k for k, v in (("latency.a", a), ("latency.b", b), ("latency.c", c)) if v < 0]
    # As gatecrew bench-llm's fit: a negative term (noise on a near-flat one) is 0.
    a, b, c = max(a, 0.0), max(b, 0.0), max(c, 0.0)
    mistakes = sum(1 for _, e in decided if e.get("error") in READ_ERRORS)
    ex = [[1.0, e["prompt_tokens"] / 1000.0] for _, e in decided]
    ey = [1.0 if e.get("error") in READ_ERRORS else 0.0 for _, e in decided]
    errs = least_squares(ex, ey) if decided else None
    p0, p1 = errs[0] if errs else (0.0, 0.0)
    # A probability and a growth: clipped to [0, 1] and to >= 0, as profiles require.
    clamped += [k for k, v in (("errors.p0", p0), ("errors.p1", p1)) if v < 0 or v > 1 and k == "errors.p0"]
    p0, p1 = min(max(p0, 0.0), 1.0), max(p1, 0.0)
    return {
        "latency": {"a": a, "b": b, "c": c, "samples": len(answered), "r2": r2,
                    "from": provenance(answered)},
        "errors": {"p0": p0, "p1": p1, "samples": len(decided), "mistakes": mistakes,
                   "from": provenance(decided)},
        "clamped": clamped,
        "left_out_transport_failures": skipped_transport,
        "prompt_tokens": [min(x[1] for x in xs), max(x[1] for x in xs)],
    }


def named(counts: dict[str, int]) -> str:
    return ", ".join(f"{p} ({n} calls)" for p, n in counts.items())


def profile(f: dict, model: str) -> str:
    lat, err = f["latency"], f["errors"]
    # JSON strings are TOML basic strings: a path with quotes or backslashes stays one.
    q = json.dumps
    lat_src = f"fitted: scripts/fit-errors.py, latency from {lat['samples']} answered calls of {named(lat['from'])}"
    err_src = (f"fitted: scripts/fit-errors.py, {err['mistakes']} unusable replies in {err['samples']} "
               f"decisions of {named(err['from'])}")
    return (
        "# Fitted by scripts/fit-errors.py from recorded --bots model traces.\n"
        f"model = {q(model)}\nsource = {q(lat_src)}\n"
        "\n[latency]\n"
        f"a = {lat['a']}\nb = {lat['b']}\nc = {lat['c']}\nsamples = {lat['samples']}\nr2 = {lat['r2']}\n"
        "\n[errors]\n"
        f"p0 = {err['p0']}\np1 = {err['p1']}\nsource = {q(err_src)}\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--model", default="unknown")
    ap.add_argument("--out")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    f = fit(traces(a.paths))
    if a.out:
        Path(a.out).write_text(profile(f, a.model), encoding="utf-8")
    if a.json:
        print(json.dumps(f, indent=1))
        return
    lat, err = f["latency"], f["errors"]
    print(f"latency: {lat['a']:.3f} + {lat['b']:.5f} * prompt + {lat['c']:.5f} * completion ticks "
          f"(R^2 {lat['r2']:.3f}, {lat['samples']} calls: {named(lat['from'])})")
    print(f"errors:  p0 {err['p0']:.4f}, p1 {err['p1']:.4f} per 1,000 prompt tokens "
          f"({err['mistakes']} unusable replies in {err['samples']} decisions: {named(err['from'])})")
    if f["clamped"]:
        print("clamped to the nearest allowed value: " + ", ".join(f["clamped"]))
    if f["left_out_transport_failures"]:
        print(f"left out: {f['left_out_transport_failures']} calls the endpoint failed (not the model's mistakes)")


if __name__ == "__main__":
    main()
