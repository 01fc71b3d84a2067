//! Lowering: a tree-sitter-bash tree to the [`Script`] IR.
//!
//! Works from an allowlist of node kinds; anything else is recorded as an
//! [`Issue`] (the verdict is then at least ask) and its children are still
//! searched for commands, so that deny rules keep working on broken input.

use tree_sitter::Node;

use super::ir::{
    Assignment, Context, FunctionDef, Heredoc, Issue, Part, Redirect, RedirectKind, Script,
    SimpleCommand, Span, Word,
};
use super::word::{self, Atom};
use super::{HARD_COMMAND_CAP, MAX_DEPTH};

/// Where a statement sits: inherited from its enclosing constructs.
#[derive(Clone, Default)]
pub(crate) struct Frame<'t> {
    ctx: Context,
    depth: u32,
    pipeline: Option<(u32, u32)>,
    parent: Option<usize>,
    redirects: Vec<Redirect>,
    /// Redirections and extra words of a `redirected_statement` whose body is this command.
    redirect_nodes: Vec<Node<'t>>,
    arg_nodes: Vec<Node<'t>>,
}

impl<'t> Frame<'t> {
    fn enter(&self, flag: Context) -> Frame<'t> {
        Frame {
            ctx: self.ctx.with(flag),
            depth: self.depth + 1,
            pipeline: self.pipeline,
            parent: self.parent,
            redirects: self.redirects.clone(),
            redirect_nodes: Vec::new(),
            arg_nodes: Vec::new(),
        }
    }
    fn flag(&self, flag: Context) -> Frame<'t> {
        let mut f = self.clone();
        f.ctx = f.ctx.with(flag);
        f
    }
}

pub(crate) struct Lowerer<'s> {
    src: &'s str,
    pub(crate) script: Script,
    next_pipeline: u32,
    too_deep: bool,
    capped: bool,
}

fn span(node: Node<'_>) -> Span {
    Span {
        start: node.start_byte(),
        end: node.end_byte(),
    }
}

fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

