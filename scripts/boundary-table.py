#!/usr/bin/env python3
"""The boundary study's table in docs/results.md, from `gatecrew analyze --json` outputs.

usage: scripts/boundary-table.py SUITE_JSON LLM_PREFIX

SUITE_JSON is `analyze --json` of the suite run (its rule_score group is the "none"
row); LLM_PREFIX.json, LLM_PREFIX-narrow.json, LLM_PREFIX-wide.json and
LLM_PREFIX-all.json are `analyze --json` of the four recordings' traces
(scripts/suite-llm.sh record|replay ... OUT; analyze OUT --json > LLM_PREFIX[-set].json).
Prints the Markdown table.
"""
import json
import sys


def cells(path, policy):
    report = json.load(open(path))["report"]
    for g in report["groups"]:
        if g.get("policy") == policy and g.get("key") == "all":
            return {c["metric"]: (c["interval"]["value"] if c.get("interval") else None) for c in g["cells"]}
    sys.exit(f"{path}: no group for policy {policy}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    suite, prefix = sys.argv[1], sys.argv[2]
    rows = [
        ("none (`rule_score`: one threshold at 0.75)", suite, "rule_score"),
        ("narrow: [0.70, 0.80)", prefix + "-narrow.json", "gated"),
        ("default: [0.60, 0.90)", prefix + ".json", "gated"),
        ("wide: [0.50, 1.00)", prefix + "-wide.json", "gated"),
        ("every issue tier 1 leaves: [0, 1.00)", prefix + "-all.json", "gated"),
    ]
    pct = lambda v: "–" if v is None else f"{100 * v:.1f}%"
    num = lambda v, f="{:.1f}": "–" if v is None else f.format(v)
    print("| gray zone (test split, n=100 each) | TSR | complete | Msg | ECR | LRR | UER@600 | UER@1200 | UER_faster | calls/issue | tokens/call | p50 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, path, policy in rows:
        c = cells(path, policy)
        print(
            f"| {name} | {c['tsr']:.3f} | {pct(c['complete'])} | {num(c['msg'])} | {pct(c['ecr'])} | {pct(c['lrr'])} "
            f"| {pct(c['uer600'])} | {pct(c['uer1200'])} | {pct(c['uer_faster'])} | {num(c['llm_calls'], '{:.2f}')} "
            f"| {num(c['llm_tokens'])} | {num(c['latency_p50'], '{:.0f}')} |"
        )


main()
