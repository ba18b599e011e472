//! Writes into git's own files, and history git cannot give back. What lives in `.git` runs
//! later: hooks run on the next commit or checkout, and the config names programs (the hooks
//! path, the pager, the editor, aliases, filters). A command that writes there asks, naming the
//! paths, and records them ([`GitWrite`]) so the caller can make exactly those writable for the
//! one approved run: a program's destinations (`cp -t .git/hooks`, `dd of=`, `sort -o`, a
//! redirect), `git config` without `--global`, and the hook installers (`pre-commit install`,
//! `husky`, `lefthook`). `git reflog expire --expire=now`, `git gc --prune=now` and `git prune`
//! delete what lets lost commits be recovered: they ask as `RecursiveDelete`.

use super::*;

/// Why a write into `.git` asks.
const GIT_WHY: &str = "git runs its hooks and its config can name programs to run";

/// Does this path name something inside (or the whole of) a `.git` directory or file?
pub(super) fn names_git(t: &str) -> bool {
    t.split(['/', '\\']).any(|c| c.eq_ignore_ascii_case(".git"))
}

/// A path a command writes: when it is in `.git`, the command asks and the path is recorded.
pub(super) fn git_path_write(a: &mut Acc, who: &str, t: &str) {
    if !names_git(t) {
        return;
    }
    match a.at(t) {
        Some(full) => {
            a.flag(
                Danger::Opaque,
                format!("{who} writes {} in git's own files: {GIT_WHY}", q(t)),
            );
            if !a.git_writes.contains(&GitWrite::Path(full.clone())) {
                a.git_writes.push(GitWrite::Path(full));
            }
        }
        None => a.flag(
            Danger::Opaque,
            format!(
                "{who} writes {} in git's own files, in a directory known only at run time: {GIT_WHY}",
                q(t)
            ),
        ),
    }
}

/// A file of the git directory of the repository at `repo` (relative to the command's working
/// directory) that a command writes.
fn git_dir_write(a: &mut Acc, repo: &str, file: &str, why: String) {
    a.flag(Danger::Opaque, why);
    if let Some(repo) = a.at(repo) {
        let w = GitWrite::InGitDir {
            repo,
            file: file.to_string(),
        };
        if !a.git_writes.contains(&w) {
            a.git_writes.push(w);
        }
    }
}

/// The operands and the option values of `args`, reading the options in `vals` as taking a
/// value (attached, `=value`, or the next word).
fn split_args<'s>(args: &'s [String], vals: &[&str]) -> (Vec<&'s str>, Vec<(String, &'s str)>) {
    let (mut operands, mut values) = (Vec::new(), Vec::new());
    let mut k = 0;
    while let Some(x) = args.get(k) {
        k += 1;
        if x == "--" {
            operands.extend(args.iter().skip(k).map(String::as_str));
            break;
        }
        if x.starts_with("--") {
            if let Some((name, v)) = x.split_once('=') {
                values.push((name.to_string(), v));
            } else if takes_value(x, vals) {
                values.extend(args.get(k).map(|v| (x.clone(), v.as_str())));
                k += 1;
            }
        } else if x.len() > 1 && x.starts_with('-') {
            for (i, c) in x.char_indices().skip(1) {
                let short = x.get(i..i + c.len_utf8()).unwrap_or_default();
                if vals.iter().any(|v| v.strip_prefix('-') == Some(short)) {
                    let name = format!("-{short}");
                    let rest = x.get(i + c.len_utf8()..).unwrap_or_default();
                    if rest.is_empty() {
                        values.extend(args.get(k).map(|v| (name, v.as_str())));
                        k += 1;
                    } else {
                        values.push((name, rest));
                    }
                    break;
                }
            }
        } else {
            operands.push(x.as_str());
        }
    }
    (operands, values)
}

/// Options whose value is a file a program writes its output to.
const OUTPUT_OPTS: &[&str] = &[
    "-o",
    "--output",
    "--output-document",
    "--output-file",
    "--outfile",
    "--out-file",
    "--out",
    "--log-file",
];

