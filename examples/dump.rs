//! Debug dump of the IR.
fn main() {
    for a in std::env::args().skip(1) {
        let s = shellgate::parse::parse(&a);
        println!("{a:?}");
        for c in &s.commands {
            let argv: Vec<String> = c.argv.iter().map(|w| format!("{:?}", w.parts)).collect();
            println!("  {:?} assigns={:?} argv={} redirs={:?} pipe={:?} parent={:?} d={}", c.context.labels(), c.assignments.iter().map(|a| &a.name).collect::<Vec<_>>(), argv.join(" "), c.redirects.iter().map(|r| (&r.op, r.kind, r.target.as_ref().map(|t| t.pattern()))).collect::<Vec<_>>(), c.pipeline, c.parent, c.depth);
        }
        println!("  issues={:?} funcs={:?}", s.issues, s.functions.iter().map(|f| &f.name).collect::<Vec<_>>());
    }
}
