//! The agent end to end over the HTTP API: the real OpenAI-compatible streaming client against a
//! scripted server (every fault of SECURITY.md section V), the replay provider, approvals, path
//! attacks through tools, cancellation, atomic writes under kill -9.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tradewind::config::{Ceiling, NetworkSettings};
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

fn fast_net() -> NetworkSettings {
    NetworkSettings {
        connect_timeout_ms: 2000,
        first_byte_timeout_ms: 1500,
        idle_timeout_ms: 800,
        max_retries: 2,
    }
}

async fn with_mock(ceiling: Ceiling) -> (Mock, TestServer) {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling,
        network: Some(fast_net()),
        ..Opts::default()
    })
    .await;
    (mock, s)
}

fn all() -> Ceiling {
    Ceiling {
        write: true,
        process: true,
        external: true,
    }
}

#[tokio::test]
async fn prompt_tool_call_approval_file_changed_answer() {
    let (mock, s) = with_mock(Ceiling::default()).await;
    mock.push(tool_reply(
        "call_1",
        "write_file",
        &json!({"path": "notes/hello.txt", "content": "héllo\n"}),
    ));
    mock.push(text_reply("Wrote it."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write hello").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(ask["tool"], "write_file");
    assert_eq!(ask["effect"], "write");
    assert_eq!(ask["input"]["path"], "notes/hello.txt");
    assert!(
        !s.workspace.path().join("notes/hello.txt").exists(),
        "nothing written before approval"
    );
    let (_, pending) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    assert_eq!(pending["approvals"][0]["approval_id"], ask["approval_id"]);
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["status"], "waiting");
    let aid = ask["approval_id"].as_str().unwrap();
    let (st, _) = s
        .post(
            &format!("/api/approvals/{aid}"),
            json!({"decision": "directory"}),
        )
        .await;
    assert_eq!(st, 422, "directory is not an answer for an effect approval");
    let (st, _) = s
        .post(
            &format!("/api/approvals/{aid}"),
            json!({"decision": "once"}),
        )
        .await;
    assert_eq!(st, 200);
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("notes/hello.txt")).unwrap(),
        "héllo\n"
    );
    let events = s.events(&sid).await;
    let result = of_type(&events, "tool_result")[0];
    assert_eq!(result["ok"], true);
    assert_eq!(result["parts"][0]["type"], "diff");
    assert!(
        result["parts"][0]["patch"]
            .as_str()
            .unwrap()
            .contains("+++ b/notes/hello.txt")
    );
    assert_eq!(
        of_type(&events, "message_complete").last().unwrap()["text"],
        "Wrote it."
    );
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "gap-free"
    );
    // The second request carried the tool result after its call.
    let reqs = mock.requests.lock().unwrap().clone();
    let msgs = reqs[1]["messages"].as_array().unwrap();
    let tool_msg = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool_msg["tool_call_id"], "call_1");
    assert!(reqs[0]["stream"].as_bool().unwrap());
    // Replayed answer: 409.
    let (st, _) = s
        .post(
            &format!("/api/approvals/{aid}"),
            json!({"decision": "once"}),
        )
        .await;
    assert_eq!(st, 409);
    s.stop().await;
}

#[tokio::test]
async fn denied_write_changes_nothing_and_the_model_is_told() {
    let (mock, s) = with_mock(Ceiling::default()).await;
    mock.push(tool_reply(
        "c1",
        "write_file",
        &json!({"path": "x.txt", "content": "x"}),
    ));
    mock.push(text_reply("ok, not writing"));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write x").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    let (st, _) = s
        .post(
            &format!("/api/approvals/{}", ask["approval_id"].as_str().unwrap()),
            json!({"decision": "deny"}),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    assert!(!s.workspace.path().join("x.txt").exists());
    let reqs = mock.requests.lock().unwrap().clone();
    let tool_msg = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap();
    assert!(
        tool_msg["content"]
            .as_str()
            .unwrap()
            .contains("permission_denied")
    );
    s.stop().await;
}

#[tokio::test]
async fn streaming_client_handles_split_parallel_calls_reasoning_usage_crlf_and_utf8() {
    let (mock, s) = with_mock(all()).await;
    std::fs::write(s.workspace.path().join("a.txt"), "A").unwrap();
    std::fs::write(s.workspace.path().join("b.txt"), "B").unwrap();
    // Two interleaved parallel calls, CRLF line ends, a keep-alive comment, reasoning.
    let crlf = |s: String| s.replace("\n\n", "\r\n\r\n");
    mock.push(Reply::Sse {
        chunks: vec![
            ": keep-alive\r\n\r\n".into(),
            crlf(ev_reasoning("thinking")),
            crlf(ev_tool_start(0, "c_a", "read_file")),
            crlf(ev_tool_start(1, "c_b", "read_file")),
            crlf(ev_tool_args(0, "{\"path\":")),
            crlf(ev_tool_args(1, "{\"path\":\"b.txt\"}")),
            crlf(ev_tool_args(0, "\"a.txt\"}")),
            crlf(ev_finish("tool_calls")),
            crlf(ev_usage(100, 20)),
            crlf(ev_done()),
        ],
        delay: Duration::from_millis(5),
    });
    // A multi-byte character split across two network writes.
    let text = ev_text("añb");
    let bytes = text.as_bytes();
    let cut = text.find('ñ').unwrap() + 1;
    mock.push(Reply::Bytes {
        chunks: vec![
            bytes[..cut].to_vec(),
            bytes[cut..].to_vec(),
            ev_finish("stop").into_bytes(),
            ev_done().into_bytes(),
        ],
    });
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "read both").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    // The usage the stream reported (CRLF and all) is read as reported; the second reply
    // reports none, so the run's total is estimated for it (never zero) and says so.
    let usages = of_type(&events, "model_usage");
    assert_eq!(usages[0]["usage"]["input_tokens"], 100);
    assert!(usages[0]["usage"].get("estimated").is_none());
    assert_eq!(usages[1]["usage"]["estimated"], true);
    assert_eq!(fin["usage"]["estimated"], true);
    assert!(fin["usage"]["input_tokens"].as_u64().unwrap() > 100);
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .any(|r| r["call_id"] == "c_a" && r["text"].as_str().unwrap().contains("\nA"))
    );
    assert!(
        results
            .iter()
            .any(|r| r["call_id"] == "c_b" && r["text"].as_str().unwrap().contains("\nB"))
    );
    assert_eq!(
        of_type(&events, "message_complete")[0]["reasoning"],
        "thinking"
    );
    assert_eq!(of_type(&events, "message_complete")[1]["text"], "añb");
    s.stop().await;
}

