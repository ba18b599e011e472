//! The memory panel: what the agent keeps between sessions, to read, correct and delete.

use axum::extract::{Path, State};
use axum::http::StatusCode;

use super::AppState;
use super::extract::{ApiJson, ApiQuery};
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{Memory, MemoryList, MemoryQuery, PatchMemoryParams};

/// The memories a workspace's sessions see: its own and the user's.
///
/// `workspace` (absent: the server's) picks the workspace; `q` searches their text and keys
/// (any of the words, best matches first); without it, all of them, newest first (at most
/// 500). Each has its `scope` (`workspace` or `user`), `key`, `text` and times.
#[utoipa::path(get, path = "/api/memories", tag = "memories", params(MemoryQuery),
    responses((status = 200, description = "The memories", body = MemoryList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_memories(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<MemoryQuery>,
) -> ApiResult<axum::Json<MemoryList>> {
    Ok(axum::Json(
        state
            .list_memories(q.workspace.as_deref(), q.q.as_deref().unwrap_or(""))
            .await?,
    ))
}

/// Correct a memory's text.
///
/// `text` is 1 to 2000 characters; the memory keeps its id, scope and key. 404 when no memory
/// has this id.
#[utoipa::path(patch, path = "/api/memories/{id}", tag = "memories", request_body = PatchMemoryParams,
    params(("id" = String, Path, description = "Memory id")),
    responses((status = 200, description = "The memory", body = Memory),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such memory", body = ErrorBody),
              (status = 422, description = "A blank or too long text", body = ErrorBody)))]
pub async fn patch_memory(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::MemoryId>,
    ApiJson(p): ApiJson<PatchMemoryParams>,
) -> ApiResult<axum::Json<Memory>> {
    Ok(axum::Json(state.edit_memory(&id, &p.text).await?))
}

/// Delete a memory.
///
/// Later prompts no longer carry it. 404 when no memory has this id.
#[utoipa::path(delete, path = "/api/memories/{id}", tag = "memories",
    params(("id" = String, Path, description = "Memory id")),
    responses((status = 204, description = "Deleted"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such memory", body = ErrorBody)))]
pub async fn delete_memory(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::MemoryId>,
) -> ApiResult<StatusCode> {
    state.forget_memory(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
