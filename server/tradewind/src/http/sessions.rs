//! Sessions, their messages, events and pending prompts.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{
    CreateSessionParams, EventPage, Message, MessagePage, PatchSessionParams, PendingApproval,
    PendingItems, PendingPlan, PendingQuestion, Session, SessionPage,
};

/// Create a session.
#[utoipa::path(post, path = "/api/sessions", tag = "sessions", request_body = CreateSessionParams,
    responses((status = 201, body = Session), (status = 401, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn create_session(
    State(state): State<AppState>,
    ApiJson(p): ApiJson<CreateSessionParams>,
) -> ApiResult<(StatusCode, axum::Json<Session>)> {
    let session = state.create_session(&p).await?;
    Ok((StatusCode::CREATED, axum::Json(session)))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// 1..=200, default 50.
    pub limit: Option<i64>,
    /// Include archived sessions.
    pub archived: Option<bool>,
}

fn parse_session_cursor(c: &str) -> ApiResult<(i64, String)> {
    let (ts, id) = c
        .split_once('_')
        .ok_or_else(|| ApiError::BadRequest("invalid cursor".into()))?;
    let ts = ts
        .parse::<i64>()
        .map_err(|_| ApiError::BadRequest("invalid cursor".into()))?;
    Ok((ts, id.to_string()))
}

fn limit_of(l: Option<i64>, default: i64, max: i64) -> ApiResult<i64> {
    match l {
        None => Ok(default),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::Validation(format!(
            "limit must be between 1 and {max}"
        ))),
    }
}

/// List sessions, most recent activity first.
#[utoipa::path(get, path = "/api/sessions", tag = "sessions", params(ListQuery),
    responses((status = 200, body = SessionPage), (status = 401, body = ErrorBody)))]
