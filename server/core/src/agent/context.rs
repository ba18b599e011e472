//! The context window and what model calls cost: each call's usage is priced, recorded and
//! reported (`model_usage`); spend caps stop a run; and compaction — older turns summarised
//! by the model — keeps a long session inside its model's window. The full history stays in
//! the log; only what the model sees is compacted.

use std::fmt::Write as _;
use std::sync::Arc;

use futures::StreamExt;

use super::history::{SUMMARY_PREFIX, StoredParts, cut_output};
use super::{RunOutcome, Turn, werr};
use crate::models::ModelInfo;
use crate::protocol::{CompactTrigger, EventPayload, RunStatus, Usage};
use crate::provider::{self, ChatMessage, ChatRequest, ProviderError, ProviderEvent};
use crate::util::{new_id, now_ms, truncate_str};

/// The model a run talks to, and what is known of it.
#[derive(Clone)]
pub(crate) struct ModelMeta {
    /// The provider's kind (`openai`, `anthropic`), or its id when config.json's `models`
    /// names it so (`"local/qwen2.5-coder"`).
    pub provider: String,
    pub model: String,
    pub info: ModelInfo,
    /// The client the run's calls go through.
    pub provider_client: Arc<dyn provider::Provider>,
    /// What the server says of the model (once `learn` asked; see `provider::server`).
    pub facts: provider::server::ServerFacts,
    /// Output constrained to an answer or calls (once `learn` decided).
    pub constraint: Option<provider::constrain::Constraint>,
}

impl ModelMeta {
    /// The session's own provider and model, else the defaults.
    /// The session's model as the registry resolves it, described by the models config.
    pub fn of(
        registry: &crate::provider::registry::Registry,
        models: &crate::models::Catalog,
        session: &crate::store::SessionRow,
    ) -> ModelMeta {
        let r = registry.resolve(session.provider.as_deref(), session.model.as_deref());
        ModelMeta::resolved(r, models)
    }

    /// A provider entry's model, described by the models config.
    pub fn resolved(
        r: crate::provider::registry::Resolved,
        models: &crate::models::Catalog,
    ) -> ModelMeta {
        let kind = r.entry.config.kind.clone();
        let base = r.entry.config.base_url.as_deref();
        // `models."<id>/<model>"` first (two OpenAI-compatible servers differ), then the kind.
        let by_id = format!("{}/{}", r.entry.id, r.model);
        let provider = if !r.entry.id.is_empty() && models.has_override(&by_id) {
            r.entry.id.clone()
        } else {
            kind
        };
        let info = models.info(&provider, &r.model, base);
        ModelMeta {
            provider,
            model: r.model,
            info,
            provider_client: r.entry.provider.clone(),
            facts: provider::server::ServerFacts::default(),
            constraint: None,
        }
    }

    /// Ask the server what it is and says of the model (once per provider and model): the
    /// window, when config.json does not set one (the server's word, then its model list, win
    /// over the built-in table), `toolCalls: auto` (text on a server that says the model takes
    /// no tools) and `constrained`.
    pub async fn learn(&mut self) {
        let client = self.provider_client.clone();
        let (facts, listed) = tokio::join!(
            client.server_facts(&self.model),
            client.context_window(&self.model)
        );
        if self.info.window_source != crate::models::WindowSource::Config
            && let Some(w) = facts.context.or(listed)
        {
            self.info.context_window = w;
            self.info.window_source = crate::models::WindowSource::Provider;
        }
        if self.info.tool_calls == crate::models::ToolCallsMode::Auto && facts.tools == Some(false)
        {
            self.info.tool_calls = crate::models::ToolCallsMode::Text;
        }
        self.constraint =
            provider::constrain::decide(self.info.constrained, self.info.tool_calls, &facts);
        self.facts = facts;
    }

    pub fn name(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }

    /// What the server is and does for the model, as listed (once `learn` asked).
    pub fn server_view(&self) -> crate::protocol::ModelServerView {
        crate::protocol::ModelServerView {
            server: self.facts.kind.as_str().to_string(),
            version: self.facts.version.clone(),
            tools: self.facts.tools,
            tool_calls: self.info.tool_calls.as_str().to_string(),
            constrained: self.constraint.map_or("off", |c| c.as_str()).to_string(),
            context_window: self.info.context_window,
        }
    }
}

/// Share of the window the latest turns may keep after a compaction.
const KEEP_SHARE: f64 = 0.25;
/// Share of the window the summary call's prompt may fill.
const SUMMARY_INPUT_SHARE: f64 = 0.6;
/// What a summary may take of the window, at most `SUMMARY_RESERVE` tokens.
const SUMMARY_SHARE: f64 = 0.1;
const SUMMARY_RESERVE: f64 = 2_000.0;
/// A kept tool output is cut to this when the latest turns alone are over their share.
const KEPT_TOOL_CHARS: usize = 2_000;
/// Characters kept of one user or assistant text in the summary's transcript.
const TRANSCRIPT_TEXT: usize = 6_000;
/// Characters kept of one tool call's arguments in the summary's transcript.
const TRANSCRIPT_ARGS: usize = 300;

const SUMMARY_SYSTEM: &str = "You compact a coding agent's conversation so it can continue in a \
smaller context. Write a summary that lets the agent carry on without the original turns. Use \
exactly these Markdown sections: ## Goal (what the user wants, in their words where it matters), \
## Decisions (what was decided and why), ## Files touched (paths and what changed in each), \
## Open questions, ## Facts that must survive (names, commands, versions, errors, numbers the \
agent will need), ## Progress and next step. Be specific and terse; never invent anything that \
is not in the transcript.";

/// Characters of a prompt: what every call carries (`fixed`) and the messages.
pub(crate) fn prompt_chars(fixed: usize, msgs: &[ChatMessage]) -> usize {
    fixed + msgs.iter().map(ChatMessage::chars).sum::<usize>()
}

impl Turn<'_> {
    /// Tokens of `chars` characters, by this run's measured characters per token.
    pub(crate) fn tokens_of(&self, chars: usize) -> u64 {
        (chars as f64 / self.chars_per_token).ceil() as u64
    }

    /// The window this run works within (smaller once the provider refused a prompt).
    pub(crate) fn window(&self) -> u64 {
        let w = self.model.info.context_window;
        self.window_cap.map_or(w, |c| c.min(w)).max(1)
    }

    /// Price a model call's usage, add it to the run's, record it, and report it.
    pub(crate) async fn account(&mut self, mut u: Usage, purpose: &str, prompt_chars: usize) {
        u.cost_usd = crate::models::cost(&u, self.model.info.price);
        self.usage.add(&u);
        if purpose == "turn" && !u.estimated && u.input_tokens > 0 && prompt_chars > 0 {
            // The provider's own count of a real turn calibrates later estimates.
            self.chars_per_token = (prompt_chars as f64 / u.input_tokens as f64).clamp(1.0, 8.0);
        }
        let id = new_id();
        let call = crate::store::NewModelCall {
            id: &id,
            session_id: &self.run.session.id,
            run_id: Some(&self.run.run_id),
            provider: &self.model.provider,
            model: &self.model.model,
            purpose,
            usage: &u,
            context_window: self.window(),
            at: now_ms(),
        };
        if let Err(e) = self.deps.store.record_model_call(&call).await {
            tracing::error!(error = %e, "cannot record a model call's usage");
        }
        self.emit(EventPayload::ModelUsage {
            model: self.model.name(),
            purpose: purpose.to_string(),
            usage: u,
            context_tokens: u.input_tokens + u.output_tokens,
            context_window: self.window(),
        });
    }

    /// A run that may not make another model call because a spend cap is reached.
    pub(crate) async fn spend_stop(&self) -> Option<RunOutcome> {
        // Two reads at once (a pooled connection each): this is on every model call's path.
        let (caps, own) = tokio::join!(
            crate::usage::effective_caps(&self.deps.store, &self.deps.cfg),
            self.deps.store.spend_cap_of(&self.run.session.id)
        );
        let own = own.unwrap_or(self.run.session.spend_cap_usd);
        let session_cap = own.or(caps.session_usd);
        if session_cap.is_none() && caps.day_usd.is_none() {
            return None;
        }
        let (session, day) = match self
            .deps
            .store
            .spent(&self.run.session.id, crate::usage::day_start(now_ms()))
            .await
        {
            Ok(x) => x,
            Err(e) => {
                tracing::error!(error = %e, "cannot read what was spent");
                return None;
            }
        };
        let message = if let Some(cap) = session_cap.filter(|c| session >= *c) {
            format!(
                "This session has spent ${session:.2} of its ${cap:.2} spend cap, so the run stopped before the next model call. Raise the session's cap (PATCH /api/sessions/{{id}} {{\"spend_cap_usd\": …}}) and resume the run to continue."
            )
        } else if let Some(cap) = caps.day_usd.filter(|c| day >= *c) {
            format!(
                "All sessions together have spent ${day:.2} today (UTC) of the ${cap:.2} daily spend cap, so the run stopped before the next model call. Raise the daily cap (PUT /api/usage/caps) and resume the run to continue."
            )
        } else {
            return None;
        };
        self.emit(EventPayload::Error {
            code: "spend_cap".into(),
            message: message.clone(),
            fatal: true,
        });
        Some(RunOutcome {
            status: RunStatus::Failed,
            error: Some(werr("spend_cap", message)),
            usage: self.usage,
        })
    }
}

