//! Anthropic Messages API with native streaming and tool use.

use std::collections::VecDeque;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::openai::{EOF_EVENT, model_ids};
use super::{
    ChatMessage, ChatRequest, EventStream, FinishReason, NetPolicy, Provider, ProviderError,
    ProviderEvent, Thinking,
};
use crate::protocol::Usage;

pub struct Anthropic {
    client: crate::http_client::Lazy,
    base: String,
    key: Option<String>,
    model: String,
    net: NetPolicy,
}

const VERSION: &str = "2023-06-01";
/// A search the API ran on its side, kept among a reply's thinking blocks so it goes back as
/// it came (its `server_tool_use` and `web_search_tool_result` blocks, as a JSON array).
pub const SEARCH_MARK: &str = "anthropic-search:";
/// Searches the model may run in one reply (the API's `max_uses`).
const MAX_SEARCHES: u32 = 5;
/// Tokens an answer may take (besides a thinking budget).
const MAX_TOKENS: u32 = 8192;

/// Extended thinking's budget for a reasoning effort.
fn thinking_budget(e: crate::protocol::ReasoningEffort) -> u32 {
    use crate::protocol::ReasoningEffort as E;
    match e {
        E::Low => 2_048,
        E::Medium => 8_192,
        E::High => 16_384,
    }
}

/// Whether a model can think (extended thinking): every Claude from 3.7 on; an unknown name
/// (a compatible server) is given the benefit of the doubt.
fn thinks(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    ![
        "claude-2",
        "claude-instant",
        "claude-3-haiku",
        "claude-3-sonnet",
        "claude-3-opus",
        "claude-3-5",
    ]
    .iter()
    .any(|p| m.starts_with(p))
}

impl Anthropic {
    pub fn new(
        base: &str,
        key: Option<String>,
        model: String,
        net: NetPolicy,
    ) -> Result<Anthropic, String> {
        let (client, base) = super::http_client(base, &net)?;
        Ok(Anthropic {
            client,
            base,
            key: key.filter(|k| !k.is_empty()),
            model,
            net,
        })
    }

