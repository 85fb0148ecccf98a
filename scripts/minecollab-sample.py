#!/usr/bin/env python3
"""Runs a seeded random sample of MineCollab's generated construction tasks.

    scripts/minecollab-sample.py BIN GEN_DIR N [SEED] > rows.jsonl

GEN_DIR is the output of scripts/minecollab-generate.mjs (train/ and test/, each with
2agents.json .. 5agents.json). N tasks are drawn with Python's random.Random(SEED)
(default 1) from all of them, in a fixed order (file, then task id), and each is run once
with `BIN run --task FILE --task-id ID --json --quiet --stepper`; one JSON line per task
goes to stdout (file, id, and the run's tsr, complete, cells_dropped, ticks, reason, cs,
msg, cpu_s), a summary to stderr. Task ids are the keys of each file's top-level object,
in file order (json.load: about 1.5 s and 1 GB for one 80 MB file); the listing of
`BIN run --task FILE` is a table for people, whose id column wraps long ids.
"""
import json, os, random, resource, subprocess, sys, tempfile, time

def ids_of(path):
    with open(path, encoding="utf-8") as f:
        return list(json.load(f))

def main():
    bin_, gen, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    files = [os.path.join(gen, split, f"{k}agents.json") for split in ("train", "test") for k in (2, 3, 4, 5)]
    pool = [(f, i) for f in files for i in ids_of(f)]
    pick = random.Random(seed).sample(pool, n)
    done = complete = 0
    for f, i in pick:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.time()
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([bin_, "run", "--task", f, "--task-id", i, "--json", "--quiet", "--stepper",
                                "--trace", os.path.join(tmp, "t.jsonl")], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        row = {"file": os.path.relpath(f, gen), "id": i, "exit": p.returncode, "cpu_s": round(cpu, 2),
               "wall_s": round(time.time() - t0, 2)}
        try:
            v = json.loads(p.stdout)
            row.update({k: v.get(k) for k in ("tsr", "complete", "cells_dropped", "ticks", "end_reason", "cs", "msg",
                                               "blueprint_blocks", "agents")})
            done += 1
            complete += bool(v.get("complete"))
        except json.JSONDecodeError:
            row["error"] = (p.stderr.strip().splitlines() or ["?"])[-1]
        print(json.dumps(row), flush=True)
    print(f"{n} sampled (seed {seed}) of {len(pool)}: {done} ran, {complete} complete", file=sys.stderr)

if __name__ == "__main__":
    main()
