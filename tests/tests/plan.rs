//! Plan review end to end with the replay provider: exit_plan revisions with diagrams (accepted,
//! dropped, marked), every decision path, the switch to build, artifacts; questions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tradewind::config::Ceiling;
use tradewind_tests::*;

fn diagrams_v1() -> Value {
    json!([
        {"id": "overview", "title": "Overview", "explanation": "The parts", "section": "Design", "mermaid": "flowchart TD\n  A[API] --> B[Store]\n  B --> C[(DB)]"},
        {"id": "login-flow", "title": "Login", "explanation": "Who talks to whom", "mermaid": "sequenceDiagram\n  Browser->>Server: POST /api/login\n  Server-->>Browser: cookie"},
        {"id": "evil", "title": "Evil", "explanation": "x", "mermaid": "%%{init: {\"securityLevel\":\"loose\"}}%%\nflowchart TD\n  A-->B\n  click A call alert(1)"}
    ])
}

fn script() -> Value {
    json!({"scripts": [
        {"match": "plan the feature", "turns": [
            {"text": "Here is my plan.", "tool_calls": [{"name": "exit_plan", "arguments": {"plan": "# Plan\n\n## Design\nDo it.\n", "title": "Feature X", "diagrams": diagrams_v1()}}]},
            {"text": "Revised.", "tool_calls": [{"name": "exit_plan", "arguments": {"plan": "# Plan v2\n\n## Design\nDo it better.\n", "title": "Feature X", "diagrams": [
                {"id": "overview", "title": "Overview", "explanation": "The parts", "section": "Design", "mermaid": "flowchart TD\n  A[API] --> B[Store]\n  B --> C[(DB)]"},
                {"id": "state", "title": "States", "explanation": "Lifecycle", "mermaid": "stateDiagram-v2\n  [*] --> Running\n  Running --> Done"}
            ]}}]},
            {"text": "Plan approved; the build agent will implement it."}
        ]},
        {"match": "Implement this approved plan", "turns": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "impl.txt", "content": "implemented\n"}}]},
            {"text": "Implemented."}
        ]},
        {"match": "plan it for auto", "turns": [
            {"tool_calls": [{"name": "exit_plan", "arguments": {"plan": "# Write impl.txt", "title": "Auto"}}]},
            {"text": "Approved; the build agent takes it from here."}
        ]},
        {"match": "just skip", "turns": [
            {"tool_calls": [{"name": "exit_plan", "arguments": {"plan": "# Small plan"}}]},
            {"text": "Staying in plan mode."}
        ]},
        {"match": "which db", "turns": [
            {"tool_calls": [{"name": "ask_user_question", "arguments": {"questions": [
                {"question": "Which database?", "options": [{"label": "SQLite", "recommended": true}, {"label": "Postgres"}]},
                {"question": "Extras?", "multi_select": true, "options": [{"label": "Metrics"}, {"label": "Tracing"}, {"label": "Docs"}]}
            ]}}]},
            {"text": "Thanks."}
        ]}
    ]})
}

async fn plan_server() -> TestServer {
    TestServer::start(Opts {
        replay: Some(script()),
        ceiling: Ceiling {
            write: true,
            process: false,
            external: false,
        },
        ..Opts::default()
    })
    .await
}