#[tokio::test]
async fn provider_faults_are_classified_retried_or_reported() {
    // 429 with Retry-After, then success: retried, visible as a status event.
    let (mock, s) = with_mock(all()).await;
    mock.push(Reply::Status {
        status: 429,
        headers: vec![("retry-after".into(), "1".into())],
        body: "{\"error\":{\"message\":\"slow down\"}}".into(),
    });
    mock.push(text_reply("after the wait"));
    let sid = s.create_session("full").await;
    let t0 = Instant::now();
    let run = s.prompt(&sid, "hi").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed");
    assert!(
        t0.elapsed() >= Duration::from_millis(900),
        "Retry-After was honoured"
    );
    let events = s.events(&sid).await;
    let retries = of_type(&events, "provider_retry");
    assert_eq!(retries.len(), 1, "{retries:?}");
    let r = &retries[0];
    assert_eq!(
        (r["attempt"].as_u64(), r["max_attempts"].as_u64()),
        (Some(2), Some(3))
    );
    assert!(r["delay_ms"].as_u64().is_some_and(|d| d >= 1000), "{r}");
    assert!(
        r["reason"]
            .as_str()
            .is_some_and(|m| m.contains("rate limited")),
        "{r}"
    );
    // Sent when the wait began (clients count it down live), not after the retry succeeded.
    let first_text = of_type(&events, "message_delta")[0]["at"].as_i64().unwrap();
    assert!(first_text - r["at"].as_i64().unwrap() >= 900, "{r}");
    assert_eq!(mock.request_count(), 2);

    // 401: no retry, a clear auth error.
    mock.push(Reply::Status {
        status: 401,
        headers: vec![],
        body: "{\"error\":{\"message\":\"bad key\"}}".into(),
    });
    let run = s.prompt(&sid, "again").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(
        (fin["status"].as_str(), fin["error"]["code"].as_str()),
        (Some("failed"), Some("provider_auth"))
    );
    assert_eq!(mock.request_count(), 3);

    // 400 context length: the history is compacted and the call retried once — no loop: a
    // second refusal is the run's error.
    let too_long = Reply::Status {
        status: 400,
        headers: vec![],
        body: "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\"}}"
            .into(),
    };
    mock.push(too_long.clone());
    mock.push(text_reply("## Goal\nsay hi"));
    mock.push(too_long);
    let run = s.prompt(&sid, "long").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run).await["error"]["code"],
        "context_length"
    );
    assert_eq!(mock.request_count(), 6);

    // 503 every time: bounded retries (max_retries = 2), then provider_overloaded.
    for _ in 0..3 {
        mock.push(Reply::Status {
            status: 503,
            headers: vec![],
            body: "overloaded".into(),
        });
    }
    let run = s.prompt(&sid, "busy").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run).await["error"]["code"],
        "provider_overloaded"
    );
    assert_eq!(mock.request_count(), 9);

    // 200 then an in-stream "overloaded" error: an error, never assistant text.
    mock.push(Reply::Sse { chunks: vec![ev_text("partial "), "event: error\ndata: {\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into()], delay: Duration::ZERO });
    let run = s.prompt(&sid, "in-stream").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["error"]["code"], "provider_overloaded");
    let events = s.events(&sid).await;
    assert!(
        !of_type(&events, "message_complete")
            .iter()
            .any(|m| m["text"].as_str().unwrap_or("").contains("Overloaded"))
    );

    // No first byte in time, then an idle gap mid-stream: provider_timeout, never stuck.
    mock.push(Reply::Hang);
    mock.push(Reply::Hang);
    mock.push(Reply::Hang);
    let run = s.prompt(&sid, "hang").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run).await["error"]["code"],
        "provider_timeout"
    );
    mock.push(Reply::Stall {
        chunks: vec![ev_text("slow")],
        gap: Duration::from_secs(5),
    });
    let run = s.prompt(&sid, "stall").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run).await["error"]["code"],
        "provider_timeout"
    );
    s.stop().await;
}

#[tokio::test]
async fn stream_cut_mid_tool_call_runs_nothing_and_does_not_poison_history() {
    let (mock, s) = with_mock(all()).await;
    mock.push(Reply::Cut {
        chunks: vec![
            ev_tool_start(0, "c1", "write_file"),
            ev_tool_args(0, "{\"path\":\"cut.txt\",\"cont"),
        ],
    });
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "write").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(
        (fin["status"].as_str(), fin["error"]["code"].as_str()),
        (Some("failed"), Some("provider_stream_truncated"))
    );
    assert!(!s.workspace.path().join("cut.txt").exists());
    assert!(of_type(&s.events(&sid).await, "tool_result").is_empty());
    // A stream that closes without finish reason or [DONE] is also truncated.
    mock.push(Reply::Sse {
        chunks: vec![ev_text("half")],
        delay: Duration::ZERO,
    });
    let run = s.prompt(&sid, "again").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run).await["error"]["code"],
        "provider_stream_truncated"
    );
    // The next turn works and its history has no dangling call.
    mock.push(text_reply("fine"));
    let run = s.prompt(&sid, "third").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let last = mock.requests.lock().unwrap().last().cloned().unwrap();
    for m in last["messages"].as_array().unwrap() {
        assert!(m.get("tool_calls").is_none(), "no stored partial call: {m}");
    }
    s.stop().await;
}

