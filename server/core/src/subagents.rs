//! Subagents: `task` starts a child session — its own transcript and seq, linked to its parent —
//! whose runs the scheduler queues like any other; `task_status`, `task_wait` and `send_message`
//! follow and steer it. A child works with its root session's grants, a mode no wider than its
//! parent's and the same gate (so never more than the parent may); what it asks the user is
//! shown to the root session too (`child_pending`, see `pending`); a parent's cancel reaches the
//! whole tree; the parent reads only each child's final answer, never its transcript.

use std::collections::HashSet;
use std::time::Duration;

use serde::Serialize;

use crate::protocol::{Agent, Effect, Mode, RunStatus, RunTrigger, SessionStatus};
use crate::store::{SessionRow, Store};
use crate::tools::{Gated, PrepareError, ToolCtx, ToolOutput};

/// Subagents nest at most this deep below the session the user started.
pub const MAX_DEPTH: usize = 2;
/// Children of one session running or queued at once.
pub const MAX_LIVE_CHILDREN: usize = 4;
/// `task_wait`'s default and longest wait.
pub const WAIT_DEFAULT_SECS: u64 = 300;
pub const WAIT_MAX_SECS: u64 = 3600;
/// The tools a subagent at the deepest level is not offered.
pub const SPAWNING: &[&str] = &["task", "task_status", "task_wait", "send_message"];
/// The subagent tools that set a child working (and so may change the workspace's files).
pub const STARTING: &[&str] = &["task", "send_message"];

/// The sessions above `session`: its parent first, the root last (empty for a session the user
/// started).
pub async fn lineage(store: &Store, session: &SessionRow) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut next = session.parent_id.clone();
    while let Some(id) = next {
        // Depth is bounded by `task`; the bound here only guards against a corrupt loop.
        if out.len() > MAX_DEPTH + 2 || out.contains(&id) || id == session.id {
            break;
        }
        next = store.parent_of(&id).await.ok().flatten();
        out.push(id);
    }
    out
}

/// `lineage`, from what `task` remembered when it started the session (else the store).
pub async fn lineage_of(deps: &crate::agent::AgentDeps, session: &SessionRow) -> Vec<String> {
    if session.parent_id.is_none() {
        return Vec::new();
    }
    let known = deps.lineages.lock().get(&session.id).cloned();
    match known {
        Some(l) => l,
        None => lineage(&deps.store, session).await,
    }
}

/// The session whose grants `session` uses: its root for a subagent, else itself.
pub async fn grant_owner(store: &Store, session: &SessionRow) -> String {
    lineage(store, session)
        .await
        .pop()
        .unwrap_or_else(|| session.id.clone())
}

fn rank(m: Mode) -> u8 {
    match m {
        Mode::Ask => 0,
        Mode::Auto => 1,
        Mode::Full => 2,
    }
}

/// What a parent sees of one child.
#[derive(Debug, Serialize)]
pub struct ChildView {
    pub id: String,
    pub description: String,
    pub agent: Agent,
    pub mode: Mode,
    /// `queued`, `running`, `waiting_for_user` (an approval or question is shown to the user),
    /// or how its latest run ended: `completed`, `failed`, `cancelled`, `interrupted`.
    pub status: &'static str,
    /// The child's final answer (its latest assistant text), once it is idle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the user reads its transcript.
    pub link: String,
}

/// The latest assistant text of a session (a subagent's answer).
async fn final_answer(store: &Store, session: &str) -> Option<String> {
    let parts = store.latest_assistant_parts(session, 20).await.ok()?;
    parts.iter().find_map(|p| {
        serde_json::from_str::<crate::agent::history::StoredParts>(p)
            .ok()
            .map(|sp| sp.text)
            .filter(|t| !t.trim().is_empty())
    })
}

