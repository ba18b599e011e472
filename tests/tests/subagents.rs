//! Subagents over the real OpenAI-compatible client: a child's approval shown and answered in
//! the parent, `task_wait` returning only the child's answer, the parent's grants and mode as
//! the child's ceiling, depth and live-children limits, and a parent's cancel reaching its
//! children. Parent and children call the model at once: each gets its own script, chosen by
//! a marker in its first user message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

async fn server() -> (Mock, TestServer) {
    with_scripted_model(tradewind::config::Ceiling::default()).await
}

/// One reply calling several tools at once.
fn tools_reply(calls: &[(&str, &str, Value)]) -> Reply {
    let mut chunks = Vec::new();
    for (i, (id, name, args)) in calls.iter().enumerate() {
        chunks.push(ev_tool_start(i, id, name));
        chunks.push(ev_tool_args(i, &args.to_string()));
    }
    chunks.push(ev_finish("tool_calls"));
    chunks.push(ev_done());
    Reply::Sse {
        chunks,
        delay: Duration::ZERO,
    }
}

/// The request whose first user message contains `marker`, the `n`th of them.
fn request_of(mock: &Mock, marker: &str, n: usize) -> Value {
    mock.requests
        .lock()
        .unwrap()
        .iter()
        .filter(|r| {
            r["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "user"))
                .and_then(|m| m["content"].as_str())
                .is_some_and(|c| c.contains(marker))
        })
        .nth(n)
        .cloned()
        .unwrap_or_else(|| panic!("no request {n} for {marker}"))
}

/// The tool message answering call `id` in a request.
fn tool_result(req: &Value, id: &str) -> String {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no result for {id} in {req}"))
        .to_string()
}

/// A child in an `ask` session tries a write: one approval reaches the parent (event and
/// pending list), is answered there, the write happens, and the parent's `task_wait` returns
/// the child's final answer — only that, not its transcript.
#[tokio::test]
async fn a_childs_approval_is_answered_in_the_parent_and_task_wait_returns_its_answer() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.script_for(
        "PARENT",
        [
            tool_reply(
                "t1",
                "task",
                &json!({"description": "Write the greeting", "prompt": "CHILD: write hello.txt"}),
            ),
            tool_reply("w1", "task_wait", &json!({})),
            text_reply("The subagent wrote it."),
        ],
    );
    mock.script_for(
        "CHILD",
        [
            tool_reply(
                "c1",
                "write_file",
                &json!({"path": "hello.txt", "content": "hi\n"}),
            ),
            text_reply("Wrote hello.txt (one line)."),
        ],
    );
    let run = s.prompt(&sid, "PARENT: delegate the greeting").await;

    let pending = s
        .wait_event(&sid, |e| {
            e["type"] == "child_pending" && e["status"] == "pending"
        })
        .await;
    assert_eq!(pending["kind"], "approval", "{pending}");
    assert!(
        pending["summary"]
            .as_str()
            .unwrap()
            .starts_with("write_file"),
        "{pending}"
    );
    let child = pending["child_session"].as_str().unwrap().to_string();
    assert_ne!(child, sid);
    let (_, p) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    let approvals = p["approvals"].as_array().unwrap();
    assert_eq!(approvals.len(), 1, "{p}");
    assert_eq!(approvals[0]["session"], child.as_str());
    assert_eq!(approvals[0]["approval_id"], pending["id"]);
    assert!(
        !approvals[0]["reasons"].as_array().unwrap().is_empty(),
        "shown in full: {p}"
    );
    // The root shows as waiting for the user while its subagent asks.
    let (_, root) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(root["status"], "waiting", "{root}");
    let (st, _) = s
        .post(
            &format!("/api/approvals/{}", pending["id"].as_str().unwrap()),
            json!({"decision": "once"}),
        )
        .await;
    assert_eq!(st, 200);
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "completed", "{done}");
    let answered = s
        .wait_event(&sid, |e| {
            e["type"] == "child_pending" && e["status"] == "answered"
        })
        .await;
    assert_eq!(answered["id"], pending["id"]);
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("hello.txt")).unwrap(),
        "hi\n"
    );

    // The parent read the child's answer and a link, not its transcript.
    let last = request_of(&mock, "PARENT", 2);
    let waited: Value = serde_json::from_str(&tool_result(&last, "w1")).unwrap();
    assert_eq!(waited["finished"], true, "{waited}");
    let kid = &waited["subagents"][0];
    assert_eq!(kid["id"], child.as_str());
    assert_eq!(kid["status"], "completed");
    assert_eq!(kid["answer"], "Wrote hello.txt (one line).");
    assert_eq!(kid["link"], format!("/s/{child}"));
    assert!(!last.to_string().contains("hi\\n"), "no child transcript");

    // The child: its own session, linked, listed under its parent and not at the top level;
    // its runs are `task` runs; `exit_plan` is never offered to it.
    let (_, c) = s.get(&format!("/api/sessions/{child}")).await;
    assert_eq!(c["parent_id"], sid.as_str());
    assert_eq!(c["mode"], "ask");
    assert_eq!(c["title"], "Write the greeting");
    let (_, kids) = s.get(&format!("/api/sessions/{sid}/children")).await;
    assert_eq!(kids.as_array().unwrap().len(), 1);
    let (_, list) = s.get("/api/sessions").await;
    assert!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["id"] != child.as_str()),
        "{list}"
    );
    let (_, runs) = s.get(&format!("/api/sessions/{child}/runs")).await;
    assert_eq!(runs["data"][0]["trigger"], "task", "{runs}");
    let offered = tool_names(&request_of(&mock, "CHILD", 0));
    assert!(offered.contains(&"task".to_string()));
    assert!(!offered.contains(&"exit_plan".to_string()));
    let (_, after) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    assert!(after["approvals"].as_array().unwrap().is_empty(), "{after}");
}

