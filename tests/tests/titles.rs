//! Titles the model writes after a session's first exchange (`titles` in config.json): one call
//! of at most 200 output tokens, counted in the session's usage, never over a title the user
//! set, from the answer alone when the first prompt is a file or a command.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use tradewind_tests::openai_mock::{Mock, text_reply};
use tradewind_tests::*;

const ASKED: &str = "Name this conversation";

async fn titled(tweak: fn(&mut tradewind::config::Config)) -> (Mock, TestServer) {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        network: Some(scripted_net()),
        tweak: Some(tweak),
        ..Opts::default()
    })
    .await;
    (mock, s)
}

fn on(c: &mut tradewind::config::Config) {
    c.titles.enabled = true;
}

/// The title calls the model got: their first user message asks for a name.
fn title_calls(mock: &Mock) -> Vec<Value> {
    mock.requests
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r["messages"].to_string().contains(ASKED))
        .cloned()
        .collect()
}

#[tokio::test]
async fn the_first_exchange_names_the_session_in_one_short_counted_call() {
    let (mock, s) = titled(on).await;
    mock.push(text_reply(
        "The form compares the hash with the wrong salt; I will fix it.",
    ));
    mock.push_for(ASKED, text_reply("\"Fix the login salt bug.\""));
    let sid = s.create_session("ask").await;
    let run = s
        .prompt(
            &sid,
            "the login form rejects valid passwords, can you check",
        )
        .await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    s.wait_event(&sid, |e| {
        e["type"] == "session_updated" && e["data"]["title"] == "Fix the login salt bug"
    })
    .await;
    let calls = title_calls(&mock);
    assert_eq!(calls.len(), 1);
    let c = &calls[0];
    assert_eq!(c["max_tokens"], 200, "{c}");
    assert!(c["tools"].as_array().is_none_or(Vec::is_empty), "{c}");
    let asked = c["messages"].to_string();
    assert!(
        asked.contains("rejects valid passwords") && asked.contains("wrong salt"),
        "{asked}"
    );
    // Counted with the turn: two calls in the session's usage.
    let (_, usage) = s.get(&format!("/api/sessions/{sid}/usage")).await;
    assert_eq!(usage["calls"], 2, "{usage}");
    // The next exchange keeps the title.
    mock.push(text_reply("Added."));
    let run2 = s.prompt(&sid, "now add a test for it").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run2).await["status"],
        "completed"
    );
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["title"], "Fix the login salt bug");
    assert_eq!(title_calls(&mock).len(), 1);
}

#[tokio::test]
async fn a_title_the_user_set_is_never_replaced() {
    let (mock, s) = titled(on).await;
    mock.push(text_reply("Sure."));
    mock.push(text_reply("Done."));
    let (st, v) = s
        .post("/api/sessions", serde_json::json!({"title": "My own name"}))
        .await;
    assert_eq!(st, 201, "{v}");
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "rename the module").await;
    s.wait_run_finished(&sid, &run).await;
    // A second exchange after it: had the first been titled, its call came before this one's.
    let run2 = s.prompt(&sid, "and its tests").await;
    s.wait_run_finished(&sid, &run2).await;
    assert!(title_calls(&mock).is_empty());
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["title"], "My own name");
}

#[tokio::test]
async fn a_file_prompt_is_titled_from_the_first_answer() {
    let (mock, s) = titled(on).await;
    std::fs::write(s.workspace.path().join("notes.md"), "release steps\n").unwrap();
    mock.push(text_reply("These are the release steps for version two."));
    mock.push_for(ASKED, text_reply("Release steps overview"));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "@notes.md").await;
    s.wait_run_finished(&sid, &run).await;
    s.wait_event(&sid, |e| {
        e["type"] == "session_updated" && e["data"]["title"] == "Release steps overview"
    })
    .await;
    let asked = title_calls(&mock)[0]["messages"].to_string();
    assert!(
        asked.contains("release steps for version two") && !asked.contains("@notes.md"),
        "{asked}"
    );
}

#[tokio::test]
async fn titles_off_make_no_call() {
    let (mock, s) = titled(|c| c.titles.enabled = false).await;
    mock.push(text_reply("Sure."));
    mock.push(text_reply("Done."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "rename the module").await;
    s.wait_run_finished(&sid, &run).await;
    let run2 = s.prompt(&sid, "and its tests").await;
    s.wait_run_finished(&sid, &run2).await;
    assert!(title_calls(&mock).is_empty());
    assert_eq!(mock.request_count(), 2);
}
