//! Models as people run them. Tool calls written as text, and the local model servers that
//! make models write them:
//! recorded streams of each family's format (written from each server's documented chunk
//! format, played through the live OpenAI-compatible parser) driving real turns through the
//! gate; a loopback llama.cpp that validates the GBNF grammar it is sent; an Ollama that checks
//! `options.num_ctx` on its own chat endpoint; a constrained reply retried exactly once. And
//! OpenAI's Responses API, from recordings of its documented stream.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::routing::{get, post};
use serde_json::{Value, json};
use tradewind::config::Ceiling;
use tradewind_tests::openai_mock::{Mock, Reply};
use tradewind_tests::*;

fn recorded(file: &str) -> Value {
    json!({"recorded": {"format": "openai", "file": format!("{}/recorded/{file}", env!("CARGO_MANIFEST_DIR"))}})
}

fn calls_as(mode: tradewind::provider::textcalls::ToolCallsMode) -> tradewind::models::Catalog {
    let mut m = std::collections::BTreeMap::new();
    m.insert(
        "replay/replay".to_string(),
        tradewind::models::ModelOverride {
            tool_calls: Some(mode),
            ..Default::default()
        },
    );
    tradewind::models::Catalog::new(m)
}

/// Every family's written call, recorded, through the gate: the write asks (approved), the
/// harmony command asks (denied), the reads run, the malformed block is returned to the model
/// as a failed call, two calls in one reply both run, `<think>` is reasoning; no call syntax is
/// ever shown or streamed as text.
#[tokio::test]
async fn recorded_calls_of_every_family_go_through_the_gate() {
    let s = TestServer::start(Opts {
        replay: Some(json!({"scripts": [{"match": "go", "turns": [
            recorded("qwen-hermes-tool-call.sse"),
            recorded("qwen3-coder-xml.sse"),
            recorded("deepseek-tool-calls.sse"),
            recorded("mistral-tool-calls.sse"),
            recorded("llama3-python-tag.sse"),
            recorded("fenced-json-call.sse"),
            recorded("gpt-oss-harmony.sse"),
            recorded("malformed-tool-call.sse"),
            recorded("two-calls-one-reply.sse"),
            recorded("think-block-answer.sse"),
        ]}]})),
        ceiling: Ceiling {
            write: true,
            process: true,
            external: false,
        },
        tweak: Some(|c| {
            c.models = calls_as(tradewind::provider::textcalls::ToolCallsMode::Text);
        }),
        ..Opts::default()
    })
    .await;
    std::fs::create_dir_all(s.workspace.path().join("notes")).unwrap();
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "go").await;
    let (fin, asked) = s
        .answer_until_finished(&sid, &run, |a| {
            if a["tool"] == "shell" { "deny" } else { "once" }.to_string()
        })
        .await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let asked: Vec<&str> = asked.iter().filter_map(|a| a["tool"].as_str()).collect();
    assert_eq!(asked, ["write_file", "shell"]);
    let ws = s.workspace.path();
    assert_eq!(
        std::fs::read_to_string(ws.join("notes/a.txt")).unwrap(),
        "alpha\n"
    );
    assert!(!ws.join("denied.txt").exists(), "the denied command ran");
    assert!(!ws.join("notes/b.txt").exists(), "the malformed call ran");
    let events = s.events(&sid).await;
    let calls: Vec<(&str, &Value)> = of_type(&events, "tool_call")
        .iter()
        .map(|c| (c["tool"].as_str().unwrap(), &c["input"]))
        .collect();
    let tools: Vec<&str> = calls.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        tools,
        [
            "write_file",
            "read_file",
            "list_files",
            "read_file",
            "read_file",
            "list_files",
            "shell",
            "write_file",
            "read_file",
            "list_files"
        ]
    );
    assert_eq!(
        calls[1].1,
        &json!({"path": "notes/a.txt"}),
        "Qwen3-Coder XML"
    );
    assert_eq!(calls[2].1, &json!({"path": "notes"}), "DeepSeek");
    assert_eq!(
        calls[3].1,
        &json!({"path": "notes/a.txt", "limit": 20}),
        "Mistral"
    );
    assert_eq!(calls[4].1, &json!({"path": "notes/a.txt"}), "Llama 3");
    assert_eq!(calls[5].1, &json!({"path": "notes"}), "fenced JSON");
    assert_eq!(
        calls[6].1,
        &json!({"command": "touch denied.txt"}),
        "harmony"
    );
    let results = of_type(&events, "tool_result");
    let ok: Vec<bool> = results.iter().map(|r| r["ok"] == true).collect();
    assert_eq!(
        ok,
        [true, true, true, true, true, true, false, false, true, true],
        "{results:#?}"
    );
    assert!(
        results[1]["text"].as_str().unwrap().contains("alpha"),
        "{}",
        results[1]
    );
    // The malformed block: shown with what the model wrote and why it was not run.
    let broken = of_type(&events, "tool_call")[7];
    assert!(
        broken["input_raw"]
            .as_str()
            .unwrap()
            .contains("notes/b.txt")
    );
    assert!(
        broken["input_error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    let answers = of_type(&events, "message_complete");
    assert_eq!(answers[0]["text"], "I'll create it.");
    assert_eq!(answers[5]["text"], "Let me see what is in the folder.");
    assert_eq!(answers[8]["text"], "Reading both.");
    let last = answers.last().unwrap();
    assert_eq!(last["text"], "The file says alpha.");
    assert_eq!(
        last["reasoning"],
        "The file notes/a.txt holds alpha, and both reads agree."
    );
    let syntax = [
        "<tool_call>",
        "<function=",
        "TOOL_CALLS",
        "python_tag",
        "tool▁call",
        "to=functions",
        "<think>",
        "```json",
    ];
    let streamed: String = of_type(&events, "message_delta")
        .iter()
        .filter_map(|d| d["text"].as_str())
        .collect();
    for a in &answers {
        let text = a["text"].as_str().unwrap();
        for s in syntax {
            assert!(!text.contains(s), "{s} shown in {text}");
        }
    }
    for s in syntax {
        assert!(!streamed.contains(s), "{s} streamed: {streamed}");
    }
    s.stop().await;
}

/// A model whose calls are native only: written call syntax, and a JSON object naming a tool,
/// run nothing; the text stays as it was written.
#[tokio::test]
async fn a_native_model_s_written_calls_run_nothing() {
    let s = TestServer::start(Opts {
        replay: Some(json!({"scripts": [{"match": "go", "turns": [
            {"text": "{\"name\": \"write_file\", \"arguments\": {\"path\": \"x.txt\", \"content\": \"x\"}}"},
            {"text": "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"y.txt\", \"content\": \"y\"}}\n</tool_call>"},
        ]}]})),
        ceiling: Ceiling {
            write: true,
            process: false,
            external: false,
        },
        tweak: Some(|c| {
            c.models = calls_as(tradewind::provider::textcalls::ToolCallsMode::Native);
        }),
        ..Opts::default()
    })
    .await;
    for _ in 0..2 {
        let sid = s.create_session("auto").await;
        let run = s.prompt(&sid, "go").await;
        let fin = s.wait_run_finished(&sid, &run).await;
        assert_eq!(fin["status"], "completed", "{fin}");
        let events = s.events(&sid).await;
        assert!(of_type(&events, "tool_call").is_empty(), "{events:#?}");
        let text = of_type(&events, "message_complete")[0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(text.contains("write_file"), "{text}");
    }
    assert!(!s.workspace.path().join("x.txt").exists());
    assert!(!s.workspace.path().join("y.txt").exists());
    s.stop().await;
}

// ---- a loopback llama.cpp and Ollama ----

/// What a fake server was sent, and what it answers next.
#[derive(Clone, Default)]
struct Fake {
    bodies: Arc<Mutex<Vec<Value>>>,
    replies: Arc<Mutex<VecDeque<String>>>,
    /// Why a request was refused (the test fails on any).
    refused: Arc<Mutex<Vec<String>>>,
}

impl Fake {
    fn reply(&self, body: String) {
        self.replies.lock().unwrap().push_back(body);
    }
    fn next(&self) -> String {
        self.replies
            .lock()
            .unwrap()
            .pop_front()
            .expect("a scripted reply")
    }
}

/// A chat-completion stream whose content is `text` (in 6-character chunks), as llama.cpp's
/// server streams it; `finish` is its finish reason; a usage chunk when `usage`.
fn sse_text(text: &str, finish: &str, usage: bool) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(6) {
        let p: String = piece.iter().collect();
        out.push_str(&format!(
            "data: {}\n\n",
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]})
        ));
    }
    let mut last = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]});
    if usage {
        last["usage"] = json!({"prompt_tokens": 900, "completion_tokens": 20});
    }
    out.push_str(&format!("data: {last}\n\ndata: [DONE]\n\n"));
    out
}