/// A "for this session" answer to a child's approval is stored on the root: the next child
/// (and the root itself) write without asking; a child never gets a wider mode than its parent.
#[tokio::test]
async fn a_childs_session_grant_belongs_to_the_root_and_its_mode_is_at_most_the_parents() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.script_for(
        "PARENT",
        [
            tools_reply(&[
                (
                    "t0",
                    "task",
                    json!({"description": "Too wide", "prompt": "CHILD-X", "mode": "full"}),
                ),
                (
                    "t1",
                    "task",
                    json!({"description": "First", "prompt": "CHILD-A: write a.txt"}),
                ),
            ]),
            tool_reply("w1", "task_wait", &json!({})),
            tool_reply(
                "t2",
                "task",
                &json!({"description": "Second", "prompt": "CHILD-B: write b.txt"}),
            ),
            tool_reply("w2", "task_wait", &json!({})),
            text_reply("Both written."),
        ],
    );
    mock.script_for(
        "CHILD-A",
        [
            tool_reply(
                "a1",
                "write_file",
                &json!({"path": "a.txt", "content": "a"}),
            ),
            text_reply("a done"),
        ],
    );
    mock.script_for(
        "CHILD-B",
        [
            tool_reply(
                "b1",
                "write_file",
                &json!({"path": "b.txt", "content": "b"}),
            ),
            text_reply("b done"),
        ],
    );
    let run = s.prompt(&sid, "PARENT: two writes").await;
    let pending = s
        .wait_event(&sid, |e| {
            e["type"] == "child_pending" && e["status"] == "pending"
        })
        .await;
    let (st, _) = s
        .post(
            &format!("/api/approvals/{}", pending["id"].as_str().unwrap()),
            json!({"decision": "session"}),
        )
        .await;
    assert_eq!(st, 200);
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("b.txt")).unwrap(),
        "b"
    );
    let events = s.events(&sid).await;
    let asked = events
        .iter()
        .filter(|e| e["type"] == "child_pending" && e["status"] == "pending")
        .count();
    assert_eq!(asked, 1, "the second child used the root's grant");
    let (_, perms) = s.get(&format!("/api/sessions/{sid}/permissions")).await;
    assert!(
        !perms["grants"].as_array().unwrap().is_empty(),
        "the grant is the root's: {perms}"
    );
    let first = request_of(&mock, "PARENT", 1);
    let refused = tool_result(&first, "t0");
    assert!(refused.contains("at most yours"), "{refused}");
}