pub(crate) use crate::provider::fixed_chars;

/// Compact when the next prompt would pass the threshold. `Ok(false)`: nothing to do.
pub(crate) async fn maybe_compact(t: &mut Turn<'_>, fixed: usize) -> Result<bool, ProviderError> {
    let chars = prompt_chars(fixed, &t.history.lock().messages());
    let limit = (t.window() as f64 * t.deps.cfg.agent.compact_at()) as u64;
    if t.tokens_of(chars) <= limit {
        return Ok(false);
    }
    if prune(t, fixed) {
        return Ok(true);
    }
    Ok(compact(t, fixed, CompactTrigger::Auto).await? == Compaction::Done)
}

/// After pruning, the prompt must be this far under the threshold, or a summary is made (a
/// prune is free: doing it again a turn later costs nothing, a summary costs a model call).
const PRUNE_ENOUGH: f64 = 0.9;

/// First, and free: cut the tool outputs before the latest turns to one line each. Done only
/// when that brings the prompt well under the threshold (else the summary is made).
fn prune(t: &mut Turn<'_>, fixed: usize) -> bool {
    let msgs = t.history.lock().messages();
    let window = t.window() as f64;
    let keep_chars = (window * KEEP_SHARE * t.chars_per_token) as usize;
    let (boundary, _) = boundary(&msgs, keep_chars);
    let mut saved = 0;
    let mut pruned = 0u64;
    for m in &msgs[..boundary] {
        if let ChatMessage::Tool { text, .. } = m
            && text.len() > super::history::PRUNED_LINE * 2
        {
            saved += text.len() - super::history::one_line(text).len();
            pruned += 1;
        }
    }
    let before_chars = prompt_chars(fixed, &msgs);
    let after = t.tokens_of(before_chars - saved);
    let target = window * t.deps.cfg.agent.compact_at() * PRUNE_ENOUGH;
    if pruned == 0 || after as f64 > target {
        return false;
    }
    let kept = msgs.len() - boundary;
    drop(msgs);
    t.store_message(
        crate::protocol::MessageRole::Prune,
        StoredParts {
            kept: Some(kept),
            ..Default::default()
        },
    );
    t.emit(EventPayload::ContextCompacted {
        trigger: CompactTrigger::Auto,
        summary: String::new(),
        messages_summarized: 0,
        messages_kept: kept as u64,
        tokens_before: t.tokens_of(before_chars),
        tokens_after: after,
        context_window: t.window(),
        usage: Usage {
            cost_usd: Some(0.0),
            ..Usage::default()
        },
        pruned_outputs: pruned,
    });
    true
}

