//! Titles the model writes: after a session's first exchange, one call of at most 200 output
//! tokens to `titles.model` (config.json; default the session's model) names the session. The
//! call is recorded like any other (`model_calls`, purpose `title`), so it counts in usage and
//! the spend caps, and a reached cap skips it. Skipped when the user set the title (a rename
//! meanwhile wins too), for the `replay` provider, and with `titles.enabled` false. A first
//! prompt starting with `/` or `@` (a template, a file) is titled from the first answer alone.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::context::ModelMeta;
use super::{Finished, LoopEnv, RunSpec};
use crate::protocol::{RunStatus, RunTrigger, Usage};
use crate::provider::{self, ChatMessage, ChatRequest, ProviderEvent};
use crate::store::SessionRow;
use crate::util::{DEFAULT_TITLE, now_ms, title_from_prompt, truncate_str};

/// The most output tokens a title call may use.
pub const MAX_TOKENS: u64 = 200;
/// Longest a title call may take before it is given up.
const TIMEOUT: Duration = Duration::from_secs(60);
/// Characters of the prompt and of the answer the title is written from.
const QUOTED: usize = 2_000;

const SYSTEM: &str = "You name conversations between a user and a coding agent. Answer with \
one title of 3 to 7 words, in the user's language, that names the task. Write only the title: \
no quotes, no Markdown, no full stop.";

/// After a run: when it was the session's first exchange and the title is still the one made
/// from the prompt, a model call writes the title, in the background (the next input waits for
/// nothing).
pub fn after_run(deps: &Arc<LoopEnv>, spec: &RunSpec, done: &Finished) {
    // Cheap checks first: this runs after every run.
    let Some(answer) = done.first_answer.as_ref() else {
        return;
    };
    if !deps.cfg.titles.enabled
        || spec.trigger != RunTrigger::Prompt
        || spec.resumed
        || done.end.status != RunStatus::Completed
        || spec.session.parent_id.is_some()
        || answer.trim().is_empty()
        || !automatic(&spec.session.title, &spec.text)
    {
        return;
    }
    let Some(meta) = title_model(deps, &spec.session) else {
        return;
    };
    let deps = deps.clone();
    let session = spec.session.id.clone();
    let run = spec.run_id.clone();
    let (prompt, answer) = (spec.text.clone(), answer.clone());
    tokio::spawn(async move {
        let written = write(&deps, &meta, (&session, &run), &prompt, &answer);
        match tokio::time::timeout(TIMEOUT, written).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "the session keeps its title"),
            Err(_) => tracing::warn!("the title call took too long; the session keeps its title"),
        }
    });
}

/// A title nobody chose: the default one, or the one made from the first prompt.
fn automatic(title: &str, first_prompt: &str) -> bool {
    title == DEFAULT_TITLE || title_from_prompt(first_prompt).as_deref() == Some(title)
}

async fn write(
    deps: &LoopEnv,
    meta: &ModelMeta,
    (session_id, run): (&crate::protocol::SessionId, &crate::protocol::RunId),
    prompt: &str,
    answer: &str,
) -> anyhow::Result<()> {
    let store = &deps.store;
    // Read again: the user may have renamed it meanwhile.
    let session = store.get_session(session_id).await?;
    if !automatic(&session.title, prompt) {
        return Ok(());
    }
    if cap_reached(deps, &session).await? {
        return Ok(());
    }
    let req = ChatRequest {
        system: Arc::from(SYSTEM),
        messages: Arc::new(vec![ChatMessage::User {
            text: request_text(prompt, answer),
            images: Vec::new(),
        }]),
        tools: Arc::from(Vec::new()),
        reasoning_effort: None,
        model: Some(Arc::from(meta.model.as_str())),
        attachments: None,
        calls_as_text: false,
        constraint: None,
        num_ctx: Some(meta.info.context_window),
        max_tokens: Some(MAX_TOKENS),
        native_search: None,
    };
    let (text, usage) = call(deps, meta, &req).await?;
    let mut u = usage;
    u.cost_usd = crate::models::cost(&u, meta.info.price);
    let id = crate::util::new_id();
    store
        .record_model_call(&crate::store::NewModelCall {
            id: &id,
            session_id,
            run_id: Some(run),
            provider: &meta.provider,
            model: &meta.model,
            purpose: "title",
            usage: &u,
            context_window: meta.info.context_window,
            at: now_ms(),
        })
        .await?;
    let Some(title) = clean(&text) else {
        return Ok(());
    };
    if let Some(row) = store.retitle(session_id, &session.title, &title).await? {
        deps.events
            .session_updated(&crate::protocol::Session::from(row))
            .await;
    }
    Ok(())
}

