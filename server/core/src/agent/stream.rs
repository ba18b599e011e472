//! The model turns of a run: context, spend check, the streamed answer (deltas coalesced),
//! its tool calls, until a text-only answer, the iteration limit, an error or a cancel.

use super::*;

/// The run's system prompt (its tools, roots, AGENTS.md and memories) and the first spend
/// check, read at once (a pooled connection each): both are on the way to the first model call.
pub(super) async fn system_and_spend(
    t: &Turn<'_>,
    tools: &[provider::ToolSpec],
    skills: &str,
) -> (Arc<str>, Option<RunOutcome>) {
    let names: Vec<&str> = tools.iter().map(|s| s.name.as_str()).collect();
    let memory_off = t.deps.cfg.disabled_plugins.iter().any(|p| p == "memory");
    let (memories, stop) = tokio::join!(
        async {
            if memory_off {
                String::new()
            } else {
                crate::memory::prompt_section(&t.deps.store, &t.run.session.workspace, &t.run.text)
                    .await
            }
        },
        t.spend_stop(),
    );
    if t.depth() > 0 {
        crate::probe::moment(crate::probe::MarkKind::Step("memories read"));
    }
    let system = history::system_prompt(
        t.agent,
        t.profile.as_deref(),
        &t.paths.workspace,
        &t.paths.extra_roots,
        &names,
        &format!(
            "{}{memories}{skills}",
            crate::instructions::prompt_section(&t.paths)
        ),
    );
    (system.into(), stop)
}

/// The session's skills, by name and description, within 2 % of the model's context window
/// (empty: it has none, and the skill tools are not offered).
pub(super) async fn skills_section(t: &Turn<'_>) -> String {
    let budget = usize::try_from(t.model.info.context_window.saturating_mul(4) / 50).unwrap_or(0);
    t.deps
        .store
        .skill_catalogue(&t.paths.workspace, &t.paths.state_dir)
        .await
        .prompt_section(budget)
}

pub(super) async fn loop_turns(t: &mut Turn<'_>) -> RunOutcome {
    let max = t.deps.cfg.agent.max_iterations.max(1);
    let skills = skills_section(t).await;
    let tools = offer::styled(t, offered_tools(t, !skills.is_empty()));
    let (system, first_stop) = system_and_spend(t, &tools, &skills).await;
    // The provider's own web search, when chosen and allowed (asked once per session).
    let native_search = native::search_tool(t).await;
    let mut first_stop = Some(first_stop);
    // A prompt the provider refuses as too long is compacted and retried once per run.
    let mut overflowed = false;
    // The last reply could not be read (under a constraint it is asked for once more).
    let mut retried = false;
    let mut iteration = 0;
    while iteration < max {
        iteration += 1;
        if t.run.cancel.is_cancelled() {
            return RunOutcome {
                status: RunStatus::Cancelled,
                error: None,
                usage: t.usage,
            };
        }
        if t.deps.events.storage_full() {
            return disk_full(t.usage);
        }
        let stop = match first_stop.take() {
            Some(stop) => stop,
            None => t.spend_stop().await,
        };
        if let Some(stop) = stop {
            return stop;
        }
        if t.depth() > 0 && iteration == 1 {
            crate::probe::moment(crate::probe::MarkKind::Step("spend checked"));
        }
        let offered = with_mcp(t, &tools);
        let fixed = context::fixed_chars(&system, &offered);
        if iteration == 1 {
            warn_small_window(t, fixed);
        }
        if let Err(e) = context::maybe_compact(t, fixed).await
            && let Some(end) = compaction_failed(t, &e)
        {
            return end;
        }
        let messages = t.history.lock().messages();
        let prompt_tokens = t.tokens_of(context::prompt_chars(fixed, &messages));
        let req = request(t, (&system, offered), messages, native_search.clone());
        let model_call = tracing::info_span!("model_call", iteration);
        let streamed = tracing::Instrument::instrument(stream_turn(t, req), model_call).await;
        let (calls, duplicates, paused) = match streamed {
            Ok(x) => x,
            Err(ProviderError::ContextLength(m)) if !overflowed => {
                overflowed = true;
                // The window is smaller than this prompt: work below it from now on.
                t.window_cap = Some(t.window().min(prompt_tokens).max(1));
                tracing::warn!(reason = %m, prompt_tokens, "the provider refused the prompt as too long; compacting");
                match context::compact(t, fixed, crate::protocol::CompactTrigger::Overflow).await {
                    Ok(context::Compaction::Done) => {
                        iteration -= 1;
                        continue;
                    }
                    Ok(context::Compaction::Nothing | context::Compaction::NotShorter) => {
                        let e = ProviderError::ContextLength(m);
                        return fail(t, &e);
                    }
                    Err(e) => {
                        if let Some(end) = compaction_failed(t, &e) {
                            return end;
                        }
                        return fail(t, &ProviderError::ContextLength(m));
                    }
                }
            }
            Err(ProviderError::Cancelled) if t.deps.events.storage_full() => {
                return disk_full(t.usage);
            }
            Err(ProviderError::Cancelled) => {
                return RunOutcome {
                    status: RunStatus::Cancelled,
                    error: None,
                    usage: t.usage,
                };
            }
            Err(e) => return fail(t, &e),
        };
        if calls.is_empty() && paused {
            // The provider paused a long turn (its own searches): sent back, the model goes on.
            continue;
        }
        if calls.is_empty() {
            return RunOutcome {
                status: RunStatus::Completed,
                error: None,
                usage: t.usage,
            };
        }
        // Constrained, an unreadable reply is asked for once more (its failed calls tell the
        // model why); a second one in a row ends the run.
        let unreadable = calls.iter().any(|c| is_unreadable(&c.name, &c.arguments));
        if t.model.constraint.is_some() && unreadable && retried {
            run_calls(t, &calls, &duplicates).await;
            return unreadable_twice(t);
        }
        retried = unreadable;
        run_calls(t, &calls, &duplicates).await;
        // The tool boundary: what the user sent meanwhile with `delivery: steer`.
        deliver_steers(t).await;
    }
    let msg = format!("stopped after {max} model calls (agent.maxIterations)");
    t.emit(EventPayload::Error {
        code: "iteration_limit".into(),
        message: msg.clone(),
        fatal: true,
    });
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr("iteration_limit", msg)),
        usage: t.usage,
    }
}

