//! Custom agents end to end: a workspace's `.claude/agents` file held back until trusted, then
//! selectable; its `tools: Read, Grep, Glob` offered as exactly our three tools (no `shell`,
//! a call of it refused); its body in the system prompt; `run_started` naming it; an unknown
//! name refused with the agents there are; `Bash(git:*)` narrowing `shell` to git; a mode
//! ceiling; `task {agent}` starting one as a subagent.

use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, text_reply, tool_reply};
use tradewind_tests::*;

fn put(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn offered(req: &Value) -> Vec<String> {
    let mut names: Vec<String> = req["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn results(events: &[Value]) -> Vec<Value> {
    of_type(events, "tool_result")
        .into_iter()
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_claude_agent_gets_exactly_its_mapped_tools_once_trusted() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    put(
        &ws.join(".claude/agents/code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: Reviews code for bugs.\ntools: Read, Grep, Glob, NotebookRead\nmodel: sonnet\n---\nYou are a meticulous reviewer. REVIEWER-BODY-MARK\n",
    );
    std::fs::write(ws.join("lib.rs"), "fn main() {}\n").unwrap();

    // Untrusted: only the built-ins, and choosing it is refused naming those there are.
    let (st, list) = s.get("/api/agents").await;
    assert_eq!(st, 200);
    assert_eq!(list["untrusted"], true, "{list}");
    let names = |l: &Value| -> Vec<String> {
        l["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&list), ["build", "plan"]);
    let (st, v) = s
        .post(
            "/api/sessions",
            json!({"mode": "ask", "agent": "code-reviewer"}),
        )
        .await;
    assert_eq!(st, 422, "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("code-reviewer") && msg.contains("build, plan"),
        "{msg}"
    );
    // A name outside the pattern is refused by the schema.
    let (st, _) = s
        .post("/api/sessions", json!({"agent": "Code Reviewer"}))
        .await;
    assert_eq!(st, 422);

    let hash = list["workspace_hash"].as_str().unwrap().to_string();
    let (st, list) = s.post("/api/agents/trust", json!({"hash": hash})).await;
    assert_eq!(st, 200, "{list}");
    assert_eq!(names(&list), ["build", "plan", "code-reviewer"]);
    let info = &list["data"][2];
    assert_eq!(info["source"], "workspace");
    assert_eq!(info["base"], "build");
    assert_eq!(
        info["tools"],
        json!(["list_files", "read_file", "search_text"])
    );
    assert_eq!(info["skipped"], json!(["unknown tool `NotebookRead`"]));
    // The trust is listed with the others.
    let (_, trust) = s.get("/api/trust").await;
    assert!(
        trust["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["kind"] == "agents" && t["current"] == true),
        "{trust}"
    );

    mock.push(tool_reply(
        "c1",
        "shell",
        &json!({"command": "touch pwned"}),
    ));
    mock.push(tool_reply("c2", "read_file", &json!({"path": "lib.rs"})));
    mock.push(text_reply("Looks fine."));
    let (st, v) = s
        .post(
            "/api/sessions",
            json!({"mode": "full", "agent": "code-reviewer"}),
        )
        .await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["agent"], "code-reviewer");
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "review lib.rs").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(
        offered(&reqs[0]),
        ["list_files", "read_file", "search_text"],
        "exactly the mapped tools"
    );
    let system = reqs[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("REVIEWER-BODY-MARK"), "{system}");
    assert!(system.contains("`code-reviewer`"), "{system}");
    let events = s.events(&sid).await;
    let started = of_type(&events, "run_started");
    assert_eq!(started[0]["agent"], "code-reviewer");
    let r = results(&events);
    assert_eq!(r[0]["ok"], false, "{}", r[0]);
    assert!(
        r[0]["text"].to_string().contains("unknown_tool"),
        "{}",
        r[0]
    );
    assert!(!ws.join("pwned").exists(), "shell never ran");
    assert_eq!(r[1]["ok"], true, "{}", r[1]);
    // `/tools` says why shell is off.
    let (_, tools) = s.get(&format!("/api/tools?session={sid}")).await;
    let shell = tools["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "shell")
        .unwrap()
        .clone();
    assert_eq!(shell["status"], "disabled", "{shell}");

    // A change to the file holds the workspace's agents back again: the session's next run
    // ends naming the agents there are, before any model call.
    put(
        &ws.join(".claude/agents/code-reviewer.md"),
        "---\ndescription: Reviews code, with shell now.\n---\nx\n",
    );
    let before = mock.requests.lock().unwrap().len();
    let run = s.prompt(&sid, "again").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "failed", "{fin}");
    assert_eq!(fin["error"]["code"], "unknown_agent", "{fin}");
    assert_eq!(mock.requests.lock().unwrap().len(), before);
}

#[tokio::test]
async fn bash_rules_narrow_shell_and_the_mode_is_a_ceiling() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: tradewind::policy::Ceiling {
            write: true,
            process: true,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    // The user's own agent: no trust needed.
    put(
        &s.state.path().join("agents/git-helper.md"),
        "---\ndescription: Answers with git.\ntools: [Read, \"Bash(git:*)\"]\nmode: auto\n---\nUse git.\n",
    );
    let (_, list) = s.get("/api/agents").await;
    let info = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "git-helper")
        .unwrap()
        .clone();
    assert_eq!(info["source"], "user");
    assert_eq!(info["commands"], json!(["git *"]));
    assert_eq!(info["mode"], "auto");

    mock.push(tool_reply("c1", "shell", &json!({"command": "ls -la"})));
    mock.push(tool_reply(
        "c2",
        "shell",
        &json!({"command": "git --version && rm -f x"}),
    ));
    mock.push(tool_reply(
        "c3",
        "shell",
        &json!({"command": "git --version"}),
    ));
    mock.push(text_reply("done"));
    let (st, v) = s
        .post(
            "/api/sessions",
            json!({"mode": "full", "agent": "git-helper"}),
        )
        .await;
    assert_eq!(st, 201, "{v}");
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "which git?").await;
    // `auto` is the agent's ceiling under the session's `full`: the git command asks.
    let (fin, asked) = s.answer_until_finished(&sid, &run, |_| "once".into()).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    assert_eq!(of_type(&events, "run_started")[0]["mode"], "auto");
    let r = results(&events);
    for refused in &r[..2] {
        assert_eq!(refused["ok"], false, "{refused}");
        let out = refused["text"].to_string();
        assert!(
            out.contains("not_for_agent") && out.contains("git *"),
            "{out}"
        );
    }
    assert_eq!(
        asked.len(),
        1,
        "only the git command reaches the gate: {asked:?}"
    );
    assert!(
        asked[0]["command"]
            .as_str()
            .is_some_and(|c| c.contains("git --version"))
            || asked[0].to_string().contains("git --version"),
        "{}",
        asked[0]
    );
    assert_eq!(r[2]["ok"], true, "{}", r[2]);
}

#[tokio::test]
async fn a_task_starts_a_custom_agent_as_a_subagent() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    put(
        &s.state.path().join("agents/scout.md"),
        "---\ndescription: Finds files.\ntools: Glob\nbase: plan\n---\nFind things.\n",
    );
    mock.push(tool_reply(
        "t0",
        "task",
        &json!({"description": "no such", "prompt": "x", "agent": "nobody"}),
    ));
    mock.push(tool_reply(
        "t1",
        "task",
        &json!({"description": "scout", "prompt": "list the files", "agent": "scout"}),
    ));
    mock.push(text_reply("started"));
    // The child's own run.
    mock.push(text_reply("two files"));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "go").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let r = results(&s.events(&sid).await);
    assert!(
        r[0]["text"].to_string().contains("unknown_agent")
            && r[0]["text"].to_string().contains("scout"),
        "{}",
        r[0]
    );
    assert_eq!(r[1]["ok"], true, "{}", r[1]);
    let (_, children) = s.get(&format!("/api/sessions/{sid}/children")).await;
    let child = children
        .as_array()
        .or_else(|| children["data"].as_array())
        .unwrap()[0]
        .clone();
    assert_eq!(child["agent"], "scout", "{child}");
    let cid = child["id"].as_str().unwrap().to_string();
    // The child's run, once finished, offered its one tool.
    s.wait_event(&cid, |e| e["type"] == "run_finished").await;
    let reqs = mock.requests.lock().unwrap().clone();
    let child_req = reqs
        .iter()
        .find(|r| {
            r["messages"][0]["content"]
                .as_str()
                .is_some_and(|c| c.contains("Find things."))
        })
        .expect("the child's model call");
    assert_eq!(offered(child_req), ["list_files"]);
    let events = s.events(&cid).await;
    assert_eq!(of_type(&events, "run_started")[0]["agent"], "scout");
}

