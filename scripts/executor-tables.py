#!/usr/bin/env python3
"""Every table of docs/executor.md (issue 16) from one command: suite v2's held-out (test)
split for all seven policies under the scripted executor and under the `llm` executor
at 0, 1/2, 1 and 2 x the fitted error rate (per policy and per class), and the crew-size
sweep on the default house (2, 3, 4, 8 bots, 10 seeds, 1/2 the fitted rate).

usage: scripts/executor-tables.py BIN OUT_DIR
  BIN      the gatecrew binary (a release build: ~4,000 episodes)
  OUT_DIR  scratch folder for the traces; the tables go to stdout as Markdown
"""
import json, subprocess, sys
from pathlib import Path

POLICIES = ["gated", "rule_score", "rule_only", "no_gate", "no_partition", "flatcomm", "central_dag"]
SCALES = ["0", "0.5", "1", "2"]
CREW = [2, 3, 4, 8]
CREW_POLICIES = ["gated", "flatcomm", "central_dag"]


def run(*args: str) -> str:
    return subprocess.run(list(args), check=True, capture_output=True, text=True).stdout


def analyze(bin_: str, runs: Path, by: str) -> dict:
    a = json.loads(run(bin_, "analyze", str(runs), "--by", by, "--json", "--ci", "none"))
    # Keyed by policy (--by policy) or by "policy,class" (--by class).
    key = lambda g: g["policy"] if by == "policy" else f'{g["policy"]},{g["key"]}'
    return {key(g): {c["metric"]: (c["interval"] or {}).get("value") for c in g["cells"]} | {"n": g["episodes"]}
            for g in a["report"]["groups"]}


def suite(bin_: str, out: Path, name: str, *extra: str) -> Path:
    runs = out / name
    subprocess.run(["rm", "-rf", str(runs)], check=True)
    run(bin_, "suite", "run", "--suite", "configs/suite-v2", "--split", "test", "--policy", ",".join(POLICIES),
        "--out", str(runs), *extra)
    print(f"ran {name}", file=sys.stderr, flush=True)
    return runs


def episode_tsr(runs: Path, policy: str) -> dict:
    """Each episode's TSR (its trace's last line, `episode_end`), by file name."""
    out = {}
    for f in sorted((runs / policy).glob("*.jsonl")):
        last = f.read_bytes().rstrip().rsplit(b"\n", 1)[-1]
        out[f.name] = json.loads(last)["tsr"]
    return out


def paired(runs: Path, a: str, b: str, seed: int = 16) -> str:
    """Mean TSR difference a - b over the same episodes, with a paired bootstrap 95%
    interval (2,000 resamples, a fixed seed: the same numbers every run)."""
    import random
    ta, tb = episode_tsr(runs, a), episode_tsr(runs, b)
    d = [ta[k] - tb[k] for k in sorted(ta.keys() & tb.keys())]
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(2000))
    return f"{sum(d) / len(d):+.3f} [{means[49]:+.3f}, {means[1949]:+.3f}] (n = {len(d)})"


def row(label: str, cells: list[str]) -> str:
    return f"| {label} | " + " | ".join(cells) + " |"


def main() -> None:
    bin_, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    by_policy, by_class = {}, {}
    for name, extra in [("scripted", [])] + [(f"llm-x{x}", ["--executor", "llm", "--error-scale", x]) for x in SCALES]:
        runs = suite(bin_, out, name, *extra)
        by_policy[name] = analyze(bin_, runs, "policy")
        by_class[name] = analyze(bin_, runs, "class")

    print("| executor (error scale) | " + " | ".join(POLICIES) + " |")
    print("|---|" + "---|" * len(POLICIES))
    for name, m in by_policy.items():
        get = lambda p, k: m[p][k]
        print(row(f"{name}: TSR", [f"{get(p, 'tsr'):.3f}" for p in POLICIES]))
        print(row(f"{name}: complete", [f"{get(p, 'complete'):.0%}" for p in POLICIES]))
        print(row(f"{name}: ticks", [f"{get(p, 'ticks'):.0f}" for p in POLICIES]))
        if name != "scripted":
            print(row(f"{name}: calls / tokens a call",
                      [f"{get(p, 'exec_calls'):.0f} / {get(p, 'exec_tokens'):.0f}" for p in POLICIES]))
            print(row(f"{name}: mistakes", [f"{get(p, 'exec_mistakes'):.1%}" for p in POLICIES]))

    print()
    print("| run | gated - flatcomm | gated - central_dag | gated - no_gate | gated - no_partition |")
    print("|---|---|---|---|---|")
    for name in ["llm-x1", "llm-x0.5"]:
        print(row(name, [paired(out / name, "gated", b) for b in ["flatcomm", "central_dag", "no_gate", "no_partition"]]))

    print()
    print("| run | class (n) | " + " | ".join(POLICIES) + " |")
    print("|---|---|" + "---|" * len(POLICIES))
    for name in ["llm-x1", "llm-x0.5"]:
        m = by_class[name]
        classes = sorted({k.split(",", 1)[1] for k in m} - {"all"})
        for c in classes:
            n = m.get(f"gated,{c}", {}).get("n", 0)
            print(row(f"{name} | {c} ({n})", [f"{m[f'{p},{c}']['tsr']:.3f}" if f"{p},{c}" in m else "-"
                                               for p in POLICIES]))

    print()
    print("| bots | " + " | ".join(f"{p}: calls / tokens a call / ticks / TSR" for p in CREW_POLICIES) + " |")
    print("|---|" + "---|" * len(CREW_POLICIES))
    for n in CREW:
        runs = out / f"crew-n{n}"
        subprocess.run(["rm", "-rf", str(runs)], check=True)
        for p in CREW_POLICIES:
            for s in range(1, 11):
                run(bin_, "run", "--quiet", "--stepper", "--agents", str(n), "--policy", p, "--seed", str(s),
                    "--executor", "llm", "--error-scale", "0.5", "--trace", str(runs / p / f"s{s}.jsonl"))
        m = analyze(bin_, runs, "policy")
        print(row(str(n), [f"{m[p]['exec_calls']:.0f} / {m[p]['exec_tokens']:.0f} / {m[p]['ticks']:.0f} / "
                           f"{m[p]['tsr']:.2f}" for p in CREW_POLICIES]))
        print(f"ran crew {n}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
