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

/// One stored message, parsed once.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    pub role: String,
    pub parts: StoredParts,
}

impl Entry {
    pub fn from_row(r: &MessageRow) -> Entry {
        Entry {
            id: r.id.clone(),
            role: r.role.clone(),
            parts: serde_json::from_str(&r.parts).unwrap_or_default(),
        }
    }
}

/// Parsed histories kept between runs, so a run reads only the messages stored since the last
/// one instead of re-reading and re-parsing the whole session. Runs of one session never
/// overlap (the scheduler), so a run takes its session's entry and gives it back at the end.
/// Bounded: past `MAX_SESSIONS` the least recently used history is dropped (and re-read from the
/// store when needed).
#[derive(Default)]
pub struct HistoryCache {
    map: std::sync::Mutex<std::collections::HashMap<String, (u64, Vec<Entry>)>>,
    clock: std::sync::atomic::AtomicU64,
}

const MAX_SESSIONS: usize = 32;

impl HistoryCache {
    /// The cached history of a session (empty when none), removed from the cache.
    pub fn take(&self, session: &str) -> Vec<Entry> {
        let mut m = match self.map.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        m.remove(session).map(|(_, v)| v).unwrap_or_default()
    }

    pub fn put(&self, session: &str, entries: Vec<Entry>) {
        let tick = self
            .clock
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut m = match self.map.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        m.insert(session.to_string(), (tick, entries));
        while m.len() > MAX_SESSIONS {
            let Some(oldest) = m
                .iter()
                .min_by_key(|(_, (t, _))| *t)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            m.remove(&oldest);
        }
    }
}

pub fn to_chat(rows: &[Entry]) -> Vec<ChatMessage> {
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
        let p = r.parts.clone();
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
    fn the_cache_gives_back_what_was_put_and_stays_bounded() {
        let c = HistoryCache::default();
        let e = Entry::from_row(&row("user", serde_json::json!({"text": "hi"})));
        c.put("a", vec![e.clone()]);
        for i in 0..MAX_SESSIONS + 5 {
            c.put(&format!("s{i}"), vec![e.clone()]);
        }
        assert!(
            c.take("a").is_empty(),
            "the least recently used one was dropped"
        );
        assert_eq!(c.take(&format!("s{}", MAX_SESSIONS + 4)).len(), 1);
        assert!(
            c.take(&format!("s{}", MAX_SESSIONS + 4)).is_empty(),
            "take removes"
        );
    }

    #[test]
    fn orphan_tool_calls_get_a_result() {
        let rows = [
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
        let entries: Vec<Entry> = rows.iter().map(Entry::from_row).collect();
        let chat = to_chat(&entries);
        assert_eq!(chat.len(), 5);
        assert!(
            matches!(&chat[3], ChatMessage::Tool { call_id, text, .. } if call_id == "c2" && text == NOT_EXECUTED)
        );
        assert!(matches!(&chat[4], ChatMessage::User { .. }));
    }
}
