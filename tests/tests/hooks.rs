//! Hooks (`hooks.json` in the state directory, Claude Code's shape) in real runs: the file's
//! hooks run once the user allowed them for the session; a `PreToolUse` hook denies `rm` with a
//! reason the model reads; a `PostToolUse` formatter fixes the file written and tells the model;
//! a hook that times out turns its call into a question (answered here; headless: a denial);
//! every hook leaves a `hook_ran` event.

use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, text_reply, tool_reply};
use tradewind_tests::*;

/// Writes and processes run without asking (`--allow-write --allow-process`): a hooks file's
/// hooks run without the session's question.
const PROCESSES: tradewind::config::Ceiling = tradewind::config::Ceiling {
    write: true,
    process: true,
    external: false,
};

/// Answer the session's pending approval of `tool` (waiting for it to be asked) with
/// `decision`; returns what was asked.
async fn answer(s: &TestServer, sid: &str, tool: &str, decision: &str) -> Value {
    s.wait_event(sid, |e| {
        e["type"] == "approval_requested" && e["tool"] == tool
    })
    .await;
    let (_, p) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    let a = p["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["tool"] == tool)
        .cloned()
        .unwrap_or_else(|| panic!("no pending {tool} approval: {p}"));
    let id = a["approval_id"].as_str().unwrap();
    let (st, v) = s
        .post(
            &format!("/api/approvals/{id}"),
            json!({"decision": decision}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    a
}

#[tokio::test]
async fn hooks_deny_format_and_turn_a_failure_into_a_question() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        approval_timeout_secs: Some(60),
        ..Opts::default()
    })
    .await;
    std::fs::write(
        s.state.path().join("hooks.json"),
        json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "if grep -q 'rm -rf'; then echo 'no rm here: use git clean' >&2; exit 2; fi"}]},
                {"matcher": "read_file", "hooks": [{"type": "command", "command": "sleep 5", "timeout": 1}]}
            ],
            "PostToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR\" && sed -i 's/ *$//' a.txt && printf '{\"additionalContext\": \"a.txt was formatted\"}'"}]}
            ]
        }})
        .to_string(),
    )
    .unwrap();
    mock.push(tool_reply(
        "c1",
        "shell",
        &json!({"command": "rm -rf build"}),
    ));
    mock.push(tool_reply(
        "c2",
        "write_file",
        &json!({"path": "a.txt", "content": "hi   \n"}),
    ));
    mock.push(tool_reply("c3", "read_file", &json!({"path": "a.txt"})));
    mock.push(text_reply("Done."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "tidy up").await;
    // The file's hooks are asked for once, for the session.
    let a = answer(&s, &sid, "hooks", "session").await;
    assert!(a["reason"].as_str().unwrap().contains("hooks.json"), "{a}");
    // The write asks as every write does in `ask`; the hook's question about the read.
    answer(&s, &sid, "write_file", "once").await;
    let q = answer(&s, &sid, "read_file", "once").await;
    assert!(
        q["reason"]
            .as_str()
            .unwrap()
            .contains("did not finish within 1 s"),
        "{q}"
    );
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let results: Vec<&Value> = of_type(&events, "tool_result");
    assert_eq!(results[0]["ok"], false);
    assert!(
        results[0]["text"]
            .as_str()
            .unwrap()
            .contains("no rm here: use git clean"),
        "{}",
        results[0]
    );
    assert!(
        results[1]["text"]
            .as_str()
            .unwrap()
            .contains("[Hook context: a.txt was formatted]"),
        "{}",
        results[1]
    );
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("a.txt")).unwrap(),
        "hi\n"
    );
    assert_eq!(results[2]["ok"], true, "{}", results[2]);
    let ran: Vec<(String, String)> = of_type(&events, "hook_ran")
        .iter()
        .map(|h| {
            (
                h["event"].as_str().unwrap().into(),
                h["outcome"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        ran,
        [
            ("PreToolUse".to_string(), "denied".to_string()),
            ("PostToolUse".into(), "passed".into()),
            ("PreToolUse".into(), "failed".into()),
        ]
    );
    // The permissions view shows the allowance.
    let (_, perms) = s.get(&format!("/api/sessions/{sid}/permissions")).await;
    assert!(
        perms["grants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["kind"] == "hooks"),
        "{perms}"
    );
    // The model read the denial's reason.
    let reqs = mock.requests.lock().unwrap().clone();
    assert!(reqs[1].to_string().contains("no rm here"));

    // Headless (no one to ask): the same failing hook denies its call; the hooks stay allowed
    // for the session, not asked again.
    mock.push(tool_reply("c4", "read_file", &json!({"path": "a.txt"})));
    mock.push(text_reply("Stopped."));
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/messages"),
            json!({"text": "read it", "limits": {"write": false, "process": false, "external": false, "read_only": false, "yolo": false, "interactive": false}}),
        )
        .await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let last = of_type(&events, "tool_result")
        .last()
        .cloned()
        .unwrap()
        .clone();
    assert_eq!(last["ok"], false, "{last}");
    assert!(
        last["text"]
            .as_str()
            .unwrap()
            .contains("no one can be asked"),
        "{last}"
    );
    assert_eq!(
        of_type(&events, "approval_requested")
            .iter()
            .filter(|a| a["tool"] == "hooks")
            .count(),
        1
    );
    s.stop().await;
}

/// A `Stop` hook that always objects asks for one more turn each time, with its reason, at most
/// `hooks.maxStopTurns` in a row; then the session stops and says why. Where processes run
/// without asking (`full`, `--allow-process`), the hooks run without a question.
#[tokio::test]
async fn a_stop_hook_asks_for_more_turns_up_to_its_limit() {
    let mock = Mock::default();
    let url = mock.serve().await;
    for _ in 0..4 {
        mock.push(text_reply("Done."));
    }
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: PROCESSES,
        tweak: Some(|c| c.hooks.max_stop_turns = 2),
        ..Opts::default()
    })
    .await;
    std::fs::write(
        s.state.path().join("hooks.json"),
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo 'run the tests first' >&2; exit 2"}]}]}})
            .to_string(),
    )
    .unwrap();
    let (_, listed) = s.get("/api/hooks").await;
    assert_eq!(listed["data"][0]["event"], "Stop", "{listed}");
    assert_eq!(listed["data"][0]["timeout_secs"], 10);
    assert_eq!(listed["files"][0]["source"], "user");
    assert_eq!(listed["files"][0]["hash"].as_str().unwrap().len(), 64);
    assert!(listed["workspace_hash"].is_null());
    let sid = s.create_session("full").await;
    s.prompt(&sid, "finish the feature").await;
    let limit = s
        .wait_event(&sid, |e| {
            e["type"] == "error" && e["code"] == "stop_hook_limit"
        })
        .await;
    assert!(
        limit["message"].as_str().unwrap().contains("2 times"),
        "{limit}"
    );
    let events = s.events(&sid).await;
    let triggers: Vec<&str> = of_type(&events, "run_started")
        .iter()
        .map(|r| r["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(triggers, ["prompt", "hook", "hook"]);
    let asked: Vec<&Value> = of_type(&events, "user_message")
        .into_iter()
        .filter(|m| m["origin"] == "hook")
        .collect();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[0]["text"]
            .as_str()
            .unwrap()
            .contains("run the tests first"),
        "{}",
        asked[0]
    );
    assert!(of_type(&events, "approval_requested").is_empty());
    let ran = of_type(&events, "hook_ran");
    assert_eq!(ran.len(), 3);
    assert!(
        ran.iter()
            .all(|h| h["event"] == "Stop" && h["outcome"] == "denied")
    );
    s.stop().await;
}

/// A repository's hooks (`.claude/settings.json`, Claude Code's place for them) are ignored
/// until the user trusts them as they are; trusted, they run; changed, they are held back again.
#[tokio::test]
async fn a_workspace_s_hooks_run_only_once_trusted_as_they_are() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: PROCESSES,
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    let settings = json!({"permissions": {"allow": []}, "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "echo 'reads are off today' >&2; exit 2"}]}]}});
    std::fs::write(ws.join(".claude/settings.json"), settings.to_string()).unwrap();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    let (_, listed) = s.get("/api/hooks").await;
    assert_eq!(listed["untrusted"], true, "{listed}");
    assert!(listed["data"].as_array().unwrap().is_empty());
    assert_eq!(listed["files"][0]["source"], "workspace");
    let read = json!({"path": "a.txt"});
    mock.push(tool_reply("r1", "read_file", &read));
    mock.push(text_reply("Read."));
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "read it").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    assert!(
        of_type(&events, "hook_ran").is_empty(),
        "untrusted hooks never run"
    );
    assert_eq!(of_type(&events, "tool_result")[0]["ok"], true);

    let (st, _) = s.post("/api/hooks/trust", json!({"hash": "nope"})).await;
    assert_eq!(st, 409);
    let hash = listed["workspace_hash"].as_str().unwrap();
    let (st, trusted) = s.post("/api/hooks/trust", json!({"hash": hash})).await;
    assert_eq!(st, 200, "{trusted}");
    assert_eq!(trusted["untrusted"], false);
    assert_eq!(trusted["data"][0]["matcher"], "Read");
    mock.push(tool_reply("r2", "read_file", &read));
    mock.push(text_reply("Refused."));
    let run = s.prompt(&sid, "read it again").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let last = of_type(&events, "tool_result")
        .last()
        .cloned()
        .unwrap()
        .clone();
    assert_eq!(last["ok"], false, "{last}");
    assert!(
        last["text"]
            .as_str()
            .unwrap()
            .contains("reads are off today")
    );

    // Changed: held back until trusted again.
    std::fs::write(
        ws.join(".claude/settings.json"),
        settings.to_string().replace("today", "now"),
    )
    .unwrap();
    let (_, listed) = s.get("/api/hooks").await;
    assert_eq!(listed["untrusted"], true);
    mock.push(tool_reply("r3", "read_file", &read));
    mock.push(text_reply("Read."));
    let run = s.prompt(&sid, "and again").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    assert_eq!(of_type(&events, "tool_result").last().unwrap()["ok"], true);
    s.stop().await;
}

/// `SessionStart` hooks run before a session's first prompt (what they print is context the
/// model reads with it), never again; `PreCompact` hooks run before a compaction.
#[tokio::test]
async fn session_start_and_pre_compact_hooks_run_where_they_belong() {
    let mock = Mock::default();
    let url = mock.serve().await;
    mock.push(text_reply("Hello."));
    mock.push(text_reply("Again."));
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: PROCESSES,
        ..Opts::default()
    })
    .await;
    std::fs::write(
        s.state.path().join("hooks.json"),
        json!({"hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "echo 'The build uses make.'"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": "true"}]}]
        }})
        .to_string(),
    )
    .unwrap();
    let sid = s.create_session("full").await;
    for p in ["hello", "again"] {
        let run = s.prompt(&sid, p).await;
        s.wait_run_finished(&sid, &run).await;
    }
    let reqs = mock.requests.lock().unwrap().clone();
    assert!(
        reqs[0]
            .to_string()
            .contains("[Context from a hook: The build uses make.]"),
        "{}",
        reqs[0]
    );
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/compact"), json!({}))
        .await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let ran: Vec<&str> = of_type(&events, "hook_ran")
        .iter()
        .map(|h| h["event"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["SessionStart", "PreCompact"], "once each");
    s.stop().await;
}