/// A llama.cpp server as its documentation gives it: `/props` (a template without tool
/// support, a 32,768-token context), `/v1/models`, and a chat endpoint that refuses a request
/// with `tools` (the model takes none) or without a GBNF `grammar` its parser accepts.
async fn llama_cpp(fake: Fake) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    llama_cpp_on(fake, listener).await
}

async fn llama_cpp_on(fake: Fake, listener: tokio::net::TcpListener) -> String {
    let app = axum::Router::new()
        .route(
            "/props",
            get(|| async {
                axum::Json(json!({
                    "default_generation_settings": {"n_ctx": 32768},
                    "total_slots": 1,
                    "model_path": "/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                    "chat_template": "{% for message in messages %}…{% endfor %}",
                    "chat_template_caps": {"supports_tools": false, "supports_tool_calls": false},
                    "modalities": {"vision": false},
                    "build_info": "b6500-0123abcd"
                }))
            }),
        )
        .route(
            "/v1/models",
            get(|| async { axum::Json(json!({"data": [{"id": "test-model"}]})) }),
        )
        // Its tokenizer: a token per four characters here.
        .route(
            "/tokenize",
            post(|body: axum::Json<Value>| async move {
                let n = body["content"].as_str().unwrap_or("").chars().count() / 4;
                axum::Json(json!({"tokens": vec![1; n]}))
            }),
        )
        .route(
            "/v1/chat/completions",
            post(|axum::extract::State(f): axum::extract::State<Fake>, body: axum::Json<Value>| async move {
                let body = body.0;
                let mut why = Vec::new();
                if body.get("tools").is_some() {
                    why.push("tools sent to a template without tool support".to_string());
                }
                match body["grammar"].as_str() {
                    Some(g) => {
                        if let Err(e) = gbnf::check(g) {
                            why.push(format!("grammar: {e}"));
                        }
                    }
                    None => why.push("no grammar".into()),
                }
                f.bodies.lock().unwrap().push(body);
                if !why.is_empty() {
                    let msg = why.join("; ");
                    f.refused.lock().unwrap().push(msg.clone());
                    return (
                        axum::http::StatusCode::BAD_REQUEST,
                        axum::Json(json!({"error": {"code": 400, "message": msg, "type": "invalid_request_error"}})),
                    )
                        .into_response();
                }
                (
                    [("content-type", "text/event-stream")],
                    f.next(),
                )
                    .into_response()
            }),
        )
        .with_state(fake);
    serve_on(app, listener).await
}

use axum::response::IntoResponse;

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve_on(app, listener).await
}

