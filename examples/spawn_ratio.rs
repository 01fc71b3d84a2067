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
    let opts = spawns::sandboxed_opts();
    let sandbox_opts = opts.clone();
    let pty_opts = opts.clone();
    let ways: Vec<Way> = vec![
        ("plain std::process::Command (baseline)", Box::new(plain)),
        (
            "sandboxed (namespaces+landlock+seccomp in the child)",
            Box::new(move || spawns::sandboxed(&sandbox_opts)),
        ),
        (
            "sandboxed on a fresh PTY",
            Box::new(move || spawns::on_pty(&pty_opts)),
        ),
    ];
    let (mut child, enforced) = {
        let mut c = std::process::Command::new("/bin/true");
        c.stdin(std::process::Stdio::null());
        shellgate::exec::spawn(c, &opts, None).expect("sandbox")
    };
    child.wait().expect("wait");
    println!(
        "sandbox: {} (missing: {:?})",
        enforced.status, enforced.missing
    );
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
