//! Modules stay one-way inside every crate: each crate's `crate::…` and `super::…` paths (in
//! `use` items and in code) form a graph of its modules, and that graph has no cycle. A cycle
//! fails the test, named module by module. A module naming its own children by relative path
//! (`mod calls; use calls::run;`) is how a module is made of parts, not a dependency, and is not
//! an edge; a child reaching back up (`super::`, `crate::`) is. Test modules (`#[cfg(test)]`)
//! are left out: they only look at the module they test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A crate's modules: path (`crate::a::b`) → the file that holds it, and its inline children.
#[derive(Default)]
struct Graph {
    modules: BTreeSet<String>,
    edges: BTreeMap<String, BTreeSet<String>>,
    /// For each edge, the first path that made it.
    via: BTreeMap<(String, String), String>,
    /// The file each module is written in (an inline module: its parent's).
    files: BTreeMap<String, PathBuf>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().contains("test"))
    })
}

/// Collect every module of a crate from its root file.
fn collect_modules(file: &Path, module: &str, out: &mut Vec<(String, PathBuf, syn::File)>) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let dir = if file
        .file_name()
        .is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs")
    {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    };
    collect_items(&parsed.items, module, &dir, file, out);
    out.push((module.to_string(), file.to_path_buf(), parsed));
}

fn collect_items(
    items: &[syn::Item],
    module: &str,
    dir: &Path,
    file: &Path,
    out: &mut Vec<(String, PathBuf, syn::File)>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        if is_cfg_test(&m.attrs) {
            continue;
        }
        let child = format!("{module}::{}", m.ident);
        if let Some((_, inner)) = &m.content {
            // An inline module: its items are parsed with its parent's file.
            collect_items(inner, &child, &dir.join(m.ident.to_string()), file, out);
            out.push((
                child,
                file.to_path_buf(),
                syn::File {
                    shebang: None,
                    attrs: vec![],
                    items: inner.to_vec(),
                },
            ));
            continue;
        }
        let explicit = m.attrs.iter().find_map(|a| {
            if !a.path().is_ident("path") {
                return None;
            }
            match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(dir.join(s.value())),
                    _ => None,
                },
                _ => None,
            }
        });
        let file = explicit.unwrap_or_else(|| {
            let flat = dir.join(format!("{}.rs", m.ident));
            if flat.exists() {
                flat
            } else {
                dir.join(m.ident.to_string()).join("mod.rs")
            }
        });
        collect_modules(&file, &child, out);
    }
}

/// The paths one module's code names, as module-path segments.
struct Paths<'a> {
    module: &'a str,
    found: Vec<Vec<String>>,
}

impl Paths<'_> {
    /// A path as absolute segments (`crate`, …), if it names something of this crate.
    fn absolute(&self, segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?;
        let mut base: Vec<String> = self.module.split("::").map(str::to_string).collect();
        let mut rest = segs;
        match first.as_str() {
            "crate" => {
                base = vec!["crate".into()];
                rest = &segs[1..];
            }
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                if base.is_empty() {
                    return None;
                }
            }
            _ => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }
}

