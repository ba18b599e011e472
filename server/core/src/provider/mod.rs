//! Model providers. A provider turns a chat request into a stream of typed events; the agent
//! never sees HTTP. Faults are classified once (`ProviderError`), with an exhaustive
//! `is_retryable`, and retried here with bounded, jittered backoff — only while nothing has been
//! streamed yet, so a retry never duplicates text or tool calls.

pub mod anthropic;
pub mod constrain;
pub mod ollama;
pub mod openai;
pub mod registry;
pub mod replay;
pub mod responses;
pub mod server;
pub mod sse;
pub mod textcalls;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::protocol::Usage;

/// A tool the model may call.
#[derive(Debug, Clone, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

pub use crate::store::ToolCallReq;

/// `promptStyle: compact`: each tool's description cut to its first sentence, and each
/// parameter's, with no examples — for small models, whose windows are small too.
pub fn compact_specs(tools: &[ToolSpec]) -> Arc<[ToolSpec]> {
    fn first_sentence(s: &str) -> String {
        let line = s
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        match line.find(". ") {
            Some(i) => line[..=i].to_string(),
            None => line.to_string(),
        }
    }
    fn shrink(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                o.remove("examples");
                o.remove("example");
                if let Some(serde_json::Value::String(d)) = o.get_mut("description") {
                    *d = first_sentence(d);
                }
                o.values_mut().for_each(shrink);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(shrink),
            _ => {}
        }
    }
    tools
        .iter()
        .map(|t| {
            let mut parameters = t.parameters.clone();
            shrink(&mut parameters);
            ToolSpec {
                name: t.name.clone(),
                description: first_sentence(&t.description),
                parameters,
            }
        })
        .collect()
}

/// A block of a model's extended thinking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Thinking {
    /// The thinking text and its signature.
    Signed { text: String, signature: String },
    /// Thinking the provider sent encrypted.
    Redacted(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ChatMessage {
    User {
        text: String,
        /// Images sent with the prompt (their bytes are read when a call is encoded).
        images: Vec<crate::protocol::ImageRef>,
    },
    Assistant {
        text: String,
        tool_calls: Vec<ToolCallReq>,
        /// Extended thinking as the provider signed it (Anthropic wants it back, unchanged,
        /// with the tool results that follow).
        thinking: Vec<Thinking>,
    },
    Tool {
        call_id: String,
        name: String,
        text: String,
    },
}

/// What one model call gets. The parts are shared, not copied: a run builds its system prompt
/// and tool list once, and the history is the run's own (extended in place between calls), so a
/// call (and each retry) costs a few reference counts however long the session is.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub system: Arc<str>,
    pub messages: Arc<Vec<ChatMessage>>,
    pub tools: Arc<[ToolSpec]>,
    /// The session's reasoning effort (OpenAI-compatible providers send it as
    /// `reasoning_effort`).
    pub reasoning_effort: Option<crate::protocol::ReasoningEffort>,
    /// The model the session picked; `None`: the provider's configured one.
    pub model: Option<Arc<str>>,
    /// Where the images the messages name are read from.
    pub attachments: Option<Arc<crate::attachments::Attachments>>,
    /// The model writes its calls as text (`toolCalls: text`): the tools are described in the
    /// system prompt, and earlier calls and results are written as text too, for a server that
    /// takes no `tools` (see `textcalls`).
    pub calls_as_text: bool,
    /// Output constrained to an answer or calls (calls written as text only).
    pub constraint: Option<constrain::Constraint>,
    /// The window the run assumes, for a server that must be told it (Ollama's `num_ctx`).
    pub num_ctx: Option<u64>,
    /// The most tokens the reply may take (`models.…maxOutputTokens`).
    pub max_tokens: Option<u64>,
    /// The provider's own web search tool to send, by its type (`websearch.provider:
    /// "native"`, allowed for the session): `None` sends none.
    pub native_search: Option<Arc<str>>,
}

impl ChatRequest {
    /// An image's bytes as base64, when it can still be read.
    pub fn image_data(&self, id: &str) -> Option<String> {
        self.attachments.as_ref()?.read_base64(id)
    }
}

/// What the model reads instead of an image that is gone (an imported session).
pub const IMAGE_GONE: &str = "[an image was attached here; it is no longer available]";

