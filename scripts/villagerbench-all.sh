#!/bin/bash
# Runs every task of VillagerBench's blueprint_description_all.json and writes one line
# per task (id, ok/rc, TSR, end reason, blocks, warnings, recall). docs/tasks.md.
# usage: scripts/villagerbench-all.sh BIN OUT
BIN=$1; OUT=$2; V=${VILLAGERBENCH:-tests/fixtures/external/villagerbench}; T=$(mktemp -d)
: > $OUT
for i in $(seq 0 99); do
  r=$($BIN run --task $V/blueprint_description_all.json --task-id task_$i --quiet --json --stepper --trace $T/t$i.jsonl 2>$T/err$i)
  rc=$?
  if [ $rc -eq 0 ]; then echo "task_$i ok $(echo "$r" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["tsr"], s["end_reason"], s["blueprint_blocks"], len(s.get("warnings",[])), s.get("villager_recall"))')" >> $OUT
  else echo "task_$i rc=$rc $(tail -c 300 $T/err$i | tr '\n' ' ')" >> $OUT; fi
done
