//! `todo_write`: the checklist the agent keeps for a task of several steps. The whole list is
//! sent each time (it replaces the previous one); the tool result carries it as a `todos` part,
//! which the web app pins above the composer, and the model keeps it in its own history.

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::policy::paths::PathPolicy;
use crate::protocol::{Effect, Part, TodoItem, TodoStatus};

/// Most items in one list.
pub const MAX_TODOS: usize = 50;
/// Most characters in one item's text.
pub const MAX_TODO_CHARS: usize = 500;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoArgs {
    /// The whole list, in order (it replaces the previous one): 1 to 50 items.
    #[schemars(length(min = 1, max = 50))]
    pub items: Vec<TodoItem>,
}

pub struct TodoWrite;

impl super::Tool for TodoWrite {
    const NAME: &'static str = "todo_write";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Keep a checklist for a task of three or more steps: send the whole list each time (it replaces the previous one), each item with `text` and `status` (pending, in_progress, done). Mark an item in_progress before you start it (one at a time) and done as soon as it is finished. The user sees the list live.";
    type Args = TodoArgs;
    type Call = Vec<TodoItem>;

    fn prepare(a: TodoArgs, _: &PathPolicy) -> Result<Gated<Vec<TodoItem>>, PrepareError> {
        if a.items.is_empty() || a.items.len() > MAX_TODOS {
            return Err(PrepareError::Input(format!("send 1 to {MAX_TODOS} items")));
        }
        for item in &a.items {
            let n = item.text.trim().chars().count();
            if n == 0 || n > MAX_TODO_CHARS {
                return Err(PrepareError::Input(format!(
                    "each item needs 1 to {MAX_TODO_CHARS} characters of text"
                )));
            }
        }
        let items = a
            .items
            .into_iter()
            .map(|i| TodoItem {
                text: i.text.trim().to_string(),
                status: i.status,
            })
            .collect();
        Ok(Gated::plain(items))
    }

    async fn run(items: Vec<TodoItem>, _: &ToolCtx<'_>) -> ToolOutput {
        let count = |s: TodoStatus| items.iter().filter(|i| i.status == s).count();
        let (done, doing, pending) = (
            count(TodoStatus::Done),
            count(TodoStatus::InProgress),
            count(TodoStatus::Pending),
        );
        let mut text =
            format!("Checklist updated: {done} done, {doing} in progress, {pending} pending.");
        if doing > 1 {
            text.push_str(" Work on one item at a time: keep a single item in_progress.");
        }
        ToolOutput {
            ok: true,
            text,
            parts: vec![Part::Todos { items }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::DynTool;

    fn paths() -> PathPolicy {
        PathPolicy {
            workspace: "/w".into(),
            extra_roots: vec![],
            state_dir: "/s".into(),
            home: None,
            lent_git: None,
        }
    }

    #[test]
    fn a_list_is_checked_before_it_is_accepted() {
        let ok = serde_json::json!({"items": [
            {"text": " Write the test ", "status": "done"},
            {"text": "Fix the bug", "status": "in_progress"},
            {"text": "Update the docs", "status": "pending"}
        ]});
        assert!(TodoWrite.prepare(&ok, &paths()).is_ok());
        for bad in [
            serde_json::json!({"items": []}),
            serde_json::json!({"items": [{"text": "  ", "status": "pending"}]}),
            serde_json::json!({"items": [{"text": "x", "status": "started"}]}),
            serde_json::json!({"items": [{"text": "x".repeat(501), "status": "done"}]}),
            serde_json::json!({"items": [{"text": "x", "status": "done", "extra": 1}]}),
        ] {
            assert!(TodoWrite.prepare(&bad, &paths()).is_err(), "{bad}");
        }
        let many: Vec<_> = (0..51)
            .map(|i| serde_json::json!({"text": format!("step {i}"), "status": "pending"}))
            .collect();
        assert!(
            TodoWrite
                .prepare(&serde_json::json!({"items": many}), &paths())
                .is_err()
        );
    }
}
