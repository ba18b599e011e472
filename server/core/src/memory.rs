//! Persistent memory: short notes the agent keeps between sessions (`memory_write`,
//! `memory_search`, `memory_delete`), per workspace or the user's own. The relevant ones (found
//! by full-text search on the prompt) go into the system prompt with their ids. A workspace
//! memory is Tradewind's own state (internal effect); one for the user reaches every
//! workspace's prompts, so writing it always asks. Nothing leaves the machine except inside
//! prompts to the configured model.

use crate::store::{MemoryRow, Store};

/// Longest memory text.
pub const MAX_TEXT_CHARS: usize = 2_000;
/// Longest memory key.
pub const MAX_KEY_CHARS: usize = 100;
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

/// A memory as one line: `key: text`, or the text.
pub fn line(m: &MemoryRow) -> String {
    match &m.key {
        Some(k) => format!("{k}: {}", m.text),
        None => m.text.clone(),
    }
}