/// One model call's request: the run's system prompt, these tools and messages, and what the
/// model's settings ask of its server.
fn request(
    t: &Turn<'_>,
    (system, offered): (&Arc<str>, Arc<[provider::ToolSpec]>),
    messages: Arc<Vec<provider::ChatMessage>>,
    native_search: Option<Arc<str>>,
) -> ChatRequest {
    ChatRequest {
        system: system.clone(),
        messages,
        tools: offered,
        reasoning_effort: t.profile.as_ref().and_then(|p| p.reasoning).or(t
            .run
            .session
            .reasoning_effort
            .0),
        model: None,
        attachments: Some(t.deps.attachments.clone()),
        calls_as_text: t.model.info.tool_calls == provider::textcalls::ToolCallsMode::Text,
        constraint: t.model.constraint,
        num_ctx: Some(t.model.info.context_window),
        max_tokens: t.model.info.max_output_tokens,
        native_search,
    }
}

/// The system prompt and tools alone fill the model's window: said once, at a run's first call
/// (a local server would cut the prompt silently).
fn warn_small_window(t: &Turn<'_>, fixed: usize) {
    if t.tokens_of(fixed) < t.model.info.context_window {
        return;
    }
    t.emit(EventPayload::Error {
        code: "window_too_small".into(),
        message: format!(
            "The system prompt and tools alone take about {} tokens, more than {}'s context window ({} tokens): the server may cut the prompt. Give the model a larger window (contextWindow in config.json, or the server's own setting), or use promptStyle \"compact\".",
            t.tokens_of(fixed),
            t.model.name(),
            t.model.info.context_window
        ),
        fatal: false,
    });
}

use provider::textcalls::is_unreadable;

/// A constrained reply that could not be read after its one retry ends the run.
fn unreadable_twice(t: &Turn<'_>) -> RunOutcome {
    let msg = "the model's reply could not be read as an answer or calls, twice in a row (constrained output is on; see the failed calls in the transcript)".to_string();
    t.emit(EventPayload::Error {
        code: "unreadable_reply".into(),
        message: msg.clone(),
        fatal: true,
    });
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr("unreadable_reply", msg)),
        usage: t.usage,
    }
}

/// A run ended by a provider error (shown once, as the final error).
pub(super) fn fail(t: &Turn<'_>, e: &ProviderError) -> RunOutcome {
    t.emit(EventPayload::Error {
        code: e.code().into(),
        message: e.to_string(),
        fatal: true,
    });
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr(e.code(), e.to_string())),
        usage: t.usage,
    }
}