/// Two calls with one id in one reply: the first runs, the second is not run and its result is
/// an error naming the id; the history sent back answers every call id exactly once (the
/// second call renamed), so the provider takes it.
#[tokio::test]
async fn two_calls_with_one_id_run_once_and_the_history_stays_valid() {
    let (mock, s) = with_mock(all()).await;
    mock.push(Reply::Sse {
        chunks: vec![
            ev_tool_start(0, "dup_1", "write_file"),
            ev_tool_args(
                0,
                &json!({"path": "one.txt", "content": "one\n"}).to_string(),
            ),
            ev_tool_start(1, "dup_1", "write_file"),
            ev_tool_args(
                1,
                &json!({"path": "two.txt", "content": "two\n"}).to_string(),
            ),
            ev_finish("tool_calls"),
            ev_done(),
        ],
        delay: Duration::ZERO,
    });
    mock.push(text_reply("done"));
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "write both").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let ws = s.workspace.path();
    assert_eq!(
        std::fs::read_to_string(ws.join("one.txt")).unwrap(),
        "one\n"
    );
    assert!(!ws.join("two.txt").exists(), "the second call never ran");
    let events = s.events(&sid).await;
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(
        (&results[0]["call_id"], &results[0]["ok"]),
        (&json!("dup_1"), &json!(true))
    );
    let refused = results[1];
    assert_eq!(refused["ok"], false);
    assert_ne!(refused["call_id"], "dup_1", "its own id in the transcript");
    let text = refused["text"].as_str().unwrap();
    assert!(
        text.contains("duplicate_call_id") && text.contains("`dup_1`"),
        "{text}"
    );
    let calls = of_type(&events, "tool_call");
    let ids: Vec<&Value> = calls.iter().map(|c| &c["call_id"]).collect();
    assert_eq!(ids, [&results[0]["call_id"], &refused["call_id"]]);
    // The next request: each call id once, each answered exactly once, right after its reply.
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    let msgs = reqs[1]["messages"].as_array().unwrap();
    let at = msgs
        .iter()
        .position(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
        .unwrap();
    let sent: Vec<&str> = msgs[at]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], "dup_1");
    assert_eq!(sent[1], refused["call_id"].as_str().unwrap());
    let answered: Vec<&str> = msgs[at + 1..]
        .iter()
        .take_while(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(answered, sent, "every call answered once, in order");
    let all_answers = msgs.iter().filter(|m| m["role"] == "tool").count();
    assert_eq!(all_answers, 2, "no result twice: {msgs:?}");
    assert!(
        msgs[at + 2]["content"]
            .as_str()
            .unwrap()
            .contains("`dup_1`")
    );
    s.stop().await;
}

#[tokio::test]
async fn plan_agent_and_read_only_are_offered_no_effectful_tools() {
    let (mock, s) = with_mock(all()).await;
    mock.push(text_reply("plan"));
    let (_, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "full"}))
        .await;
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "plan it").await;
    s.wait_run_finished(&sid, &run).await;
    let req = mock.requests.lock().unwrap()[0].clone();
    let names: Vec<&str> = req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    // Reads, and the internal checklist (todo_write), which touches nothing outside the run.
    for n in &names {
        assert!(
            matches!(
                tradewind::agent::toolset::effect_of(n),
                tradewind::protocol::Effect::Read | tradewind::protocol::Effect::Internal
            ),
            "{n} offered to the plan agent"
        );
    }
    assert!(names.contains(&"todo_write"));
    assert!(names.contains(&"read_file") && names.contains(&"search_text"));
    // The plan agent calling write_file anyway is denied; nothing changes.
    mock.push(tool_reply(
        "c1",
        "write_file",
        &json!({"path": "p.txt", "content": "x"}),
    ));
    mock.push(text_reply("ok"));
    let run = s.prompt(&sid, "try to write").await;
    s.wait_run_finished(&sid, &run).await;
    assert!(!s.workspace.path().join("p.txt").exists());
    let events = s.events(&sid).await;
    assert!(
        of_type(&events, "policy_decision")
            .iter()
            .any(|d| d["decision"] == "deny" && d["tool"] == "write_file")
    );
    s.stop().await;
}

#[tokio::test]
async fn path_attacks_through_tools_are_refused() {
    let home = TempDir::new("home");
    let outside = TempDir::new("outside");
    std::fs::write(outside.path().join("secret.txt"), "TOPSECRET").unwrap();
    let ws_dir = TempDir::new("proj");
    let ws = ws_dir.path().to_path_buf();
    std::fs::write(
        ws.join("id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n",
    )
    .unwrap();
    std::fs::write(ws.join("server.pem"), "cert").unwrap();
    std::fs::write(
        ws.join("innocent.txt"),
        "-----BEGIN RSA PRIVATE KEY-----\nTOPSECRET\n",
    )
    .unwrap();
    std::fs::write(ws.join("ok.txt"), "TOPSECRET is a word here").unwrap();
    std::fs::create_dir_all(ws.join(".ssh")).unwrap();
    std::fs::write(ws.join(".ssh/config"), "TOPSECRET").unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.join("link")).unwrap();
    std::os::unix::fs::symlink("/tmp/tw-dangling-target-never", ws.join("dangling")).unwrap();
    let evil_sibling = format!("{}-evil", ws.display());
    std::fs::create_dir_all(&evil_sibling).unwrap();
    std::fs::write(format!("{evil_sibling}/s"), "TOPSECRET").unwrap();
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start_in(
        Opts {
            openai: Some(url),
            ceiling: all(),
            network: Some(fast_net()),
            ..Opts::default()
        },
        ws_dir,
        home,
    )
    .await;
    let state_db = s.state.path().join("tradewind.db");
    let attacks: Vec<(&str, Value)> = vec![
        ("read_file", json!({"path": "../../../../../../etc/passwd"})),
        ("read_file", json!({"path": "/etc/passwd"})),
        ("read_file", json!({"path": format!("{evil_sibling}/s")})),
        (
            "read_file",
            json!({"path": format!("{}/../{}-evil/s", s.workspace.path().display(), s.workspace.path().file_name().unwrap().to_string_lossy())}),
        ),
        ("read_file", json!({"path": "link/secret.txt"})),
        ("read_file", json!({"path": "id_rsa"})),
        ("read_file", json!({"path": "ID_RSA"})),
        ("read_file", json!({"path": "server.pem"})),
        ("read_file", json!({"path": "innocent.txt"})),
        ("read_file", json!({"path": ".ssh/config"})),
        ("read_file", json!({"path": ".SSH/./config"})),
        ("read_file", json!({"path": "a\u{0}b"})),
        ("read_file", json!({"path": "x/".repeat(20_000)})),
        ("read_file", json!({"path": state_db.to_string_lossy()})),
        ("write_file", json!({"path": "dangling", "content": "x"})),
        (
            "write_file",
            json!({"path": "link/new/c.txt", "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": state_db.to_string_lossy(), "content": "x"}),
        ),
        (
            "edit_file",
            json!({"path": s.state.path().join("config.json").to_string_lossy(), "old": "a", "new": "b", "sha256": "0"}),
        ),
        ("shell", json!({"command": "ls", "cwd": "/"})),
        ("shell", json!({"command": "ls", "cwd": "../.."})),
        ("shell", json!({"command": "ls", "cwd": "link"})),
    ];
    let n = attacks.len();
    for (i, (tool, args)) in attacks.iter().enumerate() {
        mock.push(tool_reply(&format!("c{i}"), tool, args));
    }
    mock.push(text_reply("done"));
    // A headless-like server has no one to ask about outside paths in this test: deny them all
    // by answering every approval with deny.
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "attack").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, p) = s.get(&format!("/api/sessions/{sid}/pending")).await;
        for a in p["approvals"].as_array().unwrap() {
            s.post(
                &format!("/api/approvals/{}", a["approval_id"].as_str().unwrap()),
                json!({"decision": "deny"}),
            )
            .await;
        }
        let events = s.events(&sid).await;
        if events
            .iter()
            .any(|e| e["type"] == "run_finished" && e["run"] == run.as_str())
        {
            break;
        }
        assert!(Instant::now() < deadline, "run did not finish");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    let events = s.events(&sid).await;
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), n);
    for r in &results {
        assert_eq!(r["ok"], false, "attack succeeded: {r}");
        assert!(
            !r["text"].as_str().unwrap().contains("TOPSECRET"),
            "leaked: {r}"
        );
        assert!(
            !r["text"].as_str().unwrap().contains("root:"),
            "leaked: {r}"
        );
    }
    assert!(!std::path::Path::new("/tmp/tw-dangling-target-never").exists());
    assert!(!outside.path().join("new").exists());
    // list/search never show deny-listed files or key material.
    mock.push(Reply::Sse {
        chunks: vec![
            ev_tool_start(0, "l1", "list_files"),
            ev_tool_args(0, "{}"),
            ev_tool_start(1, "s1", "search_text"),
            ev_tool_args(1, "{\"pattern\":\"TOPSECRET|PRIVATE\"}"),
            ev_finish("tool_calls"),
            ev_done(),
        ],
        delay: Duration::ZERO,
    });
    mock.push(text_reply("listed"));
    let run = s.prompt(&sid, "list").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let list = of_type(&events, "tool_result")
        .into_iter()
        .find(|r| r["call_id"] == "l1")
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        list.contains("ok.txt")
            && !list.contains("id_rsa")
            && !list.contains("server.pem")
            && !list.contains(".ssh"),
        "{list}"
    );
    let found = of_type(&events, "tool_result")
        .into_iter()
        .find(|r| r["call_id"] == "s1")
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(found.contains("ok.txt:1:"), "{found}");
    assert!(
        !found.contains("innocent.txt") && !found.contains("id_rsa") && !found.contains(".ssh"),
        "{found}"
    );
    s.stop().await;
    let _ = outside;
}

