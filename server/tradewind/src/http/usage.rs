//! Usage and cost (the report, a session's totals and context, spend caps, `/compact`) and search over every session.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;

use super::AppState;
use super::extract::{ApiJson, ApiQuery};
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{PostMessageResponse, SessionUsage, SpendCaps, UsageGroupBy, UsageReport};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    /// Start (Unix ms, inclusive); default 30 days before `to`.
    #[param(minimum = 0, maximum = 9_007_199_254_740_991_i64)]
    pub from: Option<i64>,
    /// End (Unix ms, exclusive); default now.
    #[param(minimum = 1, maximum = 9_007_199_254_740_991_i64)]
    pub to: Option<i64>,
    /// `session` (default), `model` or `day` (UTC).
    pub group: Option<UsageGroupBy>,
    /// Only this session's model calls.
    pub session: Option<crate::protocol::SessionId>,
}

/// Usage and cost over a period, grouped by session, model or day.
///
/// Sums the model calls made in `[from, to)` (Unix ms; default the last 30 days; a period that
/// ends before it starts is empty): calls, input,
/// output, cached and reasoning tokens, and cost in USD by each model's price (config's
/// `models` table, else the built-in one; a model on a loopback endpoint is free). Calls of a
/// model with no known price are counted in `unpriced_calls` and left out of the cost. Days are
/// UTC (`YYYY-MM-DD`); sessions come with their title. Deleted sessions' calls still count.
#[utoipa::path(get, path = "/api/usage", tag = "usage",
    params(UsageQuery),
    responses((status = 200, description = "Totals per group and overall", body = UsageReport),
              (status = 400, description = "A malformed parameter", body = ErrorBody),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "`from` or `to` out of range", body = ErrorBody)))]
pub async fn usage_report(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<UsageQuery>,
) -> ApiResult<axum::Json<UsageReport>> {
    for (name, v, min) in [("from", q.from, 0), ("to", q.to, 1)] {
        super::extract::seq_param(name, v, min)?;
    }
    let report = state
        .usage_report(
            q.from,
            q.to,
            q.group.unwrap_or_default(),
            q.session.as_ref(),
        )
        .await?;
    Ok(axum::Json(report))
}

/// A session's usage and cost, the spend cap that applies to it, and how full its context is.
///
/// Totals over every model call of the session (answers and compactions), the cap in force
/// (`spend_cap_source`: the session's own or the server's), what every session spent today
/// (UTC) against the daily cap, and the context window's fill at the latest model call (null
/// before the first).
#[utoipa::path(get, path = "/api/sessions/{id}/usage", tag = "usage",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session's usage", body = SessionUsage),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn session_usage(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<SessionUsage>> {
    Ok(axum::Json(state.session_usage(&id).await?))
}

/// The server-wide spend caps.
///
/// `session_usd` applies to every session without its own cap (`PATCH /api/sessions/{id}
/// {spend_cap_usd}`); `day_usd` to all sessions together per UTC day. Null: no cap. Until set
/// here, they are config.json's `spend.sessionUsd` and `spend.dayUsd`.
#[utoipa::path(get, path = "/api/usage/caps", tag = "usage",
    responses((status = 200, description = "The caps in force", body = SpendCaps),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn get_caps(State(state): State<AppState>) -> ApiResult<axum::Json<SpendCaps>> {
    Ok(axum::Json(state.spend_caps().await))
}

/// Set the server-wide spend caps.
///
/// Replaces both caps (null removes one); each is 0 to 1,000,000 USD. A run stopped by a cap
/// (`spend_cap` error) can be resumed once the cap is raised (`POST /api/runs/{id}/resume`).
#[utoipa::path(put, path = "/api/usage/caps", tag = "usage",
    request_body = SpendCaps,
    responses((status = 200, description = "The caps now in force", body = SpendCaps),
              (status = 400, description = "Malformed JSON or an unknown field", body = ErrorBody),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "A cap is negative, too large or not a number", body = ErrorBody)))]
pub async fn put_caps(
    State(state): State<AppState>,
    ApiJson(caps): ApiJson<SpendCaps>,
) -> ApiResult<axum::Json<SpendCaps>> {
    Ok(axum::Json(state.set_spend_caps(caps).await?))
}

/// Compact the session's conversation now (`/compact`).
///
/// Queues a run (trigger `compact`) that asks the model for a structured summary of the older
/// turns (goal, decisions, files touched, open questions, facts that must survive) and from
/// then on sends the model that summary and the latest turns instead of the whole history.
/// The transcript gets a `context_compacted` event; the full history stays in the log. Runs
/// happen automatically past `agent.compactThreshold` of the model's window, too.
#[utoipa::path(post, path = "/api/sessions/{id}/compact", tag = "usage",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 202, description = "Queued; the run's id", body = PostMessageResponse),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "The session is archived", body = ErrorBody)))]
pub async fn compact_session(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<(StatusCode, axum::Json<PostMessageResponse>)> {
    let run_id = state.compact_session(&id).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(PostMessageResponse { run_id }),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// The words to find (at most 200 characters): every word must match, the last one as a
    /// prefix; punctuation separates words.
    pub q: String,
    /// Only this session.
    pub session: Option<crate::protocol::SessionId>,
    /// How many hits, 1..=100, default 20; outside that range the call fails with 422.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// Search every session's conversation.
///
/// Full-text search (SQLite FTS5, or PostgreSQL `tsvector`) over prompts, answers, tool calls
/// (name and input) and tool results of every session, or of one: hits newest first, each with
/// the session, the event's seq (open the session there), its type, and a snippet with the
/// matched words' positions. The index is kept in step with the event log as it is written.
#[utoipa::path(get, path = "/api/search", tag = "sessions",
    params(SearchQuery),
    responses((status = 200, description = "Hits, newest first", body = crate::protocol::SearchResults),
              (status = 400, description = "`q` is missing", body = ErrorBody),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "`q` longer than 200 characters, or `limit` out of range", body = ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<SearchQuery>,
) -> ApiResult<axum::Json<crate::protocol::SearchResults>> {
    let limit = match q.limit {
        None => 20,
        Some(n) if (1..=100).contains(&n) => n,
        Some(_) => {
            return Err(crate::error::ApiError::Validation(
                "limit must be between 1 and 100".into(),
            ));
        }
    };
    Ok(axum::Json(
        state.search(&q.q, q.session.as_ref(), limit).await?,
    ))
}
