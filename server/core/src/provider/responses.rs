//! OpenAI's Responses API (`POST /responses`, `apiMode: "responses"` on an `openai` provider):
//! what OpenAI's newer models and Codex speak. Streams text, function calls (arguments in
//! fragments), reasoning summaries, and the encrypted reasoning items, which are kept with the
//! reply (stateless: `store: false`) and sent back with the calls' results as the API asks.
//! Usage (cached and reasoning tokens), images, errors inside the stream (`error`,
//! `response.failed`) and an incomplete answer (`response.incomplete`) are read; faults and
//! retries are the chat client's.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::sse::EOF_EVENT;
use super::{
    ChatMessage, ChatRequest, EventStream, FinishReason, NetPolicy, Provider, ProviderError,
    ProviderEvent, Thinking,
};
use crate::protocol::Usage;

/// A kept reasoning item (or a kept `web_search_call`) is marked so, among a reply's thinking
/// blocks (another provider's encrypted thinking never goes to this API, nor this one's to
/// another).
pub const REASONING_MARK: &str = "openai-responses:";

pub struct Responses {
    client: crate::http_client::Lazy,
    base: String,
    key: Option<String>,
    model: String,
    net: NetPolicy,
    /// The chat client of the same server: the model list and what the server is.
    chat: Arc<super::openai::OpenAi>,
}

impl Responses {
    pub fn new(
        base: &str,
        key: Option<String>,
        model: String,
        net: NetPolicy,
    ) -> Result<Responses, String> {
        let (client, base) = super::http_client(base, &net)?;
        let chat = Arc::new(super::openai::OpenAi::new(
            &base,
            key.clone(),
            model.clone(),
            net,
        )?);
        Ok(Responses {
            client,
            base,
            key: key.filter(|k| !k.is_empty()),
            model,
            net,
            chat,
        })
    }

    pub(crate) fn body(&self, req: &ChatRequest) -> Value {
        let mut input = Vec::new();
        for m in req.messages.iter() {
            match m {
                ChatMessage::User { text, images } => {
                    let mut content = vec![json!({"type": "input_text", "text": text})];
                    for i in images {
                        content.push(match req.image_data(&i.id) {
                            Some(data) => json!({"type": "input_image", "image_url": format!("data:{};base64,{data}", i.media_type.as_str())}),
                            None => json!({"type": "input_text", "text": super::IMAGE_GONE}),
                        });
                    }
                    input.push(json!({"role": "user", "content": content}));
                }
                ChatMessage::Assistant {
                    text,
                    tool_calls,
                    thinking,
                } => {
                    // The reasoning items first, as they came.
                    for th in thinking {
                        if let Thinking::Redacted(d) = th
                            && let Some(item) = d.strip_prefix(REASONING_MARK)
                            && let Ok(v) = serde_json::from_str::<Value>(item)
                        {
                            input.push(v);
                        }
                    }
                    if !text.is_empty() {
                        input.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}));
                    }
                    for c in tool_calls {
                        input.push(json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}));
                    }
                }
                ChatMessage::Tool { call_id, text, .. } => {
                    input.push(
                        json!({"type": "function_call_output", "call_id": call_id, "output": text}),
                    );
                }
            }
        }
        let mut body = json!({
            "model": req.model.as_deref().unwrap_or(&self.model),
            "instructions": &*req.system,
            "input": input,
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
        });
        let mut tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters, "strict": false}))
            .collect();
        if let Some(kind) = &req.native_search {
            // The provider's own search; the pages it read come with each search.
            tools.push(json!({"type": &**kind}));
            body["include"] = json!([
                "reasoning.encrypted_content",
                "web_search_call.action.sources"
            ]);
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        if let Some(e) = req.reasoning_effort {
            body["reasoning"] = json!({"effort": e.as_str(), "summary": "auto"});
        }
        if let Some(n) = req.max_tokens {
            body["max_output_tokens"] = json!(n);
        }
        body
    }
}

/// Reads a Responses stream: the function calls started (by output index, which orders them).
#[derive(Default)]
struct Parser {
    /// Output index → whether a function call was started there.
    calls: HashMap<u64, bool>,
    /// Messages whose citations came as `annotation.added` events (not read again when done).
    annotated: std::collections::HashSet<String>,
    finished: bool,
}

