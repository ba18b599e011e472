//! OpenAI-compatible Chat Completions over SSE (OpenAI, Ollama, llama.cpp server, vLLM,
//! DeepSeek, OpenRouter, LM Studio). Handles tool-call deltas split across chunks and interleaved
//! for parallel calls, `reasoning_content`, the trailing usage chunk, `[DONE]`, keep-alive
//! comments, and errors sent inside a 200 stream. A stream that ends without a finish reason is
//! `Truncated`: its partial tool calls are never executed.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::sse::SseDecoder;
use super::{
    ChatMessage, ChatRequest, EventStream, FinishReason, NetPolicy, Provider, ProviderError,
    ProviderEvent,
};
use crate::protocol::Usage;

pub struct OpenAi {
    client: crate::http_client::Lazy,
    base: String,
    key: Option<String>,
    model: String,
    net: NetPolicy,
    /// Context windows the model list gives, fetched once.
    windows: Arc<tokio::sync::OnceCell<HashMap<String, u64>>>,
    /// What the server says of each model asked about (see `server`), asked once each.
    facts: Arc<tokio::sync::Mutex<HashMap<String, super::server::ServerFacts>>>,
    /// The server's kind once known: Ollama's requests go to its own chat endpoint.
    kind: Arc<std::sync::OnceLock<super::server::ServerKind>>,
    /// The server answered no tokenizer request: it is not asked again.
    no_tokenizer: Arc<std::sync::atomic::AtomicBool>,
}

impl OpenAi {
    pub fn new(
        base: &str,
        key: Option<String>,
        model: String,
        net: NetPolicy,
    ) -> Result<OpenAi, String> {
        let (client, base) = super::http_client(base, &net)?;
        Ok(OpenAi {
            client,
            base,
            key: key.filter(|k| !k.is_empty()),
            model,
            net,
            windows: Arc::default(),
            facts: Arc::default(),
            kind: Arc::default(),
            no_tokenizer: Arc::default(),
        })
    }

    fn body(&self, req: &ChatRequest) -> Value {
        if req.calls_as_text {
            return self.text_body(req);
        }
        let mut messages = vec![json!({"role": "system", "content": &*req.system})];
        for m in req.messages.iter() {
            messages.push(match m {
                ChatMessage::User { text, images } if images.is_empty() => {
                    json!({"role": "user", "content": text})
                }
                ChatMessage::User { text, images } => {
                    let mut parts = vec![json!({"type": "text", "text": text})];
                    for i in images {
                        parts.push(match req.image_data(&i.id) {
                            Some(data) => json!({"type": "image_url", "image_url": {"url": format!("data:{};base64,{data}", i.media_type.as_str())}}),
                            None => json!({"type": "text", "text": super::IMAGE_GONE}),
                        });
                    }
                    json!({"role": "user", "content": parts})
                }
                ChatMessage::Assistant {
                    text, tool_calls, ..
                } => {
                    let mut v = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text.clone()) }});
                    if !tool_calls.is_empty() {
                        v["tool_calls"] = tool_calls
                            .iter()
                            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                            .collect();
                    }
                    v
                }
                ChatMessage::Tool { call_id, text, .. } => {
                    json!({"role": "tool", "tool_call_id": call_id, "content": text})
                }
            });
        }
        let mut body = json!({
            "model": req.model.as_deref().unwrap_or(&self.model),
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect();
        }
        if let Some(e) = req.reasoning_effort {
            body["reasoning_effort"] = json!(e.as_str());
        }
        if let Some(n) = req.max_tokens {
            body["max_tokens"] = json!(n);
        }
        body
    }
}

