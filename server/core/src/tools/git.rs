//! git_status and git_diff (effect read). Repository config cannot run code through them: git
//! runs in the jail with the network denied, the repository read-only, lazy fetches off
//! (`GIT_NO_LAZY_FETCH`, `protocol.allow=never`), and `.git/config` replaced by its harmless keys
//! (`sandbox::filtered_git_config`: no `core.sshCommand`, fsmonitor, filters, drivers or
//! includes). Where there is no jail, external diff drivers, textconv and every configured
//! filter driver are blanked on the command line instead, fsmonitor and hooks are off,
//! submodules (with their own config) are not entered, and system config is not read. Writes to
//! `.git/` itself always ask (see `policy::always_ask_path`).
//!
//! Git only ever sees the repository the tool resolved: `--git-dir` and `--work-tree` are passed
//! explicitly (the command line wins over `core.worktree`, a `.git` file or an `include` that
//! would move them), the environment is cleared (`GIT_DIR`, `GIT_WORK_TREE`), and a git
//! directory or work tree outside the roots is a path like any other — the gate asks for its
//! directory. Output goes through the same key-material check and secret redaction as
//! `read_file`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::{Gated, MAX_MODEL_TEXT, PrepareError, ToolCtx, ToolOutput, bound_text};
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;

/// `-c` overrides that blank every filter driver the repository configures: a `clean`/`smudge`/
/// `process` filter is a command git would run during status or diff. Needed only where no jail
/// replaces the config (it reads the config itself, so it runs confined like any git).
async fn filter_overrides(
    sandbox: Option<&crate::sandbox::Sandbox>,
    job: &crate::sandbox::Job,
    repo: &Repo,
) -> Vec<String> {
    let out = match git_command(
        sandbox,
        job,
        repo,
        &[
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|smudge|process)$",
        ],
    ) {
        Ok(mut cmd) => cmd.output().await,
        Err(_) => return Vec::new(),
    };
    let mut v = Vec::new();
    if let Ok(o) = out {
        for key in String::from_utf8_lossy(&o.stdout)
            .split('\0')
            .filter(|k| !k.is_empty())
        {
            v.push("-c".to_string());
            v.push(format!("{key}="));
        }
    }
    v
}

/// The repository a git tool works on.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The work tree: the directory holding `.git`, the workspace or one of its ancestors.
    pub top: PathBuf,
    /// The git directory (`top/.git`, or where a `.git` file's `gitdir:` points).
    pub git_dir: PathBuf,
    /// Where the repository's shared files live: the git directory itself, or — for a
    /// worktree — what its `commondir` names, when that lies beside it in the same repository
    /// (a `commondir` pointing anywhere else is not followed). Pinned with `GIT_COMMON_DIR`.
    pub common_dir: PathBuf,
}

/// The common directory of `git_dir`: what `git_dir/commondir` names when `git_dir` is a
/// worktree's (`…/worktrees/NAME`) and the name leads to the folder holding `worktrees`;
/// otherwise `git_dir` itself. A `commondir` planted in a plain repository redirects nothing.
fn common_dir_of(git_dir: &Path) -> PathBuf {
    let own = git_dir.to_path_buf();
    let Ok(text) = std::fs::read_to_string(git_dir.join("commondir")) else {
        return own;
    };
    let named = crate::policy::paths::normalize(&git_dir.join(text.trim()));
    let worktree_of = git_dir
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "worktrees"))
        .and_then(Path::parent);
    match worktree_of {
        Some(main) if main == named => named,
        _ => own,
    }
}

