//! `kill -9` of the real server binary mid-run: after a restart the run is `interrupted`, every
//! event acknowledged before the kill is intact, and the session takes a new prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tradewind_tests::*;

async fn events(c: &reqwest::Client, base: &str, sid: &str) -> Vec<Value> {
    let v: Value = c
        .get(format!("{base}/api/sessions/{sid}/events?limit=5000"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["data"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn kill_9_mid_run_then_restart() {
    let home = TempDir::new("crash-home");
    let ws = TempDir::new("crash-ws");
    let replay = home.path().join("replay.json");
    let text: String = (0..400).map(|i| format!("word{i} ")).collect();
    std::fs::write(&replay, json!({"scripts": [{"match": "slow", "turns": [{"text": text, "chunk_chars": 5, "delay_ms": 20}]}, {"turns": [{"text": "fresh answer"}]}]}).to_string()).unwrap();
    let state = home.path().join("state");
    let args = [
        "serve",
        "--port",
        "0",
        "--workspace",
        ws.path().to_str().unwrap(),
        "--provider",
        "replay",
        "--replay",
        replay.to_str().unwrap(),
    ];
    let (mut child, base) = spawn_binary(&args, &state, TOKEN).await;
    let c = reqwest::Client::new();
    let sid = c
        .post(format!("{base}/api/sessions"))
        .bearer_auth(TOKEN)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let run = c
        .post(format!("{base}/api/sessions/{sid}/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"text": "slow please"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut before = Vec::new();
    for _ in 0..200 {
        before = events(&c, &base, &sid).await;
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
    let after = events(&c, &base2, &sid).await;
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
    let r: Value = c
        .get(format!("{base2}/api/runs/{run}"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["status"], "interrupted");
    let run2 = c
        .post(format!("{base2}/api/sessions/{sid}/messages"))
        .bearer_auth(TOKEN)
        .json(&json!({"text": "next"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut done = false;
    for _ in 0..200 {
        let ev = events(&c, &base2, &sid).await;
        if let Some(f) = ev
            .iter()
            .find(|e| e["type"] == "run_finished" && e["run"] == run2.as_str())
        {
            assert_eq!(f["status"], "completed");
            done = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(done);
    child2.start_kill().unwrap();
    child2.wait().await.unwrap();
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