/// A `web_search_call` item, done: its query and the pages it read (`action.sources`, or the
/// one page an `open_page` action opened).
fn web_search(item: &Value) -> super::WebSearchDone {
    let action = &item["action"];
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let mut results: Vec<crate::protocol::WebSource> = action["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|src| {
            Some(crate::protocol::WebSource {
                url: src["url"].as_str()?.to_string(),
                title: src["title"].as_str().map(String::from),
            })
        })
        .collect();
    if results.is_empty()
        && let Some(url) = action["url"].as_str()
    {
        results.push(crate::protocol::WebSource {
            url: url.to_string(),
            title: None,
        });
    }
    let query = match action["query"].as_str() {
        Some(q) => q.to_string(),
        None => action["pattern"]
            .as_str()
            .map(String::from)
            .unwrap_or_default(),
    };
    super::WebSearchDone {
        id: s(&item["id"]),
        query,
        results,
        error: (item["status"] == "failed").then(|| "the provider's search failed".to_string()),
    }
}

/// A `url_citation` annotation as a citation (other annotations are not pages).
fn citation(a: &Value) -> Option<crate::protocol::Citation> {
    if a["type"] != "url_citation" {
        return None;
    }
    Some(crate::protocol::Citation {
        url: a["url"].as_str()?.to_string(),
        title: a["title"].as_str().map(String::from),
        cited_text: None,
    })
}

/// The usage of a `response` object.
fn usage_of(r: &Value) -> Option<Usage> {
    let u = r.get("usage").filter(|u| u.is_object())?;
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: n("/input_tokens"),
        output_tokens: n("/output_tokens"),
        cached_input_tokens: n("/input_tokens_details/cached_tokens"),
        reasoning_tokens: n("/output_tokens_details/reasoning_tokens"),
        cost_usd: None,
        estimated: false,
    })
}

/// An error the API sent (`error` events and `response.failed`), classified.
fn stream_error(code: &str, message: &str) -> ProviderError {
    match code {
        "rate_limit_exceeded" => ProviderError::RateLimited { retry_after: None },
        "context_length_exceeded" => ProviderError::ContextLength(message.to_string()),
        "invalid_prompt" | "invalid_request_error" | "invalid_image" => ProviderError::BadRequest {
            status: 200,
            message: message.to_string(),
        },
        _ => ProviderError::from_stream_error(
            &json!({"error": {"code": code, "message": message}}).to_string(),
        ),
    }
}

impl Parser {
    /// An output item is done: a search (shown, and kept to go back in its place), a message's
    /// citations (unless they came as they were added), an encrypted reasoning item (kept).
    fn item_done(&self, item: &Value, out: &mut VecDeque<ProviderEvent>) {
        if item["type"] == "web_search_call" {
            out.push_back(ProviderEvent::WebSearch(web_search(item)));
            // Kept like a reasoning item, and sent back in its place.
            let kept = json!({"type": "web_search_call", "id": item["id"], "status": item["status"], "action": item["action"]});
            out.push_back(ProviderEvent::RedactedReasoning(format!(
                "{REASONING_MARK}{kept}"
            )));
        }
        if item["type"] == "message"
            && !self
                .annotated
                .contains(item["id"].as_str().unwrap_or_default())
        {
            let annotations = item["content"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|c| c["annotations"].as_array().into_iter().flatten());
            for a in annotations {
                if let Some(c) = citation(a) {
                    out.push_back(ProviderEvent::Citation(c));
                }
            }
        }
        if item["type"] == "reasoning" && item.get("encrypted_content").is_some() {
            let kept = json!({"type": "reasoning", "id": item["id"], "encrypted_content": item["encrypted_content"], "summary": item.get("summary").cloned().unwrap_or(json!([]))});
            out.push_back(ProviderEvent::RedactedReasoning(format!(
                "{REASONING_MARK}{kept}"
            )));
        }
    }