#[tokio::test]
async fn feedback_revision_then_approval_starts_the_build_run() {
    let s = plan_server().await;
    let (_, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "auto"}))
        .await;
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "please plan the feature").await;
    let p1 = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    assert_eq!(
        (p1["revision"].as_i64(), p1["title"].as_str()),
        (Some(1), Some("Feature X"))
    );
    let ids: Vec<&str> = p1["diagrams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["overview", "login-flow"]);
    assert!(
        p1["diagrams"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["mark"] == "new")
    );
    assert_eq!(
        p1["diagrams"][1]["type"], "sequence",
        "type inferred from the keyword"
    );
    let dropped = p1["dropped"].as_array().unwrap();
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0]["id"], "evil");
    assert!(
        !p1.to_string().contains("alert(1)"),
        "a dropped diagram's source never reaches clients"
    );
    let (_, pending) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    assert_eq!(pending["plans"][0]["plan_id"], p1["plan_id"]);
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["status"], "waiting");
    // Feedback without text is refused; with text the plan agent revises.
    let pid = p1["plan_id"].as_str().unwrap().to_string();
    let (st, _) = s
        .post(
            &format!("/api/plans/{pid}/decision"),
            json!({"decision": "feedback"}),
        )
        .await;
    assert_eq!(st, 422);
    let (st, _) = s
        .post(
            &format!("/api/plans/{pid}/decision"),
            json!({"decision": "feedback", "feedback": "Add a state diagram"}),
        )
        .await;
    assert_eq!(st, 200);
    let (st, _) = s
        .post(
            &format!("/api/plans/{pid}/decision"),
            json!({"decision": "approved"}),
        )
        .await;
    assert_eq!(st, 409, "decided once");
    let p2 = s
        .wait_event(&sid, |e| e["type"] == "plan_proposed" && e["revision"] == 2)
        .await;
    let marks: Vec<(String, String)> = p2["diagrams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().into(),
                d["mark"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        marks,
        [
            ("overview".to_string(), "unchanged".to_string()),
            ("state".to_string(), "new".to_string())
        ]
    );
    assert_eq!(p2["removed"], json!(["login-flow"]));
    assert_ne!(p1["hash"], p2["hash"]);
    let events = s.events(&sid).await;
    let first_result = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "exit_plan")
        .unwrap();
    let t = first_result["text"].as_str().unwrap();
    assert!(
        t.contains("decision: feedback")
            && t.contains("Revise the plan and call exit_plan again.")
            && t.contains("Add a state diagram"),
        "{t}"
    );
    assert!(t.contains("diagrams.dropped") && t.contains("evil"), "{t}");
    // Approve revision 2: the plan run ends, the session switches to build, the implementation runs.
    let pid2 = p2["plan_id"].as_str().unwrap();
    let (st, _) = s
        .post(
            &format!("/api/plans/{pid2}/decision"),
            json!({"decision": "approved"}),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let build_run = s
        .wait_event(&sid, |e| {
            e["type"] == "run_started" && e["trigger"] == "plan"
        })
        .await;
    assert_eq!(build_run["agent"], "build");
    let fin = s
        .wait_run_finished(&sid, build_run["run_id"].as_str().unwrap())
        .await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("impl.txt")).unwrap(),
        "implemented\n"
    );
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["agent"], "build");
    let events = s.events(&sid).await;
    let approved = events
        .iter()
        .filter(|e| e["type"] == "tool_result" && e["tool"] == "exit_plan")
        .nth(1)
        .unwrap();
    assert!(
        approved["text"]
            .as_str()
            .unwrap()
            .contains("The build agent will implement exactly this plan")
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "plan_decided" && e["decision"] == "approved")
    );
    // Artifacts: two revisions, the first a folder with its manifest and diagrams.
    let (_, arts) = s.get(&format!("/api/sessions/{sid}/artifacts")).await;
    let list = arts["data"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    let files: Vec<&str> = list[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "plan.md",
            "diagrams/overview.mmd",
            "diagrams/login-flow.mmd",
            "plan.json"
        ]
    );
    let aid = list[0]["id"].as_str().unwrap();
    let r = s
        .http
        .get(s.url(&format!(
            "/api/artifacts/{aid}/files/diagrams/overview.mmd?inline=1"
        )))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    assert!(
        r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("sandbox")
    );
    assert!(r.text().await.unwrap().starts_with("flowchart TD"));
    let r = s
        .http
        .get(s.url(&format!("/api/artifacts/{aid}/files/plan.json")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
    let manifest: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(manifest["diagrams"][0]["file"], "diagrams/overview.mmd");
    let r = s
        .http
        .get(s.url(&format!("/api/artifacts/{aid}/files/../../tradewind.db")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    for (fmt, magic) in [("zip", &b"PK\x03\x04"[..]), ("tar", &b"plan-r1/"[..])] {
        let r = s
            .http
            .get(s.url(&format!("/api/artifacts/{aid}/download?format={fmt}")))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let b = r.bytes().await.unwrap();
        assert!(b.starts_with(magic), "{fmt}");
    }
    let single = list[1]["files"].as_array().unwrap().len();
    assert_eq!(single, 4, "revision 2 has 2 diagrams + plan.md + plan.json");
    s.stop().await;
}

#[tokio::test]
async fn skipped_and_cancelled_plans_get_a_result_and_stay_in_plan_mode() {
    let s = plan_server().await;
    let (_, v) = s.post("/api/sessions", json!({"agent": "plan"})).await;
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "just skip").await;
    let p = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    assert_eq!(
        p["files"].as_array().unwrap().len(),
        1,
        "no diagrams: plan.md alone"
    );
    s.post(
        &format!("/api/plans/{}/decision", p["plan_id"].as_str().unwrap()),
        json!({"decision": "skipped"}),
    )
    .await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    let r = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "exit_plan")
        .unwrap();
    assert!(r["text"].as_str().unwrap().contains("decision: skipped"));
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["agent"], "plan");
    // Cancelling the run while the plan waits counts as skipped; the call still gets a result.
    let run = s.prompt(&sid, "just skip again").await;
    let p = s
        .wait_event(&sid, |e| e["type"] == "plan_proposed" && e["revision"] == 2)
        .await;
    s.post(&format!("/api/runs/{run}/cancel"), json!({})).await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "cancelled");
    let events = s.events(&sid).await;
    assert!(events.iter().any(|e| e["type"] == "plan_decided"
        && e["plan_id"] == p["plan_id"]
        && e["decision"] == "skipped"));
    let (st, _) = s
        .post(
            &format!("/api/plans/{}/decision", p["plan_id"].as_str().unwrap()),
            json!({"decision": "approved"}),
        )
        .await;
    assert_eq!(st, 409);
    s.stop().await;
}

