//! Steering a conversation: edit and resend (a fork), resume a run that stopped early. The
//! model is the scripted OpenAI-compatible server, so what the model is sent is checked too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, Reply, ev_done, ev_finish, ev_text, text_reply};
use tradewind_tests::*;

async fn with_mock() -> (Mock, TestServer) {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    (mock, s)
}

fn texts(events: &[Value], kind: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == kind)
        .map(|e| e["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn seqs_are_gap_free(events: &[Value]) {
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
}

#[tokio::test]
async fn edit_and_resend_forks_the_conversation_at_that_message() {
    let (mock, s) = with_mock().await;
    let sid = s.create_session("ask").await;
    mock.push(text_reply("answer one"));
    let r1 = s.prompt(&sid, "first question").await;
    s.wait_run_finished(&sid, &r1).await;
    mock.push(text_reply("answer two"));
    let r2 = s.prompt(&sid, "second question").await;
    s.wait_run_finished(&sid, &r2).await;
    let before = s.events(&sid).await;
    let second = before
        .iter()
        .find(|e| e["type"] == "user_message" && e["text"] == "second question")
        .unwrap();
    let at = second["seq"].as_i64().unwrap();

    mock.push(text_reply("answer to the edit"));
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/fork"),
            json!({"seq": at, "text": "second question, edited"}),
        )
        .await;
    assert_eq!(st, 201, "{v}");
    let fork = v["session"]["id"].as_str().unwrap().to_string();
    assert_ne!(fork, sid);
    assert_eq!(
        v["session"]["forked_from"],
        json!({"session": sid, "seq": at})
    );
    let run = v["run_id"].as_str().unwrap().to_string();
    assert_eq!(
        s.wait_run_finished(&fork, &run).await["status"],
        "completed"
    );

    // The fork: the conversation before the edited message, then the edit and its answer.
    let events = s.events(&fork).await;
    seqs_are_gap_free(&events);
    assert_eq!(
        texts(&events, "user_message"),
        ["first question", "second question, edited"]
    );
    assert_eq!(
        texts(&events, "message_complete"),
        ["answer one", "answer to the edit"]
    );
    // The model was sent the first exchange and the edit, not the replaced message.
    let sent = mock.requests.lock().unwrap().last().cloned().unwrap();
    let body = sent.to_string();
    assert!(
        body.contains("first question") && body.contains("answer one"),
        "{body}"
    );
    assert!(body.contains("second question, edited"));
    assert!(!body.contains("answer two"), "{body}");

    // The original is as it was.
    let after = s.events(&sid).await;
    assert_eq!(after, before);
    seqs_are_gap_free(&after);

    // Only a user message can be forked at (there is none at seq 1: 404); the whole
    // conversation forks without one.
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/fork"), json!({"seq": 1}))
        .await;
    assert_eq!(st, 404, "{v}");
    let (st, _) = s
        .post(&format!("/api/sessions/{sid}/fork"), json!({"seq": 9999}))
        .await;
    assert_eq!(st, 404);
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/fork"), json!({}))
        .await;
    assert_eq!(st, 201);
    let whole = v["session"]["id"].as_str().unwrap().to_string();
    let copy = s.events(&whole).await;
    assert_eq!(copy.len(), before.len());
    assert!(v["run_id"].is_null());
    s.stop().await;
}

#[tokio::test]
async fn resume_continues_a_run_that_stopped() {
    let (mock, s) = with_mock().await;
    let sid = s.create_session("ask").await;
    // A stream that breaks off: the run fails.
    mock.push(Reply::Sse {
        chunks: vec![ev_text("half an ans")],
        delay: std::time::Duration::ZERO,
    });
    let r1 = s.prompt(&sid, "write the summary").await;
    let fin = s.wait_run_finished(&sid, &r1).await;
    assert_eq!(fin["status"], "failed", "{fin}");
    // A completed run cannot be resumed; the failed one can.
    mock.push(Reply::Sse {
        chunks: vec![ev_text("the whole answer"), ev_finish("stop"), ev_done()],
        delay: std::time::Duration::ZERO,
    });
    let (st, v) = s.post(&format!("/api/runs/{r1}/resume"), json!({})).await;
    assert_eq!(st, 202, "{v}");
    let r2 = v["run_id"].as_str().unwrap().to_string();
    let fin = s.wait_run_finished(&sid, &r2).await;
    assert_eq!(fin["status"], "completed");
    let (_, run) = s.get(&format!("/api/runs/{r2}")).await;
    assert_eq!(run["trigger"], "resume");
    // Who wrote each user message, and which error ended a run, are in the events.
    let events = s.events(&sid).await;
    let origins: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "user_message")
        .map(|e| &e["origin"])
        .collect();
    assert_eq!(origins, [&json!("prompt"), &json!("resume")]);
    let fatal: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "error")
        .map(|e| &e["fatal"])
        .collect();
    assert_eq!(fatal, [&json!(true)], "the error the first run ended with");
    let body = mock
        .requests
        .lock()
        .unwrap()
        .last()
        .cloned()
        .unwrap()
        .to_string();
    assert!(
        body.contains("Continue the previous task") && body.contains("write the summary"),
        "{body}"
    );
    let (st, _) = s.post(&format!("/api/runs/{r2}/resume"), json!({})).await;
    assert_eq!(st, 409, "a completed run is not resumed");
    let (st, _) = s.post(&format!("/api/runs/{r1}/resume"), json!({})).await;
    assert_eq!(st, 409, "only the latest run");
    s.stop().await;
}

