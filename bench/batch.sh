#!/usr/bin/env bash
# Whole-process cost of `shellgate check --batch` over the corpus, next to the
# same process given an empty batch (start-up and policy loading: the
# baseline), both timed by hyperfine in the same run; per command =
# (corpus - empty) / commands. Peak RSS with /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-30}
for tool in hyperfine /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "needs $tool (apt-get install hyperfine time)" >&2; exit 69; }
done
cargo build --release --quiet
bin=$PWD/target/release/shellgate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/corpus-jsonl.py > "$work/corpus.jsonl"
: > "$work/empty.jsonl"
n=$(wc -l < "$work/corpus.jsonl")
hyperfine --style none --warmup 3 --runs "$RUNS" --export-json "$work/h.json" \
  -n empty "$bin check --batch < $work/empty.jsonl" \
  -n corpus "$bin check --batch < $work/corpus.jsonl" > /dev/null
python3 - "$work/h.json" "$n" <<'PY'
import json, sys
r = {x["command"]: x["median"] * 1e6 for x in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
print(f"commands:                 {n}")
print(f"empty batch (baseline):   {r['empty']:.0f} µs (median)")
print(f"corpus batch:             {r['corpus']:.0f} µs (median)")
print(f"per command (corpus):     {(r['corpus'] - r['empty']) / n:.1f} µs  ((corpus - empty) / n)")
PY
/usr/bin/time -f "peak RSS: %M KiB" "$bin" check --batch < "$work/corpus.jsonl" > /dev/null
