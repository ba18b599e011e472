//! Starting, reading and cancelling runs; answering approvals. The WebSocket commands call the
//! same functions.

use axum::Extension;
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
///
/// Answers 202 with the new run's id at once. The run starts after the session's earlier runs
/// (at most 8 runs execute at once server-wide) and reports its progress as session events.
/// With `delivery: "steer"` and a run working on the session, the message goes to that run at
/// its next tool boundary instead (its `user_message` event names this run id as
/// `steered_from`, and this run ends `completed` with reason `steered`); a run that answers
/// without another tool call leaves it to start next, as a queued message.
/// A `text` starting with `!` runs the rest as a shell command through the same gate, as the
/// user's own: from a caller with the `admin` scope what asks only because a model might have
/// proposed it (the mode, the start flags, categories and paths a model is asked about) is
/// allowed, while `--read-only`, hard-denied paths and the other checks still apply and it runs
/// in the sandbox; from a caller without `admin` it asks as a model's call would. `text`
/// must not be blank and is at most 200000 characters. The first prompt of a session still
/// titled `New session` also gives it a title. `images` (pasted or dropped into the composer:
/// at most 8, PNG, JPEG, GIF or WebP, each at most 5 MiB, base64) go to models that take images,
/// as content parts; for a model that does not, or with a `!command`, the prompt is refused
/// with 422 and a message that says why. A body with images may be up to 48 MiB.
/// The transcript's `user_message` event lists them, served by `GET /api/attachments/{id}`.
#[utoipa::path(post, path = "/api/sessions/{id}/messages", tag = "runs",
    params(("id" = String, Path, description = "Session id")),
    request_body = PostMessageParams,
    responses((status = 202, description = "Queued; the run's id", body = PostMessageResponse),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "The session is archived; unarchive it first", body = ErrorBody),
              (status = 413, description = "The body exceeds 48 MiB", body = ErrorBody),
              (status = 422, description = "`text` is blank or longer than 200000 characters, an image is invalid, or the model does not take images", body = ErrorBody)))]
pub async fn post_message(
    State(state): State<AppState>,
    Extension(granted): Extension<super::extract::Granted>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<PostMessageParams>,
) -> ApiResult<(StatusCode, axum::Json<PostMessageResponse>)> {
    let sent = crate::services::Sent {
        limits: p.limits,
        delivery: p.delivery,
        by_admin: granted.0.has(crate::protocol::TokenScope::Admin),
    };
    let run_id = state.post_prompt(&id, &p.text, &p.images, sent).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(PostMessageResponse { run_id }),
    ))
}

/// Resume a run that stopped early (interrupted, cancelled or failed).
///
/// Queues a new run on the same session (trigger `resume`) that tells the model to go on from
/// where it stopped, quoting the original request, and answers 202 with its id. Only the
/// session's latest run can be resumed, and only while nothing runs or waits in the queue
/// there; a run that succeeded or has not ended cannot be resumed either (409).
#[utoipa::path(post, path = "/api/runs/{id}/resume", tag = "runs",
    params(("id" = String, Path, description = "Run id")),
    responses((status = 202, description = "Queued; the new run's id", body = PostMessageResponse),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such run", body = ErrorBody),
              (status = 409, description = "The run did not stop early, a later run exists, or the session is busy", body = ErrorBody)))]
pub async fn resume_run(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::RunId>,
) -> ApiResult<(StatusCode, axum::Json<PostMessageResponse>)> {
    let run_id = state.resume_run(&id).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(PostMessageResponse { run_id }),
    ))
}