/// How a compaction ended (when the model could be asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compaction {
    /// The older turns are a summary now.
    Done,
    /// Nothing to summarise: the conversation is no longer than the turns always kept.
    Nothing,
    /// The summary came out no shorter than the turns it would replace: it is thrown away and
    /// the conversation stays as it was (an `error` event, `compaction_grew`, says so).
    NotShorter,
}

/// Summarise the older turns and keep the latest ones.
pub(crate) async fn compact(
    t: &mut Turn<'_>,
    fixed: usize,
    trigger: CompactTrigger,
) -> Result<Compaction, ProviderError> {
    super::hooks::before_compact(t, trigger).await;
    let msgs = t.history.lock().messages();
    let before = t.tokens_of(prompt_chars(fixed, &msgs));
    // The kept turns get their share of the window, less when the system prompt and tools leave
    // little room under the threshold (the summary needs room too).
    let window = t.window() as f64;
    let room = window * t.deps.cfg.agent.compact_at()
        - t.tokens_of(fixed) as f64
        - (window * SUMMARY_SHARE).min(SUMMARY_RESERVE);
    // By hand, everything but the latest turn is summarised.
    let share = if trigger == CompactTrigger::Manual {
        0.0
    } else {
        KEEP_SHARE
    };
    let keep_tokens = (window * share).min(room).max(0.0);
    let keep_chars = (keep_tokens * t.chars_per_token) as usize;
    let (boundary, kept_chars) = boundary(&msgs, keep_chars);
    let only_a_summary = boundary == 1
        && matches!(&msgs[0], ChatMessage::User { text, .. } if text.starts_with(SUMMARY_PREFIX));
    if boundary == 0 || only_a_summary {
        return Ok(Compaction::Nothing);
    }
    let kept_limit = (kept_chars > keep_chars).then_some(KEPT_TOOL_CHARS);
    let budget = ((window * SUMMARY_INPUT_SHARE * t.chars_per_token) as usize)
        .saturating_sub(SUMMARY_SYSTEM.len())
        .max(4_000);
    let transcript = transcript(&msgs[..boundary], budget);
    let (mut summary, usage) = summarise(t, &transcript).await?;
    let files = files_changed(&msgs[..boundary]);
    if !files.is_empty() {
        let _ = write!(
            summary,
            "\n\nFiles written or edited in the summarised turns (from the tool log): {}",
            files.join(", ")
        );
    }
    let replaced: usize = msgs[..boundary].iter().map(ChatMessage::chars).sum();
    if summary.chars().count() >= replaced {
        let message = format!(
            "The summary ({} characters) was no shorter than the {boundary} messages it would replace ({replaced} characters): it was thrown away and the conversation is unchanged.",
            summary.chars().count()
        );
        t.emit(EventPayload::Error {
            code: "compaction_grew".into(),
            message,
            fatal: false,
        });
        return Ok(Compaction::NotShorter);
    }
    let kept = msgs.len() - boundary;
    drop(msgs);
    t.store_message(
        crate::protocol::MessageRole::Summary,
        StoredParts {
            text: summary.clone(),
            kept: Some(kept),
            kept_limit,
            ..Default::default()
        },
    );
    let after = t.tokens_of(prompt_chars(fixed, &t.history.lock().messages()));
    t.emit(EventPayload::ContextCompacted {
        trigger,
        summary,
        messages_summarized: boundary as u64,
        messages_kept: kept as u64,
        tokens_before: before,
        tokens_after: after,
        context_window: t.window(),
        usage,
        pruned_outputs: 0,
    });
    Ok(Compaction::Done)
}

