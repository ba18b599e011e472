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
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(s.url(&format!("/?token={TOKEN}")))
        .send()
        .await
        .unwrap();
    let cookie = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let mut req = s.ws_url().into_client_request().unwrap();
    req.headers_mut().insert("cookie", cookie.parse().unwrap());
    req.headers_mut().insert("origin", s.base.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let r = reqwest::Client::new()
        .post(s.url("/api/logout"))
        .header("cookie", &cookie)
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
