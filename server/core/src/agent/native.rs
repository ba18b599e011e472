//! `websearch.provider: "native"`: the model's provider searches on its side (OpenAI's
//! Responses API, Anthropic) and no `websearch` tool is offered. Its tool goes into a request
//! only in a session where `external` runs without asking (`full` with `--allow-external`, a
//! headless run with `--allow-external`, an `external` grant), or once the user let the model
//! search through that provider for the session: asked once, before the first request that
//! would carry it; declined, the session has no web search (the answer is kept with the
//! session's grants either way, so it is not asked again).

use super::*;
use crate::policy::{Decision, Proposal};
use crate::protocol::SearchProvider;

/// The tool's name in the transcript and in approvals.
const TOOL: &str = "web_search";

/// Whether the user chose the provider's own search (no `websearch` tool is offered then).
pub(super) fn chosen(t: &Turn<'_>) -> bool {
    let s = t.deps.tools.websearch.read();
    crate::tools::websearch::provider_of(&s).is_ok_and(|p| p == SearchProvider::Native)
}

fn allowed_key(provider: &str) -> String {
    format!("native-search:{provider}")
}

fn declined_key(provider: &str) -> String {
    format!("native-search-declined:{provider}")
}

/// The provider's search tool type this run's requests carry, if any: decided once per run,
/// before its first model call (asking the user when the gate would ask).
pub(super) async fn search_tool(t: &Turn<'_>) -> Option<Arc<str>> {
    if !chosen(t) {
        return None;
    }
    let provider = t.model.provider.clone();
    let Some(default) = t.model.provider_client.native_search() else {
        t.emit(EventPayload::Error {
            code: "no_native_search".into(),
            message: format!(
                "websearch.provider is \"native\", but {} has no web search of its own that Tradewind can send (OpenAI's Responses API, apiMode \"responses\", and Anthropic have): this run has no web search. Choose another search provider in Settings → Web search.",
                t.model.name()
            ),
            fatal: false,
        });
        return None;
    };
    let kind: Arc<str> = t
        .deps
        .tools
        .websearch
        .read()
        .native_tool_type
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .unwrap_or(default)
        .into();
    let call = ToolCallReq {
        id: format!("{TOOL}_{}", new_id()).into(),
        name: TOOL.into(),
        arguments: serde_json::json!({"provider": provider, "type": &*kind}).to_string(),
    };
    let grants = t.grants.stored(t.deps, t.grant_session()).await;
    if grants.contains(&declined_key(&provider)) {
        return None;
    }
    if grants.contains(&allowed_key(&provider)) {
        return Some(kind);
    }
    let decision = {
        let ctx = calls::gate_context(t, &grants);
        crate::policy::decide(
            &ctx,
            &Proposal {
                origin: crate::policy::Origin::Model,
                tool: TOOL,
                effect: Effect::External,
                paths: &[],
                command: None,
                command_text: None,
                net: None,
                mcp: None,
            },
        )
    };
    let label = decision.label();
    match decision {
        Decision::Allow { reason, key } => {
            calls::audit(t, &call, Effect::External, label, &reason, &key).await;
            Some(kind)
        }
        Decision::Deny { .. } => None,
        Decision::Ask(_) if t.never_ask.lock().is_some() => None,
        Decision::Ask(_) => ask(t, &call, &provider).await.then_some(kind),
    }
}

/// Ask the user once for the session; the answer is kept either way.
async fn ask(t: &Turn<'_>, call: &ToolCallReq, provider: &str) -> bool {
    let reason = format!(
        "let the model search the web through {provider} for this session (the provider runs the searches; queries may carry what the conversation holds)"
    );
    let key = allowed_key(provider);
    if calls::ask_for_session(t, call, Effect::External, &key, &reason).await {
        return true;
    }
    // Declined: the session has no web search (not asked again).
    if let Err(e) = t
        .deps
        .store
        .add_grant(t.grant_session(), &declined_key(provider))
        .await
    {
        tracing::error!(error = %e, "cannot store the declined web search");
    }
    // The session's other runs (its subagents) read the grants again.
    t.deps
        .live
        .grants_epoch
        .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    false
}