/// Where the kept part starts: the earliest user or assistant message from which the rest fits
/// `keep_chars` — at least the latest answer and its results, whatever their size. Returns the
/// index and the kept part's characters.
fn boundary(msgs: &[ChatMessage], keep_chars: usize) -> (usize, usize) {
    let mut acc = 0;
    let mut best: Option<(usize, usize)> = None;
    for (i, m) in msgs.iter().enumerate().rev() {
        acc += m.chars();
        let starts_turn = !matches!(m, ChatMessage::Tool { .. });
        if starts_turn && (best.is_none() || acc <= keep_chars) {
            best = Some((i, acc));
        }
        if acc > keep_chars && best.is_some() {
            break;
        }
    }
    // A summary opening the history is summarised again only with something after it.
    best.unwrap_or((0, acc))
}

/// The older turns as text for the summary call: tool outputs pruned to one line, long texts
/// cut, and (when still over `budget`) the middle left out — the start holds the goal, the end
/// the latest state.
fn transcript(msgs: &[ChatMessage], budget: usize) -> String {
    let mut out = String::new();
    for m in msgs {
        match m {
            ChatMessage::User { text, .. } => {
                let text = text.strip_prefix(SUMMARY_PREFIX).map_or_else(
                    || format!("## User\n{}\n\n", truncate_str(text, TRANSCRIPT_TEXT)),
                    |s| format!("## Summary of what came before\n{s}\n\n"),
                );
                out.push_str(&text);
            }
            ChatMessage::Assistant {
                text, tool_calls, ..
            } => {
                out.push_str("## Assistant\n");
                if !text.is_empty() {
                    out.push_str(truncate_str(text, TRANSCRIPT_TEXT));
                    out.push('\n');
                }
                for c in tool_calls {
                    let _ = writeln!(
                        out,
                        "- called {}({})",
                        c.name,
                        truncate_str(&c.arguments, TRANSCRIPT_ARGS)
                    );
                }
                out.push('\n');
            }
            ChatMessage::Tool { name, text, .. } => {
                let _ = writeln!(out, "- {name} returned: {}", super::history::one_line(text));
            }
        }
    }
    if out.len() <= budget {
        return out;
    }
    let head = truncate_str(&out, budget / 5).len();
    let mut tail_start = out.len() - (budget - head).min(out.len() - head);
    while !out.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    format!(
        "{}\n\n[… {} characters of the middle of the conversation left out …]\n\n{}",
        &out[..head],
        tail_start - head,
        &out[tail_start..]
    )
}

/// Paths the summarised turns wrote or edited, in order, once each.
fn files_changed(msgs: &[ChatMessage]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for m in msgs {
        if let ChatMessage::Assistant { tool_calls, .. } = m {
            for c in tool_calls {
                if !matches!(c.name.as_str(), "write_file" | "edit_file") {
                    continue;
                }
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&c.arguments) else {
                    continue;
                };
                if let Some(p) = v.get("path").and_then(|p| p.as_str())
                    && !files.iter().any(|f| f == p)
                {
                    files.push(p.to_string());
                }
            }
        }
    }
    files
}

/// One summary call: the model's text and what it cost (accounted as `compaction`). A summary
/// the provider refuses as too long is tried once more with half the transcript.
async fn summarise(t: &mut Turn<'_>, transcript: &str) -> Result<(String, Usage), ProviderError> {
    let mut text = transcript.to_string();
    for attempt in 0..2 {
        let req = ChatRequest {
            system: Arc::from(SUMMARY_SYSTEM),
            messages: Arc::new(vec![ChatMessage::User {
                text: format!(
                    "Summarise this conversation between a user and a coding agent (the transcript below, tool outputs pruned):\n\n{text}"
                ),
                images: Vec::new(),
            }]),
            tools: Arc::from(Vec::new()),
            reasoning_effort: None,
            model: None,
            attachments: None,
            calls_as_text: false,
            constraint: None,
            num_ctx: Some(t.model.info.context_window),
            max_tokens: None,
            native_search: None,
        };
        match collect(t, req).await {
            Ok(done) => return Ok(done),
            Err(ProviderError::ContextLength(_)) if attempt == 0 => {
                text = transcript_half(&text);
            }
            Err(e) => return Err(e),
        }
    }
    Err(ProviderError::ContextLength(
        "even half of the older conversation does not fit the model".into(),
    ))
}

