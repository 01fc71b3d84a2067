//! Executor benchmarks (divan, medians): plain spawn vs sandboxed spawn vs PTY
//! spawn of `/bin/true`, and sink ingest in memory and spilling to disk.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "benchmarks")]

#[path = "common/spawns.rs"]
mod spawns;
use spawns::true_cmd;

use shellgate::sink::{OutputSink, Sink};

fn main() {
    divan::main();
}

/// Baseline: spawn and wait with `std::process::Command`.
#[divan::bench(sample_count = 200)]
fn spawn_plain() {
    true_cmd().status().expect("spawn");
}

/// Spawn in the sandbox: namespaces, landlock and seccomp applied in the child.
#[divan::bench(sample_count = 200)]
fn spawn_sandboxed(b: divan::Bencher<'_, '_>) {
    let opts = spawns::sandboxed_opts();
    b.bench(|| spawns::sandboxed(&opts));
}

/// Spawn in the sandbox on a fresh PTY (openpty, spawn, wait).
#[divan::bench(sample_count = 100)]
fn spawn_pty(b: divan::Bencher<'_, '_>) {
    let opts = spawns::sandboxed_opts();
    b.bench(|| spawns::on_pty(&opts));
}

const MIB: usize = 1 << 20;

/// 64 MiB in 64 KiB chunks through the default 50 KiB window: the stream spills to disk.
#[divan::bench(sample_count = 20)]
fn sink_ingest_spill(b: divan::Bencher<'_, '_>) {
    let chunk = vec![b'x'; 64 * 1024];
    let dir = std::env::temp_dir().join(format!("sg-bench-{}", std::process::id()));
    b.counter(divan::counter::BytesCount::new(64 * MIB))
        .bench(|| {
            let mut s =
                OutputSink::new(shellgate::sink::DEFAULT_WINDOW, &dir, "sg-bench-spill.out");
            for _ in 0..1024 {
                s.write(&chunk).expect("write");
            }
            divan::black_box(s.finish().expect("finish"));
        });
}

/// 64 MiB in 64 KiB chunks through the default window, spilling to tmpfs (`/dev/shm`): the sink's own cost.
#[divan::bench(sample_count = 20)]
fn sink_ingest_tmpfs(b: divan::Bencher<'_, '_>) {
    let chunk = vec![b'x'; 64 * 1024];
    let dir = std::path::Path::new("/dev/shm").join(format!("sg-bench-{}", std::process::id()));
    let dir = dir.as_path();
    b.counter(divan::counter::BytesCount::new(64 * MIB))
        .bench(|| {
            let mut s = OutputSink::new(shellgate::sink::DEFAULT_WINDOW, dir, "sg-bench-shm.out");
            for _ in 0..1024 {
                s.write(&chunk).expect("write");
            }
            divan::black_box(s.finish().expect("finish"));
        });
}
