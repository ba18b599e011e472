//! Starting, reading and cancelling runs; answering approvals. The WebSocket commands call the
//! same functions.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiError, ApiResult, ErrorBody};
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

/// Resume a run that stopped early (interrupted, cancelled or failed): a new run on its session
/// tells the model to go on from where it stopped (trigger `resume`). Only the session's latest
/// run, and only while nothing runs there.
#[utoipa::path(post, path = "/api/runs/{id}/resume", tag = "runs", params(("id" = String, Path)),
    responses((status = 202, body = PostMessageResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn resume_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, axum::Json<PostMessageResponse>)> {
    let run_id = state.resume_run(&id).await?;
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

/// Cancel a queued or running run (the model stream and any running tool stop). The body is
/// optional; `{"drop_queue": true}` also cancels the inputs queued behind it.
#[utoipa::path(post, path = "/api/runs/{id}/cancel", tag = "runs", params(("id" = String, Path)),
    request_body(content = Option<crate::protocol::CancelParams>, description = "Optional"),
    responses((status = 200, body = CancelResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn cancel_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<CancelResponse>> {
    let p: crate::protocol::CancelParams = if body.iter().all(u8::is_ascii_whitespace) {
        Default::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::Validation(format!("invalid body: {e}")))?
    };
    Ok(axum::Json(CancelResponse {
        cancelled: state.cancel_run(&id, p.drop_queue).await?,
    }))
}

/// The inputs waiting behind the session's active run, in order.
#[utoipa::path(get, path = "/api/sessions/{id}/queue", tag = "runs", params(("id" = String, Path)),
    responses((status = 200, body = crate::protocol::QueueList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list_queue(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<crate::protocol::QueueList>> {
    Ok(axum::Json(crate::protocol::QueueList {
        data: state.queue(&id).await?,
    }))
}

/// Change a queued input's text before it starts (409 once it has started).
#[utoipa::path(patch, path = "/api/sessions/{id}/queue/{item}", tag = "runs",
    params(("id" = String, Path), ("item" = String, Path, description = "The queued run's id")),
    request_body = crate::protocol::PatchQueueItem,
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn patch_queue_item(
    State(state): State<AppState>,
    Path((id, item)): Path<(String, String)>,
    ApiJson(p): ApiJson<crate::protocol::PatchQueueItem>,
) -> ApiResult<StatusCode> {
    state.edit_queued(&id, &item, &p.text).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Remove a queued input: its run ends `cancelled` (409 once it has started).
#[utoipa::path(delete, path = "/api/sessions/{id}/queue/{item}", tag = "runs",
    params(("id" = String, Path), ("item" = String, Path, description = "The queued run's id")),
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn delete_queue_item(
    State(state): State<AppState>,
    Path((id, item)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    state.remove_queued(&id, &item).await?;
    Ok(StatusCode::NO_CONTENT)
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
