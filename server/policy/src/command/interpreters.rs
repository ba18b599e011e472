//! Interpreters and tools with languages of their own (python, package managers, git, sqlite,
//! sed): what their arguments make them run.

use super::*;

/// Python modules `python -m` may run without asking: test runners, linters, formatters, the
/// standard library's harmless tools. Any other module asks (`timeit`, `pdb`, `code` run code from
/// their arguments; `pydoc -p`, `telnetlib`, `zipfile -e` open sockets or write anywhere).
#[rustfmt::skip]
pub(super) const PY_MODULES: &[&str] = &["pytest", "unittest", "doctest", "mypy", "black", "ruff", "flake8", "pylint", "isort", "venv", "json.tool",
    "py_compile", "compileall", "coverage", "pyflakes", "pycodestyle", "pydocstyle", "bandit", "site", "sysconfig", "platform",
    "tabnanny", "tokenize", "ast", "dis", "calendar", "uuid", "pyright", "nox_NONE", "maturin", "django", "flask_NONE", "pytest_benchmark"];

pub(super) fn python(args: &[String], a: &mut Acc, depth: u8) {
    if args
        .first()
        .is_some_and(|x| matches!(x.as_str(), "-V" | "--version" | "-VV" | "-h" | "--help"))
    {
        return;
    }
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if matches!(
            x.as_str(),
            "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        ) {
            let why = format!("`python` {STDIN_CODE} ({})", stdin_source(&a.stdin));
            a.flag(Danger::Opaque, why);
            return;
        }
        if short_has(x, "c") {
            a.flag(
                Danger::Opaque,
                "`python -c` runs inline code: it can do anything the user can",
            );
            return;
        }
        let module = if short_has(x, "m") {
            let cluster = x.get(1..).unwrap_or_default();
            let after = cluster.split_once('m').map(|(_, r)| r).unwrap_or_default();
            if after.is_empty() {
                k += 1;
                args.get(k).map(String::as_str)
            } else {
                Some(after)
            }
        } else {
            None
        };
        if short_has(x, "m") {
            let rest = args.get(k + 1..).unwrap_or_default();
            match module {
                Some(
                    "http.server" | "SimpleHTTPServer" | "smtpd" | "aiosmtpd" | "pydoc"
                    | "telnetlib" | "smtplib" | "ftplib" | "xmlrpc.server" | "webbrowser"
                    | "http.client" | "CGIHTTPServer",
                ) => {
                    a.flag(
                        Danger::Network,
                        format!(
                            "{} can serve on or reach the network",
                            q(&format!("python -m {}", module.unwrap_or_default()))
                        ),
                    );
                    http_server(module.unwrap_or_default(), rest, a);
                }
                Some(m @ ("pip" | "pipx" | "uv" | "ensurepip" | "pipenv" | "easy_install")) => {
                    terminal(m, rest, a, depth)
                }
                Some(m @ ("jupyter" | "notebook" | "jupyterlab")) => {
                    let name = if m == "jupyter" {
                        "jupyter"
                    } else {
                        "jupyter-notebook"
                    };
                    terminal(name, rest, a, depth);
                }
                Some(m) if PY_MODULES.contains(&m) => {}
                m => {
                    let m = m.unwrap_or("");
                    a.flag(
                        Danger::Opaque,
                        format!(
                            "{} runs a module whose behaviour the gate does not know",
                            q(&format!("python -m {m}"))
                        ),
                    );
                }
            }
            return;
        }
        if !x.starts_with('-') {
            return; // the script
        }
        k += if x == "-W" || x == "-X" { 2 } else { 1 };
    }
    let why = match a.stdin {
        Stdin::Inherit => "`python` without a script reads code from stdin".to_string(),
        _ => format!("`python` {STDIN_CODE} ({})", stdin_source(&a.stdin)),
    };
    a.flag(Danger::Opaque, why);
}

/// The operands that could be a package manager's verb: the first one, skipping values of known
/// options and `+toolchain`, and the next one too when an option of unknown arity came first.
pub(super) fn pm_verbs(args: &[String]) -> Vec<&str> {
    let (mut out, mut unsure, mut k) = (Vec::new(), false, 0);
    while let Some(x) = args.get(k) {
        k += 1;
        if x == "--" || x.starts_with('+') {
            continue;
        }
        if x.starts_with('-') && x.len() > 1 {
            if takes_value(x, PM_VALS) {
                k += 1;
            } else if x.starts_with("--") && !x.contains('=') {
                unsure = true;
            }
            continue;
        }
        out.push(x.as_str());
        if !unsure || out.len() >= 2 {
            break;
        }
    }
    out
}