    fn body(&self, req: &ChatRequest) -> Value {
        let model = req.model.as_deref().unwrap_or(&self.model);
        let budget = req
            .reasoning_effort
            .filter(|_| thinks(model))
            .map(thinking_budget);
        // Consecutive blocks of the same role are merged: the API wants alternation.
        let mut messages: Vec<(String, Vec<Value>)> = Vec::new();
        let mut push = |role: &str, block: Value| match messages.last_mut() {
            Some((r, blocks)) if r == role => blocks.push(block),
            _ => messages.push((role.to_string(), vec![block])),
        };
        for m in req.messages.iter() {
            match m {
                ChatMessage::User { text, images } => {
                    // Images first, then the words about them (Anthropic's advice).
                    for i in images {
                        push(
                            "user",
                            match req.image_data(&i.id) {
                                Some(data) => {
                                    json!({"type": "image", "source": {"type": "base64", "media_type": i.media_type.as_str(), "data": data}})
                                }
                                None => json!({"type": "text", "text": super::IMAGE_GONE}),
                            },
                        );
                    }
                    push("user", json!({"type": "text", "text": text}));
                }
                ChatMessage::Assistant {
                    text,
                    tool_calls,
                    thinking,
                } => {
                    // Signed thinking goes back unchanged, first (only while thinking is on:
                    // without it the API refuses thinking blocks).
                    // (Another API's kept reasoning items are not Anthropic's to read.)
                    let kept = |th: &&Thinking, mark: &str| matches!(th, Thinking::Redacted(d) if d.starts_with(mark));
                    for th in thinking.iter().filter(|th| {
                        budget.is_some()
                            && !kept(th, super::responses::REASONING_MARK)
                            && !kept(th, SEARCH_MARK)
                    }) {
                        push(
                            "assistant",
                            match th {
                                Thinking::Signed { text, signature } => {
                                    json!({"type": "thinking", "thinking": text, "signature": signature})
                                }
                                Thinking::Redacted(data) => {
                                    json!({"type": "redacted_thinking", "data": data})
                                }
                            },
                        );
                    }
                    // The searches it ran, as they came.
                    for th in thinking {
                        if let Thinking::Redacted(d) = th
                            && let Some(blocks) = d.strip_prefix(SEARCH_MARK)
                            && let Ok(Value::Array(blocks)) = serde_json::from_str(blocks)
                        {
                            blocks.into_iter().for_each(|b| push("assistant", b));
                        }
                    }
                    if !text.is_empty() {
                        push("assistant", json!({"type": "text", "text": text}));
                    }
                    for c in tool_calls {
                        let input: Value =
                            serde_json::from_str(&c.arguments).unwrap_or_else(|_| json!({}));
                        push(
                            "assistant",
                            json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                        );
                    }
                }
                ChatMessage::Tool { call_id, text, .. } => push(
                    "user",
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": text}),
                ),
            }
        }
        // Prompt caching: breakpoints after the system prompt (tools and system, the same every
        // call of a run) and on the conversation's last block (the next call reads all of it
        // from the cache and pays only for what is new).
        if let Some(last) = messages
            .last_mut()
            .and_then(|(_, blocks)| blocks.last_mut())
        {
            last["cache_control"] = json!({"type": "ephemeral"});
        }
        let messages: Vec<Value> = messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        let mut body = json!({
            "model": model,
            "max_tokens": req.max_tokens.map_or(MAX_TOKENS, |n| u32::try_from(n).unwrap_or(u32::MAX)).saturating_add(budget.unwrap_or(0)),
            "system": [{"type": "text", "text": &*req.system, "cache_control": {"type": "ephemeral"}}],
            "messages": messages,
            "stream": true,
        });
        if let Some(b) = budget {
            body["thinking"] = json!({"type": "enabled", "budget_tokens": b});
        }
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        if let Some(kind) = &req.native_search {
            tools.push(json!({"type": &**kind, "name": "web_search", "max_uses": MAX_SEARCHES}));
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        body
    }

    fn request(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let rb = rb.header("anthropic-version", VERSION);
        match &self.key {
            Some(k) => rb.header("x-api-key", k),
            None => rb,
        }
    }
}

#[derive(Default)]
struct Parser {
    input_tokens: u64,
    output_tokens: u64,
    cached_input_tokens: u64,
    stop: Option<FinishReason>,
    /// The API's own tool calls (its searches) by block index: the block, its input's text.
    server_calls: std::collections::HashMap<usize, (Value, String)>,
}

/// A `web_search_tool_result` block and the `server_tool_use` it answers, as one search.
fn search_done(call: &Value, result: &Value) -> super::WebSearchDone {
    let content = &result["content"];
    let results = content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["type"] == "web_search_result")
        .filter_map(|r| {
            Some(crate::protocol::WebSource {
                url: r["url"].as_str()?.to_string(),
                title: r["title"].as_str().map(String::from),
            })
        })
        .collect();
    super::WebSearchDone {
        id: call["id"].as_str().unwrap_or_default().to_string(),
        query: call["input"]["query"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        results,
        error: (content["type"] == "web_search_tool_result_error").then(|| {
            format!(
                "the provider's search failed: {}",
                content["error_code"].as_str().unwrap_or("unknown error")
            )
        }),
    }
}

impl Parser {
    /// A content block begins: a thinking block sent encrypted, a call of the model's, or a
    /// search the API ran (its call, then its result, which closes it).
    fn block_start(&mut self, index: usize, block: Value, out: &mut VecDeque<ProviderEvent>) {
        if block.get("type").and_then(Value::as_str) == Some("redacted_thinking")
            && let Some(d) = block.get("data").and_then(Value::as_str)
        {
            out.push_back(ProviderEvent::RedactedReasoning(d.to_string()));
        }
        if block["type"] == "server_tool_use" {
            self.server_calls
                .insert(index, (block.clone(), String::new()));
        }
        if block["type"] == "web_search_tool_result" {
            let called = self
                .server_calls
                .values_mut()
                .find(|(c, _)| c["id"] == block["tool_use_id"]);
            if let Some((call, input)) = called {
                // Its input streamed (or came whole in its start).
                if let Ok(i) = serde_json::from_str::<Value>(input) {
                    call["input"] = i;
                } else if !call["input"].is_object() {
                    call["input"] = json!({});
                }
                out.push_back(ProviderEvent::WebSearch(search_done(call, &block)));
                let kept = json!([call, block]);
                out.push_back(ProviderEvent::RedactedReasoning(format!(
                    "{SEARCH_MARK}{kept}"
                )));
            }
        }
        if block.get("type").and_then(Value::as_str) == Some("tool_use") {
            out.push_back(ProviderEvent::ToolCallStart {
                index,
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            });
        }
    }