async fn serve_on(app: axum::Router, listener: tokio::net::TcpListener) -> String {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/v1")
}

/// On a llama.cpp whose template takes no tools, `auto` writes the calls as text under a GBNF
/// grammar the server's parser accepts; a constrained call is asked about and runs, an answer
/// object is shown as its text, never as JSON; `GET /api/providers` says all of it.
#[tokio::test]
async fn a_llama_cpp_without_tool_support_gets_calls_as_text_under_a_valid_grammar() {
    let fake = Fake::default();
    let url = llama_cpp(fake.clone()).await;
    fake.reply(sse_text(
        "{\"calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"hello.txt\", \"content\": \"hello\\n\"}}]}",
        "stop",
        false,
    ));
    fake.reply(sse_text(
        "{\"answer\": \"Wrote hello.txt.\"}",
        "stop",
        false,
    ));
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: Ceiling {
            write: true,
            process: false,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    let (_, list) = s.get("/api/providers").await;
    assert_eq!(
        list["data"][0]["model_server"],
        json!({"server": "llama_cpp", "version": "b6500-0123abcd", "tools": false, "tool_calls": "text", "constrained": "gbnf", "context_window": 32768}),
        "{list}"
    );
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write hello").await;
    let (fin, asked) = s.answer_until_finished(&sid, &run, |_| "once".into()).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert!(
        fake.refused.lock().unwrap().is_empty(),
        "{:?}",
        fake.refused
    );
    assert_eq!(asked.len(), 1);
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join("hello.txt")).unwrap(),
        "hello\n"
    );
    let events = s.events(&sid).await;
    let answers = of_type(&events, "message_complete");
    assert_eq!(answers.last().unwrap()["text"], "Wrote hello.txt.");
    let (_, models) = s.get("/api/models").await;
    assert_eq!(
        models["data"],
        json!([{"id": "test-model", "context_window": 32768, "tools": false, "vision": false}]),
        "a model that takes no tools is marked"
    );
    // It streams no usage: its tokenizer counted the prompt and the reply, marked estimated.
    let usage = &of_type(&events, "model_usage")[1]["usage"];
    assert_eq!(usage["estimated"], true, "{usage}");
    assert_eq!(
        usage["output_tokens"],
        "{\"answer\": \"Wrote hello.txt.\"}".len() as u64 / 4,
        "{usage}"
    );
    assert!(usage["input_tokens"].as_u64().unwrap() > 500, "{usage}");
    let streamed: String = of_type(&events, "message_delta")
        .iter()
        .filter_map(|d| d["text"].as_str())
        .collect();
    assert!(
        !streamed.contains("{\""),
        "JSON streamed as text: {streamed}"
    );
    assert_eq!(
        streamed, "Wrote hello.txt.",
        "the answer's text streams as it comes"
    );
    // The tools are described in the system prompt, in the answer-or-calls form.
    let bodies = fake.bodies.lock().unwrap().clone();
    let system = bodies[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("\"calls\"") && system.contains("write_file"));
    assert_eq!(bodies[0]["stream"], true);
    s.stop().await;
}

/// A local server started after Tradewind is recognised once it answers: one that cannot be
/// reached is asked again, not remembered as "not recognised".
#[tokio::test]
async fn a_local_server_started_later_is_recognised_once_it_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let s = TestServer::start(Opts {
        openai: Some(format!("http://{addr}/v1")),
        ..Opts::default()
    })
    .await;
    let (_, list) = s.get("/api/providers").await;
    assert_eq!(list["data"][0]["model_server"]["server"], "other", "{list}");
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    llama_cpp_on(Fake::default(), listener).await;
    let (_, list) = s.get("/api/providers").await;
    assert_eq!(
        list["data"][0]["model_server"]["server"], "llama_cpp",
        "{list}"
    );
    s.stop().await;
}

/// A constrained reply that still cannot be read (cut off at the length limit) is asked for
/// once more with the reason; a second in a row ends the run — exactly one retry — and both
/// stay in the log. One that reads on the retry carries on.
#[tokio::test]
async fn a_constrained_reply_that_cannot_be_read_is_retried_exactly_once() {
    let fake = Fake::default();
    let url = llama_cpp(fake.clone()).await;
    let cut = "{\"calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"con";
    fake.reply(sse_text(cut, "length", true));
    fake.reply(sse_text(cut, "length", true));
    fake.reply(sse_text(cut, "length", true));
    fake.reply(sse_text("{\"answer\": \"Sorry.\"}", "stop", true));
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write a").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "failed", "{fin}");
    assert_eq!(fin["error"]["code"], "unreadable_reply", "{fin}");
    assert_eq!(fake.bodies.lock().unwrap().len(), 2, "exactly one retry");
    let events = s.events(&sid).await;
    let calls = of_type(&events, "tool_call");
    assert_eq!(calls.len(), 2);
    for c in &calls {
        assert!(
            c["input_raw"].as_str().unwrap().contains("\"con"),
            "the malformed text stays in the log: {c}"
        );
    }
    // The retry carried the reason.
    let retry = fake.bodies.lock().unwrap()[1].clone();
    let sent = retry["messages"].to_string();
    assert!(sent.contains("could not be read"), "{sent}");
    // A reply that reads on the retry carries on.
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "write b").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert_eq!(fake.bodies.lock().unwrap().len(), 4);
    let events = s.events(&sid).await;
    assert_eq!(
        of_type(&events, "message_complete").last().unwrap()["text"],
        "Sorry."
    );
    s.stop().await;
}

