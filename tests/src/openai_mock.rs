//! A scripted model server over real sockets and real SSE. Each request to
//! `/v1/chat/completions` (OpenAI-compatible) or `/v1/messages` (Anthropic) takes the next scripted
//! reply; every request body and its headers are recorded so tests can check what the client sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};

/// One scripted reply.
#[derive(Clone, Debug)]
pub enum Reply {
    /// SSE body: each string is written as one network chunk, with `delay` between chunks.
    Sse {
        chunks: Vec<String>,
        delay: Duration,
    },
    /// An HTTP error status with headers and body.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Accept the request and never answer.
    Hang,
    /// Send these chunks, then close the connection abruptly (no [DONE]).
    Cut { chunks: Vec<String> },
    /// Raw byte chunks (to split UTF-8 sequences across network writes).
    Bytes { chunks: Vec<Vec<u8>> },
    /// Send these chunks, then stay silent for `gap` before closing.
    Stall { chunks: Vec<String>, gap: Duration },
    /// Answer with `then` once as many requests as the barrier counts wait at it (requests
    /// that must all be in flight together).
    AfterBarrier {
        barrier: Arc<tokio::sync::Barrier>,
        then: Box<Reply>,
    },
}

/// Makes a reply from a request body.
pub type Responder = fn(&Value) -> Reply;

#[derive(Clone, Default)]
pub struct Mock {
    replies: Arc<Mutex<VecDeque<Reply>>>,
    pub requests: Arc<Mutex<Vec<Value>>>,
    /// When each chunk of an `Sse` reply was handed to the connection (for latency benches).
    pub sent: Arc<Mutex<Vec<std::time::Instant>>>,
    /// The request headers of each call (lower-case names).
    pub headers: Arc<Mutex<Vec<std::collections::HashMap<String, String>>>>,
    /// When set, replies come from this function of the request once the script is empty, and
    /// requests are not recorded (long benches).
    pub responder: Arc<Mutex<Option<Responder>>>,
    /// Scripts of their own for requests whose first user message contains a marker (parent
    /// and subagent sessions calling at once each get their own replies, in order).
    routes: Arc<Mutex<Vec<Route>>>,
}

/// A marker and the replies of the requests it picks.
type Route = (String, VecDeque<Reply>);

/// The names of the tools a request offered.
pub fn tool_names(req: &Value) -> Vec<String> {
    req["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The text of a request's first user message.
fn first_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default()
}

pub fn ev_text(t: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": null}]})
    )
}
pub fn ev_reasoning(t: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"reasoning_content": t}}]})
    )
}
pub fn ev_tool_start(index: usize, id: &str, name: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]})
    )
}
pub fn ev_tool_args(index: usize, args: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "function": {"arguments": args}}]}}]})
    )
}
pub fn ev_finish(reason: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    )
}
pub fn ev_usage(i: u64, o: u64) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": i, "completion_tokens": o}})
    )
}
/// A usage chunk whose `prompt_tokens` the mock fills in from the request it answers (its
/// messages and tools, ~4 characters per token), as a real server counts them.
pub fn ev_usage_auto(o: u64) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": AUTO, "completion_tokens": o}})
    )
}
const AUTO: &str = "auto-prompt-tokens";

/// What `ev_usage_auto` fills in: the request's characters over four.
pub fn prompt_tokens_of(body: &Value) -> u64 {
    let chars = body["messages"].to_string().len() + body["tools"].to_string().len();
    (chars / 4) as u64
}

/// A plain text answer whose usage counts the request's tokens.
pub fn text_reply_counted(text: &str) -> Reply {
    Reply::Sse {
        chunks: vec![
            ev_text(text),
            ev_finish("stop"),
            ev_usage_auto((text.len() / 4 + 1) as u64),
            ev_done(),
        ],
        delay: Duration::ZERO,
    }
}

pub fn ev_done() -> String {
    "data: [DONE]\n\n".into()
}

/// A plain text answer.
pub fn text_reply(text: &str) -> Reply {
    Reply::Sse {
        chunks: vec![ev_text(text), ev_finish("stop"), ev_usage(10, 2), ev_done()],
        delay: Duration::ZERO,
    }
}

/// A single tool call, its arguments split in two chunks.
pub fn tool_reply(id: &str, name: &str, args: &Value) -> Reply {
    let s = args.to_string();
    let mid = s.len() / 2;
    let (a, b) = s.split_at(mid);
    Reply::Sse {
        chunks: vec![
            ev_tool_start(0, id, name),
            ev_tool_args(0, a),
            ev_tool_args(0, b),
            ev_finish("tool_calls"),
            ev_done(),
        ],
        delay: Duration::ZERO,
    }
}

impl Mock {
    pub fn push(&self, r: Reply) {
        self.replies.lock().unwrap().push_back(r);
    }

    /// Script replies, in order, for requests whose first user message contains `marker`.
    pub fn script_for(&self, marker: &str, replies: impl IntoIterator<Item = Reply>) {
        for r in replies {
            self.push_for(marker, r);
        }
    }

    /// Script a reply for requests whose first user message contains `marker`.
    pub fn push_for(&self, marker: &str, r: Reply) {
        let mut routes = self.routes.lock().unwrap();
        match routes.iter_mut().find(|(m, _)| m == marker) {
            Some((_, q)) => q.push_back(r),
            None => routes.push((marker.to_string(), VecDeque::from([r]))),
        }
    }