#[tokio::test]
async fn outside_directory_approval_covers_the_subtree_for_the_session() {
    let outside = TempDir::new("extra");
    std::fs::create_dir_all(outside.path().join("sub")).unwrap();
    std::fs::write(outside.path().join("a.txt"), "AAA").unwrap();
    std::fs::write(outside.path().join("sub/b.txt"), "BBB").unwrap();
    let (mock, s) = with_mock(all()).await;
    mock.push(tool_reply(
        "c1",
        "read_file",
        &json!({"path": outside.path().join("a.txt")}),
    ));
    mock.push(tool_reply(
        "c2",
        "read_file",
        &json!({"path": outside.path().join("sub/b.txt")}),
    ));
    mock.push(text_reply("read"));
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "read outside").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(ask["scope"], "directory");
    assert_eq!(ask["directory"], outside.path().to_string_lossy().as_ref());
    s.post(
        &format!("/api/approvals/{}", ask["approval_id"].as_str().unwrap()),
        json!({"decision": "directory"}),
    )
    .await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    assert_eq!(
        of_type(&events, "approval_requested").len(),
        1,
        "the subtree was covered"
    );
    assert!(
        of_type(&events, "tool_result")
            .iter()
            .all(|r| r["ok"] == true)
    );
    s.stop().await;
}

#[tokio::test]
async fn cancel_mid_tool_kills_the_process_group_within_a_second() {
    let script = json!({"scripts": [{"turns": [{"tool_calls": [{"name": "shell", "arguments": {"command": "sleep 30 & sleep 30; touch finished"}}]}, {"text": "never"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ceiling: all(),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "sleep").await;
    // A compound command of plain parts runs without asking in full mode.
    s.wait_event(&sid, |e| {
        e["type"] == "policy_decision" && e["decision"] == "allow"
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = Instant::now();
    let (st, v) = s.post(&format!("/api/runs/{run}/cancel"), json!({})).await;
    assert_eq!((st, v["cancelled"].as_bool()), (200, Some(true)));
    let fin = s.wait_run_finished(&sid, &run).await;
    assert!(
        t0.elapsed() < Duration::from_secs(2),
        "cancel took {:?}",
        t0.elapsed()
    );
    assert_eq!(fin["status"], "cancelled");
    let (_, r) = s.get(&format!("/api/runs/{run}")).await;
    assert_eq!(r["status"], "cancelled");
    // The whole group died, the background sleep included.
    let ps = std::process::Command::new("pgrep")
        .args(["-f", "sleep 30 & sleep 30"])
        .output()
        .unwrap();
    assert!(ps.stdout.is_empty(), "process survived");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!s.workspace.path().join("finished").exists());
    // The session takes a new prompt.
    let (st, _) = s.post(&format!("/api/runs/{run}/cancel"), json!({})).await;
    assert_eq!(st, 200);
    s.stop().await;
}

#[tokio::test]
async fn shell_output_is_bounded_and_shown_as_a_terminal_part() {
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "shell", "arguments": {"command": "printf 'out\\n'; printf 'err\\n' >&2; exit 3"}}]},
        {"tool_calls": [{"name": "shell", "arguments": {"command": "yes | head -c 3000000"}}]},
        {"text": "done"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ceiling: all(),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "go").await;
    assert_eq!(
        s.answer_all_until_finished(&sid, &run, "once").await["status"],
        "completed"
    );
    let events = s.events(&sid).await;
    let r = of_type(&events, "tool_result");
    let t = &r[0]["parts"][0];
    assert_eq!(
        (
            t["type"].as_str(),
            t["exit_code"].as_i64(),
            t["stdout"].as_str(),
            t["stderr"].as_str()
        ),
        (Some("terminal"), Some(3), Some("out\n"), Some("err\n"))
    );
    assert_eq!(r[0]["ok"], false);
    let big = &r[1];
    assert!(big["text"].as_str().unwrap().len() <= tradewind::tools::MAX_MODEL_TEXT + 200);
    assert!(big["text"].as_str().unwrap().contains("bytes truncated"));
    assert_eq!(
        big["parts"][0]["stdout"].as_str().unwrap().len(),
        256 * 1024
    );
    assert_eq!(big["parts"][0]["truncated"], true);
    s.stop().await;
}

#[tokio::test]
async fn no_model_configured_fails_fast_with_instructions() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "hi").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["error"]["code"], "no_model_configured");
    assert!(
        fin["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--provider")
    );
    // Configure one through the API; the key is write-only.
    let mock = Mock::default();
    let url = mock.serve().await;
    mock.push(text_reply("configured"));
    let (st, v) = s.send(reqwest::Method::PUT, "/api/settings/provider", json!({"kind": "openai", "base_url": url, "model": "test-model", "api_key": "sk-secret"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["api_key_set"], true);
    assert!(!v.to_string().contains("sk-secret"));
    let (_, models) = s.get("/api/models").await;
    assert_eq!(models["data"][0]["id"], "test-model");
    let run = s.prompt(&sid, "again").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let (st, _) = s
        .send(
            reqwest::Method::PUT,
            "/api/settings/provider",
            json!({"kind": "bogus", "model": "m"}),
        )
        .await;
    assert_eq!(st, 422);
    s.stop().await;
}

/// Child half of the kill -9 test: keeps rewriting the file atomically until killed.
#[test]
fn atomic_writer_child() {
    let Ok(target) = std::env::var("TW_ATOMIC_CHILD_TARGET") else {
        return;
    };
    let big_a = vec![b'a'; 8 * 1024 * 1024];
    let big_b = vec![b'b'; 8 * 1024 * 1024];
    let target = std::path::Path::new(&target);
    let root = target.parent().unwrap();
    loop {
        tradewind::tools::fs::atomic_write(root, target, &big_a).unwrap();
        tradewind::tools::fs::atomic_write(root, target, &big_b).unwrap();
    }
}

#[test]
fn atomic_write_survives_kill_9_of_the_writer() {
    let d = TempDir::new("atomic");
    let target = d.path().join("f.bin");
    std::fs::write(&target, vec![b'a'; 8 * 1024 * 1024]).unwrap();
    let exe = std::env::current_exe().unwrap();
    for i in 0..25u64 {
        let mut child = std::process::Command::new(&exe)
            .args([
                "--exact",
                "atomic_writer_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TW_ATOMIC_CHILD_TARGET", &target)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + (i * 37) % 180));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let bytes = std::fs::read(&target).unwrap();
        assert_eq!(bytes.len(), 8 * 1024 * 1024, "iteration {i}: partial file");
        assert!(
            bytes.iter().all(|&b| b == bytes[0]),
            "iteration {i}: mixed content"
        );
    }
    let removed = tradewind::tools::fs::remove_stray_temp_files(d.path());
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        left.len(),
        1,
        "stray temp files were cleaned ({removed} removed): {left:?}"
    );
}

