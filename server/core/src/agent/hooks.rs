//! The run's hooks (`crate::hooks`): what each answer means here. A file's hooks run only once
//! the gate let them — their own `process` decision, asked once per session and file hash
//! (`hooks:<sha256>`), or allowed where processes run without asking. A `PreToolUse` hook may
//! deny its call (the model reads why) or have the user asked; one that fails, times out or may
//! not run turns its call into a question (headless: a denial). A `PostToolUse` hook's
//! objection or context goes with the result; a `UserPromptSubmit` hook may block the prompt
//! or add context. Every hook that runs leaves a `hook_ran` event; none can allow what the gate
//! would not.

use super::*;
use crate::hooks::{Event, Hook, HookFile, Verdict};
use crate::policy::{Decision, Proposal};

/// What the tool hooks said of one call before it runs.
#[derive(Default)]
pub(super) struct Before {
    /// Deny, with the reason the model reads.
    pub(super) deny: Option<String>,
    /// Ask the user first, with these reasons.
    pub(super) ask: Vec<String>,
    /// Context for the model, with the result.
    pub(super) context: Vec<String>,
}

/// The user's hooks file, read once per run.
pub(super) fn load(t: &Turn<'_>) -> Option<Arc<HookFile>> {
    crate::hooks::user_file(&t.paths.state_dir)
        .filter(|f| !f.hooks.is_empty())
        .map(Arc::new)
}

fn grant_key(f: &HookFile) -> String {
    format!("hooks:{}", f.hash)
}

/// Whether the file's hooks may run in this session (asked once per file hash).
async fn granted(t: &Turn<'_>, f: &HookFile) -> bool {
    if let Some(known) = *t.hooks_granted.lock() {
        return known;
    }
    let key = grant_key(f);
    let grants = t.grants.stored(t.deps, t.grant_session()).await;
    let ok = if grants.contains(&key) {
        true
    } else {
        let decision = {
            let ctx = calls::gate_context(t, &grants);
            crate::policy::decide(
                &ctx,
                &Proposal {
                    tool: "hooks",
                    effect: Effect::Process,
                    paths: &[],
                    command: None,
                    command_text: None,
                    net: None,
                    mcp: None,
                },
            )
        };
        match decision {
            Decision::Allow { .. } => true,
            Decision::Deny { .. } => false,
            Decision::Ask(_) if t.never_ask.lock().is_some() || !t.interactive => false,
            Decision::Ask(_) => ask_to_run(t, f, &key).await,
        }
    };
    *t.hooks_granted.lock() = Some(ok);
    ok
}

/// Ask whether the file's hooks may run in this session.
async fn ask_to_run(t: &Turn<'_>, f: &HookFile, key: &str) -> bool {
    let mut commands: Vec<&str> = f
        .hooks
        .values()
        .flatten()
        .map(|h| h.command.as_str())
        .collect();
    commands.dedup();
    let reason = format!(
        "run the hooks of {} (sha256 {}…) in this session: {}",
        f.path.display(),
        &f.hash[..12.min(f.hash.len())],
        commands.join("; ")
    );
    let call = ToolCallReq {
        id: format!("hooks_{}", new_id()).into(),
        name: "hooks".into(),
        arguments: serde_json::json!({"file": f.path, "sha256": f.hash, "commands": commands})
            .to_string(),
    };
    calls::ask_for_session(t, &call, Effect::Process, key, &reason).await
}

/// Run one hook in the session's jail and record it.
async fn run_one(
    t: &Turn<'_>,
    hook: &Hook,
    event: Event,
    input: &serde_json::Value,
    call: Option<&ToolCallReq>,
) -> Verdict {
    let sandbox = t.deps.tools.sandbox.get().await;
    let job = crate::sandbox::Job::for_session(&t.paths, t.grants.jail_paths());
    let confine = sandbox.as_deref().map(|sb| (sb, &job));
    let ran = crate::hooks::run(hook, event, input, &t.paths.workspace, confine).await;
    let (outcome, reason) = match &ran.verdict {
        Verdict::Pass { context } => ("passed", context.clone()),
        Verdict::Deny(r) => ("denied", Some(r.clone())),
        Verdict::Ask(r) => ("asked", Some(r.clone())),
        Verdict::Failed(r) => ("failed", Some(r.clone())),
    };
    t.emit(EventPayload::HookRan {
        event: event.as_str().into(),
        command: hook.command.clone(),
        call_id: call.map(|c| c.id.clone()),
        tool: call.map(|c| c.name.clone()),
        outcome: outcome.into(),
        reason,
        exit_code: ran.exit_code,
        duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
    });
    ran.verdict
}

/// The hooks of `event` that match `tool` (every one for a prompt's).
fn matching<'f>(f: &'f HookFile, event: Event, tool: Option<&str>) -> Vec<&'f Hook> {
    f.hooks
        .get(&event)
        .into_iter()
        .flatten()
        .filter(|h| tool.is_none_or(|n| h.matches(n)))
        .collect()
}

