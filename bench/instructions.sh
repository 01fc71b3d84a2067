#!/usr/bin/env bash
# Instructions per command (callgrind: exact and repeatable on a noisy machine)
# for the tree-sitter parse alone, shellgate's parse to the IR, and `check` end
# to end, on the short / medium / long inputs of the engine benchmarks. Each
# figure is (instructions with N iterations - with 0) / N, so start-up and
# policy loading drop out. Budget (issue 7): check / tree-sitter <= 1.3.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
command -v valgrind > /dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 69; }
cargo build --release --quiet --example instructions
bin=$PWD/target/release/examples/instructions
count() { # mode size n
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 | awk '/Collected/ {print $4}'
}
printf '%-7s %14s %14s %14s %8s %8s\n' input tree-sitter ir check ir/ts check/ts
for size in short medium long; do
  n=20; [ "$size" = long ] && n=4
  declare -A per
  for mode in tree-sitter ir check; do
    zero=$(count "$mode" "$size" 0)
    some=$(count "$mode" "$size" "$n")
    per[$mode]=$(( (some - zero) / n ))
  done
  printf '%-7s %14d %14d %14d %8s %8s\n' "$size" "${per[tree-sitter]}" "${per[ir]}" "${per[check]}" \
    "$(ratio "${per[ir]}" "${per[tree-sitter]}")" \
    "$(ratio "${per[check]}" "${per[tree-sitter]}")"
done
