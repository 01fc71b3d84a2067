//! Debug: print the tree-sitter tree.
fn main() {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_bash::LANGUAGE.into()).unwrap();
    for a in std::env::args().skip(1) {
        let t = p.parse(&a, None).unwrap();
        println!("{a:?}\n{}", t.root_node().to_sexp());
    }
}
