//! One run from start to end: the history read, the undo snapshots around the run's changes,
//! the end recorded; and the two inputs that are not prompts (`!command`, `/compact`).

use super::*;

/// Execute one run to its end. Never panics on model or user input.
pub async fn run(deps: &LoopEnv, spec: &RunSpec) -> Finished {
    let started = Instant::now();
    let (profile, agent, mode) = agent_of(deps, spec).await;
    let paths = crate::sandbox::session_paths(&deps.paths, &spec.session);
    let (history, complete) = load_history(deps, spec).await;
    let mut model = match &profile {
        Ok(Some(p)) => profile_model(deps, spec, p),
        _ => context::ModelMeta::of(&deps.provider, &deps.cfg.models, &spec.session),
    };
    model.learn().await;
    let lineage =
        crate::subagents::lineage_of(&deps.live.lineages, &deps.store, &spec.session).await;
    // A subagent works in its root's workspace, whose own run took the snapshot (its undo
    // covers what the subagent changed).
    let snapshot = lineage.is_empty() && snapshots_taken(deps, spec);
    // A session with no events yet has no goal (setting one records `goal_updated`): a new
    // subagent's first run skips the read.
    let goal_active =
        spec.session.last_seq > 0 && crate::goals::active(&deps.store, &spec.session.id).await;
    let mut t = Turn {
        grants: grants::Grants::default(),
        deps,
        run: spec,
        agent,
        mode,
        interactive: deps.prompts.interactive && spec.limits.is_none_or(|l| l.interactive),
        paths,
        usage: Usage::default(),
        history: parking_lot::Mutex::new(history),
        mcp_offer: parking_lot::Mutex::default(),
        model,
        window_cap: None,
        chars_per_token: 4.0,
        goal_tools: agent != Agent::Plan && goal_active,
        never_ask: parking_lot::Mutex::new(None),
        lineage,
        undo: snapshot,
        before: tokio::sync::OnceCell::new(),
        instructions_seen: parking_lot::Mutex::default(),
        hooks: Vec::new(),
        hooks_granted: parking_lot::Mutex::default(),
        profile: profile.as_ref().ok().cloned().flatten(),
    };
    t.hooks = hooks::load(&t).await;
    begin(&t, mode).await;
    if t.depth() > 0 {
        crate::probe::moment(crate::probe::MarkKind::Step("run begun"));
    }
    let outcome = match (&profile, spec.trigger) {
        (Err(e), _) => RunOutcome {
            status: RunStatus::Failed,
            error: Some(werr("unknown_agent", e.to_string())),
            usage: Usage::default(),
        },
        (_, RunTrigger::Command) => user_command(&mut t).await,
        (_, RunTrigger::Compact) => compact_command(&mut t).await,
        _ if spec.resumed => continued(&mut t).await,
        _ => prompted(&mut t, spec).await,
    };
    if spec.resumed {
        release_parked(&t).await;
    }
    let (outcome, reason) =
        if spec.server_stop.is_cancelled() && outcome.status != RunStatus::Completed {
            (
                RunOutcome {
                    status: RunStatus::Interrupted,
                    error: Some(werr(
                        "interrupted",
                        "the server was stopped during this run",
                    )),
                    usage: t.usage,
                },
                Some(crate::protocol::StopReason::Shutdown),
            )
        } else if spec.cancel.is_cancelled() && outcome.status != RunStatus::Completed {
            (
                RunOutcome {
                    status: RunStatus::Cancelled,
                    error: None,
                    usage: t.usage,
                },
                Some(crate::protocol::StopReason::User),
            )
        } else {
            (outcome, None)
        };
    // A run that answered passes its `Stop` hooks: one may ask for another turn.
    let continue_with = if outcome.status == RunStatus::Completed
        && reason.is_none()
        && !matches!(spec.trigger, RunTrigger::Command | RunTrigger::Compact)
        && t.depth() == 0
    {
        hooks::on_stop(&t).await
    } else {
        None
    };
    let protected = t.before.initialized();
    let history = t.history.into_inner();
    let first_answer = history.first_exchange().then(|| history.last_answer());
    if complete {
        deps.history.put(&spec.session.id, history);
    }
    // What the run left, recorded after its end is sent (a revert waits for it).
    if protected {
        snapshot_after(deps, spec);
    }
    // The final event is awaited: once `run` returns, the whole run is stored. Its run row is
    // made final in the same transaction (see `store::events`), so whoever hears `run_finished`
    // and reads the run finds it ended.
    let end = crate::scheduler::RunEnd {
        status: outcome.status,
        reason,
        usage: outcome.usage,
        error: outcome.error,
        duration_ms: started.elapsed().as_millis() as u64,
    };
    record_end(deps, spec, &end).await;
    Finished {
        end,
        goal_active,
        continue_with,
        first_answer,
    }
}