#[tokio::test]
async fn anthropic_client_streams_thinking_text_and_tool_use_against_a_scripted_server() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        network: Some(fast_net()),
        ..Opts::default()
    })
    .await;
    // The key is stored through the settings API (write-only) and sent as x-api-key.
    let (st, view) = s
        .send(
            reqwest::Method::PUT,
            "/api/settings/provider",
            json!({"kind": "anthropic", "base_url": url.trim_end_matches("/v1"), "model": "claude-test", "api_key": "sk-ant-test"}),
        )
        .await;
    assert_eq!(st, 200, "{view}");
    assert_eq!(view["api_key_set"], true);
    assert!(
        !view.to_string().contains("sk-ant-test"),
        "the key is never returned"
    );
    std::fs::write(s.workspace.path().join("note.txt"), "hi from the file\n").unwrap();

    // Thinking, text with a UTF-8 character split across network chunks, a ping, a comment, and
    // a tool_use whose JSON input arrives in pieces.
    let text = an(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Je lis « note » "}}),
    );
    let cut = text.find('«').unwrap() + 1; // inside the two-byte character
    let mut first: Vec<Vec<u8>> = vec![
        an("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [], "usage": {"input_tokens": 25, "output_tokens": 1}}})).into_bytes(),
        b": keep-alive comment\n\n".to_vec(),
        an("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}})).into_bytes(),
        an("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants the note."}})).into_bytes(),
        an("content_block_stop", json!({"type": "content_block_stop", "index": 0})).into_bytes(),
        an("ping", json!({"type": "ping"})).into_bytes(),
        an("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}})).into_bytes(),
    ];
    first.push(text.as_bytes()[..cut].to_vec());
    first.push(text.as_bytes()[cut..].to_vec());
    first.extend([
        an("content_block_stop", json!({"type": "content_block_stop", "index": 1})).into_bytes(),
        an("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {}}})).into_bytes(),
        an("content_block_delta", json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"pa"}})).into_bytes(),
        an("content_block_delta", json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "th\": \"note.txt\"}"}})).into_bytes(),
        an("content_block_stop", json!({"type": "content_block_stop", "index": 2})).into_bytes(),
        an("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}})).into_bytes(),
        an("message_stop", json!({"type": "message_stop"})).into_bytes(),
    ]);
    mock.push(Reply::Bytes { chunks: first });
    mock.push(Reply::Sse {
        chunks: an_text_reply("The note says hi."),
        delay: Duration::ZERO,
    });
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "read the note").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(fin["usage"]["input_tokens"], 25 + 40);
    assert_eq!(fin["usage"]["output_tokens"], 30 + 6);
    let events = s.events(&sid).await;
    let done = of_type(&events, "message_complete");
    assert_eq!(done[0]["text"], "Je lis « note » ");
    assert_eq!(done[0]["reasoning"], "The user wants the note.");
    assert_eq!(done[1]["text"], "The note says hi.");
    let result = of_type(&events, "tool_result")[0];
    assert_eq!(
        (result["tool"].as_str(), result["ok"].as_bool()),
        (Some("read_file"), Some(true))
    );
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .contains("hi from the file")
    );

    // What the client sent: the Messages API shape, the headers, and the tool round trip.
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["model"], "claude-test");
    assert_eq!(reqs[0]["stream"], true);
    assert!(reqs[0]["system"][0]["text"].as_str().unwrap().len() > 10);
    // Prompt caching: a breakpoint after the system prompt and on the conversation's last block.
    assert_eq!(reqs[0]["system"][0]["cache_control"]["type"], "ephemeral");
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["content"].as_array().unwrap().last().unwrap()["cache_control"]["type"],
        "ephemeral"
    );
    assert!(
        reqs[1]["messages"][0]["content"][0]
            .get("cache_control")
            .is_none(),
        "one breakpoint on the conversation"
    );
    assert!(
        reqs[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "read_file" && t["input_schema"].is_object())
    );
    let msgs = reqs[1]["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user"], "roles alternate");
    let tool_use = msgs[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_use")
        .unwrap();
    assert_eq!(
        (tool_use["id"].as_str(), tool_use["input"]["path"].as_str()),
        (Some("toolu_01"), Some("note.txt"))
    );
    let tool_result = &msgs[2]["content"][0];
    assert_eq!(
        (
            tool_result["type"].as_str(),
            tool_result["tool_use_id"].as_str()
        ),
        (Some("tool_result"), Some("toolu_01"))
    );
    let headers = mock.headers.lock().unwrap().clone();
    assert!(
        headers
            .iter()
            .all(|h| h.get("x-api-key").map(String::as_str) == Some("sk-ant-test"))
    );
    assert!(
        headers
            .iter()
            .all(|h| h.get("anthropic-version").map(String::as_str) == Some("2023-06-01"))
    );

    // Faults through the same client: 529 overloaded is retried; an error event inside a 200 is
    // an error (never text); 401 is not retried; a stream cut inside a tool_use runs nothing.
    mock.push(Reply::Status {
        status: 529,
        headers: vec![],
        body:
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
                .to_string(),
    });
    mock.push(Reply::Sse {
        chunks: an_text_reply("after the retry"),
        delay: Duration::ZERO,
    });
    let run = s.prompt(&sid, "overloaded once").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    assert_eq!(mock.request_count(), 4);

    mock.push(Reply::Sse {
        chunks: vec![
            an("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 1, "output_tokens": 1}}})),
            an("error", json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        ],
        delay: Duration::ZERO,
    });
    let run = s.prompt(&sid, "in-stream error").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(
        (fin["status"].as_str(), fin["error"]["code"].as_str()),
        (Some("failed"), Some("provider_overloaded"))
    );

    mock.push(Reply::Status {
        status: 401,
        headers: vec![],
        body: json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).to_string(),
    });
    let before = mock.request_count();
    let run = s.prompt(&sid, "bad key").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["error"]["code"], "provider_auth");
    assert_eq!(mock.request_count(), before + 1, "401 is never retried");

    std::fs::write(s.workspace.path().join("keep.txt"), "keep").unwrap();
    mock.push(Reply::Cut {
        chunks: vec![
            an("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 1, "output_tokens": 1}}})),
            an("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_cut", "name": "write_file", "input": {}}})),
            an("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"keep.txt\", \"content\": \"gone"}})),
        ],
    });
    let run = s.prompt(&sid, "cut").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["error"]["code"], "provider_stream_truncated");
    let events = s.events(&sid).await;
    assert!(
        !events.iter().any(|e| e["call_id"] == "toolu_cut"),
        "the truncated call never ran"
    );
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("keep.txt")).unwrap(),
        "keep"
    );
    s.stop().await;
}