#[tokio::test]
async fn exit_plan_is_not_for_the_build_agent() {
    let s = plan_server().await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "plan the feature").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let r = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "exit_plan")
        .unwrap();
    assert_eq!(r["ok"], false);
    assert!(!events.iter().any(|e| e["type"] == "plan_proposed"));
    s.stop().await;
}

#[tokio::test]
async fn questions_are_answered_in_the_ui_and_reach_the_model() {
    let s = plan_server().await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "which db should we use").await;
    let q = s.wait_event(&sid, |e| e["type"] == "question_asked").await;
    let qid = q["question_id"].as_str().unwrap();
    assert_eq!(q["questions"][0]["options"][0]["recommended"], true);
    let (_, pending) = s.get(&format!("/api/sessions/{sid}/pending")).await;
    assert_eq!(pending["questions"][0]["question_id"], qid);
    for bad in [
        json!({"answers": [["MySQL"], null]}),
        json!({"answers": [["SQLite", "Postgres"], null]}),
        json!({"answers": [["SQLite"]]}),
    ] {
        let (st, _) = s.post(&format!("/api/questions/{qid}"), bad.clone()).await;
        assert_eq!(st, 422, "{bad}");
    }
    let (st, _) = s
        .post(
            &format!("/api/questions/{qid}"),
            json!({"answers": [["Postgres"], ["Metrics", "Docs"]]}),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    let r = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "ask_user_question")
        .unwrap();
    let t = r["text"].as_str().unwrap();
    assert!(
        t.contains("Which database? → Postgres") && t.contains("Extras? → Metrics, Docs"),
        "{t}"
    );
    let (st, _) = s
        .post(
            &format!("/api/questions/{qid}"),
            json!({"answers": [null, null]}),
        )
        .await;
    assert_eq!(st, 409);
    s.stop().await;
}

#[tokio::test]
async fn headless_plan_run_is_unavailable_and_questions_fail_fast() {
    let home = TempDir::new("hp");
    let ws = TempDir::new("hp-ws");
    let replay = home.path().join("r.json");
    std::fs::write(&replay, script().to_string()).unwrap();
    let run = |agent: &str, prompt: &str| {
        std::process::Command::new(binary())
            .args([
                "run",
                "--json",
                "--agent",
                agent,
                "--workspace",
                ws.path().to_str().unwrap(),
                "--provider",
                "replay",
                "--replay",
                replay.to_str().unwrap(),
                prompt,
            ])
            .env("TRADEWIND_HOME", home.path().join("state"))
            .output()
            .unwrap()
    };
    let out = run("plan", "just skip");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines
            .iter()
            .any(|e| e["type"] == "plan_decided" && e["decision"] == "unavailable")
    );
    let r = lines
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "exit_plan")
        .unwrap();
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("Give the full plan as your final answer.")
    );
    let out = run("build", "which db");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let r = lines
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool"] == "ask_user_question")
        .unwrap();
    assert!(r["text"].as_str().unwrap().contains("no_interactive_ui"));
    let _ = Duration::ZERO;
}

