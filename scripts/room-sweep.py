#!/usr/bin/env python3
"""Random 3-bot rooms of oak-plank walls (docs/design-notes.md, "The rest of a partial
transfer"): N rooms 9 x 9, 2-5 high, a roof on 40%, three bots outside on three sides,
the crew's planks exactly the blueprint's, split unevenly; one `run --stepper` each.
Prints one line per room: TSR, windows timed out, board rejections, unreachable refusals.
With `inside`, one of the three bots may start inside the room and 70% have a roof.
usage: scripts/room-sweep.py BIN N SEED [inside]"""
import json, random, shutil, subprocess, sys, tempfile
from pathlib import Path

BIN, N, SEED = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
INSIDE = sys.argv[4:] == ["inside"]
work = Path(tempfile.mkdtemp())
(work / "blueprints").mkdir()
(work / "data").mkdir()
shutil.copy(Path(__file__).resolve().parent.parent / "configs/data/minecraft-1.20.4.json", work / "data")

def blueprint(h, roof):
    walls = [([0, 0, 0], [8, h - 1, 0]), ([0, 0, 8], [8, h - 1, 8]), ([0, 0, 1], [0, h - 1, 7]), ([8, 0, 1], [8, h - 1, 7])]
    if roof:
        walls.append(([0, h, 0], [8, h, 8]))
    return 'name = "room"\n' + "".join(f'[[fill]]\nfrom = {f}\nto = {t}\nblock = "oak_planks"\n' for f, t in walls)

rng = random.Random(SEED)
complete = timeouts = 0
for i in range(N):
    h = rng.choice([2, 3, 3, 4, 5]); roof = rng.random() < (0.7 if INSIDE else 0.4)
    n = 32 * h + (81 if roof else 0)
    starts = []
    for side in rng.sample("WENSI" if INSIDE else "WENS", 3):
        d, o = rng.randint(1, 6), rng.randint(0, 8)
        if side == "I":
            starts.append((rng.randint(1, 7), rng.randint(1, 7)))
        else:
            starts.append({"W": (-d, o), "E": (8 + d, o), "N": (o, -d), "S": (o, 8 + d)}[side])
    few = rng.choice([0, 2, 8, 16])
    inv = [n - 2 * few, few, few] if rng.random() < 0.5 else [(n - few) // 2, n - few - (n - few) // 2, few]
    rng.shuffle(inv)
    dirt = rng.random() < 0.5
    seed = rng.randint(1, 9)
    (work / "blueprints/room.toml").write_text(blueprint(h, roof))
    cfg = (f'blueprint = "blueprints/room.toml"\ndata = "data/minecraft-1.20.4.json"\n[episode]\nname = "room"\n'
           f'seed = {seed}\ntick_limit = 40000\npolicy = "gated"\n[world]\n'
           f'bounds = {{ min = [-12, 0, -12], max = [16, {h + 8}, 16] }}\n')
    for (x, z), k in zip(starts, inv):
        items = ([f"oak_planks = {k}"] if k else []) + (["dirt = 12"] if dirt else [])
        cfg += f'[[agents]]\nstart = [{x}, 0, {z}]\ninventory = {{ {", ".join(items)} }}\n'
    (work / "crew.toml").write_text(cfg)
    trace = work / "trace.jsonl"
    out = subprocess.run([BIN, "run", "--stepper", "--quiet", "--config", str(work / "crew.toml"), "--trace", str(trace), "--json"],
                         capture_output=True, text=True, check=True)
    tsr = json.loads(out.stdout)["tsr"]
    lines = trace.read_text().splitlines()
    to = sum('"outcome":"timeout"' in l for l in lines)
    rej = sum('"kind":"board_reject"' in l for l in lines)
    unr = sum('"reason":"unreachable"' in l for l in lines)
    complete += tsr == 1.0; timeouts += to
    print(f"{i:04d} tsr={tsr:.3f} timeouts={to} rejected={rej} unreachable={unr} h={h} roof={roof} planks={inv} starts={starts} seed={seed} dirt={dirt}")
print(f"{complete}/{N} complete, {timeouts} windows timed out")
shutil.rmtree(work)
