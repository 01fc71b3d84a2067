#!/usr/bin/env bash
# Whole-process cost of `shellgate check --batch` over the corpus.
# Reports the median wall time of RUNS runs and the per-command median, next to
# the cost of starting the process with an empty batch (the baseline, same run).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-30}
cargo build --release --quiet
bin=target/release/shellgate
jsonl=$(mktemp)
python3 bench/corpus-jsonl.py > "$jsonl"
n=$(wc -l < "$jsonl")
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
time_runs() { # $1 = input file
  for _ in $(seq "$RUNS"); do
    s=$(date +%s%N); "$bin" check --batch < "$1" > /dev/null; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
  done | median
}
empty=$(mktemp)
base=$(time_runs "$empty")
full=$(time_runs "$jsonl")
per=$(awk -v f="$full" -v b="$base" -v n="$n" 'BEGIN {printf "%.1f", (f - b) / n}')
echo "commands:                 $n"
echo "empty batch (baseline):   ${base} µs median of $RUNS"
echo "corpus batch:             ${full} µs median of $RUNS"
echo "per command (corpus):     ${per} µs  ((corpus - empty) / n)"
if command -v /usr/bin/time >/dev/null; then
  /usr/bin/time -f "peak RSS: %M KiB" "$bin" check --batch < "$jsonl" > /dev/null
fi
rm -f "$jsonl" "$empty"
