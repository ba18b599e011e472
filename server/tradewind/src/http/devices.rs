//! Devices (browser sign-ins): list, revoke, and "Add a device" one-time links; the TLS
//! install page and CA download.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{Device, DeviceLink, DeviceList, DevicePatch};

/// The signed-in browsers: name, first and last seen, last address, which is this.
///
/// Lists the live login sessions (not revoked, not expired, and seen within `auth.idleDays`),
/// most recently seen first, each with a readable name from its user agent, when it signed in
/// and was last seen, its last address and when it expires. `current` marks the caller's own
/// when it calls with the session cookie. No paging.
#[utoipa::path(get, path = "/api/devices", tag = "devices",
    responses((status = 200, description = "The signed-in browsers", body = DeviceList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_devices(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
) -> ApiResult<axum::Json<DeviceList>> {
    let current = match &principal {
        Principal::Cookie { login_session_id } => Some(login_session_id.as_str()),
        Principal::Bearer { .. } => None,
    };
    let rows = state.auth.devices().await?;
    Ok(axum::Json(DeviceList {
        data: rows
            .into_iter()
            .map(|r| Device {
                name: r
                    .label
                    .clone()
                    .unwrap_or_else(|| device_name(r.user_agent.as_deref())),
                label: r.label,
                signin_ip: r.signin_ip.filter(|s| !s.is_empty()),
                current: current == Some(r.id.as_str()),
                id: r.id,
                user_agent: r.user_agent,
                created_at: r.created_at,
                last_seen_at: r.last_seen_at,
                last_ip: r.last_ip.filter(|s| !s.is_empty()),
                expires_at: r.expires_at,
            })
            .collect(),
    }))
}

/// Name a device (four "Chrome on Linux" told apart).
///
/// Sets the name shown for this signed-in browser; null or blank goes back to the name read
/// from its user agent. 1 to 60 characters, no control characters (422 otherwise). 404 when no
/// live device has this id.
#[utoipa::path(patch, path = "/api/devices/{id}", tag = "devices",
    params(("id" = String, Path, description = "Device id (its login session id), as listed")),
    request_body = DevicePatch,
    responses((status = 204, description = "Named"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No live device with this id", body = ErrorBody),
              (status = 422, description = "Not a usable name", body = ErrorBody)))]
pub async fn name_device(
    State(state): State<AppState>,
    Path(id): Path<String>,
    super::extract::ApiJson(body): super::extract::ApiJson<DevicePatch>,
) -> ApiResult<StatusCode> {
    let label = body
        .label
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty());
    if let Some(l) = label
        && (l.chars().count() > 60 || l.chars().any(char::is_control))
    {
        return Err(ApiError::Validation(
            "a device's name is 1 to 60 characters, with no control characters".into(),
        ));
    }
    state
        .store
        .label_login_session(&id, label)
        .await
        .map_err(|e| match e {
            crate::store::StoreError::NotFound => ApiError::not_found("device"),
            other => other.into(),
        })?;
    Ok(StatusCode::NO_CONTENT)
}

