#!/bin/bash
# The suite's test split under `gated` with a real language model as the tier-3
# adjudicator (issue 15), and its reproduction without a server.
#
#   record: scripts/suite-llm.sh record BIN URL MODEL OUT REPLAYS
#     runs every test-split episode with --llm-url URL --model MODEL, traces into
#     OUT/gated/<episode>.jsonl, and writes REPLAYS/<episode>.jsonl for each episode: its
#     episode_start and adjudication lines, which is all that `run --replay-adjudications`
#     reads (the verdicts, raw replies, tokens, latencies; none where the model was never
#     consulted).
#   replay: scripts/suite-llm.sh replay BIN REPLAYS OUT
#     runs the same episodes with the recorded verdicts, traces into OUT/gated/.
#
# With GATE=FILE in the environment both modes run with `--gate FILE` (the boundary
# study's gray zones, configs/gates/boundary-*.toml); a replay must use the recording's.
# With LLM_TIMEOUT_MS=N, record gives each call N ms instead of the config's timeout
# (2000 by default), for a loaded machine; the verdicts replay the same either way.
# With SUITE=DIR they run that suite's test split (default configs/suite; suite v2 is
# configs/suite-v2, whose recordings are in configs/suite-v2/replays).
#
# The two OUT folders then hold byte-identical traces: `gatecrew analyze OUT` gives the
# same table either way (docs/results.md, "gated with a language model").
set -euo pipefail
mode=$1
suite=${SUITE:-configs/suite}
export SUITE=$suite
gate=()
[ -n "${GATE:-}" ] && gate=(--gate "$GATE")
timeout=()
[ -n "${LLM_TIMEOUT_MS:-}" ] && timeout=(--llm-timeout-ms "$LLM_TIMEOUT_MS")
episodes() { # the test split's episode files, in manifest order
  python3 - <<'PY'
import tomllib
import os
suite = os.environ["SUITE"]
m = tomllib.load(open(f"{suite}/suite.toml", "rb"))
for e in m["episode"]:
    if e["split"] == "test":
        print(e["id"], f"{suite}/" + e["file"])
PY
}
case $mode in
record)
  BIN=$2; URL=$3; MODEL=$4; OUT=$5; REPLAYS=$6
  mkdir -p "$OUT/gated" "$REPLAYS"
  n=0
  while read -r id file; do
    n=$((n + 1))
    printf '\r%3d/100 %s' "$n" "$id" >&2
    "$BIN" run --stepper --quiet --config "$file" --policy gated "${gate[@]}" --llm-url "$URL" --model "$MODEL" \
      "${timeout[@]}" --trace "$OUT/gated/$id.jsonl" >/dev/null
    grep -E '"kind":"(episode_start|adjudication)"' "$OUT/gated/$id.jsonl" >"$REPLAYS/$id.jsonl"
  done < <(episodes)
  echo >&2
  ;;
replay)
  BIN=$2; REPLAYS=$3; OUT=$4
  mkdir -p "$OUT/gated"
  while read -r id file; do
    "$BIN" run --stepper --quiet --config "$file" --policy gated "${gate[@]}" --replay-adjudications "$REPLAYS/$id.jsonl" \
      --trace "$OUT/gated/$id.jsonl" >/dev/null
  done < <(episodes)
  ;;
*)
  echo "usage: $0 record BIN URL MODEL OUT REPLAYS | replay BIN REPLAYS OUT" >&2
  exit 2
  ;;
esac
