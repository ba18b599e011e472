//! The header gates every request passes before any handler (SECURITY.md rules 1–3):
//! (a) Host allow-list against DNS rebinding; (b) authentication (bearer, or the login cookie);
//! (c) for state-changing requests and WebSocket upgrades, `Origin` must be one of our own
//! origins — mandatory for cookie-authenticated upgrades; (d) state-changing API requests carry
//! `Content-Type: application/json`, which blocks cross-site simple-request forms.
//! No CORS headers are ever added. Security headers go on every response.

use std::net::{IpAddr, SocketAddr};

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
pub use super::extract::{Granted, PageInFirstFrame};
use crate::auth::{COOKIE_NAME, COOKIE_NAME_TLS, ClientInfo, LaunchOutcome, Principal, Scopes};
use crate::error::ApiError;
use crate::protocol::TokenScope;

/// The header that carries a browser sign-in's page token.
pub const PAGE_HEADER: &str = "x-tradewind-page";

pub const CSP_APP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/// The offline API reference (Swagger UI) needs inline styles.
pub const CSP_DOCS: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// Which `Host` names the server answers to.
#[derive(Debug, Clone)]
pub struct HostPolicy {
    names: Vec<String>,
}

impl HostPolicy {
    pub fn new(configured: &[String], bind: IpAddr) -> HostPolicy {
        let mut names: Vec<String> = ["localhost"].iter().map(|s| s.to_string()).collect();
        names.extend(configured.iter().map(|n| n.to_ascii_lowercase()));
        names.push(bind.to_string());
        HostPolicy { names }
    }

    /// Loopback names, any IP literal, and the configured names.
    pub fn allows(&self, host_header: &str) -> bool {
        let host = strip_port(host_header).to_ascii_lowercase();
        // The absolute form `localhost.` names the same host as `localhost`.
        let host = host.strip_suffix('.').unwrap_or(&host).to_string();
        if host.is_empty() {
            return false;
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_ok() {
            return true;
        }
        self.names.iter().any(|n| n == &host)
    }
}

fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(i) => &host[..=i],
            None => host,
        };
    }
    match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    }
}

fn host_of(req: &Request) -> Option<String> {
    req.headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
}

fn is_public(method: &Method, path: &str) -> bool {
    if path == "/api/health"
        || path == "/api/login"
        || path == "/login"
        || path == "/login.js"
        || path == "/auth.css"
    {
        return true;
    }
    if path == "/api/openapi.json" || path == "/api/docs" || path.starts_with("/api/docs/") {
        return true;
    }
    // The SPA shell and its assets: the app itself shows the sign-in screen.
    (method == Method::GET || method == Method::HEAD) && !path.starts_with("/api")
}

pub fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    axum_extra::extract::CookieJar::from_headers(headers)
        .get(name)
        .map(|c| c.value().to_string())
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    use axum_extra::headers::authorization::{Authorization, Bearer};
    axum_extra::headers::HeaderMapExt::typed_get::<Authorization<Bearer>>(headers)
        .map(|a| a.token().to_string())
}

async fn authenticate(
    state: &AppState,
    headers: &HeaderMap,
    ip: IpAddr,
) -> Result<Option<Principal>, ApiError> {
    Ok(authenticate_scoped(state, headers, ip)
        .await?
        .map(|(p, _)| p))
}

/// Who calls, and what they may do (a cookie: every scope, once its page token is checked).
async fn authenticate_scoped(
    state: &AppState,
    headers: &HeaderMap,
    ip: IpAddr,
) -> Result<Option<(Principal, Scopes)>, ApiError> {
    if let Some(secret) = bearer(headers) {
        // A wrong bearer is a failure even when a cookie is present.
        return Ok(state.auth.check_bearer(&secret).await?);
    }
    // On TLS only the `__Host-` cookie counts: a plain-HTTP page on a sibling port or host
    // could have planted the unprefixed one.
    let name = cookie_name(state.face.secure);
    if let Some(secret) = cookie_value(headers, name) {
        let p = state.auth.check_cookie(&secret, Some(ip)).await?;
        return Ok(p.map(|p| (p, Scopes::ALL)));
    }
    Ok(None)
}

