//! Foundation: auth gates, headers, errors, OpenAPI drift, state dir, launch rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use futures::SinkExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tradewind_tests::*;

fn no_redirect() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Sign in through the launch link; returns the cookie and the page token.
async fn cookie_login(s: &TestServer) -> SignedIn {
    let r = no_redirect()
        .get(s.url(&s.launch_path()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    assert!(location.starts_with("/#tw-page="), "{location}");
    let sc = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        sc.contains("HttpOnly") && sc.contains("SameSite=Strict") && sc.contains("Path=/"),
        "{sc}"
    );
    assert!(!sc.contains("Domain"), "{sc}");
    SignedIn {
        cookie: sc.split(';').next().unwrap().to_string(),
        page: page_token_of(&location),
        full: sc,
    }
}

#[tokio::test]
async fn every_documented_route_requires_auth() {
    let s = TestServer::start(Opts::default()).await;
    let doc: Value = serde_json::from_str(&tradewind::http::openapi_json()).unwrap();
    let client = reqwest::Client::new();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_none() {
                continue;
            }
            let url = s.url(&path.replace("{id}", "01ARZ3NDEKTSV4RRFFQ69G5FAV"));
            let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let r = client
                .request(m, &url)
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body: Value = r.json().await.unwrap_or(Value::Null);
            if path == "/api/health" {
                assert_eq!(status, 200);
            } else if path == "/api/login" {
                assert_ne!(status, 200);
            } else {
                assert_eq!(status, 401, "{method} {path} without credentials");
                assert_eq!(body["error"]["code"], "unauthorized", "{method} {path}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} routes checked");
    // The WebSocket too.
    let r = client
        .get(s.url("/api/ws"))
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // No session was created by any of that.
    let (_, v) = s.get("/api/sessions").await;
    assert_eq!(v["data"].as_array().unwrap().len(), 0);
    s.stop().await;
}

#[tokio::test]
async fn bearer_cookie_and_one_time_launch_link() {
    let s = TestServer::start(Opts::default()).await;
    let (st, v) = s.get("/api/whoami").await;
    assert_eq!((st, v["kind"].as_str()), (200, Some("bearer")));
    let wrong = reqwest::Client::new()
        .get(s.url("/api/whoami"))
        .bearer_auth("nope")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    // The access token is a bearer credential only: it never signs a browser in through a URL
    // (browser history would keep a long-lived credential).
    let r = no_redirect()
        .get(s.url(&format!("/?token={TOKEN}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers().get("set-cookie").is_none());
    let link = s.launch_path();
    assert!(!link.contains(TOKEN));
    // A service worker's navigation preload, a prefetch or a prerender of the link spends
    // nothing: the real navigation after it still signs in.
    for (name, value) in [
        ("service-worker-navigation-preload", "true"),
        ("sec-purpose", "prefetch"),
        ("sec-purpose", "prefetch;prerender"),
        ("purpose", "prefetch"),
    ] {
        let r = no_redirect()
            .get(s.url(&link))
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NO_CONTENT, "{name}: {value}");
        assert!(r.headers().get("set-cookie").is_none());
        assert_eq!(r.headers()["cache-control"], "no-store");
    }
    let r = no_redirect().get(s.url(&link)).send().await.unwrap();
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let cookie = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let page_token = page_token_of(r.headers()["location"].to_str().unwrap());
    let r = reqwest::Client::new()
        .get(s.url("/api/whoami"))
        .header("cookie", &cookie)
        .header("x-tradewind-page", &page_token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["kind"], "cookie");
    // The browser that redeemed it and opens it again (a second request of one navigation, a
    // reload) is just taken to the app.
    let mine = no_redirect()
        .get(s.url(&link))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(mine.status(), StatusCode::SEE_OTHER);
    assert!(mine.headers().get("set-cookie").is_none());
    // The launch link is used up; the page says what to do instead of showing raw JSON.
    let again = no_redirect().get(s.url(&link)).send().await.unwrap();
    assert_eq!(again.headers()["cache-control"], "no-store");
    assert_eq!(again.status(), 401);
    assert!(again.headers().get("set-cookie").is_none());
    assert!(
        again.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = again.text().await.unwrap();
    assert!(
        page.contains("tradewind link") && page.contains("already used"),
        "{page}"
    );
    // The device list names this browser session.
    let r = reqwest::Client::new()
        .get(s.url("/api/devices"))
        .header("cookie", &cookie)
        .header("x-tradewind-page", &page_token)
        .header(
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36",
        )
        .send()
        .await
        .unwrap();
    let devices: Value = r.json().await.unwrap();
    let current: Vec<&Value> = devices["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["current"] == true)
        .collect();
    assert_eq!(current.len(), 1, "{devices}");
    assert_eq!(current[0]["last_ip"], "127.0.0.1");
    // Logout revokes the cookie.
    let origin = s.base.clone();
    let r = reqwest::Client::new()
        .post(s.url("/api/logout"))
        .header("cookie", &cookie)
        .header("x-tradewind-page", &page_token)
        .header("origin", &origin)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let r = reqwest::Client::new()
        .get(s.url("/api/whoami"))
        .header("cookie", &cookie)
        .header("x-tradewind-page", &page_token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    s.stop().await;
}

#[tokio::test]
async fn host_allow_list_blocks_dns_rebinding() {
    let s = TestServer::start(Opts::default()).await;
    for path in ["/api/sessions", "/", "/api/health", "/api/ws"] {
        let r = reqwest::Client::new()
            .get(s.url(path))
            .bearer_auth(TOKEN)
            .header("host", "attacker.example:7420")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path}");
    }
    let r = reqwest::Client::new()
        .get(s.url("/api/health"))
        .header("host", "localhost:1234")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    s.stop().await;
}

#[tokio::test]
async fn cross_origin_requests_and_forms_are_refused() {
    let s = TestServer::start(Opts::default()).await;
    let b = cookie_login(&s).await;
    let cookie = b.cookie.clone();
    let c = reqwest::Client::new();
    // Cross-origin POST, with a cookie (and its page token) or a bearer token.
    for auth in [
        ("cookie", cookie.clone()),
        ("authorization", format!("Bearer {TOKEN}")),
    ] {
        let r = c
            .post(s.url("/api/sessions"))
            .header(auth.0, &auth.1)
            .header("x-tradewind-page", &b.page)
            .header("origin", "https://evil.example")
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
    }
    // A cross-site form (text/plain, urlencoded) with the cookie, even same-origin: 415.
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let r = b
            .on(c.post(s.url("/api/sessions")))
            .header("origin", &s.base)
            .header("content-type", ct)
            .body("{\"title\":\"x\"}")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 415, "{ct}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "unsupported_media_type");
    }
    // A cookie POST without Origin (and not same-origin by fetch metadata): 403.
    let r = b
        .on(c.post(s.url("/api/sessions")))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // Same origin with JSON works.
    let r = b
        .on(c.post(s.url("/api/sessions")))
        .header("origin", &s.base)
        .json(&json!({"title": "ok"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let (_, v) = s.get("/api/sessions").await;
    assert_eq!(
        v["data"].as_array().unwrap().len(),
        1,
        "only the legitimate request created a session"
    );
    // WebSocket: cookie + foreign Origin → 403; cookie without Origin → 403; Origin null → 403.
    for origin in [Some("https://evil.example"), None, Some("null")] {
        let mut req = s.ws_url().into_client_request().unwrap();
        req.headers_mut().insert("cookie", cookie.parse().unwrap());
        if let Some(o) = origin {
            req.headers_mut().insert("origin", o.parse().unwrap());
        }
        match tokio_tungstenite::connect_async(req).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status(), 403, "{origin:?}")
            }
            other => panic!(
                "upgrade with origin {origin:?} was not refused: {:?}",
                other.map(|_| ())
            ),
        }
    }
    // Cookie + our own Origin → 101; bearer without Origin (CLI) → 101.
    let mut req = s.ws_url().into_client_request().unwrap();
    req.headers_mut().insert("cookie", cookie.parse().unwrap());
    req.headers_mut().insert("origin", s.base.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    ws.send(Message::Text(b.auth_frame().into())).await.unwrap();
    let _ws = ws_connect(&s).await;
    s.stop().await;
}

#[tokio::test]
async fn no_cors_headers_for_foreign_origins() {
    let s = TestServer::start(Opts::default()).await;
    let c = reqwest::Client::new();
    let pre = c
        .request(reqwest::Method::OPTIONS, s.url("/api/sessions"))
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-private-network", "true")
        .send()
        .await
        .unwrap();
    let get = c
        .get(s.url("/api/sessions"))
        .bearer_auth(TOKEN)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    for r in [&pre, &get] {
        for h in r.headers().keys() {
            assert!(!h.as_str().starts_with("access-control-"), "unexpected {h}");
        }
    }
    // Security headers everywhere.
    for path in ["/api/health", "/"] {
        let r = c.get(s.url(path)).send().await.unwrap();
        let h = r.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert_eq!(h["referrer-policy"], "no-referrer");
    }
    s.stop().await;
}

#[tokio::test]
async fn request_bodies_are_limited() {
    let s = TestServer::start(Opts::default()).await;
    let big = format!("{{\"title\":\"{}\"}}", "a".repeat(3 * 1024 * 1024));
    let r = reqwest::Client::new()
        .post(s.url("/api/sessions"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body(big.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"]["code"],
        "payload_too_large"
    );
    // Chunked (no Content-Length).
    let stream = futures::stream::iter(
        (0..64).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 64 * 1024]))),
    );
    let r = reqwest::Client::new()
        .post(s.url("/api/sessions"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await;
    match r {
        Ok(r) => assert_eq!(r.status(), 413),
        Err(e) => assert!(e.is_request() || e.is_body(), "{e}"),
    }
    s.stop().await;
}

#[tokio::test]
async fn login_is_rate_limited_per_client_loopback_as_one() {
    let s = TestServer::start(Opts::default()).await;
    let phc = tradewind::auth::hash_password("correct horse battery").unwrap();
    s.server
        .as_ref()
        .unwrap()
        .state
        .store
        .set_password_hash(&phc)
        .await
        .unwrap();
    let from = |ip: [u8; 4]| {
        reqwest::Client::builder()
            .local_address(std::net::IpAddr::from(ip))
            .build()
            .unwrap()
    };
    // Rotating loopback addresses earns no attempts: 127.0.0.0/8 and ::1 are one client.
    let attacker = from([127, 0, 0, 1]);
    let mut limited = None;
    for i in 0..50u8 {
        let r = from([127, 0, 0, i + 1])
            .post(s.url("/api/login"))
            .json(&json!({"password": format!("wrong{i}")}))
            .send()
            .await
            .unwrap();
        if r.status() == 429 {
            limited = Some((
                i,
                r.headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().to_string()),
            ));
            break;
        }
        assert_eq!(r.status(), 401);
    }
    let (at, retry) = limited.expect("rate limited");
    assert_eq!(usize::from(at), tradewind::auth::LOGIN_FAILURES_PER_WINDOW);
    assert!(retry.unwrap().parse::<u64>().unwrap() >= 1);
    // Still limited even with the right password (argon2 is not even run).
    let r = attacker
        .post(s.url("/api/login"))
        .json(&json!({"password": "correct horse battery"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    let r = from([127, 0, 0, 200])
        .post(s.url("/api/login"))
        .json(&json!({"password": "correct horse battery"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        429,
        "another loopback address is the same client"
    );
    // Another client (another address, another IPv6 /64) is not locked out: the limiter's own
    // test shows it (`limiter_counts_loopback_as_one_client_and_ipv6_by_64`); tests reach only
    // loopback, which is one client.
    s.stop().await;
}

#[tokio::test]
async fn sessions_crud_pagination_and_errors() {
    let s = TestServer::start(Opts::default()).await;
    for i in 0..7 {
        let (st, _) = s
            .post(
                "/api/sessions",
                json!({"title": format!("s{i}"), "agent": "plan", "mode": "auto"}),
            )
            .await;
        assert_eq!(st, 201);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let (_, p1) = s.get("/api/sessions?limit=3").await;
    let ids1: Vec<_> = p1["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids1, ["s6", "s5", "s4"]);
    let c = p1["next_cursor"].as_str().unwrap();
    let (_, p2) = s.get(&format!("/api/sessions?limit=3&cursor={c}")).await;
    assert_eq!(p2["data"][0]["title"], "s3");
    let id = p1["data"][0]["id"].as_str().unwrap();
    let (st, v) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{id}"),
            json!({"title": "renamed", "archived": true, "mode": "full"}),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(
        (
            v["title"].as_str(),
            v["archived"].as_bool(),
            v["mode"].as_str()
        ),
        (Some("renamed"), Some(true), Some("full"))
    );
    let (_, all) = s.get("/api/sessions").await;
    assert_eq!(
        all["data"].as_array().unwrap().len(),
        6,
        "archived hidden by default"
    );
    // Validation and not-found errors have the JSON shape.
    for (body, code) in [
        (json!({"mode": "yolo"}), 422),
        (json!({"title": ""}), 422),
        (json!({"unknown": 1}), 422),
        (json!({"workspace": "relative/path"}), 422),
        (json!({"workspace": "/definitely/not/here"}), 422),
    ] {
        let (st, v) = s.post("/api/sessions", body.clone()).await;
        assert_eq!(st, code, "{body}: {v}");
        assert!(v["error"]["code"].is_string() && v["error"]["message"].is_string());
    }
    let r = reqwest::Client::new()
        .post(s.url("/api/sessions"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let (st, v) = s.get("/api/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV").await;
    assert_eq!((st, v["error"]["code"].as_str()), (404, Some("not_found")));
    let (st, _) = s.get("/api/sessions?limit=0").await;
    assert_eq!(st, 422);
    let (st, _) = s.get("/api/sessions?cursor=garbage").await;
    assert_eq!(st, 400);
    let r = reqwest::Client::new()
        .delete(s.url(&format!("/api/sessions/{id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let (st, _) = s.get(&format!("/api/sessions/{id}")).await;
    assert_eq!(st, 404);
    let (st, v) = s.get("/api/no/such/route").await;
    assert_eq!((st, v["error"]["code"].as_str()), (404, Some("not_found")));
    s.stop().await;
}

#[tokio::test]
async fn api_tokens_create_list_revoke() {
    let s = TestServer::start(Opts::default()).await;
    let (st, t) = s.post("/api/tokens", json!({"name": "ci"})).await;
    assert_eq!(st, 201);
    let secret = t["token"].as_str().unwrap().to_string();
    let c = reqwest::Client::new();
    assert_eq!(
        c.get(s.url("/api/sessions"))
            .bearer_auth(&secret)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let (_, list) = s.get("/api/tokens").await;
    assert_eq!(list["data"][0]["name"], "ci");
    assert!(
        list["data"][0].get("token").is_none(),
        "secrets are never listed"
    );
    let id = t["id"].as_str().unwrap();
    assert_eq!(
        c.delete(s.url(&format!("/api/tokens/{id}")))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
            .status(),
        204
    );
    assert_eq!(
        c.get(s.url("/api/sessions"))
            .bearer_auth(&secret)
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    s.stop().await;
}

#[tokio::test]
async fn openapi_document_matches_committed_copy() {
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../openapi/openapi.json"
    ))
    .expect("openapi/openapi.json exists");
    let generated = tradewind::http::openapi_json();
    assert!(
        committed == generated,
        "openapi/openapi.json is stale: run `cargo run -p tradewind -- openapi > openapi/openapi.json`"
    );
    let v: Value = serde_json::from_str(&generated).unwrap();
    assert!(v["openapi"].as_str().unwrap().starts_with("3.1"));
    let s = TestServer::start(Opts::default()).await;
    let served = reqwest::get(s.url("/api/openapi.json"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(served, generated);
    let docs = reqwest::get(s.url("/api/docs/")).await.unwrap();
    assert_eq!(docs.status(), 200);
    s.stop().await;
}

#[tokio::test]
async fn state_dir_is_private_and_locked() {
    use std::os::unix::fs::PermissionsExt;
    let ws = TempDir::new("ws");
    let state = TempDir::new("state");
    std::fs::set_permissions(state.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let cfg =
        tradewind::config::Config::for_paths(ws.path().to_path_buf(), state.path().to_path_buf());
    let first = tradewind::server::launch(cfg.clone()).await.unwrap();
    let mode = std::fs::metadata(state.path())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
    let second = tradewind::server::launch(cfg).await;
    let err = second.err().expect("second server refused").to_string();
    assert!(err.contains("already using the state directory"), "{err}");
    first.shutdown().await.unwrap();
}

#[tokio::test]
async fn non_loopback_bind_without_password_refuses_to_start() {
    let home = TempDir::new("home");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = tokio::process::Command::new(binary())
        .args([
            "serve",
            "--bind",
            "0.0.0.0",
            "--port",
            &port.to_string(),
            "--workspace",
            home.path().to_str().unwrap(),
        ])
        .env("TRADEWIND_HOME", home.path().join("state"))
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tradewind passwd"), "{err}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "no port was opened"
    );
}