/// One source of truth for the provider: start flags apply at start, a Settings change replaces
/// the running provider at once (the next run uses it), a refused change stores nothing, and
/// `GET /api/settings/provider` reports what runs and where it came from.
#[tokio::test]
async fn the_last_provider_set_wins_and_settings_report_what_runs() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let script = json!({"scripts": [{"match": "hi", "turns": [{"text": "from replay"}]}]});
    let flags = Opts {
        replay: Some(script),
        ..Default::default()
    };
    let s = TestServer::start(flags.clone()).await;
    let source = |v: &Value| {
        (
            v["kind"].as_str().map(String::from),
            v["source"].as_str().map(String::from),
        )
    };
    let (_, v) = s.get("/api/settings/provider").await;
    assert_eq!(source(&v), (Some("replay".into()), Some("flags".into())));
    let put = json!({"kind": "openai", "base_url": url, "model": "test-model"});
    let (st, v) = s
        .send(reqwest::Method::PUT, "/api/settings/provider", put)
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(source(&v), (Some("openai".into()), Some("settings".into())));
    let (_, v) = s.get("/api/settings/provider").await;
    assert_eq!(source(&v), (Some("openai".into()), Some("settings".into())));
    mock.push(text_reply("from the mock"));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "hi").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let said: Vec<String> = s
        .events(&sid)
        .await
        .iter()
        .filter(|e| e["type"] == "message_complete")
        .filter_map(|e| e["text"].as_str().map(String::from))
        .collect();
    assert_eq!(said, vec!["from the mock".to_string()]);
    // A refused change is refused whole: its key is not stored either.
    let bad = json!({"kind": "openai", "base_url": "ftp://x", "model": "m", "api_key": "sk-new"});
    let (st, _) = s
        .send(reqwest::Method::PUT, "/api/settings/provider", bad)
        .await;
    assert_eq!(st, 422);
    let (_, v) = s.get("/api/settings/provider").await;
    assert_eq!(v["base_url"], url.as_str());
    if std::env::var_os("OPENAI_API_KEY").is_none() {
        assert_eq!(v["api_key_set"], false, "a refused change stored its key");
    }
    // Restarted with flags, the flags apply; restarted without, the stored setting does.
    let TestServer {
        server,
        workspace,
        state,
        ..
    } = s;
    if let Some(srv) = server {
        srv.shutdown().await.unwrap();
    }
    let s = TestServer::start_in(flags, workspace, state).await;
    let (_, v) = s.get("/api/settings/provider").await;
    assert_eq!(source(&v), (Some("replay".into()), Some("flags".into())));
    let TestServer {
        server,
        workspace,
        state,
        ..
    } = s;
    if let Some(srv) = server {
        srv.shutdown().await.unwrap();
    }
    let s = TestServer::start_in(Opts::default(), workspace, state).await;
    let (_, v) = s.get("/api/settings/provider").await;
    assert_eq!(source(&v), (Some("openai".into()), Some("settings".into())));
    s.stop().await;
}

/// `todo_write` runs without asking, in either agent and in `ask` mode; its result carries the
/// whole checklist as a `todos` part, and a bad list is refused with the reason.
#[tokio::test]
async fn todo_write_keeps_a_checklist_without_asking() {
    let (mock, s) = with_mock(Ceiling::default()).await;
    let items = json!([
        {"text": "Write the failing test", "status": "done"},
        {"text": "Fix the parser", "status": "in_progress"},
        {"text": "Update the docs", "status": "pending"}
    ]);
    mock.push(tool_reply("t1", "todo_write", &json!({"items": items})));
    mock.push(tool_reply("t2", "todo_write", &json!({"items": []})));
    mock.push(text_reply("Working on it."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "plan the fix").await;
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "completed", "{done}");
    let events = s.events(&sid).await;
    assert!(of_type(&events, "approval_requested").is_empty());
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["ok"], true, "{}", results[0]);
    assert_eq!(
        results[0]["text"],
        "Checklist updated: 1 done, 1 in progress, 1 pending."
    );
    assert_eq!(
        results[0]["parts"],
        json!([{"type": "todos", "items": items}])
    );
    assert_eq!(results[1]["ok"], false);
    assert!(
        results[1]["text"]
            .as_str()
            .unwrap()
            .contains("send 1 to 50 items"),
        "{}",
        results[1]
    );
    s.stop().await;
}

