//! Revert and redo (the workspace's files and the conversation back to before a message), and
//! importing an exported session.

use axum::extract::{Path, State};

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{RedoParams, RevertParams, RevertResult};

/// Put the workspace back to before a user message, and take that turn back.
///
/// Every run of the build agent records the workspace's files before and after it (a hidden
/// content-addressed store under the state directory, never the user's repository;
/// `.gitignore` holds, dependency and build folders are left out). A revert puts back the files
/// this session's own runs changed since the user message `message_id` (each as it was before
/// this session first changed it since; a file created since is deleted), and hides that run
/// and the later ones from the model (the log keeps them; the transcript gets
/// `session_reverted`). Files changed by hand, or by another session's run in the same
/// workspace, are listed in `kept` and left as they are unless `include` names them. Files of
/// this session's that were changed by hand since, which the revert would overwrite, are listed
/// in `hand_edited`; the revert is then refused (409) unless `force` is set. `dry_run` only
/// reports. The session must be idle. `scope` narrows it: `conversation` takes the turns back
/// and leaves every file as it is; `files` puts the files back and leaves the conversation (its
/// `runs` list is then empty); `both` (the default) does both.
#[utoipa::path(post, path = "/api/sessions/{id}/revert", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = RevertParams,
    responses((status = 200, description = "What was (or, dry run, would be) changed", body = RevertResult),
              (status = 400, description = "Malformed JSON or an unknown field", body = ErrorBody),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session or message", body = ErrorBody),
              (status = 409, description = "The session is busy, the message has no snapshot, or hand edits would be overwritten", body = ErrorBody),
              (status = 422, description = "A field has the wrong type or size", body = ErrorBody)))]
pub async fn revert(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<RevertParams>,
) -> ApiResult<axum::Json<RevertResult>> {
    Ok(axum::Json(state.revert(&id, &p).await?))
}

/// Undo the latest revert (redo).
///
/// Puts back the files the session's latest revert changed, as they were just before it, and
/// lets the model see the runs it hid again (`revert_undone` in the log). Only while nothing
/// was said since the revert; hand edits made since it are protected as for a revert (`force`,
/// `dry_run`), and files changed since by hand or by another session's run are listed in
/// `kept` and left unless `include` names them.
#[utoipa::path(post, path = "/api/sessions/{id}/redo", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = RedoParams,
    responses((status = 200, description = "What was (or, dry run, would be) changed", body = RevertResult),
              (status = 400, description = "Malformed JSON or an unknown field", body = ErrorBody),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "Nothing to redo, the conversation went on, the session is busy, the revert's snapshot is gone, or hand edits would be overwritten", body = ErrorBody),
              (status = 422, description = "A field has the wrong type", body = ErrorBody)))]
pub async fn redo(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<RedoParams>,
) -> ApiResult<axum::Json<RevertResult>> {
    Ok(axum::Json(state.redo(&id, &p).await?))
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// The workspace the user confirmed for the imported session (absolute, existing, never
    /// `/`); without it, the server's own.
    #[param(max_length = 4096, pattern = "^(/[^\\u0000]*)?$")]
    pub workspace: Option<String>,
}

/// Create a session from an export.
///
/// Takes what `tradewind sessions export --format json` writes (`format`
/// `tradewind-session/1`): a new session with the export's title and agent, in mode `ask` (an
/// export cannot grant itself more), its events renumbered from 1, and its messages in order,
/// so the model sees the same conversation; items that are not readable frames or messages are
/// skipped and counted. The workspace the export names is only a proposal (`export_workspace`
/// in the answer): the session works in `workspace` when the caller confirms one (an existing
/// directory, never `/`), else in the server's own. Needs `admin`. Answers 201 with the session
/// and the counts. Bodies over 48 MiB get 413.
#[utoipa::path(post, path = "/api/sessions/import", tag = "sessions",
    params(ImportQuery),
    request_body = crate::protocol::SessionExport,
    responses((status = 201, description = "The new session, and what was imported and skipped", body = crate::protocol::ImportResult),
              (status = 400, description = "Malformed JSON", body = ErrorBody),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 413, description = "Larger than 48 MiB", body = ErrorBody),
              (status = 422, description = "Not a session export (its format, session, events or messages), or the confirmed workspace is not an existing absolute directory or is `/`", body = ErrorBody)))]
pub async fn import_session(
    State(state): State<AppState>,
    super::extract::ApiQuery(q): super::extract::ApiQuery<ImportQuery>,
    ApiJson(doc): ApiJson<serde_json::Value>,
) -> ApiResult<(
    axum::http::StatusCode,
    axum::Json<crate::protocol::ImportResult>,
)> {
    let s = state.import_session(doc, q.workspace.as_deref()).await?;
    Ok((axum::http::StatusCode::CREATED, axum::Json(s)))
}
