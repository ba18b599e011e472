//! Sessions, their messages and runs: what creates, lists, changes and forks them, and a run's
//! usage and status.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"id": "01JD8Q2N4M5K6J7H8G9F0E1D2C", "title": "Fix the flaky test", "workspace": "/home/me/project", "agent": "build", "mode": "ask", "archived": false, "status": "running", "last_seq": 42, "created_at": 1764547200000_i64, "updated_at": 1764547260000_i64})))]
pub struct Session {
    pub id: SessionId,
    pub title: String,
    pub workspace: String,
    pub agent: AgentName,
    pub mode: Mode,
    pub archived: bool,
    pub status: SessionStatus,
    /// The seq of the newest event.
    pub last_seq: i64,
    pub created_at: i64,
    pub updated_at: i64,
    /// A fork: the session and the seq of the user message it was made at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedFrom>,
    /// This session's own spend cap in USD; null: the server's (`GET /api/usage/caps`).
    #[serde(default)]
    pub spend_cap_usd: Option<f64>,
    /// Sent to the model as `reasoning_effort`; null: not sent (the model's default).
    #[serde(default)]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// The provider this session's runs use (an id from `GET /api/providers`); null: the
    /// default provider.
    #[serde(default)]
    pub provider: Option<String>,
    /// The model this session's runs use; null: its provider's default model.
    #[serde(default)]
    pub model: Option<String>,
    /// A subagent: the session whose `task` started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<SessionId>,
    /// The session has a goal, in any status (`GET /api/sessions/{id}/goal` reads it; without
    /// one that answers 404).
    #[serde(default)]
    pub has_goal: bool,
    /// A subagent, as `GET /api/sessions/{id}/children` lists it: how its latest run ended
    /// (absent while it runs, before its first run, and in every other listing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run_status: Option<RunStatus>,
    /// The git worktree the session works in, when it was created with `worktree: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<SessionWorktree>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
pub struct ForkedFrom {
    pub session: SessionId,
    pub seq: i64,
}

/// `POST /api/sessions/{id}/fork`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"seq": 12, "text": "Try again, but keep the tests unchanged"})))]
pub struct ForkParams {
    /// The seq of a `user_message` event: the fork holds the conversation before it. Omitted:
    /// the whole conversation (the session must be idle).
    #[serde(default, deserialize_with = "whole::opt_i64")]
    #[schema(minimum = 1, maximum = 9_007_199_254_740_991_i64)]
    pub seq: Option<i64>,
    /// Sent as the fork's first new message ("edit and resend"); the same rules as a prompt.
    #[schema(
        min_length = 1,
        max_length = 200000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub text: Option<String>,
    /// The fork's title (default: the original's with " (fork)"): 1 to 200 characters, not
    /// blank, no control characters.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    pub title: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Forked {
    pub session: Session,
    /// The run `text` started, if any.
    pub run_id: Option<RunId>,
}

#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"title": "Fix the flaky test", "agent": "build", "mode": "ask"})))]
pub struct CreateSessionParams {
    /// Workspace directory (default: the server's workspace): an absolute path of an existing
    /// directory outside Tradewind's state directory; empty means the default.
    #[schema(max_length = 4096, pattern = "^(/[^\\u0000]*)?$")]
    pub workspace: Option<String>,
    /// 1 to 200 characters, not blank, no control characters (default: from the first prompt).
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    pub title: Option<String>,
    pub agent: Option<AgentName>,
    pub mode: Option<Mode>,
    /// Work in a git worktree of its own (`git worktree add -b tw/<slug>`), so sessions of one
    /// repository never edit the same files. Default: config.json's `worktrees.default`
    /// (false). The workspace must be in a git repository with at least one commit.
    pub worktree: Option<bool>,
    /// The branch (or commit) the worktree starts from; default: the main checkout's `HEAD`.
    #[schema(min_length = 1, max_length = 250)]
    pub base: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"mode": "auto"})))]