/// The JSON of every request the model server got, in order.
fn requests(mock: &Mock) -> Vec<Value> {
    mock.requests.lock().unwrap().clone()
}

/// Post `text` with a delivery; the run id it was queued as.
async fn send(s: &TestServer, sid: &str, text: &str, delivery: &str) -> String {
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/messages"),
            json!({"text": text, "delivery": delivery}),
        )
        .await;
    assert_eq!(st, 202, "{v}");
    v["run_id"].as_str().unwrap().to_string()
}

/// The approval the session waits on (its `approval_requested` event).
async fn waiting_approval(s: &TestServer, sid: &str) -> Value {
    s.wait_event(sid, |e| e["type"] == "approval_requested")
        .await
}

#[tokio::test]
async fn a_message_steered_mid_run_reaches_the_model_at_the_next_tool_boundary() {
    let (mock, s) = with_mock().await;
    let sid = s.create_session("ask").await;
    mock.push(tradewind_tests::openai_mock::tool_reply(
        "c1",
        "shell",
        &json!({"command": "echo first"}),
    ));
    // The answer to the steer breaks off: the run fails, and stays resumable.
    mock.push(Reply::Cut {
        chunks: vec![ev_text("Switching to the READ")],
    });
    let r1 = s.prompt(&sid, "fix the tests").await;
    let asked = waiting_approval(&s, &sid).await;
    // What "for this session" would keep is said in words: every command.
    assert_eq!(asked["session_keeps"], json!(["every command (process)"]));

    // Sent while the run waits: it is listed as a steer, not run after.
    let steer = send(
        &s,
        &sid,
        "stop that and look at the README instead",
        "steer",
    )
    .await;
    let (_, q) = s.get(&format!("/api/sessions/{sid}/queue")).await;
    assert_eq!(q["data"][0]["id"], json!(steer), "{q}");
    assert_eq!(q["data"][0]["delivery"], "steer", "{q}");

    let id = asked["approval_id"].as_str().unwrap();
    let (st, v) = s
        .post(&format!("/api/approvals/{id}"), json!({"decision": "once"}))
        .await;
    assert_eq!(st, 200, "{v}");
    let fin = s.wait_run_finished(&sid, &r1).await;
    assert_eq!(fin["status"], "failed", "{fin}");

    // The model's second call reads the command's result and then the steered message.
    let reqs = requests(&mock);
    assert_eq!(
        reqs.len(),
        2,
        "one run, two model calls: the steer made no run of its own"
    );
    let msgs = reqs[1]["messages"].as_array().unwrap();
    let tool_at = msgs.iter().position(|m| m["role"] == "tool").unwrap();
    let steer_at = msgs
        .iter()
        .position(|m| {
            m["role"] == "user" && m["content"].to_string().contains("look at the README")
        })
        .expect("the steered message is in the model's second call");
    assert!(steer_at > tool_at, "after the tool's result: {msgs:?}");

    // Its event names the run it was sent as; that run ended `completed`, reason `steered`,
    // without starting; the queue is empty.
    let events = s.events(&sid).await;
    let said: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "user_message")
        .collect();
    assert_eq!(said.len(), 2);
    assert_eq!(said[1]["steered_from"], json!(steer));
    assert_eq!(
        said[1]["run"],
        json!(r1),
        "recorded in the run that took it"
    );
    let ended = events
        .iter()
        .find(|e| e["type"] == "run_finished" && e["run_id"] == json!(steer))
        .unwrap();
    assert_eq!(ended["status"], "completed");
    assert_eq!(ended["reason"], "steered");
    assert!(
        !events
            .iter()
            .any(|e| e["type"] == "run_started" && e["run_id"] == json!(steer)),
        "the steered run never starts"
    );
    let (_, run) = s.get(&format!("/api/runs/{steer}")).await;
    assert_eq!(run["status"], "completed", "{run}");
    let (_, q) = s.get(&format!("/api/sessions/{sid}/queue")).await;
    assert_eq!(q["data"], json!([]));
    // The run that took the steer is still the latest: it can be resumed.
    mock.push(text_reply("Switched to the README."));
    let (st, v) = s.post(&format!("/api/runs/{r1}/resume"), json!({})).await;
    assert_eq!(st, 202, "{v}");
    let fin = s
        .wait_run_finished(&sid, v["run_id"].as_str().unwrap())
        .await;
    assert_eq!(fin["status"], "completed");
    s.stop().await;
}

