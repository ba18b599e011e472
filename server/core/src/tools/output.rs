//! What a tool returns: the text the model sees and the display parts the UI shows. The
//! vocabulary every producer of a tool result shares (built-in tools, MCP servers, the turn
//! loop's own refusals), below all of them.

use crate::protocol::Part;

/// Text returned to the model per tool call.
pub const MAX_MODEL_TEXT: usize = 32 * 1024;

/// What a tool returns: the text the model sees, and display parts for the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub ok: bool,
    pub text: String,
    pub parts: Vec<Part>,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            ok: true,
            text: text.into(),
            parts: Vec::new(),
        }
    }
    pub fn err(code: &str, message: impl std::fmt::Display) -> ToolOutput {
        ToolOutput {
            ok: false,
            text: format!("error [{code}]: {message}"),
            parts: Vec::new(),
        }
    }
    /// Pretty JSON for the model.
    pub fn json<T: serde::Serialize>(v: &T) -> ToolOutput {
        ToolOutput::ok(serde_json::to_string_pretty(v).unwrap_or_default())
    }
}

/// Head and tail of a long text with an explicit marker in between.
pub fn bound_text(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let head = crate::util::truncate_str(s, max / 2);
    let tail = crate::util::tail_str(s, max / 2);
    let cut = s.len() - head.len() - tail.len();
    format!("{head}\n[… {cut} bytes truncated …]\n{tail}")
}