/// The `crate::a::b` and `super::a` runs in a token stream, groups included.
fn token_paths(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
    use proc_macro2::TokenTree;
    let mut run: Vec<String> = Vec::new();
    // How many `:` have been seen since the last identifier of the run (2 continue it).
    let mut colons = 0;
    let flush = |run: &mut Vec<String>, out: &mut Vec<Vec<String>>| {
        if run.len() > 1 && matches!(run[0].as_str(), "crate" | "super") {
            out.push(std::mem::take(run));
        }
        run.clear();
    };
    for t in tokens {
        match t {
            TokenTree::Ident(i) => {
                if run.is_empty() || colons != 2 {
                    flush(&mut run, out);
                }
                run.push(i.to_string());
                colons = 0;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && !run.is_empty() && colons < 2 => {
                colons += 1;
            }
            TokenTree::Group(g) => {
                flush(&mut run, out);
                colons = 0;
                token_paths(g.stream(), out);
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {
                flush(&mut run, out);
                colons = 0;
            }
        }
    }
    flush(&mut run, out);
}

fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut v = prefix.clone();
            if n.ident != "self" {
                v.push(n.ident.to_string());
            }
            out.push(v);
        }
        syn::UseTree::Rename(r) => {
            let mut v = prefix.clone();
            if r.ident != "self" {
                v.push(r.ident.to_string());
            }
            out.push(v);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Child modules are modules of their own (collected separately).
        let _ = m;
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Use(x) => &x.attrs,
            syn::Item::Const(x) => &x.attrs,
            syn::Item::Static(x) => &x.attrs,
            syn::Item::Struct(x) => &x.attrs,
            syn::Item::Enum(x) => &x.attrs,
            _ => &Vec::new(),
        };
        if is_cfg_test(attrs) {
            return;
        }
        syn::visit::visit_item(self, i);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut out = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut out);
        self.found.extend(out);
    }

    /// A macro's body is tokens, not syntax (`tokio::join!(crate::a::f(), …)`, `format!`,
    /// `matches!`): every `crate::…`/`super::…` run in it counts as a path.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        token_paths(m.tokens.clone(), &mut self.found);
        syn::visit::visit_macro(self, m);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
            self.found.push(segs);
        }
        syn::visit::visit_path(self, p);
    }
}

fn graph_of(root: &Path) -> Graph {
    let mut files = Vec::new();
    collect_modules(root, "crate", &mut files);
    let mut g = Graph::default();
    for (m, f, _) in &files {
        g.modules.insert(m.clone());
        g.files.insert(m.clone(), f.clone());
    }
    for (module, _, file) in &files {
        let mut v = Paths {
            module,
            found: Vec::new(),
        };
        for item in &file.items {
            v.visit_item(item);
        }
        for segs in &v.found {
            let Some(abs) = v.absolute(segs) else {
                continue;
            };
            // The longest prefix that is a module.
            let target = (1..=abs.len())
                .rev()
                .map(|n| abs[..n].join("::"))
                .find(|p| g.modules.contains(p));
            if let Some(t) = target
                && &t != module
            {
                g.via
                    .entry((module.clone(), t.clone()))
                    .or_insert_with(|| segs.join("::"));
                g.edges.entry(module.clone()).or_default().insert(t);
            }
        }
    }
    g
}

/// Every cycle's modules: the strongly connected components with more than one module.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    // Tarjan's algorithm.
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ws) = s.g.edges.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for m in &g.modules {
        if !s.index.contains_key(m.as_str()) {
            visit(&mut s, m);
        }
    }
    s.out
}