impl ChatMessage {
    /// Characters of the message as a provider is sent it (a small fixed cost per tool call).
    pub fn chars(&self) -> usize {
        match self {
            ChatMessage::User { text, images } => {
                text.len() + images.len() * crate::attachments::IMAGE_TOKENS * 4
            }
            ChatMessage::Assistant {
                text, tool_calls, ..
            } => {
                text.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.len() + 16)
                        .sum::<usize>()
            }
            ChatMessage::Tool { text, name, .. } => text.len() + name.len() + 16,
        }
    }
}

/// Characters every call carries besides the history: the system prompt and the tool schemas.
pub fn fixed_chars(system: &str, tools: &[ToolSpec]) -> usize {
    system.len()
        + tools
            .iter()
            .map(|t| t.name.len() + t.description.len() + t.parameters.to_string().len())
            .sum::<usize>()
}

impl ChatRequest {
    /// Characters of the whole prompt (system, tool schemas, messages): what its tokens are
    /// estimated from before a call, and when the provider never reports usage.
    pub fn chars(&self) -> usize {
        fixed_chars(&self.system, &self.tools)
            + self.messages.iter().map(ChatMessage::chars).sum::<usize>()
    }
}

/// Tokens from characters, the usual ~4 characters per token.
pub fn estimate_tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    /// The provider paused a long turn (Anthropic's `pause_turn`, its own searches running
    /// long): sent back as it is, the model goes on.
    Paused,
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProviderEvent {
    TextDelta(String),
    ReasoningDelta(String),
    /// The signature of the thinking streamed so far (it closes a thinking block).
    ReasoningSignature(String),
    /// A thinking block the provider sent encrypted.
    RedactedReasoning(String),
    /// A tool call begins (`index` orders parallel calls).
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// More argument text for the call at `index`.
    ToolCallDelta {
        index: usize,
        arguments: String,
    },
    Usage(Usage),
    /// The provider searched the web on its side (native web search): one search, done.
    WebSearch(WebSearchDone),
    /// The answer cites a page.
    Citation(crate::protocol::Citation),
    /// The model finished; the stream is complete. Anything before this is provisional.
    Finish(FinishReason),
}

/// One search a provider ran on its side.
#[derive(Debug, Clone, PartialEq)]
pub struct WebSearchDone {
    pub id: String,
    pub query: String,
    pub results: Vec<crate::protocol::WebSource>,
    /// Why it failed (`None`: it completed).
    pub error: Option<String>,
}

/// A wait before another attempt to open the stream, reported when the wait begins.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    /// The attempt about to be made after the wait (2 = the first retry).
    pub attempt: u32,
    pub max_attempts: u32,
    pub delay: Duration,
    pub reason: String,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum ProviderError {
    #[error(
        "no model is configured: start with --provider openai --base-url URL --model NAME (or anthropic), or set one in Settings"
    )]
    NotConfigured,
    #[error(
        "the session's provider `{0}` is not configured any more: pick another model for the session"
    )]
    UnknownProvider(String),
    #[error("the provider did not answer in time ({0})")]
    Timeout(String),
    #[error("cannot reach the provider: {0}")]
    Network(String),
    #[error("rate limited by the provider")]
    RateLimited { retry_after: Option<Duration> },
    #[error("the provider rejected the credentials ({status}): {message}")]
    Auth { status: u16, message: String },
    #[error("the conversation is too long for the model: {0}")]
    ContextLength(String),
    #[error("the provider is overloaded or failing ({status}): {message}")]
    Overloaded { status: u16, message: String },
    #[error("the provider rejected the request ({status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("the provider's stream ended early: {0}")]
    Truncated(String),
    #[error("the provider sent something unexpected: {0}")]
    Protocol(String),
    #[error("cancelled")]
    Cancelled,
}

