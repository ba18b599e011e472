//! Background tasks with real processes: states, stop racing exit, SIGTERM ignored, output cap
//! and offsets, limits, owner liveness, and the wake-up path end to end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};
use tradewind::protocol::{TaskStatus, TaskStopper};

use serde_json::{Value, json};
use tradewind::config::{Ceiling, TaskSettings};
use tradewind::tasks::TaskManager;
use tradewind_tests::*;

fn proc_all() -> Ceiling {
    Ceiling {
        write: true,
        process: true,
        external: false,
    }
}

fn tm(s: &TestServer) -> Arc<TaskManager> {
    s.server.as_ref().unwrap().state.core.tasks().clone()
}

async fn wait_terminal(s: &TestServer, id: &str) -> Value {
    for _ in 0..400 {
        let (_, v) = s
            .get(&format!("/api/tasks/{id}/output?offset=0&limit=1"))
            .await;
        if !["queued", "running", "stopping"].contains(&v["status"].as_str().unwrap_or("running")) {
            let row = tm(s).get_for_any(&id.into()).await.unwrap();
            return serde_json::to_value(tradewind::tasks::TaskInfo::from(row)).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("task {id} did not end");
}

#[tokio::test]
async fn states_output_cap_offsets_and_limits() {
    let settings = TaskSettings {
        max_output_bytes: 1000,
        max_per_session: 4,
        ..TaskSettings::default()
    };
    let s = TestServer::start(Opts {
        tasks: Some(settings),
        ..Opts::default()
    })
    .await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("full").await);
    let t = tm(&s);
    let ws = s.workspace.path().to_path_buf();
    let ok = t
        .start(
            &sid,
            "echo hello; echo err >&2",
            &ws,
            &job(&ws),
            Some("greeting"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(ok.status, TaskStatus::Running);
    assert!(ok.pid.is_some());
    let fail = t
        .start(&sid, "exit 3", &ws, &job(&ws), None, None)
        .await
        .unwrap();
    let big = t.start(&sid, "i=0; while [ $i -lt 400 ]; do echo \"line $i xxxxxxxx\"; i=$((i+1)); done; echo THE-END", &ws, &job(&ws), None, None).await.unwrap();
    let slow = t
        .start(&sid, "sleep 30", &ws, &job(&ws), None, Some(1000))
        .await
        .unwrap();
    // A fifth live task is refused (tasks.maxPerSession = 4).
    let fifth = t.start(&sid, "sleep 30", &ws, &job(&ws), None, None).await;
    assert!(fifth.is_err() || wait_terminal(&s, &ok.id).await["status"] == "succeeded");
    assert_eq!(wait_terminal(&s, &ok.id).await["status"], "succeeded");
    let f = wait_terminal(&s, &fail.id).await;
    assert_eq!(
        (f["status"].as_str(), f["exit_code"].as_i64()),
        (Some("failed"), Some(3))
    );
    // The watchdog: failed with code timeout, stopped_by timeout.
    let w = wait_terminal(&s, &slow.id).await;
    assert_eq!(
        (
            w["status"].as_str(),
            w["error"].as_str(),
            w["stopped_by"].as_str()
        ),
        (Some("failed"), Some("timeout"), Some("timeout"))
    );
    // Output: first 1000 bytes, a notice, then the tail; offsets never repeat or skip.
    wait_terminal(&s, &big.id).await;
    let row = t.get_for(&sid, &big.id).await.unwrap();
    let file = std::fs::read(&row.log_path).unwrap();
    let text = String::from_utf8_lossy(&file);
    assert!(text.starts_with("line 0 "));
    assert!(text.contains("output passed 1000 bytes"));
    assert!(text.trim_end().ends_with("THE-END"));
    let mut offset = 0;
    let mut got = Vec::new();
    loop {
        let o = t.output(&row, offset, Some(300)).await.unwrap();
        assert!(o.next_offset >= offset);
        got.extend_from_slice(o.text.as_bytes());
        offset = o.next_offset;
        if o.eof {
            assert!(o.output_truncated);
            break;
        }
    }
    assert_eq!(got, file, "reading by offsets yields the log exactly");
    // Mixed stdout/stderr in one log.
    let r = t.get_for(&sid, &ok.id).await.unwrap();
    let o = t.output(&r, 0, None).await.unwrap();
    assert!(o.text.contains("hello") && o.text.contains("err"));
    // Another session gets "not found".
    let other = tradewind::protocol::SessionId::from(s.create_session("full").await);
    assert!(t.get_for(&other, &ok.id).await.is_err());
    let (st, _) = s
        .post(
            &format!("/api/tasks/{}/stop", "01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            json!({}),
        )
        .await;
    assert_eq!(st, 404);
    // Invalid inputs.
    assert!(t.start(&sid, "", &ws, &job(&ws), None, None).await.is_err());
    assert!(
        t.start(&sid, &"x".repeat(8001), &ws, &job(&ws), None, None)
            .await
            .is_err()
    );
    assert!(
        t.start(&sid, "true", &ws, &job(&ws), None, Some(10))
            .await
            .is_err()
    );
    s.stop().await;
}

#[tokio::test]
async fn stop_racing_exit_ends_in_exactly_one_state() {
    let settings = TaskSettings {
        max_per_session: 64,
        max_per_process: 64,
        ..TaskSettings::default()
    };
    let s = TestServer::start(Opts {
        tasks: Some(settings),
        ..Opts::default()
    })
    .await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("full").await);
    let t = tm(&s);
    let ws = s.workspace.path().to_path_buf();
    let mut ids = Vec::new();
    for i in 0..60u64 {
        let task = t
            .start(
                &sid,
                &format!("sleep 0.0{}", i % 10),
                &ws,
                &job(&ws),
                None,
                None,
            )
            .await
            .unwrap();
        let t2 = t.clone();
        let id = task.id.clone();
        let sid2 = sid.clone();
        let delay = Duration::from_millis((i * 7) % 90);
        ids.push(task.id);
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let _ = t2.stop(Some(&sid2), &id, TaskStopper::User).await;
        });
    }
    for id in &ids {
        let v = wait_terminal(&s, id).await;
        let st = v["status"].as_str().unwrap();
        assert!(st == "succeeded" || st == "cancelled", "{v}");
        if st == "succeeded" {
            assert_eq!(v["exit_code"], 0, "the exit won: its code is kept");
        } else {
            assert_eq!(v["stopped_by"], "user");
        }
    }
    // The monitor announces the end just after the row changes: wait (bounded) until every task
    // has its terminal event, then check there is exactly one each.
    let terminal_events = |events: &[Value], id: &str| {
        events
            .iter()
            .filter(|e| {
                e["type"] == "task_updated"
                    && e["task"]["id"] == id
                    && ["succeeded", "cancelled", "failed"]
                        .contains(&e["task"]["status"].as_str().unwrap())
            })
            .count()
    };
    let mut events = s.events(&sid).await;
    for _ in 0..100 {
        if ids.iter().all(|id| terminal_events(&events, id) > 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        events = s.events(&sid).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = s.events(&sid).await;
    for id in &ids {
        assert_eq!(
            terminal_events(&events, id),
            1,
            "one terminal event for {id}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn sigterm_ignored_means_sigkill_after_three_seconds_with_no_orphans() {
    let s = TestServer::start(Opts::default()).await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("full").await);
    let t = tm(&s);
    let marker = format!("tw-orphan-{}", ulid::Ulid::generate());
    let cmd = format!(
        "trap '' TERM; sleep 31 {marker} 2>/dev/null & sleep 31 {marker} 2>/dev/null & wait; wait"
    );
    let cmd = cmd.replace(
        &format!("sleep 31 {marker} 2>/dev/null"),
        &format!("sh -c 'sleep 31; : {marker}'"),
    );
    let task = t
        .start(
            &sid,
            &cmd,
            s.workspace.path(),
            &job(s.workspace.path()),
            None,
            None,
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t0 = Instant::now();
    let after = t
        .stop(Some(&sid), &task.id, TaskStopper::User)
        .await
        .unwrap();
    let took = t0.elapsed();
    assert_eq!(after.status, TaskStatus::Cancelled);
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(6),
        "{took:?}"
    );
    let ps = std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(
        ps.stdout.is_empty(),
        "orphans survived: {}",
        String::from_utf8_lossy(&ps.stdout)
    );
    s.stop().await;
}

#[tokio::test]
async fn server_kill_9_makes_unfinished_tasks_lost_but_never_a_live_owners() {
    let home = TempDir::new("tl-home");
    let ws = TempDir::new("tl-ws");
    let replay = home.path().join("r.json");
    let marker = format!("twlost{}", ulid::Ulid::generate());
    std::fs::write(&replay, json!({"scripts": [{"turns": [{"tool_calls": [{"name": "bg_run", "arguments": {"command": format!("sleep 60 # {marker}"), "label": "long"}}]}, {"text": "started"}]}]}).to_string()).unwrap();
    let state = home.path().join("state");
    let args = [
        "serve",
        "--port",
        "0",
        "--allow-process",
        "--workspace",
        ws.path().to_str().unwrap(),
        "--provider",
        "replay",
        "--replay",
        replay.to_str().unwrap(),
    ];
    let (mut child, base) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base);
    let sid = api.create_session(json!({"mode": "full"})).await;
    api.prompt(&sid, "go").await;
    let mut task = Value::Null;
    for _ in 0..200 {
        let v = api.get(&format!("/api/sessions/{sid}/tasks")).await;
        if let Some(t) = v["data"].as_array().and_then(|a| a.first()).cloned()
            && t["status"] == "running"
        {
            task = t;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(task["status"], "running", "the agent started a task");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    let pid = task["pid"].as_i64().unwrap();
    let (mut child2, base2) = spawn_binary(&args, &state, TOKEN).await;
    let v = Remote::new(&base2)
        .get(&format!("/api/sessions/{sid}/tasks"))
        .await;
    assert_eq!(v["data"][0]["status"], "lost");
    assert_eq!(
        v["data"][0]["pid"], pid,
        "the pid is shown so the user can stop it"
    );
    assert!(pid > 1, "a real pid: {pid}");
    // The orphaned process (same boot, same start time as recorded) was stopped at restart.
    let left = std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    let left = String::from_utf8_lossy(&left.stdout).trim().to_string();
    // Clean up by the unique marker in the command line, never by a numeric group id.
    let _ = std::process::Command::new("pkill")
        .args(["-9", "-f", &marker])
        .status();
    assert_eq!(left, "", "the lost task's process survived the restart");
    child2.start_kill().unwrap();
    child2.wait().await.unwrap();
    // A task whose owner is alive (another process with its real start time) is left alone.
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("full").await;
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let opid = other.id();
    let start = tradewind::tasks::process_start_time(opid).unwrap();
    let store = s.server.as_ref().unwrap().state.store.clone();
    let row = tradewind::store::TaskRow {
        id: tradewind::util::new_id().into(),
        session_id: sid.clone().into(),
        command: "x".into(),
        cwd: "/".into(),
        label: "x".into(),
        status: TaskStatus::Queued,
        exit_code: None,
        error: None,
        stopped_by: tradewind::store::Stopper(None),
        pid: None,
        owner_pid: i64::from(opid),
        owner_start: start,
        log_path: "/nonexistent".into(),
        output_bytes: 0,
        timeout_ms: 1000,
        created_at: 0,
        started_at: None,
        finished_at: None,
        read_at: None,
        claimed_at: None,
        delivered_at: None,
    };
    store.create_task(&row).await.unwrap();
    let dead = tradewind::store::TaskRow {
        id: tradewind::util::new_id().into(),
        owner_start: start + 1,
        ..row.clone()
    };
    store.create_task(&dead).await.unwrap();
    tm(&s).recover().await.unwrap();
    assert_eq!(
        store.get_task(&row.id).await.unwrap().status,
        TaskStatus::Queued,
        "live owner: untouched"
    );
    assert_eq!(
        store.get_task(&dead.id).await.unwrap().status,
        TaskStatus::Lost,
        "reused pid with another start time: lost"
    );
    other.kill().unwrap();
    let _ = other.wait();
    s.stop().await;
}

fn wake_script() -> Value {
    json!({"scripts": [
        {"match": "Background tasks finished", "turns": [
            {"tool_calls": [{"name": "bg_list", "arguments": {}}]},
            {"text": "I read the results."}
        ]},
        {"match": "start two", "turns": [
            {"tool_calls": [
                {"name": "bg_run", "arguments": {"command": "sleep 0.3; echo first", "label": "one"}},
                {"name": "bg_run", "arguments": {"command": "sleep 0.6; echo second", "label": "two"}}
            ]},
            {"text": "Both started; I will be woken."}
        ]},
        {"match": "start and stop", "turns": [
            {"tool_calls": [{"name": "bg_run", "arguments": {"command": "sleep 20", "label": "victim"}}]},
            {"text": "started"}
        ]},
        {"match": "start and read", "turns": [
            {"tool_calls": [{"name": "bg_run", "arguments": {"command": "echo quick", "label": "quick"}}]},
            {"tool_calls": [{"name": "shell", "arguments": {"command": "sleep 0.5"}}]},
            {"tool_calls": [{"name": "bg_list", "arguments": {}}]},
            {"text": "done"}
        ]}
    ]})
}

#[tokio::test]
async fn wakeups_coalesce_deliver_once_and_respect_every_no_wake_rule() {
    let s = TestServer::start(Opts {
        replay: Some(wake_script()),
        ceiling: proc_all(),
        ..Opts::default()
    })
    .await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("full").await);
    let t0 = Instant::now();
    let run = s.prompt(&sid, "start two tasks").await;
    // Compound commands ask even in full mode.
    assert_eq!(
        s.answer_all_until_finished(&sid, &run, "once").await["status"],
        "completed"
    );
    // Both tasks end within 2 s: one wake-up names both, then a normal run follows.
    let w = s.wait_event(&sid, |e| e["type"] == "wakeup").await;
    assert_eq!(w["task_ids"].as_array().unwrap().len(), 2, "{w}");
    assert!(t0.elapsed() >= Duration::from_secs(2), "coalescing window");
    let wr = s
        .wait_event(&sid, |e| {
            e["type"] == "run_started" && e["trigger"] == "wakeup"
        })
        .await;
    let fin = s
        .wait_run_finished(&sid, wr["run_id"].as_str().unwrap())
        .await;
    assert_eq!(fin["status"], "completed");
    // A second deliverer finds nothing to claim: exactly once.
    let state = &s.server.as_ref().unwrap().state;
    let extra = tradewind::runs::wake::Waker::new(
        state.runs.clone(),
        (state.core.store.clone(), state.core.events.clone()),
        tradewind::runs::wake::WakeRules {
            coalesce: Duration::from_millis(10),
            ..Default::default()
        },
    );
    extra.poke(&sid);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        s.events(&sid)
            .await
            .iter()
            .filter(|e| e["type"] == "wakeup")
            .count(),
        1
    );
    // Stopped by the user: no wake-up.
    let run = s.prompt(&sid, "start and stop").await;
    s.wait_run_finished(&sid, &run).await;
    let (_, list) = s.get(&format!("/api/sessions/{sid}/tasks")).await;
    let victim = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "victim")
        .cloned()
        .unwrap();
    let (st, v) = s
        .post(
            &format!("/api/tasks/{}/stop", victim["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(
        (st, v["status"].as_str(), v["stopped_by"].as_str()),
        (200, Some("cancelled"), Some("user"))
    );
    // Read by the model after it ended (bg_list doesn't count; here the task ends while the run
    // still works, and nothing reads it) — it is announced; a task whose output was read is not.
    let run = s.prompt(&sid, "start and read").await;
    let fin = s.answer_all_until_finished(&sid, &run, "once").await;
    assert_eq!(fin["status"], "completed");
    let quick = {
        let (_, list) = s.get(&format!("/api/sessions/{sid}/tasks")).await;
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["label"] == "quick")
            .cloned()
            .unwrap()
    };
    // The model reads it to the end before any wake-up could be delivered (busy session).
    let tmgr = tm(&s);
    let row = tmgr
        .get_for(&sid, &quick["id"].as_str().unwrap().into())
        .await
        .unwrap();
    let o = tmgr.output(&row, 0, None).await.unwrap();
    assert!(o.eof);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let wakes: Vec<Value> = s
        .events(&sid)
        .await
        .into_iter()
        .filter(|e| e["type"] == "wakeup")
        .collect();
    assert!(
        wakes.iter().all(|w| !w["task_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i == &victim["id"])),
        "no wake-up for a user stop"
    );
    assert!(
        wakes.iter().all(|w| !w["task_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i == &quick["id"])),
        "no wake-up for output already read"
    );
    // An archived session is never woken.
    let t = tmgr
        .start(
            &sid,
            "true",
            s.workspace.path(),
            &job(s.workspace.path()),
            None,
            None,
        )
        .await
        .unwrap();
    s.send(
        reqwest::Method::PATCH,
        &format!("/api/sessions/{sid}"),
        json!({"archived": true}),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let wakes = s
        .events(&sid)
        .await
        .into_iter()
        .filter(|e| e["type"] == "wakeup")
        .count();
    assert_eq!(wakes, 1, "only the first wake-up happened");
    let _ = t;
    s.stop().await;
}

#[tokio::test]
async fn wakeup_waits_while_the_session_is_busy_then_arrives() {
    let script = json!({"scripts": [
        {"match": "Background tasks finished", "turns": [{"text": "woken"}]},
        {"match": "start then ask", "turns": [
            {"tool_calls": [{"name": "bg_run", "arguments": {"command": "true", "label": "fast"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "w.txt", "content": "x"}}]},
            {"text": "done"}
        ]}
    ]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ceiling: proc_all(),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "start then ask").await;
    // bg_run asks (mode ask), then the write asks: the session is busy while the task has ended.
    let first = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    s.post(
        &format!("/api/approvals/{}", first["approval_id"].as_str().unwrap()),
        json!({"decision": "once"}),
    )
    .await;
    let second = s
        .wait_event(&sid, |e| {
            e["type"] == "approval_requested" && e["tool"] == "write_file"
        })
        .await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        !s.events(&sid).await.iter().any(|e| e["type"] == "wakeup"),
        "no wake-up while a run waits for the user"
    );
    let t_free = Instant::now();
    s.post(
        &format!("/api/approvals/{}", second["approval_id"].as_str().unwrap()),
        json!({"decision": "once"}),
    )
    .await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let w = s.wait_event(&sid, |e| e["type"] == "wakeup").await;
    assert!(
        t_free.elapsed() < Duration::from_secs(4),
        "delivered soon after the session freed"
    );
    assert_eq!(w["task_ids"].as_array().unwrap().len(), 1);
    let wr = s
        .wait_event(&sid, |e| {
            e["type"] == "run_started" && e["trigger"] == "wakeup"
        })
        .await;
    assert_eq!(
        s.wait_run_finished(&sid, wr["run_id"].as_str().unwrap())
            .await["status"],
        "completed"
    );
    s.stop().await;
}

/// The job a tool gives a task started in `ws`: the workspace is its root.
fn job(ws: &std::path::Path) -> tradewind::sandbox::Job {
    tradewind::sandbox::Job {
        roots: vec![ws.to_path_buf()],
        ..Default::default()
    }
}

/// A background task's output streams as `task_output` events while it runs (stdout and stderr
/// in the order written, both in one pipe), before its end; bounded at 256 KiB per task, with a
/// line naming where the rest is.
#[tokio::test]
async fn a_running_task_streams_its_output_before_it_ends() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("full").await;
    let sid_t = tradewind::protocol::SessionId::from(sid.clone());
    let t = tm(&s);
    let ws = s.workspace.path().to_path_buf();
    let task = t
        .start(
            &sid_t,
            "echo first-line; echo to-stderr >&2; while [ ! -f go ]; do sleep 0.05; done; echo after-go",
            &ws,
            &job(&ws),
            Some("live"),
            None,
        )
        .await
        .unwrap();
    // Both lines arrive while the task still waits for `go`.
    let mut seen = String::new();
    let after = s
        .wait_event(&sid, |e| {
            e["type"] == "task_output"
                && e["text"].as_str().is_some_and(|t| t.contains("to-stderr"))
        })
        .await;
    assert_eq!(after["task_id"], json!(task.id));
    assert!(after["run"].is_null(), "a task's output belongs to no run");
    for e in s.events(&sid).await {
        if e["type"] == "task_output" {
            seen.push_str(e["text"].as_str().unwrap());
        }
    }
    assert_eq!(seen, "first-line\nto-stderr\n");
    let running = tm(&s).get_for(&sid_t, &task.id).await.unwrap();
    assert_eq!(running.status, TaskStatus::Running);
    std::fs::write(ws.join("go"), "").unwrap();
    assert_eq!(wait_terminal(&s, &task.id).await["status"], "succeeded");
    let end = s
        .wait_event(&sid, |e| {
            e["type"] == "task_updated" && e["task"]["status"] == "succeeded"
        })
        .await;
    let events = s.events(&sid).await;
    let last_out = events
        .iter()
        .rposition(|e| e["type"] == "task_output")
        .unwrap();
    assert!(
        events[last_out]["text"]
            .as_str()
            .unwrap()
            .contains("after-go")
    );
    assert!(
        events[last_out]["seq"].as_i64() < end["seq"].as_i64(),
        "the output comes before the task's end"
    );

    // 400 KiB: at most 256 KiB live, then a line says where the rest is; the log has it all.
    let big = t
        .start(
            &sid_t,
            "head -c 409600 /dev/zero | tr '\\0' 'x'; echo; echo the-end",
            &ws,
            &job(&ws),
            Some("big"),
            None,
        )
        .await
        .unwrap();
    wait_terminal(&s, &big.id).await;
    s.wait_event(&sid, |e| {
        e["type"] == "task_updated"
            && e["task"]["id"] == json!(big.id)
            && e["task"]["status"] == "succeeded"
    })
    .await;
    let live: String = s
        .events(&sid)
        .await
        .iter()
        .filter(|e| e["type"] == "task_output" && e["task_id"] == json!(big.id))
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert!(live.len() <= 256 * 1024 + 200, "{}", live.len());
    assert!(
        live.ends_with("the rest is in the task's log]\n"),
        "{}",
        &live[live.len() - 80..]
    );
}
