//! Background tasks over REST (the UI's tasks panel), and the first-start probe for local model
//! servers.

use std::time::Duration;

use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::tasks::{TaskError, TaskInfo, TaskOutput};

fn task_error(e: TaskError) -> ApiError {
    match e {
        TaskError::NotFound => ApiError::not_found("task"),
        TaskError::Invalid(m) => ApiError::Validation(m),
        TaskError::Limit(m) => ApiError::Conflict(m),
        TaskError::Store(s) => s.into(),
        TaskError::Io(m) => ApiError::Internal(anyhow::anyhow!(m)),
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TaskList {
    pub data: Vec<TaskInfo>,
}

/// A session's background tasks, newest first (last 50).
///
/// Returns at most the 50 most recently created tasks (shell commands the model started with
/// `bg_run`), live and ended, each with its command, working directory, status, exit code, who
/// stopped it and its timestamps. There is no paging; finished tasks are deleted after
/// `tasks.retentionDays`.
#[utoipa::path(get, path = "/api/sessions/{id}/tasks", tag = "tasks",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session's tasks", body = TaskList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_tasks(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<TaskList>> {
    state.load_session(&id).await?;
    let rows = state.store.list_tasks(&id, None, 50).await?;
    Ok(axum::Json(TaskList {
        data: rows.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OutputQuery {
    /// Byte offset to read from (default 0; then the previous `next_offset`); at most 2^53 − 1.
    #[param(minimum = 0, maximum = 9_007_199_254_740_991_u64)]
    pub offset: Option<u64>,
    /// Most bytes to return: 1 to 65536 (default 16384); outside that range the call fails
    /// with 422.
    #[param(minimum = 1, maximum = 65536)]
    pub limit: Option<u64>,
}

/// Read a task's output by byte offset.
///
/// Returns up to `limit` bytes of the log from `offset` as text (cut back so a UTF-8 character
/// is never split), `next_offset` to read on from, the task's status and exit code, `eof`
/// (true only once the task has ended and everything was read) and `output_truncated` (the log
/// kept only the first `tasks.maxOutputBytes` and the end). Unlike the model reading the log,
/// this does not cancel the wake-up the session gets when the task ends by itself.
#[utoipa::path(get, path = "/api/tasks/{id}/output", tag = "tasks",
    params(("id" = String, Path, description = "Task id"), OutputQuery),
    responses((status = 200, description = "A slice of the task's log", body = TaskOutput),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such task", body = ErrorBody)))]
pub async fn task_output(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::TaskId>,
    super::extract::ApiQuery(q): super::extract::ApiQuery<OutputQuery>,
) -> ApiResult<axum::Json<TaskOutput>> {
    if q.offset
        .is_some_and(|o| o > crate::protocol::MAX_SAFE_INTEGER as u64)
    {
        return Err(ApiError::Validation(
            "offset must be at most 2^53 - 1".into(),
        ));
    }
    let limit = match q.limit {
        None => None,
        Some(n @ 1..=65536) => Some(n as usize),
        Some(_) => {
            return Err(ApiError::Validation(
                "limit must be between 1 and 65536".into(),
            ));
        }
    };
    let row = state.store.get_task(&id).await.map_err(|e| match e {
        crate::store::StoreError::NotFound => ApiError::not_found("task"),
        o => o.into(),
    })?;
    // The user reading it is not the model reading it: keep the wake-up.
    let tasks = state.core.tasks();
    let mut out = tasks
        .output_for_user(&row, q.offset.unwrap_or(0), limit)
        .await
        .map_err(task_error)?;
    out.id = row.id.into();
    Ok(axum::Json(out))
}

/// Stop a task; it ends `cancelled`, stopped by the user.
///
/// Sends SIGTERM to the task's process group and SIGKILL after 3 s, waits up to about 5 s for
/// the task to end, and returns it as it is then. The change is recorded as `task_updated`
/// events. A task that has already ended is returned unchanged. A task stopped by the user does
/// not wake its session.
#[utoipa::path(post, path = "/api/tasks/{id}/stop", tag = "tasks",
    params(("id" = String, Path, description = "Task id")),
    responses((status = 200, description = "The task after the stop", body = TaskInfo),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such task", body = ErrorBody)))]
pub async fn stop_task(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::TaskId>,
) -> ApiResult<axum::Json<TaskInfo>> {
    let row = state
        .core
        .tasks()
        .stop(None, &id, crate::protocol::TaskStopper::User)
        .await
        .map_err(task_error)?;
    Ok(axum::Json(row.into()))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProbedServer {
    pub name: String,
    pub base_url: String,
    pub models: Vec<String>,
    /// The same models with what the server says of each (window, tools, images, size), as
    /// `GET /api/models` gives them.
    pub details: Vec<crate::protocol::ModelInfo>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProbeResult {
    pub servers: Vec<ProbedServer>,
}

/// Find OpenAI-compatible model servers on this machine's loopback (setup).
///
/// Asks `http://127.0.0.1:<port>/v1/models` on the default ports of Ollama (11434), llama.cpp
/// (8080), LM Studio (1234) and vLLM (8000), each with an 800 ms timeout and no redirects, and
/// returns the servers that answered with a model list: name, base URL, up to 200 model ids, and
/// the same models with what the server says of each (`details`: window, tools, images, size).
/// The server asks because the browser cannot: its CSP allows only this origin.
#[utoipa::path(get, path = "/api/setup/probe", tag = "settings",
    responses((status = 200, description = "The servers found (possibly none)", body = ProbeResult),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn probe(State(_state): State<AppState>) -> ApiResult<axum::Json<ProbeResult>> {
    const CANDIDATES: &[(&str, u16)] = &[
        ("Ollama", 11434),
        ("llama.cpp", 8080),
        ("LM Studio", 1234),
        ("vLLM", 8000),
    ];
    let client = crate::http_client::shared(crate::http_client::Policy {
        timeout: Some(Duration::from_millis(800)),
        ..crate::http_client::Policy::direct(Duration::from_millis(800))
    })
    .map_err(|e| ApiError::Internal(anyhow::anyhow!(e)))?;
    let checks = CANDIDATES.iter().map(|(name, port)| {
        let client = client.clone();
        async move {
            let base = format!("http://127.0.0.1:{port}/v1");
            let r = client.get(format!("{base}/models")).send().await.ok()?;
            if !r.status().is_success() {
                return None;
            }
            let v: serde_json::Value = r.json().await.ok()?;
            let models: Vec<String> = v
                .get("data")?
                .as_array()?
                .iter()
                .filter_map(|m| m.get("id")?.as_str().map(str::to_string))
                .take(200)
                .collect();
            let listed = models.iter().map(|m| (m.clone(), None)).collect();
            let details = tradewind_core::provider::server::describe(&client, &base, None, listed)
                .await
                .into_iter()
                .map(tradewind_core::provider::server::ListedModel::into_info)
                .collect();
            Some(ProbedServer {
                name: name.to_string(),
                base_url: base,
                models,
                details,
            })
        }
    });
    let servers = futures::future::join_all(checks)
        .await
        .into_iter()
        .flatten()
        .collect();
    Ok(axum::Json(ProbeResult { servers }))
}
