//! `kill -9` of the real server binary mid-run: after a restart the run is `interrupted`, every
//! event acknowledged before the kill is intact, and the session takes a new prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tradewind_tests::*;

#[tokio::test]
async fn kill_9_mid_run_then_restart() {
    let home = TempDir::new("crash-home");
    let ws = TempDir::new("crash-ws");
    let replay = home.path().join("replay.json");
    let text: String = (0..400).map(|i| format!("word{i} ")).collect();
    std::fs::write(&replay, json!({"scripts": [{"match": "slow", "turns": [{"text": text, "chunk_chars": 5, "delay_ms": 20}]}, {"turns": [{"text": "fresh answer"}]}]}).to_string()).unwrap();
    let state = home.path().join("state");
    let args = replay_serve_args(ws.path(), &replay);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, base) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base);
    let sid = api.create_session(json!({})).await;
    let run = api.prompt(&sid, "slow please").await;
    let mut before = Vec::new();
    for _ in 0..200 {
        before = api.events(&sid).await;
        if before
            .iter()
            .filter(|e| e["type"] == "message_delta")
            .count()
            >= 3
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(before.iter().any(|e| e["type"] == "message_delta"));
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();
    let (mut child2, base2) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base2);
    let after = api.events(&sid).await;
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "every event seen before the kill is intact"
    );
    let seqs: Vec<i64> = after.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    let fin = after
        .iter()
        .find(|e| e["type"] == "run_finished")
        .expect("a run_finished event after restart");
    assert_eq!(fin["status"], "interrupted");
    assert_eq!(fin["reason"], "crash");
    // What it consumed is estimated from what it stored, not shown as nothing: what it read
    // (its prompt) and what it wrote, said to be estimates.
    assert!(fin["usage"]["output_tokens"].as_u64().unwrap() > 0, "{fin}");
    assert!(fin["usage"]["input_tokens"].as_u64().unwrap() > 0, "{fin}");
    assert_eq!(fin["usage"]["estimated"], true, "{fin}");
    assert!(fin["duration_ms"].as_u64().unwrap() > 0, "{fin}");
    assert_eq!(
        api.get(&format!("/api/runs/{run}")).await["status"],
        "interrupted"
    );
    let run2 = api.prompt(&sid, "next").await;
    assert_eq!(
        api.wait_run_finished(&sid, &run2).await["status"],
        "completed"
    );
    child2.start_kill().unwrap();
    child2.wait().await.unwrap();
}

/// Waits on the WebSocket until `n` deltas of the session have arrived.
async fn wait_deltas(base: &str, sid: &str, n: usize) {
    let url = format!("{}/api/ws", base.replacen("http://", "ws://", 1));
    let mut ws = ws_connect_url(&url).await;
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let mut seen = 0;
    while seen < n {
        let f = ws_next(&mut ws, Duration::from_secs(20))
            .await
            .expect("deltas arrive");
        if f["type"] == "message_delta" {
            seen += 1;
        }
    }
}

/// SIGTERM mid-stream: the run ends `interrupted` with reason `shutdown` (the user cancelled
/// nothing), with the tokens and time it really used.
#[tokio::test]
async fn sigterm_mid_stream_is_an_interruption_with_real_usage() {
    let home = TempDir::new("term-home");
    let ws = TempDir::new("term-ws");
    let replay = home.path().join("replay.json");
    let text: String = (0..400).map(|i| format!("word{i} ")).collect();
    std::fs::write(
        &replay,
        json!({"scripts": [{"turns": [{"text": text, "chunk_chars": 5, "delay_ms": 20}]}]})
            .to_string(),
    )
    .unwrap();
    let state = home.path().join("state");
    let args = replay_serve_args(ws.path(), &replay);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, base) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base);
    let sid = api.create_session(json!({})).await;
    let run = api.prompt(&sid, "slow please").await;
    wait_deltas(&base, &sid, 5).await;
    let pid = rustix::process::Pid::from_raw(child.id().unwrap() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the server stops on SIGTERM")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let (mut child2, base2) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base2);
    let events = api.events(&sid).await;
    let fins: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "run_finished")
        .collect();
    assert_eq!(fins.len(), 1, "one end, recorded by the stopping server");
    let fin = fins[0];
    assert_eq!(fin["status"], "interrupted", "{fin}");
    assert_eq!(fin["reason"], "shutdown", "{fin}");
    assert!(fin["usage"]["output_tokens"].as_u64().unwrap() > 0, "{fin}");
    assert!(fin["usage"]["input_tokens"].as_u64().unwrap() > 0, "{fin}");
    assert!(fin["duration_ms"].as_u64().unwrap() > 0, "{fin}");
    assert_eq!(
        api.get(&format!("/api/runs/{run}")).await["status"],
        "interrupted"
    );
    child2.start_kill().unwrap();
    child2.wait().await.unwrap();
}