/// The scope a request needs: `read` for reads, `admin` for what widens the agent's policy or
/// hands out credentials, `prompt` for everything else. (Two depend on the body — a session's
/// mode on create and patch — and are checked by their handlers.)
pub fn needed_scope(method: &Method, path: &str) -> TokenScope {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return TokenScope::Read;
    }
    let segs: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
    let admin = matches!(
        segs.as_slice(),
        ["api", "approvals", _]
            | ["api", "plans", _, "decision"]
            | ["api", "sessions", "import"]
            | ["api", "sessions", _, "jail-allows"]
            | ["api", "sessions", _, "git", _]
            | ["api", "settings", "provider" | "websearch"]
            | ["api", "providers", ..]
            | ["api", "mcp", "servers", _, "connect"]
            | ["api", "workspace", "config", "approve"]
            | ["api", "skills", _]
            | ["api", "plugins", ..]
            | ["api", "hooks" | "agents", "trust"]
            | ["api", "trust"]
            | ["api", "tokens", ..]
            | ["api", "devices", ..]
            | ["api", "usage", "caps"]
    );
    if admin {
        TokenScope::Admin
    } else if segs.as_slice() == ["api", "policy", "check"] || segs.as_slice() == ["api", "logout"]
    {
        TokenScope::Read
    } else {
        TokenScope::Prompt
    }
}

/// For a cookie: how the request proves it comes from the page the sign-in gave its token to.
/// Ok(true): proven; Ok(false): it may still prove it in its first WebSocket frame.
fn page_proof(
    state: &AppState,
    headers: &HeaderMap,
    method: &Method,
    uri: &axum::http::Uri,
    login_session_id: &str,
) -> Result<bool, ApiError> {
    let path = uri.path();
    if let Some(v) = headers.get(PAGE_HEADER) {
        let ok = v
            .to_str()
            .is_ok_and(|t| state.auth.check_page(login_session_id, t));
        return if ok {
            Ok(true)
        } else {
            Err(ApiError::PageToken)
        };
    }
    let get = matches!(*method, Method::GET | Method::HEAD);
    if get && path == "/api/ws" && is_ws_upgrade(headers) {
        return Ok(false);
    }
    if get
        && is_view_path(path)
        && let Some(v) = query_param(uri.query(), "view")
        && state.auth.check_view(login_session_id, &v)
    {
        return Ok(true);
    }
    Err(ApiError::PageToken)
}

/// Addresses a browser loads itself (an image, an iframe, a download link), read-only.
fn is_view_path(path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').skip(1).collect();
    matches!(
        segs.as_slice(),
        ["api", "artifacts", _, "files", ..]
            | ["api", "artifacts", _, "download"]
            | ["api", "attachments", _]
    )
}

/// An event stream opened with a ticket (`EventSource` cannot send headers).
fn is_stream_path(path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').skip(1).collect();
    matches!(segs.as_slice(), ["api", "sessions", _, "events", "stream"])
}

pub fn cookie_name(secure: bool) -> &'static str {
    if secure { COOKIE_NAME_TLS } else { COOKIE_NAME }
}

/// The login cookie: HttpOnly, SameSite=Strict, `Path=/`, no `Domain`; on TLS also `Secure`
/// with the `__Host-` prefix.
pub fn session_cookie(secret: &str, secure: bool, max_age_secs: i64) -> String {
    let name = cookie_name(secure);
    let tls = if secure { "; Secure" } else { "" };
    format!("{name}={secret}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_secs}{tls}")
}

pub fn clear_cookie(secure: bool) -> String {
    let name = cookie_name(secure);
    let tls = if secure { "; Secure" } else { "" };
    format!("{name}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{tls}")
}