/// Find the repository of the workspace: the nearest `.git` at or above it. A `.git` file's
/// `gitdir:` is followed (worktrees, submodules). Both paths are returned as uses for the gate.
pub fn find_repo(paths: &PathPolicy) -> Result<(Repo, Vec<crate::policy::PathUse>), PrepareError> {
    let ws = &paths.workspace;
    let top = ws
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .ok_or(PrepareError::NoRepository)?
        .to_path_buf();
    let dot = top.join(".git");
    let meta = std::fs::symlink_metadata(&dot).map_err(|e| PrepareError::Input(e.to_string()))?;
    let git_dir = if meta.is_dir() {
        dot
    } else if meta.is_file() {
        let text = std::fs::read_to_string(&dot).map_err(|e| PrepareError::Input(e.to_string()))?;
        let target = text
            .lines()
            .find_map(|l| l.strip_prefix("gitdir:"))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| PrepareError::Input(format!("{} has no gitdir: line", dot.display())))?;
        let p = std::path::Path::new(target);
        crate::policy::paths::normalize(&if p.is_absolute() {
            p.to_path_buf()
        } else {
            top.join(p)
        })
    } else {
        return Err(PrepareError::Input(format!(
            "{} is a symbolic link; git tools do not follow it",
            dot.display()
        )));
    };
    let common_dir = common_dir_of(&git_dir);
    let mut uses = Vec::new();
    let mut seen: Vec<&PathBuf> = Vec::new();
    for dir in [&top, &git_dir, &common_dir] {
        if seen.contains(&dir) {
            continue;
        }
        seen.push(dir);
        let r = paths.resolve(&dir.to_string_lossy())?;
        uses.push(super::dir_use(&r));
    }
    Ok((
        Repo {
            top,
            git_dir,
            common_dir,
        },
        uses,
    ))
}

/// Key material stops the output; other secret-looking values are redacted.
fn filter_output(text: &str) -> Result<String, ToolOutput> {
    if let Some(why) = crate::policy::paths::content_denied(text.as_bytes()) {
        return Err(ToolOutput::err("path_denied", why));
    }
    let (out, found) = crate::policy::secrets::redact(text);
    Ok(if found.is_empty() {
        out
    } else {
        format!(
            "redacted: {} secret-looking value(s) ({})\n{out}",
            found.len(),
            found.join(", ")
        )
    })
}

/// How the server's own git runs on `repo`: the work tree and git directory read-only, no
/// network, and the repository's config (and a worktree's `config.worktree`) replaced by its
/// harmless keys — written once per content under the state directory, which only this bind
/// exposes (read-only, over the file it replaces).
pub(crate) fn git_job(repo: &Repo, state_dir: &Path) -> crate::sandbox::Job {
    let mut roots = vec![repo.top.clone()];
    for d in [&repo.git_dir, &repo.common_dir] {
        if !roots.iter().any(|r| d.starts_with(r)) {
            roots.push(d.clone());
        }
    }
    let mut bind_over = Vec::new();
    // The git directory's config and a worktree's `config.worktree`, and the common
    // directory's config (where a worktree's shared settings live): each filtered.
    let configs = [
        repo.git_dir.join("config"),
        repo.git_dir.join("config.worktree"),
        repo.common_dir.join("config"),
    ];
    for real in configs {
        if bind_over.iter().any(|(_, r)| r == &real) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&real) else {
            continue;
        };
        let safe = crate::sandbox::filtered_git_config(&text);
        let dir = state_dir.join("jail").join("git-config");
        let file = dir.join(crate::util::sha256_hex(safe.as_bytes()));
        let written = file.is_file()
            || (std::fs::create_dir_all(&dir).is_ok()
                && crate::util::write_replace(&file, safe.as_bytes()).is_ok());
        if written {
            bind_over.push((file, real));
        }
    }
    crate::sandbox::Job {
        roots,
        read_only_roots: true,
        bind_over,
        network_deny: true,
        env: vec![("GIT_NO_LAZY_FETCH".into(), "1".into())],
        ..crate::sandbox::Job::default()
    }
}

