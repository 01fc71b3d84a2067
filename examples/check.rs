//! Debug: print verdicts.
fn main() {
    let policy = match shellgate::Policy::embedded() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{:?}", miette::Report::new(e));
            std::process::exit(78);
        }
    };
    for a in std::env::args().skip(1) {
        let v = shellgate::check(&a, &policy);
        println!("{:5} {a:?} :: {} [{:?}] sugg={:?}", v.decision.as_str(), v.reasons.join(" | "), v.rules, v.suggestion);
    }
}
