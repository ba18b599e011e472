//! Goals and memories.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

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
    /// Evidence of a `complete` report the server could not confirm, by its index in
    /// `evidence`: a `file` that names no existing path in the session's roots, a `command` or
    /// `test` that matches no command this session ran. Checked without running anything;
    /// empty when all of it was confirmed (`log` and `other` are not checked). The goal then
    /// reads "complete — evidence unverified".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<UnverifiedEvidence>,
}

/// A piece of evidence the server could not confirm, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct UnverifiedEvidence {
    /// Its index in the report's `evidence`.
    pub index: usize,
    pub reason: String,
}

/// A session's goal: the agent works towards it, turn after turn, until it is done, blocked,
/// paused or out of budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Goal {
    pub id: GoalId,
    pub session: SessionId,
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
    pub id: MemoryId,
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