/// The browser's user agent, for the device list.
pub fn client_info(headers: &HeaderMap, ip: IpAddr) -> ClientInfo {
    ClientInfo {
        ip: Some(ip),
        user_agent: headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    }
}

fn is_ws_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

fn has_body(headers: &HeaderMap) -> bool {
    let len = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match len {
        Some(n) => n > 0,
        None => headers.contains_key(header::TRANSFER_ENCODING),
    }
}

pub async fn gate(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path().to_string();
    let mut resp = match check(&state, peer, &mut req, &path).await {
        Ok(None) => next.run(req).await,
        Ok(Some(early)) => early,
        Err(e) => e.into_response(),
    };
    finish_response(&path, &mut resp);
    resp
}

/// Who calls (a bearer, a cookie with its page token, or a stream ticket) and with what scopes,
/// checked against what the request needs; `true`: a cookie WebSocket that must still send its
/// page token in its first frame.
async fn identify(
    state: &AppState,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
    method: &Method,
    ip: IpAddr,
) -> Result<(Option<(Principal, Scopes)>, bool), ApiError> {
    let path = uri.path();
    let mut found = authenticate_scoped(state, headers, ip).await?;
    // `EventSource` cannot send headers: a single-use ticket stands for its caller.
    let ticket = (*method == Method::GET && is_stream_path(path))
        .then(|| query_param(uri.query(), "ticket"))
        .flatten();
    if let Some(t) = &ticket {
        // Spent here even when refused; refused when its principal was revoked since.
        found = Some(
            state
                .auth
                .redeem_ticket(t)
                .await?
                .ok_or(ApiError::Unauthorized)?,
        );
    }
    let mut first_frame = false;
    if let Some((Principal::Cookie { login_session_id }, _)) = &found
        && ticket.is_none()
        && !is_public(method, path)
    {
        first_frame = !page_proof(state, headers, method, uri, login_session_id)?;
    }
    if let Some((_, scopes)) = &found {
        let need = needed_scope(method, path);
        if !scopes.has(need) {
            return Err(ApiError::Forbidden(format!(
                "this request needs a token with the `{}` scope (the token has {})",
                need.as_str(),
                scopes.csv()
            )));
        }
    }
    Ok((found, first_frame))
}