    pub fn request_count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    /// Serve on 127.0.0.1:0; returns the base URL (`http://127.0.0.1:PORT/v1`).
    pub async fn serve(&self) -> String {
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(chat))
            // The Anthropic Messages endpoint shares the script: the test writes its SSE dialect.
            .route("/v1/messages", post(chat))
            // So does the Responses API.
            .route("/v1/responses", post(chat))
            .route(
                "/v1/models",
                get(|| async {
                    axum::Json(json!({"data": [{"id": "test-model"}, {"id": "other"}, {"id": "windowed", "context_length": 12_345}]}))
                }),
            )
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}/v1")
    }
}

async fn chat(
    State(m): State<Mock>,
    headers: axum::http::HeaderMap,
    body: axum::Json<Value>,
) -> Response {
    let prompt_tokens = prompt_tokens_of(&body.0);
    let responder = *m.responder.lock().unwrap();
    if let Some(f) = responder
        && m.replies.lock().unwrap().is_empty()
    {
        let reply = count_prompt(f(&body.0), prompt_tokens);
        return respond(reply, Arc::default()).await;
    }
    let first = first_user_text(&body.0);
    m.requests.lock().unwrap().push(body.0);
    m.headers.lock().unwrap().push(
        headers
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
    );
    let sent = m.sent.clone();
    let routed = m
        .routes
        .lock()
        .unwrap()
        .iter_mut()
        .find(|(marker, _)| first.contains(marker.as_str()))
        .map(|(_, q)| q.pop_front());
    let scripted = match routed {
        Some(r) => r,
        None => m.replies.lock().unwrap().pop_front(),
    };
    let mut reply = scripted.unwrap_or(Reply::Status {
        status: 500,
        headers: vec![],
        body: "no scripted reply".into(),
    });
    reply = count_prompt(reply, prompt_tokens);
    respond(reply, sent).await
}

/// Fill in the prompt tokens of an `ev_usage_auto` chunk.
fn count_prompt(mut reply: Reply, prompt_tokens: u64) -> Reply {
    if let Reply::Sse { chunks, .. } = &mut reply {
        let n = prompt_tokens.to_string();
        for c in chunks {
            *c = c.replace(&format!("\"{AUTO}\""), &n);
        }
    }
    reply
}

async fn respond(reply: Reply, sent: Arc<Mutex<Vec<std::time::Instant>>>) -> Response {
    match reply {
        Reply::AfterBarrier { barrier, then } => {
            barrier.wait().await;
            Box::pin(respond(*then, sent)).await
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut r = (
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                body,
            )
                .into_response();
            for (k, v) in headers {
                if let (Ok(k), Ok(v)) = (
                    axum::http::HeaderName::try_from(k),
                    HeaderValue::from_str(&v),
                ) {
                    r.headers_mut().insert(k, v);
                }
            }
            r
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::GATEWAY_TIMEOUT.into_response()
        }
        Reply::Sse { chunks, delay } => sse(
            chunks.into_iter().map(String::into_bytes).collect(),
            delay,
            None,
            false,
            Some(sent),
        ),
        Reply::Bytes { chunks } => sse(chunks, Duration::ZERO, None, false, None),
        Reply::Cut { chunks } => sse(
            chunks.into_iter().map(String::into_bytes).collect(),
            Duration::ZERO,
            None,
            true,
            None,
        ),
        Reply::Stall { chunks, gap } => sse(
            chunks.into_iter().map(String::into_bytes).collect(),
            Duration::ZERO,
            Some(gap),
            false,
            None,
        ),
    }
}

type SentLog = Arc<Mutex<Vec<std::time::Instant>>>;

fn sse(
    chunks: Vec<Vec<u8>>,
    delay: Duration,
    stall: Option<Duration>,
    cut: bool,
    sent: Option<SentLog>,
) -> Response {
    if let Some(s) = &sent {
        s.lock().unwrap().clear();
    }
    let stream = futures::stream::unfold((chunks.into_iter(), false), move |(mut it, stalled)| {
        let sent = sent.clone();
        async move {
            match it.next() {
                Some(c) => {
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    if let Some(s) = &sent {
                        s.lock().unwrap().push(std::time::Instant::now());
                    }
                    Some((Ok::<Bytes, std::io::Error>(Bytes::from(c)), (it, stalled)))
                }
                None => {
                    if let (Some(g), false) = (stall, stalled) {
                        tokio::time::sleep(g).await;
                    }
                    if cut && !stalled {
                        // Let the headers and chunks reach the client before the connection breaks.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        Some((Err(std::io::Error::other("cut")), (it, true)))
                    } else {
                        None
                    }
                }
            }
        }
    });
    let mut r = Response::new(Body::from_stream(stream));
    r.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    r
}

/// One Anthropic Messages SSE event: an `event:`/`data:` pair.
pub fn an(event: &str, data: Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// A whole Anthropic streamed answer of one text block.
pub fn an_text_reply(text: &str) -> Vec<String> {
    vec![
        an(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_2", "role": "assistant", "content": [], "usage": {"input_tokens": 40, "output_tokens": 1}}}),
        ),
        an(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        an(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ),
        an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        an(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 6}}),
        ),
        an("message_stop", json!({"type": "message_stop"})),
    ]
}