impl ProviderError {
    /// Exhaustive on purpose: a new variant must decide.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Timeout(_)
            | ProviderError::Network(_)
            | ProviderError::RateLimited { .. }
            | ProviderError::Overloaded { .. } => true,
            ProviderError::NotConfigured
            | ProviderError::UnknownProvider(_)
            | ProviderError::Auth { .. }
            | ProviderError::ContextLength(_)
            | ProviderError::BadRequest { .. }
            | ProviderError::Truncated(_)
            | ProviderError::Protocol(_)
            | ProviderError::Cancelled => false,
        }
    }

    /// Stable code for events and API errors.
    pub fn code(&self) -> &'static str {
        match self {
            ProviderError::NotConfigured => "no_model_configured",
            ProviderError::UnknownProvider(_) => "unknown_provider",
            ProviderError::Timeout(_) => "provider_timeout",
            ProviderError::Network(_) => "provider_unreachable",
            ProviderError::RateLimited { .. } => "provider_rate_limited",
            ProviderError::Auth { .. } => "provider_auth",
            ProviderError::ContextLength(_) => "context_length",
            ProviderError::Overloaded { .. } => "provider_overloaded",
            ProviderError::BadRequest { .. } => "provider_bad_request",
            ProviderError::Truncated(_) => "provider_stream_truncated",
            ProviderError::Protocol(_) => "provider_protocol",
            ProviderError::Cancelled => "cancelled",
        }
    }

    /// Classify an HTTP error status and body (OpenAI-style and Anthropic-style bodies).
    pub fn from_status(status: u16, body: &str, retry_after: Option<Duration>) -> ProviderError {
        let message = error_message(body);
        let lower = message.to_ascii_lowercase();
        let ctx = lower.contains("context length")
            || lower.contains("context_length")
            || lower.contains("maximum context")
            || lower.contains("too many tokens")
            || lower.contains("prompt is too long");
        match status {
            401 | 403 => ProviderError::Auth { status, message },
            429 => ProviderError::RateLimited { retry_after },
            400 | 413 | 422 if ctx => ProviderError::ContextLength(message),
            408 => ProviderError::Timeout(message),
            500..=599 => ProviderError::Overloaded { status, message },
            _ => ProviderError::BadRequest { status, message },
        }
    }

    /// Classify an error object sent inside a 200 stream.
    pub fn from_stream_error(body: &str) -> ProviderError {
        let message = error_message(body);
        let lower = format!("{message} {body}").to_ascii_lowercase();
        if lower.contains("overloaded")
            || lower.contains("server_error")
            || lower.contains("unavailable")
            || lower.contains("internal")
        {
            ProviderError::Overloaded {
                status: 200,
                message,
            }
        } else if lower.contains("rate_limit") || lower.contains("rate limit") {
            ProviderError::RateLimited { retry_after: None }
        } else if lower.contains("context") {
            ProviderError::ContextLength(message)
        } else {
            ProviderError::Overloaded {
                status: 200,
                message,
            }
        }
    }
}

/// Pull a human message out of `{"error":{"message":…}}`, `{"error":"…"}` or `{"message":…}`.
fn error_message(body: &str) -> String {
    let v: serde_json::Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(_) => return crate::util::truncate_str(body.trim(), 500).to_string(),
    };
    let m = v
        .pointer("/error/message")
        .or_else(|| v.get("error").filter(|e| e.is_string()))
        .or_else(|| v.get("message"))
        .and_then(|m| m.as_str())
        .unwrap_or("");
    if m.is_empty() {
        crate::util::truncate_str(body.trim(), 500).to_string()
    } else {
        crate::util::truncate_str(m, 500).to_string()
    }
}

pub type EventStream = Pin<Box<dyn Stream<Item = Result<ProviderEvent, ProviderError>> + Send>>;

