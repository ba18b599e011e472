//! Context assembly: the system prompt, the AGENTS.md files that apply, and the stored history
//! turned into provider messages — repaired so a call left without a result (a crash, a cut
//! stream) never poisons later turns.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::protocol::Agent;
use crate::provider::{ChatMessage, ToolCallReq};
use crate::store::MessageRow;

/// Total AGENTS.md text included per turn.
pub const MAX_AGENTS_MD: usize = 32 * 1024;

/// Parts of a stored message (the `messages.parts` JSON).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StoredParts {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallReq>,
    #[serde(default)]
    pub call_id: String,
    #[serde(default)]
    pub name: String,
}

pub const NOT_EXECUTED: &str =
    "error [not_executed]: this call was not executed (the run ended before it could run)";

pub fn to_chat(rows: &[MessageRow]) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(rows.len());
    let mut open: Vec<ToolCallReq> = Vec::new();
    let close = |open: &mut Vec<ToolCallReq>, out: &mut Vec<ChatMessage>| {
        for c in open.drain(..) {
            out.push(ChatMessage::Tool {
                call_id: c.id,
                name: c.name,
                text: NOT_EXECUTED.into(),
            });
        }
    };
    for r in rows {
        let p: StoredParts = serde_json::from_str(&r.parts).unwrap_or_default();
        match r.role.as_str() {
            "user" => {
                close(&mut open, &mut out);
                out.push(ChatMessage::User { text: p.text });
            }
            "assistant" => {
                close(&mut open, &mut out);
                open = p.tool_calls.clone();
                out.push(ChatMessage::Assistant {
                    text: p.text,
                    tool_calls: p.tool_calls,
                });
            }
            "tool" => {
                if let Some(i) = open.iter().position(|c| c.id == p.call_id) {
                    open.remove(i);
                    out.push(ChatMessage::Tool {
                        call_id: p.call_id,
                        name: p.name,
                        text: p.text,
                    });
                }
            }
            _ => {}
        }
    }
    close(&mut open, &mut out);
    out
}

/// AGENTS.md from the workspace and its ancestors (outermost first), bounded.
pub fn agents_md(workspace: &Path) -> String {
    let mut files = Vec::new();
    let mut dir = Some(workspace);
    while let Some(d) = dir {
        let f = d.join("AGENTS.md");
        if let Ok(meta) = std::fs::symlink_metadata(&f)
            && meta.is_file()
        {
            files.push(f);
        }
        dir = d.parent();
    }
    files.reverse();
    let mut out = String::new();
    for f in files {
        if let Ok(text) = std::fs::read_to_string(&f) {
            let room = MAX_AGENTS_MD.saturating_sub(out.len());
            if room == 0 {
                break;
            }
            out.push_str(&format!(
                "\n## {}\n{}\n",
                f.display(),
                crate::util::truncate_str(&text, room)
            ));
        }
    }
    out
}

pub fn system_prompt(agent: Agent, workspace: &Path, extra: &str) -> String {
    let role = match agent {
        Agent::Build => {
            "You are Tradewind's build agent, a coding agent working in the user's workspace. Read before you change; make focused edits with edit_file (it needs the sha256 that read_file returns) or write_file; run commands when they help verify your work. Every tool call passes a permission gate: a denied call returns an error, so adapt instead of retrying the same call. When the task is done, answer briefly with what you changed."
        }
        Agent::Plan => {
            "You are Tradewind's plan agent. You are read-only: explore with the read tools, then deliver a concrete implementation plan in Markdown. Do not try to change files or run commands."
        }
    };
    let mut s = format!(
        "{role}\n\nWorkspace: {}\nPaths are relative to the workspace unless absolute.\n",
        workspace.display()
    );
    if !extra.is_empty() {
        s.push_str("\n# Project instructions (AGENTS.md)\n");
        s.push_str(extra);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(role: &str, parts: serde_json::Value) -> MessageRow {
        MessageRow {
            id: crate::util::new_id(),
            session_id: "s".into(),
            run_id: None,
            role: role.into(),
            parts: parts.to_string(),
            created_at: 0,
        }
    }

    #[test]
    fn orphan_tool_calls_get_a_result() {
        let rows = vec![
            row("user", serde_json::json!({"text": "hi"})),
            row(
                "assistant",
                serde_json::json!({"text": "", "tool_calls": [{"id": "c1", "name": "read_file", "arguments": "{}"}, {"id": "c2", "name": "shell", "arguments": "{}"}]}),
            ),
            row(
                "tool",
                serde_json::json!({"call_id": "c1", "name": "read_file", "text": "ok"}),
            ),
            row("user", serde_json::json!({"text": "again"})),
        ];
        let chat = to_chat(&rows);
        assert_eq!(chat.len(), 5);
        assert!(
            matches!(&chat[3], ChatMessage::Tool { call_id, text, .. } if call_id == "c2" && text == NOT_EXECUTED)
        );
        assert!(matches!(&chat[4], ChatMessage::User { .. }));
    }
}