/// `git` on an explicit git directory and work tree, with nothing of the environment but PATH,
/// no system or user configuration, no fsmonitor, no hooks, no prompts, no lazy fetch and no
/// transport: what every git the server runs starts from (`args` add the caller's options, then
/// the subcommand). Confined as `job` says where there is a sandbox.
pub(crate) fn git_command(
    sandbox: Option<&crate::sandbox::Sandbox>,
    job: &crate::sandbox::Job,
    repo: &Repo,
    args: &[&str],
) -> Result<tokio::process::Command, String> {
    let mut argv: Vec<std::ffi::OsString> = [
        "--no-optional-locks",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "protocol.allow=never",
    ]
    .iter()
    .map(Into::into)
    .collect();
    argv.push(format!("--git-dir={}", repo.git_dir.display()).into());
    argv.push(format!("--work-tree={}", repo.top.display()).into());
    // Every filter and diff driver the attributes name is blanked: a driver is a command.
    for name in attribute_drivers(repo) {
        for key in [
            "filter.{}.clean",
            "filter.{}.smudge",
            "filter.{}.process",
            "diff.{}.textconv",
            "diff.{}.command",
            "merge.{}.driver",
        ] {
            argv.push("-c".into());
            argv.push(format!("{}=", key.replace("{}", &name)).into());
        }
    }
    argv.extend(args.iter().map(Into::into));
    let mut cmd = match sandbox {
        Some(sb) => sb.command(job, Path::new("git"), &argv)?,
        None => {
            let mut c = tokio::process::Command::new("git");
            c.args(&argv);
            c
        }
    };
    cmd.current_dir(&repo.top)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_DIR", &repo.git_dir)
        .env("GIT_COMMON_DIR", &repo.common_dir)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(sb) = sandbox {
        sb.env(job, &mut cmd);
    }
    Ok(cmd)
}

/// The driver names (`filter=NAME`, `diff=NAME`, `merge=NAME`) the repository's attribute files
/// give — the work tree's `.gitattributes` files (a bounded walk) and `info/attributes` of the
/// git and common directories — each once, at most 64.
fn attribute_drivers(repo: &Repo) -> Vec<String> {
    let mut files = vec![
        repo.git_dir.join("info/attributes"),
        repo.common_dir.join("info/attributes"),
    ];
    let walk = ignore::WalkBuilder::new(&repo.top)
        .hidden(false)
        .git_ignore(true)
        .follow_links(false)
        .max_depth(Some(8))
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    files.extend(
        walk.flatten()
            .take(20_000)
            .filter(|e| e.file_name() == ".gitattributes")
            .map(|e| e.path().to_path_buf()),
    );
    let mut names: Vec<String> = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for word in text.split_whitespace() {
            let name = ["filter=", "diff=", "merge="]
                .iter()
                .find_map(|p| word.strip_prefix(p));
            if let Some(n) = name.filter(|n| {
                !n.is_empty()
                    && n.len() <= 64
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            }) && !names.iter().any(|x| x == n)
            {
                names.push(n.to_string());
                if names.len() >= 64 {
                    return names;
                }
            }
        }
    }
    names
}

