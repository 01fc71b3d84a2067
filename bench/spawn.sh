#!/usr/bin/env bash
# Spawn and wait for /bin/true: plain, in the sandbox (namespaces, landlock,
# seccomp, all applied in the child) and sandboxed on a fresh PTY, interleaved
# round by round (examples/spawn_ratio.rs); medians and ratios to plain.
# Budgets (issue 11): sandboxed <= 1.5x plain, PTY <= 2.5x plain.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example spawn_ratio
exec target/release/examples/spawn_ratio "${ROUNDS:-500}"