/// The browser reports diagrams it could not render; the model hears them with the feedback so
/// it can fix the diagram; a decided plan takes no more reports.
#[tokio::test]
async fn render_errors_reach_the_model_with_the_decision() {
    let s = plan_server().await;
    let (_, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "auto"}))
        .await;
    let sid = v["id"].as_str().unwrap().to_string();
    s.prompt(&sid, "please plan the feature").await;
    let p1 = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    let plan_id = p1["plan_id"].as_str().unwrap().to_string();
    let (st, _) = s
        .post(
            &format!("/api/plans/{plan_id}/render-errors"),
            json!({"errors": []}),
        )
        .await;
    assert_eq!(st, 422, "at least one error");
    let (st, _) = s
        .post(
            &format!("/api/plans/{plan_id}/render-errors"),
            json!({"errors": [{"diagram_id": "login-flow", "message": "Parse error on line 2: Expecting 'SOLID_ARROW'"}]}),
        )
        .await;
    assert_eq!(st, 204);
    let (st, _) = s
        .post(
            &format!("/api/plans/{plan_id}/decision"),
            json!({"decision": "feedback", "feedback": "fix the diagram"}),
        )
        .await;
    assert_eq!(st, 200);
    let result = s
        .wait_event(&sid, |e| {
            e["type"] == "tool_result" && e["tool"] == "exit_plan"
        })
        .await;
    let text = result["text"].as_str().unwrap();
    assert!(
        text.contains("diagrams.render_errors") && text.contains("Expecting 'SOLID_ARROW'"),
        "{text}"
    );
    let (st, _) = s
        .post(
            &format!("/api/plans/{plan_id}/render-errors"),
            json!({"errors": [{"diagram_id": "overview", "message": "late"}]}),
        )
        .await;
    assert_eq!(st, 409, "a decided plan takes no more reports");
    s.stop().await;
}

/// A recorded turn of the replay provider: a provider's stream as its documentation gives it.
fn recorded(format: &str, file: &str) -> Value {
    json!({"recorded": {"format": format, "file": format!("{}/recorded/{file}", env!("CARGO_MANIFEST_DIR"))}})
}

