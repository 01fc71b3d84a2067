#!/usr/bin/env bash
# Whole-process cost of one hook call (`shellgate hook claude-code`), next to
# the cost of spawning and waiting for /bin/true, measured in the same run.
# Reports medians over N calls (default 300) with the embedded default policy
# and with an extra 500-rule policy, and the hook's peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-300}
cargo build --release --quiet
bin=$PWD/target/release/shellgate
payload=$(mktemp)
cat tests/fixtures/hooks/claude-allow.json > "$payload"
rules=$(mktemp --suffix=.toml)
python3 - "$rules" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(500):
        f.write(f'[[rule]]\nid = "r{i}"\ndecision = "allow"\ncommand = "tool{i}"\nargs = ["sub{i}"]\nforbid_flags = ["--exec"]\n\n')
PY
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Each sample times one process in nanoseconds with bash's own clock (no extra fork).
sample() { # command...
  for _ in $(seq "$N"); do
    local s=$EPOCHREALTIME
    "$@" < "$payload" > /dev/null
    local e=$EPOCHREALTIME
    echo "$(( (${e/./} - ${s/./}) ))"
  done | median
}
true_us=$(sample /bin/true)
hook_us=$(sample "$bin" hook claude-code)
hook500_us=$(sample "$bin" hook claude-code --policy "$rules")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "calls per figure:            $N (median, µs)"
echo "spawn+wait /bin/true:        $true_us"
echo "hook, embedded default:      $hook_us   ($(ratio "$hook_us" "$true_us")x /bin/true)"
echo "hook, + 500-rule policy:     $hook500_us   ($(ratio "$hook500_us" "$true_us")x /bin/true)"
/usr/bin/time -f "hook peak RSS:               %M KiB" "$bin" hook claude-code < "$payload" > /dev/null
if command -v valgrind > /dev/null; then
  ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" hook claude-code < "$payload" 2>&1 >/dev/null | awk '/Collected/ {print $4}')
  echo "hook instructions (callgrind): $ir"
fi
rm -f "$payload" "$rules"