impl OpenAi {
    /// `toolCalls: text`: no `tools`; the system prompt describes them and how to call one, in
    /// the form the model's family is trained on (`textcalls::Family`: Hermes/Qwen's
    /// `<tool_call>`, Qwen3-Coder's XML, Mistral's `[TOOL_CALLS]`, Llama 3's `<|python_tag|>`;
    /// the parsers read every form back); earlier calls are written into the assistant's text
    /// the same way and their results sent as one user message per turn, so a chat template
    /// without tool support takes the conversation.
    fn text_body(&self, req: &ChatRequest) -> Value {
        let model = req.model.as_deref().unwrap_or(&self.model);
        let family = super::textcalls::Family::of(model);
        let mut system = req.system.to_string();
        if !req.tools.is_empty() {
            system.push_str(&match req.constraint {
                Some(_) => super::constrain::json_prompt(&req.tools),
                None => super::textcalls::tools_prompt(&req.tools, family),
            });
        }
        let mut messages: Vec<Value> = vec![json!({"role": "system", "content": system})];
        // The last message holds call results (the next result joins it).
        let mut results_open = false;
        for m in req.messages.iter() {
            match m {
                ChatMessage::User { text, .. } => {
                    results_open = false;
                    messages.push(json!({"role": "user", "content": text}));
                }
                ChatMessage::Assistant {
                    text, tool_calls, ..
                } => {
                    // Written back in the form the model is told to write (a constrained model
                    // sees its earlier replies as the JSON objects it was held to).
                    let content = match req.constraint {
                        Some(_) => super::constrain::written_reply(text, tool_calls),
                        None => {
                            let mut content = text.clone();
                            for c in tool_calls {
                                if !content.is_empty() {
                                    content.push('\n');
                                }
                                content.push_str(&super::textcalls::written_call(
                                    &c.name,
                                    &c.arguments,
                                    family,
                                ));
                            }
                            content
                        }
                    };
                    results_open = false;
                    messages.push(json!({"role": "assistant", "content": content}));
                }
                ChatMessage::Tool { text, .. } => {
                    let response = match req.constraint {
                        Some(_) => format!("<tool_response>\n{text}\n</tool_response>"),
                        None => super::textcalls::written_result(text, family),
                    };
                    // Results of one turn's calls go as one user message (templates that want
                    // user and assistant to alternate take it).
                    match messages.last_mut() {
                        Some(last) if last["role"] == "user" && results_open => {
                            let joined = format!(
                                "{}\n{response}",
                                last["content"].as_str().unwrap_or_default()
                            );
                            last["content"] = Value::String(joined);
                        }
                        _ => messages.push(json!({"role": "user", "content": response})),
                    }
                    results_open = true;
                }
            }
        }
        let mut body = json!({
            "model": model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(e) = req.reasoning_effort {
            body["reasoning_effort"] = json!(e.as_str());
        }
        if let Some(n) = req.max_tokens {
            body["max_tokens"] = json!(n);
        }
        if let Some(c) = req.constraint {
            c.apply(&mut body, &req.tools);
        }
        body
    }
}

fn net_error(e: reqwest::Error) -> ProviderError {
    if e.is_timeout() {
        ProviderError::Timeout(e.without_url().to_string())
    } else {
        ProviderError::Network(e.without_url().to_string())
    }
}

fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = h.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    v.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Read an error body, bounded.
pub(crate) async fn error_body(resp: reqwest::Response) -> String {
    let mut out = Vec::new();
    let mut s = resp.bytes_stream();
    while let Some(Ok(chunk)) = s.next().await {
        out.extend_from_slice(&chunk);
        if out.len() > 64 * 1024 {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Send with a first-byte timeout and classify HTTP errors.
pub(crate) async fn send(
    rb: reqwest::RequestBuilder,
    first_byte: Duration,
) -> Result<reqwest::Response, ProviderError> {
    let resp = match tokio::time::timeout(first_byte, rb.send()).await {
        Err(_) => {
            return Err(ProviderError::Timeout(format!(
                "no response within {} s",
                first_byte.as_secs()
            )));
        }
        Ok(Err(e)) => return Err(net_error(e)),
        Ok(Ok(r)) => r,
    };
    let status = resp.status().as_u16();
    if status != 200 {
        let ra = retry_after(resp.headers());
        let body = error_body(resp).await;
        return Err(ProviderError::from_status(status, &body, ra));
    }
    Ok(resp)
}

/// The window a model list entry gives: OpenRouter `context_length`, vLLM `max_model_len`,
/// LM Studio `max_context_length`, others `context_window` or `max_input_tokens`.
fn listed_window(m: &Value) -> Option<u64> {
    [
        "context_length",
        "context_window",
        "max_model_len",
        "max_context_length",
        "max_input_tokens",
    ]
    .iter()
    .find_map(|k| m.get(*k).and_then(Value::as_u64))
    .filter(|w| *w > 0)
}

/// `GET …/models` → the windows of the models that give one.
async fn model_windows(rb: reqwest::RequestBuilder, first_byte: Duration) -> HashMap<String, u64> {
    let Ok(resp) = send(rb, first_byte).await else {
        return HashMap::new();
    };
    let Ok(v) = resp.json::<Value>().await else {
        return HashMap::new();
    };
    v.get("data")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| Some((m.get("id")?.as_str()?.to_string(), listed_window(m)?)))
                .collect()
        })
        .unwrap_or_default()
}

/// `GET …/models` → each id and the window it gives, if any.
async fn listed_models(
    rb: reqwest::RequestBuilder,
    net: NetPolicy,
) -> Result<Vec<(String, Option<u64>)>, ProviderError> {
    let resp = send(rb, net.first_byte).await?;
    let v = json_within(resp, net.list_bytes).await?;
    Ok(v.get("data")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| Some((m.get("id")?.as_str()?.to_string(), listed_window(m))))
                .collect()
        })
        .unwrap_or_default())
}

