//! Login, logout, whoami and API tokens.

use axum::extract::{Extension, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::extract::ApiJson;
use super::gate::{ClientAddr, Granted, PAGE_HEADER, clear_cookie, client_info, session_cookie};
use crate::auth::{Principal, Scopes, TICKET_TTL};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{
    ApiToken, ApiTokenList, CreateTokenParams, CreatedToken, LoginParams, StreamTicket, WhoAmI,
};

/// Sign in with the password; sets the HttpOnly session cookie.
///
/// Needs no prior authentication. On success answers 204 with a `Set-Cookie` for a new login
/// session, which then appears in the device list, and the sign-in's page token in the
/// `X-Tradewind-Page` header: the page keeps it (never in a cookie) and sends it with every
/// request, since the cookie alone authorises nothing but the app's static files. A wrong password, or no password set on the
/// server, gives 401. Each client address gets 10 failed attempts per 60 seconds; beyond that
/// the password is not checked and the answer is 429 with `Retry-After`. A password longer
/// than 1024 bytes is refused with 422.
#[utoipa::path(post, path = "/api/login", tag = "auth", request_body = LoginParams, security(()),
    responses((status = 204, description = "Signed in; cookie set, page token in `X-Tradewind-Page`",
                 headers(("X-Tradewind-Page" = String, description = "The sign-in's page token"))),
              (status = 401, description = "Wrong password, or no password is set", body = ErrorBody),
              (status = 422, body = ErrorBody, description = "The password is longer than 1024 bytes"),
              (status = 429, body = ErrorBody, description = "Too many failures; see Retry-After")))]
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
        Ok(Some(sign_in)) => {
            let mut resp = StatusCode::NO_CONTENT.into_response();
            let cookie = session_cookie(
                &sign_in.secret,
                state.face.secure,
                state.auth.max_age_secs(),
            );
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                resp.headers_mut().insert(header::SET_COOKIE, v);
            }
            if let Ok(v) = HeaderValue::from_str(&sign_in.page_token) {
                resp.headers_mut().insert(PAGE_HEADER, v);
            }
            Ok(resp)
        }
    }
}

