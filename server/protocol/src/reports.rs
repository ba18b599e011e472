//! Usage and cost, context fill, spend caps, prompt commands, search, revert and redo, session
//! export and import.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

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
    pub session_id: SessionId,
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
    /// What the subagents this session started (and theirs, at every depth) used: not in
    /// `usage`, which is the session's own. Absent when it started none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagents: Option<SubagentUsage>,
}

/// The model calls of a session's subagents, all depths together.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SubagentUsage {
    /// How many subagent sessions there are.
    pub sessions: u64,
    pub calls: u64,
    pub unpriced_calls: u64,
    pub usage: Usage,
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
    /// Tradewind's own (`/init`), not a file of the workspace: a workspace file of the same
    /// name is left out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub builtin: bool,
    /// An Agent Skill's: `/name args` has the agent load it and follow it with the args (a
    /// built-in or workspace command of the same name wins).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skill: bool,
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
    pub session_id: SessionId,
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
    pub message_id: MessageId,
    /// Only say what would change (and what was edited by hand since); change nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Revert even over files changed by hand since the agent's last step.
    #[serde(default)]
    pub force: bool,
    /// Files of `kept` (changed by hand or by another session's run, not by this session's) to
    /// put back too, by path, as the user ticked them. Without it a revert changes only what
    /// this session's own runs changed; a path `kept` does not list is ignored.
    #[serde(default)]
    #[schema(max_items = 10000)]
    pub include: Vec<String>,
    /// What is taken back: `both` (the default: files and conversation), `conversation` (the
    /// turns only; the files stay as they are) or `files` (the files only; the conversation and
    /// what the model read stay). `/redo` brings back what the revert took.
    #[serde(default)]
    pub scope: RevertScope,
}

/// What a revert takes back.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, strum::AsRefStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RevertScope {
    #[default]
    Both,
    Conversation,
    Files,
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
    /// Files of `kept` (changed since the revert by hand or by another session's run) to put
    /// back too, as they were just before the revert; as for a revert.
    #[serde(default)]
    #[schema(max_items = 10000)]
    pub include: Vec<String>,
}

/// A file a revert (or redo) changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RevertFile {
    /// Relative to the workspace.
    pub path: String,
    /// `restored` (written back as it was) or `deleted` (it did not exist then).
    pub action: String,
}

/// Who changed a file a revert or redo leaves as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangedBy {
    /// No run of any session was going when it changed: by hand (or by a program of the
    /// user's).
    Hand,
    /// A run of another session working in the same workspace (`sessions` names them); also a
    /// change made while this session's run and another's were going at once, which cannot be
    /// told apart.
    Session,
}

/// A file that differs from how it was, but that this session's runs did not change (or
/// another session's run changed after them): a revert or redo leaves it as it is unless
/// `include` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct KeptFile {
    /// Relative to the workspace.
    pub path: String,
    /// What naming it in `include` would do: `restored` or `deleted`.
    pub action: String,
    /// Who changed it last.
    pub changed_by: ChangedBy,
    /// The other sessions whose runs changed it last (empty when by hand).
    pub sessions: Vec<SessionId>,
}

/// What a revert or redo did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevertResult {
    pub applied: bool,
    /// The revert (null for a dry run).
    pub revert_id: Option<RevertId>,
    /// The files it puts back: those this session's own runs changed (each as it was before
    /// this session first changed it since), and those `include` named.
    pub files: Vec<RevertFile>,
    /// Files of `files` changed by hand since this session's run changed them, which this
    /// overwrites (a revert or redo with any is refused without `force`).
    pub hand_edited: Vec<String>,
    /// Files that differ but that it leaves as they are: changed by hand, or by another
    /// session's run in the same workspace, and not named in `include`.
    pub kept: Vec<KeptFile>,
    /// The runs the model no longer sees (a revert), or sees again (a redo).
    pub runs: Vec<RunId>,
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
    pub agent: AgentName,
    pub mode: Mode,
}

/// A message of a session export (as `GET /api/sessions/{id}/messages` lists it).
#[derive(Debug, Clone, Deserialize)]
pub struct ExportedMessage {
    #[serde(default)]
    pub run_id: Option<RunId>,
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
    /// The workspace the export names: only a proposal — the session works where the import
    /// was confirmed (`?workspace=`), else in the server's own workspace.
    pub export_workspace: Option<String>,
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
