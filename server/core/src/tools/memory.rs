//! The memory tools: `memory_write`, `memory_search`, `memory_delete` (see `crate::memory`).

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::memory::{MAX_KEY_CHARS, check_text, line};
use crate::protocol::Effect;

// Where a memory lives: this workspace only, or every workspace of the user (asks first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Workspace,
    User,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    pub key: Option<String>,
    /// At most 2,000 characters.
    pub text: String,
    pub scope: Scope,
}

pub struct WriteCall {
    key: Option<String>,
    text: String,
    scope: Scope,
}

pub struct MemoryWrite;

impl super::Tool for MemoryWrite {
    const NAME: &'static str = "memory_write";
    const EFFECT: Effect = Effect::Internal;
    const PLAN_AGENT: bool = false;
    const DESCRIPTION: &'static str = "Keep a note for later sessions (a project fact, a convention, a stated preference). Scope `user` reaches every project and asks first. The same `key` replaces.";
    type Args = WriteArgs;
    type Call = WriteCall;

    fn prepare(
        a: WriteArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<WriteCall>, PrepareError> {
        let text = check_text(&a.text).map_err(PrepareError::Input)?;
        let key = a
            .key
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        if key
            .as_ref()
            .is_some_and(|k| k.chars().count() > MAX_KEY_CHARS || k.chars().any(char::is_control))
        {
            return Err(PrepareError::Input(format!(
                "key must be at most {MAX_KEY_CHARS} characters, without control characters"
            )));
        }
        Ok(Gated::plain(WriteCall {
            key,
            text,
            scope: a.scope,
        }))
    }

    async fn run(c: WriteCall, ctx: &ToolCtx<'_>) -> ToolOutput {
        let (scope, workspace) = match c.scope {
            Scope::Workspace => ("workspace", ctx.host.session().workspace.as_str()),
            Scope::User => {
                let why = "a user memory goes into the prompts of every workspace";
                if let Err(out) = ctx.host.confirm(ctx, why, "memory:user").await {
                    return out;
                }
                ("user", "")
            }
        };
        match ctx
            .services()
            .store
            .write_memory(scope, workspace, c.key.as_deref(), &c.text)
            .await
        {
            Ok(m) => ToolOutput::ok(format!("Kept as memory {} ({scope}).", m.id)),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    pub query: String,
}

pub struct MemorySearch;

impl super::Tool for MemorySearch {
    const NAME: &'static str = "memory_search";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Search the kept notes (any of the words; best first), with their ids.";
    type Args = SearchArgs;
    type Call = String;

    fn prepare(
        a: SearchArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<String>, PrepareError> {
        Ok(Gated::plain(
            crate::util::truncate_str(&a.query, 1_000).to_string(),
        ))
    }

    async fn run(query: String, ctx: &ToolCtx<'_>) -> ToolOutput {
        match ctx
            .services()
            .store
            .search_memories(&ctx.host.session().workspace, &query, 20)
            .await
        {
            Ok(rows) if rows.is_empty() => ToolOutput::ok("No memory matches."),
            Ok(rows) => ToolOutput::ok(
                rows.iter()
                    .map(|m| format!("[{}] ({}) {}", m.id, m.scope, line(m)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    pub id: String,
}

pub struct MemoryDelete;

impl super::Tool for MemoryDelete {
    const NAME: &'static str = "memory_delete";
    const EFFECT: Effect = Effect::Internal;
    const PLAN_AGENT: bool = false;
    const DESCRIPTION: &'static str = "Delete a kept note that is no longer true, by id.";
    type Args = DeleteArgs;
    type Call = crate::protocol::MemoryId;

    fn prepare(
        a: DeleteArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<crate::protocol::MemoryId>, PrepareError> {
        Ok(Gated::plain(a.id.trim().into()))
    }

    async fn run(id: crate::protocol::MemoryId, ctx: &ToolCtx<'_>) -> ToolOutput {
        let store = &ctx.services().store;
        let (visible, user) = match store.get_memory(&id).await {
            Ok(Some(m)) => (
                m.scope == "user" || m.workspace == ctx.host.session().workspace,
                m.scope == "user",
            ),
            Ok(None) => (false, false),
            Err(e) => return ToolOutput::err("internal", e),
        };
        if !visible {
            return ToolOutput::err("not_found", format!("no memory {id} here"));
        }
        // A user memory is the user's own, kept for every workspace: deleting it asks.
        if user {
            let why = "it deletes a user memory, which every workspace's prompts carry";
            if let Err(out) = ctx.host.confirm(ctx, why, "memory:user").await {
                return out;
            }
        }
        match store.delete_memory(&id).await {
            Ok(_) => ToolOutput::ok(format!("Memory {id} deleted.")),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}