pub async fn list_sessions(
    State(state): State<AppState>,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<SessionPage>> {
    let limit = limit_of(q.limit, 50, 200)?;
    let before = q.cursor.as_deref().map(parse_session_cursor).transpose()?;
    let rows = state
        .store
        .list_sessions(before, limit + 1, q.archived.unwrap_or(false))
        .await?;
    let more = rows.len() as i64 > limit;
    let data: Vec<Session> = rows
        .into_iter()
        .take(limit as usize)
        .map(Session::from)
        .collect();
    let next_cursor = if more {
        data.last().map(|s| format!("{}_{}", s.updated_at, s.id))
    } else {
        None
    };
    Ok(axum::Json(SessionPage { data, next_cursor }))
}

/// One session.
#[utoipa::path(get, path = "/api/sessions/{id}", tag = "sessions", params(("id" = String, Path)),
    responses((status = 200, body = Session), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn get_session(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Session>> {
    Ok(axum::Json(Session::from(state.load_session(&id).await?)))
}

/// Rename, switch agent or permission mode, archive or unarchive.
#[utoipa::path(patch, path = "/api/sessions/{id}", tag = "sessions", params(("id" = String, Path)),
    request_body = PatchSessionParams,
    responses((status = 200, body = Session), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn patch_session(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<PatchSessionParams>,
) -> ApiResult<axum::Json<Session>> {
    let session = state.update_session(&id, &p).await?;
    Ok(axum::Json(session))
}

/// Fork a session ("edit and resend"): a new session holding the conversation before the user
/// message at `seq` (or all of it), then `text` sent there. The original stays as it was; seq is
/// gap-free in both.
#[utoipa::path(post, path = "/api/sessions/{id}/fork", tag = "sessions", params(("id" = String, Path)),
    request_body = crate::protocol::ForkParams,
    responses((status = 201, body = crate::protocol::Forked), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn fork_session(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<crate::protocol::ForkParams>,
) -> ApiResult<(StatusCode, axum::Json<crate::protocol::Forked>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.fork_session(&id, &p).await?),
    ))
}

/// Delete a session and everything it owns.
#[utoipa::path(delete, path = "/api/sessions/{id}", tag = "sessions", params(("id" = String, Path)),
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn delete_session(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    state.delete_session(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct MessagesQuery {
    /// A message id from a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// 1..=500, default 100.
    pub limit: Option<i64>,
}

/// The conversation as the model sees it, oldest first.
#[utoipa::path(get, path = "/api/sessions/{id}/messages", tag = "sessions", params(("id" = String, Path), MessagesQuery),
    responses((status = 200, body = MessagePage), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list_messages(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<MessagesQuery>,
) -> ApiResult<axum::Json<MessagePage>> {
    state.load_session(&id).await?;
    let limit = limit_of(q.limit, 100, 500)?;
    let rows = state
        .store
        .list_messages(&id, q.cursor.as_deref(), limit + 1)
        .await?;
    let more = rows.len() as i64 > limit;
    let data: Vec<Message> = rows
        .into_iter()
        .take(limit as usize)
        .map(|r| Message {
            parts: serde_json::from_str(&r.parts).unwrap_or(serde_json::Value::Null),
            id: r.id,
            run_id: r.run_id,
            role: r.role,
            created_at: r.created_at,
        })
        .collect();
    let next_cursor = if more {
        data.last().map(|m| m.id.clone())
    } else {
        None
    };
    Ok(axum::Json(MessagePage { data, next_cursor }))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct EventsQuery {
    /// Return events with `seq > after` (default 0).
    pub after: Option<i64>,
    /// 1..=5000, default 1000.
    pub limit: Option<i64>,
}

/// The session's event log after a seq, oldest first.
#[utoipa::path(get, path = "/api/sessions/{id}/events", tag = "events", params(("id" = String, Path), EventsQuery),
    responses((status = 200, body = EventPage), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list_events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<EventsQuery>,
) -> ApiResult<axum::Json<EventPage>> {
    state.load_session(&id).await?;
    let limit = limit_of(q.limit, 1000, 5000)?;
    let after = q.after.unwrap_or(0).max(0);
    let frames = state.events.backlog(&id, after, limit + 1).await?;
    let more = frames.len() as i64 > limit;
    let frames: Vec<_> = frames.into_iter().take(limit as usize).collect();
    let next_cursor = if more {
        frames.last().map(|f| f.seq)
    } else {
        None
    };
    let data = frames
        .iter()
        .filter_map(|f| serde_json::from_slice(&f.json).ok())
        .collect();
    Ok(axum::Json(EventPage { data, next_cursor }))
}

/// What waits for the user in this session.
#[utoipa::path(get, path = "/api/sessions/{id}/pending", tag = "sessions", params(("id" = String, Path)),
    responses((status = 200, body = PendingItems), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn pending(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<PendingItems>> {
    state.load_session(&id).await?;
    let approvals = state
        .store
        .pending_approvals(&id)
        .await?
        .into_iter()
        .map(|a| PendingApproval {
            effect: a.effect,
            scope: a.scope,
            input: serde_json::from_str(&a.input).unwrap_or(serde_json::Value::Null),
            approval_id: a.id,
            run_id: a.run_id,
            call_id: a.call_id,
            tool: a.tool,
            reason: a.reason,
            created_at: a.created_at,
        })
        .collect();
    let questions = state
        .store
        .pending_questions(&id)
        .await?
        .into_iter()
        .map(|q| PendingQuestion {
            questions: serde_json::from_str(&q.questions).unwrap_or_default(),
            question_id: q.id,
            run_id: q.run_id,
            created_at: q.created_at,
        })
        .collect();
    let plans = state
        .store
        .pending_plans(&id)
        .await?
        .into_iter()
        .map(|p| PendingPlan {
            plan_id: p.id,
            run_id: p.run_id,
            artifact_id: p.artifact_id,
            revision: p.revision,
            title: p.title,
            created_at: p.created_at,
        })
        .collect();
    Ok(axum::Json(PendingItems {
        approvals,
        questions,
        plans,
    }))
}

/// What the session may do without asking: the server's ceiling, the mode, and every grant
/// (the session's and its workspace's rules), each revocable.
#[utoipa::path(get, path = "/api/sessions/{id}/permissions", tag = "sessions", params(("id" = String, Path)),
    responses((status = 200, body = crate::protocol::SessionPermissions), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn permissions(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<crate::protocol::SessionPermissions>> {
    Ok(axum::Json(state.permissions(&id).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RevokeQuery {
    /// The grant's key, as listed.
    pub key: String,
    /// `session` (default) or `workspace`.
    pub scope: Option<String>,
}

/// Revoke one grant; runs in flight see it at their next call.
#[utoipa::path(delete, path = "/api/sessions/{id}/permissions", tag = "sessions", params(("id" = String, Path), RevokeQuery),
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn revoke_permission(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<RevokeQuery>,
) -> ApiResult<StatusCode> {
    let workspace = match q.scope.as_deref() {
        None | Some("session") => false,
        Some("workspace") => true,
        Some(other) => {
            return Err(ApiError::Validation(format!(
                "scope `{other}` is not session or workspace"
            )));
        }
    };
    state.revoke_grant(&id, &q.key, workspace).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ToolsQuery {
    /// The session whose mode, agent and grants decide.
    pub session: String,
}

/// Every tool as a session sees it now: enabled, ask or disabled, and why.
#[utoipa::path(get, path = "/api/tools", tag = "sessions", params(ToolsQuery),
    responses((status = 200, body = crate::protocol::ToolStatusList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn tools(
    State(state): State<AppState>,
    Query(q): Query<ToolsQuery>,
) -> ApiResult<axum::Json<crate::protocol::ToolStatusList>> {
    Ok(axum::Json(state.tool_status(&q.session).await?))
}