/// The run begins (`run_started`) — or, going on after a restart, its snapshot of the files
/// before it, when it took one, still undoes the whole run.
async fn begin(t: &Turn<'_>, mode: crate::protocol::Mode) {
    let spec = t.run;
    if !spec.resumed {
        t.emit(EventPayload::RunStarted {
            run_id: spec.run_id.clone(),
            agent: spec.session.agent.clone(),
            mode,
            trigger: spec.trigger,
        });
    } else if t.undo
        && let Ok(Some(_)) = t.deps.store.run_snapshot(&spec.run_id, "before").await
    {
        let _ = t.before.set(());
    }
}

/// The session's history as the model sees it: the cached one plus whatever was stored since
/// (everything after a restart or a revert, without the runs a revert took back). `false`: it
/// could not be read whole (used for this run, not kept).
pub(super) async fn load_history(deps: &LoopEnv, spec: &RunSpec) -> (history::History, bool) {
    if spec.session.last_seq == 0 && spec.session.forked_from_session.is_none() {
        // A new session (a subagent's first run, most often): nothing to read.
        return (history::History::default(), true);
    }
    // Whatever an earlier run queued is stored before this one reads the history.
    let _ = deps.events.flush(&spec.session.id).await;
    let mut history = deps.history.take(&spec.session.id);
    let after = history.last_id().map(str::to_string);
    let hidden: HashSet<crate::protocol::RunId> = if after.is_none() {
        match deps.store.hidden_runs(&spec.session.id).await {
            Ok(runs) => runs.into_iter().collect(),
            Err(e) => {
                // Without the list, reverted turns would come back: read nothing, keep nothing.
                tracing::error!(error = %e, "cannot read which runs a revert took back");
                return (history, false);
            }
        }
    } else {
        HashSet::new()
    };
    match deps
        .store
        .list_messages(&spec.session.id, after.as_deref(), 1_000_000)
        .await
    {
        Ok(rows) => {
            for r in rows
                .iter()
                .filter(|r| r.run_id.as_ref().is_none_or(|id| !hidden.contains(id)))
            {
                history.push_row(r);
            }
            (history, true)
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot read the history");
            (history, false)
        }
    }
}

/// Longest a snapshot may take before the run goes on without it.
pub(super) const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(30);

/// Whether a run's files are snapshotted (undo): the build agent's runs that can change them.
pub(super) fn snapshots_taken(deps: &LoopEnv, spec: &RunSpec) -> bool {
    !deps.cfg.read_only
        && deps.cfg.undo
        && !spec.session.agent.is_plan()
        && spec.trigger != RunTrigger::Compact
}

/// The run's agent: a custom agent is looked up now (its file may have changed since the last
/// run); one that is gone ends the run before anything is asked of the model (meanwhile it
/// counts as `plan` in `ask`, the narrowest).
async fn agent_of(
    deps: &LoopEnv,
    spec: &RunSpec,
) -> (
    Result<Option<Arc<crate::agents::Profile>>, profiles::UnknownAgent>,
    Agent,
    crate::protocol::Mode,
) {
    let ws = std::path::Path::new(&spec.session.workspace);
    let session = &spec.session;
    let profile = profiles::resolve(&deps.store, ws, &deps.cfg.state_dir, &session.agent).await;
    let (agent, mode) = match &profile {
        Ok(None) => (session.agent.builtin().unwrap_or(Agent::Plan), session.mode),
        Ok(Some(p)) => (p.base, p.mode_in(session.mode)),
        Err(_) => (Agent::Plan, crate::protocol::Mode::Ask),
    };
    (profile, agent, mode)
}