async fn view(
    deps: &crate::agent::AgentDeps,
    rm: &crate::runs::RunManager,
    row: &SessionRow,
    answer_bytes: usize,
) -> ChildView {
    let runs = deps
        .store
        .list_session_runs(&row.id, 1)
        .await
        .unwrap_or_default();
    let latest = runs.first();
    let busy = rm.is_busy(&row.id);
    let status = if busy {
        match (row.status, latest.map(|r| r.status)) {
            (SessionStatus::Waiting, _) => "waiting_for_user",
            (_, Some(RunStatus::Running)) => "running",
            _ => "queued",
        }
    } else {
        match latest.map(|r| r.status) {
            Some(RunStatus::Failed) => "failed",
            Some(RunStatus::Cancelled) => "cancelled",
            Some(RunStatus::Interrupted) => "interrupted",
            _ => "completed",
        }
    };
    let answer = if busy {
        None
    } else {
        final_answer(&deps.store, &row.id)
            .await
            .map(|a| clip(&a, answer_bytes))
    };
    let error = latest
        .filter(|_| !busy)
        .and_then(|r| r.error.as_deref())
        .map(|e| {
            serde_json::from_str::<crate::protocol::WireError>(e)
                .map_or_else(|_| e.to_string(), |w| w.message)
        });
    ChildView {
        id: row.id.clone(),
        description: row.title.clone(),
        agent: row.agent,
        mode: row.mode,
        status,
        answer,
        error,
        link: format!("/s/{}", row.id),
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    format!(
        "{}\n[… {} more bytes: read the whole answer in the child's session]",
        crate::util::truncate_str(s, max),
        s.len() - max
    )
}

/// The scheduler, or the error a tool returns without one.
fn scheduler(ctx: &ToolCtx<'_>) -> Result<std::sync::Arc<crate::runs::RunManager>, ToolOutput> {
    ctx.turn
        .deps
        .runs()
        .ok_or_else(|| ToolOutput::err("unavailable", "subagents need the server's scheduler"))
}

/// This session's children named by `ids` (all of them when `ids` is empty); an id that is not
/// one of them is an error.
async fn children_named(ctx: &ToolCtx<'_>, ids: &[String]) -> Result<Vec<SessionRow>, ToolOutput> {
    let all = ctx
        .turn
        .deps
        .store
        .child_sessions(&ctx.turn.run.session.id)
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
    pub description: String,
    /// The whole task: the subagent sees nothing else.
    pub prompt: String,
    /// `build` (default; `plan` parents only start `plan`) or `plan` (read-only, answers in text).
    pub agent: Option<ChildAgent>,
    /// At most yours (default: yours).
    pub mode: Option<ChildMode>,
}

/// The agents a subagent may be (the model's schema names them).
#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChildAgent {
    Build,
    Plan,
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
    agent: Option<Agent>,
    mode: Option<Mode>,
}

impl crate::tools::Tool for Task {
    const NAME: &'static str = "task";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Start a subagent on a self-contained task in its own session; returns its id at once. Collect its answer with task_wait.";
    const HOST: bool = true;
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
            agent: a.agent.map(|a| match a {
                ChildAgent::Build => Agent::Build,
                ChildAgent::Plan => Agent::Plan,
            }),
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
    let t = ctx.turn;
    let rm = scheduler(ctx)?;
    if t.depth() >= MAX_DEPTH {
        return Err(ToolOutput::err(
            "depth_limit",
            format!("subagents nest at most {MAX_DEPTH} deep: do this task yourself"),
        ));
    }
    let agent = match (call.agent, t.agent) {
        (Some(Agent::Build), Agent::Plan) => {
            return Err(ToolOutput::err(
                "invalid_input",
                "the plan agent starts only `plan` subagents (read-only)",
            ));
        }
        (Some(a), _) => a,
        (None, a) => a,
    };
    let mode = match call.mode {
        Some(m) if rank(m) > rank(t.mode) => {
            return Err(ToolOutput::err(
                "invalid_input",
                format!("a subagent's mode is at most yours (`{}`)", t.mode.as_str()),
            ));
        }
        Some(m) => m,
        None => t.mode,
    };
    let store = &t.deps.store;
    let parent = &t.run.session;
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
    let id = crate::util::new_id();
    let row = store
        .create_child_session(parent, &id, &call.description, agent, mode)
        .await
        .map_err(|e| ToolOutput::err("internal", e))?;
    crate::probe::moment(crate::probe::MarkKind::Step("child row"));
    t.deps.events.touch(&id);
    let above: Vec<String> = std::iter::once(parent.id.clone())
        .chain(t.lineage.iter().cloned())
        .collect();
    t.deps.lineages.lock().insert(id.clone(), above);
    rm.enqueue_on(&row, RunTrigger::Task, &call.prompt)
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

impl crate::tools::Tool for TaskStatus {
    const NAME: &'static str = "task_status";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Status of your subagents, with the answers of those that finished.";
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
        let each = crate::tools::MAX_MODEL_TEXT / rows.len().max(1);
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(view(ctx.turn.deps, &rm, r, each).await);
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

impl crate::tools::Tool for TaskWait {
    const NAME: &'static str = "task_wait";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Wait until the given subagents finish (or the timeout); returns their answers.";
    const HOST: bool = true;
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
            .turn
            .run
            .slot
            .idle(cancel, async {
                loop {
                    let idle = rm.idle.notified();
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
        let each = crate::tools::MAX_MODEL_TEXT / rows.len().max(1);
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(view(ctx.turn.deps, &rm, r, each).await);
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

impl crate::tools::Tool for SendMessage {
    const NAME: &'static str = "send_message";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str =
        "Send a subagent a follow-up; it answers in a new turn (task_wait again).";
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
        match rm.enqueue_on(row, RunTrigger::Task, &a.text).await {
            Ok(run_id) => ToolOutput::json(&serde_json::json!({
                "id": row.id,
                "run_id": run_id,
                "status": if queued { "queued" } else { "started" },
            })),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}
