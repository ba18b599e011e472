//! Questions, plan decisions and artifacts.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::plan::{ArtifactFile, PlanRevision};
use crate::protocol::{AnswerParams, PlanDecision, PlanDecisionParams};
use crate::services::OrNotFound;

#[derive(Debug, Serialize, ToSchema)]
pub struct QuestionAnswered {
    pub question_id: String,
}

/// Answer an `ask_user_question` (null skips a question).
#[utoipa::path(post, path = "/api/questions/{id}", tag = "runs", params(("id" = String, Path)), request_body = AnswerParams,
    responses((status = 200, body = QuestionAnswered), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn answer_question(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<AnswerParams>,
) -> ApiResult<axum::Json<QuestionAnswered>> {
    state.answer_question(&id, p.answers).await?;
    Ok(axum::Json(QuestionAnswered { question_id: id }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlanDecisionResponse {
    pub plan_id: String,
    pub decision: PlanDecision,
}

/// Approve a plan (the session switches to build and the implementation starts when the plan run
/// ends), send feedback (the plan agent revises), or skip.
#[utoipa::path(post, path = "/api/plans/{id}/decision", tag = "runs", params(("id" = String, Path)), request_body = PlanDecisionParams,
    responses((status = 200, body = PlanDecisionResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn decide_plan(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<PlanDecisionParams>,
) -> ApiResult<axum::Json<PlanDecisionResponse>> {
    state.decide_plan(&id, (p.decision, p.feedback)).await?;
    Ok(axum::Json(PlanDecisionResponse {
        plan_id: id,
        decision: p.decision,
    }))
}

/// Report diagrams of a pending plan that failed to render in the browser; the model hears them
/// with the decision (409 once the plan is decided).
#[utoipa::path(post, path = "/api/plans/{id}/render-errors", tag = "runs", params(("id" = String, Path)),
    request_body = crate::protocol::RenderErrorsParams,
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn plan_render_errors(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<crate::protocol::RenderErrorsParams>,
) -> ApiResult<axum::http::StatusCode> {
    state.report_render_errors(&id, &p.errors).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Artifact {
    pub id: String,
    pub kind: String,
    pub name: String,
    pub revision: i64,
    pub title: Option<String>,
    pub files: Vec<ArtifactFile>,
    pub created_at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ArtifactList {
    pub data: Vec<Artifact>,
}

/// A session's artifacts (plan revisions), oldest first.
#[utoipa::path(get, path = "/api/sessions/{id}/artifacts", tag = "artifacts", params(("id" = String, Path)),
    responses((status = 200, body = ArtifactList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list_artifacts(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ArtifactList>> {
    state.load_session(&id).await?;
    let rows = state.store.list_artifacts(&id).await?;
    let data = rows
        .into_iter()
        .map(|r| {
            let meta: Option<PlanRevision> = serde_json::from_str(&r.meta).ok();
            Artifact {
                title: meta.as_ref().and_then(|m| m.title.clone()),
                files: meta.map(|m| m.files).unwrap_or_default(),
                id: r.id,
                kind: r.kind,
                name: r.name,
                revision: r.revision,
                created_at: r.created_at,
            }
        })
        .collect();
    Ok(axum::Json(ArtifactList { data }))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct FileQuery {
    /// Show as text in the browser instead of downloading (always `text/plain`).
    pub inline: Option<u8>,
}

fn artifact_dir(state: &AppState, rel: &str) -> std::path::PathBuf {
    state.cfg.state_dir.join("artifacts").join(rel)
}

/// One file of an artifact. Served as `text/plain` with a sandbox CSP (inline) or as an
/// attachment: it can never run in this origin.
#[utoipa::path(get, path = "/api/artifacts/{id}/files/{path}", tag = "artifacts", params(("id" = String, Path), ("path" = String, Path), FileQuery),
    responses((status = 200, description = "The file"), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn artifact_file(
    State(state): State<AppState>,
    Path((id, path)): Path<(String, String)>,
    Query(q): Query<FileQuery>,
) -> ApiResult<Response> {
    let row = state
        .store
        .get_artifact(&id)
        .await
        .or_not_found("artifact")?;
    let meta: PlanRevision =
        serde_json::from_str(&row.meta).map_err(|e| ApiError::Internal(e.into()))?;
    // Only the files the artifact lists: no traversal is possible.
    let file = meta
        .files
        .iter()
        .find(|f| f.path == path)
        .ok_or_else(|| ApiError::not_found("file"))?;
    let bytes = tokio::fs::read(artifact_dir(&state, &row.path).join(&file.path))
        .await
        .map_err(|_| ApiError::not_found("file"))?;
    let mut resp = (StatusCode::OK, bytes).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox; default-src 'none'"),
    );
    if q.inline != Some(1) {
        let name = file
            .path
            .rsplit('/')
            .next()
            .unwrap_or("file")
            .replace(['"', '\\', '\r', '\n'], "_");
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
            h.insert(header::CONTENT_DISPOSITION, v);
        }
    }
    Ok(resp)
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct DownloadQuery {
    /// `zip` (default) or `tar`.
    pub format: Option<String>,
}

/// The artifact folder as a zip or tar archive.
#[utoipa::path(get, path = "/api/artifacts/{id}/download", tag = "artifacts", params(("id" = String, Path), DownloadQuery),
    responses((status = 200, description = "The archive"), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn download_artifact(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<DownloadQuery>,
) -> ApiResult<Response> {
    let row = state
        .store
        .get_artifact(&id)
        .await
        .or_not_found("artifact")?;
    let dir = artifact_dir(&state, &row.path);
    let files = tokio::task::spawn_blocking(move || crate::artifacts::collect(&dir))
        .await
        .map_err(|e| ApiError::Internal(e.into()))?
        .map_err(|_| ApiError::not_found("artifact files"))?;
    let prefix = format!("{}-r{}", row.kind, row.revision);
    let (bytes, ctype, ext) = match q.format.as_deref().unwrap_or("zip") {
        "zip" => (
            crate::artifacts::zip(&prefix, &files),
            "application/zip",
            "zip",
        ),
        "tar" => (
            crate::artifacts::tar(&prefix, &files),
            "application/x-tar",
            "tar",
        ),
        other => {
            return Err(ApiError::Validation(format!(
                "format `{other}` is not zip or tar"
            )));
        }
    };
    let mut resp = (StatusCode::OK, bytes).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ctype));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{prefix}.{ext}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}