/// A response body as JSON, read to at most `max` bytes (a larger one is refused, not cut).
pub(crate) async fn json_within(
    mut resp: reqwest::Response,
    max: usize,
) -> Result<Value, ProviderError> {
    let too_big = || ProviderError::Protocol(format!("the answer is larger than {max} bytes"));
    if resp.content_length().is_some_and(|n| n > max as u64) {
        return Err(too_big());
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| ProviderError::Protocol(e.to_string()))?
    {
        if body.len() + chunk.len() > max {
            return Err(too_big());
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| ProviderError::Protocol(e.to_string()))
}

/// `GET …/models` → the `data[].id` list (OpenAI and Anthropic share this shape).
pub(crate) async fn model_ids(
    rb: reqwest::RequestBuilder,
    net: NetPolicy,
) -> Result<Vec<String>, ProviderError> {
    Ok(listed_models(rb, net)
        .await?
        .into_iter()
        .map(|(id, _)| id)
        .collect())
}

#[derive(Default)]
struct CallAcc {
    started: bool,
    id: String,
    name: String,
    pending: String,
}

struct Parser {
    calls: BTreeMap<usize, CallAcc>,
    finish: Option<FinishReason>,
    done: bool,
}

/// One streamed chunk, read in place (its strings borrowed where they hold no escapes):
/// only the fields the client uses.
#[derive(serde::Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
    #[serde(default, borrow)]
    error: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<ToolCallChunk<'a>>>,
}

#[derive(serde::Deserialize)]
struct ToolCallChunk<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default, borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<FunctionChunk<'a>>,
}

#[derive(serde::Deserialize)]
struct FunctionChunk<'a> {
    #[serde(default, borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize, Default)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<CachedDetails>,
    #[serde(default)]
    completion_tokens_details: Option<ReasoningDetails>,
}

#[derive(serde::Deserialize, Default)]
struct CachedDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(serde::Deserialize, Default)]
struct ReasoningDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

/// A non-empty string field.
fn text(s: Option<std::borrow::Cow<'_, str>>) -> Option<String> {
    s.filter(|s| !s.is_empty())
        .map(std::borrow::Cow::into_owned)
}