/// One run.
///
/// Returns the run's session, status, trigger, agent, when it was created, started and
/// finished, its token usage (null until it ends) and its error (null unless it failed or was
/// interrupted).
#[utoipa::path(get, path = "/api/runs/{id}", tag = "runs",
    params(("id" = String, Path, description = "Run id")),
    responses((status = 200, description = "The run", body = RunInfo),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such run", body = ErrorBody)))]
pub async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::RunId>,
) -> ApiResult<axum::Json<RunInfo>> {
    let row = state.store.get_run(&id).await.or_not_found("run")?;
    Ok(axum::Json(crate::services::views::run(row)?))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunList {
    pub data: Vec<RunInfo>,
}

/// A session's runs, newest first (last 100).
///
/// Returns at most the 100 most recently created runs of the session, whatever their status
/// (queued, running, ended), each as `GET /api/runs/{id}` gives it. There is no paging.
#[utoipa::path(get, path = "/api/sessions/{id}/runs", tag = "runs",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session's runs", body = RunList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_runs(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<RunList>> {
    state.load_session(&id).await?;
    let rows = state.store.list_session_runs(&id, 100).await?;
    Ok(axum::Json(RunList {
        data: crate::services::views::runs(rows),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CancelResponse {
    /// False when the run had already ended.
    pub cancelled: bool,
}

/// Cancel a queued or running run; the model stream and any running tool stop.
///
/// The body is optional; `{"drop_queue": true}` also cancels the inputs queued behind it on
/// the session. A queued run ends `cancelled` at once; an active run is told to stop and
/// records its end as events. `cancelled` is false when the run had already ended (nothing
/// changes then, except that `drop_queue` still empties the session's queue).
#[utoipa::path(post, path = "/api/runs/{id}/cancel", tag = "runs",
    params(("id" = String, Path, description = "Run id")),
    request_body(content = Option<crate::protocol::CancelParams>, description = "Optional"),
    responses((status = 200, description = "Whether this call cancelled the run", body = CancelResponse),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such run", body = ErrorBody),
              (status = 422, description = "The body is not valid JSON of this shape", body = ErrorBody)))]
pub async fn cancel_run(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::RunId>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<CancelResponse>> {
    // The body is optional: none, `null` or `{}` all mean the defaults.
    let p: Option<crate::protocol::CancelParams> = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            if e.is_data() {
                ApiError::Validation(format!("invalid body: {e}"))
            } else {
                ApiError::BadRequest(format!("invalid JSON: {e}"))
            }
        })?
    };
    let p = p.unwrap_or_default();
    Ok(axum::Json(CancelResponse {
        cancelled: state.cancel_run(&id, p.drop_queue).await?,
    }))
}

/// The inputs waiting behind the session's active run, in order.
///
/// Each item has the id of the run it will become, its `position` (1 = next), trigger, text
/// and when it was queued. The active run itself is not listed; the list is empty when nothing
/// waits.
#[utoipa::path(get, path = "/api/sessions/{id}/queue", tag = "runs",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The queued inputs, next first", body = crate::protocol::QueueList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_queue(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<crate::protocol::QueueList>> {
    Ok(axum::Json(crate::protocol::QueueList {
        data: state.queue(&id).await?,
    }))
}

/// Change a queued input's text before it starts (409 once it has started).
///
/// The new `text` follows the rules of a new prompt: not blank, at most 200000 characters, and
/// a leading `!` makes it a shell command. The queue keeps its order, and the run starts with
/// the new text. 404 when the session is unknown or the run is not one of its runs; 409 when
/// the input is no longer queued (it started, ended or was removed).
#[utoipa::path(patch, path = "/api/sessions/{id}/queue/{item}", tag = "runs",
    params(("id" = String, Path, description = "Session id"), ("item" = String, Path, description = "The queued run's id")),
    request_body = crate::protocol::PatchQueueItem,
    responses((status = 204, description = "Changed"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or no such run in it", body = ErrorBody),
              (status = 409, description = "The input is no longer queued", body = ErrorBody),
              (status = 422, description = "`text` is blank or longer than 200000 characters", body = ErrorBody)))]
