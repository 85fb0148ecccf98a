#!/bin/bash
# Writes the SHA-256 of every kitchen trace a fixed set of `gatecrew cos` runs produces,
# and of each run's JSON rows, so that a refactor meant to preserve the kitchen's
# behaviour can show it did: run it before and after and diff the two lists (the
# kitchen's counterpart of scripts/trace-digests.sh; docs/design-notes.md, "Checking a
# refactor").
#   every level, the three policies (dispatcher, gated, flatcomm), crews of 1-4;
#   scripted decisions, file and oracle timing, seeds 0-2;
#   the llm executor (built-in profile): file timing, seeds 0-1; oracle timing at 4x
#   the error rates, seed 0;
#   all of it on the stepper and on the actor runtime.
# The list has the stepper's and the actors' digests side by side under the same names
# (so a diff also shows where the runtimes disagree), each run's rows, and
# `gatecrew analyze --json` over the stepper's traces and its `check` of one trace per policy.
# The dispatcher over a real model (`--llm-url`) is not in it: its replies and latencies
# are the server's.
# usage: scripts/kitchen-digests.sh BIN OUT_DIR   (the list goes to OUT_DIR/digests.txt)
set -euo pipefail
BIN=$(realpath "$1"); OUT=$2
rm -rf "$OUT"; mkdir -p "$OUT/runs" "$OUT/rows"
run() { # name args...
  local name=$1; shift
  for rt in stepper actors; do
    mkdir -p "$OUT/runs/$rt"
    "$BIN" cos --agents 1,2,3,4 --runtime "$rt" --json --trace "$OUT/runs/$rt" "$@" > "$OUT/rows/$rt-$name.json"
  done
}
for timing in file oracle; do
  for seed in 0 1 2; do run "scripted-$timing-s$seed" --timing "$timing" --seed "$seed"; done
done
for seed in 0 1; do run "llm-file-s$seed" --executor llm --seed "$seed"; done
run llm-oracle-x4-s0 --executor llm --timing oracle --error-scale 4
"$BIN" analyze --json --ci 200 "$OUT/runs/stepper" > "$OUT/rows/analyze.json"
for p in dispatcher gated flatcomm; do
  (cd "$OUT/runs/stepper" && "$BIN" check "level_3-$p-a3-x1.5-file-scripted-s0.jsonl") > "$OUT/rows/check-$p.txt" 2>&1 || echo "exit $?" >> "$OUT/rows/check-$p.txt"
done
(cd "$OUT" && find runs rows -type f | sort | xargs sha256sum) > "$OUT/digests.txt"
# The runtimes must agree: the same names with the same digests.
(cd "$OUT/runs/stepper" && sha256sum -- *.jsonl) > "$OUT/stepper.txt"
(cd "$OUT/runs/actors" && sha256sum -- *.jsonl) > "$OUT/actors.txt"
if cmp -s "$OUT/stepper.txt" "$OUT/actors.txt"; then same=identical; else same=DIFFERENT; fi
echo "$(wc -l < "$OUT/stepper.txt") traces per runtime (stepper and actors $same), $(find "$OUT/rows" -type f | wc -l) row files: $OUT/digests.txt"