/// One shortest cycle through `start` inside `comp`, as `a → b → … → a`.
fn cycle_through(g: &Graph, comp: &[String], start: &str) -> String {
    let inside: BTreeSet<&str> = comp.iter().map(String::as_str).collect();
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if w == start {
                let mut path = vec![start.to_string()];
                let mut cur = v;
                while cur != start {
                    path.push(cur.to_string());
                    cur = prev[cur];
                }
                path.push(start.to_string());
                let n = path.len();
                path[1..n - 1].reverse();
                return path.join(" → ");
            }
            if inside.contains(w) && !prev.contains_key(w) && w != start {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    String::new()
}

/// The cycles of the crate rooted at `root` (its `lib.rs`, `main.rs` or a binary's file).
fn check(name: &str, root: &Path) -> Vec<String> {
    let g = graph_of(root);
    cycles(&g)
        .iter()
        .map(|c| {
            let inside: BTreeSet<&String> = c.iter().collect();
            let edges: Vec<String> = g
                .via
                .iter()
                .filter(|((a, b), _)| inside.contains(a) && inside.contains(b))
                .map(|((a, b), via)| format!("    {a} → {b} ({via}) at {}", at(&g, a, via)))
                .collect();
            format!(
                "{name}: {} modules in a cycle: {}\n  e.g. {}\n  its edges:\n{}",
                c.len(),
                c.join(", "),
                cycle_through(&g, c, &c[0]),
                edges.join("\n")
            )
        })
        .collect()
}

/// `file:line` of the first line of `module`'s file that names `via` (or, for a path split
/// over lines, its last two segments, then its last).
fn at(g: &Graph, module: &str, via: &str) -> String {
    let Some(file) = g.files.get(module) else {
        return "?".into();
    };
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let segs: Vec<&str> = via.split("::").collect();
    let tail2 = segs[segs.len().saturating_sub(2)..].join("::");
    let last = segs.last().copied().unwrap_or_default();
    let line = [via, tail2.as_str(), last]
        .iter()
        .find_map(|needle| text.lines().position(|l| l.contains(needle)))
        .map_or(0, |i| i + 1);
    format!("{}:{line}", file.display())
}

/// The layers `lib.rs`'s opening comment lists (`//! 3. store, attachments`), lowest first.
fn layers_of(lib_rs: &str) -> Vec<Vec<String>> {
    let mut layers = Vec::new();
    for l in lib_rs
        .lines()
        .take_while(|l| l.starts_with("//!") || l.is_empty())
    {
        let body = l.trim_start_matches("//!").trim();
        let Some((n, names)) = body.split_once(". ") else {
            continue;
        };
        if n.parse::<usize>().is_ok_and(|n| n == layers.len() + 1) {
            layers.push(
                names
                    .trim_end_matches('.')
                    .split(',')
                    .map(|m| m.trim().trim_matches('`').to_string())
                    .collect(),
            );
        }
    }
    layers
}

/// Every path from a module to one of a later layer, with its file and line; and every
/// top-level module the list leaves out (or names but the crate has not).
fn upward(g: &Graph, layers: &[Vec<String>]) -> Vec<String> {
    let layer_of = |top: &str| layers.iter().position(|l| l.iter().any(|m| m == top));
    let top = |m: &str| m.split("::").nth(1).map(str::to_string);
    let mut problems = Vec::new();
    let tops: BTreeSet<String> = g.modules.iter().filter_map(|m| top(m)).collect();
    for t in &tops {
        if layer_of(t).is_none() {
            problems.push(format!(
                "crate::{t} is in no layer: add it to the list in lib.rs"
            ));
        }
    }
    for name in layers.iter().flatten() {
        if !tops.contains(name) {
            problems.push(format!("the layer list names {name}, which is no module"));
        }
    }
    for ((a, b), via) in &g.via {
        let (Some(ta), Some(tb)) = (top(a), top(b)) else {
            continue;
        };
        if let (Some(la), Some(lb)) = (layer_of(&ta), layer_of(&tb))
            && lb > la
        {
            problems.push(format!(
                "{}: {a} (layer {}: {ta}) names {via}, of layer {} ({tb}): an upward import",
                at(g, a, via),
                la + 1,
                lb + 1
            ));
        }
    }
    problems
}

/// Every crate of the workspace, each binary its own crate.
fn crate_roots() -> Vec<(String, PathBuf)> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut roots = Vec::new();
    for krate in ["protocol", "policy", "confine", "core", "tradewind"] {
        roots.push((
            krate.to_string(),
            top.join("server").join(krate).join("src/lib.rs"),
        ));
    }
    roots.push((
        "tradewind (bin)".into(),
        top.join("server/tradewind/src/main.rs"),
    ));
    roots.push((
        "tradewind-confine (bin)".into(),
        top.join("server/tradewind/src/bin/tradewind-confine.rs"),
    ));
    roots.push(("tests".into(), top.join("tests/src/lib.rs")));
    roots.push((
        "bench (bin)".into(),
        top.join("tests/src/bin/bench/main.rs"),
    ));
    roots
}