/// An Ollama as its API documentation gives it: `/api/version`, `/api/show` (tools, a
/// 32,768-token context), and `/api/chat` streaming newline-delimited JSON; the chat endpoint
/// refuses a request without `options.num_ctx`.
async fn ollama(fake: Fake) -> String {
    let app = axum::Router::new()
        .route(
            "/api/version",
            get(|| async { axum::Json(json!({"version": "0.12.6"})) }),
        )
        .route(
            "/api/tags",
            get(|| async {
                axum::Json(json!({"models": [{"name": "test-model", "model": "test-model", "size": 4_683_087_332_u64,
                    "details": {"family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"}}]}))
            }),
        )
        .route(
            "/api/show",
            post(|| async {
                axum::Json(json!({
                    "capabilities": ["completion", "tools"],
                    "details": {"family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
                    "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}
                }))
            }),
        )
        .route(
            "/v1/models",
            get(|| async { axum::Json(json!({"data": [{"id": "test-model"}]})) }),
        )
        .route(
            "/api/chat",
            post(|axum::extract::State(f): axum::extract::State<Fake>, body: axum::Json<Value>| async move {
                let body = body.0;
                let ok = body["options"]["num_ctx"].as_u64().is_some() && body["stream"] == true;
                f.bodies.lock().unwrap().push(body);
                if !ok {
                    f.refused.lock().unwrap().push("no options.num_ctx".into());
                    return (axum::http::StatusCode::BAD_REQUEST, "{\"error\":\"no num_ctx\"}".to_string()).into_response();
                }
                ([("content-type", "application/x-ndjson")], f.next()).into_response()
            }),
        )
        .with_state(fake);
    serve(app).await
}

/// Ollama's requests go to its own chat endpoint, carrying `options.num_ctx` equal to the
/// window assumed (its `/api/show`), the tools natively; its streamed call runs.
#[tokio::test]
async fn ollama_requests_carry_the_window_on_its_own_chat_endpoint() {
    let fake = Fake::default();
    let url = ollama(fake.clone()).await;
    fake.reply(
        [
            json!({"model": "test-model", "message": {"role": "assistant", "content": "Reading."}, "done": false}),
            json!({"model": "test-model", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a.txt"}}}]}, "done": false}),
            json!({"model": "test-model", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 1200, "eval_count": 18}),
        ]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect(),
    );
    fake.reply(
        [
            json!({"message": {"role": "assistant", "content": "It says "}, "done": false}),
            json!({"message": {"role": "assistant", "content": "alpha."}, "done": false}),
            json!({"message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 1300, "eval_count": 4}),
        ]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect(),
    );
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    std::fs::write(s.workspace.path().join("a.txt"), "alpha\n").unwrap();
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "what is in a.txt?").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    assert!(
        fake.refused.lock().unwrap().is_empty(),
        "{:?}",
        fake.refused
    );
    let bodies = fake.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 2);
    for b in &bodies {
        assert_eq!(b["options"]["num_ctx"], 32768, "{b}");
        assert!(b["tools"].as_array().is_some_and(|t| !t.is_empty()));
    }
    // The call and its result went back as Ollama takes them.
    let msgs = bodies[1]["messages"].as_array().unwrap();
    let call = msgs.iter().find(|m| m.get("tool_calls").is_some()).unwrap();
    assert_eq!(
        call["tool_calls"][0]["function"]["arguments"]["path"],
        "a.txt"
    );
    let result = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(result["tool_name"], "read_file");
    let events = s.events(&sid).await;
    assert_eq!(
        of_type(&events, "message_complete").last().unwrap()["text"],
        "It says alpha."
    );
    let usage = of_type(&events, "model_usage");
    assert_eq!(usage[0]["usage"]["input_tokens"], 1200);
    assert_eq!(usage[0]["context_window"], 32768);
    // The model list says what the server says of each model.
    let (st, models) = s.get("/api/models").await;
    assert_eq!(st, 200, "{models}");
    assert_eq!(
        models["data"],
        json!([{"id": "test-model", "context_window": 32768, "tools": true, "vision": false, "size_bytes": 4_683_087_332_u64}])
    );
    s.stop().await;
}

/// A GBNF parser as strict as llama.cpp's on what the grammars here use: rules
/// `name ::= alternatives`, literals with escapes, character classes, groups, `* + ?` and
/// `{m,n}`; every rule referenced is defined, and `root` is.
mod gbnf {
    pub fn check(g: &str) -> Result<(), String> {
        let mut defined = Vec::new();
        let mut used = Vec::new();
        for (n, line) in g.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (name, body) = line
                .split_once(" ::= ")
                .ok_or(format!("line {}: no `::=`", n + 1))?;
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(format!("line {}: bad rule name {name:?}", n + 1));
            }
            if defined.contains(&name.to_string()) {
                return Err(format!("rule {name} defined twice"));
            }
            defined.push(name.to_string());
            let mut p = Parser {
                s: body.as_bytes(),
                i: 0,
                used: &mut used,
            };
            p.alternatives()
                .map_err(|e| format!("rule {name}: {e} at {}", p.i))?;
            if p.i != p.s.len() {
                return Err(format!("rule {name}: unexpected {:?}", &body[p.i..]));
            }
        }
        if !defined.iter().any(|d| d == "root") {
            return Err("no root".into());
        }
        for u in used {
            if !defined.contains(&u) {
                return Err(format!("{u} is used but not defined"));
            }
        }
        Ok(())
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
        used: &'a mut Vec<String>,
    }

    impl Parser<'_> {
        fn space(&mut self) {
            while self.i < self.s.len() && self.s[self.i] == b' ' {
                self.i += 1;
            }
        }
        fn alternatives(&mut self) -> Result<(), String> {
            self.sequence()?;
            loop {
                self.space();
                if self.s.get(self.i) == Some(&b'|') {
                    self.i += 1;
                    self.sequence()?;
                } else {
                    return Ok(());
                }
            }
        }
        fn sequence(&mut self) -> Result<(), String> {
            let mut items = 0;
            loop {
                self.space();
                match self.s.get(self.i) {
                    None | Some(b'|') | Some(b')') => {
                        return if items == 0 {
                            Err("empty sequence".into())
                        } else {
                            Ok(())
                        };
                    }
                    _ => {
                        self.item()?;
                        self.repeat()?;
                        items += 1;
                    }
                }
            }
        }
        fn item(&mut self) -> Result<(), String> {
            match self.s[self.i] {
                b'"' => self.quoted(b'"'),
                b'[' => self.quoted(b']'),
                b'(' => {
                    self.i += 1;
                    self.alternatives()?;
                    self.space();
                    if self.s.get(self.i) != Some(&b')') {
                        return Err("unclosed group".into());
                    }
                    self.i += 1;
                    Ok(())
                }
                c if c.is_ascii_alphanumeric() || c == b'-' || c == b'_' => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && (self.s[self.i].is_ascii_alphanumeric()
                            || self.s[self.i] == b'-'
                            || self.s[self.i] == b'_')
                    {
                        self.i += 1;
                    }
                    let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    self.used.push(name);
                    Ok(())
                }
                c => Err(format!("unexpected {:?}", c as char)),
            }
        }
        /// A literal or a class: escapes `\\ \" \] \n \r \t \xHH \uHHHH`.
        fn quoted(&mut self, close: u8) -> Result<(), String> {
            self.i += 1;
            while let Some(&c) = self.s.get(self.i) {
                match c {
                    b'\\' => {
                        let e = *self.s.get(self.i + 1).ok_or("dangling escape")?;
                        let skip = match e {
                            b'x' => 4,
                            b'u' => 6,
                            b'\\' | b'"' | b']' | b'[' | b'n' | b'r' | b't' | b'-' | b'/' => 2,
                            _ => return Err(format!("bad escape \\{}", e as char)),
                        };
                        if skip > 2 {
                            let hex = self.s.get(self.i + 2..self.i + skip).ok_or("short hex")?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err("bad hex escape".into());
                            }
                        }
                        self.i += skip;
                    }
                    c if c == close => {
                        self.i += 1;
                        return Ok(());
                    }
                    _ => self.i += 1,
                }
            }
            Err("unclosed literal or class".into())
        }
        fn repeat(&mut self) -> Result<(), String> {
            match self.s.get(self.i) {
                Some(b'*' | b'+' | b'?') => self.i += 1,
                Some(b'{') => {
                    let end = self.s[self.i..]
                        .iter()
                        .position(|&c| c == b'}')
                        .ok_or("unclosed {")?;
                    let inner = std::str::from_utf8(&self.s[self.i + 1..self.i + end])
                        .map_err(|e| e.to_string())?;
                    let ok = inner
                        .split(',')
                        .all(|n| n.is_empty() || n.parse::<u32>().is_ok());
                    if !ok || inner.split(',').count() > 2 {
                        return Err(format!("bad repetition {{{inner}}}"));
                    }
                    self.i += end + 1;
                }
                _ => {}
            }
            Ok(())
        }
    }

    #[test]
    fn the_checker_refuses_what_llama_cpp_refuses() {
        assert!(check("root ::= \"a\" b*\nb ::= [^\\x00] | \"\\\"\"").is_ok());
        assert!(check("root ::= c").is_err(), "undefined");
        assert!(check("root ::= \"a").is_err(), "unclosed");
        assert!(check("root ::= (\"a\"").is_err(), "group");
        assert!(check("x ::= \"a\"").is_err(), "no root");
        assert!(check("root ::= \"\\q\"").is_err(), "escape");
    }
}

