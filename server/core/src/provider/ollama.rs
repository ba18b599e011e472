//! Ollama's own chat endpoint (`POST /api/chat`, newline-delimited JSON), used for a base URL
//! recognised as Ollama: unlike its OpenAI-compatible endpoint, it takes `options.num_ctx`, so
//! the server never truncates a prompt silently to its small default window, and `format` (a
//! JSON schema) for constrained output. The request is the chat-completions body, converted:
//! images as `images`, a call's arguments as an object, a tool result with its tool's name.

use std::collections::VecDeque;

use serde_json::{Map, Value, json};

use super::{FinishReason, ProviderError, ProviderEvent};
use crate::protocol::Usage;

/// The `/api/chat` body of a chat-completions body.
pub fn chat_body(openai: Value, num_ctx: Option<u64>, num_predict: Option<u64>) -> Value {
    let Value::Object(mut o) = openai else {
        return openai;
    };
    let mut names: std::collections::HashMap<String, String> = Default::default();
    let messages: Vec<Value> = o
        .remove("messages")
        .and_then(|m| match m {
            Value::Array(a) => Some(a),
            _ => None,
        })
        .unwrap_or_default()
        .into_iter()
        .map(|m| message(m, &mut names))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), o.remove("model").unwrap_or(Value::Null));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), Value::Bool(true));
    if let Some(t) = o.remove("tools") {
        body.insert("tools".into(), t);
    }
    if let Some(f) = o.remove("format") {
        body.insert("format".into(), f);
    }
    let mut options = Map::new();
    if let Some(n) = num_ctx {
        options.insert("num_ctx".into(), json!(n));
    }
    if let Some(n) = num_predict {
        options.insert("num_predict".into(), json!(n));
    }
    if !options.is_empty() {
        body.insert("options".into(), Value::Object(options));
    }
    Value::Object(body)
}

