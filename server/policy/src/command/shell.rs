//! The shell parser: `tree-sitter-bash` turns a command line into a syntax tree, and this walker
//! decomposes it into simple commands (lists, pipelines, subshells, `{ }` groups, control flow,
//! command and process substitutions, redirects and here-documents), evaluating each word as far as
//! it statically can (quotes, escapes, `$'…'`, `$HOME`, variables assigned earlier in the same
//! line) and handing every simple command to the classifier in `command.rs`.
//!
//! Chaining is not a finding by itself: a compound command asks only when one of its parts does.
//! What cannot be known stays unknown: a word built from an unknown variable or a substitution is
//! marked, and the classifier treats an unknown program name (or code) as opaque. A line that does
//! not parse is opaque. The walk is bounded in depth and input size and never panics.
use std::collections::HashMap;

use tree_sitter::{Node, Parser};

use super::{Acc, Danger, MAX_DEPTH, q};

/// Longer lines are not parsed: they are opaque.
const MAX_LEN: usize = 128 * 1024;
/// Time the parser may spend on one line (pathological inputs make tree-sitter's error recovery
/// slow); past it the line is opaque. Ordinary commands parse in microseconds.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_millis(50);
/// Syntax nesting the walker follows before giving up (opaque).
const MAX_NEST: u16 = 200;

/// One word of a simple command after static evaluation.
#[derive(Debug, Default, Clone)]
pub(crate) struct Word {
    pub text: String,
    /// Some part was quoted or escaped (a quoted `*` is not a glob, `'~'` is not home).
    pub quoted: bool,
    /// Some part is only known at run time (a variable, a substitution).
    pub unknown: bool,
    /// An unquoted glob or brace expansion.
    pub glob: bool,
}

/// Where a simple command's standard input comes from: what an interpreter with no script runs.
#[derive(Debug, Clone)]
pub(crate) enum Stdin {
    /// The terminal or whatever the tool gives (nothing the command line chose).
    Inherit,
    /// The output of the previous command of a pipeline.
    Pipe,
    /// A file (`< f`).
    File,
    /// A here-document or here-string whose text is known (`None`: it has run-time parts).
    Text(Option<String>),
}

thread_local! {
    static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
}

/// Parse `src` and classify every simple command in it into `a`.
pub(crate) fn analyze(src: &str, a: &mut Acc, depth: u8) {
    if src.len() > MAX_LEN {
        a.flag(Danger::Opaque, "it is too long to analyse");
        return;
    }
    if let Some(line) = super::simple_line::lex(src) {
        super::simple_line::walk(line, a, depth);
        return;
    }
    analyze_tree(src, a, depth);
}

/// `analyze` through tree-sitter, whatever the line.
pub(crate) fn analyze_tree(src: &str, a: &mut Acc, depth: u8) {
    let tree = PARSER.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *p = Some(parser);
        }
        let parser = p.as_mut()?;
        let start = std::time::Instant::now();
        let mut calls = 0u32;
        let mut give_up = |_: &tree_sitter::ParseState| {
            calls = calls.wrapping_add(1);
            calls.is_multiple_of(64) && start.elapsed() > PARSE_BUDGET
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut give_up);
        let bytes = src.as_bytes();
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(options),
        );
        if tree.is_none() {
            parser.reset(); // a cancelled parse would otherwise resume on the next call
        }
        tree
    });
    let Some(tree) = tree else {
        a.flag(Danger::Opaque, "it could not be parsed");
        return;
    };
    let root = tree.root_node();
    if root.has_error() {
        a.flag(
            Danger::Opaque,
            "it could not be parsed completely (an unbalanced quote, bracket or substitution?)",
        );
    }
    let mut w = Walker {
        src: src.as_bytes(),
        a,
        depth,
        vars: HashMap::new(),
    };
    w.statement(root, &Stdin::Inherit, 0);
}

