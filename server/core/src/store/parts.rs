//! What a stored message holds (the `messages.parts` JSON): the store's own type, read by the
//! agent loop, subagents and the history cache alike.
use serde::{Deserialize, Serialize};

/// A tool call as the model made it (arguments as the raw JSON text it sent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallReq {
    pub id: crate::protocol::CallId,
    pub name: String,
    pub arguments: String,
}

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
    /// A `summary` message: how many of the messages before it stay after it…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<usize>,
    /// …and the most characters each kept tool output keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_limit: Option<usize>,
    /// A user message's images.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<crate::protocol::ImageRef>,
    /// The signature of `reasoning` (Anthropic's extended thinking).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning_signature: String,
    /// Encrypted thinking blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted_reasoning: Vec<String>,
}