pub async fn patch_queue_item(
    State(state): State<AppState>,
    Path((id, item)): Path<(crate::protocol::SessionId, crate::protocol::RunId)>,
    ApiJson(p): ApiJson<crate::protocol::PatchQueueItem>,
) -> ApiResult<StatusCode> {
    state.edit_queued(&id, &item, &p.text).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Remove a queued input: its run ends `cancelled` (409 once it has started).
///
/// The input leaves the queue and its run is recorded as `cancelled` (a `run_finished` event);
/// the inputs behind it move up. To stop a run that has already started, use
/// `POST /api/runs/{id}/cancel`. 404 when the session is unknown or the run is not one of its
/// runs; 409 when the input is no longer queued.
#[utoipa::path(delete, path = "/api/sessions/{id}/queue/{item}", tag = "runs",
    params(("id" = String, Path, description = "Session id"), ("item" = String, Path, description = "The queued run's id")),
    responses((status = 204, description = "Removed; the run is cancelled"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or no such run in it", body = ErrorBody),
              (status = 409, description = "The input is no longer queued (it started, ended or was removed)", body = ErrorBody)))]
pub async fn delete_queue_item(
    State(state): State<AppState>,
    Path((id, item)): Path<(crate::protocol::SessionId, crate::protocol::RunId)>,
) -> ApiResult<StatusCode> {
    state.remove_queued(&id, &item).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApprovalResponse {
    pub approval_id: String,
    pub decision: ApprovalDecision,
}

/// Answer an approval: allow once, for this session (or this directory), or deny.
///
/// `decision` is `once`, `deny`, `session` (for an effect approval) or `directory` (for a
/// directory approval); when the approval offered a command prefix, also `prefix` (a rule for
/// this session) or `prefix_workspace` (the same rule for every session of the workspace). An
/// approval is answered once: the waiting run continues with the decision, any rule it keeps
/// is stored, and an `approval_decided` event is recorded.
#[utoipa::path(post, path = "/api/approvals/{id}", tag = "prompts",
    params(("id" = String, Path, description = "Approval id (`approval_id` in the pending list)")),
    request_body = ApprovalParams,
    responses((status = 200, description = "Answered", body = ApprovalResponse),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such approval", body = ErrorBody),
              (status = 409, description = "The approval was already answered or has expired", body = ErrorBody),
              (status = 422, description = "A decision this approval does not offer, or a `reason` with an allowing decision or longer than 2000 characters", body = ErrorBody)))]
pub async fn answer_approval(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::ApprovalId>,
    ApiJson(p): ApiJson<ApprovalParams>,
) -> ApiResult<axum::Json<ApprovalResponse>> {
    state
        .answer_approval(&id, p.decision, p.reason.as_deref())
        .await?;
    Ok(axum::Json(ApprovalResponse {
        approval_id: id.into_string(),
        decision: p.decision,
    }))
}

/// An image a prompt carried.
///
/// `id` is the SHA-256 of its bytes, as the `user_message` event lists it. Answers with the
/// image's bytes and its type (PNG, JPEG, GIF or WebP, read from the bytes), cacheable (the
/// content never changes under its id). 404 when no stored image has this id (an imported
/// session's images are not carried over).
#[utoipa::path(get, path = "/api/attachments/{id}", tag = "runs",
    params(("id" = String, Path, description = "The image's id (64 hex characters)")),
    responses((status = 200, description = "The image"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such image", body = ErrorBody)))]
pub async fn attachment(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::response::Response> {
    use axum::http::{HeaderValue, header};
    use axum::response::IntoResponse as _;
    let path = state
        .core
        .attachments()
        .path(&id)
        .ok_or_else(|| ApiError::not_found("image"))?;
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|_| ApiError::not_found("image"))?;
    let ctype =
        crate::attachments::sniff(&bytes).map_or("application/octet-stream", |t| t.as_str());
    let mut resp = (StatusCode::OK, bytes).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ctype));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox; default-src 'none'"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=31536000, immutable"),
    );
    Ok(resp)
}