/// One message: content parts folded into `content` and `images`, calls' arguments parsed.
fn message(m: Value, names: &mut std::collections::HashMap<String, String>) -> Value {
    let Value::Object(mut m) = m else {
        return m;
    };
    if let Some(Value::Array(parts)) = m.get("content").cloned() {
        let mut text = String::new();
        let mut images = Vec::new();
        for p in parts {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(t);
            } else if let Some(url) = p.pointer("/image_url/url").and_then(Value::as_str) {
                // `data:<type>;base64,<data>`: Ollama takes the data alone.
                images.push(Value::String(
                    url.split_once(',').map_or(url, |(_, d)| d).to_string(),
                ));
            }
        }
        m.insert("content".into(), Value::String(text));
        if !images.is_empty() {
            m.insert("images".into(), Value::Array(images));
        }
    }
    if m.get("content").is_some_and(Value::is_null) {
        m.insert("content".into(), Value::String(String::new()));
    }
    if let Some(Value::Array(calls)) = m.get_mut("tool_calls") {
        for c in calls.iter_mut() {
            let id = c["id"].as_str().unwrap_or_default().to_string();
            let name = c["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            names.insert(id, name);
            let args = c["function"]["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str::<Value>(a).ok())
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            c["function"]["arguments"] = args;
        }
    }
    if m.get("role").and_then(Value::as_str) == Some("tool")
        && let Some(id) = m.get("tool_call_id").and_then(Value::as_str)
        && let Some(name) = names.get(id)
    {
        m.insert("tool_name".into(), Value::String(name.clone()));
    }
    Value::Object(m)
}

/// What reads `/api/chat`'s stream: one JSON object per line, the last with `done: true`, its
/// counts and `done_reason`; a call arrives whole; an error is `{"error": …}`.
pub(crate) fn stream_parser()
-> impl FnMut(Option<&str>, &str, &mut VecDeque<ProviderEvent>) -> Result<bool, ProviderError>
+ Send
+ 'static {
    let mut calls = 0usize;
    let mut finished = false;
    move |event, data, out| {
        if event == Some(super::sse::EOF_EVENT) {
            return Ok(finished);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::Protocol(format!("invalid JSON line: {e}")))?;
        if let Some(e) = v.get("error") {
            return Err(ProviderError::from_stream_error(
                &json!({"error": {"message": e}}).to_string(),
            ));
        }
        let m = &v["message"];
        if let Some(t) = m["thinking"].as_str().filter(|t| !t.is_empty()) {
            out.push_back(ProviderEvent::ReasoningDelta(t.to_string()));
        }
        if let Some(t) = m["content"].as_str().filter(|t| !t.is_empty()) {
            out.push_back(ProviderEvent::TextDelta(t.to_string()));
        }
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            let name = c["function"]["name"].as_str().unwrap_or_default();
            let args = match &c["function"]["arguments"] {
                Value::String(s) => s.clone(),
                Value::Null => "{}".to_string(),
                a => a.to_string(),
            };
            let id = c["id"]
                .as_str()
                .map_or_else(|| format!("call_{}", crate::util::new_id()), str::to_string);
            out.push_back(ProviderEvent::ToolCallStart {
                index: calls,
                id,
                name: name.to_string(),
            });
            out.push_back(ProviderEvent::ToolCallDelta {
                index: calls,
                arguments: args,
            });
            calls += 1;
        }
        if v["done"].as_bool() == Some(true) {
            if !finished {
                out.push_back(ProviderEvent::Usage(Usage {
                    input_tokens: v["prompt_eval_count"].as_u64().unwrap_or(0),
                    output_tokens: v["eval_count"].as_u64().unwrap_or(0),
                    ..Usage::default()
                }));
                let reason = match v["done_reason"].as_str() {
                    _ if calls > 0 => FinishReason::ToolCalls,
                    Some("length") => FinishReason::Length,
                    Some("stop") | None => FinishReason::Stop,
                    Some(_) => FinishReason::Other,
                };
                out.push_back(ProviderEvent::Finish(reason));
            }
            finished = true;
            return Ok(true);
        }
        Ok(false)
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn the_chat_body_is_converted_and_carries_the_window() {
        let openai = json!({"model": "qwen2.5-coder:7b", "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "alpha"}],
            "tools": [{"type": "function", "function": {"name": "read_file"}}]});
        let b = chat_body(openai, Some(32_768), Some(512));
        assert_eq!(b["options"]["num_ctx"], 32_768);
        assert_eq!(b["options"]["num_predict"], 512);
        assert!(b.get("stream_options").is_none());
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m[1]["content"], "look");
        assert_eq!(m[1]["images"][0], "AAAA");
        assert_eq!(m[2]["content"], "");
        assert_eq!(m[2]["tool_calls"][0]["function"]["arguments"]["path"], "a");
        assert_eq!(m[3]["tool_name"], "read_file");
        assert_eq!(b["tools"][0]["function"]["name"], "read_file");
    }

    #[test]
    fn the_stream_is_read() {
        let mut p = stream_parser();
        let mut out = VecDeque::new();
        for line in [
            r#"{"message": {"role": "assistant", "content": "", "thinking": "hm"}, "done": false}"#,
            r#"{"message": {"role": "assistant", "content": "Reading."}, "done": false}"#,
            r#"{"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}]}, "done": false}"#,
        ] {
            assert!(!p(None, line, &mut out).unwrap());
        }
        assert!(
            p(
                None,
                r#"{"message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 120, "eval_count": 9}"#,
                &mut out
            )
            .unwrap()
        );
        let evs: Vec<ProviderEvent> = out.drain(..).collect();
        assert_eq!(evs[0], ProviderEvent::ReasoningDelta("hm".into()));
        assert_eq!(evs[1], ProviderEvent::TextDelta("Reading.".into()));
        assert!(
            matches!(&evs[2], ProviderEvent::ToolCallStart { name, .. } if name == "read_file")
        );
        assert_eq!(
            evs[3],
            ProviderEvent::ToolCallDelta {
                index: 0,
                arguments: r#"{"path":"a"}"#.into()
            }
        );
        assert!(
            matches!(&evs[4], ProviderEvent::Usage(u) if u.input_tokens == 120 && u.output_tokens == 9)
        );
        assert_eq!(evs[5], ProviderEvent::Finish(FinishReason::ToolCalls));
        let mut p = stream_parser();
        assert!(p(None, r#"{"error": "model 'x' not found"}"#, &mut out).is_err());
        assert!(!p(Some(super::super::sse::EOF_EVENT), "", &mut out).unwrap());
    }
}