/// Real models' turns, written from the providers' documented stream formats and played
/// through the live clients' parsers: a vLLM reasoning model reads two files in one turn
/// (`reasoning_content`, whole tool calls in one chunk), gpt-4.1 finishes the plan with
/// `exit_plan` (arguments in 7-character fragments, a usage chunk after the finish), and after
/// the approval Claude with extended thinking writes a file (signed thinking, partial JSON
/// split inside a `\u` escape) and answers. The review starts, the build runs, the file holds
/// exactly what the model wrote, and the usage is what the recordings report.
#[tokio::test]
async fn recorded_model_turns_drive_a_plan_review_and_its_implementation() {
    let s = TestServer::start(Opts {
        replay: Some(json!({"scripts": [
            {"match": "Implement this approved plan", "turns": [
                recorded("anthropic", "anthropic-thinking-tool-use.sse"),
                recorded("anthropic", "anthropic-final-answer.sse"),
            ]},
            {"match": "add a greeting", "turns": [
                recorded("openai", "vllm-reasoning-parallel-reads.sse"),
                recorded("openai", "openai-exit-plan.sse"),
                {"text": "Approved."}
            ]}
        ]})),
        ceiling: Ceiling {
            write: true,
            process: false,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/main.rs"), "fn main() {}\n").unwrap();
    let (_, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "auto"}))
        .await;
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "add a greeting command").await;
    let plan = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    assert_eq!(plan["title"], "Greeting command");
    assert!(
        plan["plan"].as_str().unwrap().contains("`¡Hola, {name}!`"),
        "{plan}"
    );
    assert_eq!(plan["diagrams"][0]["id"], "flow", "{plan}");
    assert!(
        plan["dropped"].as_array().is_none_or(Vec::is_empty),
        "{plan}"
    );

    let events = s.events(&sid).await;
    let calls: Vec<(&str, &Value)> = of_type(&events, "tool_call")
        .iter()
        .map(|c| (c["tool"].as_str().unwrap(), &c["input"]))
        .collect();
    assert_eq!(
        calls[..2],
        [
            ("read_file", &json!({"path": "src/main.rs"})),
            ("list_files", &json!({"path": "src"}))
        ]
    );
    let results = of_type(&events, "tool_result");
    assert!(results[..2].iter().all(|r| r["ok"] == true), "{results:?}");
    // The two reads run side by side: their results come in either order.
    let read = results[..2]
        .iter()
        .find(|r| r["tool"] == "read_file")
        .unwrap_or_else(|| panic!("no read_file result: {results:?}"));
    assert!(
        read["text"].as_str().unwrap().contains("fn main() {}"),
        "{read}"
    );
    let first = of_type(&events, "message_complete")[0];
    assert_eq!(first["text"], "Let me look at the code first.");
    assert!(
        first["reasoning"]
            .as_str()
            .unwrap_or_default()
            .starts_with("The user wants a greeting feature."),
        "{first}"
    );
    let usage: Vec<(u64, u64)> = of_type(&events, "model_usage")
        .iter()
        .map(|u| {
            (
                u["usage"]["input_tokens"].as_u64().unwrap(),
                u["usage"]["output_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(usage, [(1873, 96), (2412, 187)], "{events:?}");

    let pid = plan["plan_id"].as_str().unwrap();
    let (st, _) = s
        .post(
            &format!("/api/plans/{pid}/decision"),
            json!({"decision": "approved"}),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let build = s
        .wait_event(&sid, |e| {
            e["type"] == "run_started" && e["trigger"] == "plan"
        })
        .await;
    let fin = s
        .wait_run_finished(&sid, build["run_id"].as_str().unwrap())
        .await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(
        std::fs::read_to_string(ws.join("src/greet.rs")).unwrap(),
        "pub fn greet(name: &str) -> String {\n    format!(\"¡Hola, {name}!\")\n}\n"
    );
    let events = s.events(&sid).await;
    let answers = of_type(&events, "message_complete");
    assert_eq!(
        answers.last().unwrap()["text"],
        "Done: `src/greet.rs` returns ¡Hola, {name}! — wire it into `main` next."
    );
    let thought = answers
        .iter()
        .find(|m| m["text"] == "Writing the greeting module.")
        .unwrap();
    assert!(
        thought["reasoning"]
            .as_str()
            .unwrap_or_default()
            .starts_with("The plan is approved"),
        "{thought}"
    );
    // Anthropic counts cache reads apart from `input_tokens`; the usage adds them back.
    let last: Vec<(u64, u64, u64)> = of_type(&events, "model_usage")
        .iter()
        .rev()
        .take(2)
        .map(|u| {
            let u = &u["usage"];
            (
                u["input_tokens"].as_u64().unwrap(),
                u["cached_input_tokens"].as_u64().unwrap_or(0),
                u["output_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(last, [(3058, 2560, 27), (2872, 2560, 141)]);
    s.stop().await;
}

#[tokio::test]
async fn approving_a_plan_can_choose_the_mode_of_its_implementation() {
    let s = plan_server().await;
    let (_, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "ask"}))
        .await;
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "plan it for auto").await;
    let p = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    let url = format!("/api/plans/{}/decision", p["plan_id"].as_str().unwrap());
    // A mode goes with an approval only; the refused answer changes nothing.
    let (st, v) = s
        .post(
            &url,
            json!({"decision": "feedback", "feedback": "more", "mode": "auto"}),
        )
        .await;
    assert_eq!(st, 422, "{v}");
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["mode"], "ask");
    let (st, v) = s
        .post(&url, json!({"decision": "approved", "mode": "auto"}))
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    // The implementation runs as build in auto: its write_file needs no approval.
    let started = s
        .wait_event(&sid, |e| {
            e["type"] == "run_started" && e["run_id"] != json!(run)
        })
        .await;
    assert_eq!(started["agent"], "build");
    assert_eq!(started["mode"], "auto");
    let implementation = started["run_id"].as_str().unwrap().to_string();
    let fin = s.wait_run_finished(&sid, &implementation).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("impl.txt")).unwrap(),
        "implemented\n"
    );
    let events = s.events(&sid).await;
    assert!(!events.iter().any(|e| e["type"] == "approval_requested"));
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["mode"], "auto");
    // Decided: a second answer with a mode is a conflict and leaves the mode alone.
    let (st, _) = s
        .post(&url, json!({"decision": "approved", "mode": "ask"}))
        .await;
    assert_eq!(st, 409);
    let (_, sess) = s.get(&format!("/api/sessions/{sid}")).await;
    assert_eq!(sess["mode"], "auto");
    s.stop().await;
}