struct Walker<'s, 'a> {
    src: &'s [u8],
    a: &'a mut Acc,
    depth: u8,
    /// Variables assigned earlier in this line: `Some(value)` when literal.
    vars: HashMap<String, Option<String>>,
}

pub(crate) fn is_name(s: &str) -> bool {
    let mut it = s.chars();
    it.next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && it.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Environment variables a command may set (`NAME=v cmd`, `export NAME=v`) without changing
/// which program runs or what it loads: logging, colour, locale, test and CI switches.
#[rustfmt::skip]
const SAFE_ENV: &[&str] = &[
    "RUST_LOG", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "RUST_TEST_THREADS", "RUST_TEST_NOCAPTURE", "RUST_MIN_STACK",
    "CARGO_TERM_COLOR", "CARGO_TERM_VERBOSE", "CARGO_TERM_QUIET", "CARGO_INCREMENTAL", "CARGO_BUILD_JOBS", "CARGO_PROFILE_DEV_DEBUG",
    "CI", "NODE_ENV", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS", "LINES", "TZ", "LANG",
    "LANGUAGE", "DEBUG", "VERBOSE", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONWARNINGS",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTEST_ADDOPTS_NONE", "GOTRACEBACK", "GOMAXPROCS", "GOOS", "GOARCH", "CGO_ENABLED",
    "JEST_WORKER_ID", "UPDATE_SNAPSHOTS", "INSTA_UPDATE", "INSTA_FORCE_PASS", "TRYBUILD", "SNAPSHOT_UPDATE", "LOG_LEVEL",
    "RAYON_NUM_THREADS", "OMP_NUM_THREADS", "MAKEFLAGS_NONE", "SOURCE_DATE_EPOCH", "HYPOTHESIS_PROFILE", "TEST", "TESTS",
    "NEXT_TELEMETRY_DISABLED", "DOTNET_CLI_TELEMETRY_OPTOUT", "HUSKY", "TRADEWIND_LOG", "RUSTC_BOOTSTRAP_NONE",
];

/// May `NAME=value` prefix a command or be exported? Only names from `SAFE_ENV` (and `LC_*`):
/// `PATH`, `LD_PRELOAD`, `GIT_*`, `PAGER`, `NODE_OPTIONS`, `BASH_ENV`… change what runs.
pub(crate) fn safe_env(name: &str) -> bool {
    SAFE_ENV.contains(&name) || name.starts_with("LC_")
}

/// Names a plain assignment (`d=x`, no export) cannot use to change what later commands run: it
/// stays in the shell unless the name is already exported, which environment names usually are
/// (upper case); and the shell itself reads these.
fn safe_shell_var(name: &str) -> bool {
    let shell_reads = matches!(
        name,
        "PATH"
            | "IFS"
            | "HOME"
            | "CDPATH"
            | "ENV"
            | "BASH_ENV"
            | "PS4"
            | "PROMPT_COMMAND"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "GLOBIGNORE"
            | "FIGNORE"
            | "EXECIGNORE"
            | "BASH_XTRACEFD"
    );
    !shell_reads
        && (safe_env(name)
            || (name.chars().any(|c| c.is_ascii_lowercase()) && !name.ends_with("_proxy")))
}

fn unescape_word(raw: &str) -> (String, bool, bool) {
    let (mut out, mut quoted, mut glob) = (String::with_capacity(raw.len()), false, false);
    let mut it = raw.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => {
                quoted = true;
                match it.next() {
                    Some('\n') | None => {}
                    Some(n) => out.push(n),
                }
            }
            '*' | '?' | '[' => {
                glob = true;
                out.push(c);
            }
            '{' if raw.contains(',') || raw.contains("..") => {
                glob = true;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    (out, quoted, glob)
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline.
fn unescape_dq(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.peek() {
                Some(&n) if "$`\"\\".contains(n) => {
                    out.push(n);
                    it.next();
                }
                Some('\n') => {
                    it.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'…'` with its escapes decoded; `None` for escapes we do not model (`\c`, `\u` of a
/// non-character…), which make the word unknown.
fn decode_ansi_c(body: &str) -> Option<String> {
    let cs: Vec<char> = body.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let radix = |cs: &[char], i: usize, max: usize, r: u32| {
        let n = cs
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take(max)
            .take_while(|c| c.is_digit(r))
            .count();
        let v: String = cs.get(i..i + n).unwrap_or_default().iter().collect();
        (u32::from_str_radix(&v, r).ok(), n)
    };
    while let Some(&c) = cs.get(i) {
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = cs.get(i) else { break };
        i += 1;
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (v, n) = match e {
            'x' => radix(&cs, i, 2, 16),
            'u' => radix(&cs, i, 4, 16),
            'U' => radix(&cs, i, 8, 16),
            '0'..='7' => {
                let (v, n) = radix(&cs, i - 1, 3, 8);
                (v, n.saturating_sub(1))
            }
            _ => return None,
        };
        out.push(char::from_u32(v?)?);
        i += n;
    }
    Some(out)
}

impl<'s> Walker<'s, '_> {
    fn text(&self, n: Node<'_>) -> &'s str {
        n.utf8_text(self.src).unwrap_or("")
    }

    fn too_deep(&mut self, nest: u16) -> bool {
        if nest > MAX_NEST {
            self.a
                .flag(Danger::Opaque, "it is nested too deeply to analyse");
            return true;
        }
        false
    }

    /// Classify the code of a substitution or `sh -c` string one level down.
    fn nested(&mut self, n: Node<'_>, nest: u16) {
        if self.depth >= MAX_DEPTH {
            self.a
                .flag(Danger::Opaque, "it nests substitutions too deeply");
            return;
        }
        self.depth += 1;
        let saved = (self.a.cwd.clone(), self.vars.clone());
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            self.statement(ch, &Stdin::Inherit, nest + 1);
        }
        (self.a.cwd, self.vars) = saved;
        self.depth -= 1;
    }

    /// Walk every descendant that is not a statement we already handle, looking for
    /// substitutions (which run) — for the parts of the tree that are data, not commands.
    fn scan(&mut self, n: Node<'_>, nest: u16) {
        if self.too_deep(nest) {
            return;
        }
        match n.kind() {
            "command_substitution" | "process_substitution" => self.nested(n, nest),
            _ => {
                let mut c = n.walk();
                for ch in n.named_children(&mut c) {
                    self.scan(ch, nest + 1);
                }
            }
        }
    }

    fn statement(&mut self, n: Node<'_>, stdin: &Stdin, nest: u16) {
        if self.too_deep(nest) {
            return;
        }
        let mut c = n.walk();
        match n.kind() {
            "comment" | "heredoc_body" | "heredoc_start" | "heredoc_end" => {}
            "command" => self.command(n, stdin, nest),
            "pipeline" => {
                for (k, ch) in n.named_children(&mut c).enumerate() {
                    let s = if k == 0 { stdin.clone() } else { Stdin::Pipe };
                    self.statement(ch, &s, nest + 1);
                }
            }
            "redirected_statement" => self.redirected(n, stdin, nest),
            "subshell" => {
                let saved = (self.a.cwd.clone(), self.vars.clone());
                for ch in n.named_children(&mut c) {
                    self.statement(ch, stdin, nest + 1);
                }
                (self.a.cwd, self.vars) = saved;
            }
            "variable_assignment" => self.assignment(n, false, nest),
            "declaration_command" => self.declaration(n, nest),
            "function_definition" => {
                self.a.flag(
                    Danger::Opaque,
                    "it defines a shell function, so a later command name may not be the program it looks like",
                );
                for ch in n.named_children(&mut c) {
                    self.statement(ch, stdin, nest + 1);
                }
            }
            "for_statement" | "select_statement" => {
                if let Some(v) = n.child_by_field_name("variable") {
                    let name = self.text(v).to_string();
                    self.vars.insert(name, None);
                }
                let mut c2 = n.walk();
                for v in n.children_by_field_name("value", &mut c2) {
                    self.scan(v, nest + 1);
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.statement(b, stdin, nest + 1);
                }
            }
            "test_command" | "c_style_for_statement" | "arithmetic_expansion" | "unset_command" => {
                self.scan(n, nest + 1)
            }
            "ERROR" => {
                for ch in n.named_children(&mut c) {
                    self.statement(ch, stdin, nest + 1);
                }
            }
            // program, list, compound_statement, do_group, if/while/case and their clauses,
            // negated_command: the statements inside, in order; data inside is scanned.
            _ => {
                for ch in n.named_children(&mut c) {
                    if is_statement(ch.kind()) {
                        self.statement(ch, stdin, nest + 1);
                    } else {
                        self.scan(ch, nest + 1);
                    }
                }
            }
        }
    }

    fn redirected(&mut self, n: Node<'_>, stdin: &Stdin, nest: u16) {
        let mut input = stdin.clone();
        let mut after: Vec<Node<'_>> = Vec::new();
        let mut c = n.walk();
        for r in n.children_by_field_name("redirect", &mut c) {
            if let Some(s) = self.redirect(r, nest, &mut after) {
                input = s;
            }
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.statement(body, &input, nest + 1);
        }
        // `cmd <<EOF | next`: the grammar puts what follows the here-document inside it.
        for (k, s) in after.into_iter().enumerate() {
            let s_in = if k == 0 { Stdin::Pipe } else { Stdin::Inherit };
            self.statement(s, &s_in, nest + 1);
        }
    }

    /// Check one redirect; returns the standard input it sets, if it sets one.
    fn redirect<'t>(&mut self, r: Node<'t>, nest: u16, after: &mut Vec<Node<'t>>) -> Option<Stdin> {
        match r.kind() {
            "file_redirect" => {
                let op = (0..r.child_count())
                    .filter_map(|i| r.child(i))
                    .find(|ch| !ch.is_named())
                    .map(|ch| self.text(ch).to_string())
                    .unwrap_or_default();
                let dest = r.child_by_field_name("destination");
                let w = dest.map(|d| self.word(d, nest + 1)).unwrap_or_default();
                target(self.a, &op, &w);
                (op == "<").then_some(Stdin::File)
            }
            "herestring_redirect" => {
                let mut c = r.walk();
                let w = r
                    .named_children(&mut c)
                    .find(|ch| ch.kind() != "file_descriptor")
                    .map(|ch| self.word(ch, nest + 1))
                    .unwrap_or_default();
                Some(Stdin::Text((!w.unknown).then_some(w.text)))
            }
            "heredoc_redirect" => {
                let mut c = r.walk();
                let mut body = None;
                for ch in r.named_children(&mut c) {
                    match ch.kind() {
                        "heredoc_body" => {
                            let unknown = ch.named_child_count() > 1
                                || (0..ch.named_child_count()).any(|i| {
                                    ch.named_child(i)
                                        .is_some_and(|x| x.kind() != "heredoc_content")
                                });
                            self.scan(ch, nest + 1);
                            body = Some((!unknown).then(|| self.text(ch).to_string()));
                        }
                        "file_redirect" | "herestring_redirect" => {
                            let _ = self.redirect(ch, nest + 1, after);
                        }
                        k if is_statement(k) => after.push(ch),
                        _ => {}
                    }
                }
                Some(Stdin::Text(body.flatten()))
            }
            _ => {
                self.scan(r, nest + 1);
                None
            }
        }
    }

    fn assignment(&mut self, n: Node<'_>, exported: bool, nest: u16) {
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        let value = n
            .child_by_field_name("value")
            .map(|v| self.word(v, nest + 1));
        let ok = if exported {
            safe_env(&name)
        } else {
            safe_shell_var(&name)
        };
        if !ok {
            let why = format!(
                "it sets {}, which can change what later commands run",
                q(&name)
            );
            self.a.flag(Danger::Opaque, why);
        }
        let literal = value.map_or(Some(String::new()), |v| {
            (!v.unknown && !v.glob).then_some(v.text)
        });
        if is_name(&name) {
            self.vars.insert(name, literal);
        }
    }

    fn declaration(&mut self, n: Node<'_>, nest: u16) {
        let kw = n
            .child(0)
            .map(|k| self.text(k).to_string())
            .unwrap_or_default();
        let mut c = n.walk();
        let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
        let export = kw == "export"
            || kids.iter().any(|k| {
                k.kind() == "word" && {
                    let t = self.text(*k);
                    t.starts_with('-') && t.contains('x')
                }
            });
        for k in kids {
            match k.kind() {
                "variable_assignment" => self.assignment(k, export, nest + 1),
                "variable_name" if export && !safe_env(self.text(k)) => {
                    let why = format!(
                        "it exports {}, which can change what later commands run",
                        q(self.text(k))
                    );
                    self.a.flag(Danger::Opaque, why);
                }
                _ => self.scan(k, nest + 1),
            }
        }
    }

    fn command(&mut self, n: Node<'_>, stdin: &Stdin, nest: u16) {
        let mut assigns: Vec<String> = Vec::new();
        let mut words: Vec<Word> = Vec::new();
        let mut after = Vec::new();
        let mut input = stdin.clone();
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if !ch.is_named() {
                continue;
            }
            match ch.kind() {
                "variable_assignment" => {
                    let name = ch
                        .child_by_field_name("name")
                        .map(|x| self.text(x).to_string())
                        .unwrap_or_default();
                    if let Some(v) = ch.child_by_field_name("value") {
                        let w = self.word(v, nest + 1);
                        self.a.mentions(&w.text);
                    }
                    assigns.push(name);
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    if let Some(s) = self.redirect(ch, nest + 1, &mut after) {
                        input = s;
                    }
                }
                "command_name" => {
                    let w = ch
                        .named_child(0)
                        .map(|x| self.word(x, nest + 1))
                        .unwrap_or_default();
                    words.push(w);
                }
                "subshell" => self.statement(ch, stdin, nest + 1),
                "comment" => {}
                _ => words.push(self.word(ch, nest + 1)),
            }
        }
        simple_command(self.a, &assigns, &words, &input, self.depth);
        for s in after {
            self.statement(s, &Stdin::Pipe, nest + 1);
        }
    }

    /// Statically evaluate a word-like node; substitutions inside are classified on the way.
    fn word(&mut self, n: Node<'_>, nest: u16) -> Word {
        let mut w = Word::default();
        if self.too_deep(nest) {
            w.unknown = true;
            return w;
        }
        self.word_into(n, nest, &mut w);
        w
    }

    fn word_into(&mut self, n: Node<'_>, nest: u16, w: &mut Word) {
        if self.too_deep(nest) {
            w.unknown = true;
            return;
        }
        match n.kind() {
            "word" | "number" | "extglob_pattern" | "regex" | "variable_name" => {
                let (t, quoted, glob) = unescape_word(self.text(n));
                w.text.push_str(&t);
                w.quoted |= quoted;
                w.glob |= glob;
            }
            "raw_string" => {
                let t = self.text(n);
                w.text
                    .push_str(t.get(1..t.len().saturating_sub(1)).unwrap_or(""));
                w.quoted = true;
            }
            "string" | "translated_string" => {
                w.quoted = true;
                let mut c = n.walk();
                for ch in n.named_children(&mut c) {
                    if ch.kind() == "string_content" {
                        w.text.push_str(&unescape_dq(self.text(ch)));
                    } else {
                        self.word_into(ch, nest + 1, w);
                    }
                }
            }
            "ansi_c_string" => {
                w.quoted = true;
                let t = self.text(n);
                let body = t.get(2..t.len().saturating_sub(1)).unwrap_or("");
                match decode_ansi_c(body) {
                    Some(s) => {
                        self.a.controls(&s);
                        w.text.push_str(&s);
                    }
                    None => {
                        w.unknown = true;
                        w.text.push_str("$'…'");
                    }
                }
            }
            "concatenation" => {
                let mut c = n.walk();
                for ch in n.named_children(&mut c) {
                    self.word_into(ch, nest + 1, w);
                }
                // `{a,b}` and friends are split into pieces by the grammar: the text decides.
                if self.text(n).contains('{') && !w.quoted {
                    w.glob = true;
                }
            }
            "simple_expansion" | "expansion" => self.expansion(n, nest, w),
            "command_substitution" | "process_substitution" => {
                self.nested(n, nest);
                w.unknown = true;
                w.text.push_str("$(…)");
            }
            "brace_expression" => {
                w.glob = true;
                w.text.push_str(self.text(n));
            }
            _ => {
                self.scan(n, nest + 1);
                w.unknown = true;
                w.text.push_str(self.text(n));
            }
        }
    }

    fn expansion(&mut self, n: Node<'_>, nest: u16, w: &mut Word) {
        let raw = self.text(n);
        let name = raw
            .trim_start_matches('$')
            .trim_start_matches('{')
            .trim_end_matches('}');
        if is_name(name) || name.chars().all(|c| c.is_ascii_digit()) {
            if name == "HOME" {
                w.text.push('~');
                return;
            }
            if let Some(Some(v)) = self.vars.get(name) {
                w.text.push_str(v);
                return;
            }
        } else {
            self.scan(n, nest + 1);
        }
        w.unknown = true;
        w.text.push_str(raw);
    }
}

/// An output or input redirection target.
pub(crate) fn target(a: &mut Acc, op: &str, w: &Word) {
    let t = w.text.as_str();
    a.mentions(t);
    if t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/") {
        a.flag(
            Danger::Network,
            format!("the redirection to {} reaches the network", q(t)),
        );
    }
    let dup =
        op.ends_with('&') && (t == "-" || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())));
    if op == "<" || dup {
        return;
    }
    if w.unknown || (w.glob && !w.quoted) {
        a.flag(
            Danger::Opaque,
            format!("it redirects output to {}, known only at run time", q(t)),
        );
        return;
    }
    if !matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr") {
        super::write_checks(a, "the redirection", t);
        super::git_path_write(a, "the redirection", t);
    }
}

/// The end of a simple command: its `NAME=value` prefixes checked, its words mentioned and
/// classified.
pub(crate) fn simple_command(
    a: &mut Acc,
    assigns: &[String],
    words: &[Word],
    input: &Stdin,
    depth: u8,
) {
    for name in assigns {
        if !safe_env(name) {
            let why = format!(
                "it sets {} for the command, which can change what runs",
                q(name)
            );
            a.flag(Danger::Opaque, why);
        }
    }
    if !words.is_empty() {
        for w in words {
            a.mentions(&w.text);
        }
        super::simple(a, words, input, depth);
    }
}

fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "command"
            | "pipeline"
            | "list"
            | "redirected_statement"
            | "subshell"
            | "compound_statement"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "select_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item"
            | "function_definition"
            | "negated_command"
            | "test_command"
            | "variable_assignment"
            | "variable_assignments"
            | "declaration_command"
            | "unset_command"
            | "ERROR"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_decoding() {
        assert_eq!(decode_ansi_c(r"\x72\x6d").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"a\nb\'").as_deref(), Some("a\nb'"));
        assert_eq!(decode_ansi_c(r"\162m").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"\u0072m").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"\cA"), None);
        assert_eq!(decode_ansi_c(r"\xZZ"), None);
    }

    #[test]
    fn env_names() {
        assert!(safe_env("RUST_LOG") && safe_env("LC_ALL"));
        assert!(!safe_env("PATH") && !safe_env("LD_PRELOAD") && !safe_env("GIT_PAGER"));
        assert!(safe_shell_var("target") && safe_shell_var("RUST_LOG"));
        assert!(
            !safe_shell_var("PATH") && !safe_shell_var("GIT_DIR") && !safe_shell_var("http_proxy")
        );
    }
}