    fn event(
        &mut self,
        event: Option<&str>,
        data: &str,
        out: &mut VecDeque<ProviderEvent>,
    ) -> Result<bool, ProviderError> {
        if event == Some(EOF_EVENT) {
            return Ok(self.finished);
        }
        if data.trim() == "[DONE]" {
            return Ok(self.finished);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::Protocol(format!("invalid JSON event: {e}")))?;
        let ty = v
            .get("type")
            .and_then(Value::as_str)
            .or(event)
            .unwrap_or("");
        let index = v.get("output_index").and_then(Value::as_u64).unwrap_or(0);
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match ty {
            "response.output_text.delta" => {
                out.push_back(ProviderEvent::TextDelta(text("delta")));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push_back(ProviderEvent::ReasoningDelta(text("delta")));
            }
            "response.reasoning_summary_part.done" => {
                // Summary parts are paragraphs.
                out.push_back(ProviderEvent::ReasoningDelta("\n\n".into()));
            }
            "response.output_item.added" => {
                let item = &v["item"];
                if item["type"] == "function_call" {
                    self.calls.insert(index, true);
                    out.push_back(ProviderEvent::ToolCallStart {
                        index: index as usize,
                        id: item["call_id"].as_str().unwrap_or_default().to_string(),
                        name: item["name"].as_str().unwrap_or_default().to_string(),
                    });
                    if let Some(a) = item["arguments"].as_str().filter(|a| !a.is_empty()) {
                        out.push_back(ProviderEvent::ToolCallDelta {
                            index: index as usize,
                            arguments: a.to_string(),
                        });
                    }
                }
            }
            "response.function_call_arguments.delta" if self.calls.contains_key(&index) => {
                out.push_back(ProviderEvent::ToolCallDelta {
                    index: index as usize,
                    arguments: text("delta"),
                });
            }
            "response.output_text.annotation.added" => {
                if let Some(c) = citation(&v["annotation"]) {
                    self.annotated.insert(text("item_id"));
                    out.push_back(ProviderEvent::Citation(c));
                }
            }
            "response.output_item.done" => self.item_done(&v["item"], out),
            "response.completed" | "response.incomplete" => {
                let r = &v["response"];
                if let Some(u) = usage_of(r) {
                    out.push_back(ProviderEvent::Usage(u));
                }
                let reason = if ty == "response.completed" {
                    if self.calls.is_empty() {
                        FinishReason::Stop
                    } else {
                        FinishReason::ToolCalls
                    }
                } else {
                    match r
                        .pointer("/incomplete_details/reason")
                        .and_then(Value::as_str)
                    {
                        Some("max_output_tokens") => FinishReason::Length,
                        Some("content_filter") => FinishReason::ContentFilter,
                        _ => FinishReason::Other,
                    }
                };
                out.push_back(ProviderEvent::Finish(reason));
                self.finished = true;
                return Ok(true);
            }
            "response.failed" => {
                let e = &v["response"]["error"];
                return Err(stream_error(
                    e["code"].as_str().unwrap_or(""),
                    e["message"].as_str().unwrap_or("the response failed"),
                ));
            }
            "error" => {
                let e = v.get("error").unwrap_or(&v);
                return Err(stream_error(
                    e["code"].as_str().unwrap_or(""),
                    e["message"].as_str().unwrap_or("error"),
                ));
            }
            _ => {}
        }
        Ok(false)
    }
}

/// What reads a Responses stream (the live client and a recorded turn alike).
pub(crate) fn stream_parser()
-> impl FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
+ Send
+ 'static {
    let mut p = Parser::default();
    move |event, data, out| p.event(event, data, out)
}