pub struct PatchSessionParams {
    /// 1 to 200 characters, not blank, no control characters.
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    pub title: Option<String>,
    pub agent: Option<AgentName>,
    pub mode: Option<Mode>,
    pub archived: Option<bool>,
    /// This session's spend cap in USD (0 to 1,000,000); null goes back to the server's.
    /// Raising it lets a run stopped by the cap be resumed.
    #[serde(default, deserialize_with = "whole::some_f64")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 1_000_000)]
    pub spend_cap_usd: Option<Option<f64>>,
    /// `low`, `medium` or `high`, sent to reasoning models as `reasoning_effort` from the next
    /// model call; null stops sending it.
    #[serde(default, deserialize_with = "whole::some_effort")]
    #[schema(value_type = Option<ReasoningEffort>)]
    pub reasoning_effort: Option<Option<ReasoningEffort>>,
    /// The provider the next runs use (an id from `GET /api/providers`; 422 when none has that
    /// id); null goes back to the default provider. Changing it without `model` also puts the
    /// model back to the new provider's default.
    #[serde(default, deserialize_with = "whole::some_string")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 32, pattern = "^[a-z0-9][a-z0-9_-]*$")]
    pub provider: Option<Option<String>>,
    /// The model the next runs use (1 to 200 characters, no control characters, not blank);
    /// null goes back to the provider's default.
    #[serde(default, deserialize_with = "whole::some_string")]
    #[schema(
        value_type = Option<String>,
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    pub model: Option<Option<String>>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionPage {
    pub data: Vec<Session>,
    /// Pass as `cursor` to get the next page; null at the end.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"text": "Run the tests and fix what fails"})))]
pub struct PostMessageParams {
    /// The prompt (not blank, at most 200,000 characters). A leading `!` runs the rest as a
    /// shell command through the same gate.
    #[schema(
        min_length = 1,
        max_length = 200000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub text: String,
    /// Images sent with the prompt (pasted or dropped into the composer): at most 8, each at
    /// most 5 MiB. Only for models that take images (422 otherwise), and not with a `!command`.
    #[serde(default, deserialize_with = "whole::objects")]
    #[schema(max_items = 8)]
    pub images: Vec<ImageInput>,
    /// Limits for this run on top of the server's start flags (what `tradewind run` sends
    /// through a running server: its own flags). Without them the run has the server's.
    /// (An object: a list in its place is refused, as the schema says.)
    #[serde(default, deserialize_with = "whole::opt_object")]
    pub limits: Option<RunLimits>,
    /// When a run is working on the session: `queue` (the default) waits for it to end;
    /// `steer` gives the message to that run at its next tool boundary (after the calls it is
    /// making), so it changes course mid-turn. A steered message that the run does not reach
    /// (it answers without another tool call, or stops) runs next, as a queued one would.
    /// `!command`s are always queued.
    #[serde(default)]
    pub delivery: Delivery,
}

/// How a message sent while a run works reaches it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// After the active run, as its own run.
    #[default]
    Queue,
    /// Into the active run at its next tool boundary.
    Steer,
}

/// What one run may do at most, on top of the server's own ceiling: an effect is allowed only
/// when both allow it. `interactive: false` makes every effect that would ask fail at once
/// instead of waiting for an answer in the web app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunLimits {
    #[serde(default)]
    pub write: bool,
    #[serde(default)]
    pub process: bool,
    #[serde(default)]
    pub external: bool,
    #[serde(default)]
    pub read_only: bool,
    /// `--yolo` of the caller: only with the server's own `--yolo` too.
    #[serde(default)]
    pub yolo: bool,
    #[serde(default)]
    pub interactive: bool,
}

/// The image formats a prompt may carry (those OpenAI and Anthropic both accept).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
pub enum ImageType {
    #[serde(rename = "image/png")]
    #[strum(serialize = "image/png")]
    Png,
    #[serde(rename = "image/jpeg")]
    #[strum(serialize = "image/jpeg")]
    Jpeg,
    #[serde(rename = "image/gif")]
    #[strum(serialize = "image/gif")]
    Gif,
    #[serde(rename = "image/webp")]
    #[strum(serialize = "image/webp")]
    Webp,
}

impl ImageType {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One image of a prompt.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageInput {
    pub media_type: ImageType,
    /// The image file, base64 (standard alphabet, padded); its bytes must be an image of
    /// `media_type`.
    #[schema(
        min_length = 4,
        max_length = 6990508,
        pattern = "^[A-Za-z0-9+/]*={0,2}$"
    )]
    pub data: String,
    /// The file name it had, for the transcript (at most 200 characters).
    #[schema(max_length = 200)]
    pub name: Option<String>,
}

/// An image a prompt carried, as the transcript shows it (`GET /api/attachments/{id}` serves
/// its bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ImageRef {
    /// The SHA-256 of its bytes, hex.
    pub id: String,
    pub media_type: ImageType,
    pub bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"run_id": "01JD8Q3W5V6X7Y8Z9A0B1C2D3E"})))]
pub struct PostMessageResponse {
    pub run_id: RunId,
}

/// Who wrote a stored message.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum MessageRole {
    /// A prompt (or the output of a `!command`).
    User,
    /// The model: text, reasoning, tool calls.
    Assistant,
    /// A tool's result, for the call `call_id`.
    Tool,
    /// A compaction: from here on the model sees `text` (a summary of what came before) and the
    /// `kept` messages before this one, not the rest.
    Summary,
    /// Old tool outputs pruned: every tool result before the last `kept` messages is cut to its
    /// first line.
    Prune,
}

