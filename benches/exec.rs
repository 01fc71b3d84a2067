//! Executor benchmarks (divan, medians): plain spawn vs sandboxed spawn vs PTY
//! spawn of `/bin/true`, and sink ingest in memory and spilling to disk.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "benchmarks")]

#[path = "common/spawns.rs"]
mod spawns;
use spawns::true_cmd;

use shellgate::exec::sandbox::{Requirement, SandboxSpec, run_restricted};
use shellgate::sink::{OutputSink, Sink};

fn main() {
    divan::main();
}

fn spec() -> SandboxSpec {
    SandboxSpec::for_workspace(&std::env::temp_dir(), None)
}

/// Baseline: spawn and wait with `std::process::Command`.
#[divan::bench(sample_count = 200)]
fn spawn_plain() {
    true_cmd().status().expect("spawn");
}

/// Spawn from the landlock-restricted spawner thread (the thread is set up once, outside the timing).
#[divan::bench(sample_count = 200)]
fn spawn_sandboxed(b: divan::Bencher<'_, '_>) {
    let spec = spec();
    run_restricted(&spec, Requirement::Some, || ()).expect("landlock");
    b.bench(|| {
        let (status, _) =
            run_restricted(&spec, Requirement::Some, || true_cmd().status()).expect("sandbox");
        status.expect("spawn");
    });
}

/// Spawn on a fresh PTY (openpty, spawn, wait).
#[divan::bench(sample_count = 100)]
fn spawn_pty() {
    spawns::on_pty();
}

const MIB: usize = 1 << 20;

/// 64 MiB in 64 KiB chunks through the default 50 KiB window: the stream spills to disk.
#[divan::bench(sample_count = 20)]
fn sink_ingest_spill(b: divan::Bencher<'_, '_>) {
    let chunk = vec![b'x'; 64 * 1024];
    let dir = std::env::temp_dir();
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

/// Control for `spawn_sandboxed`: the same hand-off to a long-lived thread, without landlock.
#[divan::bench(sample_count = 200)]
fn spawn_via_thread(b: divan::Bencher<'_, '_>) {
    type Job = Box<dyn FnOnce() + Send>;
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::spawn(move || {
        for job in rx {
            job();
        }
    });
    b.bench(|| {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        tx.send(Box::new(move || {
            let _ = done_tx.send(true_cmd().status());
        }))
        .expect("send");
        done_rx.recv().expect("recv").expect("spawn");
    });
}

/// 64 MiB in 64 KiB chunks through the default window, spilling to tmpfs (`/dev/shm`): the sink's own cost.
#[divan::bench(sample_count = 20)]
fn sink_ingest_tmpfs(b: divan::Bencher<'_, '_>) {
    let chunk = vec![b'x'; 64 * 1024];
    let dir = std::path::Path::new("/dev/shm");
    b.counter(divan::counter::BytesCount::new(64 * MIB))
        .bench(|| {
            let mut s = OutputSink::new(shellgate::sink::DEFAULT_WINDOW, dir, "sg-bench-shm.out");
            for _ in 0..1024 {
                s.write(&chunk).expect("write");
            }
            divan::black_box(s.finish().expect("finish"));
        });
}
