//! Login, logout, whoami and API tokens.

use axum::extract::{Extension, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::extract::ApiJson;
use super::gate::{ClientAddr, clear_cookie, client_info, session_cookie};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{
    ApiToken, ApiTokenList, CreateTokenParams, CreatedToken, LoginParams, WhoAmI,
};

/// Sign in with the password; sets the HttpOnly session cookie.
#[utoipa::path(post, path = "/api/login", tag = "auth", request_body = LoginParams,
    responses((status = 204, description = "Signed in; cookie set"),
              (status = 401, body = ErrorBody), (status = 429, body = ErrorBody, description = "Too many failures; see Retry-After")))]
pub async fn login(
    State(state): State<AppState>,
    Extension(ClientAddr(ip)): Extension<ClientAddr>,
    headers: axum::http::HeaderMap,
    ApiJson(params): ApiJson<LoginParams>,
) -> ApiResult<Response> {
    if params.password.len() > 1024 {
        return Err(ApiError::Validation("password is too long".into()));
    }
    let client = client_info(&headers, ip);
    match state.auth.login(&client, &params.password).await? {
        Err(retry_after_secs) => Err(ApiError::RateLimited { retry_after_secs }),
        Ok(None) => Err(ApiError::Unauthorized),
        Ok(Some(secret)) => {
            let mut resp = StatusCode::NO_CONTENT.into_response();
            let cookie = session_cookie(&secret, state.face.secure, state.auth.max_age_secs());
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                resp.headers_mut().insert(header::SET_COOKIE, v);
            }
            Ok(resp)
        }
    }
}

/// Sign out: revokes this browser's login session.
#[utoipa::path(post, path = "/api/logout", tag = "auth",
    responses((status = 204, description = "Signed out"), (status = 401, body = ErrorBody)))]
pub async fn logout(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
) -> ApiResult<Response> {
    if let Principal::Cookie { login_session_id } = &principal {
        state.auth.logout(login_session_id).await?;
    }
    let mut resp = StatusCode::NO_CONTENT.into_response();
    if let Ok(v) = HeaderValue::from_str(&clear_cookie(state.face.secure)) {
        resp.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(resp)
}

/// Who is calling.
#[utoipa::path(get, path = "/api/whoami", tag = "auth",
    responses((status = 200, body = WhoAmI), (status = 401, body = ErrorBody)))]
pub async fn whoami(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
) -> ApiResult<axum::Json<WhoAmI>> {
    let password_set = state.auth.password_set().await?;
    Ok(axum::Json(match principal {
        Principal::Cookie { login_session_id } => WhoAmI {
            kind: "cookie".into(),
            login_session_id: Some(login_session_id),
            token_id: None,
            password_set,
        },
        Principal::Bearer { token_id } => WhoAmI {
            kind: "bearer".into(),
            login_session_id: None,
            token_id,
            password_set,
        },
    }))
}

/// List API tokens (never their secrets).
#[utoipa::path(get, path = "/api/tokens", tag = "auth",
    responses((status = 200, body = ApiTokenList), (status = 401, body = ErrorBody)))]
pub async fn list_tokens(State(state): State<AppState>) -> ApiResult<axum::Json<ApiTokenList>> {
    let rows = state.store.list_api_tokens().await?;
    Ok(axum::Json(ApiTokenList {
        data: rows
            .into_iter()
            .map(|r| ApiToken {
                id: r.id,
                name: r.name,
                created_at: r.created_at,
                last_used_at: r.last_used_at,
            })
            .collect(),
    }))
}

/// Create an API token for automation; the secret is returned once.
#[utoipa::path(post, path = "/api/tokens", tag = "auth", request_body = CreateTokenParams,
    responses((status = 201, body = CreatedToken), (status = 401, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn create_token(
    State(state): State<AppState>,
    ApiJson(params): ApiJson<CreateTokenParams>,
) -> ApiResult<(StatusCode, axum::Json<CreatedToken>)> {
    let name = params.name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::Validation(
            "name must be 1 to 100 characters".into(),
        ));
    }
    let (id, token) = state.auth.create_api_token(name).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(CreatedToken {
            id,
            name: name.to_string(),
            token,
        }),
    ))
}

/// Revoke an API token.
#[utoipa::path(delete, path = "/api/tokens/{id}", tag = "auth", params(("id" = String, Path)),
    responses((status = 204), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn revoke_token(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    state
        .auth
        .revoke_api_token(&id)
        .await
        .map_err(|e| match e {
            crate::store::StoreError::NotFound => ApiError::not_found("token"),
            other => other.into(),
        })?;
    Ok(StatusCode::NO_CONTENT)
}
