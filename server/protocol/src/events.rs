//! Event frames: everything that happens in a session, stored with a gap-free `seq` and sent
//! to every subscriber in that order.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::*;
/// The payload of an event; the frame adds `seq`, `session`, `run` and `at`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, strum::EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(EventType),
    derive(strum::VariantArray, strum::IntoStaticStr, strum::AsRefStr),
    strum(serialize_all = "snake_case")
)]
pub enum EventPayload {
    /// A prompt (or `!command`) from the user.
    UserMessage {
        message_id: MessageId,
        text: String,
        /// What wrote it: `prompt` (the user), `command` (a `!command`), `plan` (an approved
        /// plan's implementation prompt), `wakeup` (background tasks ended), `resume`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<RunTrigger>,
        /// Images sent with the prompt.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<crate::ImageRef>,
        /// Sent while the run worked (`delivery: steer`) and taken at a tool boundary: the id
        /// of the queued run it was sent as (that run ends `completed`, reason `steered`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        steered_from: Option<RunId>,
    },
    RunStarted {
        run_id: RunId,
        agent: AgentName,
        mode: Mode,
        trigger: RunTrigger,
    },
    /// Streamed assistant text (coalesced; append to the message).
    MessageDelta { message_id: MessageId, text: String },
    /// Streamed reasoning text (coalesced).
    ReasoningDelta { message_id: MessageId, text: String },
    /// The whole assistant message once it is complete.
    MessageComplete {
        message_id: MessageId,
        text: String,
        reasoning: String,
        /// The pages the answer cites (the provider's own web search, `websearch.provider:
        /// "native"`), in the order it cited them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        citations: Vec<Citation>,
    },
    /// A hook ran (`hooks.json`): what it ran for and what it said.
    HookRan {
        /// `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`, `SessionStart` or
        /// `PreCompact`.
        event: String,
        /// The hook's command, as configured.
        command: String,
        /// The call it ran for (tool hooks).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<CallId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// `passed`, `denied`, `asked`, `failed` (another exit code, a timeout, it could not
        /// start) or `not_granted` (its file's hooks were not allowed to run).
        outcome: String,
        /// Its reason (a denial's, a question's, a failure's) or the context it added.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        duration_ms: u64,
    },
    /// The model's provider searched the web itself (`websearch.provider: "native"`): one
    /// search, once it is done.
    WebSearch {
        /// The provider's id of the search.
        search_id: String,
        /// The configured provider that searched.
        provider: String,
        /// What it searched for (empty when the provider did not say).
        query: String,
        /// `completed` or `failed`.
        status: String,
        /// The pages it found (their order is the provider's).
        results: Vec<WebSource>,
        /// Why it failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The model proposed a tool call.
    ToolCall {
        call_id: CallId,
        tool: String,
        effect: Effect,
        /// The arguments; their text when they could not be read as JSON (see `input_raw`).
        #[schema(value_type = Object)]
        input: serde_json::Value,
        /// The arguments exactly as the model sent them, when they could not be read as a JSON
        /// object (or the call itself could not be read from the reply's text).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input_raw: Option<String>,
        /// Why they could not be read (the call was not run; the model was told this).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input_error: Option<String>,
    },
    /// Audit: what the gate decided for a call, and why.
    PolicyDecision {
        call_id: CallId,
        tool: String,
        effect: Effect,
        decision: PolicyDecision,
        reason: String,
        key: String,
    },
    /// The run waits for the user to allow or deny a call.
    ApprovalRequested {
        approval_id: ApprovalId,
        call_id: CallId,
        tool: String,
        effect: Effect,
        #[schema(value_type = Object)]
        input: serde_json::Value,
        /// Every reason joined with "; ".
        reason: String,
        /// Every reason this one approval covers (mode, outside directories, startup files,
        /// command categories): answering it once is enough.
        #[serde(default)]
        reasons: Vec<String>,
        scope: ApprovalScope,
        /// For `directory` scope: the directory the answer covers.
        directory: Option<String>,
        /// "Allow commands like this": the argv prefix a `prefix` / `prefix_workspace` answer
        /// stores as a rule (offered only when nothing else asks).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prefix: Option<Vec<String>>,
        /// Deny-list mentions, control characters, dangerous categories.
        warnings: Vec<String>,
        /// What `session` ("for this session") keeps, in words ("every command (process)",
        /// "the MCP tool docs/search"); empty when it allows this call only.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        session_keeps: Vec<String>,
    },
    ApprovalDecided {
        approval_id: ApprovalId,
        decision: ApprovalOutcome,
        /// A denial's reason, as the agent was told it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// What a running command (`shell`, `run_process`, a `!command`) wrote so far, as it
    /// comes: coalesced (about every 100 ms, or 4 KiB), at most 256 KiB per call and stream
    /// together (then a line says the rest comes with the result). Its `tool_result` holds the
    /// whole output, bounded as always.
    ToolOutput {
        call_id: CallId,
        stream: OutputStream,
        text: String,
    },
    /// A tool finished: the text the model sees and parts for the UI.
    ToolResult {
        call_id: CallId,
        tool: String,
        ok: bool,
        text: String,
        parts: Vec<Part>,
    },
    /// A non-fatal or fatal error of the run.
    Error {
        code: String,
        message: String,
        /// The run ends with this error (its `run_finished` carries it too): show it once.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fatal: bool,
    },
    /// The provider failed in a way worth retrying: this wait begins now; attempt `attempt` of
    /// `max_attempts` follows after `delay_ms` unless the run is cancelled.
    ProviderRetry {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        reason: String,
    },
    /// A model call ended: what it used and cost, and how full the model's context window is.
    ModelUsage {
        /// `<provider>/<model>`.
        model: String,
        /// `turn` (an answer) or `compaction` (a summary of older turns).
        purpose: String,
        usage: Usage,
        /// Tokens the conversation now holds (this call's prompt and answer).
        context_tokens: u64,
        context_window: u64,
    },
    /// Older turns were summarised so the conversation fits the model's context window: from
    /// now on the model sees `summary` and the latest turns. The full history stays in the log.
    ContextCompacted {
        trigger: CompactTrigger,
        summary: String,
        messages_summarized: u64,
        messages_kept: u64,
        /// Estimated prompt tokens before and after.
        tokens_before: u64,
        tokens_after: u64,
        context_window: u64,
        /// What the summary call cost.
        usage: Usage,
        /// Old tool outputs cut to their first line. A compaction that only pruned (enough
        /// room came back without a summary) has an empty `summary` and costs nothing.
        #[serde(default)]
        pruned_outputs: u64,
    },
    /// The workspace went back to how it was before the user message `message_id`; that run
    /// and the later ones (`runs`) are taken back: the model no longer sees them.
    SessionReverted {
        revert_id: RevertId,
        message_id: MessageId,
        files: Vec<RevertFile>,
        runs: Vec<RunId>,
    },
    /// A revert was undone (redo): its files and runs are back.
    RevertUndone {
        revert_id: RevertId,
        files: Vec<RevertFile>,
        runs: Vec<RunId>,
    },
    RunFinished {
        run_id: RunId,
        status: RunStatus,
        error: Option<WireError>,
        /// Tokens really consumed; for a stream stopped before the provider reported usage,
        /// estimated from what was sent and streamed (~4 characters per token).
        usage: Usage,
        duration_ms: u64,
        /// Why a run stopped early: `user` (Cancel), `shutdown` (the server was stopped; status
        /// `interrupted`), `crash` (found unfinished at the next start; status `interrupted`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<StopReason>,
    },
    /// The model asks the user 1–4 multiple-choice questions.
    QuestionAsked {
        question_id: QuestionId,
        call_id: CallId,
        questions: Vec<Question>,
    },
    /// One entry per question: the chosen labels, or null when skipped.
    QuestionAnswered {
        question_id: QuestionId,
        answers: Vec<Option<Vec<String>>>,
        /// Why nobody answered, when it is known ("not answered — the server restarted").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A plan revision waits for review.
    PlanProposed {
        plan_id: PlanId,
        artifact_id: ArtifactId,
        call_id: CallId,
        #[serde(flatten)]
        revision: PlanRevision,
    },
    PlanDecided {
        plan_id: PlanId,
        decision: PlanDecision,
        feedback: Option<String>,
        /// Why nobody decided, when it is known ("not answered — the server restarted").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A background task changed state.
    TaskUpdated { task: TaskInfo },
    /// What a running background task wrote so far (its stdout and stderr share one pipe, in
    /// the order written), as it comes: coalesced like `tool_output`, at most 256 KiB per task
    /// (then a line says the rest is in the task's log, `GET /api/tasks/{id}/output`).
    TaskOutput { task_id: TaskId, text: String },
    /// Background tasks ended by themselves and wake the session (a `wakeup` run follows).
    Wakeup { task_ids: Vec<TaskId>, text: String },
    /// The session's new state in `data` (the frame's own `session` field is its id).
    SessionUpdated { data: Session },
    /// The session's goal changed (set, paused, resumed, edited, reported on, stopped); null
    /// when the user deleted it.
    GoalUpdated { goal: Option<Goal> },
    /// Sent to every session above a subagent (its parent up to the root): the subagent asks
    /// the user something (`status: pending`), and later that it was answered or expired.
    /// Answer it through the usual endpoint of its `kind` with its `id`;
    /// `GET /api/sessions/{id}/pending` on any of them lists what still waits below, each with
    /// its `session`.
    ChildPending {
        child_session: SessionId,
        kind: PromptKindName,
        id: String,
        /// One line on what is asked.
        summary: String,
        status: ChildPendingStatus,
    },
    /// A line comment was written on the session's review or one of its plans.
    ReviewCommentAdded { comment: ReviewComment },
    /// A comment changed: its text, sent to the agent, or answered.
    ReviewCommentUpdated { comment: ReviewComment },
    /// A comment resolved (by the user, or its lines changed after it was sent), or was deleted
    /// (`deleted`).
    ReviewCommentResolved {
        comment: ReviewComment,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        deleted: bool,
    },
}

impl EventType {
    /// Every event type this version emits, as it appears in `type`.
    pub fn all() -> impl Iterator<Item = &'static str> {
        use strum::VariantArray;
        EventType::VARIANTS.iter().map(|t| t.into())
    }
}

impl EventPayload {
    pub fn kind(&self) -> &'static str {
        match self {
            EventPayload::UserMessage { .. } => "user_message",
            EventPayload::RunStarted { .. } => "run_started",
            EventPayload::MessageDelta { .. } => "message_delta",
            EventPayload::ReasoningDelta { .. } => "reasoning_delta",
            EventPayload::WebSearch { .. } => "web_search",
            EventPayload::HookRan { .. } => "hook_ran",
            EventPayload::MessageComplete { .. } => "message_complete",
            EventPayload::ToolCall { .. } => "tool_call",
            EventPayload::PolicyDecision { .. } => "policy_decision",
            EventPayload::ApprovalRequested { .. } => "approval_requested",
            EventPayload::ApprovalDecided { .. } => "approval_decided",
            EventPayload::ToolOutput { .. } => "tool_output",
            EventPayload::ToolResult { .. } => "tool_result",
            EventPayload::Error { .. } => "error",
            EventPayload::ProviderRetry { .. } => "provider_retry",
            EventPayload::ModelUsage { .. } => "model_usage",
            EventPayload::ContextCompacted { .. } => "context_compacted",
            EventPayload::SessionReverted { .. } => "session_reverted",
            EventPayload::RevertUndone { .. } => "revert_undone",
            EventPayload::RunFinished { .. } => "run_finished",
            EventPayload::SessionUpdated { .. } => "session_updated",
            EventPayload::QuestionAsked { .. } => "question_asked",
            EventPayload::TaskUpdated { .. } => "task_updated",
            EventPayload::TaskOutput { .. } => "task_output",
            EventPayload::Wakeup { .. } => "wakeup",
            EventPayload::QuestionAnswered { .. } => "question_answered",
            EventPayload::PlanProposed { .. } => "plan_proposed",
            EventPayload::PlanDecided { .. } => "plan_decided",
            EventPayload::GoalUpdated { .. } => "goal_updated",
            EventPayload::ChildPending { .. } => "child_pending",
            EventPayload::ReviewCommentAdded { .. } => "review_comment_added",
            EventPayload::ReviewCommentUpdated { .. } => "review_comment_updated",
            EventPayload::ReviewCommentResolved { .. } => "review_comment_resolved",
        }
    }
}

/// One stored, sequenced event as sent to clients:
/// `{"seq":N,"session":ID,"run":ID|null,"at":MS,"type":"…",…payload}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventFrame {
    pub seq: i64,
    pub session: SessionId,
    pub run: Option<RunId>,
    pub at: i64,
    #[serde(flatten)]
    pub payload: EventPayload,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventPage {
    #[schema(value_type = Vec<EventFrame>)]
    pub data: Vec<serde_json::Value>,
    /// The seq to pass as `after` for the next page: the last seq in `data`, or the `after`
    /// given when `data` is empty. Never null, so `after = next_cursor` never goes back. (With
    /// `before`: the first seq in `data`, or that `before`: pass it as `before` to page back.)
    pub next_cursor: i64,
    /// More events are stored after `next_cursor` now (fetch again at once); false: wait for
    /// new ones (with `wait`, or the SSE stream). (With `before`: older events exist.)
    pub has_more: bool,
}

/// A page a provider's own web search found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WebSource {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A page an answer cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Citation {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The passage of the page it cites, where the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
}

/// Which of a command's outputs a `tool_output` event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    Stdout,
    Stderr,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_is_the_serialized_type() {
        let p = EventPayload::Wakeup {
            task_ids: vec![],
            text: String::new(),
        };
        let v = serde_json::to_value(&p).ok();
        assert_eq!(v.as_ref().and_then(|v| v["type"].as_str()), Some(p.kind()));
        let t: &'static str = EventType::from(&p).into();
        assert_eq!(t, p.kind());
        assert_eq!(EventType::all().count(), 33);
    }
}