/// Git's own commands; anything else may be an alias from a config file, and `!` aliases run
/// shell commands.
#[rustfmt::skip]
pub(super) const GIT_SUBS: &[&str] = &["add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "check-attr",
    "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone",
    "commit", "commit-graph", "commit-tree", "config", "count-objects", "describe", "diff", "diff-files", "diff-index", "diff-tree",
    "fetch", "for-each-ref", "format-patch", "fsck", "gc", "grep", "hash-object", "help", "init", "log", "ls-files", "ls-remote", "ls-tree",
    "maintenance", "merge", "merge-base", "merge-file", "merge-tree", "mv", "name-rev", "notes", "pull", "push", "range-diff", "read-tree",
    "rebase", "reflog", "remote", "repack", "replace", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch",
    "show-ref", "sparse-checkout", "stage", "stash", "status", "submodule", "switch", "symbolic-ref", "tag", "update-index", "update-ref",
    "var", "verify-commit", "verify-tag", "version", "whatchanged", "worktree", "write-tree", "difftool", "mergetool", "filter-branch",
    "send-email", "request-pull", "daemon", "instaweb", "lfs", "svn", "p4", "credential", "hook", "fetch-pack", "send-pack", "upload-pack",
    "receive-pack", "upload-archive", "bugreport", "prune", "unpack-objects", "pack-objects", "index-pack", "verify-pack", "mktree", "mktag",
    "interpret-trailers", "column", "get-tar-commit-id", "stripspace", "patch-id", "imap-send", "fast-export", "fast-import", "rerere",
    "backfill", "replay", "reset", "gui", "init-db", "mailinfo", "mailsplit", "pack-refs", "prune-packed", "multi-pack-index", "diagnose", "cvsimport", "archimport", "quiltimport", "http-fetch", "http-push", "remote-ext", "remote-fd", "show-index", "filter-repo"];

pub(super) fn git_unknown_sub(args: &[String]) -> bool {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if !x.starts_with('-') {
            return !GIT_SUBS.contains(&x.as_str());
        }
        k += if matches!(
            x.as_str(),
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--super-prefix"
                | "--attr-source"
                | "--config-env"
        ) {
            2
        } else {
            1
        };
    }
    false
}

/// Does `sqlite3` get SQL or dot-commands that run programs, write files or load code — or SQL
/// it reads from a pipe or file the gate cannot see?
pub(super) fn sqlite_runs(args: &[String], stdin: &Stdin) -> bool {
    const BAD: &[&str] = &[
        ".sh",
        ".system",
        ".output",
        ".once",
        ".log",
        ".load",
        ".import",
        ".save",
        ".backup",
        ".clone",
        ".excel",
        ".open",
        ".read",
        ".restore",
        ".cd",
        ".archive",
        ".ar ",
        ".recover",
        ".dbconfig",
        ".iotrace",
        ".trace",
        ".testcase",
        "writefile",
        "edit(",
        "load_extension",
        "attach",
        "fts3_tokenizer",
        "vacuum into",
        "readfile",
    ];
    let bad = |t: &str| {
        let l = t.to_lowercase();
        BAD.iter().any(|b| l.contains(b))
    };
    let mut k = 0;
    let mut operands = 0;
    while let Some(x) = args.get(k) {
        k += 1;
        if x.starts_with('-') {
            let name = x.trim_start_matches('-');
            if matches!(
                name,
                "init" | "A" | "append" | "deserialize" | "zip" | "unsafe-testing" | "safe_NONE"
            ) || name.starts_with('A')
            {
                return true;
            }
            if name == "cmd" {
                if args.get(k).is_none_or(|c| bad(c)) {
                    return true;
                }
                k += 1;
            } else if matches!(
                name,
                "separator"
                    | "newline"
                    | "nullvalue"
                    | "escape"
                    | "maxsize"
                    | "vfs"
                    | "lookaside"
                    | "pagecache"
                    | "heap"
                    | "mmap"
                    | "pcachetrace_NONE"
            ) {
                k += 1;
            }
            continue;
        }
        operands += 1;
        if operands > 1 && bad(x) {
            return true;
        }
    }
    if operands > 1 {
        return false;
    }
    match stdin {
        Stdin::Text(Some(t)) => bad(t),
        _ => true,
    }
}

