#!/bin/bash
# Writes the SHA-256 of every trace a fixed set of runs produces, one line per trace, so
# that a refactor meant to preserve behaviour can show it did: run it before and after
# and diff the two lists (docs/design-notes.md, "Checking a refactor").
#   the 240-episode suite (split all) under all nine policies;
#   every MineCollab fixture and the VillagerBench example tasks under all nine;
#   all 100 VillagerBench description tasks and the 16 raw farm blueprints, gated;
#   the default run on the stepper and on the actor runtime, under all nine.
# usage: scripts/trace-digests.sh BIN OUT_DIR   (the list goes to OUT_DIR/digests.txt)
set -euo pipefail
BIN=$1; OUT=$2
X=tests/fixtures/external
POLICIES=gated,rule_score,rule_only,no_gate,no_partition,flatcomm,central_dag,gated_flatcomm,gated_central_dag
rm -rf "$OUT"; mkdir -p "$OUT/runs"
"$BIN" suite run --suite configs/suite --split all --policy $POLICIES --out "$OUT/runs/suite" --jobs 2 >/dev/null
ids() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("\n".join(d) if isinstance(d, dict) and len(d) > 1 and "blueprint" not in d and "type" not in d else "-")' "$1"; }
run_task() { # file policy
  for id in $(ids "$1"); do
    local name; name=$(basename "$1" .json)-$id-$2
    if [ "$id" = - ]; then "$BIN" run --stepper --quiet --task "$1" --policy "$2" --trace "$OUT/runs/tasks/$name.jsonl" >/dev/null
    else "$BIN" run --stepper --quiet --task "$1" --task-id "$id" --policy "$2" --trace "$OUT/runs/tasks/$name.jsonl" >/dev/null; fi
  done
}
mkdir -p "$OUT/runs/tasks" "$OUT/runs/default"
for p in ${POLICIES//,/ }; do
  for f in $X/minecollab/*.json $X/villagerbench/examples_task_0_25_50_64.json; do run_task "$f" "$p"; done
  "$BIN" run --stepper --quiet --policy "$p" --trace "$OUT/runs/default/stepper-$p.jsonl" >/dev/null
  "$BIN" run --quiet --policy "$p" --trace "$OUT/runs/default/actors-$p.jsonl" >/dev/null
done
for f in $X/villagerbench/blueprint_description_all.json $X/villagerbench/farm_blue_print.json; do run_task "$f" gated; done
(cd "$OUT/runs" && find . -name '*.jsonl' | sort | xargs sha256sum) > "$OUT/digests.txt"
echo "$(wc -l < "$OUT/digests.txt") traces: $OUT/digests.txt"
