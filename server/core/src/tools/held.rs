//! What a jailed program created that programs outside the jail run without asking (a new git
//! directory, a `.git` file or `commondir` that redirects a repository, a new `.envrc`, Claude
//! Code or VS Code settings): held (moved aside in place) before anything outside can read it,
//! and the user asked, naming each, whether to keep it. The one flow for shell commands and MCP
//! servers' calls alike.
use std::path::PathBuf;

use super::ToolCtx;
use crate::sandbox::guard::{self, Snapshot};

/// After a look: whether everything new was kept, and what the roots hold now (the next look's
/// baseline: what was kept is in it, what stays aside is not).
pub struct Looked {
    pub all_kept: bool,
    pub seen: Snapshot,
}

/// Look through `roots` again and hold what `who` ("this command", "the MCP server `fs`")
/// created since `before`; each outcome goes into `text` for the model. Kept: put back. Not kept
/// (or nobody can answer): it stays aside, renamed (`….tradewind-held`), so nothing is lost and
/// nothing runs it.
pub async fn hold_created(
    ctx: &ToolCtx<'_>,
    who: &str,
    roots: &[PathBuf],
    before: &Snapshot,
    text: &mut String,
) -> Looked {
    let after = guard::look(roots).await;
    let mut all_kept = true;
    let mut moved = false;
    for found in after.new_since(before) {
        let shown = found.path.display().to_string();
        if let Err(e) = guard::hold(&found.path) {
            // Gone again already, or not movable: say so; nothing runs it from its place
            // unless it is still there.
            if std::fs::symlink_metadata(&found.path).is_ok() {
                text.push_str(&format!(
                    "warning: {who} created {shown} ({}) and it could not be moved aside: {e}\n",
                    found.what
                ));
                all_kept = false;
            }
            moved = true;
            continue;
        }
        moved = true;
        let reason = format!(
            "{} created {shown}: {}. Programs outside the sandbox run what it holds without asking (git runs a repository's hooks and config on every `git status`). It was moved aside; keep it?",
            capitalized(who),
            found.what
        );
        let key = format!("keep:{shown}");
        match ctx.host.confirm(ctx, &reason, &key).await {
            Ok(()) => match guard::release(&found.path) {
                Ok(()) => text.push_str(&format!(
                    "note: {shown} ({}) was held until the user agreed to keep it\n",
                    found.what
                )),
                Err(e) => {
                    text.push_str(&format!("note: {shown} stays held: {e}\n"));
                    all_kept = false;
                }
            },
            Err(_) => {
                text.push_str(&format!(
                    "refused: {who} created {shown} ({}); the user did not keep it, and it stays aside as {}\n",
                    found.what,
                    guard::held_path(&found.path).display()
                ));
                all_kept = false;
            }
        }
    }
    // What was moved is not where the look saw it: look once more, so a second creation of the
    // same file is new again.
    let seen = if moved {
        guard::look(roots).await
    } else {
        after
    };
    Looked { all_kept, seen }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
