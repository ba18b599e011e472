//! The review issue's figures: a terminal's keystroke echo over the WebSocket, and the session
//! review of a 300-file change in a worktree (the server's part of opening it).

use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tradewind_tests::*;

fn with_terminal(cfg: &mut tradewind::config::Config) {
    cfg.terminal_enabled = true;
    cfg.worktrees.dir = Some(std::path::PathBuf::from(format!(
        "{}-wt",
        cfg.state_dir.display()
    )));
}

async fn ack(ws: &mut Ws, v: Value) -> Value {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
    loop {
        if let Some(Ok(Message::Text(t))) = ws.next().await {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["id"] == "b" {
                return v;
            }
        }
    }
}

/// Milliseconds from a key's binary frame to its echo's, over loopback, 300 keys.
async fn terminal(s: &TestServer) {
    let sid = s.create_session("ask").await;
    let mut ws = ws_connect(s).await;
    let r = ack(
        &mut ws,
        json!({"type": "terminal_open", "id": "b", "session": sid}),
    )
    .await;
    let ch = u8::try_from(r["result"]["channel"].as_u64().unwrap()).unwrap();
    // Let the shell's prompt arrive, then time single keys (the line discipline echoes each).
    ws.send(Message::Binary(vec![ch, b'#'].into()))
        .await
        .unwrap();
    loop {
        if let Some(Ok(Message::Binary(b))) = ws.next().await
            && b.contains(&b'#')
        {
            break;
        }
    }
    let mut v = Vec::new();
    for i in 0..300u32 {
        let key = b'a' + u8::try_from(i % 26).unwrap();
        let t0 = Instant::now();
        ws.send(Message::Binary(vec![ch, key].into()))
            .await
            .unwrap();
        loop {
            match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
                Ok(Some(Ok(Message::Binary(b)))) if b[1..].contains(&key) => break,
                Ok(Some(Ok(_))) => {}
                other => panic!("no echo: {other:?}"),
            }
        }
        v.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    v.sort_by(f64::total_cmp);
    println!(
        "terminal keystroke echo (300 keys, loopback): p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        v[150], v[285], v[299]
    );
}

/// `GET /api/sessions/{id}/review` of a worktree whose 300 files each changed.
async fn review_300(s: &TestServer) {
    let ws = s.workspace.path();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(ws)
            .args(["-c", "user.name=B", "-c", "user.email=b@e"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    for i in 0..300 {
        let dir = ws.join(format!("src/m{}", i / 20));
        std::fs::create_dir_all(&dir).unwrap();
        let body: String = (0..60).map(|l| format!("fn f{l}() {{ {i} }}\n")).collect();
        std::fs::write(dir.join(format!("f{i}.rs")), body).unwrap();
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "start"]);
    let (st, v) = s.post("/api/sessions", json!({"worktree": true})).await;
    assert_eq!(st, 201, "{v}");
    let sid = v["id"].as_str().unwrap();
    let dir = std::path::PathBuf::from(v["worktree"]["dir"].as_str().unwrap());
    for i in 0..300 {
        let p = dir.join(format!("src/m{}/f{i}.rs", i / 20));
        let t = std::fs::read_to_string(&p).unwrap();
        std::fs::write(
            &p,
            t.replace("fn f10()", "fn f10_changed()")
                .replace("fn f40()", "fn f40_changed()"),
        )
        .unwrap();
    }
    let mut v = Vec::new();
    for _ in 0..7 {
        let t0 = Instant::now();
        let (st, r) = s.get(&format!("/api/sessions/{sid}/review")).await;
        v.push(t0.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(st, 200);
        assert_eq!(r["files"].as_array().unwrap().len(), 300);
    }
    v.sort_by(f64::total_cmp);
    println!(
        "session review of a 300-file worktree change (GET /review, 7 runs): median {:.1} ms, max {:.1} ms",
        v[3], v[6]
    );
}

pub async fn review() {
    let state = TempDir::new("bench-review-state");
    let wt = TempDir::adopt(std::path::PathBuf::from(format!(
        "{}-wt",
        state.path().display()
    )));
    let s = TestServer::start_in(
        Opts {
            tweak: Some(with_terminal),
            ..Opts::default()
        },
        TempDir::new("bench-review-ws"),
        state,
    )
    .await;
    terminal(&s).await;
    review_300(&s).await;
    s.stop().await;
    drop(wt);
}
