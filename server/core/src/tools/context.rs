//! `context_explain`: which instruction files (AGENTS.md, AGENTS.override.md, CLAUDE.md) apply
//! to a path, in the order they apply (nearest last), with their sizes — what the model was
//! told for that part of the workspace, and where to change it.

use std::path::PathBuf;

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::instructions::{self, Kind};
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextExplainArgs {
    /// A file or directory, relative to the workspace or absolute.
    #[schemars(length(min = 1, max = 4096))]
    pub path: String,
}

pub struct ContextExplain;

impl super::Tool for ContextExplain {
    const NAME: &'static str = "context_explain";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "List the instruction files (AGENTS.md, AGENTS.override.md, CLAUDE.md) that apply to a path, in the order they apply (the nearest last, which wins), with their sizes. A subdirectory's own file reaches you with the first result that touches a path beneath it.";
    type Args = ContextExplainArgs;
    type Call = PathBuf;

    fn prepare(a: ContextExplainArgs, paths: &PathPolicy) -> Result<Gated<PathBuf>, PrepareError> {
        let r = paths.resolve(&a.path)?;
        Ok(Gated {
            paths: vec![super::dir_use(&r)],
            command: None,
            url: None,
            call: r.path,
        })
    }

    async fn run(path: PathBuf, ctx: &ToolCtx<'_>) -> ToolOutput {
        let files = instructions::applying(&ctx.paths.workspace, &path);
        if files.is_empty() {
            return ToolOutput::ok(format!(
                "No AGENTS.md, AGENTS.override.md or CLAUDE.md applies to {}.",
                path.display()
            ));
        }
        let mut text = format!(
            "Instruction files for {}, in the order they apply (the last wins):\n",
            path.display()
        );
        for (i, f) in files.iter().enumerate() {
            let how = match f.kind {
                Kind::Override => "overrides AGENTS.md in its directory",
                Kind::Agents => "AGENTS.md",
                Kind::Claude => "CLAUDE.md (no AGENTS.md there; its @imports are followed)",
            };
            let when = if f.dir.starts_with(&ctx.paths.workspace) && f.dir != ctx.paths.workspace {
                "added when a call first reaches beneath it"
            } else {
                "in every system prompt"
            };
            text.push_str(&format!(
                "{}. {} — {} bytes; {how}; {when}\n",
                i + 1,
                f.path.display(),
                f.bytes
            ));
        }
        ToolOutput::ok(text)
    }
}
