#!/bin/bash
# Runs a fixed set of scripted interactive sessions (those of tests/it/hitl, the one in
# docs/hitl.md, a seat session on a MineCollab human task, and a few more phrasings) and
# writes, per session, what a refactor of the partner must keep: the intents (type, node,
# parent, classifier), the plan operations (op, active label, added, removed, repairs),
# the validator verdicts (label, pass), what the bot said, and how the episode ended.
# Node numbers and node counts are left out (a refactor may renumber the plan), as are
# wall-clock latencies. Run it before and after and diff the two directories:
#   scripts/hitl-session-digests.sh BIN OUT_DIR
set -euo pipefail
BIN=$1; OUT=$2
rm -rf "$OUT"; mkdir -p "$OUT/scripts" "$OUT/traces" "$OUT/summaries"
P=configs/hitl/partner.toml
H=tests/fixtures/hitl/house.toml
N=tests/fixtures/hitl/house-no-glass.toml
T=tests/fixtures/external/minecollab/human_ai_1_agent_1_human.json
session() { # name config merge-ticks script-text
  local name=$1 cfg=$2 merge=$3; shift 3
  printf '%b' "$*" > "$OUT/scripts/$name.txt"
  local src=(--config "$cfg"); [[ $cfg == *.json ]] && src=(--task "$cfg")
  "$BIN" run "${src[@]}" --interactive --script "$OUT/scripts/$name.txt" --merge-ticks "$merge" --no-memory \
    --trace "$OUT/traces/$name.jsonl" --quiet > "$OUT/traces/$name.out" 2>&1 || echo "exit $?" >> "$OUT/traces/$name.out"
  python3 - "$OUT/traces/$name.jsonl" > "$OUT/summaries/$name.txt" <<'PY'
import json, sys
keep = {
    "human": ("agent", "text", "lines"),
    "intent": ("agent", "type", "node", "parent", "classifier", "fallback"),
    "plan": ("agent", "op", "label", "added", "removed", "repairs"),
    "validator": ("agent", "label", "criterion", "pass", "evidence"),
    "say": ("agent", "what", "text"),
    "memory": ("agent", "op", "text", "provenance"),
    "action": ("agent", "action", "ok"),
}
for line in open(sys.argv[1]):
    e = json.loads(line)
    k = e.get("kind")
    if k in keep:
        print(e["t"], k, json.dumps({f: e.get(f) for f in keep[k]}, sort_keys=True))
    elif k == "episode_end":
        print(e["t"], k, json.dumps({f: v for f, v in e.items() if f not in ("v", "ep")}, sort_keys=True))
PY
}
session scripted-a "$P" 5 '0 also get 3 oak logs\n10 switch to the oak logs\n60 there are oak logs in the chest at 6 0 -6\n'
session scripted-b "$P" 5 "0 also get 2 oak logs\n10 also get 4 oak logs\n20 switch to the oak logs\n30 the second one\n50 skip building\n80 hi, how many oak logs do you have?\n100 stop\n200 go on\n300 stop what you're doing and make a crafting table\n"
session merged "$P" 20 '0 hi\n3 mine wood\n6 2 pieces\n'
session counts "$P" 5 '0 get 1100000000 crafting tables\n10 get 0 sticks\n20 make me zero torches instead\n40 get 2304 planks\n50 stop\n'
session bed "$P" 5 '50 make a bed\n'
session told "$P" 5 '0 the wool is in the chest at 6 0 -6\n'
session docs "$P" 40 '0    also get 3 oak logs\n10   switch to the oak logs\n60   there are oak logs in the chest at 6 0 -6\n'
session pickaxe "$P" 5 '0 make a wooden pickaxe\n200 also get 4 torches\n400 leave out the sticks\n'
session furnace "$P" 5 '0 build a furnace instead\n100 what are you doing?\n'
session glass "$H" 5 '0 leave out the glass\n'
session top "$H" 5 '0 start with the top layer\n'
i=0; for l in 'HOLD ON!!' 'could you please stop' 'wait, what are you doing?' 'stpo'; do
  session "stop$i" "$H" 5 "60 $l\n400 go on\n"; i=$((i+1)); done
session quiet "$H" 5 ''
session questions "$H" 5 '20 what are you doing?\n40 what are you holding?\n60 where is the glass?\n80 why did you stop?\n'
session which "$H" 5 '0 skip the wall\n10 the south one\n30 the roof can wait\n'
session windows-back "$H" 5 '0 leave out the glass\n100 put the windows back\n'
session noglass "$N" 5 ''
session noglass-skip "$N" 5 '0 leave out the glass\n'
session seat-yes "$T" 40 '0 yes\n'
session seat-no "$T" 40 '0 no\n'
(cd "$OUT/summaries" && sha256sum *.txt) > "$OUT/digests.txt"
# The whole traces too: a change that keeps the plan's numbering keeps them byte for byte.
(cd "$OUT/traces" && sha256sum *.jsonl) > "$OUT/trace-digests.txt"
echo "$(wc -l < "$OUT/digests.txt") sessions: $OUT/digests.txt"
