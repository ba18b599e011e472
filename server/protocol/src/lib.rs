//! The wire protocol: every type that crosses HTTP or the WebSocket, with its OpenAPI schema.
//!
//! Rules: snake_case everywhere, ULID string ids, `*_at` timestamps in Unix milliseconds, cursor
//! pagination (`data` + `next_cursor`), tagged enums (`type`). Events are stored as
//! `(type, data)` rows apart from these enums (see `store::events`), so clients must ignore event
//! types they do not know.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

mod events;
mod ws;
pub use events::*;
pub use ws::*;

/// A text that is not one of its enum's values (e.g. an unknown status read from the database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown {} `{}`", self.what, self.value)
    }
}

impl std::error::Error for UnknownValue {}

/// The enums that are also stored as text: `as_str` is the serde name (one source: strum's
/// `snake_case`, the same as serde's), `TryFrom<String>` reads it back or names the bad value.
macro_rules! text_enums {
    ($($name:ident: $what:literal),+ $(,)?) => {$(
        impl $name {
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }
        impl TryFrom<String> for $name {
            type Error = UnknownValue;
            fn try_from(s: String) -> Result<Self, UnknownValue> {
                s.parse().map_err(|_| UnknownValue { what: $what, value: s })
            }
        }
    )+};
}

text_enums!(
    Agent: "agent",
    Mode: "mode",
    Effect: "effect",
    SessionStatus: "session status",
    RunStatus: "run status",
    RunTrigger: "run trigger",
    ApprovalScope: "approval scope",
    ApprovalDecision: "approval decision",
    PlanDecision: "plan decision",
    PolicyDecision: "policy decision",
    TaskStatus: "task status",
    TaskStopper: "task stopper",
    ReasoningEffort: "reasoning effort",
    GoalStatus: "goal status",
);

/// How long a reasoning model thinks before it answers (sent as OpenAI's `reasoning_effort`;
/// for models that take it — o-series, gpt-5, and OpenAI-compatible servers that accept it).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
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
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

/// Which agent drives a session.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
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
pub enum Agent {
    /// Reads, writes and runs (within the policy).
    Build,
    /// Read-only planner that ends with `exit_plan`.
    Plan,
}

/// Permission mode of a session: `ask` (only reads run without asking), `auto` (writes too),
/// `full` (processes and the network too; the categories that never loosen still ask).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
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
pub enum Mode {
    /// write, process and external ask.
    Ask,
    /// write allowed; process and external ask.
    Auto,
    /// everything allowed (within the startup ceiling).
    Full,
}

/// What a tool call does to the world.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
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
pub enum Effect {
    /// No side effects.
    Read,
    /// Changes workspace files.
    Write,
    /// Runs arbitrary processes.
    Process,
    /// Network tools, MCP, unknown or plugin tools.
    External,
    /// Tradewind's own state only.
    Internal,
}

/// What a session is doing, derived from its runs and pending prompts.
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
pub enum SessionStatus {
    Idle,
    Running,
    /// A run waits for the user (approval, question or plan decision).
    Waiting,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"id": "01JD8Q2N4M5K6J7H8G9F0E1D2C", "title": "Fix the flaky test", "workspace": "/home/me/project", "agent": "build", "mode": "ask", "archived": false, "status": "running", "last_seq": 42, "created_at": 1764547200000_i64, "updated_at": 1764547260000_i64})))]
pub struct Session {
    pub id: String,
    pub title: String,
    pub workspace: String,
    pub agent: Agent,
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
    pub parent_id: Option<String>,
    /// The session has a goal, in any status (`GET /api/sessions/{id}/goal` reads it; without
    /// one that answers 404).
    #[serde(default)]
    pub has_goal: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
pub struct ForkedFrom {
    pub session: String,
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
    pub run_id: Option<String>,
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
    pub agent: Option<Agent>,
    pub mode: Option<Mode>,
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
    pub agent: Option<Agent>,
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
    pub run_id: String,
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
    pub call_id: String,
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
    pub id: String,
    pub name: String,
    /// The arguments, as the JSON text the model produced.
    pub arguments: String,
}

/// A stored conversation message (what the model sees).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Message {
    pub id: String,
    pub run_id: Option<String>,
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

// ---- Goals ----

/// Where a goal stands. `active` and `paused` are live; the others ended it.
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
pub enum GoalStatus {
    /// The agent works on it: a new turn starts by itself after each one.
    Active,
    /// The user paused it (or stopped a run of it); it waits to be resumed.
    Paused,
    /// The agent reported it done, with evidence.
    Complete,
    /// The agent reported it blocked on consecutive turns (or a permission was denied).
    Blocked,
    /// A budget (turns, tokens, minutes) ran out; raise it and resume to go on.
    BudgetExhausted,
}

/// What a goal may use before it stops. Omitted parts take the defaults (50 turns, 120
/// minutes, 2,000,000 tokens); the session's spend cap holds as always.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalBudget {
    /// Model turns (runs), 1 to 1000.
    #[serde(default, deserialize_with = "whole::opt_i64")]
    #[schema(minimum = 1, maximum = 1000)]
    pub turns: Option<i64>,
    /// Tokens in and out, 1,000 to 100,000,000.
    #[serde(default, deserialize_with = "whole::opt_i64")]
    #[schema(minimum = 1000, maximum = 100_000_000)]
    pub tokens: Option<i64>,
    /// Minutes of work (the runs' own time), 1 to 1440.
    #[serde(default, deserialize_with = "whole::opt_i64")]
    #[schema(minimum = 1, maximum = 1440)]
    pub minutes: Option<i64>,
}

/// A budget and what of it was used.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GoalBudgets {
    pub turns: i64,
    pub tokens: i64,
    pub minutes: i64,
    pub used_turns: i64,
    pub used_tokens: i64,
    /// Minutes used, to the second.
    pub used_minutes: f64,
}

/// What a piece of evidence is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    File,
    Test,
    Log,
    Command,
    /// A permission was denied: blocks the goal at once.
    Denied,
    Other,
}

/// One piece of evidence: a path, a test run, a log line…
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub kind: EvidenceKind,
    /// 1 to 2,000 characters.
    pub detail: String,
}

