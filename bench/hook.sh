#!/usr/bin/env bash
# Whole-process cost of one hook call (`shellgate hook claude-code` on an
# allowed `git status` payload), next to spawning and waiting for /bin/true
# with the same stdin, in the same run. Two builds:
#   default  `cargo build --release` (dynamically linked, position-independent);
#   static   the build docs/integrations.md recommends for hooks: linked
#            statically, non-PIE (no dynamic loader work at start-up), with
#            the `hook` profile (release + fat LTO, one codegen unit):
#            RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static"
#            cargo build --profile hook --target <host>.
# Also: a hook with a 500-rule policy file added, instructions per call
# (callgrind) and peak RSS. Budget (issue 7): <= 1.5x /bin/true, < 16 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-300}
for tool in valgrind /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "needs $tool (apt-get install valgrind time)" >&2; exit 69; }
done
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --quiet
RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static" \
  cargo build --profile hook --quiet --target "$host"
dynamic=$PWD/target/release/shellgate
static=$PWD/target/$host/hook/shellgate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
payload=$work/payload.json
cp tests/fixtures/hooks/claude-allow.json "$payload"
rules=$work/rules.toml
python3 - "$rules" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(500):
        f.write(f'[[rule]]\nid = "r{i}"\ndecision = "allow"\ncommand = "tool{i}"\nargs = ["sub{i}"]\nforbid_flags = ["--exec"]\n\n')
PY
# Every answer must be the allow it should be before anything is timed.
for bin in "$dynamic" "$static"; do
  "$bin" hook claude-code < "$payload" | grep -q '"permissionDecision":"allow"' \
    || { echo "$bin does not allow the payload" >&2; exit 1; }
done
# Interleaved rounds: each round times every way once, in turn, with bash's
# own clock around fork+exec+wait (the same overhead for each way), so the
# machine's noise hits them alike. Medians, and ratios to /bin/true. The
# 500-rule runs (~8 ms each) get rounds of their own, so they do not cool the
# caches between the runs of the budget's comparison.
cmd_of() {
  case $1 in
    true) echo /bin/true ;;
    default) echo "$dynamic hook claude-code" ;;
    static) echo "$static hook claude-code" ;;
    default+500) echo "$dynamic hook claude-code --policy $rules" ;;
    static+500) echo "$static hook claude-code --policy $rules" ;;
  esac
}
rounds() { # way...
  for w in "$@"; do : > "$work/$w.us"; done
  for round in $(seq $((RUNS + 20))); do
    for w in "$@"; do
      read -r -a c <<< "$(cmd_of "$w")"
      s=$EPOCHREALTIME
      "${c[@]}" < "$payload" > /dev/null
      e=$EPOCHREALTIME
      [ "$round" -gt 20 ] && echo $(( ${e/./} - ${s/./} )) >> "$work/$w.us"
    done
  done
  local base m
  base=$(median < "$work/$1.us")
  for w in "$@"; do
    m=$(median < "$work/$w.us")
    printf '  %-34s %8s  %sx\n' "$w" "$m" "$(ratio "$m" "$base")"
  done
}
echo "median of $RUNS interleaved calls each, µs (ratio to /bin/true):"
rounds true default static
echo "with a 500-rule --policy file (rounds of their own):"
rounds true default+500 static+500
for bin in "$dynamic" "$static"; do
  rss=$(/usr/bin/time -f "%M" "$bin" hook claude-code < "$payload" 2>&1 > /dev/null | tail -1)
  ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" hook claude-code < "$payload" 2>&1 > /dev/null | awk '/Collected/ {print $4}')
  echo "$(basename "$(dirname "$(dirname "$bin")")")/$(basename "$(dirname "$bin")"): peak RSS ${rss} KiB, ${ir} instructions per call (callgrind)"
done