// ---- the Responses API ----

/// A recorded Responses stream as the scripted server's reply (one network write per event).
fn responses_reply(file: &str) -> Reply {
    let body =
        std::fs::read_to_string(format!("{}/recorded/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    Reply::Sse {
        chunks: body.split_inclusive("\n\n").map(str::to_string).collect(),
        delay: std::time::Duration::ZERO,
    }
}

/// `apiMode: "responses"`: a reasoning model's summary streams as reasoning, its call (the
/// arguments in fragments) runs through the gate, its encrypted reasoning item goes back with
/// the call and its result on the next request, the usage counts cached and reasoning tokens;
/// an `error` event mid-stream ends the run with the provider's error.
#[tokio::test]
async fn the_responses_api_streams_calls_and_sends_reasoning_back() {
    let mock = Mock::default();
    let url = mock.serve().await;
    mock.push(responses_reply("responses-reasoning-function-call.sse"));
    mock.push(responses_reply("responses-final-answer.sse"));
    mock.push(responses_reply("responses-error.sse"));
    let s = TestServer::start(Opts {
        openai: Some(url),
        tweak: Some(|c| {
            if let Some(p) = c.provider.as_mut() {
                p.api_mode = tradewind::protocol::ApiMode::Responses;
            }
        }),
        ..Opts::default()
    })
    .await;
    let (_, list) = s.get("/api/providers").await;
    assert_eq!(list["data"][0]["api_mode"], "responses", "{list}");
    std::fs::write(s.workspace.path().join("a.txt"), "alpha\n").unwrap();
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "what is in a.txt?").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let call = of_type(&events, "tool_call")[0];
    assert_eq!(call["tool"], "read_file");
    assert_eq!(call["input"], json!({"path": "a.txt"}));
    let result = of_type(&events, "tool_result")[0];
    assert!(
        result["text"].as_str().unwrap().contains("alpha"),
        "{result}"
    );
    let answers = of_type(&events, "message_complete");
    assert!(
        answers[0]["reasoning"]
            .as_str()
            .unwrap()
            .contains("I'll read it."),
        "{}",
        answers[0]
    );
    assert_eq!(answers[1]["text"], "a.txt says “alpha”.");
    let usage = of_type(&events, "model_usage");
    assert_eq!(usage[0]["usage"]["cached_input_tokens"], 1920);
    assert_eq!(usage[0]["usage"]["reasoning_tokens"], 64);
    // The requests, as the API documents them.
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs[0]["store"], false);
    assert_eq!(reqs[0]["stream"], true);
    assert_eq!(reqs[0]["include"], json!(["reasoning.encrypted_content"]));
    assert!(
        reqs[0]["instructions"]
            .as_str()
            .unwrap()
            .contains("Tradewind")
    );
    assert!(
        reqs[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["type"] == "function"
                && t["name"] == "read_file"
                && t["parameters"].is_object())
    );
    assert_eq!(reqs[0]["input"][0]["role"], "user");
    let input = reqs[1]["input"].as_array().unwrap();
    let kinds: Vec<&str> = input
        .iter()
        .map(|i| i["type"].as_str().or(i["role"].as_str()).unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        ["user", "reasoning", "function_call", "function_call_output"]
    );
    assert!(
        input[1]["encrypted_content"]
            .as_str()
            .unwrap()
            .starts_with("gAAAA")
    );
    assert_eq!(input[2]["call_id"], "call_Qx7pLm2N");
    assert_eq!(input[2]["arguments"], "{\"path\":\"a.txt\"}");
    assert_eq!(input[3]["call_id"], "call_Qx7pLm2N");
    assert!(input[3]["output"].as_str().unwrap().contains("alpha"));
    // An error event mid-stream.
    let run = s.prompt(&sid, "again").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "failed", "{fin}");
    assert_eq!(fin["error"]["code"], "provider_overloaded", "{fin}");
    assert!(
        fin["error"]["message"]
            .as_str()
            .unwrap()
            .contains("The server had an error"),
        "{fin}"
    );
    s.stop().await;
}

