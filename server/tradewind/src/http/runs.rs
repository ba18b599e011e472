//! Starting, reading and cancelling runs; answering approvals. The WebSocket commands call the
//! same functions.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{
    ApprovalDecision, ApprovalParams, PostMessageParams, PostMessageResponse, RunInfo,
};
use crate::services::OrNotFound;

/// Send a prompt; a new run is queued on the session.
#[utoipa::path(post, path = "/api/sessions/{id}/messages", tag = "runs", params(("id" = String, Path)), request_body = PostMessageParams,
    responses((status = 202, body = PostMessageResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn post_message(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<PostMessageParams>,
) -> ApiResult<(StatusCode, axum::Json<PostMessageResponse>)> {
    let run_id = state.post_message(&id, &p.text).await?;
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

/// One run.
#[utoipa::path(get, path = "/api/runs/{id}", tag = "runs", params(("id" = String, Path)),
    responses((status = 200, body = RunInfo), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<RunInfo>> {
    Ok(axum::Json(run_info(
        state.store.get_run(&id).await.or_not_found("run")?,
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
    state.load_session(&id).await?;
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

/// Cancel a queued or running run (the model stream and any running tool stop).
#[utoipa::path(post, path = "/api/runs/{id}/cancel", tag = "runs", params(("id" = String, Path)),
    responses((status = 200, body = CancelResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn cancel_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<CancelResponse>> {
    Ok(axum::Json(CancelResponse {
        cancelled: state.cancel_run(&id).await?,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApprovalResponse {
    pub approval_id: String,
    pub decision: ApprovalDecision,
}

/// Allow once, for this session (or this directory), or deny.
#[utoipa::path(post, path = "/api/approvals/{id}", tag = "runs", params(("id" = String, Path)), request_body = ApprovalParams,
    responses((status = 200, body = ApprovalResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn answer_approval(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<ApprovalParams>,
) -> ApiResult<axum::Json<ApprovalResponse>> {
    state.answer_approval(&id, p.decision).await?;
    Ok(axum::Json(ApprovalResponse {
        approval_id: id,
        decision: p.decision,
    }))
}