/// The user's own Cancel after some tokens: `cancelled`, reason `user`, the tokens counted.
#[tokio::test]
async fn a_user_cancel_counts_the_tokens_streamed() {
    let text: String = (0..400).map(|i| format!("word{i} ")).collect();
    let s = TestServer::start(Opts {
        replay: Some(
            json!({"scripts": [{"turns": [{"text": text, "chunk_chars": 5, "delay_ms": 20}]}]}),
        ),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "slow").await;
    wait_deltas(&s.base, &sid, 8).await;
    let (st, _) = s.post(&format!("/api/runs/{run}/cancel"), json!({})).await;
    assert_eq!(st, 200);
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "cancelled");
    assert_eq!(fin["reason"], "user");
    assert!(
        fin["usage"]["output_tokens"].as_u64().unwrap() >= 8,
        "{fin}"
    );
    assert!(fin["duration_ms"].as_u64().unwrap() > 0, "{fin}");
    s.stop().await;
}

#[tokio::test]
async fn headless_run_prints_json_events_and_never_asks() {
    let home = TempDir::new("headless");
    let ws = TempDir::new("headless-ws");
    let replay = home.path().join("r.json");
    std::fs::write(&replay, json!({"scripts": [{"turns": [{"text": "Writing.", "tool_calls": [{"name": "write_file", "arguments": {"path": "h.txt", "content": "x"}}]}, {"text": "done"}]}]}).to_string()).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--json",
            "--workspace",
            ws.path().to_str().unwrap(),
            "--provider",
            "replay",
            "--replay",
            replay.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.push("make it");
        std::process::Command::new(binary())
            .args(&args)
            .env("TRADEWIND_HOME", home.path().join("state"))
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.last().unwrap()["type"], "run_finished");
    assert!(
        lines
            .iter()
            .any(|e| e["type"] == "policy_decision" && e["decision"] == "deny"),
        "no --allow-write: denied, never asked"
    );
    assert!(!lines.iter().any(|e| e["type"] == "approval_requested"));
    assert!(!ws.path().join("h.txt").exists());
    let out = run(&["--allow-write"]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(ws.path().join("h.txt")).unwrap(),
        "x"
    );
}

/// A full disk: appends fail with `disk_full`, the run stops cleanly, nothing stored is lost,
/// and everything works again once space returns (the run's end is stored then).
#[tokio::test]
async fn a_full_disk_stops_the_run_and_the_server_recovers() {
    let text: String = (0..3000).map(|i| format!("word{i} ")).collect();
    let s = TestServer::start(Opts {
        replay: Some(json!({"scripts": [
            {"match": "long", "turns": [{"text": text, "chunk_chars": 6, "delay_ms": 1}]},
            {"turns": [{"text": "short answer"}]},
        ]})),
        ..Opts::default()
    })
    .await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("ask").await);
    let r1 = s.prompt(&sid, "hello").await;
    s.wait_run_finished(&sid, &r1).await;
    let before = s.events(&sid).await;
    let store = s.server.as_ref().unwrap().state.store.clone();
    store.limit_event_log_pages(Some(0)).await.unwrap();
    let r2 = s.prompt(&sid, "a long one").await;
    // The run stops by itself: the session's worker goes idle although its end is not stored.
    let runs = s.server.as_ref().unwrap().state.runs.clone();
    let idle = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let n = runs.run_queue().idle().notified();
            tokio::pin!(n);
            n.as_mut().enable();
            if !runs.is_busy(&sid) {
                break;
            }
            n.await;
        }
    })
    .await;
    assert!(idle.is_ok(), "the run stopped");
    // Space returns: the run's end is stored, with the reason.
    store.limit_event_log_pages(None).await.unwrap();
    let fin = s.wait_run_finished(&sid, &r2).await;
    assert_eq!(fin["status"], "failed", "{fin}");
    assert_eq!(fin["error"]["code"], "disk_full", "{fin}");
    let after = s.events(&sid).await;
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "nothing stored was lost"
    );
    let seqs: Vec<i64> = after.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    // And the server works as before.
    let r3 = s.prompt(&sid, "again").await;
    let fin = s.wait_run_finished(&sid, &r3).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    s.stop().await;
}

