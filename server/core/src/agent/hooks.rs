//! The run's hooks (`crate::hooks`): the user's `hooks.json`, and the workspace's
//! (`.tradewind/hooks.json`, the `hooks` of `.claude/settings.json`) once the user trusted them as
//! they are. What each answer means here. A file's hooks run only once the gate let them — their own `process` decision, asked once per session and file hash
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

/// The hooks files of this run, read when it began: the user's, then the workspace's when
/// trusted as they are now.
pub(super) async fn load(t: &Turn<'_>) -> Vec<Arc<HookFile>> {
    let ws = t.paths.workspace.clone();
    let state = t.paths.state_dir.clone();
    // At most one trip to the store: the workspace's trusted hooks (when it has hooks files)
    // and the enabled plugins (when any is installed); none without either.
    let trust_key = crate::hooks::trust_key(&ws);
    let has_files = crate::hooks::workspace_has_files(&ws);
    let [trusted, plugins] = if has_files || crate::plugins::any_installed(&state) {
        t.deps
            .store
            .get_settings([
                if has_files { trust_key.as_str() } else { "" },
                crate::plugins::ENABLED_KEY,
            ])
            .await
            .unwrap_or_default()
    } else {
        [None, None]
    };
    let plugins = t.deps.store.keep_enabled(plugins);
    if trusted.is_none() && plugins.is_none() {
        return crate::hooks::user_file(&state)
            .filter(|f| !f.hooks.is_empty())
            .map(Arc::new)
            .into_iter()
            .collect();
    }
    tokio::task::spawn_blocking(move || {
        let mut files = crate::hooks::files(&ws, &state, trusted.as_deref());
        files.extend(
            crate::plugins::enabled(&state, plugins.as_deref())
                .iter()
                .filter_map(|p| crate::hooks::plugin_file(p.hooks.as_ref()?, &p.root)),
        );
        files
    })
    .await
    .unwrap_or_default()
    .into_iter()
    .filter(|f| !f.hooks.is_empty())
    .map(Arc::new)
    .collect()
}

fn grant_key(f: &HookFile) -> String {
    format!("hooks:{}", f.hash)
}

