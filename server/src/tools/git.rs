//! git_status and git_diff (effect read). Repository config cannot run code through them:
//! external diff drivers and textconv are off, and fsmonitor/hooks are disabled per call.

use std::path::PathBuf;
use std::process::Stdio;

use super::{MAX_MODEL_TEXT, ToolCtx, ToolOutput, bound_text};

async fn git(ctx: &ToolCtx, args: &[&str]) -> ToolOutput {
    let mut cmd = tokio::process::Command::new("git");
    cmd.args([
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.pager=cat",
        "--no-pager",
    ])
    .args(args)
    .current_dir(&ctx.paths.workspace)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("HOME", std::env::var_os("HOME").unwrap_or_default())
    .env("GIT_TERMINAL_PROMPT", "0")
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

pub async fn status(ctx: &ToolCtx) -> ToolOutput {
    git(ctx, &["status", "--porcelain=v1"]).await
}

pub async fn diff(ctx: &ToolCtx, staged: bool, path: Option<PathBuf>) -> ToolOutput {
    let mut args = vec!["diff", "--no-ext-diff", "--no-textconv", "--no-color"];
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