/// A user hook's command runs its script from the state directory's `hooks/` folder, which its
/// jail shows read-only; the rest of the state directory stays hidden from it.
#[tokio::test]
async fn a_user_hook_sees_only_the_hooks_folder_of_the_state_dir() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: PROCESSES,
        ..Opts::default()
    })
    .await;
    let state = s.state.path();
    std::fs::create_dir_all(state.join("hooks")).unwrap();
    std::fs::write(
        state.join("hooks/context.sh"),
        format!(
            "seen=$(ls {st} | tr '\\n' ' '); touch {st}/hooks/w 2>/dev/null && seen=\"$seen WROTE\"; printf '{{\"additionalContext\": \"HOOK-DIR-OK %s\"}}' \"$seen\"\n",
            st = state.display()
        ),
    )
    .unwrap();
    std::fs::write(
        state.join("hooks.json"),
        json!({"hooks": {"PostToolUse": [{"matcher": "read_file", "hooks": [
            {"type": "command", "command": format!("sh {}/hooks/context.sh", state.display())}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    std::fs::write(s.workspace.path().join("a.txt"), "a\n").unwrap();
    mock.push(tool_reply("c1", "read_file", &json!({"path": "a.txt"})));
    mock.push(text_reply("Done."));
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "read").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let text = of_type(&events, "tool_result")[0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("[Hook context: HOOK-DIR-OK hooks ]"),
        "{text}"
    );
    assert!(!state.join("hooks/w").exists());
}

/// A prompt a `UserPromptSubmit` hook blocks ends its run before any model call, and stays out
/// of the conversation: the next prompt's model call does not carry it.
#[tokio::test]
async fn a_blocked_prompt_never_reaches_the_model() {
    let mock = Mock::default();
    let url = mock.serve().await;
    mock.push(text_reply("Hello."));
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: PROCESSES,
        ..Opts::default()
    })
    .await;
    std::fs::write(
        s.state.path().join("hooks.json"),
        json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "if grep -q forbidden; then echo 'no forbidden words' >&2; exit 2; fi"}]}]
        }})
        .to_string(),
    )
    .unwrap();
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "say the forbidden word").await;
    let end = s.wait_run_finished(&sid, &run).await;
    assert_eq!(end["status"], "failed", "{end}");
    assert_eq!(end["error"]["code"], "blocked_by_hook");
    assert_eq!(mock.request_count(), 0, "no model call");
    let run = s.prompt(&sid, "hello").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let sent = mock
        .requests
        .lock()
        .unwrap()
        .last()
        .cloned()
        .unwrap()
        .to_string();
    assert!(
        sent.contains("hello") && !sent.contains("forbidden"),
        "{sent}"
    );
    s.stop().await;
}
