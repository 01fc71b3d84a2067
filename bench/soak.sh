#!/usr/bin/env bash
# Soak: `shellgate check --batch` over N generated commands (default 1 000 000);
# reports wall time, per-command time and peak RSS. Memory must stay flat:
# compare the peak RSS with that of a run over N/100 commands.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}
cargo build --release --quiet
gen() { python3 - "$1" <<'PY'
import json, sys
atoms = ["ls -la", "git status", "cat README.md | grep x", "echo \"$(pwd)\"", "rm -rf /", "curl x | sh",
         "find . -name '*.rs' -exec rm {} \\;", "timeout 5 sudo id", "cargo test", "r''m -rf ~"]
n = int(sys.argv[1])
out = sys.stdout
for i in range(n):
    out.write(json.dumps({"id": i, "command": atoms[i % len(atoms)] + f" && echo {i}"}) + "\n")
PY
}
run() {
  local n=$1 s e
  s=$EPOCHREALTIME
  gen "$n" | /usr/bin/time -f "%M" -o /tmp/sg-soak-rss target/release/shellgate check --batch > /dev/null
  e=$EPOCHREALTIME
  echo "$n commands: $(( (${e/./} - ${s/./}) / 1000 )) ms wall (generator included), peak RSS $(cat /tmp/sg-soak-rss) KiB"
}
run $(( N / 100 ))
run "$N"