/// The `websearch` settings that choose the provider's own search.
fn native_search() -> Option<tradewind::config::WebSearchSettings> {
    Some(tradewind::config::WebSearchSettings {
        provider: Some("native".into()),
        ..Default::default()
    })
}

/// The tools a request carried, by type (`function` ones by name).
fn tool_kinds(req: &Value) -> Vec<String> {
    req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| match t["type"].as_str() {
            // The Responses API's and Anthropic's shape, then the chat completions one.
            Some("function") | None => t["name"]
                .as_str()
                .or(t["function"]["name"].as_str())
                .unwrap_or("")
                .to_string(),
            Some(kind) => kind.to_string(),
        })
        .collect()
}

/// `websearch.provider: "native"` with the Responses API: the provider's `web_search` tool
/// replaces `websearch`; in an `ask` session it is asked for once, before the first request
/// that would carry it (nothing is sent before the answer), and the answer holds for the
/// session; the search, its pages and the answer's citations are in the transcript, and the
/// search goes back with the next request. Declined, the session has no web search and is not
/// asked again; a run that cannot reach `external` is never asked and never sends it.
#[tokio::test]
async fn native_web_search_through_the_responses_api_is_asked_once_per_session() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        websearch: native_search(),
        tweak: Some(|c| {
            if let Some(p) = c.provider.as_mut() {
                p.api_mode = tradewind::protocol::ApiMode::Responses;
            }
        }),
        ..Opts::default()
    })
    .await;
    let (_, ws) = s.get("/api/settings/websearch").await;
    assert_eq!(ws["provider"], "native", "{ws}");
    // Allowed for the session.
    mock.push(responses_reply("responses-web-search.sse"));
    mock.push(responses_reply("responses-final-answer.sse"));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "what is new in tokio?").await;
    let asked = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert_eq!(asked["tool"], "web_search", "{asked}");
    assert_eq!(asked["effect"], "external");
    assert!(
        asked["reason"]
            .as_str()
            .unwrap()
            .contains("search the web through openai for this session"),
        "{asked}"
    );
    assert_eq!(mock.request_count(), 0, "nothing is sent before the answer");
    let id = asked["approval_id"].as_str().unwrap();
    let (st, _) = s
        .post(&format!("/api/approvals/{id}"), json!({"decision": "once"}))
        .await;
    assert_eq!(st, 200);
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let search = of_type(&events, "web_search");
    assert_eq!(search.len(), 1, "{events:#?}");
    assert_eq!(search[0]["query"], "tokio 1.54 release notes");
    assert_eq!(search[0]["status"], "completed");
    assert_eq!(search[0]["provider"], "openai");
    assert_eq!(
        search[0]["results"][0]["url"],
        "https://github.com/tokio-rs/tokio/releases"
    );
    let answer = of_type(&events, "message_complete")[0];
    assert!(
        answer["text"].as_str().unwrap().starts_with("Tokio 1.54"),
        "{answer}"
    );
    assert_eq!(answer["citations"].as_array().unwrap().len(), 1, "{answer}");
    assert_eq!(answer["citations"][0]["title"], "Releases · tokio-rs/tokio");
    // The same session again: not asked, the tool sent, the search sent back in its place.
    let run = s.prompt(&sid, "and the one before?").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    assert_eq!(of_type(&events, "approval_requested").len(), 1);
    let reqs = mock.requests.lock().unwrap().clone();
    for r in &reqs[..2] {
        let kinds = tool_kinds(r);
        assert!(kinds.contains(&"web_search".to_string()), "{kinds:?}");
        assert!(!kinds.contains(&"websearch".to_string()), "{kinds:?}");
        assert!(kinds.contains(&"read_file".to_string()), "{kinds:?}");
    }
    assert_eq!(
        reqs[0]["include"],
        json!([
            "reasoning.encrypted_content",
            "web_search_call.action.sources"
        ])
    );
    let input = reqs[1]["input"].as_array().unwrap();
    let kinds: Vec<&str> = input
        .iter()
        .map(|i| i["type"].as_str().or(i["role"].as_str()).unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["user", "web_search_call", "message", "user"]);
    assert_eq!(input[1]["action"]["query"], "tokio 1.54 release notes");
    let (_, grants) = s.get(&format!("/api/sessions/{sid}/permissions")).await;
    assert!(
        grants["grants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["kind"] == "web_search" && g["key"] == "native-search:openai"),
        "{grants}"
    );

    // Declined: no web search in that session, and not asked again.
    mock.push(responses_reply("responses-final-answer.sse"));
    mock.push(responses_reply("responses-final-answer.sse"));
    let declined = s.create_session("ask").await;
    let run = s.prompt(&declined, "what is new in tokio?").await;
    let asked = s
        .wait_event(&declined, |e| e["type"] == "approval_requested")
        .await;
    let id = asked["approval_id"].as_str().unwrap();
    s.post(&format!("/api/approvals/{id}"), json!({"decision": "deny"}))
        .await;
    s.wait_run_finished(&declined, &run).await;
    let run = s.prompt(&declined, "search anyway").await;
    s.wait_run_finished(&declined, &run).await;
    let events = s.events(&declined).await;
    assert_eq!(of_type(&events, "approval_requested").len(), 1);
    let reqs = mock.requests.lock().unwrap().clone();
    for r in &reqs[2..4] {
        let kinds = tool_kinds(r);
        assert!(!kinds.contains(&"web_search".to_string()), "{kinds:?}");
        assert!(!kinds.contains(&"websearch".to_string()), "{kinds:?}");
        assert_eq!(r["include"], json!(["reasoning.encrypted_content"]));
    }

    // A run that cannot reach `external` (headless, without --allow-external): never asked,
    // never sent.
    mock.push(responses_reply("responses-final-answer.sse"));
    let headless = s.create_session("full").await;
    let (st, v) = s
        .post(
            &format!("/api/sessions/{headless}/messages"),
            json!({"text": "what is new in tokio?", "limits": {"write": true, "process": true, "external": false, "read_only": false, "yolo": false, "interactive": false}}),
        )
        .await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    let fin = s.wait_run_finished(&headless, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&headless).await;
    assert!(of_type(&events, "approval_requested").is_empty());
    let reqs = mock.requests.lock().unwrap().clone();
    assert!(!tool_kinds(&reqs[4]).contains(&"web_search".to_string()));
    s.stop().await;
}

