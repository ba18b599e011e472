//! Tool results' display parts, the gate's decisions, and what waits for a person:
//! approvals, questions, plan decisions.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

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
        /// Paths the command's output names that the sandbox hid from it (it failed): each can
        /// be let in, read-only, for the session (`POST /api/sessions/{id}/jail-allows`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hidden: Vec<String>,
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

/// One folder a workspace picker offers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DirEntry {
    pub name: String,
    /// Absolute.
    pub path: String,
}

/// A workspace the user's sessions used, most recent first.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RecentWorkspace {
    pub path: String,
    /// Said before a session is started there (a system folder, the home folder itself).
    pub warning: Option<String>,
}

/// `GET /api/fs/dirs?path=&hidden=`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DirsQuery {
    /// An absolute folder under the home folder; absent: the home folder.
    pub path: Option<String>,
    /// List hidden folders (names starting with `.`) too.
    #[serde(default)]
    pub hidden: bool,
}

/// `GET /api/fs/dirs`: the folders of one folder under the home folder, for a workspace picker.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DirListing {
    /// The folder listed (absolute, symlinks resolved).
    pub path: String,
    /// Its parent, while that is still under the home folder (null at the home folder).
    pub parent: Option<String>,
    /// Its folders by name: no files, no hidden folder unless asked, never the server's state
    /// directory or a credential location.
    pub dirs: Vec<DirEntry>,
    /// More than 1,000 folders: the first 1,000 by name are listed.
    pub truncated: bool,
    /// Said before a session is started in `path` (the home folder itself).
    pub warning: Option<String>,
    /// The last 10 distinct workspaces of the sessions, most recent first.
    pub recent: Vec<RecentWorkspace>,
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
#[schema(examples(json!({"decision": "once"}), json!({"decision": "deny", "reason": "Use the staging database, not production"})))]
pub struct ApprovalParams {
    pub decision: ApprovalDecision,
    /// With `deny` only: what the agent is told with the denial ("Deny, and tell the agent…"),
    /// at most 2,000 characters; blank is the same as none.
    #[serde(default)]
    #[schema(max_length = 2000)]
    pub reason: Option<String>,
}

/// The most characters of a denial's reason.
pub const DENY_REASON_MAX: usize = 2000;

/// A denial's reason as the run gets it: trimmed, `None` when blank; an error when it goes with
/// an allowing answer or is too long.
pub fn deny_reason(
    decision: ApprovalDecision,
    reason: Option<&str>,
) -> Result<Option<String>, String> {
    let Some(r) = reason.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    if decision != ApprovalDecision::Deny {
        return Err("`reason` goes with `deny` only".into());
    }
    if r.chars().count() > DENY_REASON_MAX {
        return Err(format!("`reason` is at most {DENY_REASON_MAX} characters"));
    }
    Ok(Some(r.to_string()))
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
    pub session: SessionId,
    pub approval_id: ApprovalId,
    pub run_id: RunId,
    pub call_id: CallId,
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
    /// What `session` ("for this session") keeps, in words (as in `approval_requested`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_keeps: Vec<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PendingQuestion {
    /// The session that asks: this one, or one of its subagents.
    pub session: SessionId,
    pub question_id: QuestionId,
    pub run_id: RunId,
    pub questions: Vec<Question>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PendingPlan {
    /// The session that asks: this one, or one of its subagents.
    pub session: SessionId,
    pub plan_id: PlanId,
    pub run_id: RunId,
    pub artifact_id: ArtifactId,
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
#[schema(examples(json!({"decision": "feedback", "feedback": "Keep the old API working too."}), json!({"decision": "approved", "mode": "auto"})))]
pub struct PlanDecisionParams {
    /// `approved`, `feedback` (with `feedback` text) or `skipped`.
    pub decision: PlanAnswer,
    pub feedback: Option<String>,
    /// With `approved` only: the session's permission mode for the implementation ("approve
    /// and auto-accept edits" is `auto`), set before the implementation turn starts. Without
    /// it the session keeps its mode.
    #[serde(default)]
    pub mode: Option<crate::Mode>,
}