/// Sign out: revokes this browser's login session.
///
/// With the session cookie, the login session is revoked at once (it leaves the device list
/// and its open WebSockets close) and the response clears the cookie. With a bearer token
/// nothing is revoked; the response still carries the cookie-clearing `Set-Cookie`. Use
/// `DELETE /api/tokens/{id}` to revoke an API token.
#[utoipa::path(post, path = "/api/logout", tag = "auth",
    responses((status = 204, description = "Signed out"),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
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

/// Who is calling: a browser sign-in or a bearer token.
///
/// Returns `kind` (`cookie` for a browser login session, `bearer` for the access token or an
/// API token), the login session id for a cookie, the API token's id for an API token (null
/// for the access token), `password_set`: whether a password exists for password sign-in,
/// `scopes`: what the caller may do, and for a browser sign-in the `view_token` its page adds
/// as `?view=` to addresses the browser loads itself (artifact files and downloads,
/// attachments).
#[utoipa::path(get, path = "/api/whoami", tag = "auth",
    responses((status = 200, description = "The caller's identity", body = WhoAmI),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn whoami(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Extension(Granted(scopes)): Extension<Granted>,
) -> ApiResult<axum::Json<WhoAmI>> {
    let password_set = state.auth.password_set().await?;
    Ok(axum::Json(match principal {
        Principal::Cookie { login_session_id } => WhoAmI {
            kind: "cookie".into(),
            view_token: Some(state.auth.view_token(&login_session_id)?),
            login_session_id: Some(login_session_id),
            token_id: None,
            password_set,
            scopes: scopes.list(),
        },
        Principal::Bearer { token_id } => WhoAmI {
            kind: "bearer".into(),
            login_session_id: None,
            token_id,
            password_set,
            scopes: scopes.list(),
            view_token: None,
        },
    }))
}

/// A single-use ticket for one event stream, for clients that cannot send headers.
///
/// `EventSource` sends no `Authorization` or `X-Tradewind-Page` header: get a ticket with them
/// here and open `GET /api/sessions/{id}/events/stream?ticket=…` within 60 seconds. The ticket
/// works once and stands for its caller (same scopes) only while that sign-in or token is live:
/// once it is revoked (signed out, device removed, token deleted) the ticket opens nothing
/// (401), and a stream it opened ends.
#[utoipa::path(post, path = "/api/tickets", tag = "events",
    responses((status = 201, description = "The ticket", body = StreamTicket),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn create_ticket(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Extension(Granted(scopes)): Extension<Granted>,
) -> ApiResult<(StatusCode, axum::Json<StreamTicket>)> {
    let ticket = state.auth.mint_ticket(&principal, scopes)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(StreamTicket {
            ticket,
            expires_in_secs: TICKET_TTL.as_secs(),
        }),
    ))
}

/// List API tokens (never their secrets).
///
/// Returns every API token that has not been revoked, oldest first, with its id, name,
/// creation time and when it was last used. The access token printed at start is not an API
/// token and is not listed. No paging.
#[utoipa::path(get, path = "/api/tokens", tag = "auth",
    responses((status = 200, description = "The live API tokens", body = ApiTokenList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_tokens(State(state): State<AppState>) -> ApiResult<axum::Json<ApiTokenList>> {
    let rows = state.store.list_api_tokens().await?;
    Ok(axum::Json(ApiTokenList {
        data: rows
            .into_iter()
            .map(|r| ApiToken {
                scopes: Scopes::parse(&r.scopes).list(),
                id: r.id,
                name: r.name,
                created_at: r.created_at,
                last_used_at: r.last_used_at,
            })
            .collect(),
    }))
}

/// Create an API token for automation; the secret is returned once.
///
/// `name` is trimmed and must be 1 to 100 characters; `scopes` (default `["read", "prompt"]`;
/// `read` is always included) say what it may do — `admin` is needed to answer approvals and
/// plans, change modes, approve workspace config, connect MCP servers, edit providers and make
/// tokens or device links. Needs `admin` itself. The response holds the token's id, name,
/// scopes and secret (`tw_` and 64 hex digits). Only a SHA-256 hash of the secret is stored, so it
/// cannot be shown again. Send it as `Authorization: Bearer <secret>`.
#[utoipa::path(post, path = "/api/tokens", tag = "auth", request_body = CreateTokenParams,
    responses((status = 201, description = "The new token with its secret (shown only this once)", body = CreatedToken),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "`name` is empty or longer than 100 characters", body = ErrorBody)))]
pub async fn create_token(
    State(state): State<AppState>,
    ApiJson(params): ApiJson<CreateTokenParams>,
) -> ApiResult<(StatusCode, axum::Json<CreatedToken>)> {
    if params.name.trim().is_empty() || params.name.chars().count() > 100 {
        return Err(ApiError::Validation(
            "name must be 1 to 100 characters".into(),
        ));
    }
    let name = params.name.trim();
    let scopes = params.scopes.as_deref().map_or(Scopes::DEFAULT, Scopes::of);
    let (id, token) = state.auth.create_api_token(name, scopes).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(CreatedToken {
            id,
            name: name.to_string(),
            token,
            scopes: scopes.list(),
        }),
    ))
}

/// Revoke an API token.
///
/// The token stops authenticating at once, and WebSocket connections opened with it close.
/// Revocation cannot be undone; create a new token instead. 404 when no live token has this id
/// (unknown, or already revoked).
#[utoipa::path(delete, path = "/api/tokens/{id}", tag = "auth",
    params(("id" = String, Path, description = "API token id, as listed")),
    responses((status = 204, description = "Revoked"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No live API token with this id", body = ErrorBody)))]
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