/// What the agent reported (`update_goal`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GoalReport {
    /// `complete` or `blocked`.
    pub status: GoalStatus,
    pub summary: String,
    pub evidence: Vec<Evidence>,
    /// The goal turn it was made in (1 = the first).
    pub turn: i64,
    pub at: i64,
}

/// A session's goal: the agent works towards it, turn after turn, until it is done, blocked,
/// paused or out of budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Goal {
    pub id: String,
    pub session: String,
    pub objective: String,
    pub status: GoalStatus,
    pub budget: GoalBudgets,
    /// Consecutive turns that reported `blocked`, and how many stop the goal.
    pub blocked_streak: i64,
    pub blocked_repeats: i64,
    /// Why it stopped or paused, in words (null while active).
    pub reason: Option<String>,
    /// Every report, oldest first; the last one's evidence is the goal's.
    pub reports: Vec<GoalReport>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `POST /api/sessions/{id}/goal`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"objective": "Make `cargo test` pass", "budget": {"turns": 20, "minutes": 60}})))]
pub struct SetGoalParams {
    /// What to achieve, 1 to 4,000 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 4000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub objective: String,
    #[serde(default, deserialize_with = "whole::opt_object")]
    pub budget: Option<GoalBudget>,
}

/// `PATCH /api/sessions/{id}/goal`: pause, resume, edit, raise the budget.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"status": "active", "budget": {"turns": 80}})))]
pub struct PatchGoalParams {
    /// `paused` pauses it; `active` resumes it (a goal that ended resumes too, when its budget
    /// allows: raise the budget in the same call).
    pub status: Option<GoalResume>,
    /// The new objective (same rules as when set).
    #[schema(
        min_length = 1,
        max_length = 4000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub objective: Option<String>,
    /// Parts given replace the budget's; a budget below what was used stops the goal at the
    /// end of the current turn.
    #[serde(default, deserialize_with = "whole::opt_object")]
    pub budget: Option<GoalBudget>,
}

/// A note the agent keeps (`memory_write`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Memory {
    pub id: String,
    /// `workspace` (that workspace's sessions see it) or `user` (every workspace).
    pub scope: String,
    /// The workspace of a `workspace` memory; empty for the user's.
    pub workspace: String,
    pub key: Option<String>,
    pub text: String,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MemoryList {
    pub data: Vec<Memory>,
}

/// `GET /api/memories`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MemoryQuery {
    /// The workspace whose memories (and the user's) to list; absent: the server's workspace.
    pub workspace: Option<String>,
    /// Words to look for (any of them, best first); absent or empty: all, newest first.
    pub q: Option<String>,
}

/// `PATCH /api/memories/{id}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchMemoryParams {
    /// The new text, 1 to 2,000 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub text: String,
}

/// What `PATCH …/goal` may set `status` to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoalResume {
    Active,
    Paused,
}

/// What `GET /api/usage` groups by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UsageGroupBy {
    #[default]
    Session,
    /// `<provider>/<model>`.
    Model,
    /// The UTC day, `YYYY-MM-DD`.
    Day,
}

/// One group of a usage report.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UsageRow {
    /// A session id, `<provider>/<model>`, or a UTC day `YYYY-MM-DD`.
    pub key: String,
    /// The session's title (a deleted session: null).
    pub title: Option<String>,
    pub calls: u64,
    /// Calls of a model with no known price: their cost is not in `usage.cost_usd`.
    pub unpriced_calls: u64,
    pub usage: Usage,
}

/// `GET /api/usage`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"group": "day", "from": 1764547200000_i64, "to": 1764633600000_i64, "rows": [{"key": "2025-12-01", "title": null, "calls": 12, "unpriced_calls": 0, "usage": {"input_tokens": 51200, "output_tokens": 8400, "cached_input_tokens": 40960, "reasoning_tokens": 0, "cost_usd": 0.0615}}], "total": {"key": "total", "title": null, "calls": 12, "unpriced_calls": 0, "usage": {"input_tokens": 51200, "output_tokens": 8400, "cached_input_tokens": 40960, "reasoning_tokens": 0, "cost_usd": 0.0615}}})))]
pub struct UsageReport {
    pub group: UsageGroupBy,
    /// Unix ms, inclusive.
    pub from: i64,
    /// Unix ms, exclusive.
    pub to: i64,
    pub rows: Vec<UsageRow>,
    pub total: UsageRow,
}

/// How full a session's context window was at its latest model call.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ContextFill {
    /// `<provider>/<model>`.
    pub model: String,
    pub context_tokens: u64,
    pub context_window: u64,
}

/// `GET /api/sessions/{id}/usage`: what a session has used and cost, its cap, and its context.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionUsage {
    pub session_id: String,
    pub calls: u64,
    pub unpriced_calls: u64,
    pub usage: Usage,
    /// The cap that applies to this session (its own, else the server's); null: none.
    pub spend_cap_usd: Option<f64>,
    /// `session` (its own cap) or `server` (`spend.sessionUsd` / `PUT /api/usage/caps`).
    pub spend_cap_source: Option<String>,
    /// What every session has spent today (UTC), and the daily cap.
    pub day_spent_usd: f64,
    pub day_cap_usd: Option<f64>,
    /// Null until the session's first model call.
    pub context: Option<ContextFill>,
}

/// Server-wide spend caps in USD (`GET`/`PUT /api/usage/caps`); null: no cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"session_usd": 5.0, "day_usd": 20.0})))]
pub struct SpendCaps {
    /// Per session, unless a session has its own.
    #[schema(minimum = 0, maximum = 1_000_000)]
    pub session_usd: Option<f64>,
    /// All sessions together per UTC day.
    #[schema(minimum = 0, maximum = 1_000_000)]
    pub day_usd: Option<f64>,
}

/// A prompt template of the workspace (`.tradewind/commands/<name>.md`), run as `/name args`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PromptCommand {
    pub name: String,
    /// `description:` of the front matter, else the first line of text.
    pub description: String,
    /// The prompt, front matter removed; `$ARGUMENTS` stands for what follows the command.
    pub template: String,
    /// Whether the template uses `$ARGUMENTS`.
    pub takes_arguments: bool,
}

