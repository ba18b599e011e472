//! Persistent memory: short notes the agent keeps between sessions (`memory_write`,
//! `memory_search`, `memory_delete`), per workspace or the user's own. The relevant ones (found
//! by full-text search on the prompt) go into the system prompt with their ids. A workspace
//! memory is Tradewind's own state (internal effect); one for the user reaches every
//! workspace's prompts, so writing it always asks. Nothing leaves the machine except inside
//! prompts to the configured model.

use crate::protocol::Effect;
use crate::store::{MemoryRow, Store};
use crate::tools::{Gated, PrepareError, ToolCtx, ToolOutput};

/// Longest memory text.
pub const MAX_TEXT_CHARS: usize = 2_000;
const MAX_KEY_CHARS: usize = 100;
/// Memories the system prompt carries at most.
const IN_PROMPT: i64 = 5;

/// A memory's text, trimmed: 1 to 2,000 characters, not blank.
pub fn check_text(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() || text.chars().count() > MAX_TEXT_CHARS {
        return Err(format!(
            "text must be 1 to {MAX_TEXT_CHARS} characters, not blank"
        ));
    }
    Ok(t.to_string())
}

/// The system prompt's section: the memories most relevant to `prompt`, with their ids.
pub async fn prompt_section(store: &Store, workspace: &str, prompt: &str) -> String {
    let rows = store
        .search_memories(workspace, prompt, IN_PROMPT)
        .await
        .unwrap_or_default();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n\n## Memories\nNotes kept from earlier sessions (update with memory_write and the same key, remove with memory_delete):\n",
    );
    for m in rows {
        s.push_str(&format!("- [{}] ({}) {}\n", m.id, m.scope, line(&m)));
    }
    s
}

fn line(m: &MemoryRow) -> String {
    match &m.key {
        Some(k) => format!("{k}: {}", m.text),
        None => m.text.clone(),
    }
}

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

impl crate::tools::Tool for MemoryWrite {
    const NAME: &'static str = "memory_write";
    const EFFECT: Effect = Effect::Internal;
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
        let turn = ctx.turn;
        let (scope, workspace) = match c.scope {
            Scope::Workspace => ("workspace", turn.run.session.workspace.as_str()),
            Scope::User => {
                let why = "a user memory goes into the prompts of every workspace";
                if let Err(out) = crate::agent::calls::confirm(ctx, why, "memory:user").await {
                    return out;
                }
                ("user", "")
            }
        };
        match turn
            .deps
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

impl crate::tools::Tool for MemorySearch {
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
        let turn = ctx.turn;
        match turn
            .deps
            .store
            .search_memories(&turn.run.session.workspace, &query, 20)
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

impl crate::tools::Tool for MemoryDelete {
    const NAME: &'static str = "memory_delete";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Delete a kept note that is no longer true, by id.";
    type Args = DeleteArgs;
    type Call = String;

    fn prepare(
        a: DeleteArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<String>, PrepareError> {
        Ok(Gated::plain(a.id.trim().to_string()))
    }

    async fn run(id: String, ctx: &ToolCtx<'_>) -> ToolOutput {
        let turn = ctx.turn;
        let store = &turn.deps.store;
        let visible = match store.get_memory(&id).await {
            Ok(Some(m)) => m.scope == "user" || m.workspace == turn.run.session.workspace,
            Ok(None) => false,
            Err(e) => return ToolOutput::err("internal", e),
        };
        if !visible {
            return ToolOutput::err("not_found", format!("no memory {id} here"));
        }
        match store.delete_memory(&id).await {
            Ok(_) => ToolOutput::ok(format!("Memory {id} deleted.")),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}
