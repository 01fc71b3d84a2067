#!/usr/bin/env bash
# Short run of every fuzz target (CI). SECONDS_EACH (default 30) per target;
# `-s none` works on stable; set SANITIZER=address with a nightly toolchain for ASan.
set -euo pipefail
cd "$(dirname "$0")"
python3 seed.py
for t in parse check strip policy_load sink; do
  echo "== fuzz $t"
  cargo fuzz run -s "${SANITIZER:-none}" "$t" "corpus/$t" -- -max_total_time="${SECONDS_EACH:-30}" -rss_limit_mb=2048 -max_len=65536 2>&1 | tail -n 4
done
