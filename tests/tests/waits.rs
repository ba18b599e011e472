//! A run waiting on a person when the server stops — cleanly or by `kill -9` — goes on waiting
//! after the restart: its approval, question or plan stays answerable under the same id, and the
//! answer continues the same run. Only a wait whose time ran out while the server was down ends
//! the run `interrupted`, the prompt reading "not answered — the server restarted", as the
//! model is told.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tradewind::config::Ceiling;
use tradewind_tests::*;

const NOT_ANSWERED: &str = "not answered — the server restarted";

fn script() -> Value {
    json!({"scripts": [
        {"match": "write it", "turns": [
            {"text": "Writing.", "tool_calls": [
                {"name": "write_file", "arguments": {"path": "kept.txt", "content": "after the restart\n"}},
                {"name": "write_file", "arguments": {"path": "second.txt", "content": "the call after it\n"}}
            ]},
            {"text": "Written."}
        ]},
        {"match": "which db", "turns": [
            {"tool_calls": [{"name": "ask_user_question", "arguments": {"questions": [
                {"question": "Which database?", "options": [{"label": "SQLite"}, {"label": "Postgres"}]}
            ]}}]},
            {"text": "Thanks."}
        ]},
        {"match": "plan it", "turns": [
            {"tool_calls": [{"name": "exit_plan", "arguments": {"plan": "# Kept plan\n\nDo it.", "title": "Kept"}}]},
            {"text": "Planned."}
        ]},
        {"turns": [{"text": "ok"}]}
    ]})
}

fn opts() -> Opts {
    Opts {
        replay: Some(script()),
        ceiling: Ceiling {
            write: true,
            process: false,
            external: false,
        },
        approval_timeout_secs: Some(3600),
        ..Opts::default()
    }
}

/// A server whose session's run waits for the approval of its first write: the server, the
/// session, the run and the `approval_requested` frame.
async fn asking() -> (TestServer, String, String, Value) {
    let s = TestServer::start(opts()).await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write it").await;
    let asked = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    (s, sid, run, asked)
}

fn count(events: &[Value], pred: impl Fn(&Value) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

/// SIGTERM-like stop (the server's own shutdown) while an approval waits: after the restart
/// the same approval is pending, the run still `running`; allowing it runs the call and the
/// one after it, and the run completes — announced once, started once.
#[tokio::test]
async fn an_approval_waiting_at_a_restart_is_answered_after_it_and_the_run_goes_on() {
    let (s, sid, run, asked) = asking().await;
    let id = asked["approval_id"].as_str().unwrap().to_string();
    let call = asked["call_id"].clone();
    let s = s.restart(opts()).await;
    let (_, pending) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    assert_eq!(
        pending["approvals"][0]["approval_id"],
        id.as_str(),
        "{pending}"
    );
    let (_, r) = s.get(&format!("/api/runs/{run}")).await;
    assert_eq!(r["status"], "running", "{r}");
    let (st, v) = s
        .post(&format!("/api/approvals/{id}"), json!({"decision": "once"}))
        .await;
    assert!(st < 300, "{st} {v}");
    // The second write asks too: the run went on past the first.
    let second = s
        .wait_event(&sid, |e| {
            e["type"] == "approval_requested" && e["approval_id"] != id.as_str()
        })
        .await;
    let (st, _) = s
        .post(
            &format!("/api/approvals/{}", second["approval_id"].as_str().unwrap()),
            json!({"decision": "once"}),
        )
        .await;
    assert!(st < 300);
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let ws = s.workspace.path();
    assert_eq!(
        std::fs::read_to_string(ws.join("kept.txt")).unwrap(),
        "after the restart\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("second.txt")).unwrap(),
        "the call after it\n"
    );
    let events = s.events(&sid).await;
    assert_eq!(
        count(&events, |e| e["type"] == "tool_call"
            && e["call_id"] == call),
        1
    );
    assert_eq!(
        count(&events, |e| e["type"] == "run_started"
            && e["run"] == run.as_str()),
        1
    );
    assert_eq!(
        count(&events, |e| e["type"] == "approval_decided"
            && e["approval_id"] == id.as_str()
            && e["decision"] == "once"),
        1
    );
    assert_eq!(
        count(&events, |e| e["type"] == "message_complete"
            && e["text"] == "Written."),
        1
    );
}

/// `kill -9` while a question waits: after the restart it is still pending and its answer
/// reaches the same run.
#[tokio::test]
async fn a_question_waiting_at_a_kill_is_answered_after_the_restart() {
    let home = TempDir::new("waits-home");
    let ws = TempDir::new("waits-ws");
    let replay = home.path().join("replay.json");
    std::fs::write(&replay, script().to_string()).unwrap();
    let state = home.path().join("state");
    let args = replay_serve_args(ws.path(), &replay);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, base) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base);
    let sid = api.create_session(json!({})).await;
    let run = api.prompt(&sid, "which db").await;
    let mut qid = Value::Null;
    for _ in 0..400 {
        qid = api.get(&format!("/api/sessions/{sid}/pending")).await["questions"][0]["question_id"]
            .clone();
        if qid.is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let qid = qid.as_str().expect("the question is asked").to_string();
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();
    let (mut child2, base2) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base2);
    let pending = api.get(&format!("/api/sessions/{sid}/pending")).await;
    assert_eq!(
        pending["questions"][0]["question_id"],
        qid.as_str(),
        "{pending}"
    );
    assert_eq!(
        api.get(&format!("/api/runs/{run}")).await["status"],
        "running"
    );
    api.post(
        &format!("/api/questions/{qid}"),
        json!({"answers": [["Postgres"]]}),
    )
    .await;
    let fin = api.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = api.events(&sid).await;
    let answer = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "ask_user_question")
        .expect("the question's result");
    assert!(
        answer["text"]
            .as_str()
            .unwrap()
            .contains("Which database? → Postgres"),
        "{answer}"
    );
    assert_eq!(
        count(&events, |e| e["type"] == "question_asked"),
        1,
        "asked once, answered after the restart"
    );
    child2.start_kill().unwrap();
    child2.wait().await.unwrap();
}

