#!/usr/bin/env bash
# Time to a verdict for the pathological inputs of the engine issue
# (the tests check they never allow; this measures how long each takes).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/shellgate
run() { # name, json line
  local f; f=$(mktemp); printf '%s\n' "$2" > "$f"
  local s e d out
  out=$(mktemp)
  s=$(date +%s%N); /usr/bin/time -f "%M" -o "$out.rss" "$bin" check --batch < "$f" > "$out"; e=$(date +%s%N)
  d=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["decision"])' "$out")
  printf '%-28s %-5s %8.1f ms %8s KiB peak\n' "$1" "$d" "$(awk -v n=$(( e - s )) 'BEGIN {print n / 1e6}')" "$(cat "$out.rss")"
  rm -f "$out.rss"
  rm -f "$f" "$out"
}
py() { python3 -c "import json; print(json.dumps({'id': 'x', 'command': $1}))"; }
run "1 MiB of a"           "$(py "'a' * (1 << 20)")"
run "10000 nested \$("     "$(py "'\$(' * 10000")"
run "100000 ;"             "$(py "';' * 100000")"
run "50000 && commands"    "$(py "'ls && ' * 50000 + 'ls'")"
run "60 KiB of && (parsed)" "$(py "'ls && ' * 10000 + 'ls'")"
run "deep brace expansion" "$(py "'echo ' + '{a,b}' * 5000")"
run "heredoc, 1M lines"    "$(py "'cat <<EOF\n' + 'x\n' * 1000000 + 'EOF'")"
run "NUL bytes"            "$(py "'ls\0' * 1000")"
s=$(date +%s%N); "$bin" check -- "$(printf 'ls \xff\xfe')" > /dev/null || true; e=$(date +%s%N)
printf '%-28s %-5s %8.1f ms\n' "invalid UTF-8 (argv)" "-" "$(awk -v n=$(( e - s )) 'BEGIN {print n / 1e6}')"
