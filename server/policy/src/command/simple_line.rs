//! The common command line without tree-sitter: plain words, single- and double-quoted strings
//! with nothing to expand, `NAME=value` prefixes, pipelines joined by `&&`, `||` and `;`, and
//! trailing redirects (`>`, `>>`, `2>`, `2>&1`, `<`). Parsing such a line by hand takes a few
//! microseconds where tree-sitter takes a hundred; anything else — an expansion, a
//! substitution, a glob, an escape, a keyword, a here-document, a comment, a subshell, a
//! background `&`, a redirect before a word, non-ASCII or control characters — is not a simple
//! line and goes to tree-sitter. The walk hands each command to exactly the checks the
//! tree-sitter walk uses, in the same order, so both give the same analysis (the tests hold
//! them equal over the gate's corpus and thousands of generated lines).

use super::Acc;
use super::{Stdin, Word, is_name, simple_command, target};

#[derive(Debug, Default)]
pub(crate) struct Cmd {
    assigns: Vec<(String, Word)>,
    words: Vec<Word>,
    redirects: Vec<(&'static str, Word)>,
}

/// The statements of a line (split by `;`), each its commands in order with whether each reads
/// the pipe of the one before.
pub(crate) type Line = Vec<Vec<(Cmd, bool)>>;

/// Words that make a line more than simple commands (tree-sitter parses them).
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "time", "coproc", "in", "export", "declare", "local", "readonly",
    "typeset", "unset", "let",
];

fn plain(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-_./:=,+@%^".contains(&c)
}

struct Lexer<'s> {
    src: &'s str,
    b: &'s [u8],
    i: usize,
}

impl Lexer<'_> {
    fn blanks(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| *c == b' ' || *c == b'\t')
        {
            self.i += 1;
        }
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// One word from here: where its raw text ends, and its value; `None` for anything not
    /// simple.
    fn word(&mut self) -> Option<(usize, Word)> {
        let start = self.i;
        let mut w = Word::default();
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'|' | b'&' | b';' | b'<' | b'>' => break,
                b'\'' => {
                    let close = self.b[self.i + 1..].iter().position(|x| *x == b'\'')?;
                    w.text
                        .push_str(self.src.get(self.i + 1..self.i + 1 + close)?);
                    w.quoted = true;
                    self.i += close + 2;
                }
                b'"' => {
                    let close = self.b[self.i + 1..].iter().position(|x| *x == b'"')?;
                    let inner = self.src.get(self.i + 1..self.i + 1 + close)?;
                    if inner.bytes().any(|x| b"$`\\!".contains(&x)) {
                        return None;
                    }
                    w.text.push_str(inner);
                    w.quoted = true;
                    self.i += close + 2;
                }
                c if plain(c) => {
                    w.text.push(char::from(c));
                    self.i += 1;
                }
                _ => return None,
            }
        }
        (self.i > start).then_some((start, w))
    }

    /// A redirect here: its operator and target (`>&` only to a descriptor or `-`).
    fn redirect(&mut self, fd: bool) -> Option<(&'static str, Word)> {
        let op = self.redirect_op(fd)?;
        self.blanks();
        let (_, w) = self.word()?;
        if op == ">&" && !(w.text == "-" || w.text.bytes().all(|x| x.is_ascii_digit())) {
            return None;
        }
        Some((op, w))
    }

    /// A redirect operator at `>` or `<` (a file descriptor before it is already read).
    fn redirect_op(&mut self, fd: bool) -> Option<&'static str> {
        let op = match (self.peek(0)?, self.peek(1)) {
            (b'>', Some(b'>')) => ">>",
            (b'>', Some(b'&')) => ">&",
            (b'>', Some(b'|' | b'(')) => return None,
            (b'>', _) => ">",
            (b'<', Some(b'<' | b'>' | b'&' | b'(')) => return None,
            (b'<', _) if !fd => "<",
            _ => return None,
        };
        self.i += op.len();
        Some(op)
    }
}