#[rustfmt::skip]
pub(super) fn git(args: &[String], a: &mut Acc) {
    use Danger::*;
    let mut k = 0;
    while let Some(x) = args.get(k).filter(|x| x.starts_with('-')) {
        match x.as_str() { // global options; `-C`/`--git-dir`/`--work-tree` values are checked in `generic`
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" | "--attr-source" => k += 1,
            "-p" | "-P" | "--paginate" | "--no-pager" | "--bare" | "--no-replace-objects" | "--literal-pathspecs" | "--glob-pathspecs"
            | "--noglob-pathspecs" | "--icase-pathspecs" | "--no-optional-locks" | "--no-lazy-fetch" | "--no-advice" | "--version"
            | "--help" | "-v" | "-h" => {}
            x if ["--git-dir=", "--work-tree=", "--namespace=", "-C"].iter().any(|p| x.starts_with(p)) => {}
            x => a.flag(Opaque, format!("{} can change git's configuration, pager or programs", q(&format!("git {x}")))),
        }
        k += 1;
    }
    let Some(sub) = args.get(k) else { return };
    let rest = args.get(k + 1..).unwrap_or_default();
    let gs = q(&format!("git {sub}"));
    let any = |p: &dyn Fn(&str) -> bool| rest.iter().any(|x| p(x));
    let exec = ["-c", "--config", "-u", "--upload-pack", "--receive-pack", "--exec", "--template", "foreach"];
    if any(&|x| opt_in(x, &["--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--textconv", "--open-files-in-pager"]) || (sub == "grep" && (short_has(x, "O")))) {
        a.flag(Opaque, format!("{gs} can run another program from its options"));
    }
    let (d, hit, why) = match sub.as_str() {
        "clone" | "fetch" | "pull" | "push" | "ls-remote" | "send-email" | "svn" | "request-pull" | "daemon" | "instaweb" | "lfs" | "p4" | "submodule"
        | "fetch-pack" | "send-pack" | "upload-pack" | "receive-pack" | "upload-archive" | "http-fetch" | "http-push" | "remote-ext" | "remote-fd" | "imap-send" | "cvsimport" | "archimport" | "quiltimport" => {
            let runs = any(&|x| x.starts_with("ext::") || opt_in(x, &exec));
            if runs { a.flag(Opaque, format!("{gs} can run another program")); }
            (Network, true, "reaches the network")
        }
        "remote" => (Network, has(rest, &["update", "prune", "show", "set-head", "-f", "--fetch"]), "reaches the network"),
        "archive" => (Network, any(&|x| x.starts_with("--remote") || x.starts_with("--exec")), "reaches the network"),
        "clean" => (RecursiveDelete, any(&|x| long_is(x, "--force") || short_has(x, "f")) && !any(&|x| x == "--dry-run" || short_has(x, "n")), "deletes untracked files recursively"),
        "rm" => (RecursiveDelete, any(&|x| short_has(x, "r")), "deletes recursively"),
        "bisect" => (Opaque, rest.first().is_some_and(|x| x == "run"), "runs a command"),
        "rebase" => (Opaque, any(&|x| short_has(x, "x") || long_is(x, "--exec")), "runs a command"),
        "filter-branch" | "filter-repo" | "difftool" | "mergetool" | "credential" | "hook" => (Opaque, true, "runs other programs"),
        _ => (Opaque, false, ""),
    };
    if hit { a.flag(d, format!("{gs} {why}")); }
    git_sub(sub, rest, args.get(..k).unwrap_or_default(), a);
    if matches!(sub.as_str(), "clone" | "init" | "worktree") {
        for x in rest.iter().filter(|x| !x.starts_with('-')) { a.outside_path(&gs, "writes to", x); }
    }
}

pub(super) fn setuid(m: &str) -> bool {
    if !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()) {
        let d: Vec<u32> = m.chars().filter_map(|c| c.to_digit(8)).collect();
        return d.len() >= 4 && d.get(d.len() - 4).is_some_and(|x| x & 6 != 0);
    }
    m.contains(['+', '='])
        && m.chars().all(|c| "ugoarwxXst+-=,".contains(c))
        && m.split(',')
            .any(|cl| cl.split(['+', '=']).skip(1).any(|p| p.contains('s')))
}