/// Ok(None): go on to the handler. Ok(Some(resp)): answered here.
async fn check(
    state: &AppState,
    peer: SocketAddr,
    req: &mut Request,
    path: &str,
) -> Result<Option<Response>, ApiError> {
    // Two Host headers could be read differently by a proxy and by us: refuse them.
    if req.headers().get_all(header::HOST).iter().nth(1).is_some() {
        return Err(ApiError::BadRequest("more than one Host header".into()));
    }
    let Some(host) = host_of(req) else {
        return Err(ApiError::Forbidden("missing Host header".into()));
    };
    let authority = req.uri().authority().map(|a| a.to_string());
    if !state.hosts.allows(&host) || authority.is_some_and(|a| !state.hosts.allows(&a)) {
        return Err(ApiError::Forbidden(
            "this host name is not allowed (add it to allowedHosts in config.json)".into(),
        ));
    }
    let method = req.method().clone();
    if method == Method::GET
        && path == "/"
        && let Some(token) = query_param(req.uri().query(), "token")
    {
        // A speculative request (a service worker's navigation preload, a prefetch or prerender)
        // must not spend the one-time code: the real navigation that follows would find it used.
        if is_speculative(req.headers()) {
            return Ok(Some(not_redeemed_here()));
        }
        let client = client_info(req.headers(), peer.ip());
        let signed_in = matches!(
            authenticate(state, req.headers(), peer.ip()).await,
            Ok(Some(Principal::Cookie { .. }))
        );
        return Ok(Some(launch(state, &token, &client, signed_in).await?));
    }
    let (found, first_frame) =
        identify(state, req.headers(), req.uri(), &method, peer.ip()).await?;
    let granted = found.as_ref().map(|(_, s)| Granted(*s));
    let principal = found.map(|(p, _)| p);
    let headers = req.headers();
    if principal.is_none() && req.extensions().get::<crate::accept::OverCap>().is_some() {
        // Over its client's pending-connection cap: only a valid session or token is served.
        return Err(ApiError::Unavailable(
            "too many connections from this address are waiting; try again".into(),
        ));
    }
    if principal.is_none() && !is_public(&method, path) {
        return Err(ApiError::Unauthorized);
    }
    // On TLS only the https origin is ours; plain HTTP also accepts https (a TLS proxy in front).
    let own_origins: Vec<String> = if state.face.secure {
        vec![format!("https://{host}")]
    } else {
        vec![format!("http://{host}"), format!("https://{host}")]
    };
    let state_changing = !matches!(method, Method::GET | Method::HEAD | Method::OPTIONS);
    let ws = is_ws_upgrade(headers);
    let cookie_auth = matches!(principal, Some(Principal::Cookie { .. }));
    match headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or(""))
    {
        Some(origin) => {
            if (state_changing || ws) && !own_origins.iter().any(|o| o == origin) {
                return Err(ApiError::Forbidden("cross-origin request refused".into()));
            }
        }
        None => {
            let same_site = headers
                .get("sec-fetch-site")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v == "same-origin");
            if cookie_auth && ws {
                return Err(ApiError::Forbidden(
                    "WebSocket upgrades with a cookie must send Origin".into(),
                ));
            }
            if cookie_auth && state_changing && !same_site {
                return Err(ApiError::Forbidden(
                    "state-changing requests with a cookie must send Origin".into(),
                ));
            }
        }
    }
    if state_changing
        && path.starts_with("/api")
        && (cookie_auth || has_body(headers) || principal.is_none())
        && !is_json(headers)
    {
        return Err(ApiError::UnsupportedMediaType(
            "state-changing requests need Content-Type: application/json".into(),
        ));
    }
    if let Some(p) = principal {
        req.extensions_mut().insert(p);
    }
    if let Some(g) = granted {
        req.extensions_mut().insert(g);
    }
    if first_frame {
        req.extensions_mut().insert(PageInFirstFrame);
    }
    req.extensions_mut().insert(ClientAddr(peer.ip()));
    Ok(None)
}

/// The client's address, for the login limiter.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

/// One query parameter, percent-decoded.
fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    pairs
        .into_iter()
        .find_map(|(k, v)| (k == name).then_some(v))
}

/// Whether a request is made ahead of (or instead of) the user's own navigation: a service
/// worker's navigation preload, a speculative prefetch or prerender.
fn is_speculative(headers: &HeaderMap) -> bool {
    let has = |name: &str, needle: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.to_ascii_lowercase().contains(needle))
    };
    headers.contains_key("service-worker-navigation-preload")
        || has("sec-purpose", "prefetch")
        || has("sec-purpose", "prerender")
        || has("purpose", "prefetch")
        || has("x-moz", "prefetch")
}