/// `GET /api/sessions/{id}/commands`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"data": [{"name": "review", "description": "Review the diff", "template": "Review $ARGUMENTS carefully.", "takes_arguments": true}], "skipped": []})))]
pub struct PromptCommands {
    /// By name.
    pub data: Vec<PromptCommand>,
    /// Files of the folder that were left out, and why.
    pub skipped: Vec<String>,
}

/// One search hit (`GET /api/search`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SearchHit {
    pub session_id: String,
    pub title: String,
    /// The event the text is in: open the session there.
    pub seq: i64,
    /// The event's type: `user_message`, `message_complete`, `tool_call` or `tool_result`.
    pub kind: String,
    /// The matching passage (`…` where it is cut).
    pub snippet: String,
    /// The matched words in `snippet`: `[start, end)` in UTF-16 code units (JavaScript string
    /// indices).
    pub highlights: Vec<[u32; 2]>,
    pub created_at: i64,
}

/// `GET /api/search`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"data": [{"session_id": "01JD8Q2N4M5K6J7H8G9F0E1D2C", "title": "Fix the flaky test", "seq": 42, "kind": "tool_result", "snippet": "…thread 'flaky' panicked at tests/ws.rs…", "highlights": [[8, 13]], "created_at": 1764547260000_i64}]})))]
pub struct SearchResults {
    /// Newest first.
    pub data: Vec<SearchHit>,
}

/// `POST /api/sessions/{id}/revert`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"message_id": "01JD8Q3W5V6X7Y8Z9A0B1C2D3E", "dry_run": true})))]
pub struct RevertParams {
    /// The `message_id` of a `user_message` event: the workspace goes back to how it was
    /// before that message, and that turn and the later ones are taken back.
    #[schema(min_length = 1, max_length = 64)]
    pub message_id: String,
    /// Only say what would change (and what was edited by hand since); change nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Revert even over files changed by hand since the agent's last step.
    #[serde(default)]
    pub force: bool,
}

/// `POST /api/sessions/{id}/redo`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RedoParams {
    #[serde(default)]
    pub dry_run: bool,
    /// Redo even over files changed by hand since the revert.
    #[serde(default)]
    pub force: bool,
}

/// A file a revert (or redo) changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RevertFile {
    /// Relative to the workspace.
    pub path: String,
    /// `restored` (written back as it was) or `deleted` (it did not exist then).
    pub action: String,
}

/// What a revert or redo did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevertResult {
    pub applied: bool,
    /// The revert (null for a dry run).
    pub revert_id: Option<String>,
    pub files: Vec<RevertFile>,
    /// Files changed by hand since the agent's last step that this overwrites (a revert with
    /// any is refused without `force`).
    pub hand_edited: Vec<String>,
    /// The runs the model no longer sees (a revert), or sees again (a redo).
    pub runs: Vec<String>,
}

/// The format tag of an exported session (`tradewind sessions export --format json`).
pub const SESSION_EXPORT_FORMAT: &str = "tradewind-session/1";

/// What a session export holds of the session itself (the other fields of a `Session` are
/// ignored on import).
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct ExportedSession {
    pub title: String,
    /// Used when it is still a directory this server may use; else the server's workspace.
    #[serde(default)]
    pub workspace: Option<String>,
    pub agent: Agent,
    pub mode: Mode,
}

/// A message of a session export (as `GET /api/sessions/{id}/messages` lists it).
#[derive(Debug, Clone, Deserialize)]
pub struct ExportedMessage {
    #[serde(default)]
    pub run_id: Option<String>,
    pub role: MessageRole,
    pub parts: MessageParts,
    pub created_at: i64,
}

/// `POST /api/sessions/import`: what `tradewind sessions export --format json` writes.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct SessionExport {
    /// `tradewind-session/1`.
    #[schema(pattern = "^tradewind-session/1$")]
    pub format: String,
    pub session: ExportedSession,
    /// Every event, in order, each an event frame as `GET /api/sessions/{id}/events` returns it
    /// (renumbered from 1 on import). An item that is not one is skipped and counted.
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Every message the model saw, in order, as `GET /api/sessions/{id}/messages` lists them.
    /// An item that is not one is skipped and counted.
    #[schema(value_type = Vec<Object>)]
    pub messages: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// What `POST /api/sessions/import` made.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImportResult {
    pub session: Session,
    pub events: u64,
    pub messages: u64,
    /// Items of the export that were not events or messages this server can read.
    pub skipped_events: u64,
    pub skipped_messages: u64,
}

/// Why a conversation was compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The prompt passed the threshold (`agent.compactThreshold` of the window).
    Auto,
    /// The user's `/compact`.
    Manual,
    /// The provider refused the prompt as too long; compacted and retried once.
    Overflow,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WireError {
    pub code: String,
    pub message: String,
}

/// A display part of a tool result, for the UI only (the model sees the text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Unified patch of a write or edit (`/dev/null` for new files).
    Diff {
        path: String,
        lang: String,
        patch: String,
        /// Cut at a line boundary after 200 KB.
        truncated: bool,
    },
    /// A command's output: stdout then stderr (the last 256 KB).
    Terminal {
        command: String,
        stdout: String,
        stderr: String,
        exit_code: Option<i32>,
        duration_ms: u64,
        truncated: bool,
    },
    /// The agent's checklist as `todo_write` set it (the whole list; the latest one counts).
    Todos { items: Vec<TodoItem> },
    /// An image a tool returned (an MCP server's), base64; at most 1 MiB decoded. The model
    /// sees a line naming it.
    Image { mime_type: String, data: String },
    /// Rows under named columns (an MCP result `{columns|headers, rows}`); cells as text.
    Table {
        columns: Vec<String>,
        rows: Vec<Vec<String>>,
        /// Rows left out (more than 500).
        truncated: bool,
    },
    /// Names and values (an MCP result that is a flat JSON object).
    KeyValue { entries: Vec<KeyValueEntry> },
    /// A tree (an MCP result `{nodes: [{label, children?, meta?}]}`).
    Tree { nodes: Vec<TreeNode> },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct KeyValueEntry {
    pub key: String,
    /// Scalars as written (`true`, `21`, `text`).
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(no_recursion)]
pub struct TreeNode {
    pub label: String,
    /// A short note beside the label.
    pub meta: Option<String>,
    pub children: Vec<TreeNode>,
}