impl Parser {
    fn data(&mut self, data: &str, out: &mut VecDeque<ProviderEvent>) -> Result<(), ProviderError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Chunk<'_> = serde_json::from_str(data)
            .map_err(|e| ProviderError::Protocol(format!("invalid JSON chunk: {e}")))?;
        if chunk.error.is_some_and(|e| e.get() != "null") {
            return Err(ProviderError::from_stream_error(data));
        }
        if let Some(u) = chunk.usage {
            out.push_back(ProviderEvent::Usage(Usage {
                input_tokens: u.prompt_tokens.unwrap_or(0),
                output_tokens: u.completion_tokens.unwrap_or(0),
                cached_input_tokens: u
                    .prompt_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0),
                reasoning_tokens: u
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens)
                    .unwrap_or(0),
                cost_usd: None,
                estimated: false,
            }));
        }
        let Some(choice) = chunk.choices.into_iter().flatten().next() else {
            return Ok(());
        };
        if let Some(delta) = choice.delta {
            if let Some(r) = text(delta.reasoning_content).or_else(|| text(delta.reasoning)) {
                out.push_back(ProviderEvent::ReasoningDelta(r));
            }
            if let Some(t) = text(delta.content) {
                out.push_back(ProviderEvent::TextDelta(t));
            }
            for (pos, c) in delta.tool_calls.into_iter().flatten().enumerate() {
                self.tool_call(pos, c, out);
            }
        }
        if let Some(fr) = choice.finish_reason {
            self.finish = Some(match fr.as_ref() {
                "stop" => FinishReason::Stop,
                "tool_calls" | "function_call" => FinishReason::ToolCalls,
                "length" => FinishReason::Length,
                "content_filter" => FinishReason::ContentFilter,
                _ => FinishReason::Other,
            });
        }
        Ok(())
    }

    /// A piece of a streamed tool call: its start once its name is known, then its arguments.
    fn tool_call(&mut self, pos: usize, c: ToolCallChunk<'_>, out: &mut VecDeque<ProviderEvent>) {
        let index = c.index.map_or(pos, |i| i as usize);
        let acc = self.calls.entry(index).or_default();
        if let Some(id) = text(c.id)
            && acc.id.is_empty()
        {
            acc.id = id;
        }
        let (name, arguments) = c
            .function
            .map_or((None, None), |f| (text(f.name), f.arguments));
        if let Some(n) = name
            && acc.name.is_empty()
        {
            acc.name = n;
        }
        if let Some(a) = arguments {
            acc.pending.push_str(&a);
        }
        if !acc.started && !acc.name.is_empty() {
            acc.started = true;
            if acc.id.is_empty() {
                acc.id = format!("call_{}", crate::util::new_id());
            }
            out.push_back(ProviderEvent::ToolCallStart {
                index,
                id: acc.id.clone(),
                name: acc.name.clone(),
            });
        }
        if acc.started && !acc.pending.is_empty() {
            out.push_back(ProviderEvent::ToolCallDelta {
                index,
                arguments: std::mem::take(&mut acc.pending),
            });
        }
    }
}

/// What reads an OpenAI-compatible chat-completion stream: each SSE event in, provider events
/// out, `true` once the model has finished (at `[DONE]`, or at the body's end after a finish
/// reason). The live client and the replay of a recorded stream use it alike.
pub(crate) fn stream_parser()
-> impl FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
+ Send
+ 'static {
    let mut parser = Parser {
        calls: BTreeMap::new(),
        finish: None,
        done: false,
    };
    move |event, data, out| {
        if event == Some("error") {
            return Err(ProviderError::from_stream_error(data));
        }
        if event == Some(EOF_EVENT) {
            // Some servers omit [DONE]; a finish reason is enough.
            return match parser.finish {
                Some(fr) if !parser.done => {
                    out.push_back(ProviderEvent::Finish(fr));
                    Ok(true)
                }
                _ => Ok(false),
            };
        }
        parser.data(data, out)?;
        // Finished at [DONE] (the usage chunk may follow the finish reason).
        if parser.done {
            let Some(fr) = parser.finish else {
                return Err(ProviderError::Truncated(
                    "[DONE] without a finish reason: the server cut the reply short (llama-cpp-python's server does when another request arrives; start it with --interrupt_requests False)".into(),
                ));
            };
            out.push_back(ProviderEvent::Finish(fr));
            return Ok(true);
        }
        Ok(false)
    }
}

pub(crate) use super::sse::EOF_EVENT;

/// Send a streaming request and read its SSE body with `parse` (every SSE provider's call).
pub(crate) fn open_sse<P>(
    rb: reqwest::RequestBuilder,
    net: NetPolicy,
    parse: P,
) -> BoxFuture<'static, Result<EventStream, ProviderError>>
where
    P: FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
        + Send
        + 'static,
{
    open_framed(rb, net, SseDecoder::new(), parse)
}