/// Depth ≤ 2: a grandchild is not offered the subagent tools; its answer reaches the child,
/// and the child's the root.
#[tokio::test]
async fn subagents_nest_two_deep_and_no_deeper() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.script_for(
        "PARENT",
        [
            tool_reply("t1", "task", &json!({"description": "Child", "prompt": "CHILD: ask your own helper", "agent": "plan"})),
            tool_reply("w1", "task_wait", &json!({})),
            text_reply("done"),
        ],
    );
    mock.script_for(
        "CHILD",
        [
            tool_reply(
                "c1",
                "task",
                &json!({"description": "Grandchild", "prompt": "GRAND: say 42", "agent": "build"}),
            ),
            tool_reply(
                "c2",
                "task",
                &json!({"description": "Grandchild", "prompt": "GRAND: say 42", "agent": "plan"}),
            ),
            tool_reply("c3", "task_wait", &json!({})),
            text_reply("The helper says 42."),
        ],
    );
    mock.push_for("GRAND", text_reply("42"));
    let run = s.prompt(&sid, "PARENT: nest").await;
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "completed", "{done}");

    let child_req = request_of(&mock, "CHILD", 1);
    let refused = tool_result(&child_req, "c1");
    assert!(refused.contains("only `plan` subagents"), "{refused}");
    let grand = tool_names(&request_of(&mock, "GRAND", 0));
    for hidden in [
        "task",
        "task_wait",
        "task_status",
        "send_message",
        "exit_plan",
    ] {
        assert!(!grand.contains(&hidden.to_string()), "{hidden}: {grand:?}");
    }
    let child_last = request_of(&mock, "CHILD", 3);
    let waited: Value = serde_json::from_str(&tool_result(&child_last, "c3")).unwrap();
    assert_eq!(waited["subagents"][0]["answer"], "42", "{waited}");
    let parent_last = request_of(&mock, "PARENT", 2);
    assert!(tool_result(&parent_last, "w1").contains("The helper says 42."));

    // The root's usage: its own calls, and its subagents' at both depths beside them.
    let (_, u) = s.get(&format!("/api/sessions/{sid}/usage")).await;
    assert_eq!(u["calls"], 3, "{u}");
    assert_eq!(u["subagents"]["sessions"], 2, "{u}");
    assert_eq!(
        u["subagents"]["calls"], 5,
        "4 of the child's, 1 of the grandchild's: {u}"
    );
    // A finished child is listed with how its run ended, not as idle.
    let (_, kids) = s.get(&format!("/api/sessions/{sid}/children")).await;
    assert_eq!(kids[0]["status"], "idle", "{kids}");
    assert_eq!(kids[0]["last_run_status"], "completed", "{kids}");
    let (_, one) = s.get(&format!("/api/sessions/{sid}")).await;
    assert!(
        one.get("last_run_status").is_none(),
        "only the children listing says it: {one}"
    );
    let (_, childless) = s
        .get(&format!(
            "/api/sessions/{}/usage",
            s.create_session("ask").await
        ))
        .await;
    assert!(childless.get("subagents").is_none(), "{childless}");
}

/// At most 4 live children: the fifth `task` is refused. Cancelling the parent's run cancels
/// every child's run.
#[tokio::test]
async fn five_children_are_refused_and_the_parents_cancel_reaches_them() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    let calls: Vec<(String, Value)> = (0..5)
        .map(|i| {
            (
                format!("t{i}"),
                json!({"description": format!("Child {i}"), "prompt": format!("CHILD {i}: wait")}),
            )
        })
        .collect();
    let refs: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, a)| (id.as_str(), "task", a.clone()))
        .collect();
    mock.script_for(
        "PARENT",
        [
            tools_reply(&refs),
            tool_reply("w1", "task_wait", &json!({})),
        ],
    );
    for _ in 0..5 {
        mock.push_for("CHILD", Reply::Hang);
    }
    let run = s.prompt(&sid, "PARENT: five").await;
    // The parent waits on its children.
    s.wait_event(&sid, |e| {
        e["type"] == "tool_call" && e["tool"] == "task_wait"
    })
    .await;
    let (_, kids) = s.get(&format!("/api/sessions/{sid}/children")).await;
    let kids: Vec<String> = kids
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kids.len(), 4);
    let refused = s
        .wait_event(&sid, |e| e["type"] == "tool_result" && e["call_id"] == "t4")
        .await;
    assert!(
        refused.to_string().contains("too_many_subagents"),
        "{refused}"
    );
    // Every child's run is running (waiting on the model) before the cancel.
    for k in &kids {
        s.wait_event(k, |e| e["type"] == "run_started").await;
    }
    let (st, _) = s.post(&format!("/api/runs/{run}/cancel"), json!({})).await;
    assert_eq!(st, 200);
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "cancelled");
    for k in &kids {
        let f = s.wait_event(k, |e| e["type"] == "run_finished").await;
        assert_eq!(f["status"], "cancelled", "{k}: {f}");
    }
}