/// A workspace file matching a query (`GET /api/sessions/{id}/files`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FileMatch {
    /// Relative to the workspace, `/`-separated; a directory ends with `/`.
    pub path: String,
    /// Higher is better (only comparable within one answer).
    pub score: u32,
    /// Positions (in characters) of `path` the query matched, ascending: for highlighting.
    pub indices: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FileMatches {
    /// Best first.
    pub data: Vec<FileMatch>,
    /// Files and directories in the workspace's list.
    pub total: u64,
    /// The workspace has more than 200,000 entries: only the first were listed.
    pub truncated: bool,
}

/// One item of the agent's checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// What to do, in a few words (1 to 500 characters).
    pub text: String,
    pub status: TodoStatus,
}

/// Where a checklist item stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Done,
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
pub enum PolicyDecision {
    Allow,
    Ask,
    Deny,
}

/// What an approval covers.
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
pub enum ApprovalScope {
    /// The tool's effect (once or for the session).
    Effect,
    /// A directory outside every allowed root (once, the directory for the session, or deny).
    Directory,
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
pub enum ApprovalDecision {
    Once,
    Session,
    Directory,
    Deny,
    /// "Allow commands like this" for this session: stores the offered argv prefix as a rule.
    Prefix,
    /// The same rule for every session of this workspace.
    PrefixWorkspace,
}

/// How an approval ended: the user's answer, or `expired` (it timed out, or the server restarted
/// while it waited).
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
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ApprovalOutcome {
    Once,
    Session,
    Directory,
    Deny,
    Prefix,
    PrefixWorkspace,
    Expired,
}

impl From<ApprovalDecision> for ApprovalOutcome {
    fn from(d: ApprovalDecision) -> Self {
        match d {
            ApprovalDecision::Once => Self::Once,
            ApprovalDecision::Session => Self::Session,
            ApprovalDecision::Directory => Self::Directory,
            ApprovalDecision::Deny => Self::Deny,
            ApprovalDecision::Prefix => Self::Prefix,
            ApprovalDecision::PrefixWorkspace => Self::PrefixWorkspace,
        }
    }
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"decision": "once"})))]
pub struct ApprovalParams {
    pub decision: ApprovalDecision,
}

/// A multiple-choice question of `ask_user_question`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub question: String,
    /// A short label for the question (a chip in the UI).
    #[serde(default)]
    pub header: Option<String>,
    #[serde(default)]
    pub multi_select: bool,
    /// 2 to 4 options.
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<QuestionOption>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
    /// A suggestion, never imposed; at most one per question.
    #[serde(default)]
    pub recommended: bool,
}

/// How the user answered a plan (`unavailable`: no interactive UI, or --read-only).
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
pub enum PlanDecision {
    Approved,
    Skipped,
    Feedback,
    Unavailable,
}

impl PlanDecision {
    /// What the tool result tells the model about the user's decision on a plan.
    pub fn message(self) -> &'static str {
        match self {
            PlanDecision::Approved => {
                "The build agent will implement exactly this plan: answer in one sentence and stop."
            }
            PlanDecision::Skipped => {
                "Stay in plan mode; do not call exit_plan again unless you are asked to."
            }
            PlanDecision::Feedback => "Revise the plan and call exit_plan again.",
            PlanDecision::Unavailable => "Give the full plan as your final answer.",
        }
    }
}

/// An approval waiting for the user.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PendingApproval {
    /// The session that asks: this one, or one of its subagents.
    pub session: String,
    pub approval_id: String,
    pub run_id: String,
    pub call_id: String,
    pub tool: String,
    pub effect: Effect,
    #[schema(value_type = Object)]
    pub input: serde_json::Value,
    pub reason: String,
    pub scope: ApprovalScope,
    pub created_at: i64,
    /// Every reason this approval covers (as in `approval_requested`).
    #[serde(default)]
    pub reasons: Vec<String>,
    /// Deny-list mentions, control characters, dangerous categories.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// For `directory` scope: the directory the answer covers.
    #[serde(default)]
    pub directory: Option<String>,
    /// "Allow commands like this": the argv prefix a `prefix` / `prefix_workspace` answer
    /// stores, when offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PendingQuestion {
    /// The session that asks: this one, or one of its subagents.
    pub session: String,
    pub question_id: String,
    pub run_id: String,
    pub questions: Vec<Question>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PendingPlan {
    /// The session that asks: this one, or one of its subagents.
    pub session: String,
    pub plan_id: String,
    pub run_id: String,
    pub artifact_id: String,
    pub revision: i64,
    pub title: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PendingItems {
    pub approvals: Vec<PendingApproval>,
    pub questions: Vec<PendingQuestion>,
    pub plans: Vec<PendingPlan>,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"answers": [["PostgreSQL"], null]})))]
pub struct AnswerParams {
    /// One entry per question: the chosen option labels, or null to skip that question.
    pub answers: Vec<Option<Vec<String>>>,
}

/// How the user answers a pending plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanAnswer {
    /// Implement it: the session switches to build and the implementation run starts.
    Approved,
    /// Revise it, with `feedback`.
    Feedback,
    /// Not now: stay in plan mode.
    Skipped,
}

impl From<PlanAnswer> for PlanDecision {
    fn from(a: PlanAnswer) -> PlanDecision {
        match a {
            PlanAnswer::Approved => PlanDecision::Approved,
            PlanAnswer::Feedback => PlanDecision::Feedback,
            PlanAnswer::Skipped => PlanDecision::Skipped,
        }
    }
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"decision": "feedback", "feedback": "Keep the old API working too."})))]
pub struct PlanDecisionParams {
    /// `approved`, `feedback` (with `feedback` text) or `skipped`.
    pub decision: PlanAnswer,
    pub feedback: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"id": "01JD8Q3W5V6X7Y8Z9A0B1C2D3E", "session_id": "01JD8Q2N4M5K6J7H8G9F0E1D2C", "status": "completed", "trigger": "prompt", "agent": "build", "error": null, "usage": {"input_tokens": 5120, "output_tokens": 840}, "created_at": 1764547200000_i64, "started_at": 1764547200010_i64, "finished_at": 1764547231000_i64})))]
