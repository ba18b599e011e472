//! A session's goal: the agent works towards it turn after turn until it is complete, blocked,
//! paused or out of budget. Setting, pausing, resuming, editing and deleting it are the user's.

use axum::extract::{Path, State};
use axum::http::StatusCode;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{Goal, PatchGoalParams, SetGoalParams};

/// Give a session a goal; the agent starts working towards it.
///
/// `objective` is 1 to 4000 characters. `budget` may set `turns` (1–1000, default 50),
/// `tokens` (1,000–100,000,000, default 2,000,000) and `minutes` (1–1440, default 120); the
/// session's spend cap holds as always. The first goal turn is queued at once (after a run in
/// progress); each finished turn starts the next by itself while the goal is active and budget
/// remains. The agent reports with `update_goal`: `complete` (with evidence) ends it; `blocked`
/// must be repeated with new evidence on consecutive turns (`goal.blockedRepeats`, default 2)
/// before it stops, and `denied` evidence stops it at once. A goal that ended is replaced; a
/// live one (active or paused) gives 409 `goal_exists`, and a session of the plan agent 409
/// `plan_agent`. Every change is a `goal_updated` event.
#[utoipa::path(post, path = "/api/sessions/{id}/goal", tag = "goals",
    params(("id" = String, Path, description = "Session id")),
    request_body = SetGoalParams,
    responses((status = 201, description = "The goal", body = Goal),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "A live goal exists, the session is archived, or it is a plan session", body = ErrorBody),
              (status = 422, description = "A blank or too long objective, or a budget out of range", body = ErrorBody)))]
pub async fn set_goal(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<SetGoalParams>,
) -> ApiResult<(StatusCode, axum::Json<Goal>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.set_goal(&id, &p).await?),
    ))
}

/// The session's goal: objective, status, budgets used and left, reports and their evidence.
///
/// `budget` has each budget and what was used (`used_minutes` counts the runs' own time);
/// `reports` lists what the agent reported, oldest first, each with its evidence and the goal
/// turn it was made in; `reason` says why a goal stopped or paused. 404 when the session has no
/// goal.
#[utoipa::path(get, path = "/api/sessions/{id}/goal", tag = "goals",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The goal", body = Goal),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or it has no goal", body = ErrorBody)))]
pub async fn get_goal(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<Goal>> {
    Ok(axum::Json(state.get_goal(&id).await?))
}

/// Pause, resume, edit the objective or change the budget.
///
/// `status` `paused` pauses an active goal (a run in progress finishes; no next turn starts);
/// `active` resumes a goal that is paused or ended, and its next turn starts. A goal whose
/// budget is used up resumes only when the same call raises that budget (409
/// `budget_exhausted` otherwise). `budget` parts given replace the old values; `objective`
/// replaces the objective. A `goal_updated` event follows.
#[utoipa::path(patch, path = "/api/sessions/{id}/goal", tag = "goals",
    params(("id" = String, Path, description = "Session id")),
    request_body = PatchGoalParams,
    responses((status = 200, description = "The goal", body = Goal),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or it has no goal", body = ErrorBody),
              (status = 409, description = "Resuming with a budget still used up", body = ErrorBody),
              (status = 422, description = "A blank objective or a budget out of range", body = ErrorBody)))]
pub async fn patch_goal(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<PatchGoalParams>,
) -> ApiResult<axum::Json<Goal>> {
    Ok(axum::Json(state.patch_goal(&id, &p).await?))
}

/// Delete the session's goal.
///
/// A run in progress finishes; no further goal turn starts. A `goal_updated` event with a null
/// goal follows.
#[utoipa::path(delete, path = "/api/sessions/{id}/goal", tag = "goals",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 204, description = "Deleted"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or it has no goal", body = ErrorBody)))]
pub async fn delete_goal(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<StatusCode> {
    state.delete_goal(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