impl<'s> Lowerer<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Lowerer {
            src,
            script: Script::default(),
            next_pipeline: 0,
            too_deep: false,
            capped: false,
        }
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        self.src
            .get(node.start_byte()..node.end_byte())
            .unwrap_or("")
    }

    /// Lowers a whole program at the given base depth and context.
    pub(crate) fn program(&mut self, root: Node<'_>, depth: u32, ctx: Context) {
        let frame = Frame {
            ctx,
            depth,
            ..Frame::default()
        };
        self.block(root, &frame);
    }

    fn deep_enough(&mut self, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.script.issues.push(Issue::TooDeep { limit: MAX_DEPTH });
            }
            return true;
        }
        false
    }

    /// A sequence of statements; a statement followed by `&` runs in the background.
    fn block(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let kids = children(node);
        for (i, child) in kids.iter().enumerate() {
            if !child.is_named() {
                if child.is_missing() {
                    self.missing(*child);
                }
                continue;
            }
            let background = kids
                .get(i + 1)
                .is_some_and(|n| !n.is_named() && n.kind() == "&");
            let frame = if background {
                f.flag(Context::BACKGROUND)
            } else {
                f.clone()
            };
            self.statement(*child, &frame);
        }
    }

    fn missing(&mut self, node: Node<'_>) {
        self.script.issues.push(Issue::Missing {
            what: node.kind().to_owned(),
            span: span(node),
        });
    }

    fn statement(&mut self, node: Node<'_>, f: &Frame<'_>) {
        if node.is_missing() {
            return self.missing(node);
        }
        if self.deep_enough(f.depth) {
            return;
        }
        match node.kind() {
            "command" => self.command(node, f),
            "redirected_statement" => self.redirected(node, f),
            "list" => self.list(node, f),
            "pipeline" => self.pipeline(node, f, Vec::new()),
            "negated_command" => self.block(node, &f.flag(Context::NEGATED)),
            "subshell" => self.block(node, &f.enter(Context::SUBSHELL)),
            "compound_statement" => self.compound(node, f),
            "do_group" => self.block(node, &f.enter(Context::LOOP)),
            "if_statement" => self.if_statement(node, f),
            "elif_clause" | "else_clause" => self.block(node, &f.enter(Context::BRANCH)),
            "while_statement" | "for_statement" | "c_style_for_statement" => {
                self.loop_statement(node, f)
            }
            "case_statement" => self.case_statement(node, f),
            "function_definition" => self.function(node, f),
            "variable_assignment" | "variable_assignments" => self.assignment_statement(node, f),
            "declaration_command" | "unset_command" => self.declaration(node, f),
            "test_command" => self.test_command(node, f),
            "comment" => self.script.comments.push(span(node)),
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                // A redirection with no command (`> file`).
                let mut frame = f.clone();
                frame.redirect_nodes = vec![node];
                self.command_parts(&[], &frame, span(node));
            }
            "ERROR" => {
                self.script
                    .issues
                    .push(Issue::SyntaxError { span: span(node) });
                self.recover(node, f);
            }
            "heredoc_body" | "heredoc_start" | "heredoc_end" => {}
            kind if is_expression(kind) => self.nested(node, f.parent, f),
            kind => {
                self.script.issues.push(Issue::UnknownNode {
                    node: kind.to_owned(),
                    span: span(node),
                });
                self.recover(node, f);
            }
        }
    }

    /// Best effort inside an ERROR or unknown node: lower whatever statements it holds.
    fn recover(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let kids = named_children(node);
        if kids.first().is_some_and(|k| k.kind() == "command_name") {
            // `{rm,-rf,/}` and friends: tree-sitter gives up, bash runs a command.
            let text = self.text(node);
            if text.starts_with('{')
                && !text.contains(|c: char| c.is_whitespace() || "'\"$`\\;|&<>()".contains(c))
            {
                return self.brace_command(node, f);
            }
            return self.command_parts(&kids, f, span(node));
        }
        for child in kids {
            if is_word_like(child.kind()) {
                self.nested(child, f.parent, f);
            } else {
                self.statement(child, &f.enter(Context::default()));
            }
        }
    }

    fn compound(&mut self, node: Node<'_>, f: &Frame<'_>) {
        // `(( expr ))` is a compound statement of expressions.
        let frame = f.enter(Context::GROUP);
        for child in named_children(node) {
            if is_expression(child.kind()) {
                self.nested(child, f.parent, &frame);
            } else {
                self.statement(child, &frame);
            }
        }
    }

    fn list(&mut self, node: Node<'_>, f: &Frame<'_>) {
        // Lists nest to the left; flatten them without recursion.
        let mut operands = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "list" {
                for child in children(n).into_iter().rev() {
                    if child.is_missing() {
                        self.missing(child);
                    } else if child.is_named() {
                        stack.push(child);
                    }
                }
            } else {
                operands.push(n);
            }
        }
        let frame = f.flag(Context::LIST);
        for operand in operands {
            self.statement(operand, &frame);
        }
    }

    /// A pipeline; `tail` are redirections written after it, which bash applies to its last member.
    fn pipeline<'t>(&mut self, node: Node<'t>, f: &Frame<'t>, tail: Vec<Node<'t>>) {
        let id = self.new_pipeline();
        let members: Vec<Node<'t>> = children(node)
            .into_iter()
            .filter(|c| {
                if c.is_missing() {
                    self.missing(*c);
                }
                c.is_named() && !c.is_missing() && c.kind() != "comment"
            })
            .collect();
        let last = members.len().saturating_sub(1);
        for (pos, child) in (0u32..).zip(members) {
            let i = pos as usize;
            let mut frame = f.flag(Context::PIPELINE);
            frame.pipeline = Some((id, pos));
            if i == last && !tail.is_empty() {
                if child.kind() == "command" {
                    frame.redirect_nodes = tail.clone();
                } else {
                    for r in &tail {
                        if let Some(r) = self.redirect(*r, f.parent, f) {
                            frame.redirects.push(r);
                        }
                    }
                }
            }
            self.statement(child, &frame);
        }
    }

    fn new_pipeline(&mut self) -> u32 {
        self.next_pipeline += 1;
        self.next_pipeline
    }

    fn if_statement(&mut self, node: Node<'_>, f: &Frame<'_>) {
        for i in 0..node.child_count() {
            let Some(child) = node.child(i) else {
                continue;
            };
            if child.is_missing() {
                self.missing(child);
                continue;
            }
            if !child.is_named() {
                continue;
            }
            let flag = if node.field_name_for_child(i) == Some("condition") {
                Context::CONDITION
            } else {
                Context::BRANCH
            };
            self.statement(child, &f.enter(flag));
        }
    }

    fn loop_statement(&mut self, node: Node<'_>, f: &Frame<'_>) {
        for i in 0..node.child_count() {
            let Some(child) = node.child(i) else {
                continue;
            };
            if child.is_missing() {
                self.missing(child);
                continue;
            }
            if !child.is_named() {
                continue;
            }
            match node.field_name_for_child(i) {
                Some("condition") => self.statement(child, &f.enter(Context::CONDITION)),
                Some("body") => self.statement(child, f),
                _ if child.kind() == "do_group" => self.statement(child, f),
                _ => self.nested(child, f.parent, f),
            }
        }
    }

    fn case_statement(&mut self, node: Node<'_>, f: &Frame<'_>) {
        for child in named_children(node) {
            if child.kind() == "case_item" {
                for i in 0..child.child_count() {
                    let Some(item) = child.child(i) else {
                        continue;
                    };
                    if !item.is_named() {
                        continue;
                    }
                    if child.field_name_for_child(i) == Some("value") {
                        self.nested(item, f.parent, f);
                    } else {
                        self.statement(item, &f.enter(Context::BRANCH));
                    }
                }
            } else if child.kind() == "comment" {
                self.script.comments.push(span(child));
            } else {
                self.nested(child, f.parent, f);
            }
        }
    }

    fn function(&mut self, node: Node<'_>, f: &Frame<'_>) {
        if let Some(name) = node.child_by_field_name("name") {
            let name = self.text(name).to_owned();
            self.script.functions.push(FunctionDef {
                name,
                span: span(node),
            });
        }
        let mut frame = f.enter(Context::FUNCTION);
        for i in 0..node.child_count() {
            let Some(child) = node.child(i) else {
                continue;
            };
            if node.field_name_for_child(i) == Some("redirect")
                && let Some(r) = self.redirect(child, None, f)
            {
                frame.redirects.push(r);
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.statement(body, &frame);
        }
    }

    fn redirected(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let Some(body) = node.child_by_field_name("body") else {
            // A redirection with no command at all.
            let mut frame = f.clone();
            frame.redirect_nodes = named_children(node);
            return self.command_parts(&[], &frame, span(node));
        };
        let mut redirect_nodes = Vec::new();
        let mut continuation = None;
        let mut right = None;
        let mut arg_nodes = Vec::new();
        for child in named_children(node) {
            if child.id() == body.id() {
                continue;
            }
            if child.kind() == "heredoc_redirect" {
                for i in 0..child.child_count() {
                    let Some(part) = child.child(i) else {
                        continue;
                    };
                    match (child.field_name_for_child(i), part.kind()) {
                        (_, "pipeline") => continuation = Some(part),
                        (Some("right"), _) => right = Some(part),
                        (Some("argument"), _) => arg_nodes.push(part),
                        (Some("redirect"), _) => redirect_nodes.push(part),
                        _ => {}
                    }
                }
            }
            if child.is_missing() {
                self.missing(child);
            } else if child.kind() == "ERROR" {
                self.script
                    .issues
                    .push(Issue::SyntaxError { span: span(child) });
                self.recover(child, f);
            } else {
                redirect_nodes.push(child);
            }
        }
        let mut frame = f.clone();
        let pipeline = continuation.map(|_| self.new_pipeline());
        if let Some(id) = pipeline {
            frame = frame.flag(Context::PIPELINE);
            frame.pipeline = Some((id, 0));
        }
        if body.kind() == "command" {
            frame.redirect_nodes = redirect_nodes;
            frame.arg_nodes = arg_nodes;
            self.statement(body, &frame);
        } else if body.kind() == "pipeline" && arg_nodes.is_empty() {
            // tree-sitter hangs `a | b > f` on the pipeline; bash gives `> f` to `b` only.
            self.pipeline(body, &frame, redirect_nodes);
        } else {
            for r in redirect_nodes {
                if let Some(r) = self.redirect(r, f.parent, f) {
                    frame.redirects.push(r);
                }
            }
            for a in arg_nodes {
                self.nested(a, f.parent, f);
            }
            self.statement(body, &frame);
        }
        if let (Some(cont), Some(id)) = (continuation, pipeline) {
            for (pos, member) in (1u32..).zip(named_children(cont)) {
                let mut m = f.flag(Context::PIPELINE);
                m.pipeline = Some((id, pos));
                self.statement(member, &m);
            }
        }
        if let Some(right) = right {
            self.statement(right, &f.flag(Context::LIST));
        }
    }

    /// Reserves the next command slot, or records that the hard cap was hit.
    fn reserve(&mut self) -> Option<usize> {
        if self.script.commands.len() >= HARD_COMMAND_CAP {
            if !self.capped {
                self.capped = true;
                self.script.issues.push(Issue::TooManyCommands {
                    count: HARD_COMMAND_CAP,
                    limit: super::MAX_COMMANDS,
                });
            }
            return None;
        }
        self.script.commands.push(SimpleCommand {
            assignments: Vec::new(),
            argv: Vec::new(),
            redirects: Vec::new(),
            context: Context::default(),
            pipeline: None,
            parent: None,
            depth: 0,
            span: Span::default(),
        });
        Some(self.script.commands.len() - 1)
    }

    fn command(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let kids = named_children(node);
        self.command_parts(&kids, f, span(node));
    }

    /// Builds one simple command from its child nodes (and the frame's extra nodes).
    fn command_parts(&mut self, kids: &[Node<'_>], f: &Frame<'_>, at: Span) {
        let Some(idx) = self.reserve() else { return };
        let mut assignments = Vec::new();
        let mut argv = Vec::new();
        let mut redirects = f.redirects.clone();
        let mut last_word_end: Option<usize> = None;
        for &child in kids
            .iter()
            .chain(f.arg_nodes.iter())
            .chain(f.redirect_nodes.iter())
        {
            if child.is_missing() {
                self.missing(child);
                continue;
            }
            // tree-sitter splits `r\⏎m` in two; bash reads one word `rm`.
            // Words with nothing between them are one word to bash (tree-sitter
            // sometimes splits them, e.g. after `$'…'`).
            let joined = last_word_end.is_some_and(|end| {
                matches!(self.src.get(end..child.start_byte()), Some("\\\n" | ""))
            });
            let before = argv.len();
            match child.kind() {
                "variable_assignment" if argv.is_empty() => {
                    assignments.push(self.assignment(child, idx, f));
                }
                "command_name" => {
                    if let Some(inner) = child.named_child(0) {
                        argv.extend(self.words(inner, idx, f));
                    }
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    if let Some(r) = self.redirect(child, Some(idx), f) {
                        redirects.push(r);
                    }
                }
                "comment" => self.script.comments.push(span(child)),
                "ERROR" => {
                    self.script
                        .issues
                        .push(Issue::SyntaxError { span: span(child) });
                    self.recover(child, f);
                }
                kind if is_word_like(kind) || kind == "variable_assignment" => {
                    argv.extend(self.words(child, idx, f));
                }
                kind => {
                    self.script.issues.push(Issue::UnknownNode {
                        node: kind.to_owned(),
                        span: span(child),
                    });
                    self.recover(child, f);
                }
            }
            let added = argv.len() - before;
            if joined
                && added == 1
                && before > 0
                && let (Some(next), Some(prev)) = (argv.pop(), argv.last_mut())
            {
                merge_words(prev, next);
            }
            last_word_end = (added > 0).then(|| child.end_byte());
        }
        self.fill(idx, assignments, argv, redirects, f, at);
    }

    /// A command that is one brace expansion (`{rm,-rf,/}`), from its plain text.
    fn brace_command(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let Some(idx) = self.reserve() else { return };
        let mut atoms = Vec::new();
        word::push_unquoted(&mut atoms, self.text(node));
        let at = span(node);
        let argv = match word::brace_expand(atoms) {
            Some(words) => words
                .iter()
                .map(|a| Word {
                    parts: word::to_parts(a),
                    span: at,
                    from_brace: true,
                })
                .collect(),
            None => vec![Word {
                parts: vec![Part::Glob(self.text(node).to_owned())],
                span: at,
                from_brace: true,
            }],
        };
        self.fill(idx, Vec::new(), argv, f.redirects.clone(), f, at);
    }

    /// Fills a reserved slot with a finished command reached the way `f` says.
    fn fill(
        &mut self,
        idx: usize,
        assignments: Vec<Assignment>,
        argv: Vec<Word>,
        redirects: Vec<Redirect>,
        f: &Frame<'_>,
        at: Span,
    ) {
        if let Some(slot) = self.script.commands.get_mut(idx) {
            *slot = SimpleCommand {
                assignments,
                argv,
                redirects,
                context: f.ctx,
                pipeline: f.pipeline,
                parent: f.parent,
                depth: f.depth,
                span: at,
            };
        }
    }

    fn assignment_statement(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let Some(idx) = self.reserve() else { return };
        let nodes = if node.kind() == "variable_assignments" {
            named_children(node)
        } else {
            vec![node]
        };
        let assignments = nodes
            .into_iter()
            .map(|n| self.assignment(n, idx, f))
            .collect();
        self.fill(
            idx,
            assignments,
            Vec::new(),
            f.redirects.clone(),
            f,
            span(node),
        );
    }

    fn assignment(&mut self, node: Node<'_>, idx: usize, f: &Frame<'_>) -> Assignment {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_owned())
            .unwrap_or_default();
        if let Some(n) = node.child_by_field_name("name") {
            self.nested(n, Some(idx), f);
        }
        let append = children(node)
            .iter()
            .any(|c| !c.is_named() && c.kind() == "+=");
        let value = node.child_by_field_name("value").map(|v| {
            let mut atoms = Vec::new();
            self.atoms(v, &mut atoms, idx, f);
            Word {
                parts: word::to_parts(&atoms),
                span: span(v),
                from_brace: false,
            }
        });
        Assignment {
            name,
            value,
            append,
        }
    }

    /// `declare`, `export`, `local`, `readonly`, `typeset`, `unset`: a command whose
    /// arguments are words or assignments.
    fn declaration(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let Some(idx) = self.reserve() else { return };
        let mut argv = Vec::new();
        for child in children(node) {
            if !child.is_named() {
                if argv.is_empty() {
                    argv.push(Word::literal(child.kind(), span(child)));
                }
                continue;
            }
            argv.extend(self.words(child, idx, f));
        }
        self.fill(idx, Vec::new(), argv, f.redirects.clone(), f, span(node));
    }

    /// `[[ … ]]` and `[ … ]` parsed as a test: a command named by its bracket.
    fn test_command(&mut self, node: Node<'_>, f: &Frame<'_>) {
        let Some(idx) = self.reserve() else { return };
        let open = node
            .child(0)
            .map(|c| c.kind().to_owned())
            .unwrap_or_else(|| "[[".to_owned());
        let mut redirects = f.redirects.clone();
        for child in named_children(node) {
            if child.kind() == "redirected_statement" {
                for r in named_children(child) {
                    if let Some(r) = self.redirect(r, Some(idx), f) {
                        redirects.push(r);
                    }
                }
            }
            self.nested(child, Some(idx), f);
        }
        let close = if open == "[" { "]" } else { "]]" };
        // Synthetic words: an empty span says they are not in the source.
        let at = Span {
            start: node.start_byte(),
            end: node.start_byte(),
        };
        let argv = vec![Word::literal(&open, at), Word::literal(close, at)];
        self.fill(idx, Vec::new(), argv, redirects, f, span(node));
    }

    fn redirect(
        &mut self,
        node: Node<'_>,
        parent: Option<usize>,
        f: &Frame<'_>,
    ) -> Option<Redirect> {
        let fd = node
            .child_by_field_name("descriptor")
            .and_then(|d| self.text(d).parse::<u32>().ok());
        let op = children(node)
            .into_iter()
            .find(|c| !c.is_named())
            .map(|c| c.kind().to_owned())
            .unwrap_or_default();
        match node.kind() {
            "file_redirect" => {
                let dest = node.child_by_field_name("destination");
                let target = dest.map(|d| self.single_word(d, parent, f));
                let dup_target = target
                    .as_ref()
                    .and_then(Word::value)
                    .is_some_and(|v| v == "-" || v.chars().all(|c| c.is_ascii_digit()));
                let kind = match op.as_str() {
                    ">&-" | "<&-" => RedirectKind::Duplicate,
                    "<" => RedirectKind::Read,
                    "<>" => RedirectKind::ReadWrite,
                    ">&" | "<&" if dup_target => RedirectKind::Duplicate,
                    "<&" => RedirectKind::Read,
                    _ => RedirectKind::Write,
                };
                Some(Redirect {
                    fd,
                    op,
                    kind,
                    target,
                    heredoc: None,
                })
            }
            "herestring_redirect" => {
                let word = named_children(node)
                    .into_iter()
                    .find(|c| c.kind() != "file_descriptor");
                let target = word.map(|w| self.single_word(w, parent, f));
                Some(Redirect {
                    fd,
                    op: "<<<".to_owned(),
                    kind: RedirectKind::HereString,
                    target,
                    heredoc: None,
                })
            }
            "heredoc_redirect" => {
                let start = node.child_by_field_name("heredoc_start").or_else(|| {
                    named_children(node)
                        .into_iter()
                        .find(|c| c.kind() == "heredoc_start")
                });
                let quoted = start.is_some_and(|s| self.text(s).contains(['\'', '"', '\\']));
                let body = named_children(node)
                    .into_iter()
                    .find(|c| c.kind() == "heredoc_body");
                let mut dynamic = false;
                if let Some(b) = body
                    && !quoted
                {
                    dynamic = named_children(b)
                        .iter()
                        .any(|c| c.kind() != "heredoc_content");
                    self.nested(b, parent, f);
                }
                let text = body.map(|b| self.text(b).to_owned()).unwrap_or_default();
                let end = named_children(node)
                    .into_iter()
                    .find(|c| c.kind() == "heredoc_end");
                let body_span = match (body, end) {
                    (Some(b), Some(e)) => Span {
                        start: b.start_byte(),
                        end: e.start_byte(),
                    },
                    (Some(b), None) => span(b),
                    (None, Some(e)) => Span {
                        start: e.start_byte(),
                        end: e.start_byte(),
                    },
                    (None, None) => Span {
                        start: node.end_byte(),
                        end: node.end_byte(),
                    },
                };
                Some(Redirect {
                    fd,
                    op,
                    kind: RedirectKind::Heredoc,
                    target: None,
                    heredoc: Some(Heredoc {
                        body: text,
                        quoted,
                        dynamic,
                        body_span,
                    }),
                })
            }
            "ERROR" => {
                self.script
                    .issues
                    .push(Issue::SyntaxError { span: span(node) });
                None
            }
            other => {
                self.script.issues.push(Issue::UnknownNode {
                    node: other.to_owned(),
                    span: span(node),
                });
                None
            }
        }
    }

    /// A word that must stay one word (redirection targets): braces are not expanded.
    fn single_word(&mut self, node: Node<'_>, parent: Option<usize>, f: &Frame<'_>) -> Word {
        let mut atoms = Vec::new();
        match parent {
            Some(p) => self.atoms(node, &mut atoms, p, f),
            None => {
                self.nested(node, None, f);
                word::push_unquoted(&mut atoms, self.text(node));
            }
        }
        Word {
            parts: word::to_parts(&atoms),
            span: span(node),
            from_brace: false,
        }
    }

    /// Lowers an argument node to one or more words (brace expansion).
    fn words(&mut self, node: Node<'_>, parent: usize, f: &Frame<'_>) -> Vec<Word> {
        let mut atoms = Vec::new();
        self.atoms(node, &mut atoms, parent, f);
        let at = span(node);
        if !word::has_brace(&atoms) {
            return vec![Word {
                parts: word::to_parts(&atoms),
                span: at,
                from_brace: false,
            }];
        }
        match word::brace_expand(atoms) {
            Some(expanded) => expanded
                .iter()
                .map(|a| Word {
                    parts: word::to_parts(a),
                    span: at,
                    from_brace: true,
                })
                .collect(),
            None => {
                self.script.issues.push(Issue::Unmodelled {
                    what: format!(
                        "brace expansion yields more than {} words",
                        word::MAX_BRACE_WORDS
                    ),
                    span: at,
                });
                vec![Word {
                    parts: vec![Part::Glob(self.text(node).to_owned())],
                    span: at,
                    from_brace: true,
                }]
            }
        }
    }

    /// Appends the atoms of a word node.
    fn atoms(&mut self, node: Node<'_>, out: &mut Vec<Atom>, parent: usize, f: &Frame<'_>) {
        let text = self.text(node);
        match node.kind() {
            "word" | "extglob_pattern" | "regex" | "brace_expression" | "test_operator" => {
                if node.kind() == "word" && unescaped_whitespace(text) {
                    // tree-sitter put whitespace inside a word: bash splits there.
                    self.script.issues.push(Issue::Unmodelled {
                        what: "the parser read unquoted whitespace as part of a word".to_owned(),
                        span: span(node),
                    });
                }
                word::push_unquoted(out, text);
            }
            "variable_name" | "special_variable_name" | "file_descriptor" => {
                word::push_quoted(out, text)
            }
            "number" | "concatenation" | "command_name" => {
                self.with_gaps(node, out, parent, f, false)
            }
            "string" => self.with_gaps(node, out, parent, f, true),
            "translated_string" => match node.named_child(0) {
                Some(s) => self.with_gaps(s, out, parent, f, true),
                None => word::push_unquoted(out, text),
            },
            "raw_string" => {
                let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
                word::push_quoted(out, inner);
            }
            "ansi_c_string" => {
                let inner = text.get(2..text.len().saturating_sub(1)).unwrap_or("");
                word::push_quoted(out, &word::decode_ansi_c(inner));
            }
            "simple_expansion" | "expansion" => {
                self.nested(node, Some(parent), f);
                out.push(Atom::Dyn(Part::Param(text.to_owned())));
            }
            "command_substitution" | "process_substitution" => {
                self.substitution(node, Some(parent), f);
                out.push(Atom::Dyn(Part::Substitution(text.to_owned())));
            }
            "arithmetic_expansion" => {
                self.nested(node, Some(parent), f);
                out.push(Atom::Dyn(Part::Arithmetic(text.to_owned())));
            }
            "variable_assignment" => {
                // `declare NAME=value`: the word `NAME=value`.
                if let Some(n) = node.child_by_field_name("name") {
                    word::push_quoted(out, self.text(n));
                }
                let op = if children(node).iter().any(|c| c.kind() == "+=") {
                    "+="
                } else {
                    "="
                };
                word::push_quoted(out, op);
                if let Some(v) = node.child_by_field_name("value") {
                    self.atoms(v, out, parent, f);
                }
            }
            "array" => {
                self.nested(node, Some(parent), f);
                out.push(Atom::Dyn(Part::Param(text.to_owned())));
            }
            "ERROR" => {
                self.script
                    .issues
                    .push(Issue::SyntaxError { span: span(node) });
                self.nested(node, Some(parent), f);
                word::push_unquoted(out, text);
            }
            kind if is_expression(kind) => {
                self.nested(node, Some(parent), f);
                out.push(Atom::Dyn(Part::Arithmetic(text.to_owned())));
            }
            kind => {
                self.script.issues.push(Issue::UnknownNode {
                    node: kind.to_owned(),
                    span: span(node),
                });
                self.nested(node, Some(parent), f);
                word::push_unquoted(out, text);
            }
        }
    }

    /// A node whose named children are parts and whose other text (between and
    /// around them) is literal word text.
    fn with_gaps(
        &mut self,
        node: Node<'_>,
        out: &mut Vec<Atom>,
        parent: usize,
        f: &Frame<'_>,
        dquoted: bool,
    ) {
        let (mut pos, end) = if dquoted {
            let t = self.text(node);
            let open = if t.starts_with("$\"") { 2 } else { 1 };
            (
                node.start_byte() + open,
                node.end_byte()
                    .saturating_sub(1)
                    .max(node.start_byte() + open),
            )
        } else {
            (node.start_byte(), node.end_byte())
        };
        let kids = named_children(node);
        if kids.is_empty() && !dquoted {
            word::push_unquoted(out, self.text(node));
            return;
        }
        for child in kids {
            if child.start_byte() > pos {
                self.gap(out, pos, child.start_byte().min(end), dquoted);
            }
            if child.kind() == "string_content" {
                word::push_double_quoted(out, self.text(child));
            } else if let Some(body) = dquoted.then(|| self.heredoc_cat(child)).flatten() {
                // `"$(cat <<'EOF' … EOF)"`: the output is the body, known now.
                self.substitution(child, Some(parent), f);
                word::push_quoted(out, body.trim_end_matches('\n'));
            } else {
                self.atoms(child, out, parent, f);
            }
            pos = pos.max(child.end_byte());
        }
        if end > pos {
            self.gap(out, pos, end, dquoted);
        }
    }

    fn gap(&mut self, out: &mut Vec<Atom>, from: usize, to: usize, dquoted: bool) {
        let text = self.src.get(from..to).unwrap_or("");
        if !dquoted && unescaped_whitespace(text) {
            // tree-sitter joined what bash splits (`a⏎\ls` is two commands to bash).
            self.script.issues.push(Issue::Unmodelled {
                what: "the parser joined words across unquoted whitespace".to_owned(),
                span: Span {
                    start: from,
                    end: to,
                },
            });
        }
        if dquoted {
            word::push_double_quoted(out, text);
        } else {
            word::push_unquoted(out, text);
        }
    }

    /// The body of `$(cat <<'EOF' … EOF)`: a substitution that only prints a quoted heredoc.
    fn heredoc_cat(&self, node: Node<'_>) -> Option<String> {
        if node.kind() != "command_substitution" || !self.text(node).starts_with("$(") {
            return None;
        }
        let stmts = named_children(node);
        let [stmt] = stmts.as_slice() else {
            return None;
        };
        if stmt.kind() != "redirected_statement" {
            return None;
        }
        let body = stmt.child_by_field_name("body")?;
        let parts = named_children(body);
        let [name] = parts.as_slice() else {
            return None;
        };
        if name.kind() != "command_name" || self.text(*name) != "cat" {
            return None;
        }
        let redirects: Vec<_> = named_children(*stmt)
            .into_iter()
            .filter(|c| c.id() != body.id())
            .collect();
        let [heredoc] = redirects.as_slice() else {
            return None;
        };
        if heredoc.kind() != "heredoc_redirect"
            || named_children(*heredoc)
                .iter()
                .any(|c| !matches!(c.kind(), "heredoc_start" | "heredoc_body" | "heredoc_end"))
        {
            return None;
        }
        let start = named_children(*heredoc)
            .into_iter()
            .find(|c| c.kind() == "heredoc_start")?;
        let delim = self.text(start);
        let quoted = (delim.starts_with('\'') && delim.ends_with('\''))
            || (delim.starts_with('"') && delim.ends_with('"'));
        if !quoted || self.text(*heredoc).starts_with("<<-") {
            return None;
        }
        let body = named_children(*heredoc)
            .into_iter()
            .find(|c| c.kind() == "heredoc_body");
        Some(body.map(|b| self.text(b).to_owned()).unwrap_or_default())
    }

    /// Lowers the statements inside `$(…)`, backticks, `<(…)` or `>(…)`.
    fn substitution(&mut self, node: Node<'_>, parent: Option<usize>, f: &Frame<'_>) {
        let mut frame = f.enter(Context::SUBSTITUTION);
        frame.ctx = Context::SUBSTITUTION.with(if f.ctx.contains(Context::NESTED_SHELL) {
            Context::NESTED_SHELL
        } else {
            Context::default()
        });
        frame.parent = parent;
        frame.redirects = Vec::new();
        if self.deep_enough(frame.depth) {
            return;
        }
        let kids = named_children(node);
        let statements: Vec<_> = kids
            .iter()
            .filter(|k| k.kind() != "file_redirect")
            .copied()
            .collect();
        let redirects: Vec<_> = kids
            .iter()
            .filter(|k| k.kind() == "file_redirect")
            .copied()
            .collect();
        if !redirects.is_empty() && statements.is_empty() {
            // `$(< file)`: reads the file.
            let mut fr = frame.clone();
            fr.redirect_nodes = redirects;
            self.command_parts(&[], &fr, span(node));
            return;
        }
        for s in statements {
            self.statement(s, &frame);
        }
        for r in redirects {
            self.nested(r, parent, &frame);
        }
    }

    /// Searches a node's descendants for substitutions and lowers them.
    pub(crate) fn nested(&mut self, node: Node<'_>, parent: Option<usize>, f: &Frame<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.is_missing() {
                self.missing(n);
                continue;
            }
            match n.kind() {
                "command_substitution" | "process_substitution" => {
                    self.substitution(n, parent, f);
                }
                _ => {
                    if n.is_error() {
                        self.script
                            .issues
                            .push(Issue::SyntaxError { span: span(n) });
                    }
                    let mut kids = children(n);
                    kids.reverse();
                    stack.extend(kids);
                }
            }
        }
    }
}

/// Whitespace in unquoted text that no backslash escapes.
fn unescaped_whitespace(text: &str) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            ' ' | '\t' | '\n' => return true,
            _ => {}
        }
    }
    false
}

/// Appends `next` to `prev` (a word that bash reads as one).
fn merge_words(prev: &mut Word, next: Word) {
    for part in next.parts {
        match (prev.parts.last_mut(), part) {
            (Some(Part::Literal(a)), Part::Literal(b)) => a.push_str(&b),
            (_, p) => prev.parts.push(p),
        }
    }
    prev.span.end = next.span.end;
    prev.from_brace |= next.from_brace;
}

/// Node kinds that form words or parts of words.
fn is_word_like(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "translated_string"
            | "number"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "brace_expression"
            | "extglob_pattern"
            | "regex"
            | "test_operator"
            | "array"
    )
}

/// Arithmetic and test expression node kinds.
fn is_expression(kind: &str) -> bool {
    matches!(
        kind,
        "binary_expression"
            | "unary_expression"
            | "ternary_expression"
            | "postfix_expression"
            | "parenthesized_expression"
            | "subscript"
            | "variable_name"
    )
}