pub struct RunInfo {
    pub id: String,
    pub session_id: String,
    pub status: RunStatus,
    pub trigger: RunTrigger,
    pub agent: Agent,
    /// Why the run failed or was interrupted; null otherwise.
    pub error: Option<WireError>,
    /// Tokens used; null until the run ends.
    pub usage: Option<Usage>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Health {
    pub status: String,
    pub version: String,
    /// A password is set, so the sign-in page offers a password field; otherwise the way in is
    /// a one-time link (`tradewind link` on the server's machine).
    pub password_login: bool,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginParams {
    /// At most 1024 bytes.
    #[schema(max_length = 1024)]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WhoAmI {
    /// `cookie` (browser login), `bearer` (access token or API token).
    pub kind: String,
    pub login_session_id: Option<String>,
    pub token_id: Option<String>,
    pub password_set: bool,
}

/// A diagram of a pending plan that the browser could not render.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderError {
    /// The diagram's id in the plan revision (1 to 80 characters).
    #[schema(min_length = 1, max_length = 80)]
    pub diagram_id: String,
    /// Mermaid's error message (not blank, at most 2,000 characters).
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub message: String,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderErrorsParams {
    /// 1 to 10 errors.
    #[schema(min_items = 1, max_items = 10)]
    pub errors: Vec<RenderError>,
}

/// An input waiting behind a session's active run.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QueueItem {
    /// The id of the run it will become.
    pub id: String,
    /// 1 = next.
    pub position: u32,
    pub trigger: RunTrigger,
    pub text: String,
    /// Milliseconds since the epoch.
    pub queued_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QueueList {
    pub data: Vec<QueueItem>,
}

/// A queued input's new text.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchQueueItem {
    /// The same rules as a prompt: not blank, at most 200,000 characters.
    #[schema(
        min_length = 1,
        max_length = 200000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub text: String,
}

/// `POST /api/runs/{id}/cancel` body (optional).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelParams {
    /// Also cancel every input queued behind this run on its session.
    #[serde(default)]
    pub drop_queue: bool,
}

/// A signed-in browser (one login session).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Device {
    pub id: String,
    /// A readable name from the user agent, e.g. "Firefox on Android".
    pub name: String,
    pub user_agent: Option<String>,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub last_seen_at: i64,
    pub last_ip: Option<String>,
    /// When the sign-in ends however active it is (`auth.maxDays`); it also ends after
    /// `auth.idleDays` unseen.
    pub expires_at: i64,
    /// The device making this request.
    pub current: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DeviceList {
    pub data: Vec<Device>,
}

/// Web Push: the server's public key and the browsers subscribed to it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushInfo {
    /// The VAPID public key (base64url, uncompressed P-256 point): the `applicationServerKey`
    /// a browser subscribes with.
    pub public_key: String,
    pub data: Vec<PushSubscription>,
}

/// A browser subscribed to Web Push. Its endpoint is a capability and is never shown back;
/// `origin` names its push service.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushSubscription {
    pub id: String,
    /// The push service (scheme, host and port of the endpoint).
    pub origin: String,
    /// A readable name from the browser's user agent.
    pub name: String,
    pub created_at: i64,
    pub last_sent_at: Option<i64>,
    /// Why the last delivery failed (cleared by the next success).
    pub last_error: Option<String>,
    /// Registered by the device making this request.
    pub current: bool,
}

/// A browser's subscription as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PushSubscribeParams {
    /// The push service URL (https; plain http only on loopback), at most 2048 characters.
    pub endpoint: String,
    pub keys: PushKeys,
    /// Ignored (browsers send it; push services renew through the browser).
    #[serde(default)]
    pub expiration_time: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushKeys {
    /// The browser's P-256 public key (base64url, 65 bytes).
    pub p256dh: String,
    /// The browser's authentication secret (base64url, 16 bytes).
    pub auth: String,
}

/// What a test notification did.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushTestResult {
    /// Subscriptions whose push service took it.
    pub sent: u32,
    pub failed: Vec<PushFailure>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushFailure {
    pub subscription: String,
    pub error: String,
}

/// A one-time sign-in link for another device ("Add a device"): single use, 5 minutes.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DeviceLink {
    pub url: String,
    pub expires_at: i64,
    /// The link as a QR code (SVG document), for a phone's camera.
    pub qr_svg: String,
    /// False when the server listens on loopback only and has no publicUrl (e.g. a tunnel or a
    /// proxy in front): another device cannot reach it.
    pub reachable_from_other_devices: bool,
}

/// How the server speaks HTTPS.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TlsInfo {
    /// `off`, `auto` (a local certificate authority in the state dir) or `files`
    /// (`--tls-cert`/`--tls-key`).
    pub mode: String,
    /// `auto`: SHA-256 of the local CA certificate, `AB:CD:…`, to compare on a phone.
    pub ca_fingerprint: Option<String>,
    /// `auto`: the page with the CA certificate and how to trust it on each platform.
    pub install_url: Option<String>,
    /// The address other devices use (publicUrl, else the host name, else a LAN address).
    pub url: String,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"name": "ci"})))]
pub struct CreateTokenParams {
    /// A label for the token: 1 to 100 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub name: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedToken {
    pub id: String,
    pub name: String,
    /// Shown once; only its hash is stored.
    pub token: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiToken {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiTokenList {
    pub data: Vec<ApiToken>,
}

/// The server's startup ceiling and switches, for the UI's permission menu.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ServerConfig {
    pub version: String,
    pub workspace: String,
    pub ceiling: CeilingInfo,
    pub read_only: bool,
    pub yolo: bool,
    pub extra_roots: Vec<String>,
    pub sandbox: SandboxInfo,
    pub tls: TlsInfo,
}

/// The process sandbox: whether commands run confined by Landlock, and why not.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SandboxInfo {
    /// Every command the agent starts runs confined (files and, with `network: deny`, TCP).
    pub active: bool,
    /// `allow` or `deny`.
    pub network: String,
    /// Why the sandbox is off, or what it cannot protect (a root holding credentials).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CeilingInfo {
    pub write: bool,
    pub process: bool,
    pub external: bool,
}

