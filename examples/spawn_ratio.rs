//! Spawn costs as ratios to a plain spawn measured in the same rounds
//! (`bench/spawn.sh`): each round spawns and waits for `/bin/true` once per
//! way, in turn, so machine noise hits every way alike.
//!
//! `spawn_ratio [rounds]`

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a measuring tool"
)]

use std::time::Instant;

use shellgate::exec::sandbox::{Requirement, SandboxSpec, run_restricted};

#[path = "../benches/common/spawns.rs"]
mod spawns;
use spawns::true_cmd;

/// A named way to spawn and wait.
type Way = (&'static str, Box<dyn Fn()>);

fn plain() {
    true_cmd().status().expect("spawn");
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(300, |n| n.parse().expect("rounds"));
    let spec = SandboxSpec::for_workspace(&std::env::temp_dir(), None);
    let sandboxed = run_restricted(&spec, Requirement::Some, || ()).is_ok();
    if !sandboxed {
        eprintln!("landlock unavailable: the sandboxed column is missing");
    }
    let sandbox = move || {
        let (status, _) =
            run_restricted(&spec, Requirement::Some, || true_cmd().status()).expect("sandbox");
        status.expect("spawn");
    };
    // Control: the same hand-off to a long-lived thread, without landlock.
    type Job = Box<dyn FnOnce() + Send>;
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::spawn(move || {
        for job in rx {
            job();
        }
    });
    let via_thread = move || {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        tx.send(Box::new(move || {
            let _ = done_tx.send(true_cmd().status());
        }))
        .expect("send");
        done_rx.recv().expect("recv").expect("spawn");
    };
    let ways: Vec<Way> = vec![
        ("plain std::process::Command (baseline)", Box::new(plain)),
        ("via a long-lived thread (control)", Box::new(via_thread)),
        ("landlock-restricted spawner thread", Box::new(sandbox)),
        ("fresh PTY (portable-pty)", Box::new(spawns::on_pty)),
    ];
    let ways: Vec<_> = ways
        .into_iter()
        .filter(|(name, _)| sandboxed || !name.starts_with("landlock"))
        .collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); ways.len()];
    for round in 0..rounds + 10 {
        for (i, (_, f)) in ways.iter().enumerate() {
            let start = Instant::now();
            f();
            if round >= 10 {
                times[i].push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
    }
    let base = median(&mut times[0].clone());
    println!("spawn and wait /bin/true, {rounds} interleaved rounds (median µs, ratio to plain):");
    for ((name, _), t) in ways.iter().zip(times.iter_mut()) {
        let m = median(t);
        println!("  {name:<40} {m:>9.1} µs  {:.2}x", m / base);
    }
}