/// A model endpoint.
pub trait Provider: Send + Sync {
    /// One attempt: open the stream. Errors before the first event may be retried by the caller.
    fn stream(
        &self,
        req: ChatRequest,
    ) -> futures::future::BoxFuture<'static, Result<EventStream, ProviderError>>;
    /// Models the endpoint reports.
    fn list_models(
        &self,
    ) -> futures::future::BoxFuture<'static, Result<Vec<String>, ProviderError>>;
    /// The configured model name.
    fn model(&self) -> String;
    /// Models the endpoint reports, with what its server says of each (sizes, windows, tools,
    /// images); a provider that is no local server gives the ids alone.
    fn describe_models(
        &self,
    ) -> futures::future::BoxFuture<'static, Result<Vec<server::ListedModel>, ProviderError>> {
        let ids = self.list_models();
        Box::pin(async move {
            Ok(ids
                .await?
                .into_iter()
                .map(|id| server::ListedModel {
                    id,
                    facts: server::ServerFacts::default(),
                })
                .collect())
        })
    }
    /// The context window the provider's model list gives `model`, where it gives one (asked
    /// once per provider; `None` when it says nothing or cannot be reached).
    fn context_window(&self, _model: &str) -> futures::future::BoxFuture<'static, Option<u64>> {
        Box::pin(async { None })
    }
    /// The type of the provider's own web search tool (`web_search` for the Responses API,
    /// `web_search_20250305` for Anthropic); `None`: it has none Tradewind can send.
    fn native_search(&self) -> Option<&'static str> {
        None
    }
    /// Whether [`Provider::count_tokens`] may count (so the texts are not built for nothing).
    fn counts_tokens(&self) -> bool {
        false
    }
    /// Tokens of each text as the server's own tokenizer counts them (`None`: it has none),
    /// for a server that streams no usage.
    fn count_tokens(
        &self,
        _model: &str,
        _texts: Vec<String>,
    ) -> futures::future::BoxFuture<'static, Option<Vec<u64>>> {
        Box::pin(async { None })
    }
    /// What the server behind the provider says of `model` (asked once per model; see
    /// `server`). A provider that is no local server says nothing.
    fn server_facts(
        &self,
        _model: &str,
    ) -> futures::future::BoxFuture<'static, server::ServerFacts> {
        Box::pin(async { server::ServerFacts::default() })
    }
}

/// Timeouts and retry budget of network providers.
#[derive(Debug, Clone, Copy)]
pub struct NetPolicy {
    pub connect: Duration,
    /// From sending the request to the first byte of the response body.
    pub first_byte: Duration,
    /// Longest silence between two chunks mid-stream.
    pub idle: Duration,
    pub max_retries: u32,
    pub base_backoff: Duration,
    /// Longest wait honoured for a Retry-After.
    pub max_retry_after: Duration,
    /// The most bytes of a model list read (`GET …/models`).
    pub list_bytes: usize,
}