/// The model a custom agent's run calls: its `model` (`<provider>/<model>`, an alias
/// `modelAliases` maps to one, or a model of the session's provider), else the session's. A
/// Claude alias config does not map (`sonnet`, `opus`, `haiku`) means the session's.
fn profile_model(deps: &LoopEnv, spec: &RunSpec, p: &crate::agents::Profile) -> context::ModelMeta {
    let session = &spec.session;
    let wanted = p
        .model
        .as_deref()
        .map(|m| deps.cfg.model_aliases.get(m).map_or(m, String::as_str))
        .filter(|m| !matches!(*m, "sonnet" | "opus" | "haiku"));
    let Some(wanted) = wanted else {
        return context::ModelMeta::of(&deps.provider, &deps.cfg.models, session);
    };
    let (provider, model) = match wanted.split_once('/') {
        Some((prov, m)) if deps.provider.get(prov).is_some() => (Some(prov), m),
        _ => (session.provider.as_deref(), wanted),
    };
    context::ModelMeta::resolved(
        deps.provider.resolve(provider, Some(model)),
        &deps.cfg.models,
    )
}

/// Resolve the open marks of the run's workspace now (one walk), before something other than a
/// file tool may change its files; a failure only costs undo.
pub(super) async fn resolve_snapshots(
    snapshots: &crate::undo::Snapshots,
    workspace: &str,
    background: bool,
) {
    let ws = std::path::Path::new(workspace);
    let done = tokio::time::timeout(SNAPSHOT_TIMEOUT, snapshots.resolve(ws, background)).await;
    if let Err(e) = done.unwrap_or_else(|_| {
        Err(format!(
            "took longer than {} s (a very large workspace? set \"undo\": false, or ignore big folders in .gitignore)",
            SNAPSHOT_TIMEOUT.as_secs()
        ))
    }) {
        tracing::warn!(error = %e, "cannot snapshot the workspace; undo will not cover this run");
    }
}

/// Mark a snapshot of the run's workspace now (see `crate::undo::marks`).
pub(super) fn mark_snapshot(
    snapshots: &crate::undo::Snapshots,
    spec: &RunSpec,
    taken: crate::undo::owners::Taken,
) {
    let label = crate::undo::marks::Label::new(&spec.session.id, &spec.run_id, taken);
    if let Err(e) = snapshots.mark(std::path::Path::new(&spec.session.workspace), label) {
        tracing::warn!(error = %e, "cannot snapshot the workspace; undo will not cover this run");
    }
}

/// The snapshot of what a run left: marked now (before its end is sent, so a change the next
/// run makes is kept out of it), resolved by a walk in the background.
pub(super) fn snapshot_after(deps: &LoopEnv, spec: &RunSpec) {
    mark_snapshot(&deps.snapshots, spec, crate::undo::owners::Taken::After);
    let (snapshots, workspace) = (deps.snapshots.clone(), spec.session.workspace.clone());
    tokio::spawn(async move { resolve_snapshots(&snapshots, &workspace, true).await });
}

/// Store the run's end. A full disk: keep trying in the background, so the run (and its
/// session) end as soon as space returns instead of reading `running` until the next restart.
pub(super) async fn record_end(deps: &LoopEnv, spec: &RunSpec, end: &crate::scheduler::RunEnd) {
    let (session, run) = (&spec.session.id, &spec.run_id);
    if let Err(e) = deps.events.end_run(session, run, end, true).await {
        tracing::error!(error = %e, "cannot store the run's end; retrying in the background");
        let (events, session, run, end) = (
            deps.events.clone(),
            session.clone(),
            run.clone(),
            end.clone(),
        );
        tokio::spawn(async move {
            for _ in 0..3600 {
                tokio::time::sleep(END_RETRY_EVERY).await;
                if events.end_run(&session, &run, &end, true).await.is_ok() {
                    tracing::info!(run = %run, "the run's end is stored");
                    return;
                }
            }
        });
    }
}

/// How often a run's end that could not be stored (full disk) is tried again.
pub const END_RETRY_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// A run stopped because nothing more can be saved.
pub(super) fn disk_full(usage: Usage) -> RunOutcome {
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr(
            "disk_full",
            "the server's disk is full: the run stopped because nothing more could be saved (everything saved before is intact); free some space and resume it",
        )),
        usage,
    }
}