fn transcript_half(text: &str) -> String {
    let budget = text.len() / 2;
    let head = truncate_str(text, budget / 5).len();
    let mut tail_start = text.len() - (budget - head);
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    format!(
        "{}\n\n[… left out …]\n\n{}",
        &text[..head],
        &text[tail_start..]
    )
}

/// Stream a call to its end and return its text (nothing is shown while it streams).
async fn collect(t: &mut Turn<'_>, req: ChatRequest) -> Result<(String, Usage), ProviderError> {
    let cancel = t.run.cancel.clone();
    let prompt_chars = req.chars();
    let mut stream = t.open_stream(&req).await?;
    let (mut text, mut usage, mut finished) = (String::new(), None, false);
    loop {
        let next = tokio::select! {
            n = stream.next() => n,
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
        };
        let Some(ev) = next else { break };
        match ev? {
            ProviderEvent::TextDelta(d) => text.push_str(&d),
            ProviderEvent::Usage(u) => usage = Some(u),
            ProviderEvent::Finish(_) => finished = true,
            _ => {}
        }
    }
    let u = usage.unwrap_or(Usage {
        input_tokens: provider::estimate_tokens(prompt_chars),
        output_tokens: provider::estimate_tokens(text.len()),
        ..Usage::default()
    });
    t.account(u, "compaction", prompt_chars).await;
    if !finished || text.trim().is_empty() {
        return Err(ProviderError::Truncated(
            "the summary call ended without a summary".into(),
        ));
    }
    let mut cost = u;
    cost.cost_usd = crate::models::cost(&u, t.model.info.price);
    let mut summary = text.trim().to_string();
    cut_output(&mut summary, 40_000);
    Ok((summary, cost))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCallReq;

    fn user(t: &str) -> ChatMessage {
        ChatMessage::User {
            text: t.into(),
            images: vec![],
        }
    }
    fn call(id: &str, path: &str) -> ChatMessage {
        ChatMessage::Assistant {
            thinking: vec![],
            text: String::new(),
            tool_calls: vec![ToolCallReq {
                id: id.into(),
                name: "write_file".into(),
                arguments: serde_json::json!({"path": path, "content": "x"}).to_string(),
            }],
        }
    }
    fn result(id: &str, text: &str) -> ChatMessage {
        ChatMessage::Tool {
            call_id: id.into(),
            name: "write_file".into(),
            text: text.into(),
        }
    }

    #[test]
    fn the_kept_part_starts_a_turn_and_holds_at_least_the_latest_answer() {
        let big = "y".repeat(10_000);
        let msgs = vec![
            user("goal"),
            call("a", "src/a.rs"),
            result("a", &big),
            call("b", "src/b.rs"),
            result("b", &big),
        ];
        // Room for nothing: the latest answer and its result are kept anyway.
        let (b, kept) = boundary(&msgs, 10);
        assert_eq!(b, 3);
        assert!(kept > 10_000);
        // Room for everything after the goal.
        let (b, _) = boundary(&msgs, 100_000);
        assert_eq!(b, 0);
        assert_eq!(files_changed(&msgs[..3]), vec!["src/a.rs".to_string()]);
    }

    #[test]
    fn the_transcript_prunes_outputs_and_keeps_start_and_end_within_budget() {
        let mut msgs = vec![user("the goal is X")];
        for i in 0..200 {
            msgs.push(call(&format!("c{i}"), &format!("f{i}.rs")));
            msgs.push(result(
                &format!("c{i}"),
                &format!("wrote f{i}.rs\n{}", "z".repeat(5_000)),
            ));
        }
        msgs.push(user("the last request"));
        let t = transcript(&msgs, 8_000);
        assert!(t.len() <= 8_200, "{}", t.len());
        assert!(t.contains("the goal is X") && t.contains("the last request"));
        assert!(t.contains("output pruned") && t.contains("left out"));
        assert!(!t.contains(&"z".repeat(200)));
    }
}
