#!/usr/bin/env bash
# `shellgate run` of a command writing 1 GiB to stdout, next to the same
# command redirected straight to a file, in the same run: wall time (median
# of RUNS, alternating) and shellgate's peak RSS. Both write to the same file
# system ($TMPDIR, where the sink spills its artifact). Sandboxed when the
# kernel has landlock, else `--no-sandbox` (said in the output).
# Budget (issue 7): wall <= 1.2x the redirect, peak RSS < 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-5}
BYTES=${BYTES:-1073741824}
cargo build --release --quiet
bin=$PWD/target/release/shellgate
work=$(mktemp -d "${TMPDIR:-/tmp}/shellgate-run-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
cmd="yes | head -c $BYTES"
sandbox=()
if ! "$bin" run --policy tests/fixtures/allow-all.toml --cwd "$work" --json -- true > "$work/probe.json" 2>&1; then
  sandbox=(--no-sandbox)
  echo "landlock unavailable: measuring with --no-sandbox"
fi
: > "$work/direct.times"; : > "$work/run.times"; : > "$work/run.rss"
for _ in $(seq "$RUNS"); do
  /usr/bin/time -f "%e" -o "$work/t" bash -c "$cmd > '$work/direct.out'"
  cat "$work/t" >> "$work/direct.times"
  rm -f "$work/direct.out"
  /usr/bin/time -f "%e %M" -o "$work/t" "$bin" run --policy tests/fixtures/allow-all.toml \
    --cwd "$work" --json "${sandbox[@]}" -- "$cmd" > "$work/run.json"
  awk '{print $1}' "$work/t" >> "$work/run.times"
  awk '{print $2}' "$work/t" >> "$work/run.rss"
  read -r total artifact < <(python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["run"]["output"]; print(o["total_bytes"], o["artifact"])' "$work/run.json")
  [ "$total" = "$BYTES" ] || { echo "run reported $total bytes, expected $BYTES" >&2; exit 1; }
  [ "$(stat -c %s "$artifact")" = "$BYTES" ] || { echo "artifact $artifact is not $BYTES bytes" >&2; exit 1; }
  rm -f "$artifact"
done
direct=$(median < "$work/direct.times")
run=$(median < "$work/run.times")
rss=$(sort -n "$work/run.rss" | tail -1)
echo "bytes:                          $BYTES"
echo "redirect to a file (baseline):  ${direct} s"
echo "shellgate run:                  ${run} s   ($(ratio "$run" "$direct")x)"
echo "shellgate peak RSS (max):       ${rss} KiB"