/// The model that writes titles: `titles.model` (`<provider>/<model>`, or a model of the
/// session's provider), else the session's own. None for the `replay` provider.
fn title_model(deps: &LoopEnv, session: &SessionRow) -> Option<ModelMeta> {
    let registry = &deps.provider;
    let (provider, model) = match deps.cfg.titles.model.as_deref() {
        Some(m) => match m.split_once('/') {
            Some((p, rest)) if registry.get(p).is_some() => {
                (Some(p.to_string()), Some(rest.to_string()))
            }
            _ => (session.provider.clone(), Some(m.to_string())),
        },
        None => (session.provider.clone(), session.model.clone()),
    };
    let r = registry.resolve(provider.as_deref(), model.as_deref());
    if r.entry.config.kind == "replay" {
        return None;
    }
    Some(ModelMeta::resolved(r, &deps.cfg.models))
}

/// Whether the session's or the day's spend cap is reached (then no title call is made).
async fn cap_reached(deps: &LoopEnv, session: &SessionRow) -> anyhow::Result<bool> {
    let caps = crate::usage::effective_caps(&deps.store, &deps.cfg).await;
    let own = deps
        .store
        .spend_cap_of(&session.id)
        .await
        .unwrap_or(session.spend_cap_usd);
    let (spent, today) = deps
        .store
        .spent(&session.id, crate::usage::day_start(now_ms()))
        .await?;
    Ok(own.or(caps.session_usd).is_some_and(|c| spent >= c)
        || caps.day_usd.is_some_and(|c| today >= c))
}

/// What the title is written from: the prompt and the answer's start — the answer alone when
/// the prompt is a command or a file (`/…`, `@…`).
fn request_text(prompt: &str, answer: &str) -> String {
    let answer = truncate_str(answer.trim(), QUOTED);
    let prompt = prompt.trim();
    if prompt.starts_with('/') || prompt.starts_with('@') {
        format!("Name this conversation from the agent's first answer:\n\n{answer}")
    } else {
        format!(
            "Name this conversation.\n\nThe user asked:\n{}\n\nThe agent answered (start):\n{answer}",
            truncate_str(prompt, QUOTED)
        )
    }
}

/// Stream the call to its end: its text (at most a few hundred characters kept) and usage.
async fn call(
    deps: &LoopEnv,
    meta: &ModelMeta,
    req: &ChatRequest,
) -> Result<(String, Usage), provider::ProviderError> {
    let cancel = CancellationToken::new();
    let policy = deps.cfg.network.policy();
    let mut stream =
        provider::open_with_retry(&meta.provider_client, req, &policy, &cancel, |_| {}).await?;
    let (mut text, mut usage) = (String::new(), None);
    while let Some(ev) = stream.next().await {
        match ev? {
            ProviderEvent::TextDelta(d) if text.len() < 1_000 => text.push_str(&d),
            ProviderEvent::Usage(u) => usage = Some(u),
            _ => {}
        }
    }
    let usage = usage.unwrap_or(Usage {
        input_tokens: provider::estimate_tokens(req.chars()),
        output_tokens: provider::estimate_tokens(text.len()),
        estimated: true,
        ..Usage::default()
    });
    Ok((text, usage))
}

/// The title in a model's answer: its first line with text, without quotes or a `Title:`
/// label, cleaned as a prompt's title is (at most 60 characters).
fn clean(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line
        .strip_prefix("Title:")
        .or_else(|| line.strip_prefix("title:"))
        .unwrap_or(line)
        .trim()
        .trim_matches(['"', '\'', '“', '”', '«', '»', '`'])
        .trim_end_matches('.')
        .trim();
    title_from_prompt(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_cleaned_from_what_the_model_writes() {
        assert_eq!(
            clean("\n  \"Fix the login bug.\"\nmore").as_deref(),
            Some("Fix the login bug")
        );
        assert_eq!(
            clean("Title: **Add a cache**").as_deref(),
            Some("Add a cache")
        );
        assert_eq!(clean("   \n "), None);
    }

    #[test]
    fn a_command_or_a_file_prompt_is_titled_from_the_answer() {
        let t = request_text("@src/main.rs what does it do", "It parses arguments.");
        assert!(
            t.contains("It parses arguments.") && !t.contains("main.rs"),
            "{t}"
        );
        let t = request_text("fix the login bug", "Looking at it.");
        assert!(
            t.contains("fix the login bug") && t.contains("Looking at it."),
            "{t}"
        );
    }

    #[test]
    fn only_a_title_nobody_chose_is_replaced() {
        assert!(automatic(DEFAULT_TITLE, "anything"));
        assert!(automatic("fix the login bug", "fix the login bug"));
        assert!(!automatic("My own name", "fix the login bug"));
    }
}
