//! The embedded single-page app (built into `static/` and compiled in), and the password page.

use askama::Template;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};

/// The built web app, compressed (see `build.rs`).
mod assets {
    include!(concat!(env!("OUT_DIR"), "/static_assets.rs"));
}

/// An embedded file of the web app.
struct Asset {
    path: &'static str,
    mime: &'static str,
    gzip: &'static [u8],
    size: usize,
    /// The bytes themselves, for the page shell (edited per request).
    plain: Option<&'static [u8]>,
}

fn asset(path: &str) -> Option<&'static Asset> {
    assets::FILES.iter().find(|f| f.path == path)
}

fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| {
            let mut parts = e.split(';');
            let name = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                let p = p.trim().replace(' ', "");
                p == "q=0" || p == "q=0.0" || p == "q=0.00" || p == "q=0.000"
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

fn asset_response(path: &str, a: &Asset, headers: &HeaderMap) -> Response {
    if accepts_gzip(headers) {
        let mut resp = body_response(path, a.mime, axum::body::Body::from(a.gzip));
        let h = resp.headers_mut();
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        return resp;
    }
    let mut plain = Vec::with_capacity(a.size);
    let decoded = std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(a.gzip), &mut plain);
    match decoded {
        Ok(_) => {
            let mut resp = body_response(path, a.mime, axum::body::Body::from(plain));
            resp.headers_mut()
                .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            resp
        }
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

fn body_response(path: &str, mime: &str, body: axum::body::Body) -> Response {
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(mime) {
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

pub async fn static_or_index(uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().trim_start_matches('/');
    if path.starts_with("api/") || path == "api" {
        return StatusCode::NOT_FOUND.into_response();
    }
    if !path.is_empty() && path != "index.html" {
        if let Some(a) = asset(path) {
            return asset_response(path, a, &headers);
        }
        // A missing asset is a 404, not the app shell.
        if path.starts_with("assets/") || path.contains('.') {
            return StatusCode::NOT_FOUND.into_response();
        }
    }
    match asset("index.html").and_then(|a| a.plain.map(|p| (a.mime, p))) {
        // No API preload in the shell: a preload carries the cookie alone, which authorises
        // nothing (the page token goes with the app's own requests), and the browser would
        // hand its 401 to the app's request of the same address.
        Some((mime, page)) => body_response("index.html", mime, axum::body::Body::from(page)),
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
<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/auth.css">
<title>Sign in · Tradewind</title><script src="/login.js" defer></script></head>
<body><main><p class="brand"><img src="/favicon.svg" alt="" width="28" height="28"> Tradewind</p><h1>Sign in</h1>
<form id="login"><label for="password">Password</label><input id="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form>
<p id="status" role="status"></p>
<p class="hint">On this machine you can also open the link printed by <code>tradewind serve</code>{{ hint }}.</p></main></body></html>"#,
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
  if (r.ok) { location.href = '/#tw-page=' + encodeURIComponent(r.headers.get('X-Tradewind-Page') || ''); return; }
  const body = await r.json().catch(() => ({}));
  status.textContent = (body.error && body.error.message) || ('Sign-in failed (' + r.status + ')');
});
"#;

/// The look of the server-rendered pages (sign-in, a bad sign-in link, trusting the local CA):
/// the app's palette, light and dark, one narrow column.
const AUTH_CSS: &str = r#":root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#57606a;--accent:#0b63c5;--border:#d0d7de;--err:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#0f1318;--card:#171c22;--fg:#e6edf3;--muted:#9aa6b2;--accent:#58a6ff;--border:#30363d;--err:#ff7b72}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:flex-start;justify-content:center;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;padding:8vh 16px 32px}
main{width:100%;max-width:34rem;background:var(--card);border:1px solid var(--border);border-radius:12px;padding:24px 28px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
.brand{display:flex;align-items:center;gap:8px;margin:0 0 8px;font-weight:600;color:var(--muted)}
h1{font-size:1.4rem;margin:0 0 16px}
p{margin:0 0 12px}
a{color:var(--accent)}
form{display:flex;flex-direction:column;gap:8px;margin:0 0 12px}
label{font-weight:600}
input{font:inherit;padding:10px 12px;border:1px solid var(--border);border-radius:8px;background:var(--bg);color:var(--fg)}
input:focus-visible,button:focus-visible,a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
button{font:inherit;font-weight:600;padding:10px 14px;border:0;border-radius:8px;background:var(--accent);color:#fff;cursor:pointer}
@media (prefers-color-scheme:dark){button{color:#0f1318}}
#status:not(:empty){color:var(--err)}
.hint{color:var(--muted);font-size:.9rem}
code,pre{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:var(--bg);border:1px solid var(--border);border-radius:8px;padding:10px 12px;overflow-x:auto}
"#;

pub async fn auth_css() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        AUTH_CSS,
    )
        .into_response()
}

pub async fn login_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        LOGIN_JS,
    )
        .into_response()
}

/// Shared look of the server-rendered pages (no inline script; the CSP allows `'self'` styles
/// only, so they are plain HTML with the favicon).
#[derive(Template)]
#[template(
    source = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/auth.css"><title>{{ title }} · Tradewind</title></head>
<body><main><p class="brand"><img src="/favicon.svg" alt="" width="28" height="28"> Tradewind</p><h1>{{ title }}</h1>
{% for p in paragraphs %}<p>{{ p }}</p>
{% endfor %}{% if !commands.is_empty() %}<pre><code>{% for c in commands %}{{ c }}
{% endfor %}</code></pre>{% endif %}
{% for (href, label) in links %}<p><a href="{{ href }}">{{ label }}</a></p>
{% endfor %}</main></body></html>"#,
    ext = "html"
)]
struct InfoPage<'a> {
    title: &'a str,
    paragraphs: Vec<String>,
    commands: Vec<&'a str>,
    links: Vec<(&'a str, &'a str)>,
}

fn render_page(status: StatusCode, page: InfoPage<'_>) -> Response {
    match page.render() {
        Ok(s) => (status, Html(s)).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A used, expired or unknown sign-in link: what to do next, as a page.
pub fn link_problem_page(why: &str, password_set: bool) -> Response {
    let mut paragraphs = vec![
        why.to_string(),
        "To get a new link, run this on the machine where Tradewind runs (as the user who started it); it prints a fresh one-time link and its QR code:".to_string(),
    ];
    let mut links = vec![];
    if password_set {
        paragraphs.push("Or sign in with the password.".into());
        links.push(("/", "Sign in with the password"));
    }
    render_page(
        StatusCode::UNAUTHORIZED,
        InfoPage {
            title: "Sign-in link not valid",
            paragraphs,
            commands: vec!["tradewind link"],
            links,
        },
    )
}

/// `/tls`: the local CA, its fingerprint and how to trust it on each platform. Served on plain
/// HTTP as well (the port's redirect side), since a phone that does not trust the CA yet is
/// exactly who needs it; the fingerprint printed at start is how the user checks what arrived.
pub fn tls_install_page(ca: &crate::tls::LocalCa, https_url: &str) -> Response {
    render_page(
        StatusCode::OK,
        InfoPage {
            title: "Trust this Tradewind server",
            paragraphs: vec![
                "This server uses HTTPS with its own certificate authority, made on its machine. Trust it once on each device, and the browser gives the app everything a secure page gets: notifications, an installable app, copy buttons.".into(),
                format!("Before trusting it, compare its SHA-256 fingerprint with the one printed when the server started and shown in Settings: {}", ca.fingerprint),
                "iPhone / iPad: download the certificate below, open Settings → General → VPN & Device Management → install the profile, then Settings → General → About → Certificate Trust Settings → turn on full trust for it.".into(),
                "Android: download the certificate below, then Settings → Security → Encryption & credentials → Install a certificate → CA certificate.".into(),
                "macOS: open the downloaded file in Keychain Access, double-click the certificate, Trust → Always Trust. Windows: open the file → Install Certificate → Local Machine → Trusted Root Certification Authorities.".into(),
                "Linux (Chrome, Chromium): Settings → Privacy and security → Security → Manage certificates → Authorities → Import. Firefox: Settings → Certificates → View Certificates → Authorities → Import.".into(),
                "This authority can only be used by whoever holds its key, which never leaves the server's state directory.".into(),
            ],
            commands: vec![],
            links: vec![
                ("/tls/ca.crt", "Download the certificate (ca.crt)"),
                ("/tls/ca.pem", "Download as PEM (ca.pem)"),
                (https_url, "Open Tradewind over HTTPS"),
            ],
        },
    )
}

/// The CA certificate itself (public information).
pub fn tls_ca_file(ca: &crate::tls::LocalCa, pem: bool) -> Response {
    let (mime, body, name) = if pem {
        (
            "application/x-pem-file",
            ca.pem.clone().into_bytes(),
            "tradewind-ca.pem",
        )
    } else {
        (
            "application/x-x509-ca-cert",
            ca.der.clone(),
            "tradewind-ca.crt",
        )
    };
    (
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response()
}
