//! Health, server configuration, the OpenAPI document.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::AppState;
use crate::error::ErrorBody;
use crate::protocol::{Health, ServerConfig};

/// Liveness probe (no authentication).
#[utoipa::path(get, path = "/api/health", tag = "server", security(()),
    responses((status = 200, body = Health)))]
pub async fn health(State(state): State<AppState>) -> axum::Json<Health> {
    axum::Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        password_login: state.auth.password_set().await.unwrap_or(false),
    })
}

/// The startup ceiling and switches (what the permission menu may offer).
#[utoipa::path(get, path = "/api/config", tag = "server",
    responses((status = 200, body = ServerConfig), (status = 401, body = ErrorBody)))]
pub async fn server_config(State(state): State<AppState>) -> axum::Json<ServerConfig> {
    let c = &state.cfg;
    axum::Json(ServerConfig {
        version: env!("CARGO_PKG_VERSION").into(),
        workspace: c.workspace.to_string_lossy().into_owned(),
        ceiling: c.ceiling_info(),
        read_only: c.read_only,
        yolo: c.yolo,
        extra_roots: c.extra_roots_shown(),
        sandbox: state.deps().sandbox_info.clone(),
        tls: crate::protocol::TlsInfo {
            mode: state.face.tls_mode.to_string(),
            ca_fingerprint: state.face.ca.as_ref().map(|c| c.fingerprint.clone()),
            install_url: state
                .face
                .ca
                .as_ref()
                .map(|_| format!("{}/tls", state.face.url)),
            url: state.face.url.clone(),
        },
    })
}

pub async fn openapi_doc() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        super::openapi_json(),
    )
}

/// The gate's dry run: what it would decide for this tool call (every reason, the categories,
/// the simple commands the shell parser saw). Nothing is executed.
#[utoipa::path(post, path = "/api/policy/check", tag = "server", request_body = crate::protocol::PolicyCheckParams,
    responses((status = 200, body = crate::protocol::PolicyCheckReport), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn policy_check(
    axum::extract::State(state): axum::extract::State<super::AppState>,
    super::extract::ApiJson(p): super::extract::ApiJson<crate::protocol::PolicyCheckParams>,
) -> crate::error::ApiResult<axum::Json<crate::protocol::PolicyCheckReport>> {
    Ok(axum::Json(state.policy_check(&p).await?))
}