/// A reading git (status, diff, show) on `repo` as `job` confines it: no pager, no external
/// diff, and — where no jail replaces the config — every configured filter blanked.
pub(crate) async fn reading_git(
    sandbox: Option<&crate::sandbox::Sandbox>,
    job: &crate::sandbox::Job,
    repo: &Repo,
    args: &[&str],
) -> Result<tokio::process::Command, String> {
    let mut all: Vec<String> = ["-c", "core.pager=cat", "-c", "diff.external="]
        .map(String::from)
        .to_vec();
    if !sandbox.is_some_and(crate::sandbox::Sandbox::jailed) {
        all.extend(filter_overrides(sandbox, job, repo).await);
    }
    all.push("--no-pager".into());
    all.extend(args.iter().map(|a| (*a).to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    git_command(sandbox, job, repo, &all)
}

async fn git(ctx: &ToolCtx<'_>, repo: &Repo, args: &[&str]) -> ToolOutput {
    let sandbox = ctx.services().sandbox.get().await;
    let sandbox = sandbox.as_deref();
    let job = git_job(repo, &ctx.paths.state_dir);
    let mut cmd = match reading_git(sandbox, &job, repo, args).await {
        Ok(c) => c,
        Err(e) => return ToolOutput::err("sandbox_refused", e),
    };
    cmd.current_dir(&ctx.paths.workspace);
    let out = tokio::select! {
        o = cmd.output() => o,
        _ = ctx.cancel.cancelled() => return ToolOutput::err("cancelled", "cancelled"),
    };
    match out {
        Err(e) => ToolOutput::err("git_unavailable", format!("cannot run git: {e}")),
        Ok(o) if !o.status.success() => ToolOutput::err(
            "git_failed",
            bound_text(String::from_utf8_lossy(&o.stderr).trim(), 4096),
        ),
        Ok(o) => {
            let s = String::from_utf8_lossy(&o.stdout);
            if s.trim().is_empty() {
                return ToolOutput::ok("(clean)");
            }
            match filter_output(&s) {
                Ok(text) => ToolOutput::ok(bound_text(&text, MAX_MODEL_TEXT)),
                Err(out) => out,
            }
        }
    }
}

pub async fn status(ctx: &ToolCtx<'_>, repo: &Repo) -> ToolOutput {
    git(
        ctx,
        repo,
        &["status", "--porcelain=v1", "--ignore-submodules=all"],
    )
    .await
}

pub async fn diff(
    ctx: &ToolCtx<'_>,
    repo: &Repo,
    staged: bool,
    path: Option<PathBuf>,
) -> ToolOutput {
    let mut args = vec![
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--ignore-submodules=all",
    ];
    if staged {
        args.push("--staged");
    }
    let p = path.map(|p| p.to_string_lossy().into_owned());
    if let Some(p) = &p {
        args.push("--");
        args.push(p);
    }
    git(ctx, repo, &args).await
}

// ---- The tools ----

/// No arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

pub struct GitStatus;

impl super::Tool for GitStatus {
    const NAME: &'static str = "git_status";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "git status --porcelain=v1 of the workspace.";
    type Args = NoArgs;
    type Call = Repo;

    fn prepare(_: NoArgs, paths: &PathPolicy) -> Result<Gated<Repo>, PrepareError> {
        let (repo, uses) = find_repo(paths)?;
        Ok(Gated {
            paths: uses,
            command: None,
            url: None,
            call: repo,
        })
    }

    async fn run(repo: Repo, ctx: &ToolCtx<'_>) -> ToolOutput {
        status(ctx, &repo).await
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitDiffArgs {
    /// The staged changes instead of the work tree's.
    #[serde(default)]
    pub staged: bool,
    /// Only this path (inside the workspace).
    pub path: Option<String>,
}

pub struct GitDiff;

impl super::Tool for GitDiff {
    const NAME: &'static str = "git_diff";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "git diff --no-ext-diff --no-textconv of the workspace (optionally `staged`, optionally one `path`).";
    type Args = GitDiffArgs;
    type Call = (Repo, bool, Option<PathBuf>);

    fn prepare(a: GitDiffArgs, paths: &PathPolicy) -> Result<Gated<Self::Call>, PrepareError> {
        let path = match a.path {
            Some(p) => {
                let r = paths.resolve(&p)?;
                if !r.inside {
                    return Err(PrepareError::Input(
                        "git_diff works inside the workspace only".into(),
                    ));
                }
                Some(r.path)
            }
            None => None,
        };
        let (repo, uses) = find_repo(paths)?;
        Ok(Gated {
            paths: uses,
            command: None,
            url: None,
            call: (repo, a.staged, path),
        })
    }

    async fn run((repo, staged, path): Self::Call, ctx: &ToolCtx<'_>) -> ToolOutput {
        diff(ctx, &repo, staged, path).await
    }
}
