//! `@path` in a user's prompt: each file (or directory) it names is read through the gate — a
//! read it allows without asking — and attached to the prompt the model sees, so the model
//! starts with it instead of spending a round trip on `read_file`. The transcript shows each
//! as the `read_file` (or `list_files`) call it was, with its result; a mention the gate would
//! not allow without asking is not attached, and the prompt says why.

use std::path::Path;

use super::Turn;
use crate::provider::ToolCallReq;
use crate::util::new_id;

/// At most this many mentions of one prompt are attached (the picker inserts one at a time;
/// a prompt naming more is better served by the model's own reads).
pub const MAX_MENTIONS: usize = 8;

/// At most this many `@` words of one prompt are looked up as paths.
const MAX_CANDIDATES: usize = 64;

/// Entries a mentioned directory lists.
const DIR_LIMIT: usize = 200;

/// What a mention that would need an approval is told.
const NEVER_ASKS: &str = "a file mentioned with @ is attached only when reading it needs no approval; read it with a tool call instead";

/// Characters that end a sentence around a path (`see @src/a.rs.`), dropped from the end of a
/// mention when the path with them does not exist.
const TRAILING: &[char] = &['.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '`'];

/// The paths `text` mentions that exist under `workspace` (or absolute), in order, each once:
/// `@` at the start or after whitespace or an opening bracket or quote, up to the next
/// whitespace. `@someone` that names no file is text.
pub fn mentioned(text: &str, workspace: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut prev: Option<char> = None;
    let mut looked = 0;
    for (i, c) in text.char_indices() {
        let starts = c == '@' && prev.is_none_or(|p| p.is_whitespace() || "([{\"'`".contains(p));
        prev = Some(c);
        if !starts {
            continue;
        }
        looked += 1;
        if looked > MAX_CANDIDATES {
            break;
        }
        let rest = &text[i + 1..];
        let token = rest.split(char::is_whitespace).next().unwrap_or_default();
        let mut path = token;
        // The word, then without up to three closing characters (`@a.rs).` → `a.rs`).
        for _ in 0..4 {
            if path.is_empty() {
                break;
            }
            if !out.iter().any(|p| p == path) && exists(workspace, path) {
                out.push(path.to_string());
                break;
            }
            match path.strip_suffix(TRAILING) {
                Some(shorter) => path = shorter,
                None => break,
            }
        }
        if out.len() == MAX_MENTIONS {
            break;
        }
    }
    out
}

fn exists(workspace: &Path, path: &str) -> bool {
    // `~` is the shell's, not a path's: the gate's resolver would not read it either.
    !path.starts_with('~') && std::fs::metadata(workspace.join(path)).is_ok()
}

/// Read every file the prompt mentions (through the gate, never asking) and return the text
/// the model sees after the prompt: each read's result, or why it was not attached.
pub(super) async fn attach(t: &Turn<'_>, text: &str) -> String {
    let mut out = String::new();
    for path in mentioned(text, &t.paths.workspace) {
        let dir = std::fs::metadata(t.paths.workspace.join(&path)).is_ok_and(|m| m.is_dir());
        let (name, arguments) = if dir {
            (
                "list_files",
                serde_json::json!({"path": path, "limit": DIR_LIMIT}),
            )
        } else {
            ("read_file", serde_json::json!({"path": path}))
        };
        let call = ToolCallReq {
            id: format!("mention_{}", new_id()).into(),
            name: name.to_string(),
            arguments: arguments.to_string(),
        };
        let result = super::calls::handle_nested(t, &call, NEVER_ASKS).await;
        out.push_str("\n\n");
        if result.ok {
            out.push_str(&format!(
                "[The user's @{path} is attached: {name} {arguments} returned]\n{}",
                result.text
            ));
        } else {
            out.push_str(&format!(
                "[The user's @{path} was not attached: {}]",
                result.text
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(files: &[&str]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("tw-mentions-{}", new_id()));
        for f in files {
            let p = d.join(f);
            std::fs::create_dir_all(p.parent().unwrap_or(&d)).unwrap_or_default();
            std::fs::write(p, "x\n").unwrap_or_default();
        }
        d
    }

    #[test]
    fn mentions_are_existing_paths_after_an_at_sign() {
        let w = dir(&["src/a.rs", "notes.txt"]);
        let found = mentioned(
            "Look at @src/a.rs, then (@notes.txt) and @src. Mail me@notes.txt, ask @someone, \
             again @src/a.rs and @missing.rs",
            &w,
        );
        assert_eq!(found, ["src/a.rs", "notes.txt", "src"]);
        assert!(mentioned("@~/.ssh/id_rsa", &w).is_empty());
        assert_eq!(mentioned("@notes.txt", &w), ["notes.txt"]);
        std::fs::remove_dir_all(&w).unwrap_or_default();
    }

    #[test]
    fn at_most_max_mentions() {
        let names: Vec<String> = (0..MAX_MENTIONS + 3).map(|i| format!("f{i}")).collect();
        let w = dir(&names.iter().map(String::as_str).collect::<Vec<_>>());
        let text: String = names.iter().map(|n| format!("@{n} ")).collect();
        assert_eq!(mentioned(&text, &w).len(), MAX_MENTIONS);
        std::fs::remove_dir_all(&w).unwrap_or_default();
    }
}