/// Eight parents — the global cap — all running at once (their first model replies wait at a
/// barrier until the eight are in flight) each start a child and wait on it: the children can
/// only run because waiting gives a parent's place back. No deadlock; every parent finishes.
#[tokio::test]
async fn parents_waiting_on_children_never_hold_every_place() {
    let (mock, s) = server().await;
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
    let mut runs = Vec::new();
    for i in 0..8 {
        let sid = s.create_session("ask").await;
        mock.script_for(
            &format!("PARENT-{i}"),
            [
                Reply::AfterBarrier {
                    barrier: barrier.clone(),
                    then: Box::new(tool_reply(
                        "t1",
                        "task",
                        &json!({"description": "Child", "prompt": format!("CHILD-{i}: answer")}),
                    )),
                },
                tool_reply("w1", "task_wait", &json!({})),
                text_reply("done"),
            ],
        );
        mock.push_for(&format!("CHILD-{i}"), text_reply(&format!("child {i}")));
        runs.push((
            sid.clone(),
            s.prompt(&sid, &format!("PARENT-{i}: go")).await,
        ));
    }
    for (sid, run) in &runs {
        let end = s.wait_run_finished(sid, run).await;
        assert_eq!(end["status"], "completed", "{end}");
    }
    for i in 0..8 {
        let last = request_of(&mock, &format!("PARENT-{i}"), 2);
        assert!(tool_result(&last, "w1").contains(&format!("child {i}")));
    }
}

/// A child's mode follows its parent's down: lowering the parent to `ask` while a child in
/// `auto` runs makes the child's next write ask, and lowers the child's own mode.
#[tokio::test]
async fn lowering_the_parents_mode_lowers_a_running_childs() {
    let (mock, s) = with_scripted_model(tradewind::config::Ceiling {
        write: true,
        process: true,
        external: false,
    })
    .await;
    let sid = s.create_session("auto").await;
    mock.script_for(
        "PARENT",
        [
            tool_reply(
                "t1",
                "task",
                &json!({"description": "Child", "prompt": "CHILD-M: run then write"}),
            ),
            tool_reply("w1", "task_wait", &json!({})),
            text_reply("done"),
        ],
    );
    mock.script_for(
        "CHILD-M",
        [
            tool_reply("c1", "shell", &json!({"command": "echo hi"})),
            tool_reply(
                "c2",
                "write_file",
                &json!({"path": "after.txt", "content": "x"}),
            ),
            text_reply("child done"),
        ],
    );
    let run = s.prompt(&sid, "PARENT: start a child").await;
    // The child's command asks (a process in `auto`): the child is mid-run.
    let first = s
        .wait_event(&sid, |e| {
            e["type"] == "child_pending" && e["status"] == "pending"
        })
        .await;
    let (st, v) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"mode": "ask"}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    let (_, children) = s.get(&format!("/api/sessions/{sid}/children")).await;
    assert_eq!(children[0]["mode"], "ask", "{children}");
    let first_id = first["id"].as_str().unwrap().to_string();
    let (st, _) = s
        .post(
            &format!("/api/approvals/{first_id}"),
            json!({"decision": "once"}),
        )
        .await;
    assert_eq!(st, 200);
    // Its write — allowed in `auto` — now asks.
    let second = s
        .wait_event(&sid, |e| {
            e["type"] == "child_pending" && e["status"] == "pending" && e["id"] != first_id.as_str()
        })
        .await;
    assert!(second.to_string().contains("write_file"), "{second}");
    let (st, _) = s
        .post(
            &format!("/api/approvals/{}", second["id"].as_str().unwrap()),
            json!({"decision": "once"}),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
}

/// DESIGN's wake-up rule: a background task a subagent started wakes no one — its wake-up is
/// claimed when it starts — while it shows in the root's task list.
#[tokio::test]
async fn a_subagents_background_task_wakes_nothing() {
    let (mock, s) = with_scripted_model(tradewind::config::Ceiling {
        write: true,
        process: true,
        external: false,
    })
    .await;
    let sid = s.create_session("full").await;
    mock.script_for(
        "PARENT",
        [
            tool_reply(
                "t1",
                "task",
                &json!({"description": "Child", "prompt": "CHILD-BG: start a task"}),
            ),
            tool_reply("w1", "task_wait", &json!({})),
            text_reply("done"),
        ],
    );
    mock.script_for(
        "CHILD-BG",
        [
            tool_reply(
                "b1",
                "bg_run",
                &json!({"command": "true", "label": "child task"}),
            ),
            text_reply("started it"),
        ],
    );
    let run = s.prompt(&sid, "PARENT: go").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let (_, tasks) = s.get(&format!("/api/sessions/{sid}/tasks")).await;
    let task = tasks["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "child task")
        .unwrap_or_else(|| panic!("the root lists it: {tasks}"))
        .clone();
    let row = s
        .server
        .as_ref()
        .unwrap()
        .state
        .store
        .get_task(&task["id"].as_str().unwrap().into())
        .await
        .unwrap();
    assert!(row.delivered_at.is_some(), "its wake-up is owed to no one");
    let undelivered = s
        .server
        .as_ref()
        .unwrap()
        .state
        .store
        .undelivered_tasks(&sid.as_str().into())
        .await
        .unwrap();
    assert!(undelivered.is_empty(), "nothing can wake the root");
}