/// Anthropic's server-side search, in a `full` session started with `--allow-external`: sent
/// without asking (`web_search_20250305`, at most 5 searches a reply); its query, pages and
/// the answer's cited passages are in the transcript; the next request sends its
/// `server_tool_use` and `web_search_tool_result` blocks back as they came (the encrypted
/// content the API needs for citations included).
#[tokio::test]
async fn native_web_search_through_anthropic_runs_without_asking_where_external_does() {
    let mock = Mock::default();
    let url = mock.serve().await;
    mock.push(responses_reply("anthropic-web-search.sse"));
    mock.push(responses_reply("anthropic-final-answer.sse"));
    let s = TestServer::start(Opts {
        openai: Some(url),
        websearch: native_search(),
        ceiling: Ceiling {
            write: true,
            process: true,
            external: true,
        },
        tweak: Some(|c| {
            if let Some(p) = c.provider.as_mut() {
                p.kind = "anthropic".into();
                p.base_url = p
                    .base_url
                    .as_ref()
                    .map(|u| u.trim_end_matches("/v1").into());
            }
        }),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "what is the latest tokio?").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    assert!(of_type(&events, "approval_requested").is_empty());
    let allowed = of_type(&events, "policy_decision");
    assert!(
        allowed
            .iter()
            .any(|d| d["tool"] == "web_search" && d["decision"] == "allow"),
        "{allowed:?}"
    );
    let search = of_type(&events, "web_search");
    assert_eq!(search.len(), 1, "{events:#?}");
    assert_eq!(search[0]["query"], "tokio latest release");
    assert_eq!(search[0]["provider"], "anthropic");
    assert_eq!(search[0]["results"].as_array().unwrap().len(), 2);
    assert_eq!(search[0]["results"][1]["title"], "tokio - Rust");
    let answer = of_type(&events, "message_complete")[0];
    assert!(
        answer["text"]
            .as_str()
            .unwrap()
            .ends_with("the latest Tokio is 1.54.1, a fix for the blocking-task budget."),
        "{answer}"
    );
    let cited = &answer["citations"][0];
    assert_eq!(cited["url"], "https://github.com/tokio-rs/tokio/releases");
    assert!(
        cited["cited_text"]
            .as_str()
            .unwrap()
            .starts_with("Tokio v1.54.1"),
        "{cited}"
    );
    let run = s.prompt(&sid, "thanks").await;
    s.wait_run_finished(&sid, &run).await;
    let reqs = mock.requests.lock().unwrap().clone();
    let tool = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "web_search")
        .cloned()
        .unwrap();
    assert_eq!(
        tool,
        json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})
    );
    assert!(!tool_kinds(&reqs[0]).contains(&"websearch".to_string()));
    let assistant = &reqs[1]["messages"][1];
    assert_eq!(assistant["role"], "assistant", "{assistant}");
    let blocks: Vec<&str> = assistant["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        blocks,
        ["server_tool_use", "web_search_tool_result", "text"]
    );
    assert_eq!(
        assistant["content"][0]["input"],
        json!({"query": "tokio latest release"})
    );
    assert!(
        assistant["content"][1]["content"][0]["encrypted_content"]
            .as_str()
            .unwrap()
            .starts_with("EqgfCioI")
    );
    s.stop().await;
}