// ---- Plans and artifacts ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlanDiagram {
    pub id: String,
    pub title: String,
    pub explanation: String,
    pub section: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    pub mermaid: String,
    /// `new`, `updated` or `unchanged` against the previous revision.
    pub mark: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DroppedDiagram {
    pub id: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ArtifactFile {
    pub path: String,
    pub size: u64,
}

/// What a revision holds (stored as the artifact's meta and sent in `plan_proposed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlanRevision {
    pub title: Option<String>,
    pub revision: i64,
    pub hash: String,
    pub plan: String,
    pub diagrams: Vec<PlanDiagram>,
    pub removed: Vec<String>,
    pub dropped: Vec<DroppedDiagram>,
    pub files: Vec<ArtifactFile>,
}

// ---- Background tasks ----

/// A background task's state. Every change is a compare-and-set in the database.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TaskStatus {
    Queued,
    Running,
    /// Asked to stop (SIGTERM sent; SIGKILL after 3 s).
    Stopping,
    Succeeded,
    Failed,
    Cancelled,
    /// Its server died while it ran (its process may still run).
    Lost,
}

impl TaskStatus {
    /// Not ended yet.
    pub fn is_live(self) -> bool {
        matches!(self, Self::Queued | Self::Running | Self::Stopping)
    }
}

/// Who stopped a task.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
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
pub enum TaskStopper {
    User,
    Model,
    /// The watchdog (its timeout).
    Timeout,
    Shutdown,
}

/// A task as the API and events show it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TaskInfo {
    pub id: String,
    pub session_id: String,
    pub label: String,
    pub command: String,
    pub cwd: String,
    pub status: TaskStatus,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    /// Who stopped it; null when it ended by itself.
    pub stopped_by: Option<TaskStopper>,
    pub pid: Option<i64>,
    pub output_bytes: i64,
    pub timeout_ms: i64,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    fn same_as_serde<T>(all: &[T])
    where
        T: Serialize
            + Copy
            + PartialEq
            + std::fmt::Debug
            + AsRef<str>
            + TryFrom<String, Error = UnknownValue>,
    {
        for v in all {
            let wire = serde_json::to_value(v).ok();
            assert_eq!(wire.as_ref().and_then(|w| w.as_str()), Some(v.as_ref()));
            assert_eq!(T::try_from(v.as_ref().to_string()), Ok(*v));
        }
        assert!(T::try_from("no-such-value".to_string()).is_err());
    }

    /// The stored text of each enum is exactly its serde (wire) name.
    #[test]
    fn stored_names_are_the_wire_names() {
        same_as_serde(Agent::VARIANTS);
        same_as_serde(Mode::VARIANTS);
        same_as_serde(Effect::VARIANTS);
        same_as_serde(SessionStatus::VARIANTS);
        same_as_serde(RunStatus::VARIANTS);
        same_as_serde(RunTrigger::VARIANTS);
        same_as_serde(ApprovalScope::VARIANTS);
        same_as_serde(ApprovalDecision::VARIANTS);
        same_as_serde(PlanDecision::VARIANTS);
        same_as_serde(PolicyDecision::VARIANTS);
        same_as_serde(TaskStatus::VARIANTS);
        same_as_serde(TaskStopper::VARIANTS);
        same_as_serde(GoalStatus::VARIANTS);
    }
}

// ---- Settings ----

/// Where the running provider's configuration came from: start flags (or the config file) at
/// start, or a change through Settings since (the last one set wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderSource {
    /// `--provider` … flags or the config file, applied at start.
    Flags,
    /// `PUT /api/settings/provider` (now or before a restart, when no flags were given).
    Settings,
    /// The config file's `providers` list, applied at start.
    Config,
    /// Nothing is configured: every run fails at once with "no model configured".
    None,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderSettingsView {
    /// `openai`, `anthropic`, `replay`, or empty when none is configured.
    pub kind: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Whether an API key is stored (it is never returned).
    pub api_key_set: bool,
    /// Where the running configuration came from.
    pub source: ProviderSource,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettingsParams {
    /// `openai` (any OpenAI-compatible server) or `anthropic`.
    #[schema(value_type = ProviderKind)]
    pub kind: String,
    /// The server's base URL, starting `http://` or `https://`, e.g.
    /// `http://127.0.0.1:11434/v1` (422 when the rest is not a valid URL); blank or null: the
    /// provider's default.
    #[schema(
        pattern = "^(https?://[\\s\\S]*|[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)$"
    )]
    pub base_url: Option<String>,
    /// The model name (required, not blank).
    #[schema(value_type = String, min_length = 1, pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]")]
    pub model: Option<String>,
    /// Set a new key; an empty string removes it; absent keeps the stored one.
    pub api_key: Option<String>,
    /// The environment variable to read the key from when none is stored (a name of letters,
    /// digits and `_`, at most 128); absent: the kind's usual one (`OPENAI_API_KEY`,
    /// `ANTHROPIC_API_KEY`).
    #[schema(pattern = "^[A-Za-z_][A-Za-z0-9_]{0,127}$")]
    pub api_key_env: Option<String>,
}

/// One configured provider (`GET /api/providers`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"id": "local", "kind": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder:14b", "api_key_set": false, "api_key_env": null, "source": "config", "default": true})))]
pub struct ProviderView {
    /// What sessions name it by (`default` for the one the start flags or
    /// `PUT /api/settings/provider` set).
    pub id: String,
    /// `openai`, `anthropic` or `replay`.
    pub kind: String,
    pub base_url: Option<String>,
    /// Its default model.
    pub model: Option<String>,
    /// Whether a key is available (stored, named by `api_key_env`, in config.json, or the
    /// kind's usual environment variable); the key itself is never returned.
    pub api_key_set: bool,
    /// The environment variable its key is read from, when it names one.
    pub api_key_env: Option<String>,
    pub source: ProviderSource,
    /// Sessions without their own provider use this one.
    pub default: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderList {
    pub data: Vec<ProviderView>,
    /// The default provider's id; null when none is configured.
    pub default: Option<String>,
}

/// `GET /api/models?provider=`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ModelsQuery {
    /// A provider's id (`GET /api/providers`); absent: the default provider.
    pub provider: Option<String>,
}

