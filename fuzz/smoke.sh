#!/usr/bin/env bash
# Short run of every fuzz target (CI). SECONDS_EACH (default 30) per target;
# `-s none` works on stable; set SANITIZER=address with a nightly toolchain for ASan.
set -euo pipefail
cd "$(dirname "$0")"
python3 seed.py
for t in parse check strip policy_load sink; do
  echo "== fuzz $t"
  log=$(mktemp)
  if ! cargo fuzz run -s "${SANITIZER:-none}" "$t" "corpus/$t" -- -max_total_time="${SECONDS_EACH:-30}" -rss_limit_mb=2048 -max_len=65536 > "$log" 2>&1; then
    grep -v -e '^#' "$log" | tail -n 60
    exit 1
  fi
  grep -E '^#[0-9]+[[:space:]]+(DONE|pulse)' "$log" | tail -n 1 || true
  grep -E '^Done ' "$log" | tail -n 1 || true
  rm -f "$log"
done