/// The line as simple commands, or `None` when it is not a simple line.
pub(crate) fn lex(src: &str) -> Option<Line> {
    if src.bytes().any(|c| c >= 0x7f || (c < 0x20 && c != b'\t')) {
        return None;
    }
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        i: 0,
    };
    let mut line: Line = Vec::new();
    let mut stmt: Vec<(Cmd, bool)> = Vec::new();
    let mut cmd = Cmd::default();
    // After `|`, `&&` or `||` a command must follow.
    let mut need = false;
    // The next command reads the pipe.
    let mut piped = false;
    loop {
        lx.blanks();
        let Some(c) = lx.peek(0) else { break };
        match c {
            b'|' | b'&' | b';' => {
                let op_len = match (c, lx.peek(1)) {
                    (b'|', Some(b'|')) | (b'&', Some(b'&')) => 2,
                    (b'|', Some(b'&')) | (b'&', _) | (b';', Some(b';' | b'&')) => return None,
                    _ => 1,
                };
                if cmd.words.is_empty() {
                    return None;
                }
                stmt.push((std::mem::take(&mut cmd), piped));
                if c == b';' {
                    line.push(std::mem::take(&mut stmt));
                }
                lx.i += op_len;
                need = c != b';';
                piped = op_len == 1 && c == b'|';
            }
            b'>' | b'<' => {
                let (op, w) = lx.redirect(false)?;
                if op == "<" && !(stmt.is_empty() && cmd.redirects.is_empty()) {
                    // Tree-sitter gives `<` to everything before it in the statement.
                    return None;
                }
                cmd.redirects.push((op, w));
                need = false;
            }
            _ => {
                let (start, w) = lx.word()?;
                let raw = src.get(start..lx.i)?;
                if raw.len() == 1 && raw.as_bytes()[0].is_ascii_digit() && lx.peek(0) == Some(b'>')
                {
                    // `2>file`, `2>&1`: a file descriptor and its redirect.
                    let (op, w) = lx.redirect(true)?;
                    cmd.redirects.push((op, w));
                    need = false;
                    continue;
                }
                if !cmd.redirects.is_empty() {
                    // A word after a redirect: tree-sitter keeps the order.
                    return None;
                }
                if cmd.words.is_empty() {
                    if KEYWORDS.contains(&raw) {
                        return None;
                    }
                    if let Some(eq) = raw.find('=') {
                        let name = &raw[..eq];
                        if is_name(name) {
                            let mut v = Lexer {
                                src: raw,
                                b: raw.as_bytes(),
                                i: eq + 1,
                            };
                            let value = if v.i == raw.len() {
                                Word::default()
                            } else {
                                v.word()?.1
                            };
                            cmd.assigns.push((name.to_string(), value));
                            need = true;
                            continue;
                        }
                    }
                    // An odd command name (`--x`, `x:y`, `a=b`) is tree-sitter's to read.
                    let first = raw.as_bytes()[0];
                    let ordinary = (first.is_ascii_alphanumeric() || b"_./".contains(&first))
                        && raw
                            .bytes()
                            .all(|x| x.is_ascii_alphanumeric() || b"_./-".contains(&x));
                    let quoted = b"'\"".contains(&first) && !raw.contains('=');
                    if !(ordinary || quoted) {
                        return None;
                    }
                }
                cmd.words.push(w);
                need = false;
            }
        }
    }
    if need || (cmd.words.is_empty() && (!cmd.assigns.is_empty() || !cmd.redirects.is_empty())) {
        return None;
    }
    if !cmd.words.is_empty() {
        stmt.push((cmd, piped));
    }
    if !stmt.is_empty() {
        line.push(stmt);
    }
    (!line.is_empty()).then_some(line)
}

