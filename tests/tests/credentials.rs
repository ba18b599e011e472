//! Credentials (the credentials issue): a login cookie is useless without its page token, a
//! WebSocket proves it in its first frame, `EventSource` uses single-use tickets, API tokens
//! carry scopes and every policy-widening request needs `admin`, and a revocation ends every
//! live stream of the credential as part of the revoke itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tradewind_tests::*;

async fn sign_in(s: &TestServer) -> SignedIn {
    sign_in_cookie(&no_redirect_client(), &s.url(&s.launch_path()), "test").await
}

/// A stolen cookie (a preview server on another port receives it: cookies ignore ports) is
/// refused for reads and writes without the page token; another sign-in's page token does not
/// fit it; after sign-out the pair is useless.
#[tokio::test]
async fn a_cookie_without_its_page_token_authorises_nothing() {
    let s = TestServer::start(Opts::default()).await;
    let a = sign_in(&s).await;
    let b = sign_in(&s).await;
    assert_ne!(a.page, b.page);
    let c = reqwest::Client::new();
    let read = |page: Option<&str>| {
        let mut r = c.get(s.url("/api/sessions")).header("cookie", &a.cookie);
        if let Some(p) = page {
            r = r.header("x-tradewind-page", p);
        }
        r
    };
    let write = |page: Option<&str>| {
        let mut r = c
            .post(s.url("/api/sessions"))
            .header("cookie", &a.cookie)
            .header("origin", &s.base)
            .json(&json!({"title": "stolen"}));
        if let Some(p) = page {
            r = r.header("x-tradewind-page", p);
        }
        r
    };
    for (what, resp) in [
        ("read", read(None).send().await.unwrap()),
        ("write", write(None).send().await.unwrap()),
        (
            "read, other page",
            read(Some(&b.page)).send().await.unwrap(),
        ),
        (
            "write, other page",
            write(Some(&b.page)).send().await.unwrap(),
        ),
        ("read, junk", read(Some("x")).send().await.unwrap()),
    ] {
        assert_eq!(resp.status(), 401, "{what}");
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"]["code"], "page_token_required", "{what}: {v}");
    }
    let (_, list) = s.get("/api/sessions").await;
    assert_eq!(
        list["data"].as_array().unwrap().len(),
        0,
        "nothing was created"
    );
    // The app's static files load with the cookie alone.
    let r = c
        .get(s.url("/"))
        .header("cookie", &a.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // With the page token: both work.
    assert_eq!(read(Some(&a.page)).send().await.unwrap().status(), 200);
    assert_eq!(write(Some(&a.page)).send().await.unwrap().status(), 201);
    // Sign out: the cookie and its page token are useless together.
    let r = a
        .on(c.post(s.url("/api/logout")))
        .header("origin", &s.base)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(read(Some(&a.page)).send().await.unwrap().status(), 401);
    // The password sign-in gives its page token in a header.
    s.server
        .as_ref()
        .unwrap()
        .state
        .store
        .set_password_hash(&tradewind::auth::hash_password("correct horse").unwrap())
        .await
        .unwrap();
    let r = c
        .post(s.url("/api/login"))
        .json(&json!({"password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let page = r.headers()["x-tradewind-page"]
        .to_str()
        .unwrap()
        .to_string();
    let cookie = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let r = c
        .get(s.url("/api/whoami"))
        .header("cookie", &cookie)
        .header("x-tradewind-page", &page)
        .send()
        .await
        .unwrap();
    let who: Value = r.json().await.unwrap();
    assert_eq!(who["kind"], "cookie");
    assert_eq!(who["scopes"], json!(["read", "prompt", "admin"]));
    assert_eq!(who["view_token"].as_str().unwrap().len(), 64);
    s.stop().await;
}

/// Addresses the browser loads itself take the sign-in's `view` token instead of the header;
/// it opens nothing else.
#[tokio::test]
async fn the_view_token_opens_only_what_the_browser_loads() {
    let s = TestServer::start(Opts::default()).await;
    let a = sign_in(&s).await;
    let c = reqwest::Client::new();
    let who: Value = a
        .on(c.get(s.url("/api/whoami")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let view = who["view_token"].as_str().unwrap().to_string();
    let get = |path: String| c.get(s.url(&path)).header("cookie", &a.cookie).send();
    // Past the gate (no such attachment): 404, not 401.
    let r = get(format!(
        "/api/attachments/01ARZ3NDEKTSV4RRFFQ69G5FAV?view={view}"
    ))
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    let r = get(format!(
        "/api/artifacts/01ARZ3NDEKTSV4RRFFQ69G5FAV/download?view={view}"
    ))
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    let r = get("/api/attachments/01ARZ3NDEKTSV4RRFFQ69G5FAV?view=bad".into())
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // The view token is not a page token.
    let r = get(format!("/api/sessions?view={view}")).await.unwrap();
    assert_eq!(r.status(), 401);
    let r = c
        .get(s.url("/api/sessions"))
        .header("cookie", &a.cookie)
        .header("x-tradewind-page", &view)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    s.stop().await;
}

/// A cookie WebSocket whose first frame is not `{"type":"auth","page":…}` with its page token
/// is closed with 1008; with it, the socket works.
#[tokio::test]
async fn a_cookie_websocket_proves_its_page_in_the_first_frame() {
    let s = TestServer::start(Opts::default()).await;
    let a = sign_in(&s).await;
    let b = sign_in(&s).await;
    let open = || async {
        let mut req = s.ws_url().into_client_request().unwrap();
        req.headers_mut()
            .insert("cookie", a.cookie.parse().unwrap());
        req.headers_mut().insert("origin", s.base.parse().unwrap());
        tokio_tungstenite::connect_async(req).await.unwrap().0
    };
    let closed_with = |mut ws: Ws| async move {
        while let Some(m) = ws.next().await {
            match m {
                Ok(Message::Close(f)) => return f.map(|f| u16::from(f.code)),
                Ok(Message::Text(t)) => panic!("a frame before the close: {t}"),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    };
    for first in [
        json!({"type": "subscribe_sessions"}).to_string(),
        json!({"type": "auth", "page": b.page}).to_string(),
        json!({"type": "auth", "page": "0".repeat(64)}).to_string(),
        "not json".to_string(),
    ] {
        let mut ws = open().await;
        ws.send(Message::Text(first.clone().into())).await.unwrap();
        assert_eq!(closed_with(ws).await, Some(1008), "{first}");
    }
    let mut ws = open().await;
    ws_authenticate(&mut ws, &a).await;
    s.stop().await;
}

/// `EventSource` cannot send headers: a ticket got with them opens one stream, once.
#[tokio::test]
async fn a_stream_ticket_works_once() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let (st, t) = s.post("/api/tickets", json!({})).await;
    assert_eq!(st, 201, "{t}");
    assert_eq!(t["expires_in_secs"], 60);
    let ticket = t["ticket"].as_str().unwrap();
    let url = s.url(&format!(
        "/api/sessions/{sid}/events/stream?ticket={ticket}&heartbeat=1"
    ));
    let c = reqwest::Client::new();
    let r = c.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let mut sse = SseReader::new(r);
    assert!(sse.next().await.is_some(), "the stream is live");
    let again = c.get(&url).send().await.unwrap();
    assert_eq!(again.status(), 401, "a ticket is spent");
    let r = c
        .get(s.url(&format!(
            "/api/sessions/{sid}/events/stream?ticket=twt_nope"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    s.stop().await;
}

/// A stream ticket got with `req` (a bearer or a signed-in browser's request to `/api/tickets`).
async fn ticket_with(req: reqwest::RequestBuilder) -> String {
    let r = req.json(&json!({})).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    v["ticket"].as_str().unwrap().to_string()
}

/// Read a stream until it ends (10 s at most), asserting nothing but heartbeats came.
async fn ends_without_events(mut sse: SseReader) {
    let drained = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(ev) = sse.next().await {
            assert!(
                ev.data.is_none(),
                "an event after the revoke: {:?}",
                ev.data
            );
        }
    })
    .await;
    assert!(drained.is_ok(), "the stream is still open after the revoke");
}

/// A ticket stands for its principal only while that is live: minted before its token is
/// deleted or its browser signs out, it opens nothing after (401), while one of a live token
/// still opens its stream.
#[tokio::test]
async fn a_stream_ticket_minted_before_a_revocation_is_refused_after_it() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let c = reqwest::Client::new();
    let stream = |ticket: &str| {
        c.get(s.url(&format!(
            "/api/sessions/{sid}/events/stream?ticket={ticket}&heartbeat=1"
        )))
        .send()
    };
    let (id, tok) = token(&s, None).await;
    let (_, live) = token(&s, None).await;
    let of_revoked = ticket_with(c.post(s.url("/api/tickets")).bearer_auth(&tok)).await;
    let of_live = ticket_with(c.post(s.url("/api/tickets")).bearer_auth(&live)).await;
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/tokens/{id}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    let r = stream(&of_revoked).await.unwrap();
    assert_eq!(r.status(), 401, "a deleted token's ticket");
    let r = stream(&of_live).await.unwrap();
    assert_eq!(r.status(), 200, "a live token's ticket");
    drop(r);
    // A browser's ticket, after it signed out.
    let a = sign_in(&s).await;
    let of_browser = ticket_with(
        a.on(c.post(s.url("/api/tickets")))
            .header("origin", &s.base),
    )
    .await;
    let r = a
        .on(c.post(s.url("/api/logout")))
        .header("origin", &s.base)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let r = stream(&of_browser).await.unwrap();
    assert_eq!(r.status(), 401, "a signed-out browser's ticket");
    s.stop().await;
}

/// A stream opened with a ticket ends when the ticket's principal is revoked, as one opened
/// with the credential itself does: a token deleted, a browser's device removed.
#[tokio::test]
async fn a_stream_opened_with_a_ticket_ends_with_its_principal() {
    let s = TestServer::start(Opts::default()).await;
    // One session for each stream: a stream replays its session's stored events first.
    let sid = s.create_session("ask").await;
    let sid2 = s.create_session("ask").await;
    let c = reqwest::Client::new();
    let open = |sid: &str, ticket: String| {
        let url = s.url(&format!(
            "/api/sessions/{sid}/events/stream?ticket={ticket}&heartbeat=1"
        ));
        let c = c.clone();
        async move {
            let r = c.get(url).send().await.unwrap();
            assert_eq!(r.status(), 200);
            let mut sse = SseReader::new(r);
            assert!(sse.next().await.is_some(), "the stream is live");
            sse
        }
    };
    // A token's.
    let (id, tok) = token(&s, None).await;
    let sse = open(
        &sid,
        ticket_with(c.post(s.url("/api/tickets")).bearer_auth(&tok)).await,
    )
    .await;
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/tokens/{id}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    s.prompt(&sid, "after the token's revoke").await;
    ends_without_events(sse).await;
    // A browser's.
    let a = sign_in(&s).await;
    let sse = open(
        &sid2,
        ticket_with(
            a.on(c.post(s.url("/api/tickets")))
                .header("origin", &s.base),
        )
        .await,
    )
    .await;
    let (_, devices) = s.get("/api/devices").await;
    let device = devices["data"][0]["id"].as_str().unwrap().to_string();
    let (st, v) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/devices/{device}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204, "{v}");
    s.prompt(&sid2, "after the device's revoke").await;
    ends_without_events(sse).await;
    s.stop().await;
}

async fn token(s: &TestServer, scopes: Option<Value>) -> (String, String) {
    let mut body = json!({"name": "ci"});
    if let Some(sc) = scopes {
        body["scopes"] = sc;
    }
    let (st, v) = s.post("/api/tokens", body).await;
    assert_eq!(st, 201, "{v}");
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

/// New tokens default to `read` + `prompt`; every policy-widening request needs `admin` (REST
/// and WebSocket); a `read` token only reads.
#[tokio::test]
async fn a_token_without_admin_cannot_widen_the_policy() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let (_, plain) = token(&s, None).await;
    let (_, tokens) = s.get("/api/tokens").await;
    assert_eq!(tokens["data"][0]["scopes"], json!(["read", "prompt"]));
    let c = reqwest::Client::new();
    let call = |method: reqwest::Method, path: &str, body: Value, tok: &str| {
        c.request(method, s.url(path))
            .bearer_auth(tok)
            .json(&body)
            .send()
    };
    use reqwest::Method as M;
    let widening: Vec<(M, String, Value)> = vec![
        (
            M::POST,
            "/api/approvals/01ARZ3NDEKTSV4RRFFQ69G5FAV".into(),
            json!({"decision": "once"}),
        ),
        (
            M::POST,
            "/api/plans/01ARZ3NDEKTSV4RRFFQ69G5FAV/decision".into(),
            json!({"decision": "approve"}),
        ),
        (
            M::PATCH,
            format!("/api/sessions/{sid}"),
            json!({"mode": "full"}),
        ),
        (
            M::PATCH,
            format!("/api/sessions/{sid}"),
            json!({"agent": "build"}),
        ),
        (M::POST, "/api/sessions".into(), json!({"mode": "full"})),
        (
            M::POST,
            "/api/sessions".into(),
            json!({"workspace": "/tmp"}),
        ),
        (M::POST, "/api/sessions/import".into(), json!({})),
        (
            M::POST,
            format!("/api/sessions/{sid}/jail-allows"),
            json!({"path": "/etc"}),
        ),
        (
            M::POST,
            "/api/workspace/config/approve".into(),
            json!({"workspace": "/tmp", "hash": "x"}),
        ),
        (M::POST, "/api/skills/trust".into(), json!({"hash": "x"})),
        (M::POST, "/api/hooks/trust".into(), json!({"hash": "x"})),
        (M::POST, "/api/agents/trust".into(), json!({"hash": "x"})),
        (M::PUT, "/api/skills/x".into(), json!({"enabled": false})),
        (M::PUT, "/api/plugins/x".into(), json!({"enabled": true})),
        (
            M::PATCH,
            format!("/api/sessions/{sid}"),
            json!({"agent": "code-reviewer"}),
        ),
        (
            M::DELETE,
            "/api/trust?kind=skills&workspace=/tmp".into(),
            json!(null),
        ),
        (M::POST, "/api/mcp/servers/x/connect".into(), json!({})),
        (
            M::PUT,
            "/api/settings/provider".into(),
            json!({"kind": "openai"}),
        ),
        (M::PUT, "/api/providers/x".into(), json!({"kind": "openai"})),
        (M::PUT, "/api/settings/websearch".into(), json!({})),
        (
            M::POST,
            "/api/tokens".into(),
            json!({"name": "more", "scopes": ["admin"]}),
        ),
        (M::POST, "/api/devices/link".into(), json!({})),
        (M::PUT, "/api/usage/caps".into(), json!({})),
    ];
    for (m, path, body) in &widening {
        let r = call(m.clone(), path, body.clone(), &plain).await.unwrap();
        assert_eq!(r.status(), 403, "{m} {path} {body}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "forbidden", "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains("admin"),
            "{v}"
        );
    }
    // What does not widen works with it.
    let r = call(M::GET, "/api/sessions", json!(null), &plain)
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = call(M::POST, "/api/sessions", json!({"title": "ok"}), &plain)
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = call(
        M::PATCH,
        &format!("/api/sessions/{sid}"),
        json!({"title": "renamed", "mode": "ask"}),
        &plain,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    // Over the WebSocket too.
    let mut req = s.ws_url().into_client_request().unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {plain}").parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    for cmd in [
        json!({"type": "approval", "id": "a", "approval": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "decision": "once"}),
        json!({"type": "set_mode", "id": "m", "session": sid, "mode": "full"}),
        json!({"type": "set_agent", "id": "g", "session": sid, "agent": "build"}),
    ] {
        ws.send(Message::Text(cmd.to_string().into()))
            .await
            .unwrap();
        let reply = loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => break serde_json::from_str::<Value>(&t).unwrap(),
                Some(Ok(_)) => continue,
                other => panic!("socket ended: {other:?}"),
            }
        };
        assert_eq!(reply["type"], "error", "{reply}");
        assert_eq!(reply["error"]["code"], "forbidden", "{reply}");
    }
    let (_, v) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(v["mode"], "ask", "the mode did not change");
    // A read token only reads.
    let (_, reader) = token(&s, Some(json!(["read"]))).await;
    let r = call(M::GET, "/api/sessions", json!(null), &reader)
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = call(M::POST, "/api/sessions", json!({}), &reader)
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // An admin token passes the scope check (then the route answers for itself).
    let (_, admin) = token(&s, Some(json!(["prompt", "admin"]))).await;
    let r = call(
        M::POST,
        "/api/approvals/01ARZ3NDEKTSV4RRFFQ69G5FAV",
        json!({"decision": "once"}),
        &admin,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    let who: Value = c
        .get(s.url("/api/whoami"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        who["scopes"],
        json!(["read", "prompt", "admin"]),
        "read is always included"
    );
    s.stop().await;
}

/// A token without `admin` cannot get `full` by leaving `mode` out: on a server whose default
/// mode is `full` (`--yolo`), its new sessions start in `ask`; an explicit `ask` still works and
/// an explicit `full` is still refused, while an `admin` token's session gets the default.
#[tokio::test]
async fn a_token_without_admin_cannot_get_full_by_omission() {
    let s = TestServer::start(Opts {
        yolo: true,
        ..Opts::default()
    })
    .await;
    let (_, cfg) = s.get("/api/config").await;
    assert_eq!(cfg["default_mode"], "full", "{cfg}");
    let (_, plain) = token(&s, Some(json!(["prompt"]))).await;
    let (_, admin) = token(&s, Some(json!(["prompt", "admin"]))).await;
    let c = reqwest::Client::new();
    for (who, tok, body, want) in [
        ("prompt, no mode", &plain, json!({}), Some("ask")),
        (
            "prompt, a title only",
            &plain,
            json!({"title": "t"}),
            Some("ask"),
        ),
        ("prompt, ask", &plain, json!({"mode": "ask"}), Some("ask")),
        ("prompt, full", &plain, json!({"mode": "full"}), None),
        ("admin, no mode", &admin, json!({}), Some("full")),
    ] {
        let r = c
            .post(s.url("/api/sessions"))
            .bearer_auth(tok)
            .json(&body)
            .send()
            .await
            .unwrap();
        let st = r.status();
        let v: Value = r.json().await.unwrap();
        match want {
            Some(mode) => {
                assert_eq!(st, 201, "{who}: {v}");
                assert_eq!(v["mode"], mode, "{who}: {v}");
                let (_, stored) = s
                    .get(&format!("/api/sessions/{}", v["id"].as_str().unwrap()))
                    .await;
                assert_eq!(stored["mode"], mode, "{who}: {stored}");
            }
            None => assert_eq!(st, 403, "{who}: {v}"),
        }
    }
    s.stop().await;
}

/// Revoking a token ends its event stream and its long-poll as part of the revoke: nothing
/// stored after the revoke's response reaches them.
#[tokio::test]
async fn a_revocation_ends_streams_and_long_polls() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let (id, tok) = token(&s, None).await;
    let c = reqwest::Client::new();
    // The stream is live: its first frame is a heartbeat (the session has no events yet).
    let r = c
        .get(s.url(&format!("/api/sessions/{sid}/events/stream?heartbeat=1")))
        .bearer_auth(&tok)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut sse = SseReader::new(r);
    assert!(sse.next().await.is_some());
    let poll = tokio::spawn({
        let c = c.clone();
        let url = s.url(&format!("/api/sessions/{sid}/events?after=0&wait=60"));
        let tok = tok.clone();
        async move { c.get(url).bearer_auth(tok).send().await.unwrap() }
    });
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/tokens/{id}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    // Events stored from now on.
    s.prompt(&sid, "after the revoke").await;
    while let Some(ev) = sse.next().await {
        assert!(
            ev.data.is_none(),
            "an event after the revoke: {:?}",
            ev.data
        );
    }
    let r = poll.await.unwrap();
    assert_eq!(r.status(), 401, "the long-poll ended with its credential");
    s.stop().await;
}

fn holds(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// The access token and provider keys never sit in `/proc/<server>/environ`; a key saved in
/// Settings is sealed in the database and in a backup; the server reopens it after a restart,
/// and a backup restored under another state directory (another machine's key) asks for it
/// again instead of failing.
#[tokio::test]
async fn secrets_stay_out_of_the_environment_the_database_and_backups() {
    let home = TempDir::new("secrets-home");
    let ws = TempDir::new("secrets-ws");
    let state = home.path().join("state");
    let env_key = format!("sk-env-marker-{}", ulid::Ulid::generate());
    let saved_key = format!("sk-saved-marker-{}", ulid::Ulid::generate());
    let args = [
        "serve",
        "--port",
        "0",
        "--workspace",
        ws.path().to_str().unwrap(),
    ];
    let (mut child, base) = spawn_binary_with(
        &binary(),
        &args,
        &state,
        TOKEN,
        &[("OPENAI_API_KEY", std::ffi::OsStr::new(&env_key))],
    )
    .await;
    let pid = child.id().unwrap();
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    assert!(
        !holds(&environ, TOKEN),
        "the access token is in the environment"
    );
    assert!(
        !holds(&environ, &env_key),
        "the provider key is in the environment"
    );
    // Blanked where the kernel shows them from, names and all; no second `exec` (whose
    // hand-over variable would show).
    for gone in ["TRADEWIND_TOKEN=", "OPENAI_API_KEY=", "TW_SECRETS_FD="] {
        assert!(!holds(&environ, gone), "{gone} is in the environment");
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.contains("TracerPid:\t0"), "{status}");
    // The token handed over still authenticates.
    let c = reqwest::Client::new();
    let put = |base: String, body: Value| {
        let c = c.clone();
        async move {
            let r = c
                .put(format!("{base}/api/settings/provider"))
                .bearer_auth(TOKEN)
                .json(&body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (st, v) = put(
        base.clone(),
        json!({"kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": saved_key}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["api_key_set"], true);
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    for f in ["tradewind.db", "tradewind.db-wal"] {
        if let Ok(bytes) = std::fs::read(state.join(f)) {
            assert!(!holds(&bytes, &saved_key), "{f} holds the key in clear");
        }
    }
    let backup = home.path().join("backup.db");
    let out = std::process::Command::new(binary())
        .args(["backup", "--state-dir"])
        .arg(&state)
        .arg(&backup)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !holds(&std::fs::read(&backup).unwrap(), &saved_key),
        "the backup holds the key in clear"
    );
    // Restarted on the same state dir: the key opens.
    let (mut child, base) = spawn_binary_with(&binary(), &args, &state, TOKEN, &[]).await;
    let v: Value = c
        .get(format!("{base}/api/settings/provider"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["api_key_set"], true, "{v}");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    // The backup restored elsewhere: another key, so the saved key is asked for again.
    let other = home.path().join("other-state");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(&backup, other.join("tradewind.db")).unwrap();
    let (mut child, base) = spawn_binary_with(&binary(), &args, &other, TOKEN, &[]).await;
    let v: Value = c
        .get(format!("{base}/api/settings/provider"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["api_key_set"], false, "{v}");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

/// No file a command could see holds an all-scope credential: `server.json` no longer carries
/// the access token; the local commands reach the running server through the state directory's
/// socket (0600), which serves only the server's own user and gives every request the access
/// token's authority (credentials the client sent are dropped, not trusted). `tradewind
/// sessions list` goes through it.
#[tokio::test]
async fn local_commands_reach_the_server_through_its_socket_not_a_token_on_disk() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempDir::new("local-sock");
    let ws = TempDir::new("local-sock-ws");
    let state = home.path().join("state");
    let token = "local-socket-token-7c1f0a9e4b2d";
    let ws_s = ws.path().to_str().unwrap().to_string();
    let (mut server, _) = spawn_binary(
        &["serve", "--port", "0", "--workspace", &ws_s],
        &state,
        token,
    )
    .await;
    let info = std::fs::read_to_string(state.join("server.json")).unwrap();
    assert!(
        !info.contains(token) && !info.contains("\"token\""),
        "{info}"
    );
    let sock = state.join("server.sock");
    let meta = std::fs::symlink_metadata(&sock).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    // Over the socket, with no credential (and with a wrong one, which is dropped): served.
    for extra in ["", "Authorization: Bearer wrong\r\n"] {
        use std::io::{Read, Write};
        let mut c = std::os::unix::net::UnixStream::connect(&sock).unwrap();
        c.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        write!(
            c,
            "GET /api/config HTTP/1.1\r\nHost: evil.example\r\n{extra}Connection: close\r\n\r\n"
        )
        .unwrap();
        let mut body = String::new();
        c.read_to_string(&mut body).unwrap();
        assert!(
            body.starts_with("HTTP/1.1 200") && body.contains("\"sandbox\""),
            "{extra:?}: {body}"
        );
    }
    // Another user cannot use it (as root here: the socket's mode and folder stop `nobody`).
    if rustix::process::geteuid().is_root() {
        let o = std::process::Command::new("runuser")
            .args(["-u", "nobody", "--", "/usr/bin/python3", "-c"])
            .arg(format!(
                "import socket\ns = socket.socket(socket.AF_UNIX)\ntry: s.connect({:?}); print('REACHED')\nexcept OSError as e: print('refused', e.errno)",
                sock.display().to_string()
            ))
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("refused"), "{out}");
    }
    // The command line goes through it.
    std::fs::write(ws.path().join("note.txt"), "x").unwrap();
    let out = tokio::process::Command::new(binary())
        .args(["sessions", "list", "--json"])
        .env("TRADEWIND_HOME", &state)
        .env_remove("TRADEWIND_TOKEN")
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.start_kill().unwrap();
    server.wait().await.unwrap();
}

/// A `!command` is the user's own only from a caller with `admin`: it runs in an `ask` session
/// on a server started without --allow-process, with no approval; a hard-denied path is still
/// refused; the same command from a `prompt`-only token asks, as a model's call would.
#[tokio::test]
async fn a_bang_command_is_the_users_own_only_with_admin() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "!echo hello-from-me").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let run = s.prompt(&sid, "!cat ~/.ssh/id_rsa").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    assert!(
        !events.iter().any(|e| e["type"] == "approval_requested"),
        "the user's own commands ask nothing"
    );
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["ok"], true, "{}", results[0]);
    assert!(
        results[0]["text"]
            .as_str()
            .unwrap()
            .contains("hello-from-me")
    );
    assert_eq!(results[1]["ok"], false, "hard-denied: {}", results[1]);
    let decisions: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "policy_decision")
        .map(|e| &e["decision"])
        .collect();
    assert_eq!(decisions, [&json!("allow"), &json!("deny")]);

    let (_, tok) = token(&s, None).await;
    let r = reqwest::Client::new()
        .post(s.url(&format!("/api/sessions/{sid}/messages")))
        .bearer_auth(&tok)
        .json(&json!({"text": "!echo from-a-token"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let run = r.json::<Value>().await.unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    let asked = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(asked["tool"], "shell");
    let id = asked["approval_id"].as_str().unwrap();
    let (st, _) = s
        .post(&format!("/api/approvals/{id}"), json!({"decision": "deny"}))
        .await;
    assert_eq!(st, 200);
    s.wait_run_finished(&sid, &run).await;
    s.stop().await;
}

/// A token's "last used" is noted when it is used (at most once a minute), and only then.
#[tokio::test]
async fn a_tokens_last_use_is_noted() {
    let s = TestServer::start(Opts::default()).await;
    let (id, secret) = token(&s, None).await;
    let listed = |v: &Value| {
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == json!(id))
            .unwrap()["last_used_at"]
            .clone()
    };
    let (_, before) = s.get("/api/tokens").await;
    assert!(listed(&before).is_null(), "never used yet: {before}");
    let t0 = tradewind::util::now_ms();
    let r = reqwest::Client::new()
        .get(s.url("/api/sessions"))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (_, after) = s.get("/api/tokens").await;
    let used = listed(&after)
        .as_i64()
        .expect("last_used_at set after a use");
    assert!(used >= t0, "{used} >= {t0}");
    s.stop().await;
}