#[tokio::test]
async fn a_steer_the_run_never_reaches_runs_next_and_a_queued_message_waits_for_the_end() {
    let (mock, s) = with_mock().await;
    let sid = s.create_session("ask").await;
    // The model answers with text only once the test has sent both messages.
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(2));
    mock.push(Reply::AfterBarrier {
        barrier: barrier.clone(),
        then: Box::new(text_reply("All done.")),
    });
    mock.push(text_reply("Reply to the steer."));
    mock.push(text_reply("Reply to the queued one."));
    let r1 = s.prompt(&sid, "summarise").await;
    s.wait_event(&sid, |e| e["type"] == "run_started").await;
    let queued = send(&s, &sid, "then list the files", "queue").await;
    let steer = send(&s, &sid, "and keep it short", "steer").await;
    // A `!command` is never steered: it is listed as queued.
    let cmd = send(&s, &sid, "!echo hi", "steer").await;
    let (_, q) = s.get(&format!("/api/sessions/{sid}/queue")).await;
    let deliveries: Vec<&Value> = q["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["delivery"])
        .collect();
    assert_eq!(
        deliveries,
        [&json!("queue"), &json!("steer"), &json!("queue")],
        "{q}"
    );
    barrier.wait().await;
    let fin = s.wait_run_finished(&sid, &r1).await;
    assert_eq!(fin["status"], "completed");
    // No tool boundary came: the steer is not lost, it runs in its place in the queue.
    for run in [&queued, &steer] {
        let fin = s.wait_run_finished(&sid, run).await;
        assert_eq!(fin["status"], "completed", "{fin}");
        assert!(
            fin.get("reason").is_none() || fin["reason"].is_null(),
            "{fin}"
        );
    }
    // The user's own `!command` runs last, without asking.
    assert_eq!(s.wait_run_finished(&sid, &cmd).await["status"], "completed");
    let events = s.events(&sid).await;
    let started: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "run_started")
        .map(|e| &e["run_id"])
        .collect();
    assert_eq!(
        started,
        [&json!(r1), &json!(queued), &json!(steer), &json!(cmd)]
    );
    s.stop().await;
}

#[tokio::test]
async fn deny_with_a_reason_tells_the_model_what_the_user_said() {
    let (mock, s) = with_mock().await;
    let sid = s.create_session("ask").await;
    mock.push(tradewind_tests::openai_mock::tool_reply(
        "c1",
        "shell",
        &json!({"command": "psql prod"}),
    ));
    mock.push(text_reply("Understood: staging it is."));
    let r1 = s.prompt(&sid, "migrate the database").await;
    let asked = waiting_approval(&s, &sid).await;
    let id = asked["approval_id"].as_str().unwrap();
    let url = format!("/api/approvals/{id}");
    // A reason goes with a denial only, and has a length limit; neither answers the approval.
    let (st, v) = s
        .post(&url, json!({"decision": "once", "reason": "fine"}))
        .await;
    assert_eq!(st, 422, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("deny"),
        "{v}"
    );
    let (st, v) = s
        .post(
            &url,
            json!({"decision": "deny", "reason": "x".repeat(2001)}),
        )
        .await;
    assert_eq!(st, 422, "{v}");
    let (st, v) = s
        .post(
            &url,
            json!({"decision": "deny", "reason": "  Use the staging database, not production  "}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    s.wait_run_finished(&sid, &r1).await;
    let reqs = requests(&mock);
    let tool = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .to_string();
    assert!(
        tool.contains(
            "the user denied this call and said: \\\"Use the staging database, not production\\\""
        ),
        "{tool}"
    );
    let events = s.events(&sid).await;
    let decided = events
        .iter()
        .find(|e| e["type"] == "approval_decided")
        .unwrap();
    assert_eq!(decided["decision"], "deny");
    assert_eq!(
        decided["reason"],
        "Use the staging database, not production"
    );
    // A second answer is a conflict, reason or not.
    let (st, _) = s
        .post(&url, json!({"decision": "deny", "reason": "again"}))
        .await;
    assert_eq!(st, 409);
    s.stop().await;
}