/// A web search provider (`websearch` sends the query there).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum SearchProvider {
    /// A SearXNG instance (`searxng_url`; by default a public one).
    Searxng,
    /// DuckDuckGo Instant Answer: no key; direct factual queries only.
    DuckduckgoInstant,
    /// DuckDuckGo's HTML page: no key; a general web search.
    DuckduckgoHtml,
    /// Tavily (`TAVILY_API_KEY`).
    Tavily,
    /// Brave Search (`BRAVE_SEARCH_API_KEY`).
    Brave,
    /// SerpApi (`SERPAPI_API_KEY`).
    Serpapi,
}

impl SearchProvider {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One provider the Settings page offers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchProviderInfo {
    pub id: SearchProvider,
    pub label: String,
    /// The environment variable its key is read from when none is stored (keyless: absent).
    pub key_env: Option<String>,
    /// What to know before choosing it.
    pub note: String,
}

/// Where the web search settings in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettingsSource {
    /// Nothing configured: the defaults.
    Default,
    /// `websearch` in the state directory's config.json.
    Config,
    /// `PUT /api/settings/websearch`.
    Settings,
}

/// `GET /api/settings/websearch`: the provider `websearch` uses now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WebSearchSettingsView {
    pub provider: SearchProvider,
    /// The SearXNG instance (used by `searxng`).
    pub searxng_url: String,
    /// `websearch.endpoint` from config.json: the provider's API URL instead of its public one.
    pub endpoint: Option<String>,
    /// The variable the key is read from when none is stored (keyless providers: absent).
    pub key_env: Option<String>,
    /// Whether a key is available (stored, or in the server's environment). Never returned.
    pub api_key_set: bool,
    pub source: SettingsSource,
    /// Every provider, for a chooser.
    pub providers: Vec<SearchProviderInfo>,
}

/// `PUT /api/settings/websearch`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchSettingsParams {
    pub provider: SearchProvider,
    /// The SearXNG instance: `https://…`, or `http://` on a loopback host (422 otherwise);
    /// blank or absent: the default public instance.
    #[schema(
        pattern = "^(https?://[\\s\\S]*|[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)$"
    )]
    pub searxng_url: Option<String>,
    /// Set a new key; an empty string removes it; absent keeps the stored one.
    #[schema(max_length = 4096)]
    pub api_key: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ModelList {
    pub data: Vec<ModelInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ModelInfo {
    pub id: String,
}

/// `POST /api/policy/check`: what the gate would decide for a tool call. Nothing is executed.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyCheckParams {
    /// Judge as in this session (its workspace, mode, agent and grants). Without it: the server's
    /// workspace, mode `ask` (or `mode`), the build agent (or `agent`), nothing granted.
    pub session: Option<String>,
    /// A tool name (`shell`, `write_file`, …).
    pub tool: String,
    /// The tool's arguments, as the model would send them.
    #[schema(value_type = Object)]
    pub input: serde_json::Value,
    /// Without `session`: the mode to judge in.
    pub mode: Option<Mode>,
    /// Without `session`: the agent to judge for.
    pub agent: Option<Agent>,
}

/// One reason the gate found.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyReason {
    /// `removed`, `outside_workspace`, `hard_denied`, `effect`, `startup_write`,
    /// `never_loosens`, `granted` or `allowed`.
    pub code: String,
    pub message: String,
    /// What this reason alone decides.
    pub decision: PolicyDecision,
}

/// A simple command the shell parser found in a `shell`, `bg_run` or `run_process` call.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyCommand {
    pub argv: Vec<String>,
    pub effect: Effect,
    /// The first category that never loosens, if any.
    pub category: Option<String>,
    /// Every category found in this command.
    pub categories: Vec<String>,
    /// What the gate would decide for this command alone.
    pub decision: PolicyDecision,
}

/// The gate's dry run: the decision, every reason, the categories and the commands it saw.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyCheckReport {
    pub decision: PolicyDecision,
    pub tool: String,
    pub effect: Effect,
    pub reasons: Vec<PolicyReason>,
    /// Categories of the whole command: `recursive_delete`, `network`, `admin`,
    /// `package_install`, `boot_autostart`, `opaque`, `outside_cwd`.
    pub categories: Vec<String>,
    pub commands: Vec<PolicyCommand>,
    /// Deny-list mentions, control characters and the categories' explanations.
    pub warnings: Vec<String>,
}

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The user cancelled it (status `cancelled`).
    User,
    /// The server was stopped during the run (status `interrupted`).
    Shutdown,
    /// Found unfinished at the next start: the server had crashed (status `interrupted`).
    Crash,
}

/// What made an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    /// A plan revision (`exit_plan`).
    Plan,
}

/// Where a grant lives: the session alone, or a rule every session of its workspace uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrantScope {
    Session,
    Workspace,
}

/// The kinds of model provider Settings can switch to (`replay` is only set at start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// Any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio…).
    Openai,
    Anthropic,
}

/// One thing a session was allowed: by an approval answer, or a rule kept for its workspace.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GrantInfo {
    /// The stored key (pass it back to revoke).
    pub key: String,
    /// `effect`, `directory`, `command`, `prefix`, `write` or `other`.
    pub kind: String,
    /// What it allows, in words.
    pub label: String,
    #[schema(value_type = GrantScope)]
    pub scope: String,
    pub created_at: i64,
}

/// `GET /api/sessions/{id}/permissions`: what the session may do without asking, and why.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SessionPermissions {
    pub session: String,
    pub mode: Mode,
    pub agent: Agent,
    pub workspace: String,
    /// The server's startup flags: the ceiling of what runs without asking.
    pub ceiling: CeilingInfo,
    pub read_only: bool,
    pub yolo: bool,
    pub extra_roots: Vec<String>,
    pub sandbox: SandboxInfo,
    pub grants: Vec<GrantInfo>,
}

/// One tool as a session sees it now (what `/tools` lists: offered or not, and why).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ToolStatus {
    pub name: String,
    pub effect: Effect,
    /// `enabled` (runs without asking), `ask` or `disabled`.
    pub status: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ToolStatusList {
    pub data: Vec<ToolStatus>,
}