/// [`open_sse`] with a decoder of its own (Ollama's newline-delimited JSON).
fn open_framed<P>(
    rb: reqwest::RequestBuilder,
    net: NetPolicy,
    dec: SseDecoder,
    parse: P,
) -> BoxFuture<'static, Result<EventStream, ProviderError>>
where
    P: FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
        + Send
        + 'static,
{
    Box::pin(async move {
        let resp = send(rb, net.first_byte).await?;
        Ok(framed_stream(
            resp.bytes_stream().boxed(),
            dec,
            net.idle,
            parse,
        ))
    })
}

/// Turn an SSE response body into provider events with an idle timeout between chunks.
pub(crate) fn event_stream<P>(
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    idle: Duration,
    parse: P,
) -> EventStream
where
    P: FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
        + Send
        + 'static,
{
    framed_stream(body, SseDecoder::new(), idle, parse)
}

/// [`event_stream`] with a decoder of its own (Ollama's newline-delimited JSON).
pub(crate) fn framed_stream<P>(
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    dec: SseDecoder,
    idle: Duration,
    mut parse: P,
) -> EventStream
where
    P: FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
        + Send
        + 'static,
{
    struct St<P> {
        body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
        dec: SseDecoder,
        out: VecDeque<ProviderEvent>,
        finished: bool,
        ended: bool,
        parse: P,
    }
    let st = St {
        body,
        dec,
        out: VecDeque::new(),
        finished: false,
        ended: false,
        parse: move |e: Option<&str>, d: &str, o: &mut VecDeque<ProviderEvent>| parse(e, d, o),
    };
    futures::stream::unfold(st, move |mut st| async move {
        loop {
            if let Some(ev) = st.out.pop_front() {
                return Some((Ok(ev), st));
            }
            if st.ended {
                return None;
            }
            if st.finished {
                st.ended = true;
                continue;
            }
            let next = match tokio::time::timeout(idle, st.body.next()).await {
                Err(_) => {
                    st.ended = true;
                    return Some((
                        Err(ProviderError::Timeout(format!(
                            "no data for {} s mid-stream",
                            idle.as_secs()
                        ))),
                        st,
                    ));
                }
                Ok(n) => n,
            };
            let events = match next {
                Some(Ok(chunk)) => match st.dec.push(&chunk) {
                    Ok(evs) => evs,
                    Err(e) => {
                        st.ended = true;
                        return Some((Err(ProviderError::Protocol(e)), st));
                    }
                },
                Some(Err(e)) => {
                    st.ended = true;
                    return Some((
                        Err(ProviderError::Truncated(format!(
                            "connection broke: {}",
                            e.without_url()
                        ))),
                        st,
                    ));
                }
                None => {
                    let mut last: Vec<(Option<String>, String)> = st
                        .dec
                        .finish()
                        .into_iter()
                        .map(|e| (e.event, e.data))
                        .collect();
                    // Tell the parser the body ended: it may finish without [DONE].
                    last.push((Some(EOF_EVENT.to_string()), String::new()));
                    let mut done = false;
                    for (event, data) in &last {
                        match (st.parse)(event.as_deref(), data, &mut st.out) {
                            Ok(fin) => done |= fin,
                            Err(err) => {
                                st.ended = true;
                                return Some((Err(err), st));
                            }
                        }
                    }
                    if !done {
                        st.ended = true;
                        st.out.clear();
                        return Some((
                            Err(ProviderError::Truncated(
                                "the stream closed before the model finished".into(),
                            )),
                            st,
                        ));
                    }
                    st.finished = true;
                    continue;
                }
            };
            for e in events {
                match (st.parse)(e.event.as_deref(), &e.data, &mut st.out) {
                    Ok(true) => st.finished = true,
                    Ok(false) => {}
                    Err(err) => {
                        st.ended = true;
                        return Some((Err(err), st));
                    }
                }
            }
        }
    })
    .boxed()
}