/// `!command`: the same proposal as a model `shell` call, through the same gate; no model call.
pub(super) async fn user_command(t: &mut Turn<'_>) -> RunOutcome {
    let command = t.run.text.trim_start_matches('!').trim().to_string();
    if !t.run.resumed {
        t.emit(EventPayload::UserMessage {
            message_id: new_id().into(),
            text: t.run.text.clone(),
            origin: Some(RunTrigger::Command),
            images: Vec::new(),
            steered_from: None,
        });
    }
    // Named after its run: a command waiting for its approval when the server restarted is
    // the same call after it.
    let call = ToolCallReq {
        id: format!("cmd_{}", t.run.run_id).into(),
        name: "shell".into(),
        arguments: serde_json::json!({ "command": command }).to_string(),
    };
    let out = handle_call(t, &call, None).await;
    let text = format!("I ran `{command}` myself:\n{}", out.text);
    t.store_message(
        crate::protocol::MessageRole::User,
        StoredParts {
            text,
            ..Default::default()
        },
    );
    RunOutcome {
        status: if t.run.cancel.is_cancelled() {
            RunStatus::Cancelled
        } else {
            RunStatus::Completed
        },
        error: None,
        usage: t.usage,
    }
}

/// `/compact`: summarise the older turns now; no answer.
pub(super) async fn compact_command(t: &mut Turn<'_>) -> RunOutcome {
    let skills = skills_section(t).await;
    let tools = with_mcp(t, &offered_tools(t, !skills.is_empty()));
    let names: Vec<&str> = tools.iter().map(|s| s.name.as_str()).collect();
    let system = history::system_prompt(
        t.agent,
        t.profile.as_deref(),
        &t.paths.workspace,
        &t.paths.extra_roots,
        &names,
        &format!("{}{skills}", crate::instructions::prompt_section(&t.paths)),
    );
    let fixed = context::fixed_chars(&system, &tools);
    match context::compact(t, fixed, crate::protocol::CompactTrigger::Manual).await {
        Ok(done) => {
            // A summary that did not shrink anything has said why itself (`compaction_grew`).
            if done == context::Compaction::Nothing {
                t.emit(EventPayload::Error {
                    code: "nothing_to_compact".into(),
                    message: "Nothing to compact yet: the conversation is no longer than the latest turns that are always kept.".into(),
                    fatal: false,
                });
            }
            RunOutcome {
                status: RunStatus::Completed,
                error: None,
                usage: t.usage,
            }
        }
        Err(ProviderError::Cancelled) => RunOutcome {
            status: RunStatus::Cancelled,
            error: None,
            usage: t.usage,
        },
        Err(e) => {
            let message = format!("The conversation could not be compacted: {e}");
            t.emit(EventPayload::Error {
                code: e.code().into(),
                message: message.clone(),
                fatal: true,
            });
            RunOutcome {
                status: RunStatus::Failed,
                error: Some(werr(e.code(), message)),
                usage: t.usage,
            }
        }
    }
}

/// A prompt a `UserPromptSubmit` hook blocked: the run ends before any model call.
fn blocked_by_hook(t: &Turn<'_>, why: &str) -> RunOutcome {
    let msg = format!("a hook blocked this prompt: {why}");
    t.emit(EventPayload::Error {
        code: "blocked_by_hook".into(),
        message: msg.clone(),
        fatal: true,
    });
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr("blocked_by_hook", msg)),
        usage: t.usage,
    }
}

/// A run that answers a message (the user's prompt, a plan's, a wake-up): the message recorded
/// (its `@` mentions and its hooks' context with it), then the model's turns.
async fn prompted(t: &mut Turn<'_>, spec: &RunSpec) -> RunOutcome {
    let said = Said {
        text: &spec.text,
        images: &spec.images,
        trigger: spec.trigger,
        steered_from: None,
    };
    match user_message(t, &said).await {
        Ok(()) => loop_turns(t).await,
        Err(why) => blocked_by_hook(t, &why),
    }
}

