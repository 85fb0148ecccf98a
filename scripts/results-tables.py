#!/usr/bin/env python3
"""Rewrites the per-class tables of docs/results.md from `gatecrew analyze --json`.

usage: scripts/results-tables.py ANALYZE_JSON [RESULTS_MD]

The tables are the part between the `![results](results.svg)` line and the next `## `
heading; everything else in the file (the commands, the targets, the prose) is kept.
Each table is one group of the report (`**all**`, then each class), one column per
policy in the order the report lists them: TSR to three places, counts and ticks to one,
rates as percentages, each with its 95% bootstrap interval in brackets unless the
interval is a point; `–` where a rate has no denominator.
"""
import json
import sys

METRICS = [  # (report name, row label, format)
    ("tsr", "TSR", "f3"), ("complete", "complete", "pct"), ("cs", "CS", "f1"), ("ticks", "ticks", "f1"),
    ("msg", "Msg", "f1"), ("msg_tokens", "Msg tokens", "f1"), ("lrr", "LRR", "pct"), ("uer", "UER", "pct"),
    ("uer300", "UER@300", "pct"), ("uer600", "UER@600", "pct"), ("uer1200", "UER@1200", "pct"),
    ("uer2400", "UER@2400", "pct"), ("uer_faster", "UER_faster", "pct"),
    ("ecr", "ECR", "pct"), ("rsr", "RSR", "pct"), ("waits", "dep. waits", "f1"), ("waits_cleared", "waits cleared", "pct"),
]


def fmt(v, kind):
    return f"{v:.3f}" if kind == "f3" else f"{v:.1f}" if kind == "f1" else f"{100 * v:.1f}%"


def cell(c, kind):
    iv = c.get("interval") if c else None
    if iv is None or iv.get("value") is None:
        return "–"
    v, lo, hi = iv["value"], iv.get("lo"), iv.get("hi")
    if lo is None or hi is None or fmt(lo, kind) == fmt(hi, kind):
        return fmt(v, kind)
    return f"{fmt(v, kind)} [{fmt(lo, kind)}, {fmt(hi, kind)}]"


def tables(report):
    policies = report["policies"]
    keys = ["all"] + [k for k in report["keys"] if k != "all"]
    out = []
    for key in keys:
        groups = {g["policy"]: g for g in report["groups"] if g["key"] == key}
        if not groups:
            continue
        out += [f"**{key}**", ""]
        def name(p):
            g = groups[p]
            return f"{p} (n={g['episodes']}, det. tier 3)" if g.get("deterministic_tier3") else f"{p} (n={g['episodes']})"
        head = " | ".join(name(p) for p in policies if p in groups)
        out += [f"| metric | {head} |", "|---" * (1 + len(groups)) + "|"]
        for name, label, kind in METRICS:
            cells = []
            for p in policies:
                if p in groups:
                    c = next((c for c in groups[p]["cells"] if c["metric"] == name), None)
                    cells.append(cell(c, kind))
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def main():
    report = json.load(open(sys.argv[1]))["report"]
    path = sys.argv[2] if len(sys.argv) > 2 else "docs/results.md"
    lines = open(path).read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("![results]")) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("## "))
    lines[start:end] = [""] + tables(report)
    open(path, "w").write("\n".join(lines))


main()
