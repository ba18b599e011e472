//! git_status and git_diff (effect read). Repository config cannot run code through them:
//! external diff drivers, textconv and every configured filter driver are blanked, fsmonitor and
//! hooks are off, submodules (with their own config) are not entered, and system config is not
//! read. Writes to `.git/` itself always ask (see `policy::always_ask_path`).

use std::path::PathBuf;
use std::process::Stdio;

use super::{Gated, MAX_MODEL_TEXT, PrepareError, ToolCtx, ToolOutput, bound_text};
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;

/// `-c` overrides that blank every filter driver the repository configures: a `clean`/`smudge`/
/// `process` filter is a command git would run during status or diff.
async fn filter_overrides(ctx: &ToolCtx<'_>) -> Vec<String> {
    let out = tokio::process::Command::new("git")
        .args([
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|smudge|process)$",
        ])
        .current_dir(&ctx.paths.workspace)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
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

async fn git(ctx: &ToolCtx<'_>, args: &[&str]) -> ToolOutput {
    let filters = filter_overrides(ctx).await;
    let mut cmd = tokio::process::Command::new("git");
    cmd.args([
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.pager=cat",
        "-c",
        "diff.external=",
    ])
    .args(&filters)
    .arg("--no-pager")
    .args(args)
    .current_dir(&ctx.paths.workspace)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("HOME", std::env::var_os("HOME").unwrap_or_default())
    .env("GIT_TERMINAL_PROMPT", "0")
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .env("LC_ALL", "C")
    .stdin(Stdio::null())
    .kill_on_drop(true);
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
            ToolOutput::ok(if s.trim().is_empty() {
                "(clean)".to_string()
            } else {
                bound_text(&s, MAX_MODEL_TEXT)
            })
        }
    }
}

pub async fn status(ctx: &ToolCtx<'_>) -> ToolOutput {
    git(
        ctx,
        &["status", "--porcelain=v1", "--ignore-submodules=all"],
    )
    .await
}

pub async fn diff(ctx: &ToolCtx<'_>, staged: bool, path: Option<PathBuf>) -> ToolOutput {
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
    git(ctx, &args).await
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
    type Call = ();

    fn prepare(_: NoArgs, _: &PathPolicy) -> Result<Gated<()>, PrepareError> {
        Ok(Gated::plain(()))
    }

    async fn run((): (), ctx: &ToolCtx<'_>) -> ToolOutput {
        status(ctx).await
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
    type Call = (bool, Option<PathBuf>);

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
        Ok(Gated::plain((a.staged, path)))
    }

    async fn run((staged, path): Self::Call, ctx: &ToolCtx<'_>) -> ToolOutput {
        diff(ctx, staged, path).await
    }
}