/// A run the server's restart stopped while it waited on a person, going on: the calls its
/// last answer left open run now (the one that waited takes its parked prompt again, see
/// `pending::Pending::adopt`), then the turns go on as before.
async fn continued(t: &mut Turn<'_>) -> RunOutcome {
    let open = t.history.lock().open_calls();
    run_calls(t, &open, &[]).await;
    deliver_steers(t).await;
    loop_turns(t).await
}

/// What a continued run did not wait on again (its call asked otherwise this time): expired.
async fn release_parked(t: &Turn<'_>) {
    let w = t.waiter();
    let prompts = &t.deps.prompts;
    prompts.approvals.release(&w).await;
    prompts.questions.release(&w).await;
    prompts.plans.release(&w).await;
}

/// A message of the user's (or a plan's, a wake-up's) as a run receives it.
struct Said<'a> {
    text: &'a str,
    images: &'a [crate::protocol::ImageRef],
    trigger: RunTrigger,
    /// Steered into the run: the queued run it was sent as.
    steered_from: Option<crate::protocol::RunId>,
}

/// Record a message: its event, its `@` mentions and its hooks' context with it. `Err`: a
/// `UserPromptSubmit` hook blocked it (it is shown, but the model never sees it).
async fn user_message(t: &mut Turn<'_>, m: &Said<'_>) -> Result<(), String> {
    t.emit(EventPayload::UserMessage {
        message_id: new_id().into(),
        text: m.text.to_string(),
        origin: Some(m.trigger),
        images: m.images.to_vec(),
        steered_from: m.steered_from.clone(),
    });
    // The files the user's own prompt points at (`@path`), read before the next model call:
    // the model sees them with the prompt.
    let attached = if m.trigger == RunTrigger::Prompt && m.text.contains('@') {
        mentions::attach(t, m.text).await
    } else {
        String::new()
    };
    // The user's own prompt passes its hooks: blocked, or with their context.
    let hooked = if m.trigger == RunTrigger::Prompt {
        hooks::on_prompt(t, m.text).await
    } else {
        Ok(String::new())
    };
    // A blocked message stays out of the conversation: no later model call reads it.
    let context = hooked?;
    t.store_message(
        crate::protocol::MessageRole::User,
        StoredParts {
            text: format!("{}{attached}{context}", m.text),
            images: m.images.to_vec(),
            ..Default::default()
        },
    );
    Ok(())
}

/// At a tool boundary: the messages the user steered into this run (`delivery: steer`), each
/// recorded as the user's next message, so the next model call reads them after the calls'
/// results. Each one's queued run is claimed first (a message removed from the queue meanwhile
/// is not delivered) and ends `completed`, reason `steered`.
pub(super) async fn deliver_steers(t: &mut Turn<'_>) {
    if t.run.cancel.is_cancelled() {
        return;
    }
    let steers = t.run.queue.take_steers(&t.run.session.id);
    for q in steers {
        match t.deps.store.start_run(&q.run_id).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                // Not claimed: put back, it runs after this run as a queued message.
                tracing::warn!(error = %e, "cannot take a steered message; it stays queued");
                t.run.queue.push(&t.run.session.id, q);
                continue;
            }
        }
        let said = Said {
            text: &q.text,
            images: &q.images,
            trigger: q.trigger,
            steered_from: Some(q.run_id.clone()),
        };
        let (status, error) = match user_message(t, &said).await {
            Ok(()) => (RunStatus::Completed, None),
            Err(why) => {
                let msg = format!("a hook blocked this message: {why}");
                t.emit(EventPayload::Error {
                    code: "blocked_by_hook".into(),
                    message: msg.clone(),
                    fatal: false,
                });
                (RunStatus::Failed, Some(werr("blocked_by_hook", msg)))
            }
        };
        let end = crate::scheduler::RunEnd {
            status,
            reason: Some(crate::protocol::StopReason::Steered),
            usage: crate::protocol::Usage::default(),
            error,
            duration_ms: 0,
        };
        if let Err(e) = t
            .deps
            .events
            .end_run(&t.run.session.id, &q.run_id, &end, true)
            .await
        {
            tracing::error!(error = %e, run = %q.run_id, "cannot record a steered message's end");
        }
    }
}
