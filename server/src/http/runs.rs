//! Starting, reading and cancelling runs; answering approvals. The WebSocket commands call the
//! same functions.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::extract::ApiJson;
use super::sessions::load_session;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{
    ApprovalDecision, ApprovalParams, EventPayload, PostMessageParams, PostMessageResponse,
    RunInfo, RunTrigger,
};
use crate::store::StoreError;

/// Longest prompt accepted.
pub const MAX_PROMPT_CHARS: usize = 200_000;

/// Queue a prompt (or a `!command`) on a session.
pub async fn post_message_op(state: &AppState, session_id: &str, text: &str) -> ApiResult<String> {
    let session = load_session(state, session_id).await?;
    if session.archived != 0 {
        return Err(ApiError::Conflict(
            "the session is archived; unarchive it first".into(),
        ));
    }
    if text.trim().is_empty() {
        return Err(ApiError::Validation("text must not be empty".into()));
    }
    if text.chars().count() > MAX_PROMPT_CHARS {
        return Err(ApiError::Validation(format!(
            "text is longer than {MAX_PROMPT_CHARS} characters"
        )));
    }
    let trigger = if text.starts_with('!') && text.len() > 1 {
        RunTrigger::Command
    } else {
        RunTrigger::Prompt
    };
    Ok(state.runs.enqueue_on(&session, trigger, text).await?)
}

/// Send a prompt; a new run is queued on the session.
#[utoipa::path(post, path = "/api/sessions/{id}/messages", tag = "runs", params(("id" = String, Path)), request_body = PostMessageParams,
    responses((status = 202, body = PostMessageResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn post_message(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<PostMessageParams>,
) -> ApiResult<(StatusCode, axum::Json<PostMessageResponse>)> {
    let run_id = post_message_op(&state, &id, &p.text).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(PostMessageResponse { run_id }),
    ))
}

fn run_info(r: crate::store::RunRow) -> RunInfo {
    RunInfo {
        error: r
            .error
            .as_deref()
            .and_then(|e| serde_json::from_str(e).ok()),
        usage: r
            .usage
            .as_deref()
            .and_then(|u| serde_json::from_str(u).ok()),
        id: r.id,
        session_id: r.session_id,
        status: r.status,
        trigger: r.trigger,
        agent: r.agent,
        created_at: r.created_at,
        started_at: r.started_at,
        finished_at: r.finished_at,
    }
}

fn run_not_found(e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound => ApiError::not_found("run"),
        other => other.into(),
    }
}

/// One run.
#[utoipa::path(get, path = "/api/runs/{id}", tag = "runs", params(("id" = String, Path)),
    responses((status = 200, body = RunInfo), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<RunInfo>> {
    Ok(axum::Json(run_info(
        state.store.get_run(&id).await.map_err(run_not_found)?,
    )))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunList {
    pub data: Vec<RunInfo>,
}

/// A session's runs, newest first (last 100).
#[utoipa::path(get, path = "/api/sessions/{id}/runs", tag = "runs", params(("id" = String, Path)),
    responses((status = 200, body = RunList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list_runs(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<RunList>> {
    load_session(&state, &id).await?;
    let rows = state.store.list_session_runs(&id, 100).await?;
    Ok(axum::Json(RunList {
        data: rows.into_iter().map(run_info).collect(),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CancelResponse {
    /// False when the run had already ended.
    pub cancelled: bool,
}

pub async fn cancel_op(state: &AppState, run_id: &str) -> ApiResult<bool> {
    state.runs.cancel(run_id).await.map_err(run_not_found)
}

/// Cancel a queued or running run (the model stream and any running tool stop).
#[utoipa::path(post, path = "/api/runs/{id}/cancel", tag = "runs", params(("id" = String, Path)),
    responses((status = 200, body = CancelResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn cancel_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<CancelResponse>> {
    Ok(axum::Json(CancelResponse {
        cancelled: cancel_op(&state, &id).await?,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApprovalResponse {
    pub approval_id: String,
    pub decision: ApprovalDecision,
}

/// Answer an approval once; replays and late answers get 409.
pub async fn answer_approval_op(
    state: &AppState,
    id: &str,
    decision: ApprovalDecision,
) -> ApiResult<()> {
    let row = state.store.get_approval(id).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::not_found("approval"),
        other => other.into(),
    })?;
    let valid = match row.scope.as_str() {
        "directory" => matches!(
            decision,
            ApprovalDecision::Once | ApprovalDecision::Directory | ApprovalDecision::Deny
        ),
        _ => matches!(
            decision,
            ApprovalDecision::Once | ApprovalDecision::Session | ApprovalDecision::Deny
        ),
    };
    if !valid {
        return Err(ApiError::Validation(format!(
            "`{}` is not an answer for a {} approval",
            decision.as_str(),
            row.scope
        )));
    }
    if row.status != "pending" || !state.store.decide_approval(id, decision.as_str()).await? {
        return Err(ApiError::Conflict(
            "this approval was already answered or has expired".into(),
        ));
    }
    let p = EventPayload::ApprovalDecided {
        approval_id: id.to_string(),
        decision: decision.as_str().into(),
    };
    let _ = state
        .events
        .append(&row.session_id, Some(&row.run_id), &p)
        .await;
    if !state.runs.deps().approvals.answer(id, decision) {
        tracing::warn!(
            approval = id,
            "approval answered but no run was waiting for it"
        );
    }
    Ok(())
}

/// Allow once, for this session (or this directory), or deny.
#[utoipa::path(post, path = "/api/approvals/{id}", tag = "runs", params(("id" = String, Path)), request_body = ApprovalParams,
    responses((status = 200, body = ApprovalResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn answer_approval(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<ApprovalParams>,
) -> ApiResult<axum::Json<ApprovalResponse>> {
    answer_approval_op(&state, &id, p.decision).await?;
    Ok(axum::Json(ApprovalResponse {
        approval_id: id,
        decision: p.decision,
    }))
}