/// A compaction that failed: a cancel ends the run; anything else is reported and the run goes
/// on with the whole history (the provider may still take it).
pub(super) fn compaction_failed(t: &Turn<'_>, e: &ProviderError) -> Option<RunOutcome> {
    if *e == ProviderError::Cancelled {
        return Some(RunOutcome {
            status: RunStatus::Cancelled,
            error: None,
            usage: t.usage,
        });
    }
    t.emit(EventPayload::Error {
        code: "compaction_failed".into(),
        message: format!(
            "The conversation could not be compacted ({e}); continuing with the whole history."
        ),
        fatal: false,
    });
    None
}

/// What a streamed answer has gathered so far.
#[derive(Default)]
struct Answer {
    text: String,
    reasoning: String,
    calls: Vec<(usize, ToolCallReq)>,
    finished: bool,
    reported: Option<Usage>,
    signature: String,
    redacted: Vec<String>,
    /// The pages the answer cites (a provider's own web search).
    citations: Vec<crate::protocol::Citation>,
    /// The provider paused the turn (it goes on when sent back).
    paused: bool,
    /// Keeps call syntax written as text, and `<think>`, out of the streamed text.
    filter: provider::textcalls::Filter,
}

impl Answer {
    /// Characters streamed so far (text, reasoning and tool arguments).
    fn streamed(&self) -> usize {
        self.text.len()
            + self.reasoning.len()
            + self
                .calls
                .iter()
                .map(|(_, c)| c.arguments.len())
                .sum::<usize>()
    }

    /// Take one event of the stream; deltas go out through the coalescers.
    fn take(
        &mut self,
        t: &Turn<'_>,
        ev: ProviderEvent,
        message_id: &str,
        tc: &mut Coalescer,
        rc: &mut Coalescer,
    ) {
        match ev {
            ProviderEvent::TextDelta(d) => {
                crate::probe::chunk(d.len());
                self.text.push_str(&d);
                match self.filter.push(&d) {
                    provider::textcalls::Filtered::Pass => {
                        if let Some(chunk) = tc.push(&d) {
                            t.delta(DeltaKind::Text, message_id, &chunk);
                        }
                    }
                    provider::textcalls::Filtered::Split { text, reasoning } => {
                        stream_split(t, message_id, (tc, rc), &text, &reasoning);
                    }
                }
            }
            ProviderEvent::ReasoningDelta(d) => {
                self.reasoning.push_str(&d);
                if let Some(chunk) = rc.push(&d) {
                    t.delta(DeltaKind::Reasoning, message_id, &chunk);
                }
            }
            ProviderEvent::ReasoningSignature(s) => self.signature.push_str(&s),
            ProviderEvent::RedactedReasoning(d) => self.redacted.push(d),
            ProviderEvent::ToolCallStart { index, id, name } => self.calls.push((
                index,
                ToolCallReq {
                    id: id.into(),
                    name,
                    arguments: String::new(),
                },
            )),
            ProviderEvent::ToolCallDelta { index, arguments } => {
                if let Some((_, c)) = self.calls.iter_mut().rev().find(|(i, _)| *i == index) {
                    c.arguments.push_str(&arguments);
                }
            }
            ProviderEvent::Usage(u) => self.reported = Some(u),
            ProviderEvent::WebSearch(w) => {
                // The search is done and paid for whatever becomes of the answer: shown now.
                t.flush_deltas(message_id, tc, rc);
                t.emit(EventPayload::WebSearch {
                    search_id: w.id,
                    provider: t.model.provider.clone(),
                    query: w.query,
                    status: if w.error.is_some() {
                        "failed"
                    } else {
                        "completed"
                    }
                    .into(),
                    results: w.results,
                    error: w.error,
                });
            }
            ProviderEvent::Citation(c) => {
                if !self.citations.contains(&c) {
                    self.citations.push(c);
                }
            }
            ProviderEvent::Finish(r) => {
                self.finished = true;
                self.paused = r == provider::FinishReason::Paused;
            }
        }
    }
}

