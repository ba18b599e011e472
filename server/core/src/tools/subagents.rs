//! The subagent tools: `task` starts a child session, `task_status`, `task_wait` and
//! `send_message` follow and steer it (see `crate::subagents`).

use std::collections::HashSet;
use std::time::Duration;

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::protocol::{Agent, Effect, Mode, RunTrigger};
use crate::scheduler::RunQueue;
use crate::store::SessionRow;
use crate::subagents::{
    MAX_DEPTH, MAX_LIVE_CHILDREN, WAIT_DEFAULT_SECS, WAIT_MAX_SECS, rank, view,
};

/// The run queue, or the error a tool returns once the server is stopping.
fn scheduler<'a>(ctx: &'a ToolCtx<'a>) -> Result<&'a RunQueue, ToolOutput> {
    let q = &ctx.services().queue;
    if q.stopping() {
        return Err(ToolOutput::err("unavailable", "the server is stopping"));
    }
    Ok(q)
}

/// This session's children named by `ids` (all of them when `ids` is empty); an id that is not
/// one of them is an error.
async fn children_named(ctx: &ToolCtx<'_>, ids: &[String]) -> Result<Vec<SessionRow>, ToolOutput> {
    let all = ctx
        .services()
        .store
        .child_sessions(&ctx.host.session().id)
        .await
        .map_err(|e| ToolOutput::err("internal", e))?;
    if ids.is_empty() {
        return Ok(all);
    }
    let mut out = Vec::with_capacity(ids.len());
    let mut seen = HashSet::new();
    for id in ids {
        if !seen.insert(id.as_str()) {
            continue;
        }
        match all.iter().find(|c| &c.id == id) {
            Some(c) => out.push(c.clone()),
            None => {
                return Err(ToolOutput::err(
                    "not_found",
                    format!("`{id}` is not a subagent of this session (task_status lists them)"),
                ));
            }
        }
    }
    Ok(out)
}

// ---- task ----

pub struct Task;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    /// A short title (3–8 words).
    #[schemars(length(min = 1, max = 120))]
    pub description: String,
    /// The whole task: the subagent sees nothing else.
    #[schemars(length(min = 1))]
    pub prompt: String,
    /// `build` (default; `plan` parents only start `plan`), `plan` (read-only, answers in
    /// text), or a custom agent's name.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]{0,63}$"))]
    pub agent: Option<String>,
    /// At most yours (default: yours).
    pub mode: Option<ChildMode>,
}

/// The modes a subagent may run in.
#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChildMode {
    Ask,
    Auto,
    Full,
}

pub struct TaskCall {
    description: String,
    prompt: String,
    agent: Option<crate::protocol::AgentName>,
    mode: Option<Mode>,
}

impl super::Tool for Task {
    const NAME: &'static str = "task";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Start a subagent on a self-contained task in its own session; returns its id at once. Collect its answer with task_wait.";
    const HOST: bool = true;
    const SUBAGENTS: bool = true;
    const STARTS_SUBAGENT: bool = true;
    type Args = TaskArgs;
    type Call = TaskCall;

