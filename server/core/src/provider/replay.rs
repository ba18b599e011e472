//! The `replay` provider: plays scripted assistant turns from a JSON file (demos, UI tests).
//!
//! ```json
//! {"scripts": [
//!   {"match": "make a file", "turns": [
//!     {"text": "Writing it.", "tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi\n"}}]},
//!     {"text": "Done."}
//!   ]},
//!   {"turns": [{"text": "Hello", "chunk_chars": 4, "delay_ms": 5}]}
//! ]}
//! ```
//! A call uses the first script whose `match` is a substring of the latest user message (a script
//! without `match` is the default). The n-th model call after that user message gets `turns[n]`,
//! so the choice depends only on the conversation: stateless and restart-safe. A turn may carry
//! `text`, `reasoning`, `tool_calls`, `chunk_chars` (delta size, default 16), `delay_ms` (between
//! deltas), and `error` (`{"status": 503, "message": "…"}`) to fail that call.
//!
//! A turn may instead be `recorded`: the body a provider streams, as its documentation gives
//! it (`{"format": "openai" | "anthropic" | "responses", "sse": "data: …\n\n…"}` or `"file": "turn.sse"`,
//! relative to the replay file), played event by event through the live client's own stream
//! parser, so what a real model sends — split arguments, parallel calls, thinking blocks,
//! usage chunks — is what the agent gets. `delay_ms` then waits between events.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Deserialize;

use super::{
    ChatMessage, ChatRequest, EventStream, FinishReason, Provider, ProviderError, ProviderEvent,
};
use crate::protocol::Usage;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayFile {
    pub scripts: Vec<Script>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(rename = "match")]
    pub matches: Option<String>,
    pub turns: Vec<Turn>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    pub chunk_chars: Option<usize>,
    #[serde(default)]
    pub delay_ms: u64,
    pub error: Option<ScriptedError>,
    pub recorded: Option<Recorded>,
}

/// A model turn as a provider streamed it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    pub format: WireFormat,
    /// The SSE body…
    pub sse: Option<String>,
    /// …or the file that holds it (read when the replay file is loaded).
    pub file: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireFormat {
    /// OpenAI's chat completions (and every OpenAI-compatible server).
    Openai,
    /// Anthropic's messages.
    Anthropic,
    /// OpenAI's Responses API.
    Responses,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    pub name: String,
    #[serde(default)]
    pub arguments: serde_json::Value,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedError {
    pub status: u16,
    pub message: String,
}

pub struct Replay {
    file: ReplayFile,
}

impl Replay {
    pub fn load(path: &Path) -> Result<Replay, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read replay file {}: {e}", path.display()))?;
        let mut file: ReplayFile = serde_json::from_slice(&bytes)
            .map_err(|e| format!("replay file {} is not valid: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        for turn in file.scripts.iter_mut().flat_map(|s| s.turns.iter_mut()) {
            let Some(r) = &mut turn.recorded else {
                continue;
            };
            match (&r.sse, &r.file) {
                (Some(_), None) => {}
                (None, Some(f)) => {
                    let f = base.join(f);
                    let text = std::fs::read_to_string(&f).map_err(|e| {
                        format!("cannot read the recorded turn {}: {e}", f.display())
                    })?;
                    r.sse = Some(text);
                }
                _ => {
                    return Err(format!(
                        "replay file {}: a recorded turn has `sse` or `file`, one of them",
                        path.display()
                    ));
                }
            }
        }
        Ok(Replay { file })
    }

    pub fn from_file(file: ReplayFile) -> Replay {
        Replay { file }
    }

    /// The turn for this conversation.
    pub fn pick(&self, messages: &[ChatMessage]) -> Option<Turn> {
        let last_user = messages
            .iter()
            .rposition(|m| matches!(m, ChatMessage::User { .. }));
        let (text, n) = match last_user {
            Some(i) => {
                let text = match &messages[i] {
                    ChatMessage::User { text, .. } => text.as_str(),
                    _ => "",
                };
                let n = messages[i..]
                    .iter()
                    .filter(|m| matches!(m, ChatMessage::Assistant { .. }))
                    .count();
                (text, n)
            }
            None => ("", 0),
        };
        let script = self
            .file
            .scripts
            .iter()
            .find(|s| s.matches.as_deref().is_some_and(|m| text.contains(m)))
            .or_else(|| self.file.scripts.iter().find(|s| s.matches.is_none()))?;
        script.turns.get(n).cloned()
    }
}

/// A recorded body through the live client's parser, an SSE event at a time (`delay` apart).
/// Each tool call id gets a suffix of its own: a recording played twice in one session must
/// not give two calls one id, as a real provider never would.
fn recorded(r: &Recorded, delay: Duration) -> EventStream {
    let body = r.sse.clone().unwrap_or_default().replace("\r\n", "\n");
    let pieces: Vec<reqwest::Result<bytes::Bytes>> = body
        .split_inclusive("\n\n")
        .map(|e| Ok(bytes::Bytes::from(e.to_string())))
        .collect();
    let body = futures::stream::iter(pieces)
        .then(move |p| async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            p
        })
        .boxed();
    // Recorded bodies are local: no wait between events is "idle".
    let idle = Duration::from_secs(3600);
    let suffix = crate::util::new_id();
    let events = match r.format {
        WireFormat::Openai => {
            super::openai::event_stream(body, idle, super::openai::stream_parser())
        }
        WireFormat::Anthropic => {
            super::openai::event_stream(body, idle, super::anthropic::stream_parser())
        }
        WireFormat::Responses => {
            super::openai::event_stream(body, idle, super::responses::stream_parser())
        }
    };
    events
        .map(move |ev| match ev {
            Ok(ProviderEvent::ToolCallStart { index, id, name }) => {
                Ok(ProviderEvent::ToolCallStart {
                    index,
                    id: format!("{id}_{suffix}"),
                    name,
                })
            }
            other => other,
        })
        .boxed()
}

