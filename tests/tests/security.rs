//! Security regressions found in review: git config cannot run code through the read-only git
//! tools; logout closes live WebSockets; hostile output cannot crash a run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tradewind::config::Ceiling;
use tradewind_tests::*;

#[tokio::test]
async fn git_filters_in_repo_config_never_run() {
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "git_status", "arguments": {}}, {"name": "git_diff", "arguments": {}}]},
        {"text": "ok"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    let marker = ws
        .parent()
        .unwrap()
        .join(format!("pwned-{}", ulid::Ulid::generate()));
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(ws)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    git(&[
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
    ]);
    std::fs::write(ws.join("f.txt"), "one\n").unwrap();
    git(&["add", "f.txt"]);
    git(&[
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "-m",
        "f",
    ]);
    let cmd = format!("touch {}; cat", marker.display());
    git(&["config", "filter.evil.clean", &cmd]);
    git(&["config", "filter.evil.smudge", &cmd]);
    std::fs::write(ws.join(".git/info/attributes"), "* filter=evil\n").unwrap();
    std::fs::write(ws.join("f.txt"), "two\n").unwrap();
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "status").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    let results: Vec<_> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results[0]["text"].as_str().unwrap().contains("f.txt"),
        "{}",
        results[0]
    );
    assert!(!marker.exists(), "a repository filter ran");
    s.stop().await;
}

#[tokio::test]
async fn logout_closes_open_websockets() {
    let s = TestServer::start(Opts::default()).await;
    let b = sign_in_cookie(&no_redirect_client(), &s.url(&s.launch_path()), "test").await;
    let mut req = s.ws_url().into_client_request().unwrap();
    req.headers_mut()
        .insert("cookie", b.cookie.parse().unwrap());
    req.headers_mut().insert("origin", s.base.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    ws_authenticate(&mut ws, &b).await;
    let r = b
        .on(reqwest::Client::new().post(s.url("/api/logout")))
        .header("origin", &s.base)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let mut code = None;
    while let Ok(Some(m)) = tokio::time::timeout(Duration::from_secs(1), ws.next()).await {
        if let Ok(Message::Close(f)) = m {
            code = f.map(|f| u16::from(f.code));
            break;
        }
    }
    assert_eq!(code, Some(1008), "closed within a second with 1008");
    s.stop().await;
}

#[tokio::test]
async fn invalid_utf8_output_cannot_crash_a_run() {
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "run_process", "arguments": {"argv": ["head", "-c", "300000", "/dev/urandom"]}}]},
        {"text": "survived"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ceiling: Ceiling {
            write: false,
            process: true,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "noise").await;
    let fin = s.answer_all_until_finished(&sid, &run, "once").await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let run = s.prompt(&sid, "again").await;
    assert_eq!(
        s.answer_all_until_finished(&sid, &run, "once").await["status"],
        "completed"
    );
    s.stop().await;
}

/// Slowloris (review finding 4): connections trickling a request's headers from one client
/// (every loopback address is one) hold at most `MAX_PENDING_PER_ADDRESS` places; the ones over
/// the cap get `OVER_CAP_HEADER_TIMEOUT` and serve only a valid session or token — so the
/// user's own client on the same address is served at once, a stranger gets 503 — and a held
/// connection is closed when its headers do not arrive within the header timeout.
#[tokio::test]
async fn slow_headers_cannot_starve_other_clients() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = TestServer::start(Opts::default()).await;
    let addr: std::net::SocketAddr = s.base.trim_start_matches("http://").parse().unwrap();
    let attacker: std::net::IpAddr = [127, 0, 0, 2].into();
    let mut socks = Vec::new();
    for _ in 0..(tradewind::accept::MAX_PENDING_PER_ADDRESS + 36) {
        let sock = tokio::net::TcpSocket::new_v4().unwrap();
        sock.bind((attacker, 0).into()).unwrap();
        let mut c = sock.connect(addr).await.unwrap();
        // Headers that never end.
        let _ = c
            .write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n")
            .await;
        socks.push(c);
    }
    // Another loopback address is the same client, over the cap: with a token it is served at
    // once; without one it is refused, not left waiting.
    let (st, v) = s.get("/api/health").await;
    assert_eq!(st, 200, "{v}");
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    c.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out).await;
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 503"), "{out}");
    // The ones over the cap are closed after their short header timeout; then all of them are.
    let last = socks.len() - 1;
    let took = time_until_closed(&mut socks[last]).await;
    assert!(
        took.is_some_and(
            |t| t <= tradewind::accept::OVER_CAP_HEADER_TIMEOUT + Duration::from_secs(3)
        ),
        "a connection over the cap was closed after {took:?}"
    );
    let first_over = tradewind::accept::MAX_PENDING_PER_ADDRESS;
    let closed = closed_count(&mut socks[first_over..last]).await;
    assert!(
        closed >= 35,
        "only {closed} connections over the cap were closed"
    );
    // A held connection is closed once the header timeout passes.
    let took = time_until_closed(&mut socks[0]).await;
    assert!(
        took.is_some_and(|t| t <= tradewind::accept::HEADER_TIMEOUT + Duration::from_secs(3)),
        "a trickling connection was closed after {took:?}"
    );
    s.stop().await;
}