/// The answer to a speculative request for a sign-in link: nothing, and nothing kept.
fn not_redeemed_here() -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::NO_CONTENT;
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// A 303 to the app, never stored by a cache (the sign-in link's answers carry cookies or
/// describe a one-time code). A new sign-in's page token rides in the fragment, which no
/// request carries: the app stores it and removes it from the address.
fn to_app(page_token: Option<&str>) -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::SEE_OTHER;
    let h = resp.headers_mut();
    let location = page_token.map_or_else(|| "/".to_string(), |t| format!("/#tw-page={t}"));
    if let Ok(v) = HeaderValue::from_str(&location) {
        h.insert(header::LOCATION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// Redeem a sign-in link. `signed_in`: the request already carries a valid login cookie, so a
/// used code (this navigation's own earlier request, or a link opened twice) just opens the app.
async fn launch(
    state: &AppState,
    code: &str,
    client: &ClientInfo,
    signed_in: bool,
) -> Result<Response, ApiError> {
    let outcome = state.auth.redeem_link(code, client).await?;
    let why = match outcome {
        LaunchOutcome::Issued(sign_in) => {
            let mut resp = to_app(Some(&sign_in.page_token));
            let cookie = session_cookie(
                &sign_in.secret,
                state.face.secure,
                state.auth.max_age_secs(),
            );
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                resp.headers_mut().insert(header::SET_COOKIE, v);
            }
            return Ok(resp);
        }
        LaunchOutcome::Rejected if signed_in => return Ok(to_app(None)),
        LaunchOutcome::Expired => "This sign-in link has expired (links last 15 minutes).",
        LaunchOutcome::Rejected => {
            "This sign-in link is not valid: it was already used, or it is not from this server."
        }
    };
    // A page that says what to do, never a raw JSON error.
    let password_set = state.auth.password_set().await.unwrap_or(false);
    let mut resp = super::spa::link_problem_page(why, password_set);
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}

/// The headers every response carries besides its CSP.
pub fn security_headers(h: &mut HeaderMap) {
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
}

/// Security headers everywhere; JSON error bodies for API errors produced outside handlers
/// (router 404/405, body-limit 413).
fn finish_response(path: &str, resp: &mut Response) {
    let status = resp.status();
    let is_json_body = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if path.starts_with("/api")
        && !path.starts_with("/api/docs")
        && (status.is_client_error() || status.is_server_error())
        && !is_json_body
    {
        let err = match status {
            StatusCode::NOT_FOUND => ApiError::NotFound(format!("no route for {path}")),
            StatusCode::METHOD_NOT_ALLOWED => {
                ApiError::BadRequest("method not allowed for this route".into())
            }
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                ApiError::UnsupportedMediaType("expected Content-Type: application/json".into())
            }
            s if s.is_client_error() => {
                ApiError::BadRequest(s.canonical_reason().unwrap_or("bad request").to_string())
            }
            _ => ApiError::Unavailable("server error".into()),
        };
        let headers = std::mem::take(resp.headers_mut());
        let mut new = (status, axum::Json(err.body())).into_response();
        for (k, v) in headers.iter() {
            if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
                new.headers_mut().insert(k.clone(), v.clone());
            }
        }
        *resp = new;
    }
    let h = resp.headers_mut();
    let csp = if path.starts_with("/api/docs") {
        CSP_DOCS
    } else {
        CSP_APP
    };
    // A handler may set a stricter policy (artifact files: `sandbox`); keep it.
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        );
    }
    security_headers(h);
    if path.starts_with("/api") && !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_policy() {
        let p = HostPolicy::new(&["dev.lan".into()], [127, 0, 0, 1].into());
        for ok in [
            "localhost:7420",
            "127.0.0.1:1",
            "[::1]:80",
            "10.0.0.5",
            "DEV.LAN:7420",
            "localhost",
            "localhost.",
            "localhost.:7420",
        ] {
            assert!(p.allows(ok), "{ok}");
        }
        for bad in [
            "attacker.example:7420",
            "localhost.evil.com",
            "",
            "evil",
            "127.0.0.1.nip.io",
            ".",
            "localhost..",
        ] {
            assert!(!p.allows(bad), "{bad}");
        }
    }

    #[test]
    fn query_and_cookie_parsing() {
        assert_eq!(
            query_param(Some("a=1&token=xyz"), "token").as_deref(),
            Some("xyz")
        );
        assert_eq!(query_param(Some("tokenx=1"), "token"), None);
        assert_eq!(
            query_param(Some("token=a%2Bb%20c"), "token").as_deref(),
            Some("a+b c"),
            "percent-decoded"
        );
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer  tok123"),
        );
        assert_eq!(bearer(&h).as_deref(), Some("tok123"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic dXNlcjpwdw=="),
        );
        assert_eq!(bearer(&h), None);
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; tw_session=abc"),
        );
        assert_eq!(cookie_value(&h, "tw_session").as_deref(), Some("abc"));
    }
}
