#!/usr/bin/env bash
# Spawn and wait for /bin/true: plain, through a long-lived thread (control),
# from the landlock-restricted spawner thread, and on a fresh PTY, interleaved
# round by round (examples/spawn_ratio.rs); medians and ratios to plain.
# Budgets (issue 7): sandboxed <= 1.05x plain, PTY <= 2.2x plain.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example spawn_ratio
exec target/release/examples/spawn_ratio "${ROUNDS:-500}"