/// Whether the file's hooks may run in this session (asked once per file hash).
async fn granted(t: &Turn<'_>, f: &HookFile) -> bool {
    if let Some(known) = t.hooks_granted.lock().get(&f.hash) {
        return *known;
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
                    origin: crate::policy::Origin::Model,
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
    t.hooks_granted.lock().insert(f.hash.clone(), ok);
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
    file: &crate::hooks::HookFile,
    hook: &Hook,
    event: Event,
    input: &serde_json::Value,
    call: Option<&ToolCallReq>,
) -> Verdict {
    let sandbox = t.deps.tools.sandbox.get().await;
    let mut job = crate::sandbox::Job::for_session(&t.paths, t.grants.jail_paths());
    // A user hook sees the state directory's `hooks/` folder (its scripts), read-only; the
    // rest of the state directory stays hidden.
    let state = &t.deps.cfg.state_dir;
    if file.path.parent() == Some(state.as_path()) {
        let dir = state.join("hooks");
        if dir.is_dir() {
            job.bind_over.push((dir.clone(), dir));
        }
    }
    // A plugin's hook sees its plugin's folder, read-only.
    if let Some(root) = &file.plugin_root {
        job.bind_over.push((root.clone(), root.clone()));
        job.env
            .push(("CLAUDE_PLUGIN_ROOT".into(), root.display().to_string()));
    }
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

/// What one hook (or one that may not run) said.
enum Said {
    Ran(Verdict),
    NotGranted,
}

/// Run the hooks of `event` (those matching the call's tool, for a tool event) of every file,
/// in order; a file's hooks that may not run are recorded as such. Stops at the first denial.
async fn run_event(
    t: &Turn<'_>,
    event: Event,
    call: Option<&ToolCallReq>,
    input: &serde_json::Value,
) -> Vec<Said> {
    let mut said = Vec::new();
    let files = t.hooks.clone();
    for f in &files {
        let hooks = matching(f, event, call);
        if hooks.is_empty() {
            continue;
        }
        if !granted(t, f).await {
            not_granted(t, &hooks, event, call);
            said.push(Said::NotGranted);
            continue;
        }
        for h in hooks {
            let v = run_one(t, f, h, event, input, call).await;
            let stop = matches!(v, Verdict::Deny(_));
            said.push(Said::Ran(v));
            if stop {
                return said;
            }
        }
    }
    said
}

/// The hooks of `event` that match `tool` (every one for a prompt's).
fn matching<'f>(f: &'f HookFile, event: Event, call: Option<&ToolCallReq>) -> Vec<&'f Hook> {
    // A `shell` call's commands, parsed only for a hook that names an argv prefix.
    let commands = || {
        call.and_then(|c| serde_json::from_str::<serde_json::Value>(&c.arguments).ok())
            .and_then(|v| v.get("command").and_then(|c| c.as_str()).map(String::from))
            .map(|cmd| {
                crate::policy::command::analyze_shell(&cmd)
                    .commands
                    .into_iter()
                    .map(|c| c.argv)
                    .collect()
            })
            .unwrap_or_default()
    };
    f.hooks
        .get(&event)
        .into_iter()
        .flatten()
        .filter(|h| call.is_none_or(|c| h.matches(&c.name, &commands)))
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

/// The JSON a hook reads on stdin: the event's own fields and what every event carries.
fn input_of(t: &Turn<'_>, event: Event, own: serde_json::Value) -> serde_json::Value {
    let mut v = serde_json::json!({
        "session_id": t.run.session.id,
        "cwd": t.paths.workspace,
        "hook_event_name": event.as_str(),
    });
    if let (Some(o), serde_json::Value::Object(more)) = (v.as_object_mut(), own) {
        o.extend(more);
    }
    v
}

/// The `PreToolUse` hooks of a call, before the gate decides.
pub(super) async fn before_call(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &serde_json::Value,
) -> Before {
    let mut out = Before::default();
    if t.hooks.is_empty() {
        return out;
    }
    let own = serde_json::json!({"tool_name": call.name, "tool_input": input});
    let event = input_of(t, Event::PreToolUse, own);
    for said in run_event(t, Event::PreToolUse, Some(call), &event).await {
        match said {
            Said::NotGranted => out
                .ask
                .push("a PreToolUse hook for it may not run in this session".into()),
            Said::Ran(Verdict::Pass { context }) => out.context.extend(context),
            Said::Ran(Verdict::Deny(r)) => out.deny = Some(r),
            Said::Ran(Verdict::Ask(r)) => out.ask.push(r),
            Said::Ran(Verdict::Failed(r)) => {
                out.ask.push(format!("a PreToolUse hook failed: {r}"));
            }
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
    if t.hooks.is_empty() {
        return String::new();
    }
    let own = serde_json::json!({
        "tool_name": call.name,
        "tool_input": input,
        "tool_response": {"ok": result.ok, "text": crate::util::truncate_str(&result.text, 16 * 1024)},
    });
    let event = input_of(t, Event::PostToolUse, own);
    let mut text = String::new();
    for said in run_event(t, Event::PostToolUse, Some(call), &event).await {
        match said {
            Said::Ran(Verdict::Deny(r) | Verdict::Ask(r)) => {
                text.push_str(&format!("\n\n[A hook after this call objected: {r}]"));
            }
            Said::Ran(Verdict::Pass { context: Some(c) }) => {
                text.push_str(&format!("\n\n[Hook context: {c}]"));
            }
            _ => {}
        }
    }
    text
}

/// The hooks of the user's prompt — the session's `SessionStart` ones first when it is the
/// session's first — `Err` blocks it (with the reason); `Ok` gives the context they added.
pub(super) async fn on_prompt(t: &Turn<'_>, prompt: &str) -> Result<String, String> {
    if t.hooks.is_empty() {
        return Ok(String::new());
    }
    let mut context = String::new();
    if t.history.lock().is_empty() {
        let event = input_of(
            t,
            Event::SessionStart,
            serde_json::json!({"source": "startup"}),
        );
        for said in run_event(t, Event::SessionStart, None, &event).await {
            if let Said::Ran(Verdict::Pass { context: Some(c) }) = said {
                context.push_str(&format!("\n[Context from a hook: {c}]"));
            }
        }
    }
    let event = input_of(
        t,
        Event::UserPromptSubmit,
        serde_json::json!({"prompt": prompt}),
    );
    for said in run_event(t, Event::UserPromptSubmit, None, &event).await {
        match said {
            Said::Ran(Verdict::Deny(r)) => return Err(r),
            Said::Ran(Verdict::Pass { context: Some(c) }) => {
                context.push_str(&format!("\n[Context from a hook: {c}]"));
            }
            _ => {}
        }
    }
    Ok(context)
}

/// The `Stop` hooks of a run that answered: a reason when one asks for another turn (exit 2
/// or `"block"`); the run's end does not wait on anything else they say.
pub(super) async fn on_stop(t: &Turn<'_>) -> Option<String> {
    if t.hooks.is_empty() {
        return None;
    }
    let own = serde_json::json!({
        "stop_hook_active": t.run.trigger == crate::protocol::RunTrigger::Hook,
    });
    let event = input_of(t, Event::Stop, own);
    run_event(t, Event::Stop, None, &event)
        .await
        .into_iter()
        .find_map(|s| match s {
            Said::Ran(Verdict::Deny(r)) => Some(r),
            _ => None,
        })
}

/// The `PreCompact` hooks, before older turns are summarised: recorded, never in the way.
pub(super) async fn before_compact(t: &Turn<'_>, trigger: crate::protocol::CompactTrigger) {
    if t.hooks.is_empty() {
        return;
    }
    let trigger = serde_json::to_value(trigger).unwrap_or(serde_json::Value::Null);
    let event = input_of(
        t,
        Event::PreCompact,
        serde_json::json!({"trigger": trigger, "custom_instructions": ""}),
    );
    run_event(t, Event::PreCompact, None, &event).await;
}
