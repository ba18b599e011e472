//! Web Push: the server's public key, browsers' subscriptions, and a test notification. A
//! prompt (approval, question, plan) then reaches every subscribed browser even when the app
//! is closed; a subscription goes when the device that registered it is signed out.

use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use std::sync::Arc;

use super::AppState;
use super::extract::ApiJson;
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{
    PushFailure, PushInfo, PushSubscribeParams, PushSubscription, PushTestResult,
};

fn push_of(state: &AppState) -> ApiResult<Arc<crate::push::Push>> {
    state
        .core
        .push()
        .cloned()
        .ok_or_else(|| ApiError::Unavailable("Web Push is off: the server has no push key".into()))
}

fn view(r: crate::store::PushSubscriptionRow, principal: &Principal) -> PushSubscription {
    let current = match principal {
        Principal::Cookie { login_session_id } => {
            r.login_session_id.as_deref() == Some(login_session_id.as_str())
        }
        Principal::Bearer { token_id } => {
            r.login_session_id.is_none() && r.token_id.as_deref() == token_id.as_deref()
        }
    };
    PushSubscription {
        origin: crate::push::origin_of(&r.endpoint),
        name: super::devices::device_name(r.user_agent.as_deref()),
        id: r.id,
        created_at: r.created_at,
        last_sent_at: r.last_sent_at,
        last_error: r.last_error,
        current,
    }
}

/// The server's Web Push key and the subscribed browsers.
///
/// `public_key` is the `applicationServerKey` a browser passes to `pushManager.subscribe`. The
/// list holds the subscriptions of live sign-ins, oldest first, with how the last delivery
/// went; endpoints are not shown back. 503 when the server has no push key.
#[utoipa::path(get, path = "/api/push", tag = "push",
    responses((status = 200, description = "The key and the subscriptions", body = PushInfo),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 503, description = "Web Push is off", body = ErrorBody)))]
pub async fn push_info(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
) -> ApiResult<axum::Json<PushInfo>> {
    let push = push_of(&state)?;
    let rows = state.core.store.live_push_subscriptions().await?;
    Ok(axum::Json(PushInfo {
        public_key: push
            .public_key()
            .map_err(ApiError::Unavailable)?
            .to_string(),
        data: rows.into_iter().map(|r| view(r, &principal)).collect(),
    }))
}

/// Subscribe a browser to Web Push.
///
/// The body is what `PushSubscription.toJSON()` returns. The endpoint must be `https` (plain
/// `http` only on loopback) and at most 2048 characters, `keys.p256dh` a 65-byte P-256 point
/// and `keys.auth` 16 bytes, both base64url. Registering the same endpoint again replaces its
/// keys. The subscription belongs to the caller's sign-in and is deleted when that device is
/// signed out or that token revoked.
#[utoipa::path(post, path = "/api/push/subscriptions", tag = "push",
    request_body = PushSubscribeParams,
    responses((status = 201, description = "Subscribed", body = PushSubscription),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "Not a valid subscription", body = ErrorBody),
              (status = 503, description = "Web Push is off", body = ErrorBody)))]
pub async fn subscribe(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    headers: HeaderMap,
    ApiJson(p): ApiJson<PushSubscribeParams>,
) -> ApiResult<(StatusCode, axum::Json<PushSubscription>)> {
    push_of(&state)?;
    crate::push::check_subscription(&p.endpoint, &p.keys.p256dh, &p.keys.auth)
        .map_err(ApiError::Validation)?;
    let (login_session_id, token_id) = match &principal {
        Principal::Cookie { login_session_id } => (Some(login_session_id.clone()), None),
        Principal::Bearer { token_id } => (None, token_id.clone()),
    };
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|u| crate::util::truncate_str(u, 512).to_string());
    let row = crate::store::PushSubscriptionRow {
        id: crate::util::new_id(),
        endpoint: p.endpoint,
        p256dh: p.keys.p256dh.trim_end_matches('=').to_string(),
        auth: p.keys.auth.trim_end_matches('=').to_string(),
        login_session_id,
        token_id,
        user_agent,
        created_at: crate::util::now_ms(),
        last_sent_at: None,
        last_error: None,
    };
    let stored = state.core.store.upsert_push_subscription(&row).await?;
    Ok((StatusCode::CREATED, axum::Json(view(stored, &principal))))
}

/// Unsubscribe a browser.
///
/// 404 when no subscription has this id.
#[utoipa::path(delete, path = "/api/push/subscriptions/{id}", tag = "push",
    params(("id" = String, Path, description = "Subscription id, as listed")),
    responses((status = 204, description = "Unsubscribed"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No subscription with this id", body = ErrorBody)))]
pub async fn unsubscribe(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    if state.core.store.delete_push_subscription(&id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("push subscription"))
    }
}

/// Send a test notification to every subscribed browser.
///
/// Waits for each push service's answer (at most 10 s each, all at once) and reports which
/// took it. A subscription its push service says is gone (404, 410) is deleted.
#[utoipa::path(post, path = "/api/push/test", tag = "push",
    responses((status = 200, description = "What each push service said", body = PushTestResult),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 503, description = "Web Push is off", body = ErrorBody)))]
pub async fn test_push(State(state): State<AppState>) -> ApiResult<axum::Json<PushTestResult>> {
    let push = push_of(&state)?;
    let notice = crate::push::Notice {
        title: "Tradewind".into(),
        body: "Notifications reach this device even when the app is closed.".into(),
        url: "/".into(),
        tag: "test".into(),
        session: String::new(),
    };
    let sent = push.send_all(&notice).await;
    let failed: Vec<PushFailure> = sent
        .iter()
        .filter_map(|d| {
            d.error.as_ref().map(|e| PushFailure {
                subscription: d.subscription.clone(),
                error: e.clone(),
            })
        })
        .collect();
    Ok(axum::Json(PushTestResult {
        sent: (sent.len() - failed.len()) as u32,
        failed,
    }))
}