/// The content of a stored message (fields absent when empty; more may be added).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MessageParts {
    /// The message text (user prompt, assistant answer, or the tool result the model saw).
    #[serde(default)]
    pub text: String,
    /// The assistant's reasoning, when the model streams it.
    #[serde(default)]
    pub reasoning: String,
    /// The assistant's tool calls.
    #[serde(default)]
    pub tool_calls: Vec<MessageToolCall>,
    /// For a `tool` message: the call it answers.
    #[serde(default)]
    pub call_id: CallId,
    /// For a `tool` message: the tool's name.
    #[serde(default)]
    pub name: String,
    /// For a `summary`: how many messages before it the model still sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<u64>,
    /// For a `summary`: the most characters a kept tool result keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_limit: Option<u64>,
}

/// A tool call as the model made it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MessageToolCall {
    pub id: CallId,
    pub name: String,
    /// The arguments, as the JSON text the model produced.
    pub arguments: String,
}

/// A stored conversation message (what the model sees).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Message {
    pub id: MessageId,
    pub run_id: Option<RunId>,
    pub role: MessageRole,
    /// What the message holds; which fields are set depends on the role.
    #[schema(value_type = MessageParts)]
    pub parts: serde_json::Value,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MessagePage {
    pub data: Vec<Message>,
    pub next_cursor: Option<String>,
}

/// Token usage (of a model call, a run, a session…) and what it cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"input_tokens": 5120, "output_tokens": 840, "cached_input_tokens": 4096, "reasoning_tokens": 0, "cost_usd": 0.00615})))]
pub struct Usage {
    /// Every prompt token, cached ones included.
    pub input_tokens: u64,
    /// Every generated token, reasoning included.
    pub output_tokens: u64,
    /// Of `input_tokens`, those read from the provider's prompt cache (billed lower).
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Of `output_tokens`, those spent on reasoning, as the provider reports them.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// What it cost in US dollars by the model's price; null when no price is known for a
    /// model that was used (a local model, an unknown name: set `models.<provider>/<model>.price`).
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// Counted from the text's length: the server reported no usage (local servers often
    /// stream none). Absent when every count is the provider's own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    /// Add another usage: tokens add up; the cost is known only while every part's is (a
    /// part without tokens counts as free).
    pub fn add(&mut self, o: &Usage) {
        let cost = |u: &Usage| {
            if u.input_tokens + u.output_tokens == 0 {
                Some(u.cost_usd.unwrap_or(0.0))
            } else {
                u.cost_usd
            }
        };
        self.cost_usd = match (cost(self), cost(o)) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cached_input_tokens += o.cached_input_tokens;
        self.reasoning_tokens += o.reasoning_tokens;
        self.estimated |= o.estimated;
    }
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RunStatus {
    Queued,
    Running,
    Completed,
    Failed,
    Cancelled,
    /// The server stopped while the run was active.
    Interrupted,
}

/// What started a run.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RunTrigger {
    Prompt,
    /// A user `!command`.
    Command,
    /// An approved plan starting the implementation turn.
    Plan,
    /// Background tasks ended.
    Wakeup,
    /// The user resumed a run that was interrupted, cancelled or failed.
    Resume,
    /// The user asked to compact the conversation (`/compact`): no answer, only a summary.
    Compact,
    /// The session's goal goes on by itself (a continuation while budget remains).
    Goal,
    /// A subagent's input from its parent session (`task` or `send_message`).
    Task,
    /// A `Stop` hook asked for one more turn (`hooks.maxStopTurns` in a row at most).
    Hook,
}

/// What kind of prompt waits for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PromptKindName {
    /// Answer with `POST /api/approvals/{id}`.
    Approval,
    /// Answer with `POST /api/questions/{id}`.
    Question,
    /// Answer with `POST /api/plans/{id}/decision`.
    Plan,
}

/// Where a child's prompt stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChildPendingStatus {
    Pending,
    Answered,
    /// Not answered in time, or its run stopped.
    Expired,
}

#[cfg(test)]
mod limits_tests {
    use super::PostMessageParams;

    #[test]
    fn limits_are_an_object_or_nothing() {
        let ok: Result<PostMessageParams, _> =
            serde_json::from_str(r#"{"text": "x", "limits": {"write": true}}"#);
        assert!(ok.is_ok_and(|p| p.limits.is_some_and(|l| l.write)));
        assert!(
            serde_json::from_str::<PostMessageParams>(r#"{"text": "x", "limits": null}"#).is_ok()
        );
        assert!(
            serde_json::from_str::<PostMessageParams>(r#"{"text": "x", "limits": []}"#).is_err()
        );
    }
}
