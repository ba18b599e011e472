//! Health, server configuration, the OpenAPI document.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::AppState;
use crate::error::ErrorBody;
use crate::protocol::{Health, ServerConfig};

/// Liveness probe; needs no authentication.
///
/// Always answers 200 while the server runs, with `status` `ok`, the server version, and
/// `password_login`: whether a password is set, so the login page knows whether to offer
/// password sign-in.
#[utoipa::path(get, path = "/api/health", tag = "server", security(()),
    responses((status = 200, description = "The server is up", body = Health)))]
pub async fn health(State(state): State<AppState>) -> axum::Json<Health> {
    axum::Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        password_login: state.auth.password_set().await.unwrap_or(false),
    })
}

/// The startup ceiling and switches (what the permission menu may offer).
///
/// Returns what was fixed when the server started: the version, the workspace, the permission
/// ceiling, the `read_only` and `yolo` switches, the extra roots, the process sandbox, and how
/// the server speaks TLS (mode, CA fingerprint, install page, the URL other devices use).
/// Nothing here changes while the server runs.
#[utoipa::path(get, path = "/api/config", tag = "server",
    responses((status = 200, description = "The server's startup configuration", body = ServerConfig),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn server_config(State(state): State<AppState>) -> axum::Json<ServerConfig> {
    let c = &state.cfg;
    axum::Json(ServerConfig {
        version: env!("CARGO_PKG_VERSION").into(),
        workspace: c.workspace.to_string_lossy().into_owned(),
        ceiling: c.ceiling_info(),
        read_only: c.read_only,
        yolo: c.yolo,
        default_mode: c.default_mode(),
        extra_roots: c.extra_roots_shown(),
        sandbox: state.core.sandbox().info().await,
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
        terminal: crate::protocol::TerminalInfo {
            enabled: super::terminal::refusal(&state).is_none(),
            reason: super::terminal::refusal(&state),
        },
    })
}

pub async fn openapi_doc() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        super::openapi_json(),
    )
}

/// The gate's dry run: what it would decide for one tool call. Nothing is executed.
///
/// The call is prepared exactly as in a run (arguments parsed, paths resolved, a shell command
/// parsed and classified) and judged by the same gate. Returns the decision (`allow`, `ask` or
/// `deny`) with every reason, the danger categories, and the simple commands the shell parser
/// saw, each with its own decision. With `session` it judges as in that session (workspace,
/// mode, agent, grants); without, as in a new session of the server's workspace. Arguments the
/// tool refuses (or a path that cannot be resolved) give `deny` with the reason, as in a run.
#[utoipa::path(post, path = "/api/policy/check", tag = "server", request_body = crate::protocol::PolicyCheckParams,
    responses((status = 200, description = "The gate's decision and its reasons", body = crate::protocol::PolicyCheckReport),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No session with the given `session` id, or no such tool", body = ErrorBody),
              (status = 422, description = "The body does not fit `PolicyCheckParams`, or `agent` names no agent the server's workspace has", body = ErrorBody)))]
pub async fn policy_check(
    axum::extract::State(state): axum::extract::State<super::AppState>,
    super::extract::ApiJson(p): super::extract::ApiJson<crate::protocol::PolicyCheckParams>,
) -> crate::error::ApiResult<axum::Json<crate::protocol::PolicyCheckReport>> {
    match state.policy_check(&p).await {
        Ok(report) => Ok(axum::Json(report)),
        Err(crate::services::ServiceError::NotFound("tool")) => Err(
            crate::error::ApiError::NotFound(format!("unknown tool `{}`", p.tool)),
        ),
        Err(e) => Err(e.into()),
    }
}

/// The folders of one folder, for choosing a workspace.
///
/// Lists the folders (never files) of `path` — an absolute folder under the server's home
/// folder; absent: the home folder — by name, at most 1,000: no hidden folder unless `hidden`,
/// never the server's state directory or a credential location (`.ssh`, `.aws` …), a symlink
/// only when it leads to a folder under the home folder. `parent` is the folder above while
/// it is still under the home folder. `warning` says why not to work in `path` itself (the home
/// folder), and `recent` lists the last 10 distinct workspaces of the sessions, each with its
/// warning (a system folder such as `/etc`, the home folder). 404 when the folder does not
/// exist; 422 when it is not absolute, not a folder, outside the home folder, or refused.
#[utoipa::path(get, path = "/api/fs/dirs", tag = "server", params(crate::protocol::DirsQuery),
    responses((status = 200, description = "The folders", body = crate::protocol::DirListing),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such folder", body = ErrorBody),
              (status = 422, description = "Not an absolute folder under the home folder, or one never listed", body = ErrorBody)))]
pub async fn list_dirs(
    State(state): State<AppState>,
    super::extract::ApiQuery(q): super::extract::ApiQuery<crate::protocol::DirsQuery>,
) -> crate::error::ApiResult<axum::Json<crate::protocol::DirListing>> {
    Ok(axum::Json(
        state.list_dirs(q.path.as_deref(), q.hidden).await?,
    ))
}