/// The WebSocket's `set_agent`: a custom agent the workspace has is set (acked with it), an
/// unknown one refused naming those there are.
#[tokio::test]
async fn the_websocket_sets_a_session_s_agent() {
    let s = TestServer::start(Opts::default()).await;
    put(
        &s.state.path().join("agents/scout.md"),
        "---\ndescription: Finds files.\nbase: plan\n---\nFind.\n",
    );
    let sid = s.create_session("ask").await;
    let mut ws = ws_connect(&s).await;
    ws_send(
        &mut ws,
        json!({"type": "set_agent", "id": "a1", "session": sid, "agent": "scout"}),
    )
    .await;
    let v = ws_next(&mut ws, std::time::Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(
        (v["type"].as_str(), v["id"].as_str()),
        (Some("ack"), Some("a1")),
        "{v}"
    );
    assert_eq!(v["result"]["agent"], "scout");
    let (_, session) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(session["agent"], "scout");
    ws_send(
        &mut ws,
        json!({"type": "set_agent", "id": "a2", "session": sid, "agent": "nobody"}),
    )
    .await;
    let v = ws_next(&mut ws, std::time::Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(v["id"], "a2", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("build, plan, scout"),
        "{v}"
    );
}

/// A custom agent's `model`: an alias `modelAliases` maps runs on that provider and model; a
/// Claude alias config does not map means the session's own.
#[tokio::test]
async fn an_agent_s_model_alias_picks_the_provider_config_maps_it_to() {
    let local = Mock::default();
    let local_url = local.serve().await;
    let cloud = Mock::default();
    let cloud_url = cloud.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(local_url),
        providers: vec![tradewind::config::ProviderEntrySettings {
            id: "cloud".into(),
            kind: "openai".into(),
            base_url: Some(cloud_url),
            model: Some("big-1".into()),
            api_key_env: None,
            key: Some("sk-cloud-test".into()),
            api_mode: Default::default(),
        }],
        tweak: Some(|c| {
            c.model_aliases.insert("opus".into(), "cloud/big-2".into());
        }),
        ..Opts::default()
    })
    .await;
    put(
        &s.state.path().join("agents/deep.md"),
        "---\ndescription: Thinks hard.\nmodel: opus\n---\nThink.\n",
    );
    put(
        &s.state.path().join("agents/quick.md"),
        "---\ndescription: Quick.\nmodel: haiku\n---\nBe quick.\n",
    );
    cloud.push(text_reply("from the cloud"));
    local.push(text_reply("from the session's own"));
    for (agent, mock, model) in [("deep", &cloud, Some("big-2")), ("quick", &local, None)] {
        let (st, v) = s
            .post("/api/sessions", json!({"mode": "ask", "agent": agent}))
            .await;
        assert_eq!(st, 201, "{v}");
        let sid = v["id"].as_str().unwrap().to_string();
        let run = s.prompt(&sid, "hi").await;
        let fin = s.wait_run_finished(&sid, &run).await;
        assert_eq!(fin["status"], "completed", "{agent}: {fin}");
        let reqs = mock.requests.lock().unwrap().clone();
        assert_eq!(reqs.len(), 1, "{agent} asked its own provider once");
        if let Some(m) = model {
            assert_eq!(reqs[0]["model"], m, "{agent}");
        }
    }
}
