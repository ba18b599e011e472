//! Plugins end to end: a plugin packed with `npm pack` and installed from the tarball by the
//! command line (no registry traffic), added disabled — nothing of it counts — then enabled:
//! its skill, agent, command and hooks file count, and its MCP server (a script in the
//! plugin's folder, in the state directory) connects and answers from the jail; disabled, all
//! of it goes away; `plugin list` and `plugin remove`.

use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, text_reply, tool_reply};
use tradewind_tests::*;

fn put(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A plugin package in `dir`, packed: the tarball's path.
fn packed_plugin(dir: &std::path::Path) -> std::path::PathBuf {
    let pkg = dir.join("pkg");
    put(
        &pkg.join("package.json"),
        r#"{"name": "@acme/tw-greeter", "version": "1.0.0", "type": "module"}"#,
    );
    put(
        &pkg.join("tradewind-plugin.json"),
        r#"{"name": "greeter", "version": "1.0.0", "description": "Greets.",
            "mcpServers": {"greeter": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/server.mjs"]}},
            "websearch": {"server": "greeter", "tool": "search"}}"#,
    );
    put(
        &pkg.join("skills/hello/SKILL.md"),
        "---\nname: hello\ndescription: Say hello the plugin's way.\n---\nSay HELLO-PLUGIN.\n",
    );
    put(
        &pkg.join("agents/helper.md"),
        "---\ndescription: A plugin's helper.\ntools: Read\n---\nHelp.\n",
    );
    put(
        &pkg.join("commands/hi.md"),
        "---\ndescription: Say hi\n---\nSay hi to $ARGUMENTS\n",
    );
    put(
        &pkg.join("hooks/hooks.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    std::fs::copy(
        mcp_test_file("stdio-server.mjs"),
        pkg.join("stdio-server.mjs"),
    )
    .unwrap();
    put(
        &pkg.join("server.mjs"),
        r#"import { serve } from "./stdio-server.mjs";
serve({
  name: "greeter",
  tools: [
    { name: "greet", description: "Greet someone", inputSchema: { type: "object", properties: { who: { type: "string" } } } },
    { name: "search", description: "Search", inputSchema: { type: "object", properties: { query: { type: "string" } } } },
  ],
  call: (name, args) =>
    name === "greet"
      ? { content: [{ type: "text", text: `GREETED ${args.who}` }] }
      : args.query === "fail"
        ? { isError: true, content: [{ type: "text", text: "PLUGIN-SEARCH-DOWN" }] }
        : { content: [{ type: "text", text: JSON.stringify([{ title: "T", url: "https://example.org/", snippet: `FOUND ${args.query}` }]) }] },
});
"#,
    );
    let out = std::process::Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(dir)
        .current_dir(&pkg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
    dir.join(name)
}

fn names(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect()
}

fn cli(state: &std::path::Path, args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(binary())
        .args(args)
        .arg("--state-dir")
        .arg(state)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[tokio::test]
async fn a_plugin_from_a_tarball_counts_only_once_enabled() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: tradewind::policy::Ceiling {
            write: true,
            process: true,
            external: true,
        },
        // The built-in provider a failed plugin search falls back to: a closed loopback port.
        websearch: Some(tradewind::config::WebSearchSettings {
            provider: Some("searxng".into()),
            searxng_url: Some("http://127.0.0.1:9/".into()),
            ..Default::default()
        }),
        ..Opts::default()
    })
    .await;
    let work = TempDir::new("tw-plugin-pack");
    let tgz = packed_plugin(work.path());
    let state = s.state.path();

    // A bad spec is refused before npm runs; without --yes nothing is installed.
    let (ok, out) = cli(state, &["plugin", "install", "x; rm -rf ~", "--yes"]);
    assert!(!ok && out.contains("is not npm:"), "{out}");
    let spec = format!("file:{}", tgz.display());
    let (ok, out) = cli(state, &["plugin", "install", &spec]);
    assert!(!ok && out.contains("--yes"), "{out}");
    let (ok, out) = cli(state, &["plugin", "install", &spec, "--yes"]);
    assert!(ok, "{out}");
    assert!(out.contains("installed greeter (disabled)"), "{out}");
    let (ok, out) = cli(state, &["plugin", "install", &spec, "--yes"]);
    assert!(!ok && out.contains("is installed"), "{out}");

    // Installed, off: nothing of it counts.
    let (st, plugins) = s.get("/api/plugins").await;
    assert_eq!(st, 200, "{plugins}");
    let p = &plugins["data"][0];
    assert_eq!(p["name"], "greeter");
    assert_eq!(p["enabled"], false);
    assert_eq!(p["version"], "1.0.0");
    for k in ["skills", "agents", "commands", "hooks"] {
        assert_eq!(p[k], true, "{k}: {p}");
    }
    assert_eq!(p["mcp_servers"], json!(["greeter"]));
    assert!(!names(&s.get("/api/skills").await.1).contains(&"hello".into()));
    assert!(!names(&s.get("/api/agents").await.1).contains(&"helper".into()));
    assert!(!names(&s.get("/api/mcp/servers").await.1).contains(&"greeter".into()));
    let (_, hooks) = s.get("/api/hooks").await;
    assert!(hooks["data"].as_array().unwrap().is_empty(), "{hooks}");

    // Enabled: its skill, agent, command, hooks and MCP server.
    let (st, v) = s
        .send(
            reqwest::Method::PUT,
            "/api/plugins/greeter",
            json!({"enabled": true}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["data"][0]["enabled"], true);
    let (_, skills) = s.get("/api/skills").await;
    let hello = skills["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "hello")
        .cloned()
        .unwrap_or_else(|| panic!("{skills}"));
    assert_eq!(hello["source"], "plugin");
    let (_, agents) = s.get("/api/agents").await;
    let helper = agents["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "helper")
        .cloned()
        .unwrap_or_else(|| panic!("{agents}"));
    assert_eq!(helper["source"], "plugin");
    let (_, hooks) = s.get("/api/hooks").await;
    assert_eq!(hooks["data"][0]["event"], "Stop", "{hooks}");
    let sid = s.create_session("full").await;
    let (_, cmds) = s.get(&format!("/api/sessions/{sid}/commands")).await;
    assert!(names(&cmds).contains(&"hi".to_string()), "{cmds}");

    let (st, info) = s.post("/api/mcp/servers/greeter/connect", json!({})).await;
    assert_eq!(st, 200, "{info}");
    assert_eq!(info["state"], "connected", "{info}");
    assert_eq!(info["source"], "plugin");
    mock.push(tool_reply("l1", "skill_load", &json!({"name": "hello"})));
    mock.push(tool_reply(
        "g1",
        "mcp_greeter_greet",
        &json!({"who": "you"}),
    ));
    mock.push(tool_reply("w1", "websearch", &json!({"query": "rust"})));
    mock.push(tool_reply("w2", "websearch", &json!({"query": "fail"})));
    mock.push(text_reply("Done."));
    let run = s.prompt(&sid, "greet me").await;
    let fin = s.answer_all_until_finished(&sid, &run, "once").await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let r = of_type(&events, "tool_result");
    assert!(
        r[0]["text"].as_str().unwrap().contains("HELLO-PLUGIN"),
        "{}",
        r[0]
    );
    assert!(
        r[1]["text"].as_str().unwrap().contains("GREETED you"),
        "{}",
        r[1]
    );
    // `websearch` served by the plugin's tool, gated as websearch (no MCP question); its
    // failure falls back to the built-in provider and says so.
    let w1 = r[2]["text"].as_str().unwrap();
    assert!(
        w1.contains("[searched by the plugin greeter]") && w1.contains("FOUND rust"),
        "{w1}"
    );
    let w2 = r[3]["text"].as_str().unwrap();
    assert!(
        w2.contains("PLUGIN-SEARCH-DOWN")
            && w2.contains("searched with the built-in provider instead"),
        "{w2}"
    );
    let asked: Vec<&str> = of_type(&events, "approval_requested")
        .iter()
        .map(|a| a["tool"].as_str().unwrap())
        .collect();
    assert!(!asked.contains(&"websearch"), "{asked:?}");
    // The plugin's Stop hook ran (asked for once, for the session, then passed).
    assert!(
        of_type(&events, "hook_ran")
            .iter()
            .any(|h| h["event"] == "Stop" && h["outcome"] == "passed"),
        "{events:?}"
    );

    let (ok, out) = cli(state, &["plugin", "list"]);
    assert!(
        ok && out.contains("greeter\ton\t1.0.0\tskills,agents,commands,hooks,mcp"),
        "{out}"
    );

    // Disabled: all of it goes away.
    let (st, _) = s
        .send(
            reqwest::Method::PUT,
            "/api/plugins/greeter",
            json!({"enabled": false}),
        )
        .await;
    assert_eq!(st, 200);
    assert!(!names(&s.get("/api/skills").await.1).contains(&"hello".into()));
    assert!(!names(&s.get("/api/mcp/servers").await.1).contains(&"greeter".into()));
    let (st, _) = s
        .send(
            reqwest::Method::PUT,
            "/api/plugins/nosuch",
            json!({"enabled": true}),
        )
        .await;
    assert_eq!(st, 404);
    let (ok, out) = cli(state, &["plugin", "remove", "greeter"]);
    assert!(ok, "{out}");
    let (_, plugins) = s.get("/api/plugins").await;
    assert!(plugins["data"].as_array().unwrap().is_empty());
}

/// The `plugin_install` tool: a bad spec is refused before anything is asked or run; each
/// install asks — in `full` too, and again after an answer "for the session" — and runs npm in
/// the jail; the plugin arrives disabled.
#[tokio::test]
async fn the_plugin_install_tool_asks_every_time() {
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
    let work = TempDir::new("tw-plugin-pack");
    let tgz = packed_plugin(work.path());
    std::fs::copy(&tgz, s.workspace.path().join("greeter.tgz")).unwrap();
    mock.push(tool_reply(
        "p0",
        "plugin_install",
        &json!({"spec": "npm:x; rm -rf ~"}),
    ));
    mock.push(tool_reply(
        "p1",
        "plugin_install",
        &json!({"spec": "file:greeter.tgz"}),
    ));
    mock.push(tool_reply(
        "p2",
        "plugin_install",
        &json!({"spec": "file:greeter.tgz"}),
    ));
    mock.push(text_reply("Done."));
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "install the greeter plugin").await;
    let n = std::sync::atomic::AtomicUsize::new(0);
    let (fin, asked) = s
        .answer_until_finished(&sid, &run, |_| {
            if n.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                "session".into()
            } else {
                "deny".into()
            }
        })
        .await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(
        asked.len(),
        2,
        "each install asks, in full and after a session answer: {asked:?}"
    );
    for a in &asked {
        assert_eq!(a["tool"], "plugin_install");
        assert!(
            a["reason"].as_str().unwrap().contains("each install asks"),
            "{a}"
        );
    }
    let events = s.events(&sid).await;
    let r = of_type(&events, "tool_result");
    assert_eq!(r[0]["ok"], false);
    assert!(
        r[0]["text"].as_str().unwrap().contains("invalid_input"),
        "{}",
        r[0]
    );
    assert_eq!(r[1]["ok"], true, "{}", r[1]);
    assert!(
        r[1]["text"]
            .as_str()
            .unwrap()
            .contains("Installed the plugin greeter, disabled"),
        "{}",
        r[1]
    );
    assert_eq!(r[2]["ok"], false, "{}", r[2]);
    let (_, plugins) = s.get("/api/plugins").await;
    assert_eq!(plugins["data"][0]["name"], "greeter");
    assert_eq!(plugins["data"][0]["enabled"], false);
    // Nothing staged is left behind.
    let left: Vec<_> = std::fs::read_dir(s.state.path().join("plugins"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["greeter"]);
}

/// `--disable-plugin`: the built-in `memory` and `todo` offer no tool (a call of one is an
/// unknown tool), and an installed plugin enabled in the settings stays off.
#[tokio::test]
async fn disable_plugin_turns_off_built_in_and_installed_plugins() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        tweak: Some(|c| {
            c.disabled_plugins = vec!["memory".into(), "todo".into(), "greeter".into()];
        }),
        ..Opts::default()
    })
    .await;
    let work = TempDir::new("tw-plugin-pack");
    let tgz = packed_plugin(work.path());
    let (ok, out) = cli(
        s.state.path(),
        &[
            "plugin",
            "install",
            &format!("file:{}", tgz.display()),
            "--yes",
        ],
    );
    assert!(ok, "{out}");
    let (st, _) = s
        .send(
            reqwest::Method::PUT,
            "/api/plugins/greeter",
            json!({"enabled": true}),
        )
        .await;
    assert_eq!(st, 200);
    // Enabled in the settings, kept off by the flag: its skill does not count.
    let (_, skills) = s.get("/api/skills").await;
    assert!(!names(&skills).contains(&"hello".to_string()), "{skills}");
    mock.push(tool_reply(
        "t1",
        "todo_write",
        &json!({"items": [{"text": "x", "status": "pending"}]}),
    ));
    mock.push(text_reply("Done."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "plan").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let reqs = mock.requests.lock().unwrap().clone();
    let offered: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    for gone in [
        "memory_write",
        "memory_search",
        "memory_delete",
        "todo_write",
    ] {
        assert!(!offered.contains(&gone), "{gone} offered: {offered:?}");
    }
    assert!(offered.contains(&"task"), "subagents stay on: {offered:?}");
    let events = s.events(&sid).await;
    let r = of_type(&events, "tool_result");
    assert!(
        r[0]["text"].as_str().unwrap().contains("unknown_tool"),
        "{}",
        r[0]
    );
}