impl Provider for OpenAi {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'static, Result<EventStream, ProviderError>> {
        let client = match self.client.get() {
            Ok(c) => c,
            Err(e) => return super::no_client(e),
        };
        let net = self.net;
        if self.kind.get() == Some(&super::server::ServerKind::Ollama) {
            // Its own endpoint: the only one that takes the window (`options.num_ctx`).
            let body = super::ollama::chat_body(self.body(&req), req.num_ctx, req.max_tokens);
            let mut rb = client
                .post(format!("{}/api/chat", super::server::root_of(&self.base)))
                .json(&body);
            if let Some(k) = &self.key {
                rb = rb.bearer_auth(k);
            }
            return open_framed(rb, net, SseDecoder::lines(), super::ollama::stream_parser());
        }
        let mut rb = client
            .post(format!("{}/chat/completions", self.base))
            .header("accept", "text/event-stream")
            .json(&self.body(&req));
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        open_sse(rb, net, stream_parser())
    }

    fn list_models(&self) -> BoxFuture<'static, Result<Vec<String>, ProviderError>> {
        let client = match self.client.get() {
            Ok(c) => c,
            Err(e) => return super::no_client(e),
        };
        let mut rb = client.get(format!("{}/models", self.base));
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        let net = self.net;
        Box::pin(model_ids(rb, net))
    }

    fn model(&self) -> String {
        self.model.clone()
    }

    fn describe_models(
        &self,
    ) -> BoxFuture<'static, Result<Vec<super::server::ListedModel>, ProviderError>> {
        let client = match self.client.get() {
            Ok(c) => c,
            Err(e) => return super::no_client(e),
        };
        let mut rb = client.get(format!("{}/models", self.base));
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        let (base, key, net) = (self.base.clone(), self.key.clone(), self.net);
        Box::pin(async move {
            let listed = listed_models(rb, net).await?;
            Ok(super::server::describe(&client, &base, key.as_deref(), listed).await)
        })
    }

    fn context_window(&self, model: &str) -> BoxFuture<'static, Option<u64>> {
        let Ok(client) = self.client.get() else {
            return Box::pin(async { None });
        };
        let mut rb = client.get(format!("{}/models", self.base));
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        let wait = self.net.first_byte.min(Duration::from_secs(10));
        let cell = self.windows.clone();
        let model = model.to_string();
        Box::pin(async move {
            cell.get_or_init(|| model_windows(rb, wait))
                .await
                .get(&model)
                .copied()
        })
    }

    fn counts_tokens(&self) -> bool {
        // A cloud API has no tokenizer endpoint: it is never sent the prompt to count.
        !self.no_tokenizer.load(std::sync::atomic::Ordering::Relaxed)
            && super::server::probed(&self.base)
    }

    fn count_tokens(
        &self,
        model: &str,
        texts: Vec<String>,
    ) -> BoxFuture<'static, Option<Vec<u64>>> {
        use std::sync::atomic::Ordering;
        let Ok(client) = self.client.get() else {
            return Box::pin(async { None });
        };
        if !self.counts_tokens() {
            return Box::pin(async { None });
        }
        let kind = self.kind.get().copied().unwrap_or_default();
        let (root, key, model) = (
            super::server::root_of(&self.base).to_string(),
            self.key.clone(),
            model.to_string(),
        );
        let none = self.no_tokenizer.clone();
        Box::pin(async move {
            let mut counts = Vec::with_capacity(texts.len());
            for text in texts {
                let asked =
                    super::server::tokens(&client, &root, key.as_deref(), kind, &model, text).await;
                match asked {
                    Some(n) => counts.push(n),
                    None => {
                        none.store(true, Ordering::Relaxed);
                        return None;
                    }
                }
            }
            Some(counts)
        })
    }

    fn server_facts(&self, model: &str) -> BoxFuture<'static, super::server::ServerFacts> {
        let Ok(client) = self.client.get() else {
            return Box::pin(async { super::server::ServerFacts::default() });
        };
        let (facts, kind) = (self.facts.clone(), self.kind.clone());
        let (base, key, model) = (self.base.clone(), self.key.clone(), model.to_string());
        Box::pin(async move {
            // Held while asking: runs starting together ask once.
            let mut known = facts.lock().await;
            if let Some(f) = known.get(&model) {
                return f.clone();
            }
            let f = super::server::probe(&client, &base, key.as_deref(), &model).await;
            // A server not reachable yet (started after Tradewind) is asked again next time.
            if !f.unreached {
                let _ = kind.set(f.kind);
                known.insert(model, f.clone());
            }
            f
        })
    }
}