/// Classify a simple line into `a`, as the tree-sitter walk would. Tree-sitter gives a trailing
/// redirect to everything before it in its statement (`a && b > f` is `{ a && b; } > f`), so a
/// statement's redirects are checked first, the last command's first, then its commands.
pub(crate) fn walk(line: Line, a: &mut Acc, depth: u8) {
    for stmt in line {
        let mut first_input = Stdin::Inherit;
        for (cmd, _) in stmt.iter().rev() {
            for (op, w) in &cmd.redirects {
                target(a, op, w);
                if *op == "<" {
                    first_input = Stdin::File;
                }
            }
        }
        for (k, (cmd, piped)) in stmt.into_iter().enumerate() {
            let input = match (k, piped) {
                (_, true) => Stdin::Pipe,
                (0, false) => first_input.clone(),
                _ => Stdin::Inherit,
            };
            for (_, v) in &cmd.assigns {
                a.mentions(&v.text);
            }
            let names: Vec<String> = cmd.assigns.into_iter().map(|(n, _)| n).collect();
            simple_command(a, &names, &cmd.words, &input, depth);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(
        src: &str,
    ) -> (
        Option<crate::command::CommandAnalysis>,
        crate::command::CommandAnalysis,
    ) {
        let fast = lex(src).map(|line| {
            let mut a = Acc::default();
            a.controls(&src.replace('\n', " "));
            a.mentions(src);
            walk(line, &mut a, 0);
            a.finish()
        });
        let mut a = Acc::default();
        a.controls(&src.replace('\n', " "));
        a.mentions(src);
        crate::command::analyze_tree(src, &mut a, 0);
        (fast, a.finish())
    }

    fn same(src: &str) -> bool {
        match both(src) {
            (Some(fast), tree) => {
                assert_eq!(fast, tree, "the fast path differs on {src:?}");
                true
            }
            (None, _) => false,
        }
    }

    #[test]
    fn the_bench_pipeline_is_simple_and_agrees() {
        let line = "cd web && RUST_LOG=debug cargo test -p tradewind-core --features probe 2>&1 | grep -E '^(test result|FAILED)' | tail -n 20; git status --porcelain | awk '{print $2}' | sort | uniq -c > status.txt";
        assert!(same(line));
    }

    #[test]
    fn the_corpus_agrees_with_tree_sitter() {
        let mut simple = 0;
        let all: Vec<String> = crate::corpus::commands(crate::corpus::BENIGN)
            .into_iter()
            .chain(crate::corpus::commands(crate::corpus::DANGEROUS))
            .collect();
        for c in &all {
            if same(c) {
                simple += 1;
            }
        }
        // Most agent commands take the fast path.
        assert!(simple * 2 > all.len(), "{simple} of {}", all.len());
    }

    #[test]
    fn what_is_not_simple_goes_to_tree_sitter() {
        for src in [
            "echo $HOME",
            "echo `id`",
            "ls *.rs",
            "echo a\\ b",
            "if true; then ls; fi",
            "cat <<EOF\nx\nEOF",
            "ls # note",
            "(cd a && ls)",
            "sleep 1 &",
            "> out.txt",
            "FOO=bar",
            "FOO+=bar ls",
            "export A=b",
            "ls > out.txt more",
            "ls &> out",
            "a |& b",
            "a &&",
            "| a",
            "echo \"$x\"",
            "echo ~/x",
            "echo {a,b}",
            "echo héllo",
            "ls >&file",
            "CC=gcc x:y",
            "",
            "   ",
        ] {
            assert!(lex(src).is_none(), "{src:?} is not simple");
        }
    }

    /// Thousands of lines built from words, quotes, prefixes, operators and redirects: every
    /// one the fast path takes gives tree-sitter's analysis.
    #[test]
    fn generated_lines_agree_with_tree_sitter() {
        const WORDS: &[&str] = &[
            "git",
            "status",
            "-n",
            "20",
            "a=b",
            "RUST_LOG=debug",
            "PATH=/tmp",
            "'x y'",
            "\"q r\"",
            "--f=v",
            "./a.txt",
            "/dev/null",
            "cd",
            "web",
            "rm",
            "-rf",
            "x:y",
            "@a",
            "%b",
            "c^d",
            "1",
            "2",
            "sh",
            "-c",
            "'ls; rm -rf /'",
            "curl",
            "https://example.com/x",
            "python3",
            "-m",
            "pip",
            "install",
            "~",
            "cat",
            "/etc/passwd",
            "sudo",
            "..",
            "''",
            "\"\"",
            "a'b'c",
            "npm",
            "test",
            "FOO=",
            "node",
            "-e",
            "'x'",
            "tee",
            "out.txt",
            "../x",
            "CC=gcc",
            "env",
            "xargs",
            "find",
            ".",
            "-delete",
            "dd",
            "of=/dev/sda",
        ];
        const JOIN: &[&str] = &[
            " ",
            " ",
            " ",
            " | ",
            " && ",
            " || ",
            "; ",
            " > ",
            " 2>&1 ",
            " >> ",
            " < ",
            " 2> ",
            " >&2 ",
            "|",
            "&&",
            ";",
            " 2>/dev/null ",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut taken = 0;
        for _ in 0..10_000 {
            let parts = 1 + next(7);
            let mut line = String::new();
            for k in 0..parts {
                if k > 0 {
                    line.push_str(JOIN[next(JOIN.len())]);
                }
                line.push_str(WORDS[next(WORDS.len())]);
            }
            if same(&line) {
                taken += 1;
            }
        }
        assert!(taken > 2000, "only {taken} generated lines were simple");
    }
}