impl Provider for Responses {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'static, Result<EventStream, ProviderError>> {
        let client = match self.client.get() {
            Ok(c) => c,
            Err(e) => return super::no_client(e),
        };
        let mut rb = client
            .post(format!("{}/responses", self.base))
            .header("accept", "text/event-stream")
            .json(&self.body(&req));
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        super::openai::open_sse(rb, self.net, stream_parser())
    }

    fn list_models(&self) -> BoxFuture<'static, Result<Vec<String>, ProviderError>> {
        self.chat.list_models()
    }

    fn model(&self) -> String {
        self.model.clone()
    }

    fn context_window(&self, model: &str) -> BoxFuture<'static, Option<u64>> {
        self.chat.context_window(model)
    }

    fn server_facts(&self, model: &str) -> BoxFuture<'static, super::server::ServerFacts> {
        self.chat.server_facts(model)
    }

    fn native_search(&self) -> Option<&'static str> {
        Some("web_search")
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn run(events: &[(&str, Value)]) -> Result<Vec<ProviderEvent>, ProviderError> {
        let mut p = stream_parser();
        let mut out = VecDeque::new();
        for (name, data) in events {
            p(Some(name), &data.to_string(), &mut out)?;
        }
        Ok(out.into_iter().collect())
    }

    #[test]
    fn calls_reasoning_and_usage_are_read() {
        let evs = run(&[
            ("response.created", json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}})),
            ("response.output_item.added", json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}})),
            ("response.reasoning_summary_text.delta", json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Look first."})),
            ("response.output_item.done", json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": [{"type": "summary_text", "text": "Look first."}]}})),
            ("response.output_item.added", json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "read_file", "arguments": ""}})),
            ("response.function_call_arguments.delta", json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "{\"pa"})),
            ("response.function_call_arguments.delta", json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "th\":\"a\"}"})),
            ("response.completed", json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 900, "input_tokens_details": {"cached_tokens": 512}, "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 20}}}})),
        ])
        .unwrap();
        assert_eq!(evs[0], ProviderEvent::ReasoningDelta("Look first.".into()));
        let ProviderEvent::RedactedReasoning(kept) = &evs[1] else {
            panic!("{evs:?}")
        };
        let item: Value = serde_json::from_str(kept.strip_prefix(REASONING_MARK).unwrap()).unwrap();
        assert_eq!(item["encrypted_content"], "gAAA");
        assert!(
            matches!(&evs[2], ProviderEvent::ToolCallStart { id, name, index: 1 } if id == "call_9" && name == "read_file")
        );
        assert!(matches!(
            evs.last(),
            Some(ProviderEvent::Finish(FinishReason::ToolCalls))
        ));
        assert!(evs.iter().any(|e| matches!(e, ProviderEvent::Usage(u) if u.cached_input_tokens == 512 && u.reasoning_tokens == 20)));
        let err = run(&[(
            "error",
            json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow down"}),
        )])
        .unwrap_err();
        assert!(err.is_retryable());
        let failed = run(&[(
            "response.failed",
            json!({"type": "response.failed", "response": {"error": {"code": "server_error", "message": "boom"}}}),
        )])
        .unwrap_err();
        assert!(
            matches!(failed, ProviderError::Overloaded { .. }),
            "{failed:?}"
        );
    }

    #[test]
    fn a_search_and_its_citations_are_read_once() {
        let ann = json!({"type": "url_citation", "start_index": 0, "end_index": 5, "url": "https://a.example/x", "title": "A"});
        let msg = |annotations: Value| json!({"type": "message", "id": "msg_1", "content": [{"type": "output_text", "text": "Alpha", "annotations": annotations}]});
        let evs = run(&[
            ("response.output_item.done", json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "alpha", "sources": [{"type": "url", "url": "https://a.example/x"}]}}})),
            ("response.output_text.annotation.added", json!({"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1, "annotation": ann})),
            ("response.output_item.done", json!({"type": "response.output_item.done", "output_index": 1, "item": msg(json!([ann]))})),
            // A message whose citations came only with it.
            ("response.output_item.done", json!({"type": "response.output_item.done", "output_index": 2, "item": {"type": "message", "id": "msg_2", "content": [{"type": "output_text", "text": "B", "annotations": [{"type": "url_citation", "url": "https://b.example/", "title": "B"}, {"type": "file_citation", "file_id": "f"}]}]}})),
            ("response.completed", json!({"type": "response.completed", "response": {"status": "completed"}})),
        ])
        .unwrap();
        let ProviderEvent::WebSearch(w) = &evs[0] else {
            panic!("{evs:?}")
        };
        assert_eq!(w.query, "alpha");
        assert_eq!(w.results[0].url, "https://a.example/x");
        assert!(w.error.is_none());
        // Kept to go back in its place.
        assert!(
            matches!(&evs[1], ProviderEvent::RedactedReasoning(k) if k.starts_with(REASONING_MARK) && k.contains("web_search_call"))
        );
        let cited: Vec<&str> = evs
            .iter()
            .filter_map(|e| match e {
                ProviderEvent::Citation(c) => Some(c.url.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(cited, ["https://a.example/x", "https://b.example/"]);
        assert!(matches!(
            evs.last(),
            Some(ProviderEvent::Finish(FinishReason::Stop))
        ));
    }

    #[test]
    fn the_request_sends_the_reasoning_items_back_with_the_calls() {
        let r = Responses::new(
            "http://127.0.0.1:9/v1",
            None,
            "gpt-5".into(),
            NetPolicy::default(),
        )
        .unwrap();
        let req = ChatRequest {
            system: Arc::from("sys"),
            messages: Arc::new(vec![
                ChatMessage::User {
                    text: "go".into(),
                    images: vec![],
                },
                ChatMessage::Assistant {
                    text: String::new(),
                    tool_calls: vec![super::super::ToolCallReq {
                        id: "call_9".into(),
                        name: "read_file".into(),
                        arguments: "{\"path\":\"a\"}".into(),
                    }],
                    thinking: vec![
                        Thinking::Redacted(format!(
                            "{REASONING_MARK}{}",
                            json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": []})
                        )),
                        Thinking::Redacted("anthropic-data".into()),
                    ],
                },
                ChatMessage::Tool {
                    call_id: "call_9".into(),
                    name: "read_file".into(),
                    text: "alpha".into(),
                },
            ]),
            tools: Arc::from(vec![]),
            reasoning_effort: Some(crate::protocol::ReasoningEffort::High),
            model: None,
            attachments: None,
            calls_as_text: false,
            constraint: None,
            num_ctx: None,
            max_tokens: None,
            native_search: None,
        };
        let b = r.body(&req);
        let input = b["input"].as_array().unwrap();
        assert_eq!(input[0]["role"], "user");
        assert_eq!(input[1]["type"], "reasoning");
        assert_eq!(input[1]["encrypted_content"], "gAAA");
        assert_eq!(input[2]["type"], "function_call");
        assert_eq!(input[3]["type"], "function_call_output");
        assert_eq!(input.len(), 4, "another provider's thinking is not sent");
        assert_eq!(b["store"], false);
        assert_eq!(b["reasoning"]["effort"], "high");
        assert_eq!(b["instructions"], "sys");
    }
}
