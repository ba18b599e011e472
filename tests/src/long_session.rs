//! A long scripted session against a model with a small window that it enforces: every turn
//! the model reads a 6 KB file and answers; a prompt over the window is refused with the
//! provider's `context_length` error, as a real one would. Used by the test suite (a few dozen
//! turns) and the bench (500).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::openai_mock::{
    Mock, Reply, ev_done, ev_finish, ev_text, ev_usage_auto, prompt_tokens_of, tool_reply,
};
use crate::{Opts, TestServer, of_type};

/// The window the scripted model enforces (tokens, ~4 characters each).
pub const WINDOW: u64 = 8_000;

/// What a long session did.
#[derive(Debug, Default)]
pub struct LongSession {
    pub turns: usize,
    pub failed_runs: usize,
    /// `context_length` errors the model returned (each one compacted and retried).
    pub refusals: usize,
    /// Compactions that summarised (a model call each).
    pub compactions: usize,
    /// Compactions that only pruned old tool outputs (free).
    pub prunes: usize,
    /// What each summary call cost (USD), as its event reports it.
    pub compaction_costs: Vec<f64>,
    /// Largest prompt the model was sent, in its own count.
    pub largest_prompt_tokens: u64,
    pub wall: Duration,
}

fn summary_call(req: &Value) -> bool {
    req["messages"][0]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("You compact"))
}

/// The scripted model: enforce the window, summarise, read a file, answer.
fn model(req: &Value) -> Reply {
    if prompt_tokens_of(req) > WINDOW {
        return Reply::Status {
            status: 400,
            headers: vec![],
            body: json!({"error": {"message": format!("This model's maximum context length is {WINDOW} tokens"), "code": "context_length_exceeded"}}).to_string(),
        };
    }
    let text = if summary_call(req) {
        "## Goal\nKeep working through the numbered requests.\n## Progress and next step\nRead notes.txt each turn and answered; next: the following request.".to_string()
    } else {
        let last_is_tool = req["messages"]
            .as_array()
            .and_then(|m| m.last())
            .is_some_and(|m| m["role"] == "tool");
        if !last_is_tool {
            return tool_reply("call_1", "read_file", &json!({"path": "notes.txt"}));
        }
        "Read it; the notes are unchanged. ".repeat(8)
    };
    Reply::Sse {
        chunks: vec![
            ev_text(&text),
            ev_finish("stop"),
            ev_usage_auto((text.len() / 4) as u64),
            ev_done(),
        ],
        delay: Duration::ZERO,
    }
}

fn config(cfg: &mut tradewind::config::Config) {
    let mut m = BTreeMap::new();
    m.insert(
        "openai/test-model".to_string(),
        tradewind::models::ModelOverride {
            context_window: Some(WINDOW),
            price: Some(tradewind::models::Price {
                input: 3.0,
                output: 15.0,
                cached_input: None,
            }),
            vision: None,
            tool_calls: None,
            ..Default::default()
        },
    );
    cfg.models = tradewind::models::Catalog::new(m);
}

/// Run `turns` prompts, one after the other, in one session.
pub async fn run(turns: usize) -> LongSession {
    let mock = Mock::default();
    *mock.responder.lock().unwrap() = Some(model);
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        tweak: Some(config),
        network: Some(tradewind::config::NetworkSettings {
            connect_timeout_ms: 2000,
            first_byte_timeout_ms: 10_000,
            idle_timeout_ms: 10_000,
            max_retries: 0,
        }),
        ..Opts::default()
    })
    .await;
    std::fs::write(
        s.workspace.path().join("notes.txt"),
        "These are the project notes, line after line.\n".repeat(130),
    )
    .unwrap();
    let sid = s.create_session("ask").await;
    let t0 = Instant::now();
    let mut out = LongSession {
        turns,
        ..LongSession::default()
    };
    let mut seen = 0;
    for i in 0..turns {
        let run = s
            .prompt(
                &sid,
                &format!("Request {i}: read notes.txt and tell me if it changed."),
            )
            .await;
        let end = s.wait_run_finished(&sid, &run).await;
        if end["status"] != "completed" {
            out.failed_runs += 1;
        }
        // This turn's events (the log is read a turn at a time: it grows past a page).
        let (_, page) = s
            .get(&format!(
                "/api/sessions/{sid}/events?after={seen}&limit=5000"
            ))
            .await;
        let events = page["data"].as_array().cloned().unwrap_or_default();
        seen = events
            .last()
            .and_then(|e| e["seq"].as_i64())
            .unwrap_or(seen);
        for c in of_type(&events, "context_compacted") {
            if c["summary"] == "" {
                out.prunes += 1;
                continue;
            }
            out.compactions += 1;
            if c["trigger"] == "overflow" {
                out.refusals += 1;
            }
            out.compaction_costs
                .push(c["usage"]["cost_usd"].as_f64().unwrap_or(f64::NAN));
        }
        for u in of_type(&events, "model_usage") {
            let t = u["usage"]["input_tokens"].as_u64().unwrap_or(0);
            out.largest_prompt_tokens = out.largest_prompt_tokens.max(t);
        }
    }
    out.wall = t0.elapsed();
    s.stop().await;
    out
}