/// Stream one model response; store it whole once the model has finished (returns its tool
/// calls, each with an id of its own, and those that reused an id of the reply: see
/// `history::unique_call_ids`). A stream that breaks before its finish stores nothing and runs
/// no tool.
pub(super) async fn stream_turn(
    t: &mut Turn<'_>,
    req: ChatRequest,
) -> Result<(Vec<ToolCallReq>, Vec<history::DuplicateCall>, bool), ProviderError> {
    let cancel = t.run.cancel.clone();
    let called = Instant::now();
    let mut stream = t.open_stream(&req).await;
    // What a cancelled stream cost, if the provider never says (usage comes at the end).
    let prompt_chars = req.chars();
    let mode = t.model.info.tool_calls;
    // A bare JSON call counts only when it names an offered tool (`toolCalls: text`).
    let offered: Vec<String> = if mode == provider::textcalls::ToolCallsMode::Text {
        req.tools.iter().map(|s| s.name.clone()).collect()
    } else {
        Vec::new()
    };
    // What a server that streams no usage is asked to count (shared parts, not copies).
    let counted = (req.system.clone(), req.tools.clone());
    // The history is shared with the request: let go of it, so storing this answer extends the
    // history in place instead of copying it.
    drop(req);
    let message_id = new_id();
    // A reply constrained to a JSON object: its answer's text streams, its calls never do, and
    // it is read whole at the end (never shown as JSON).
    let json_reply = t.model.constraint.is_some();
    let mut a = Answer {
        filter: if json_reply {
            provider::textcalls::Filter::json_answer()
        } else {
            provider::textcalls::Filter::new(mode)
        },
        ..Answer::default()
    };
    let (mut tc, mut rc) = (Coalescer::default(), Coalescer::default());
    let s = match &mut stream {
        Ok(s) => s,
        Err(e) => return Err(e.clone()),
    };
    // The cancellation and the coalescers' flush timer are made once and polled in place:
    // an answer streams thousands of chunks, and neither changes with each one.
    let cancelled = cancel.cancelled();
    tokio::pin!(cancelled);
    let flush = tokio::time::sleep(coalesce::FLUSH_EVERY);
    tokio::pin!(flush);
    let mut armed: Option<tokio::time::Instant> = None;
    loop {
        let deadline = match (tc.deadline(), rc.deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if deadline != armed {
            if let Some(d) = deadline {
                flush.as_mut().reset(d);
            }
            armed = deadline;
        }
        let next = tokio::select! {
            n = s.next() => n,
            () = &mut cancelled => {
                // Stopped mid-answer: the provider has already generated (and billed) what was
                // streamed; count it, estimated, rather than showing nothing.
                let u = a.reported.unwrap_or(Usage {
                    input_tokens: provider::estimate_tokens(prompt_chars),
                    output_tokens: provider::estimate_tokens(a.streamed()),
                    ..Usage::default()
                });
                t.flush_deltas(&message_id, &mut tc, &mut rc);
                t.account(u, "turn", prompt_chars).await;
                return Err(ProviderError::Cancelled);
            }
            () = &mut flush, if armed.is_some() => {
                armed = None;
                t.flush_deltas(&message_id, &mut tc, &mut rc);
                continue;
            }
        };
        let Some(ev) = next else {
            crate::probe::model_call(called.elapsed());
            break;
        };
        if t.deps.events.storage_full() {
            // Streaming into a log that cannot be written: stop the model call now.
            return Err(ProviderError::Cancelled);
        }
        a.take(t, ev?, &message_id, &mut tc, &mut rc);
    }
    let (text, reasoning) = a.filter.finish();
    stream_split(t, &message_id, (&mut tc, &mut rc), &text, &reasoning);
    t.flush_deltas(&message_id, &mut tc, &mut rc);
    // A server that streams no usage (llama-cpp-python's does not) is counted by its own
    // tokenizer where it has one, else from the text's length, marked estimated: compaction and
    // the context meter work with it too.
    let u = match a.reported {
        Some(u) => u,
        None => unreported_usage(t, counted, &a, prompt_chars).await,
    };
    t.account(u, "turn", prompt_chars).await;
    if !a.finished {
        return Err(ProviderError::Truncated(
            "the stream ended before the model finished".into(),
        ));
    }
    let mut calls: Vec<ToolCallReq> = a.calls.into_iter().map(|(_, c)| c).collect();
    if json_reply && calls.is_empty() {
        json_calls(&mut a.text, &mut calls);
    } else {
        written_calls(&mut a.text, &mut a.reasoning, &mut calls, mode, &offered);
    }
    let duplicates = history::unique_call_ids(&mut calls);
    t.store_message(
        crate::protocol::MessageRole::Assistant,
        StoredParts {
            text: a.text.clone(),
            reasoning: a.reasoning.clone(),
            tool_calls: calls.clone(),
            reasoning_signature: a.signature,
            redacted_reasoning: a.redacted,
            ..Default::default()
        },
    );
    t.emit(EventPayload::MessageComplete {
        message_id: message_id.into(),
        text: a.text,
        reasoning: a.reasoning,
        citations: a.citations,
    });
    Ok((calls, duplicates, a.paused))
}

/// The usage of a reply the server reported none for: the server's tokenizer's count of the
/// prompt and the reply where it has one, else ~4 characters a token; estimated either way.
async fn unreported_usage(
    t: &Turn<'_>,
    (system, tools): (Arc<str>, Arc<[provider::ToolSpec]>),
    a: &Answer,
    prompt_chars: usize,
) -> Usage {
    let estimated = Usage {
        input_tokens: provider::estimate_tokens(prompt_chars),
        output_tokens: provider::estimate_tokens(a.streamed()),
        estimated: true,
        ..Usage::default()
    };
    let client = &t.model.provider_client;
    if !client.counts_tokens() {
        return estimated;
    }
    let mut prompt = String::with_capacity(prompt_chars);
    prompt.push_str(&system);
    for s in tools.iter() {
        prompt.push_str(&s.name);
        prompt.push_str(&s.description);
        prompt.push_str(&s.parameters.to_string());
    }
    for m in t.history.lock().messages().iter() {
        match m {
            provider::ChatMessage::User { text, .. } | provider::ChatMessage::Tool { text, .. } => {
                prompt.push_str(text);
            }
            provider::ChatMessage::Assistant {
                text, tool_calls, ..
            } => {
                prompt.push_str(text);
                for c in tool_calls {
                    prompt.push_str(&c.arguments);
                }
            }
        }
    }
    let mut reply = a.text.clone();
    reply.push_str(&a.reasoning);
    for (_, c) in &a.calls {
        reply.push_str(&c.arguments);
    }
    match client
        .count_tokens(&t.model.model, vec![prompt, reply])
        .await
        .as_deref()
    {
        Some(&[input, output]) => Usage {
            input_tokens: input,
            output_tokens: output.max(1),
            ..estimated
        },
        _ => estimated,
    }
}

/// The calls a reply wrote as text, when it sent none natively (see `provider::textcalls`):
/// taken out of `text` into `calls`, each with an id of its own; `<think>` goes to `reasoning`.
fn written_calls(
    text: &mut String,
    reasoning: &mut String,
    calls: &mut Vec<ToolCallReq>,
    mode: provider::textcalls::ToolCallsMode,
    offered: &[String],
) {
    use provider::textcalls::{ToolCallsMode, extract};
    let mode = if calls.is_empty() {
        mode
    } else {
        ToolCallsMode::Native
    };
    let e = extract(text, mode, &|n| offered.iter().any(|o| o == n));
    if !e.reasoning.is_empty() {
        if !reasoning.is_empty() {
            reasoning.push('\n');
        }
        reasoning.push_str(&e.reasoning);
    }
    if e.calls.is_empty() && e.reasoning.is_empty() {
        return;
    }
    *text = e.text;
    calls.extend(e.calls.into_iter().map(|c| ToolCallReq {
        id: format!("text_{}", new_id()).into(),
        name: c.name,
        arguments: c.arguments,
    }));
}

/// A reply constrained to `{"answer": …}` or `{"calls": […]}`: its answer becomes the text, its
/// calls ordinary calls; one that cannot be read is a failed call carrying the reply (never run,
/// never lost) and the reason.
fn json_calls(text: &mut String, calls: &mut Vec<ToolCallReq>) {
    use provider::textcalls::unreadable;
    let read = match provider::constrain::read_json(text) {
        Ok((answer, found)) => {
            *text = answer;
            found
        }
        Err(why) => {
            let c = unreadable(&format!("{why}: {}", std::mem::take(text)), None);
            vec![c]
        }
    };
    calls.extend(read.into_iter().map(|c| ToolCallReq {
        id: format!("text_{}", new_id()).into(),
        name: c.name,
        arguments: c.arguments,
    }));
}

/// Stream what the text filter let out of a chunk: its reasoning, then its text.
fn stream_split(
    t: &Turn<'_>,
    message_id: &str,
    (tc, rc): (&mut Coalescer, &mut Coalescer),
    text: &str,
    reasoning: &str,
) {
    for (part, c, kind) in [
        (reasoning, rc, DeltaKind::Reasoning),
        (text, tc, DeltaKind::Text),
    ] {
        if !part.is_empty()
            && let Some(chunk) = c.push(part)
        {
            t.delta(kind, message_id, &chunk);
        }
    }
}