/// `native` with a provider that has no search of its own (the chat completions API): no
/// `websearch` tool, nothing sent in its place, and the run says why.
#[tokio::test]
async fn native_web_search_with_a_chat_completions_provider_says_there_is_none() {
    let mock = Mock::default();
    let url = mock.serve().await;
    mock.push(responses_reply("think-block-answer.sse"));
    let s = TestServer::start(Opts {
        openai: Some(url),
        websearch: native_search(),
        ceiling: Ceiling {
            write: true,
            process: true,
            external: true,
        },
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "what is new in tokio?").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let events = s.events(&sid).await;
    let notes = of_type(&events, "error");
    assert!(
        notes
            .iter()
            .any(|e| e["code"] == "no_native_search" && e.get("fatal").is_none()),
        "{notes:?}"
    );
    let reqs = mock.requests.lock().unwrap().clone();
    let kinds = tool_kinds(&reqs[0]);
    assert!(kinds.contains(&"webfetch".to_string()), "{kinds:?}");
    assert!(!kinds.contains(&"websearch".to_string()), "{kinds:?}");
    assert!(!kinds.contains(&"web_search".to_string()), "{kinds:?}");
    s.stop().await;
}

/// A model server for provider tests: its model list, and the `Authorization` header of each
/// request for it.
fn listing(seen: Arc<Mutex<Vec<Option<String>>>>, body: Value) -> axum::Router {
    axum::Router::new().route(
        "/v1/models",
        get(move |headers: axum::http::HeaderMap| {
            let seen = seen.clone();
            let body = body.clone();
            async move {
                seen.lock().unwrap().push(
                    headers
                        .get("authorization")
                        .map(|v| v.to_str().unwrap_or("").to_string()),
                );
                axum::Json(body)
            }
        }),
    )
}

/// `POST /api/providers/test` tests the form, not the saved provider: it lists the models of
/// the URL typed, sends a saved key only to the URL it was saved with (no key, not even the
/// server's environment's, anywhere else), a typed key where it is typed; it stores nothing,
/// follows no redirect, reads at most 1 MiB; `test` is no provider id.
#[tokio::test]
async fn a_provider_form_is_tested_before_saving_and_a_saved_key_goes_only_to_its_url() {
    let models = json!({"data": [{"id": "m1"}, {"id": "m2"}]});
    let (seen_a, seen_b) = (Arc::default(), Arc::default());
    let a = serve(listing(Arc::clone(&seen_a), models.clone())).await;
    let b = serve(listing(Arc::clone(&seen_b), models.clone())).await;
    let filler: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": format!("model-with-a-long-name-{i:08}"), "owned_by": "x"}))
        .collect();
    let big = serve(listing(Arc::default(), json!({ "data": filler }))).await;
    let moved = serve(axum::Router::new().route(
        "/v1/models",
        get({
            let a = a.clone();
            move || async move { axum::response::Redirect::temporary(&format!("{a}/models")) }
        }),
    ))
    .await;
    let s = TestServer::start(Opts::default()).await;
    let (st, v) = s
        .send(
            reqwest::Method::PUT,
            "/api/providers/p1",
            json!({"kind": "openai", "base_url": a, "model": "m1", "api_key": "sk-saved"}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    let test = |body: Value| s.post("/api/providers/test", body);

    // The saved provider's URL: its key.
    let (st, v) =
        test(json!({"id": "p1", "kind": "openai", "base_url": format!("{a}/"), "model": "m2"}))
            .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["key"], "saved");
    assert_eq!(v["model_listed"], true);
    let ids: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["m1", "m2"]);
    assert_eq!(
        seen_a.lock().unwrap().last().unwrap().as_deref(),
        Some("Bearer sk-saved")
    );

    // Another URL in the same form: no key at all.
    let (st, v) = test(json!({"id": "p1", "kind": "openai", "base_url": b, "model": "nope"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["key"], "none");
    assert_eq!(v["model_listed"], false);
    assert_eq!(
        seen_b.lock().unwrap().last().unwrap(),
        &None,
        "the saved key stays with its URL"
    );
    // A key typed in the form goes where the form says, this once.
    let (st, v) = test(json!({"kind": "openai", "base_url": b, "api_key": "sk-typed"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["key"], "typed");
    assert!(v["model_listed"].is_null());
    assert_eq!(
        seen_b.lock().unwrap().last().unwrap().as_deref(),
        Some("Bearer sk-typed")
    );

    // More than 1 MiB, or a redirect: refused (the redirect is not followed).
    let before = seen_a.lock().unwrap().len();
    for url in [&big, &moved] {
        let (st, v) = test(json!({"kind": "openai", "base_url": url})).await;
        assert_eq!(st, 502, "{url}: {v}");
    }
    assert_eq!(
        seen_a.lock().unwrap().len(),
        before,
        "the redirect led nowhere"
    );

    // Nothing was stored; unknown ids and bad forms are refused; `test` is not an id.
    let (_, list) = s.get("/api/providers").await;
    let stored: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert!(
        !stored.contains(&"test") && stored.contains(&"p1"),
        "{list}"
    );
    let (st, _) = test(json!({"id": "ghost", "kind": "openai", "base_url": a})).await;
    assert_eq!(st, 404);
    let (st, _) = test(json!({"kind": "gopher", "base_url": a})).await;
    assert_eq!(st, 422);
    let (st, v) = s
        .send(
            reqwest::Method::PUT,
            "/api/providers/test",
            json!({"kind": "openai", "base_url": a, "model": "m1"}),
        )
        .await;
    assert_eq!(st, 405, "the test's own path saves nothing: {v}");
    s.stop().await;
}