#[test]
fn every_crate_s_modules_are_one_way() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for (name, root) in crate_roots() {
        assert!(root.is_file(), "{}", root.display());
        seen += graph_of(&root).modules.len();
        problems.extend(check(&name, &root));
    }
    assert!(seen > 150, "only {seen} modules found");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn core_s_layers_point_down() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/core/src/lib.rs");
    let layers = layers_of(&std::fs::read_to_string(&lib).unwrap());
    assert!(layers.len() >= 8, "the layer list in lib.rs: {layers:?}");
    let problems = upward(&graph_of(&lib), &layers);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_checker_reads_macro_bodies_and_finds_an_upward_import() {
    let dir = std::env::temp_dir().join(format!("tw-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "//! Layers:\n//!\n//! 1. low\n//! 2. high\nmod low;\nmod high;\n",
    )
    .unwrap();
    std::fs::write(dir.join("high.rs"), "pub fn h() { crate::low::l(); }\n").unwrap();
    // The only path up is inside macros' tokens, nested in a group.
    std::fs::write(
        dir.join("low.rs"),
        "pub fn l() {}\nasync fn f() {\n    let _ = tokio::join!(async { crate::high::h() }, async {});\n    println!(\"{}\", matches!(1, 1));\n}\n",
    )
    .unwrap();
    let lib = dir.join("lib.rs");
    let g = graph_of(&lib);
    assert_eq!(
        cycles(&g),
        [vec!["crate::high".to_string(), "crate::low".into()]]
    );
    let layers = layers_of(&std::fs::read_to_string(&lib).unwrap());
    assert_eq!(layers, [vec!["low".to_string()], vec!["high".to_string()]]);
    let problems = upward(&g, &layers);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let want = format!(
        "{}:3: crate::low (layer 1: low) names crate::high::h",
        dir.join("low.rs").display()
    );
    assert!(problems[0].starts_with(&want), "{}", problems[0]);
    // A module the list leaves out is named.
    std::fs::write(dir.join("lib.rs"), "//! 1. low\nmod low;\nmod high;\n").unwrap();
    let problems = upward(&graph_of(&lib), &layers_of("//! 1. low\n"));
    assert!(
        problems
            .iter()
            .any(|p| p.contains("crate::high is in no layer")),
        "{problems:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_checker_finds_a_cycle() {
    let dir = std::env::temp_dir().join(format!("tw-modules-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    // `a` names its child by relative path (no edge); the child reaches `b`, `b` reaches `c`,
    // and `c` reaches back into `a::inner`.
    std::fs::write(dir.join("a/mod.rs"), "mod inner;\nuse inner::X;\n").unwrap();
    std::fs::write(dir.join("a/inner.rs"), "pub struct X(crate::b::Y);\n").unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "pub struct Y;\nfn f() { super::c::g() }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("c.rs"),
        "pub fn g() { let _ = crate::a::inner::X; }\n",
    )
    .unwrap();
    let g = graph_of(&dir.join("lib.rs"));
    let found = cycles(&g);
    assert_eq!(
        found,
        [vec![
            "crate::a::inner".to_string(),
            "crate::b".into(),
            "crate::c".into()
        ]]
    );
    assert_eq!(
        cycle_through(&g, &found[0], "crate::a::inner"),
        "crate::a::inner → crate::b → crate::c → crate::a::inner"
    );
    // A parent and a child that name each other (`crate::…` down, `super::` up) are a cycle.
    std::fs::write(dir.join("c.rs"), "pub fn g() {}\n").unwrap();
    std::fs::write(
        dir.join("a/mod.rs"),
        "mod inner;\npub struct Z(crate::a::inner::X);\n",
    )
    .unwrap();
    std::fs::write(dir.join("a/inner.rs"), "pub struct X(super::Z);\n").unwrap();
    assert_eq!(
        cycles(&graph_of(&dir.join("lib.rs"))),
        [vec!["crate::a".to_string(), "crate::a::inner".into()]]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