    fn event(
        &mut self,
        event: Option<&str>,
        data: &str,
        out: &mut VecDeque<ProviderEvent>,
    ) -> Result<bool, ProviderError> {
        if event == Some(EOF_EVENT) {
            return Ok(false);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::Protocol(format!("invalid JSON event: {e}")))?;
        let ty = v
            .get("type")
            .and_then(Value::as_str)
            .or(event)
            .unwrap_or("");
        match ty {
            "error" => return Err(ProviderError::from_stream_error(data)),
            "message_start" => {
                if let Some(u) = v.pointer("/message/usage") {
                    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                    // Anthropic's `input_tokens` leaves out what the cache read or wrote.
                    self.cached_input_tokens = n("cache_read_input_tokens");
                    self.input_tokens = n("input_tokens")
                        + self.cached_input_tokens
                        + n("cache_creation_input_tokens");
                    self.output_tokens = n("output_tokens");
                }
            }
            "content_block_start" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let block = v.get("content_block").cloned().unwrap_or(Value::Null);
                self.block_start(index, block, out);
            }
            "content_block_delta" => {
                let index = v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let d = v.get("delta").cloned().unwrap_or(Value::Null);
                match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        if let Some(t) = d.get("text").and_then(Value::as_str) {
                            out.push_back(ProviderEvent::TextDelta(t.to_string()));
                        }
                    }
                    Some("thinking_delta") => {
                        if let Some(t) = d.get("thinking").and_then(Value::as_str) {
                            out.push_back(ProviderEvent::ReasoningDelta(t.to_string()));
                        }
                    }
                    Some("signature_delta") => {
                        if let Some(s) = d.get("signature").and_then(Value::as_str) {
                            out.push_back(ProviderEvent::ReasoningSignature(s.to_string()));
                        }
                    }
                    Some("input_json_delta") if self.server_calls.contains_key(&index) => {
                        if let (Some(t), Some((_, input))) = (
                            d["partial_json"].as_str(),
                            self.server_calls.get_mut(&index),
                        ) {
                            input.push_str(t);
                        }
                    }
                    Some("citations_delta") => {
                        let c = &d["citation"];
                        if let Some(url) = c["url"].as_str() {
                            out.push_back(ProviderEvent::Citation(crate::protocol::Citation {
                                url: url.to_string(),
                                title: c["title"].as_str().map(String::from),
                                cited_text: c["cited_text"].as_str().map(String::from),
                            }));
                        }
                    }
                    Some("input_json_delta") => {
                        if let Some(t) = d.get("partial_json").and_then(Value::as_str) {
                            out.push_back(ProviderEvent::ToolCallDelta {
                                index,
                                arguments: t.to_string(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(sr) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(match sr {
                        "end_turn" | "stop_sequence" => FinishReason::Stop,
                        "tool_use" => FinishReason::ToolCalls,
                        "max_tokens" => FinishReason::Length,
                        "refusal" => FinishReason::ContentFilter,
                        "pause_turn" => FinishReason::Paused,
                        _ => FinishReason::Other,
                    });
                }
                if let Some(o) = v.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.output_tokens = o;
                }
            }
            "message_stop" => {
                out.push_back(ProviderEvent::Usage(Usage {
                    input_tokens: self.input_tokens,
                    output_tokens: self.output_tokens,
                    cached_input_tokens: self.cached_input_tokens,
                    ..Usage::default()
                }));
                out.push_back(ProviderEvent::Finish(
                    self.stop.unwrap_or(FinishReason::Stop),
                ));
                return Ok(true);
            }
            _ => {}
        }
        Ok(false)
    }
}

/// What reads an Anthropic Messages stream: each SSE event in, provider events out, `true` at
/// `message_stop`. The live client and the replay of a recorded stream use it alike.
pub(crate) fn stream_parser()
-> impl FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
+ Send
+ 'static {
    let mut parser = Parser::default();
    move |event, data, out| parser.event(event, data, out)
}

impl Provider for Anthropic {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'static, Result<EventStream, ProviderError>> {
        let client = match self.client.get() {
            Ok(c) => c,
            Err(e) => return super::no_client(e),
        };
        let rb = self.request(
            client
                .post(format!("{}/v1/messages", self.base))
                .json(&self.body(&req)),
        );
        super::openai::open_sse(rb, self.net, stream_parser())
    }

