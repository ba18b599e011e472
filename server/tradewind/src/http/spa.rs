//! The embedded single-page app (built into `static/` and compiled in), and the password page.

use askama::Template;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "../../static/"]
struct Assets;

fn asset_response(path: &str, file: rust_embed::EmbeddedFile) -> Response {
    let mime = file.metadata.mimetype().to_string();
    let mut resp = (StatusCode::OK, file.data.into_owned()).into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&mime) {
        h.insert(header::CONTENT_TYPE, v);
    }
    let cache = if path.starts_with("assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    resp
}

pub async fn static_or_index(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if path.starts_with("api/") || path == "api" {
        return StatusCode::NOT_FOUND.into_response();
    }
    if !path.is_empty() {
        if let Some(file) = Assets::get(path) {
            return asset_response(path, file);
        }
        // A missing asset is a 404, not the app shell.
        if path.starts_with("assets/") || path.contains('.') {
            return StatusCode::NOT_FOUND.into_response();
        }
    }
    match Assets::get("index.html") {
        Some(file) => asset_response("index.html", file),
        None => Html(
            "<!doctype html><title>Tradewind</title><p>The web app is not built. Run <code>npm ci &amp;&amp; npm run build</code> in <code>web/</code>.</p>",
        )
        .into_response(),
    }
}

#[derive(Template)]
#[template(
    source = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in · Tradewind</title><script src="/login.js" defer></script></head>
<body><main><h1>Tradewind</h1>
<form id="login"><label>Password <input id="password" type="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button></form>
<p id="status" role="status"></p>
<p>On this machine you can also open the link printed by <code>tradewind serve</code>{{ hint }}.</p></main></body></html>"#,
    ext = "html"
)]
struct LoginPage {
    hint: &'static str,
}

pub async fn login_page() -> Response {
    match (LoginPage { hint: "" }).render() {
        Ok(s) => Html(s).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

const LOGIN_JS: &str = r#"document.getElementById('login').addEventListener('submit', async (e) => {
  e.preventDefault();
  const status = document.getElementById('status');
  const r = await fetch('/api/login', {method: 'POST', credentials: 'same-origin',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({password: document.getElementById('password').value})});
  if (r.ok) { location.href = '/'; return; }
  const body = await r.json().catch(() => ({}));
  status.textContent = (body.error && body.error.message) || ('Sign-in failed (' + r.status + ')');
});
"#;

pub async fn login_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        LOGIN_JS,
    )
        .into_response()
}