/// The paths a program writes, as far as its arguments say. Programs whose destinations are
/// known (copies, links, `tee`, `dd`) name those; any other writer counts every argument.
fn destinations<'s>(n: &str, args: &'s [String], sed_i: bool) -> Vec<&'s str> {
    let is_target = |o: &str| o == "-t" || long_is(o, "--target-directory");
    match n {
        "cp" | "ln" | "link" | "install" | "mv" => {
            let vals: &[&str] = match n {
                "install" => &[
                    "-m",
                    "--mode",
                    "-o",
                    "--owner",
                    "-g",
                    "--group",
                    "-S",
                    "--suffix",
                    "-t",
                    "--target-directory",
                    "--strip-program",
                ],
                _ => &["-S", "--suffix", "-t", "--target-directory"],
            };
            let (ops, values) = split_args(args, vals);
            let mut out: Vec<&str> = values
                .iter()
                .filter(|(o, _)| is_target(o))
                .map(|(_, v)| *v)
                .collect();
            let dirs = n == "install"
                && args.iter().any(|x| {
                    x == "-d"
                        || long_is(x, "--directory")
                        || (x.starts_with('-') && !x.starts_with("--") && x.contains('d'))
                });
            if n == "mv" || dirs {
                out.extend(ops); // `mv` changes its sources too; `install -d` creates every operand
            } else if out.is_empty() && ops.len() >= 2 {
                out.extend(ops.last());
            }
            out
        }
        "rsync" => {
            #[rustfmt::skip]
            let vals = ["-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--files-from", "--exclude-from", "--include-from",
                "--rsync-path", "--partial-dir", "-T", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest", "--backup-dir",
                "--suffix", "--chmod", "--chown", "--log-file", "--password-file", "--port", "--out-format", "--timeout", "--bwlimit",
                "--max-size", "--min-size", "-B", "--block-size", "-M", "--remote-option", "--write-batch", "--only-write-batch", "--read-batch"];
            let writes = [
                "--partial-dir",
                "-T",
                "--temp-dir",
                "--backup-dir",
                "--log-file",
                "--write-batch",
                "--only-write-batch",
            ];
            let (ops, values) = split_args(args, &vals);
            let mut out: Vec<&str> = values
                .iter()
                .filter(|(o, _)| writes.iter().any(|w| long_is(o, w) || o == w))
                .map(|(_, v)| *v)
                .collect();
            out.extend(ops.last());
            out
        }
        "tee" => split_args(args, &[]).0,
        "dd" => args.iter().filter_map(|x| x.strip_prefix("of=")).collect(),
        _ if WRITERS.contains(&n) || sed_i => {
            let mut out: Vec<&str> = Vec::new();
            for x in args {
                out.push(x);
                out.extend(x.split_once('=').map(|(_, v)| v));
                if x.starts_with('-') && !x.starts_with("--") {
                    out.extend(x.char_indices().nth(2).and_then(|(p, _)| x.get(p..)));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The `.git` writes of a program's destinations and output options.
pub(super) fn git_file_writes(n: &str, args: &[String], a: &mut Acc, sed_i: bool) {
    let who = q(n);
    let mut paths = destinations(n, args, sed_i);
    if !TEXT_ONLY.contains(&n) {
        let mut vals = OUTPUT_OPTS.to_vec();
        vals.push("-O"); // `wget -O FILE`
        let (_, values) = split_args(args, &vals);
        paths.extend(
            values
                .iter()
                .filter(|(o, _)| vals.iter().any(|w| o == w || long_is(o, w)))
                .map(|(_, v)| *v),
        );
    }
    for p in paths {
        git_path_write(a, &who, p);
    }
}

/// Where git works: the `-C` directories of its global options, joined, and `--git-dir`.
fn git_location(global: &[String]) -> (String, Option<String>) {
    let mut dir = String::from(".");
    let mut git_dir = None;
    let mut k = 0;
    while let Some(x) = global.get(k) {
        k += 1;
        let value = |k: &mut usize| {
            *k += 1;
            global.get(*k - 1).cloned()
        };
        if x == "-C" {
            if let Some(d) = value(&mut k) {
                dir = if d.starts_with(['/', '~']) {
                    d
                } else {
                    format!("{dir}/{d}")
                };
            }
        } else if let Some(d) = x.strip_prefix("--git-dir=") {
            git_dir = Some(d.to_string());
        } else if x == "--git-dir" {
            git_dir = value(&mut k);
        } else if matches!(
            x.as_str(),
            "--work-tree"
                | "--namespace"
                | "--super-prefix"
                | "--attr-source"
                | "-c"
                | "--config-env"
        ) {
            k += 1;
        }
    }
    (normalize(&dir), git_dir)
}

/// Which configuration file a `git config` command writes; `None` when it only reads.
fn config_write(rest: &[String]) -> Option<String> {
    let vals = [
        "-f",
        "--file",
        "--blob",
        "--type",
        "--default",
        "--comment",
        "--value",
    ];
    let (ops, values) = split_args(rest, &vals);
    let has = |o: &[&str]| {
        rest.iter()
            .any(|x| o.iter().any(|w| x == w || long_is(x, w)))
    };
    let writes = has(&[
        "--add",
        "--replace-all",
        "--unset",
        "--unset-all",
        "--rename-section",
        "--remove-section",
        "--edit",
    ]) || has(&["-e"]);
    let reads = has(&[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "--list",
    ]) || has(&["-l"]);
    let verb = ops.first().copied().filter(|v| !v.contains('.'));
    let write = writes
        || (!reads
            && match verb {
                Some(v) => !matches!(v, "get" | "list"),
                None => ops.len() >= 2,
            });
    if !write || values.iter().any(|(o, _)| long_is(o, "--blob")) {
        return None;
    }
    let file = values
        .iter()
        .find(|(o, _)| o == "-f" || long_is(o, "--file"))
        .map(|(_, v)| v.to_string());
    Some(if has(&["--global"]) {
        "~/.gitconfig".to_string()
    } else if has(&["--system"]) {
        "/etc/gitconfig".to_string()
    } else if let Some(f) = file {
        f
    } else if has(&["--worktree"]) {
        ".git/config.worktree".to_string()
    } else {
        ".git/config".to_string()
    })
}

/// Git sub-commands that write git's own files or lose history. `global` are git's options
/// before the sub-command.
#[rustfmt::skip]
pub(super) fn git_sub(sub: &str, rest: &[String], global: &[String], a: &mut Acc) {
    let (repo, git_dir) = git_location(global);
    let gs = q(&format!("git {sub}"));
    let first = rest.iter().find(|x| !x.starts_with('-')).map_or("", String::as_str);
    let in_git_dir = |a: &mut Acc, file: &str, why: String| match &git_dir {
        Some(d) => git_path_write(a, &gs, &format!("{d}/{file}")),
        None => git_dir_write(a, &repo, file, why),
    };
    match sub {
        "config" => match config_write(rest) {
            None => {}
            Some(f) if f.starts_with(".git/") => {
                let file = f.trim_start_matches(".git/").to_string();
                in_git_dir(a, &file, format!("{gs} writes {}: {GIT_WHY} (hooks path, pager, editor, aliases)", q(&f)));
            }
            Some(f) if names_git(&f) => git_path_write(a, &gs, &f),
            Some(f) => a.flag(Danger::Opaque, format!("{gs} writes {}, which can name programs git runs (hooks path, pager, editor, aliases)", q(&f))),
        },
        "maintenance" if matches!(first, "start" | "register") => a.flag(Danger::BootAutostart, format!(
            "{} registers this repository for background maintenance that cron, systemd timers or launchd run later",
            q(&format!("git maintenance {first}")))),
        "maintenance" if first == "run" && rest.iter().any(|x| x.contains("prefetch") || x.starts_with("--schedule")) => {
            a.flag(Danger::Network, "`git maintenance run` prefetches from the remotes");
        }
        "reflog" if first == "delete" => a.flag(Danger::RecursiveDelete, "`git reflog delete` deletes reflog entries, which let lost commits be recovered"),
        "reflog" if first == "expire" => {
            let now = rest.iter().filter_map(|x| x.strip_prefix("--expire=").or_else(|| x.strip_prefix("--expire-unreachable=")))
                .any(|v| !matches!(v, "never" | "false"));
            if now {
                a.flag(Danger::RecursiveDelete, "`git reflog expire --expire=…` deletes reflog entries, the record that lets lost commits be recovered");
            }
        }
        "gc" if rest.iter().any(|x| x.strip_prefix("--prune=").is_some_and(|v| v != "never")) => {
            a.flag(Danger::RecursiveDelete, "`git gc --prune=…` deletes unreachable commits and objects, beyond recovery");
        }
        "prune" if !rest.iter().any(|x| x == "--dry-run" || short_has(x, "n")) => {
            a.flag(Danger::RecursiveDelete, "`git prune` deletes unreachable objects, beyond recovery");
        }
        "init" if rest.iter().any(|x| long_is(x, "--template")) => {
            let vals = ["-b", "--initial-branch", "--separate-git-dir", "--object-format", "--ref-format", "--template"];
            let dir = split_args(rest, &vals).0.last().map_or(repo.clone(), |d| format!("{repo}/{d}"));
            git_dir_write(a, &normalize(&dir), "hooks", format!("{gs} copies hooks from a template into `.git/hooks`, which git runs later"));
        }
        "lfs" if first == "install" => in_git_dir(a, "hooks", "`git lfs install` writes git hooks in `.git/hooks`".into()),
        _ => {}
    }
    // The repository's state: recorded (the gate asks once a session, see `git_state_write`,
    // and the jail opens exactly that git directory for the approved command), not a danger.
    if writes_state(sub, first, rest) {
        let w = match &git_dir {
            Some(d) => a.at(&format!("{d}/")).map(GitWrite::Path),
            None => a.at(&repo).map(|repo| GitWrite::InGitDir { repo, file: String::new() }),
        };
        if let Some(w) = w.filter(|w| !a.git_writes.contains(w)) {
            a.git_writes.push(w);
        }
    }
}

/// Does `git SUB REST…` write the repository's state — objects, refs, the index, the reflog,
/// stashes, worktrees — rather than only read it? (`status` refreshes the index when it can and
/// works without; `config` and the hook installers are judged above.)
#[rustfmt::skip]
fn writes_state(sub: &str, first: &str, rest: &[String]) -> bool {
    let flag = |names: &[&str]| rest.iter().any(|x| names.iter().any(|n| x == n || long_is(x, n)));
    let operand = !first.is_empty();
    match sub {
        "add" | "stage" | "am" | "cherry-pick" | "commit" | "fetch" | "pull" | "push" | "merge" | "mv" | "rebase" | "reset" | "revert"
        | "rm" | "switch" | "checkout" | "update-index" | "update-ref" | "gc" | "repack" | "pack-refs" | "read-tree"
        | "commit-tree" | "write-tree" | "mktree" | "mktag" | "fast-import" | "replace" | "bisect" | "sparse-checkout"
        | "submodule" | "filter-branch" | "checkout-index" | "unpack-objects" | "index-pack" | "prune-packed"
        | "multi-pack-index" | "commit-graph" | "rerere" | "backfill" | "replay" | "merge-file" => true,
        "hash-object" => flag(&["-w"]),
        "restore" => flag(&["--staged", "-S"]),
        "apply" => flag(&["--index", "--cached", "-3", "--3way"]),
        "symbolic-ref" => rest.iter().filter(|x| !x.starts_with('-')).count() >= 2 || flag(&["-d", "--delete"]),
        "branch" => flag(&["-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-u", "--set-upstream-to",
            "--unset-upstream", "--edit-description", "-f", "--force"]) || (operand && !flag(&["-l", "--list", "--contains",
            "--no-contains", "--merged", "--no-merged", "--points-at"])),
        "tag" => flag(&["-d", "--delete", "-a", "-s", "-u", "-m", "-F", "-f", "--force"])
            || (operand && !flag(&["-l", "--list", "-v", "--verify", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"])),
        "stash" => !matches!(first, "list" | "show"),
        "worktree" => !matches!(first, "list"),
        "notes" => operand && !matches!(first, "list" | "show" | "get-ref"),
        "remote" => matches!(first, "add" | "rm" | "remove" | "rename" | "set-url" | "set-head" | "set-branches" | "prune" | "update"),
        "reflog" => matches!(first, "expire" | "delete"),
        "maintenance" => first == "run",
        _ => false,
    }
}

/// Programs that install git hooks or point git at hooks of the project.
#[rustfmt::skip]
pub(super) fn hook_installers(n: &str, args: &[String], a: &mut Acc) {
    let sub = first_pos(args, &["-c", "--config", "-t", "--hook-type"]).unwrap_or("");
    let nv = q(&format!("{n} {sub}"));
    match n {
        "pre-commit" if matches!(sub, "install" | "uninstall") => {
            let (_, values) = split_args(args, &["-c", "--config", "-t", "--hook-type"]);
            let mut types: Vec<&str> = values.iter().filter(|(o, _)| o == "-t" || long_is(o, "--hook-type")).map(|(_, v)| *v).collect();
            if types.is_empty() { types.push("pre-commit"); }
            for t in types {
                git_dir_write(a, ".", &format!("hooks/{t}"), format!("{nv} writes `.git/hooks/{t}`, a hook git runs later"));
            }
            if args.iter().any(|x| x == "--install-hooks") {
                a.flag(Danger::PackageInstall, format!("{nv} downloads the hooks' repositories and installs their environments"));
            }
        }
        "pre-commit" if sub == "install-hooks" => a.flag(Danger::PackageInstall, format!("{nv} downloads the hooks' repositories and installs their environments")),
        "husky" if matches!(sub, "" | "install" | "init") => git_dir_write(a, ".", "config",
            format!("{} sets `core.hooksPath` in `.git/config`: git then runs the project's `.husky` scripts as hooks", q(n))),
        "husky" if matches!(sub, "add" | "set") => a.flag(Danger::Opaque, format!("{nv} writes a git hook script")),
        "lefthook" if matches!(sub, "install" | "add") => git_dir_write(a, ".", "hooks", format!("{nv} writes git hooks in `.git/hooks`")),
        "simple-git-hooks" => git_dir_write(a, ".", "hooks", format!("{} writes git hooks in `.git/hooks`", q(n))),
        _ => {}
    }
}