    fn prepare(
        a: TaskArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<TaskCall>, PrepareError> {
        let description = a.description.trim().to_string();
        if description.is_empty() || description.chars().count() > 120 {
            return Err(PrepareError::Input(
                "description must be 1 to 120 characters".into(),
            ));
        }
        if a.prompt.trim().is_empty() || a.prompt.len() > 100_000 {
            return Err(PrepareError::Input(
                "prompt must be 1 to 100000 bytes".into(),
            ));
        }
        Ok(Gated::plain(TaskCall {
            description,
            prompt: a.prompt,
            agent: a
                .agent
                .map(crate::protocol::AgentName::new)
                .transpose()
                .map_err(|e| PrepareError::Input(e.to_string()))?,
            mode: a.mode.map(|m| match m {
                ChildMode::Ask => Mode::Ask,
                ChildMode::Auto => Mode::Auto,
                ChildMode::Full => Mode::Full,
            }),
        }))
    }

    async fn run(call: TaskCall, ctx: &ToolCtx<'_>) -> ToolOutput {
        match start(call, ctx).await {
            Ok(out) | Err(out) => out,
        }
    }
}

async fn start(call: TaskCall, ctx: &ToolCtx<'_>) -> Result<ToolOutput, ToolOutput> {
    crate::probe::moment(crate::probe::MarkKind::Spawn);
    let host = ctx.host;
    let rm = scheduler(ctx)?;
    let lineage = host.lineage();
    if lineage.len() >= MAX_DEPTH {
        return Err(ToolOutput::err(
            "depth_limit",
            format!("subagents nest at most {MAX_DEPTH} deep: do this task yourself"),
        ));
    }
    let agent = match call.agent {
        Some(name) => {
            let base = match host.agent_profile(&name).await {
                Ok(None) => name.builtin().unwrap_or(Agent::Plan),
                Ok(Some(p)) => p.base,
                Err(why) => return Err(ToolOutput::err("unknown_agent", why)),
            };
            if base != Agent::Plan && host.agent() == Agent::Plan {
                return Err(ToolOutput::err(
                    "invalid_input",
                    "the plan agent starts only `plan` subagents (read-only), or custom agents with `base: plan`",
                ));
            }
            name
        }
        None => host.session().agent.clone(),
    };
    let mode = match call.mode {
        Some(m) if rank(m) > rank(host.mode()) => {
            return Err(ToolOutput::err(
                "invalid_input",
                format!(
                    "a subagent's mode is at most yours (`{}`)",
                    host.mode().as_str()
                ),
            ));
        }
        Some(m) => m,
        None => host.mode(),
    };
    let services = ctx.services();
    let store = &services.store;
    let parent = host.session();
    let children = store
        .child_ids(&parent.id)
        .await
        .map_err(|e| ToolOutput::err("internal", e))?;
    let live = children.iter().filter(|c| rm.is_busy(c)).count();
    if live >= MAX_LIVE_CHILDREN {
        return Err(ToolOutput::err(
            "too_many_subagents",
            format!(
                "{live} subagents are already working (at most {MAX_LIVE_CHILDREN}): task_wait for one first"
            ),
        ));
    }
    let id = crate::protocol::SessionId::from(crate::util::new_id());
    let row = store
        .create_child_session(parent, &id, &call.description, agent.clone(), mode)
        .await
        .map_err(|e| ToolOutput::err("internal", e))?;
    crate::probe::moment(crate::probe::MarkKind::Step("child row"));
    services.events.touch(&id);
    let above: Vec<crate::protocol::SessionId> = std::iter::once(parent.id.clone())
        .chain(lineage.iter().cloned())
        .collect();
    services.live.lineages.lock().insert(id.clone(), above);
    rm.enqueue(&row, RunTrigger::Task, &call.prompt)
        .await
        .map_err(|e| ToolOutput::err("internal", e))?;
    crate::probe::moment(crate::probe::MarkKind::Step("run queued"));
    Ok(ToolOutput::json(&serde_json::json!({
        "id": id,
        "status": "started",
        "agent": agent,
        "mode": mode,
        "link": format!("/s/{id}"),
    })))
}

// ---- task_status ----

pub struct TaskStatus;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// Subagent ids (default: all of this session's).
    #[serde(default)]
    pub ids: Vec<String>,
}

impl super::Tool for TaskStatus {
    const NAME: &'static str = "task_status";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Status of your subagents, with the answers of those that finished.";
    const SUBAGENTS: bool = true;
    type Args = StatusArgs;
    type Call = Vec<String>;

    fn prepare(
        a: StatusArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<Vec<String>>, PrepareError> {
        Ok(Gated::plain(a.ids))
    }

    async fn run(ids: Vec<String>, ctx: &ToolCtx<'_>) -> ToolOutput {
        let rm = match scheduler(ctx) {
            Ok(rm) => rm,
            Err(e) => return e,
        };
        let rows = match children_named(ctx, &ids).await {
            Ok(r) => r,
            Err(e) => return e,
        };
        let each = super::MAX_MODEL_TEXT / rows.len().max(1);
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(view(&ctx.services().store, rm, r, each).await);
        }
        ToolOutput::json(&serde_json::json!({ "subagents": out }))
    }
}