/// Two `Host` headers are refused; the absolute form `localhost.` is loopback.
#[tokio::test]
async fn duplicate_host_headers_are_refused() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = TestServer::start(Opts::default()).await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let raw = |req: String| {
        let addr = addr.clone();
        async move {
            let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
            c.write_all(req.as_bytes()).await.unwrap();
            let mut out = Vec::new();
            let _ = c.read_to_end(&mut out).await;
            String::from_utf8_lossy(&out).into_owned()
        }
    };
    let auth = format!("Authorization: Bearer {TOKEN}\r\n");
    let two = raw(format!(
        "GET /api/whoami HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n{auth}Connection: close\r\n\r\n"
    ))
    .await;
    assert!(two.starts_with("HTTP/1.1 400"), "{two}");
    let dotted = raw(format!(
        "GET /api/whoami HTTP/1.1\r\nHost: localhost.\r\n{auth}Connection: close\r\n\r\n"
    ))
    .await;
    assert!(dotted.starts_with("HTTP/1.1 200"), "{dotted}");
    let absolute = raw(format!(
        "GET http://attacker.example/api/whoami HTTP/1.1\r\nHost: localhost\r\n{auth}Connection: close\r\n\r\n"
    ))
    .await;
    assert!(absolute.starts_with("HTTP/1.1 403"), "{absolute}");
    s.stop().await;
}

fn git_in(dir: &std::path::Path, args: &[&str]) {
    let o = std::process::Command::new("git")
        .args(["-c", "user.email=a@b", "-c", "user.name=a"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A hostile repository cannot make the git tools read outside the workspace (review finding 1):
/// `core.worktree` is overridden by the tool's explicit `--work-tree`, a `.git` file pointing
/// outside the roots asks for that directory, and key material in a diff is refused while
/// other secrets are redacted.
#[tokio::test]
async fn git_tools_only_see_the_workspace() {
    let secret = TempDir::new("secret-home");
    std::fs::write(secret.path().join("stolen.txt"), "SECRET-MARKER\n").unwrap();
    let script = json!({"scripts": [
        {"match": "status", "turns": [{"tool_calls": [{"name": "git_status", "arguments": {}}, {"name": "git_diff", "arguments": {}}]}, {"text": "ok"}]},
    ]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    git_in(ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    git_in(ws, &["add", "a.txt"]);
    git_in(ws, &["commit", "-q", "-m", "a"]);
    std::fs::write(
        ws.join("a.txt"),
        "one\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
    )
    .unwrap();
    // The repository moves its work tree to a directory outside the workspace.
    git_in(
        ws,
        &["config", "core.worktree", secret.path().to_str().unwrap()],
    );
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "status").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    let results: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 2);
    let all = format!("{}{}", results[0]["text"], results[1]["text"]);
    assert!(
        !all.contains("stolen.txt") && !all.contains("SECRET-MARKER"),
        "{all}"
    );
    // Read-only tools of one turn run concurrently: find each result by its tool.
    let by_tool = |t: &str| {
        results
            .iter()
            .find(|e| e["tool"] == t)
            .and_then(|e| e["text"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let status = by_tool("git_status");
    assert!(status.contains("a.txt"), "{status}");
    let diff = by_tool("git_diff");
    assert!(
        diff.contains("[REDACTED AWS access key]") && !diff.contains("AKIAIOSFODNN7EXAMPLE"),
        "{diff}"
    );
    assert!(!events.iter().any(|e| e["type"] == "approval_requested"));
    s.stop().await;

    // A `.git` file pointing at a git directory outside the roots: the gate asks for it.
    let outside = TempDir::new("outside-repo");
    git_in(outside.path(), &["init", "-q"]);
    let script = json!({"scripts": [{"turns": [{"tool_calls": [{"name": "git_status", "arguments": {}}]}, {"text": "ok"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    std::fs::write(
        s.workspace.path().join(".git"),
        format!("gitdir: {}\n", outside.path().join(".git").display()),
    )
    .unwrap();
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "status").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(ask["scope"], "directory");
    assert!(
        ask["reason"]
            .as_str()
            .unwrap()
            .contains(outside.path().to_str().unwrap()),
        "{ask}"
    );
    s.post(
        &format!("/api/approvals/{}", ask["approval_id"].as_str().unwrap()),
        json!({"decision": "deny"}),
    )
    .await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    s.stop().await;

    // Key material in a diff stops the output.
    let script = json!({"scripts": [{"turns": [{"tool_calls": [{"name": "git_diff", "arguments": {}}]}, {"text": "ok"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    git_in(ws, &["init", "-q"]);
    std::fs::write(ws.join("k.txt"), "x\n").unwrap();
    git_in(ws, &["add", "k.txt"]);
    git_in(ws, &["commit", "-q", "-m", "k"]);
    std::fs::write(
        ws.join("k.txt"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    .unwrap();
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "diff").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let r = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        !r["text"]
            .as_str()
            .unwrap()
            .contains("b3BlbnNzaC1rZXktdjEAAAAA")
    );
    s.stop().await;
}
