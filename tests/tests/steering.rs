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