/// The largest integer a JSON number holds exactly (2^53 − 1): the bound of seqs and offsets the
/// API takes (the schema states it as `maximum`).
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Integers in request bodies: JSON Schema counts `3.0` as an integer, so it is accepted as 3.
mod whole {
    use serde::{Deserialize, Deserializer};

    /// A JSON value that must be an object (serde's derive would also read a struct from an
    /// array of its fields).
    fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
        match Option::<serde_json::Value>::deserialize(d)? {
            None => Ok(None),
            Some(v @ serde_json::Value::Object(_)) => Ok(Some(v)),
            Some(_) => Err(serde::de::Error::custom("expected an object")),
        }
    }

    /// An optional struct, given as a JSON object (or null).
    pub fn opt_object<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        object(d)?
            .map(serde_json::from_value)
            .transpose()
            .map_err(serde::de::Error::custom)
    }

    /// A list of structs, each given as a JSON object.
    pub fn objects<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
        d: D,
    ) -> Result<Vec<T>, D::Error> {
        let items = Vec::<serde_json::Value>::deserialize(d)?;
        items
            .into_iter()
            .map(|v| match v {
                serde_json::Value::Object(_) => {
                    serde_json::from_value(v).map_err(serde::de::Error::custom)
                }
                _ => Err(serde::de::Error::custom("expected an object")),
            })
            .collect()
    }

    /// A present field: `Some(value)`, with `null` as `Some(None)` (absent is `None`, by
    /// `#[serde(default)]`). Finite and within 0..=1,000,000.
    /// A present field: `Some(value)`, `null` as `Some(None)`.
    #[expect(
        clippy::option_option,
        reason = "absent, null and a value mean three things in a PATCH body"
    )]
    pub fn some_effort<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<super::ReasoningEffort>>, D::Error> {
        Ok(Some(Option::<super::ReasoningEffort>::deserialize(d)?))
    }

    #[expect(
        clippy::option_option,
        reason = "absent, null and a value mean three things in a PATCH body"
    )]
    pub fn some_string<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<String>>, D::Error> {
        Ok(Some(Option::<String>::deserialize(d)?))
    }

    #[expect(
        clippy::option_option,
        reason = "absent, null and a value mean three things in a PATCH body"
    )]
    pub fn some_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
        let v = Option::<f64>::deserialize(d)?;
        if let Some(f) = v
            && !(f.is_finite() && (0.0..=1_000_000.0).contains(&f))
        {
            return Err(serde::de::Error::custom(format!(
                "{f} is not an amount between 0 and 1000000"
            )));
        }
        Ok(Some(v))
    }

    pub fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
            return Ok(None);
        };
        if let Some(i) = n.as_i64() {
            if i.abs() > super::MAX_SAFE_INTEGER {
                return Err(serde::de::Error::custom(format!("{n} is beyond 2^53 - 1")));
            }
            return Ok(Some(i));
        }
        match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() <= super::MAX_SAFE_INTEGER as f64 => {
                Ok(Some(f as i64))
            }
            _ => Err(serde::de::Error::custom(format!("{n} is not an integer"))),
        }
    }
}

/// Where an MCP server stands (`GET /api/mcp/servers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpState {
    /// `enabled: false` in config.json: never connected.
    Disabled,
    /// Not connected yet: `--allow-mcp`/`mcp.allow` connects at start, Connect does it later.
    Disconnected,
    Connecting,
    /// Its tools are offered to the agent from the next model turn.
    Connected,
    /// The connection failed or the server went away; `error` says why.
    Failed,
    /// An HTTP server answered 401/403: it needs credentials (a header from an environment
    /// variable; there is no interactive OAuth).
    NeedsAuth,
    /// The server said its tools changed since they were listed: they are withdrawn (no call runs
    /// against a schema the model did not see) until a reconnect lists them again.
    NeedsRestart,
}

/// One tool an MCP server offers, as the agent sees it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct McpToolInfo {
    /// The name the model calls: `mcp_<server>_<tool>`.
    pub name: String,
    /// The tool's name on its server.
    pub remote_name: String,
    pub description: String,
    /// What the server says of the tool (`read-only`, `destructive`, `open-world`, …): shown on
    /// approvals, never a reason to ask less.
    pub hints: Vec<String>,
}

/// One configured MCP server.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct McpServerInfo {
    pub name: String,
    /// `stdio` (a command) or `http` (streamable HTTP).
    pub transport: String,
    /// The command line or URL, as configured (header values and variables not shown).
    pub target: String,
    pub state: McpState,
    /// `user` (config.json in the state directory) or `workspace` (the workspace's approved
    /// `.tradewind/config.json`).
    pub source: String,
    /// Why it failed.
    pub error: Option<String>,
    /// The server's own name and version, once connected.
    pub server_info: Option<String>,
    pub tools: Vec<McpToolInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct McpServerList {
    pub data: Vec<McpServerInfo>,
    /// Connected at start (`--allow-mcp` or `mcp.allow`); headless runs may call the tools.
    pub allowed: bool,
    /// `--read-only`: MCP is off.
    pub blocked: bool,
}

/// The workspace's own `.tradewind/config.json` (`GET /api/workspace/config`): a repository's
/// file, so untrusted. Nothing in it is used until the user approves this exact content (pinned by
/// hash; any change needs approval again), and even then only its MCP servers are read.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WorkspaceConfigView {
    /// Where the file is (whether or not it exists).
    pub path: String,
    pub present: bool,
    /// SHA-256 of the file as it is now (hex); what an approval pins.
    pub hash: Option<String>,
    /// This content was approved: its servers are listed with the user's own.
    pub approved: bool,
    /// The MCP servers it names, as their command line or URL.
    pub servers: Vec<WorkspaceMcpServer>,
    /// What is ignored even once approved (security-relevant keys come only from the user's own
    /// config), or why the file cannot be used.
    pub ignored: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WorkspaceMcpServer {
    pub name: String,
    pub target: String,
    /// The user's config.json names a server of the same name: that one is used.
    pub shadowed: bool,
}

/// `POST /api/workspace/config/approve`: approve the file with this hash (as the view showed it).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WorkspaceConfigApproval {
    pub hash: String,
}