fn chunks(s: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

impl Provider for Replay {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'static, Result<EventStream, ProviderError>> {
        let turn = self.pick(&req.messages).unwrap_or(Turn {
            text: "(the replay script has no turn for this point of the conversation)".into(),
            ..Turn::default()
        });
        // A replayed model reports usage as a real one would: the prompt, estimated.
        let prompt_tokens = crate::provider::estimate_tokens(req.chars());
        Box::pin(async move {
            if let Some(r) = &turn.recorded {
                return Ok(recorded(r, Duration::from_millis(turn.delay_ms)));
            }
            if let Some(e) = &turn.error {
                return Err(ProviderError::from_status(
                    e.status,
                    &serde_json::json!({"error": {"message": e.message}}).to_string(),
                    None,
                ));
            }
            let size = turn.chunk_chars.unwrap_or(16);
            let mut events: VecDeque<ProviderEvent> = VecDeque::new();
            for r in chunks(&turn.reasoning, size) {
                events.push_back(ProviderEvent::ReasoningDelta(r));
            }
            for t in chunks(&turn.text, size) {
                events.push_back(ProviderEvent::TextDelta(t));
            }
            for (i, c) in turn.tool_calls.iter().enumerate() {
                events.push_back(ProviderEvent::ToolCallStart {
                    index: i,
                    id: format!("call_{}", crate::util::new_id()),
                    name: c.name.clone(),
                });
                let args = if c.arguments.is_null() {
                    "{}".to_string()
                } else {
                    c.arguments.to_string()
                };
                events.push_back(ProviderEvent::ToolCallDelta {
                    index: i,
                    arguments: args,
                });
            }
            let out_tokens = (turn.text.len() / 4 + 1) as u64;
            events.push_back(ProviderEvent::Usage(Usage {
                input_tokens: prompt_tokens,
                output_tokens: out_tokens,
                ..Usage::default()
            }));
            events.push_back(ProviderEvent::Finish(if turn.tool_calls.is_empty() {
                FinishReason::Stop
            } else {
                FinishReason::ToolCalls
            }));
            let delay = Duration::from_millis(turn.delay_ms);
            Ok(futures::stream::unfold(events, move |mut q| async move {
                let ev = q.pop_front()?;
                if !delay.is_zero()
                    && matches!(
                        ev,
                        ProviderEvent::TextDelta(_) | ProviderEvent::ReasoningDelta(_)
                    )
                {
                    tokio::time::sleep(delay).await;
                }
                Some((Ok(ev), q))
            })
            .boxed())
        })
    }

    fn list_models(&self) -> BoxFuture<'static, Result<Vec<String>, ProviderError>> {
        Box::pin(async { Ok(vec!["replay".to_string()]) })
    }

    fn model(&self) -> String {
        "replay".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_by_match_and_position() {
        let file: ReplayFile = serde_json::from_str(
            r#"{"scripts":[{"match":"file","turns":[{"text":"a"},{"text":"b"}]},{"turns":[{"text":"d"}]}]}"#,
        )
        .unwrap_or(ReplayFile { scripts: vec![] });
        let r = Replay::from_file(file);
        let u = |t: &str| ChatMessage::User {
            text: t.into(),
            images: vec![],
        };
        let a = ChatMessage::Assistant {
            thinking: vec![],
            text: "a".into(),
            tool_calls: vec![],
        };
        assert_eq!(
            r.pick(&[u("make a file")]).map(|t| t.text),
            Some("a".into())
        );
        assert_eq!(
            r.pick(&[u("make a file"), a.clone()]).map(|t| t.text),
            Some("b".into())
        );
        assert_eq!(r.pick(&[u("hello")]).map(|t| t.text), Some("d".into()));
        assert!(r.pick(&[u("hello"), a]).is_none());
    }
}