impl Default for NetPolicy {
    fn default() -> Self {
        NetPolicy {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            idle: Duration::from_secs(120),
            max_retries: 3,
            base_backoff: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(30),
            list_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Wait before retry `attempt` (1-based): exponential with full jitter, or the server's
/// Retry-After (capped).
pub fn backoff(policy: &NetPolicy, attempt: u32, err: &ProviderError) -> Duration {
    if let ProviderError::RateLimited {
        retry_after: Some(d),
    } = err
    {
        return (*d).min(policy.max_retry_after);
    }
    let exp = policy.base_backoff.saturating_mul(1u32 << attempt.min(6));
    let mut b = [0u8; 2];
    let _ = getrandom::fill(&mut b);
    let frac = f64::from(u16::from_le_bytes(b)) / f64::from(u16::MAX);
    exp.mul_f64(0.5 + frac / 2.0)
}

/// Open a stream with retries: transient failures before the stream starts are retried with
/// backoff; `on_retry` hears of each wait as it begins (so a client can count it down live).
pub async fn open_with_retry(
    provider: &Arc<dyn Provider>,
    req: &ChatRequest,
    policy: &NetPolicy,
    cancel: &CancellationToken,
    mut on_retry: impl FnMut(&Retry),
) -> Result<EventStream, ProviderError> {
    let mut attempt = 0u32;
    loop {
        let res = tokio::select! {
            r = provider.stream(req.clone()) => r,
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
        };
        match res {
            Ok(s) => return Ok(s),
            Err(e) if e.is_retryable() && attempt < policy.max_retries => {
                attempt += 1;
                let wait = backoff(policy, attempt, &e);
                on_retry(&Retry {
                    attempt: attempt + 1,
                    max_attempts: policy.max_retries + 1,
                    delay: wait,
                    reason: e.to_string(),
                });
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {},
                    _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// A provider that is not configured: every call fails at once with instructions.
pub struct Unconfigured;

impl Provider for Unconfigured {
    fn stream(
        &self,
        _req: ChatRequest,
    ) -> futures::future::BoxFuture<'static, Result<EventStream, ProviderError>> {
        Box::pin(async { Err(ProviderError::NotConfigured) })
    }
    fn list_models(
        &self,
    ) -> futures::future::BoxFuture<'static, Result<Vec<String>, ProviderError>> {
        Box::pin(async { Err(ProviderError::NotConfigured) })
    }
    fn model(&self) -> String {
        String::new()
    }
}

/// A validated base URL (http/https, no trailing slash) and a client that never follows
/// redirects (the provider connection stays where it was configured).
pub(crate) fn http_client(
    base: &str,
    net: &NetPolicy,
) -> Result<(crate::http_client::Lazy, String), String> {
    let url = reqwest::Url::parse(base).map_err(|e| format!("invalid base URL {base}: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("base URL must be http(s): {base}"));
    }
    let client = crate::http_client::Lazy(crate::http_client::Policy::direct(net.connect));
    Ok((client, base.trim_end_matches('/').to_string()))
}

/// A request that cannot even be built (no HTTP client): its error as a provider's answer.
pub(crate) fn no_client<T: Send + 'static>(
    e: String,
) -> futures::future::BoxFuture<'static, Result<T, ProviderError>> {
    Box::pin(async move { Err(ProviderError::Network(e)) })
}

/// Settings the server keeps for its provider (also editable through the API).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ProviderConfig {
    /// `openai` (any OpenAI-compatible server), `anthropic`, or `replay`.
    pub kind: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Replay script path (kind `replay`).
    pub replay: Option<String>,
    /// `openai` only: Chat Completions (default) or the Responses API.
    #[serde(default, skip_serializing_if = "crate::protocol::ApiMode::is_chat")]
    pub api_mode: crate::protocol::ApiMode,
}

/// Build a provider from settings; the API key comes from the environment or the stored key.
pub fn build(
    cfg: &ProviderConfig,
    api_key: Option<String>,
    net: NetPolicy,
) -> Result<Arc<dyn Provider>, String> {
    match cfg.kind.as_str() {
        "openai" => {
            let base = cfg
                .base_url
                .clone()
                .unwrap_or_else(|| "https://api.openai.com/v1".to_string());
            let key = api_key.or_else(|| crate::secret_env::var("OPENAI_API_KEY"));
            let model = cfg
                .model
                .clone()
                .ok_or("--model is required for the openai provider")?;
            if cfg.api_mode == crate::protocol::ApiMode::Responses {
                return Ok(Arc::new(responses::Responses::new(&base, key, model, net)?));
            }
            Ok(Arc::new(openai::OpenAi::new(&base, key, model, net)?))
        }
        "anthropic" => {
            let base = cfg
                .base_url
                .clone()
                .unwrap_or_else(|| "https://api.anthropic.com".to_string());
            let key = api_key.or_else(|| crate::secret_env::var("ANTHROPIC_API_KEY"));
            let model = cfg
                .model
                .clone()
                .ok_or("--model is required for the anthropic provider")?;
            Ok(Arc::new(anthropic::Anthropic::new(&base, key, model, net)?))
        }
        "replay" => {
            let path = cfg
                .replay
                .clone()
                .ok_or("--replay FILE is required for the replay provider")?;
            Ok(Arc::new(replay::Replay::load(std::path::Path::new(&path))?))
        }
        "" => Ok(Arc::new(Unconfigured)),
        other => Err(format!(
            "unknown provider kind `{other}` (openai, anthropic, replay)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert!(matches!(
            ProviderError::from_status(401, "{}", None),
            ProviderError::Auth { .. }
        ));
        assert!(matches!(
            ProviderError::from_status(
                400,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#,
                None
            ),
            ProviderError::ContextLength(_)
        ));
        assert!(ProviderError::from_status(529, "overloaded", None).is_retryable());
        assert!(ProviderError::from_status(503, "", None).is_retryable());
        assert!(!ProviderError::from_status(400, "bad", None).is_retryable());
        assert!(
            ProviderError::from_stream_error(
                r#"{"error":{"type":"overloaded_error","message":"Overloaded"}}"#
            )
            .is_retryable()
        );
    }

    #[test]
    fn backoff_honours_retry_after_with_cap() {
        let p = NetPolicy::default();
        let e = ProviderError::RateLimited {
            retry_after: Some(Duration::from_secs(300)),
        };
        assert_eq!(backoff(&p, 1, &e), Duration::from_secs(30));
        let b = backoff(&p, 1, &ProviderError::Network("x".into()));
        assert!(b >= Duration::from_millis(500) && b <= Duration::from_millis(1000));
    }
}