    fn list_models(&self) -> BoxFuture<'static, Result<Vec<String>, ProviderError>> {
        let client = match self.client.get() {
            Ok(c) => c,
            Err(e) => return super::no_client(e),
        };
        let rb = self.request(client.get(format!("{}/v1/models", self.base)));
        let net = self.net;
        Box::pin(model_ids(rb, net))
    }

    fn model(&self) -> String {
        self.model.clone()
    }

    fn native_search(&self) -> Option<&'static str> {
        Some("web_search_20250305")
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn parses_tool_use_stream() {
        let mut p = Parser::default();
        let mut out = VecDeque::new();
        let evs = [
            r#"{"type":"message_start","message":{"usage":{"input_tokens":12,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"tu_1","name":"read_file","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"a\"}"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let mut done = false;
        for e in evs {
            done = p.event(None, e, &mut out).unwrap_or(false);
        }
        assert!(done);
        let v: Vec<_> = out.into_iter().collect();
        assert_eq!(v[0], ProviderEvent::TextDelta("Hi".into()));
        assert_eq!(
            v[1],
            ProviderEvent::ToolCallStart {
                index: 1,
                id: "tu_1".into(),
                name: "read_file".into()
            }
        );
        assert_eq!(
            v.last(),
            Some(&ProviderEvent::Finish(FinishReason::ToolCalls))
        );
        // Input counts what the cache read and wrote; cached counts the reads.
        assert!(v.contains(&ProviderEvent::Usage(Usage {
            input_tokens: 117,
            output_tokens: 9,
            cached_input_tokens: 100,
            ..Usage::default()
        })));
    }

    #[test]
    fn a_failed_search_and_a_paused_turn_are_read() {
        let mut p = Parser::default();
        let mut out = VecDeque::new();
        let evs = [
            r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":4}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        for e in evs {
            p.event(None, e, &mut out).unwrap();
        }
        let v: Vec<_> = out.into_iter().collect();
        let Some(ProviderEvent::WebSearch(w)) = v.first() else {
            panic!("{v:?}")
        };
        assert_eq!(w.query, "x");
        assert!(w.results.is_empty());
        assert!(w.error.as_deref().unwrap().contains("max_uses_exceeded"));
        // No tool call of the model's own: the search's input is not a call's arguments.
        assert!(
            !v.iter()
                .any(|e| matches!(e, ProviderEvent::ToolCallDelta { .. }))
        );
        // Kept whole, to be sent back (its input read from the stream).
        let Some(ProviderEvent::RedactedReasoning(kept)) = v.get(1) else {
            panic!("{v:?}")
        };
        let blocks: Value = serde_json::from_str(kept.strip_prefix(SEARCH_MARK).unwrap()).unwrap();
        assert_eq!(blocks[0]["input"], json!({"query": "x"}));
        assert_eq!(blocks[1]["type"], "web_search_tool_result");
        assert_eq!(v.last(), Some(&ProviderEvent::Finish(FinishReason::Paused)));
    }

    #[test]
    fn overloaded_error_event_is_retryable() {
        let mut p = Parser::default();
        let mut out = VecDeque::new();
        let r = p.event(
            Some("error"),
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            &mut out,
        );
        assert!(matches!(r, Err(e) if e.is_retryable()));
    }
}