/// Does a sed script run a command (`e`, the `e` flag of `s`) or write a file (`w`, `W`, the `w`
/// flag) — or come from somewhere the gate cannot read (`-f FILE`)? Scripts are parsed command by
/// command; anything not understood counts as running.
pub(super) fn sed_runs(args: &[String]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(x) = args.get(k) {
        k += 1;
        if x == "--" {
            break;
        }
        if x.starts_with("--") {
            if long_is(x, "--expression") {
                match x.split_once('=') {
                    Some((_, v)) => scripts.push(v),
                    None => {
                        scripts.extend(args.get(k).map(String::as_str));
                        k += 1;
                    }
                }
            } else if long_is(x, "--file") {
                return true;
            } else if long_is(x, "--line-length") && !x.contains('=') {
                k += 1;
            }
            continue;
        }
        if let Some(cluster) = x.strip_prefix('-').filter(|c| !c.is_empty()) {
            // In a cluster the first of `e`, `f`, `l` takes the rest (or the next argument).
            if let Some(p) = cluster.find(['e', 'f', 'l']) {
                let rest = cluster.get(p + 1..).unwrap_or_default();
                let value = if rest.is_empty() {
                    k += 1;
                    args.get(k - 1).map(String::as_str)
                } else {
                    Some(rest)
                };
                match cluster.as_bytes().get(p) {
                    Some(b'e') => scripts.extend(value),
                    Some(b'f') => return true,
                    _ => {}
                }
            }
        }
    }
    if scripts.is_empty() {
        scripts.extend(first_pos(args, &["-l", "--line-length"]));
    }
    scripts.iter().any(|s| sed_script_runs(s))
}

#[rustfmt::skip]
pub(super) fn sed_script_runs(script: &str) -> bool {
    let cs: Vec<char> = script.chars().collect();
    let mut i = 0;
    // Skip a delimited part (`/re/`, or `\cREc`), honouring backslash escapes; returns the index after it.
    let delimited = |i: usize, d: char| -> Option<usize> {
        let mut j = i;
        while let Some(&c) = cs.get(j) {
            if c == '\\' { j += 2; continue; }
            if c == d { return Some(j + 1); }
            if c == '\n' { return None; }
            j += 1;
        }
        None
    };
    while i < cs.len() {
        // address: numbers, $, /re/, \cREc, with , ~ + ! and spaces and I/M flags after a regex
        loop {
            match cs.get(i) {
                Some(c) if c.is_ascii_digit() || " \t;,$!~+{}\n".contains(*c) => i += 1,
                Some('/') => match delimited(i + 1, '/') { Some(j) => { i = j; while matches!(cs.get(i), Some('I' | 'M')) { i += 1; } } None => return true },
                Some('\\') => match cs.get(i + 1) { Some(&d) => match delimited(i + 2, d) { Some(j) => { i = j; while matches!(cs.get(i), Some('I' | 'M')) { i += 1; } } None => return true }, None => return true },
                _ => break,
            }
        }
        let Some(&c) = cs.get(i) else { break };
        i += 1;
        let to_end = |i: usize| cs.iter().skip(i).position(|&c| c == '\n' || c == ';' || c == '}').map_or(cs.len(), |p| i + p);
        match c {
            'e' | 'w' | 'W' => return true,
            's' | 'y' => {
                let Some(&d) = cs.get(i) else { return true };
                if d == '\\' || d == '\n' { return true; }
                let Some(j) = delimited(i + 1, d).and_then(|j| delimited(j, d)) else { return true };
                i = j;
                if c == 's' {
                    let end = to_end(i);
                    let flags: String = cs.get(i..end).unwrap_or_default().iter().collect();
                    if flags.contains(['e', 'w', 'W']) || !flags.chars().all(|f| f.is_ascii_digit() || "gpiImMx ".contains(f)) { return true; }
                    i = end;
                }
            }
            'a' | 'i' | 'c' => i = cs.iter().skip(i).position(|&c| c == '\n').map_or(cs.len(), |p| i + p),
            '#' => i = cs.iter().skip(i).position(|&c| c == '\n').map_or(cs.len(), |p| i + p),
            ':' | 'b' | 't' | 'T' | 'r' | 'R' | 'q' | 'Q' | 'l' | 'L' => i = to_end(i),
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | '=' | 'z' | 'F' => {}
            _ => return true,
        }
    }
    false
}
