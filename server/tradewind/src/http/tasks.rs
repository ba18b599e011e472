//! Background tasks over REST (the UI's tasks panel), and the first-start probe for local model
//! servers.

use std::time::Duration;

use axum::extract::{Path, Query, State};
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
#[utoipa::path(get, path = "/api/sessions/{id}/tasks", tag = "tasks", params(("id" = String, Path)),
    responses((status = 200, body = TaskList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list_tasks(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TaskList>> {
    state.load_session(&id).await?;
    let rows = state.store.list_tasks(&id, None, 50).await?;
    Ok(axum::Json(TaskList {
        data: rows.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct OutputQuery {
    /// Byte offset (0 first, then the previous `next_offset`).
    pub offset: Option<u64>,
    /// Up to 65536 bytes (default 16384).
    pub limit: Option<usize>,
}

/// Read a task's output by byte offset.
#[utoipa::path(get, path = "/api/tasks/{id}/output", tag = "tasks", params(("id" = String, Path), OutputQuery),
    responses((status = 200, body = TaskOutput), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn task_output(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<OutputQuery>,
) -> ApiResult<axum::Json<TaskOutput>> {
    let row = state.store.get_task(&id).await.map_err(|e| match e {
        crate::store::StoreError::NotFound => ApiError::not_found("task"),
        o => o.into(),
    })?;
    // The user reading it is not the model reading it: keep the wake-up.
    let tasks = &state.runs.deps().tasks;
    let mut out = tasks
        .output_for_user(&row, q.offset.unwrap_or(0), q.limit)
        .await
        .map_err(task_error)?;
    out.id = row.id;
    Ok(axum::Json(out))
}

/// Stop a task (SIGTERM to its group, SIGKILL after 3 s); it ends cancelled, stopped by the user.
#[utoipa::path(post, path = "/api/tasks/{id}/stop", tag = "tasks", params(("id" = String, Path)),
    responses((status = 200, body = TaskInfo), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn stop_task(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TaskInfo>> {
    let row = state
        .runs
        .deps()
        .tasks
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
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProbeResult {
    pub servers: Vec<ProbedServer>,
}

/// OpenAI-compatible servers on this machine's loopback (Ollama, llama.cpp, LM Studio, vLLM),
/// found by asking each for `/v1/models` (the browser cannot: its CSP allows only this origin).
#[utoipa::path(get, path = "/api/setup/probe", tag = "server",
    responses((status = 200, body = ProbeResult), (status = 401, body = ErrorBody)))]
pub async fn probe(State(_state): State<AppState>) -> ApiResult<axum::Json<ProbeResult>> {
    const CANDIDATES: &[(&str, u16)] = &[
        ("Ollama", 11434),
        ("llama.cpp", 8080),
        ("LM Studio", 1234),
        ("vLLM", 8000),
    ];
    let client = reqwest::Client::builder()
        .timeout(Duration::from_millis(800))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ApiError::Internal(e.into()))?;
    let checks = CANDIDATES.iter().map(|(name, port)| {
        let client = client.clone();
        async move {
            let base = format!("http://127.0.0.1:{port}/v1");
            let r = client.get(format!("{base}/models")).send().await.ok()?;
            if !r.status().is_success() {
                return None;
            }
            let v: serde_json::Value = r.json().await.ok()?;
            let models = v
                .get("data")?
                .as_array()?
                .iter()
                .filter_map(|m| m.get("id")?.as_str().map(str::to_string))
                .take(200)
                .collect();
            Some(ProbedServer {
                name: name.to_string(),
                base_url: base,
                models,
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