/// Sign a device out at once: its cookie stops working, its WebSockets close.
///
/// Revokes the login session with this id; it leaves the device list. Revoking the caller's
/// own device signs the caller out. 404 when no live login session has this id (unknown, or
/// already revoked).
#[utoipa::path(delete, path = "/api/devices/{id}", tag = "devices",
    params(("id" = String, Path, description = "Device id (its login session id), as listed")),
    responses((status = 204, description = "Signed out"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No live device with this id", body = ErrorBody)))]
pub async fn revoke_device(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    state.auth.revoke_device(&id).await.map_err(|e| match e {
        crate::store::StoreError::NotFound => ApiError::not_found("device"),
        other => other.into(),
    })?;
    Ok(StatusCode::NO_CONTENT)
}

/// "Add a device": a one-time sign-in link with its QR code.
///
/// Minted by a caller who is already signed in. The link (`<server URL>/?token=<code>`) is
/// single use and expires after 5 minutes; opening it signs the other device in. Returns the
/// URL, its expiry, the QR code as an SVG document, and `reachable_from_other_devices`: false
/// when the server listens on loopback only and has no `publicUrl`.
#[utoipa::path(post, path = "/api/devices/link", tag = "devices",
    responses((status = 201, description = "The one-time sign-in link", body = DeviceLink),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn device_link(
    State(state): State<AppState>,
) -> ApiResult<(StatusCode, axum::Json<DeviceLink>)> {
    let code = state.auth.mint_device_link()?;
    let url = format!("{}/?token={code}", state.face.url);
    let qr_svg = crate::qr::svg(&url)
        .map_err(|e| ApiError::Unavailable(format!("cannot draw the QR code: {e}")))?;
    Ok((
        StatusCode::CREATED,
        axum::Json(DeviceLink {
            qr_svg,
            url,
            expires_at: crate::util::now_ms() + crate::auth::links::DEVICE_LINK_TTL_MS,
            reachable_from_other_devices: !state.cfg.bind.is_loopback()
                || state.cfg.public_url.is_some(),
        }),
    ))
}

/// `/tls`, `/tls/ca.crt`, `/tls/ca.pem` (auto TLS only; public).
pub async fn tls_page(State(state): State<AppState>, uri: axum::http::Uri) -> Response {
    let Some(ca) = &state.face.ca else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match uri.path() {
        "/tls/ca.crt" => super::spa::tls_ca_file(ca, false),
        "/tls/ca.pem" => super::spa::tls_ca_file(ca, true),
        _ => super::spa::tls_install_page(ca, &state.face.url),
    }
}

/// "Firefox on Android", "Safari on iPhone", "curl" — enough to tell devices apart.
pub fn device_name(ua: Option<&str>) -> String {
    let Some(ua) = ua.filter(|u| !u.trim().is_empty()) else {
        return "Unknown device".into();
    };
    let browser = if ua.contains("Firefox/") || ua.contains("FxiOS/") {
        "Firefox"
    } else if ua.contains("Edg/") || ua.contains("EdgA/") || ua.contains("EdgiOS/") {
        "Edge"
    } else if ua.contains("OPR/") {
        "Opera"
    } else if ua.contains("SamsungBrowser/") {
        "Samsung Internet"
    } else if ua.contains("Chromium/") {
        "Chromium"
    } else if ua.contains("CriOS/") || ua.contains("Chrome/") {
        "Chrome"
    } else if ua.contains("Safari/") {
        "Safari"
    } else {
        // Tools: the product token ("curl/8.5" → "curl").
        let first = ua.split([' ', '/']).next().unwrap_or("Browser");
        return crate::util::truncate_str(first, 40).to_string();
    };
    let os = if ua.contains("iPhone") {
        "iPhone"
    } else if ua.contains("iPad") {
        "iPad"
    } else if ua.contains("Android") {
        "Android"
    } else if ua.contains("Mac OS X") || ua.contains("Macintosh") {
        "macOS"
    } else if ua.contains("Windows") {
        "Windows"
    } else if ua.contains("CrOS") {
        "ChromeOS"
    } else if ua.contains("Linux") {
        "Linux"
    } else {
        return browser.to_string();
    };
    format!("{browser} on {os}")
}

#[cfg(test)]
mod tests {
    use super::device_name;

    #[test]
    fn names_from_user_agents() {
        let cases = [
            (
                "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0",
                "Firefox on Android",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
                "Safari on iPhone",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
                "Chrome on Linux",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0",
                "Edge on Windows",
            ),
            ("curl/8.5.0", "curl"),
        ];
        for (ua, want) in cases {
            assert_eq!(device_name(Some(ua)), want, "{ua}");
        }
        assert_eq!(device_name(None), "Unknown device");
    }
}
