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
                    for th in thinking.iter().filter(|th| {
                        budget.is_some()
                            && !matches!(th, Thinking::Redacted(d) if d.starts_with(super::responses::REASONING_MARK))
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
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                .collect();
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
}

impl Parser {
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
                if block.get("type").and_then(Value::as_str) == Some("redacted_thinking")
                    && let Some(d) = block.get("data").and_then(Value::as_str)
                {
                    out.push_back(ProviderEvent::RedactedReasoning(d.to_string()));
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
        Box::pin(model_ids(rb, net.first_byte))
    }

    fn model(&self) -> String {
        self.model.clone()
    }
}

#[cfg(test)]
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