/// `@path` in a prompt attaches what the gate lets the agent read without asking: the model's
/// first request already holds the file's content (and a mentioned directory's listing), the
/// transcript shows each read as its tool call and result, and a mention of a hard-denied file
/// or one outside the workspace is not read — the prompt says why, nothing asks.
#[tokio::test]
async fn mentioned_files_are_attached_as_reads_the_gate_allowed() {
    let (mock, s) = with_mock(Ceiling::default()).await;
    let ws = s.workspace.path();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(ws.join("server.pem"), "-----BEGIN PRIVATE KEY-----\nx\n").unwrap();
    let outside = TempDir::new("tw-mention-out");
    let far = outside.path().join("far.txt");
    std::fs::write(&far, "far away\n").unwrap();
    mock.push(text_reply("It returns 42."));
    let sid = s.create_session("ask").await;
    let prompt = format!(
        "What does @src/lib.rs return? See @src, @server.pem and @{}. Ask @someone.",
        far.display()
    );
    let run = s.prompt(&sid, &prompt).await;
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "completed", "{done}");

    let first = mock.requests.lock().unwrap()[0].clone();
    let user = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .to_string();
    assert!(user.contains("pub fn answer() -> u32 { 42 }"), "{user}");
    assert!(user.contains("@src/lib.rs is attached"), "{user}");
    assert!(user.contains("@src is attached"), "{user}");
    assert!(user.contains("lib.rs"), "{user}");
    assert!(user.contains("@server.pem was not attached"), "{user}");
    assert!(!user.contains("BEGIN PRIVATE KEY"), "{user}");
    assert!(user.contains("far.txt was not attached"), "{user}");
    assert!(!user.contains("far away"), "{user}");
    assert!(!user.contains("@someone was"), "{user}");

    let events = s.events(&sid).await;
    assert!(of_type(&events, "approval_requested").is_empty());
    let calls = of_type(&events, "tool_call");
    let tools: Vec<&str> = calls.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["read_file", "list_files", "read_file", "read_file"]);
    assert!(
        calls
            .iter()
            .all(|c| c["call_id"].as_str().unwrap().starts_with("mention_"))
    );
    let results = of_type(&events, "tool_result");
    let ok: Vec<bool> = results.iter().map(|r| r["ok"] == true).collect();
    assert_eq!(ok, [true, true, false, false], "{results:?}");
    // The transcript keeps the prompt as typed; the attachments follow it.
    let um = of_type(&events, "user_message");
    assert_eq!(um[0]["text"], prompt.as_str());
    let seq = |e: &Value| e["seq"].as_u64().unwrap();
    assert!(seq(um[0]) < seq(calls[0]));

    // The next prompt's history holds the attachment once, in the first prompt.
    mock.push(text_reply("Still 42."));
    let run = s.prompt(&sid, "and now?").await;
    s.wait_run_finished(&sid, &run).await;
    let second = mock.requests.lock().unwrap()[1].to_string();
    assert_eq!(second.matches("pub fn answer()").count(), 1, "{second}");
    s.stop().await;
}

/// A model that writes its tool calls as text (what small local models do): each family's
/// format becomes an ordinary call through the same gate — one asks and runs, one is denied —
/// `<think>` shows as reasoning, the call syntax never as the answer; a broken block is returned
/// to the model as a failed call; JSON quoted in a reply runs nothing.
#[tokio::test]
async fn calls_written_as_text_go_through_the_gate() {
    let (mock, s) = with_mock(Ceiling::default()).await;
    std::fs::write(s.workspace.path().join("a.txt"), "alpha\n").unwrap();
    let sid = s.create_session("ask").await;
    // Hermes/Qwen, with thinking first: a write that asks (approved once).
    mock.push(text_reply(
        "<think>write it first</think>I'll write it.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"b.txt\", \"content\": \"beta\\n\"}}\n</tool_call>",
    ));
    // Mistral: a read that needs nothing; then Llama 3's python tag, a command the user denies.
    mock.push(text_reply(
        "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}]",
    ));
    mock.push(text_reply(
        "<|python_tag|>{\"name\": \"shell\", \"parameters\": {\"command\": \"touch c.txt\"}}<|eom_id|>",
    ));
    // A broken block: returned as a failed call, never run.
    mock.push(text_reply(
        "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": </tool_call>",
    ));
    mock.push(text_reply(
        "Done. The config looks like {\"name\": \"shell\", \"arguments\": {\"command\": \"touch d.txt\"}}.",
    ));
    let run = s.prompt(&sid, "go").await;
    let (fin, asked) = s
        .answer_until_finished(&sid, &run, |a| {
            if a["tool"] == "shell" { "deny" } else { "once" }.to_string()
        })
        .await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let tools: Vec<&str> = asked.iter().filter_map(|a| a["tool"].as_str()).collect();
    assert_eq!(tools, ["write_file", "shell"], "{asked:#?}");
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("b.txt")).unwrap(),
        "beta\n"
    );
    assert!(!s.workspace.path().join("c.txt").exists());
    assert!(!s.workspace.path().join("d.txt").exists());
    let events = s.events(&sid).await;
    let calls: Vec<&str> = of_type(&events, "tool_call")
        .iter()
        .filter_map(|c| c["tool"].as_str())
        .collect();
    assert_eq!(calls, ["write_file", "read_file", "shell", "write_file"]);
    let results = of_type(&events, "tool_result");
    assert_eq!(results[1]["ok"], true);
    assert!(results[1]["text"].as_str().unwrap().contains("alpha"));
    assert_eq!(results[2]["ok"], false, "denied");
    assert_eq!(results[3]["ok"], false, "{}", results[3]);
    assert!(
        results[3]["text"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{}",
        results[3]
    );
    let answers: Vec<&Value> = of_type(&events, "message_complete");
    assert_eq!(answers[0]["text"], "I'll write it.");
    assert_eq!(answers[0]["reasoning"], "write it first");
    for a in &answers {
        let text = a["text"].as_str().unwrap();
        assert!(
            !text.contains("<tool_call>")
                && !text.contains("TOOL_CALLS")
                && !text.contains("python_tag"),
            "{text}"
        );
    }
    // The streamed deltas never carried the call syntax either.
    let streamed: String = of_type(&events, "message_delta")
        .iter()
        .filter_map(|d| d["text"].as_str())
        .collect();
    assert!(
        !streamed.contains("<tool_call>") && !streamed.contains("<think>"),
        "{streamed}"
    );
    // The next request carried the calls and their results, as the provider expects.
    let reqs = mock.requests.lock().unwrap().clone();
    let msgs = reqs[1]["messages"].as_array().unwrap();
    let call = msgs
        .iter()
        .find_map(|m| m["tool_calls"].as_array().and_then(|c| c.first()))
        .unwrap();
    assert_eq!(call["function"]["name"], "write_file");
    let tool_msg = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool_msg["tool_call_id"], call["id"]);
    s.stop().await;
}