// ---- task_wait ----

pub struct TaskWait;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// Subagent ids to wait for (default: all of yours).
    #[serde(default)]
    pub ids: Vec<String>,
    /// Seconds (default 300, at most 3600).
    pub timeout: Option<u64>,
}

pub struct WaitCall {
    ids: Vec<String>,
    timeout: Duration,
}

impl super::Tool for TaskWait {
    const NAME: &'static str = "task_wait";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Wait until the given subagents finish (or the timeout); returns their answers.";
    const HOST: bool = true;
    const SUBAGENTS: bool = true;
    type Args = WaitArgs;
    type Call = WaitCall;

    fn prepare(
        a: WaitArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<WaitCall>, PrepareError> {
        let secs = a.timeout.unwrap_or(WAIT_DEFAULT_SECS);
        if secs == 0 || secs > WAIT_MAX_SECS {
            return Err(PrepareError::Input(format!(
                "timeout must be 1 to {WAIT_MAX_SECS} seconds"
            )));
        }
        Ok(Gated::plain(WaitCall {
            ids: a.ids,
            timeout: Duration::from_secs(secs),
        }))
    }

    async fn run(call: WaitCall, ctx: &ToolCtx<'_>) -> ToolOutput {
        let rm = match scheduler(ctx) {
            Ok(rm) => rm,
            Err(e) => return e,
        };
        let rows = match children_named(ctx, &call.ids).await {
            Ok(r) => r,
            Err(e) => return e,
        };
        let deadline = tokio::time::Instant::now() + call.timeout;
        let cancel = ctx.cancel;
        let all_idle = || rows.iter().all(|r| !rm.is_busy(&r.id));
        // Only waiting: the run's place in the global cap goes to others (its children first
        // of all) meanwhile.
        let finished = ctx
            .host
            .slot()
            .idle(cancel, async {
                loop {
                    let idle = rm.idle().notified();
                    if all_idle() {
                        return true;
                    }
                    tokio::select! {
                        () = idle => {}
                        () = tokio::time::sleep_until(deadline) => return all_idle(),
                        () = cancel.cancelled() => return false,
                    }
                }
            })
            .await;
        if cancel.is_cancelled() {
            return ToolOutput::err("cancelled", "the run was cancelled");
        }
        // Fresh rows: a child's derived status changed while waiting.
        let rows = children_named(ctx, &call.ids).await.unwrap_or(rows);
        let each = super::MAX_MODEL_TEXT / rows.len().max(1);
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(view(&ctx.services().store, rm, r, each).await);
        }
        ToolOutput::json(&serde_json::json!({
            "finished": finished,
            "subagents": out,
        }))
    }
}

// ---- send_message ----

pub struct SendMessage;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendArgs {
    /// The subagent's id.
    pub id: String,
    /// What to tell it (queued behind its current turn).
    pub text: String,
}

impl super::Tool for SendMessage {
    const NAME: &'static str = "send_message";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Send a subagent a follow-up; it answers in a new turn (task_wait again).";
    const SUBAGENTS: bool = true;
    const STARTS_SUBAGENT: bool = true;
    type Args = SendArgs;
    type Call = SendArgs;

    fn prepare(
        a: SendArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<SendArgs>, PrepareError> {
        if a.text.trim().is_empty() || a.text.len() > 100_000 {
            return Err(PrepareError::Input("text must be 1 to 100000 bytes".into()));
        }
        Ok(Gated::plain(a))
    }

    async fn run(a: SendArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        let rm = match scheduler(ctx) {
            Ok(rm) => rm,
            Err(e) => return e,
        };
        let rows = match children_named(ctx, std::slice::from_ref(&a.id)).await {
            Ok(r) => r,
            Err(e) => return e,
        };
        let Some(row) = rows.first() else {
            return ToolOutput::err("not_found", "no such subagent");
        };
        let queued = rm.is_busy(&row.id);
        match rm.enqueue(row, RunTrigger::Task, &a.text).await {
            Ok(run_id) => ToolOutput::json(&serde_json::json!({
                "id": row.id,
                "run_id": run_id,
                "status": if queued { "queued" } else { "started" },
            })),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}