/// A plan waiting at a restart: the same plan (no second revision) is approved after it, and
/// the planning run goes on to its answer.
#[tokio::test]
async fn a_plan_waiting_at_a_restart_is_decided_after_it() {
    let s = TestServer::start(opts()).await;
    let (_, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "auto"}))
        .await;
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "plan it").await;
    let proposed = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    let pid = proposed["plan_id"].as_str().unwrap().to_string();
    let s = s.restart(opts()).await;
    let (st, v) = s
        .post(
            &format!("/api/plans/{pid}/decision"),
            json!({"decision": "feedback", "feedback": "fine as it is"}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    assert_eq!(count(&events, |e| e["type"] == "plan_proposed"), 1);
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "exit_plan")
        .expect("the plan's result");
    let text = result["text"].as_str().unwrap();
    assert!(
        text.contains("decision: feedback") && text.contains("fine as it is"),
        "{text}"
    );
}

/// The wait's time ran out while the server was down: the run ends `interrupted`, the
/// approval reads "not answered — the server restarted", and so does the call's result the
/// model reads next.
#[tokio::test]
async fn a_wait_that_ran_out_while_the_server_was_down_ends_the_run() {
    let (s, sid, run, asked) = asking().await;
    let id = asked["approval_id"].as_str().unwrap().to_string();
    let TestServer {
        server,
        workspace,
        state,
        ..
    } = s;
    server.unwrap().shutdown().await.unwrap();
    // Asked two hours ago, as far as the next start can tell.
    let mut cfg = tradewind::config::Config::for_paths(
        workspace.path().to_path_buf(),
        state.path().to_path_buf(),
    );
    cfg.access_token = Some(TOKEN.into());
    let store = tradewind::server::open_store(&cfg).await.unwrap();
    sqlx::query("UPDATE approvals SET created_at = created_at - 7200000")
        .execute(store.pool())
        .await
        .unwrap();
    store.close().await;
    let s = TestServer::start_in(opts(), workspace, state).await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "interrupted", "{fin}");
    assert_eq!(fin["error"]["message"], NOT_ANSWERED, "{fin}");
    let events = s.events(&sid).await;
    let decided = events
        .iter()
        .find(|e| e["type"] == "approval_decided" && e["approval_id"] == id.as_str())
        .expect("the approval is closed");
    assert_eq!(
        (decided["decision"].as_str(), decided["reason"].as_str()),
        (Some("expired"), Some(NOT_ANSWERED))
    );
    let (_, pending) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    assert!(
        pending["approvals"].as_array().unwrap().is_empty(),
        "{pending}"
    );
    // The model reads why the call has no result.
    let (_, msgs) = s
        .get(&format!("/api/sessions/{sid}/messages?limit=100"))
        .await;
    assert!(msgs.to_string().contains(NOT_ANSWERED), "{msgs}");
    assert!(!s.workspace.path().join("kept.txt").exists());
}

/// A question stored but never shown (the server died between storing it and recording its
/// request): at the restart it is shown then, from what its row holds, and stays answerable.
#[tokio::test]
async fn a_question_stored_but_never_shown_is_shown_at_the_restart() {
    let s = TestServer::start(opts()).await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "which db").await;
    let asked = s.wait_event(&sid, |e| e["type"] == "question_asked").await;
    // A second question of the same run, as a kill would leave it: its row, no event.
    let store = s.server.as_ref().unwrap().state.store.clone();
    let unseen = tradewind::protocol::QuestionId::from("01ARZ3NDEKTSV4RRFFQ69G5FAV".to_string());
    store
        .create_question(
            &unseen,
            &sid.clone().into(),
            &run.clone().into(),
            &"call_unseen".to_string().into(),
            r#"[{"question": "Which cache?", "options": [{"label": "Redis"}, {"label": "None"}]}]"#,
        )
        .await
        .unwrap();
    let s = s.restart(opts()).await;
    let events = s.events(&sid).await;
    let shown = events
        .iter()
        .find(|e| e["type"] == "question_asked" && e["question_id"] == unseen.to_string())
        .unwrap_or_else(|| panic!("the stored question is shown at the restart: {events:?}"));
    assert_eq!(shown["questions"][0]["question"], "Which cache?");
    assert_eq!(shown["call_id"], "call_unseen");
    // The run still waits on its own question, which an answer continues.
    let (st, v) = s
        .post(
            &format!("/api/questions/{}", asked["question_id"].as_str().unwrap()),
            json!({"answers": [["Postgres"]]}),
        )
        .await;
    assert!(st < 300, "{st} {v}");
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
}