/// `toolCalls: text`: the server is sent no `tools`; the system prompt describes them, and the
/// earlier calls and their results are written as text (a chat template without tool support
/// takes the conversation); a bare JSON call that is the whole reply runs.
#[tokio::test]
async fn a_model_that_writes_calls_as_text_is_told_its_tools_in_the_prompt() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        network: Some(fast_net()),
        tweak: Some(|cfg| {
            let mut m = std::collections::BTreeMap::new();
            m.insert(
                "openai/test-model".to_string(),
                tradewind::models::ModelOverride {
                    tool_calls: Some(tradewind::provider::textcalls::ToolCallsMode::Text),
                    ..Default::default()
                },
            );
            cfg.models = tradewind::models::Catalog::new(m);
        }),
        ..Opts::default()
    })
    .await;
    std::fs::write(s.workspace.path().join("a.txt"), "alpha\n").unwrap();
    mock.push(text_reply(
        "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}",
    ));
    mock.push(text_reply("It says alpha."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "what is in a.txt?").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let result = of_type(&events, "tool_result")[0];
    assert_eq!(result["tool"], "read_file");
    assert!(
        result["text"].as_str().unwrap().contains("alpha"),
        "{result}"
    );
    let reqs = mock.requests.lock().unwrap().clone();
    assert!(reqs[0].get("tools").is_none(), "{}", reqs[0]);
    let system = reqs[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("<tools>") && system.contains("\"read_file\""));
    let msgs = reqs[1]["messages"].as_array().unwrap();
    assert!(
        msgs.iter()
            .all(|m| m.get("tool_calls").is_none() && m["role"] != "tool")
    );
    let asked = msgs.iter().find(|m| m["role"] == "assistant").unwrap();
    assert!(
        asked["content"].as_str().unwrap().contains("<tool_call>"),
        "{asked}"
    );
    let answer = msgs.last().unwrap();
    assert_eq!(answer["role"], "user");
    let answer = answer["content"].as_str().unwrap();
    assert!(
        answer.starts_with("<tool_response>") && answer.contains("alpha"),
        "{answer}"
    );
    s.stop().await;
}

/// A server that streams no usage (llama-cpp-python's does not) still counts: the turn's usage
/// is estimated from the text's length, never zero, and marked so; a reported one is not.
#[tokio::test]
async fn usage_a_server_never_reports_is_estimated_and_marked() {
    let (mock, s) = with_mock(Ceiling::default()).await;
    mock.push(Reply::Sse {
        chunks: vec![
            ev_text("A reply from a server that counts nothing."),
            ev_finish("stop"),
            ev_done(),
        ],
        delay: Duration::ZERO,
    });
    mock.push(text_reply("counted"));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "hello").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed");
    let u = &fin["usage"];
    assert_eq!(u["estimated"], true, "{u}");
    assert!(u["input_tokens"].as_u64().unwrap() > 0, "{u}");
    assert!(u["output_tokens"].as_u64().unwrap() > 0, "{u}");
    let marks = of_type(&s.events(&sid).await, "model_usage")
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    assert_eq!(marks[0]["usage"]["estimated"], true);
    assert!(marks[0]["context_tokens"].as_u64().unwrap() > 0);
    let run = s.prompt(&sid, "again").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert!(fin["usage"].get("estimated").is_none(), "{}", fin["usage"]);
    s.stop().await;
}

/// A running command's output reaches the transcript as it comes (`tool_output`), before the
/// command ends; a chatty one is bounded at 256 KiB live, and its result still holds the end.
#[tokio::test]
async fn a_running_command_streams_its_output_before_it_ends() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let run = s
        .prompt(
            &sid,
            "!echo first-line; while [ ! -f go ]; do sleep 0.05; done; echo second-line >&2",
        )
        .await;
    // Seen while the command still waits for `go`: nothing has ended yet.
    let first = s
        .wait_event(&sid, |e| {
            e["type"] == "tool_output"
                && e["text"].as_str().is_some_and(|t| t.contains("first-line"))
        })
        .await;
    assert_eq!(first["stream"], "stdout");
    let call = first["call_id"].as_str().unwrap().to_string();
    std::fs::write(s.workspace.path().join("go"), "").unwrap();
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    let at = |pred: &dyn Fn(&Value) -> bool| events.iter().position(pred).unwrap();
    let out = at(&|e| e["type"] == "tool_output" && e["stream"] == "stdout");
    let err = at(&|e| {
        e["type"] == "tool_output"
            && e["stream"] == "stderr"
            && e["text"]
                .as_str()
                .is_some_and(|t| t.contains("second-line"))
    });
    let result = at(&|e| e["type"] == "tool_result");
    assert!(
        out < err && err < result,
        "live output comes before the result"
    );
    assert!(
        events
            .iter()
            .filter(|e| e["type"] == "tool_output")
            .all(|e| e["call_id"] == json!(call))
    );

    // 400 KiB of output: at most 256 KiB live, then a line says where the rest is.
    let run = s
        .prompt(
            &sid,
            "!head -c 409600 /dev/zero | tr '\\0' 'x'; echo; echo the-end",
        )
        .await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let run_events: Vec<&Value> = events.iter().filter(|e| e["run"] == json!(run)).collect();
    let live: String = run_events
        .iter()
        .filter(|e| e["type"] == "tool_output")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(live.len() <= 256 * 1024 + 200, "{}", live.len());
    assert!(live.ends_with("the whole output comes with the result]\n"));
    let result = run_events
        .iter()
        .find(|e| e["type"] == "tool_result")
        .unwrap();
    assert!(result["text"].as_str().unwrap().contains("the-end"));
    s.stop().await;
}