/// A hook that may not run is recorded as such.
fn not_granted(t: &Turn<'_>, hooks: &[&Hook], event: Event, call: Option<&ToolCallReq>) {
    for h in hooks {
        t.emit(EventPayload::HookRan {
            event: event.as_str().into(),
            command: h.command.clone(),
            call_id: call.map(|c| c.id.clone()),
            tool: call.map(|c| c.name.clone()),
            outcome: "not_granted".into(),
            reason: Some("its hooks file was not allowed to run in this session".into()),
            exit_code: None,
            duration_ms: 0,
        });
    }
}

/// The `PreToolUse` hooks of a call, before the gate decides.
pub(super) async fn before_call(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &serde_json::Value,
) -> Before {
    let mut out = Before::default();
    let Some(f) = t.hooks.clone() else {
        return out;
    };
    let hooks = matching(&f, Event::PreToolUse, Some(&call.name));
    if hooks.is_empty() {
        return out;
    }
    if !granted(t, &f).await {
        not_granted(t, &hooks, Event::PreToolUse, Some(call));
        out.ask
            .push("a PreToolUse hook for it may not run in this session".into());
        return out;
    }
    let event = serde_json::json!({
        "session_id": t.run.session.id,
        "cwd": t.paths.workspace,
        "hook_event_name": "PreToolUse",
        "tool_name": call.name,
        "tool_input": input,
    });
    for h in hooks {
        match run_one(t, h, Event::PreToolUse, &event, Some(call)).await {
            Verdict::Pass { context } => out.context.extend(context),
            Verdict::Deny(r) => {
                out.deny = Some(r);
                return out;
            }
            Verdict::Ask(r) => out.ask.push(r),
            Verdict::Failed(r) => out.ask.push(format!("a PreToolUse hook failed: {r}")),
        }
    }
    out
}

/// The `PostToolUse` hooks of a call that ran: what they say goes with its result.
pub(super) async fn after_call(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &serde_json::Value,
    result: &crate::tools::ToolOutput,
) -> String {
    let Some(f) = t.hooks.clone() else {
        return String::new();
    };
    let hooks = matching(&f, Event::PostToolUse, Some(&call.name));
    if hooks.is_empty() {
        return String::new();
    }
    if !granted(t, &f).await {
        not_granted(t, &hooks, Event::PostToolUse, Some(call));
        return String::new();
    }
    let event = serde_json::json!({
        "session_id": t.run.session.id,
        "cwd": t.paths.workspace,
        "hook_event_name": "PostToolUse",
        "tool_name": call.name,
        "tool_input": input,
        "tool_response": {"ok": result.ok, "text": crate::util::truncate_str(&result.text, 16 * 1024)},
    });
    let mut said = String::new();
    for h in hooks {
        match run_one(t, h, Event::PostToolUse, &event, Some(call)).await {
            Verdict::Deny(r) | Verdict::Ask(r) => {
                said.push_str(&format!("\n\n[A hook after this call objected: {r}]"));
            }
            Verdict::Pass { context: Some(c) } => {
                said.push_str(&format!("\n\n[Hook context: {c}]"));
            }
            Verdict::Pass { context: None } | Verdict::Failed(_) => {}
        }
    }
    said
}

/// The `UserPromptSubmit` hooks of the user's prompt: `Err` blocks it (with the reason);
/// `Ok` gives the context they added.
pub(super) async fn on_prompt(t: &Turn<'_>, prompt: &str) -> Result<String, String> {
    let Some(f) = t.hooks.clone() else {
        return Ok(String::new());
    };
    let hooks = matching(&f, Event::UserPromptSubmit, None);
    if hooks.is_empty() {
        return Ok(String::new());
    }
    if !granted(t, &f).await {
        not_granted(t, &hooks, Event::UserPromptSubmit, None);
        return Ok(String::new());
    }
    let event = serde_json::json!({
        "session_id": t.run.session.id,
        "cwd": t.paths.workspace,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    });
    let mut context = String::new();
    for h in hooks {
        match run_one(t, h, Event::UserPromptSubmit, &event, None).await {
            Verdict::Deny(r) => return Err(r),
            Verdict::Pass { context: Some(c) } => {
                context.push_str(&format!("\n[Context from a hook: {c}]"));
            }
            Verdict::Pass { context: None } | Verdict::Ask(_) | Verdict::Failed(_) => {}
        }
    }
    Ok(context)
}

/// The `Stop` hooks of a run that answered: a reason when one asks for another turn (exit 2
/// or `"block"`); the run's end does not wait on anything else they say.
pub(super) async fn on_stop(t: &Turn<'_>) -> Option<String> {
    let f = t.hooks.clone()?;
    let hooks = matching(&f, Event::Stop, None);
    if hooks.is_empty() {
        return None;
    }
    if !granted(t, &f).await {
        not_granted(t, &hooks, Event::Stop, None);
        return None;
    }
    let event = serde_json::json!({
        "session_id": t.run.session.id,
        "cwd": t.paths.workspace,
        "hook_event_name": "Stop",
        "stop_hook_active": t.run.trigger == crate::protocol::RunTrigger::Hook,
    });
    for h in hooks {
        if let Verdict::Deny(r) = run_one(t, h, Event::Stop, &event, None).await {
            return Some(r);
        }
    }
    None
}
