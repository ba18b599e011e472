//! Instruction files where they apply: the workspace's AGENTS.md (and its ancestors') in every
//! system prompt; a package's own AGENTS.md (AGENTS.override.md winning in its directory,
//! CLAUDE.md where there is neither) added once, beside the first call that reaches beneath it;
//! `context_explain` listing what applies; `/init` a built-in command whose write asks.

use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, text_reply, tool_reply};
use tradewind_tests::*;

fn system_of(req: &Value) -> String {
    req["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn results(events: &[Value]) -> Vec<String> {
    of_type(events, "tool_result")
        .iter()
        .map(|r| r["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn a_package_s_agents_md_reaches_the_model_once_where_it_applies() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    std::fs::write(ws.join("AGENTS.md"), "Root rule: run cargo test.\n").unwrap();
    std::fs::create_dir_all(ws.join("packages/api/src")).unwrap();
    std::fs::create_dir_all(ws.join("packages/web")).unwrap();
    std::fs::create_dir_all(ws.join("packages/docs")).unwrap();
    std::fs::write(
        ws.join("packages/api/AGENTS.md"),
        "API rule: tabs, never spaces.\n",
    )
    .unwrap();
    std::fs::write(ws.join("packages/api/src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(ws.join("packages/web/AGENTS.md"), "Web plain rule.\n").unwrap();
    std::fs::write(
        ws.join("packages/web/AGENTS.override.md"),
        "Web override wins.\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("packages/docs/CLAUDE.md"),
        "Docs rule; see @style.md\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("packages/docs/style.md"),
        "Docs style: short sentences.\n",
    )
    .unwrap();
    std::fs::write(ws.join("packages/docs/index.md"), "# Docs\n").unwrap();
    let main = json!({"path": "packages/api/src/main.rs"});
    mock.push(tool_reply("c1", "read_file", &main));
    mock.push(tool_reply("c2", "read_file", &main));
    mock.push(tool_reply(
        "c3",
        "context_explain",
        &json!({"path": "packages/web/index.ts"}),
    ));
    mock.push(tool_reply(
        "c4",
        "read_file",
        &json!({"path": "packages/docs/index.md"}),
    ));
    mock.push(text_reply("Read."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "look at the api").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let reqs = mock.requests.lock().unwrap().clone();
    let system = system_of(&reqs[0]);
    assert!(system.contains("Root rule: run cargo test."), "{system}");
    assert!(
        !system.contains("API rule"),
        "a package's rules wait for a call there"
    );
    let events = s.events(&sid).await;
    let texts = results(&events);
    assert!(
        texts[0].starts_with("fn main() {}") || texts[0].contains("fn main() {}"),
        "{}",
        texts[0]
    );
    assert!(
        texts[0].contains("API rule: tabs, never spaces."),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("packages/api/AGENTS.md"), "{}", texts[0]);
    assert!(!texts[1].contains("API rule"), "added once: {}", texts[1]);
    // What applies where, nearest last; the override wins over its directory's AGENTS.md.
    let explained = &texts[2];
    let root = explained.find(&ws.join("AGENTS.md").display().to_string());
    let web = explained.find("packages/web/AGENTS.override.md");
    assert!(root.is_some() && web.is_some() && root < web, "{explained}");
    assert!(
        !explained.contains("packages/web/AGENTS.md "),
        "{explained}"
    );
    // CLAUDE.md where there is neither, its import followed.
    assert!(texts[3].contains("Docs rule"), "{}", texts[3]);
    assert!(
        texts[3].contains("Docs style: short sentences."),
        "{}",
        texts[3]
    );
    // The model saw them with the results.
    let last = reqs.last().unwrap().to_string();
    assert!(last.contains("API rule: tabs"), "{last}");

    // Another run of the session: the history holds them already.
    mock.push(tool_reply("c5", "read_file", &main));
    mock.push(text_reply("Again."));
    let run = s.prompt(&sid, "once more").await;
    s.wait_run_finished(&sid, &run).await;
    let texts = results(&s.events(&sid).await);
    assert!(!texts.last().unwrap().contains("API rule"), "{texts:?}");
    s.stop().await;
}

#[tokio::test]
async fn init_is_a_built_in_command_whose_write_asks() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        approval_timeout_secs: Some(30),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let (st, cmds) = s.get(&format!("/api/sessions/{sid}/commands")).await;
    assert_eq!(st, 200);
    let init = cmds["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "init")
        .cloned()
        .unwrap();
    assert_eq!(init["builtin"], true);
    let prompt = init["template"].as_str().unwrap();
    assert!(prompt.contains("AGENTS.md"));
    mock.push(tool_reply(
        "w1",
        "write_file",
        &json!({"path": "AGENTS.md", "content": "# Agents\nRun cargo test.\n"}),
    ));
    mock.push(text_reply("Proposed."));
    let run = s.prompt(&sid, prompt).await;
    let asked = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(asked["tool"], "write_file");
    assert!(
        !s.workspace.path().join("AGENTS.md").exists(),
        "nothing before the answer"
    );
    let id = asked["approval_id"].as_str().unwrap();
    s.post(&format!("/api/approvals/{id}"), json!({"decision": "once"}))
        .await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("AGENTS.md")).unwrap(),
        "# Agents\nRun cargo test.\n"
    );
    s.stop().await;
}
