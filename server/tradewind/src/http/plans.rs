//! Questions, plan decisions and artifacts.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::ArtifactList;
use crate::protocol::{AnswerParams, PlanDecision, PlanDecisionParams};
use crate::services::OrNotFound;

#[derive(Debug, Serialize, ToSchema)]
pub struct QuestionAnswered {
    pub question_id: String,
}

/// Answer an `ask_user_question` (null skips a question).
///
/// `answers` holds one entry per question, in order: the chosen option labels (exactly one, or
/// one or more for a multi-select question), or null to skip that question. Each question is
/// answered once: the waiting run continues with the answers and a `question_answered` event
/// is recorded. A question expires when the run is cancelled or waits too long.
#[utoipa::path(post, path = "/api/questions/{id}", tag = "prompts",
    params(("id" = String, Path, description = "Question id (`question_id` in the pending list)")),
    request_body = AnswerParams,
    responses((status = 200, description = "Answered", body = QuestionAnswered),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such question", body = ErrorBody),
              (status = 409, description = "The question was already answered or has expired", body = ErrorBody),
              (status = 422, description = "Not one entry per question, or a label that is not one of the question's options", body = ErrorBody)))]
pub async fn answer_question(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::QuestionId>,
    ApiJson(p): ApiJson<AnswerParams>,
) -> ApiResult<axum::Json<QuestionAnswered>> {
    state.answer_question(&id, p.answers).await?;
    Ok(axum::Json(QuestionAnswered {
        question_id: id.into_string(),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlanDecisionResponse {
    pub plan_id: String,
    pub decision: PlanDecision,
}

/// Decide a pending plan: approve it, send feedback, or skip it.
///
/// `approved`: when the plan run ends, the session switches to the build agent and a run that
/// implements the plan starts. `feedback`, with its text in `feedback` (at most 20000
/// characters): the plan agent revises. `skipped`: the plan agent stays in plan mode. A plan is
/// decided once; the waiting run continues and a `plan_decided` event is recorded.
#[utoipa::path(post, path = "/api/plans/{id}/decision", tag = "prompts",
    params(("id" = String, Path, description = "Plan id (`plan_id` in the pending list)")),
    request_body = PlanDecisionParams,
    responses((status = 200, description = "Decided", body = PlanDecisionResponse),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such plan", body = ErrorBody),
              (status = 409, description = "The plan was already decided (or expired as skipped)", body = ErrorBody),
              (status = 422, description = "`unavailable`, `feedback` without text, feedback over 20000 characters, a `mode` without `approved`, or a mode above the server's ceiling", body = ErrorBody)))]
pub async fn decide_plan(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::PlanId>,
    ApiJson(p): ApiJson<PlanDecisionParams>,
) -> ApiResult<axum::Json<PlanDecisionResponse>> {
    let decision = PlanDecision::from(p.decision);
    state
        .decide_plan_in_mode(&id, (decision, p.feedback), p.mode)
        .await?;
    Ok(axum::Json(PlanDecisionResponse {
        plan_id: id.into_string(),
        decision,
    }))
}

/// Report diagrams of a pending plan that failed to render in the browser.
///
/// `errors` holds 1 to 10 items, each a `diagram_id` (1 to 80 characters) and Mermaid's
/// `message` (1 to 2000 characters). They are kept with the plan, replacing any earlier
/// report, and the model hears them with the decision so it can fix the diagrams. Only while
/// the plan waits for a decision (409 once the plan is decided).
#[utoipa::path(post, path = "/api/plans/{id}/render-errors", tag = "prompts",
    params(("id" = String, Path, description = "Plan id")),
    request_body = crate::protocol::RenderErrorsParams,
    responses((status = 204, description = "Recorded"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such plan", body = ErrorBody),
              (status = 409, description = "The plan is no longer waiting for a decision", body = ErrorBody),
              (status = 422, description = "No errors, more than 10, or an empty or too long `diagram_id` or `message`", body = ErrorBody)))]
pub async fn plan_render_errors(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::PlanId>,
    ApiJson(p): ApiJson<crate::protocol::RenderErrorsParams>,
) -> ApiResult<axum::http::StatusCode> {
    state.report_render_errors(&id, &p.errors).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// A session's artifacts (plan revisions), oldest first.
///
/// Each artifact has its id, kind, name, revision, title and the files it lists. Read one file
/// with `GET /api/artifacts/{id}/files/{path}`, or get them all with
/// `GET /api/artifacts/{id}/download`. No paging.
#[utoipa::path(get, path = "/api/sessions/{id}/artifacts", tag = "artifacts",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session's artifacts", body = ArtifactList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_artifacts(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<ArtifactList>> {
    state.load_session(&id).await?;
    let rows = state.store.list_artifacts(&id).await?;
    let data = crate::services::views::artifacts(rows);
    Ok(axum::Json(ArtifactList { data }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FileQuery {
    /// `1`: show as text in the browser instead of downloading (the type is always
    /// `text/plain`). Omitted or any other value: sent as an attachment.
    pub inline: Option<String>,
}

fn artifact_dir(state: &AppState, rel: &str) -> std::path::PathBuf {
    state.cfg.state_dir.join("artifacts").join(rel)
}

/// One file of an artifact, served so that it can never run in this origin.
///
/// Only a file the artifact lists can be read (`path` exactly as listed, so no traversal is
/// possible). The body is the file's bytes, always as `text/plain; charset=utf-8` with a
/// `sandbox` CSP: shown inline with `inline=1`, otherwise as an attachment named after the
/// file. 404 when there is no such artifact, or the file is not listed or missing on disk.
#[utoipa::path(get, path = "/api/artifacts/{id}/files/{path}", tag = "artifacts",
    params(("id" = String, Path, description = "Artifact id"),
           ("path" = String, Path, description = "The file's path inside the artifact, as in its `files` list (may contain `/`)"),
           FileQuery),
    responses((status = 200, description = "The file"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such artifact, or no such file in it", body = ErrorBody)))]
pub async fn artifact_file(
    State(state): State<AppState>,
    Path((id, path)): Path<(crate::protocol::ArtifactId, String)>,
    super::extract::ApiQuery(q): super::extract::ApiQuery<FileQuery>,
) -> ApiResult<Response> {
    let row = state
        .store
        .get_artifact(&id)
        .await
        .or_not_found("artifact")?;
    let (_, meta) = crate::services::views::artifact(row.clone())?;
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
    if q.inline.as_deref() != Some("1") {
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
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    /// `zip` (default) or `tar`; any other value gives 422.
    pub format: Option<String>,
}

/// The artifact folder as a zip or tar archive.
///
/// Packs every regular file under the artifact's folder (symbolic links are not followed),
/// each under a `{kind}-r{revision}/` prefix, and sends it as the attachment
/// `{kind}-r{revision}.zip` (`application/zip`) or `.tar` (`application/x-tar`). 404 when there
/// is no such artifact or its folder cannot be read; 422 for an unknown `format`.
#[utoipa::path(get, path = "/api/artifacts/{id}/download", tag = "artifacts",
    params(("id" = String, Path, description = "Artifact id"), DownloadQuery),
    responses((status = 200, description = "The archive"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such artifact, or its files cannot be read", body = ErrorBody),
              (status = 422, description = "`format` is not `zip` or `tar`", body = ErrorBody)))]
pub async fn download_artifact(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::ArtifactId>,
    super::extract::ApiQuery(q): super::extract::ApiQuery<DownloadQuery>,
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