/// `kill -9` while the server snapshots a run's files (before its first write): the write never
/// started, and after a restart a revert to before that message uses the last complete
/// snapshot; a revert further back still works. (Debug builds pause a snapshot at
/// `TW_TEST_SNAPSHOT_PAUSE` while that file exists.)
#[tokio::test]
async fn kill_9_mid_snapshot_then_revert() {
    let home = TempDir::new("snapcrash-home");
    let ws = TempDir::new("snapcrash-ws");
    std::fs::write(ws.path().join("a.txt"), "one\n").unwrap();
    let write = |content: &str| json!([{"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": content}}]}, {"text": "done"}]);
    let replay = home.path().join("replay.json");
    std::fs::write(
        &replay,
        json!({"scripts": [
            {"match": "FIRST", "turns": write("two\n")},
            {"match": "SECOND", "turns": write("three\n")},
        ]})
        .to_string(),
    )
    .unwrap();
    let state = home.path().join("state");
    let flag = home.path().join("pause");
    let reached = home.path().join("pause.reached");
    let mut args = replay_serve_args(ws.path(), &replay);
    args.push("--allow-write".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env = [("TW_TEST_SNAPSHOT_PAUSE", flag.as_os_str())];
    let (mut child, base) = spawn_binary_with(&binary(), &args, &state, TOKEN, &env).await;
    let api = Remote::new(&base);
    let sid = api.create_session(json!({"mode": "auto"})).await;
    let run1 = api.prompt(&sid, "FIRST").await;
    assert_eq!(
        api.wait_run_finished(&sid, &run1).await["status"],
        "completed"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "two\n"
    );
    let ids = |events: &[Value]| -> Vec<String> {
        of_type(events, "user_message")
            .iter()
            .map(|e| e["message_id"].as_str().unwrap().to_string())
            .collect()
    };
    // A dry run waits for what run 1 left to be recorded.
    let first = ids(&api.events(&sid).await)[0].clone();
    let dry = api
        .post(
            &format!("/api/sessions/{sid}/revert"),
            json!({"message_id": first, "dry_run": true}),
        )
        .await;
    assert_eq!(
        dry["files"],
        json!([{"path": "a.txt", "action": "restored"}]),
        "{dry}"
    );
    std::fs::write(&flag, b"").unwrap();
    let _run2 = api.prompt(&sid, "SECOND").await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !reached.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the snapshot never began"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.start_kill().unwrap(); // SIGKILL, mid-snapshot
    child.wait().await.unwrap();
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "two\n",
        "the write waits for the snapshot that protects it"
    );
    std::fs::remove_file(&flag).unwrap();
    let (mut child2, base2) = spawn_binary_with(&binary(), &args, &state, TOKEN, &env).await;
    let api = Remote::new(&base2);
    let events = api.events(&sid).await;
    let messages = ids(&events);
    assert_eq!(messages.len(), 2);
    let back = api
        .post(
            &format!("/api/sessions/{sid}/revert"),
            json!({"message_id": messages[1]}),
        )
        .await;
    assert_eq!(back["applied"], true, "{back}");
    assert_eq!(back["files"], json!([]), "{back}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "two\n"
    );
    let back = api
        .post(
            &format!("/api/sessions/{sid}/revert"),
            json!({"message_id": messages[0]}),
        )
        .await;
    assert_eq!(back["applied"], true, "{back}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "one\n"
    );
    child2.start_kill().unwrap();
    child2.wait().await.unwrap();
}
