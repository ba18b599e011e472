//! Background tasks as tools: bg_run starts a shell command and returns at once; bg_list,
//! bg_output and bg_stop read and stop the session's tasks (a child session's tasks belong to its
//! parent). bg_run's command passes the gate exactly like shell's.

use std::path::PathBuf;

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::policy::command;
use crate::policy::paths::PathPolicy;
use crate::protocol::{Effect, TaskStatus, TaskStopper};
use crate::tasks::{TaskError, TaskInfo};

fn task_err(e: TaskError) -> ToolOutput {
    match e {
        TaskError::NotFound => ToolOutput::err("not_found", "task not found"),
        TaskError::Invalid(m) => ToolOutput::err("invalid_input", m),
        TaskError::Limit(m) => ToolOutput::err("limit", m),
        other => ToolOutput::err("internal", other),
    }
}

/// Tasks belong to the top-level session.
fn owner(ctx: &ToolCtx<'_>) -> crate::protocol::SessionId {
    let s = ctx.host.session();
    s.parent_id.clone().unwrap_or_else(|| s.id.clone())
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BgRunArgs {
    /// The shell command (up to 8000 characters).
    pub command: String,
    /// Working directory, relative to the workspace.
    pub cwd: Option<String>,
    /// A short name shown in the tasks panel.
    pub label: Option<String>,
    /// Stop it after this long (capped by tasks.maxRunMs).
    #[schemars(range(min = 1000, max = 86_400_000))]
    pub timeout_ms: Option<u64>,
}

pub struct BgRunCall {
    command: String,
    cwd: PathBuf,
    label: Option<String>,
    timeout_ms: Option<u64>,
}

pub struct BgRun;

impl super::Tool for BgRun {
    const NAME: &'static str = "bg_run";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Start a shell command in the background (a dev server, a watcher, a long test run) and keep working. Returns a task id at once. `command` up to 8000 characters, optional `cwd` (relative to the workspace), `label`, `timeoutMs` (1000 to 86400000, capped by tasks.maxRunMs). You are woken when it ends by itself.";
    const HOST: bool = true;
    type Args = BgRunArgs;
    type Call = BgRunCall;

    fn prepare(a: BgRunArgs, paths: &PathPolicy) -> Result<Gated<BgRunCall>, PrepareError> {
        let cwd = super::process::resolve_cwd(a.cwd.as_deref(), paths)?;
        let mut analysis = command::analyze_shell(&a.command);
        Ok(Gated {
            paths: paths.command_paths(&mut analysis, &cwd),
            command: Some((a.command.clone(), analysis)),
            url: None,
            call: BgRunCall {
                command: a.command,
                cwd,
                label: a.label,
                timeout_ms: a.timeout_ms,
            },
        })
    }

    async fn run(c: BgRunCall, ctx: &ToolCtx<'_>) -> ToolOutput {
        let deps = ctx.services();
        let started = deps
            .tasks
            .start(
                &owner(ctx),
                &c.command,
                &c.cwd,
                &ctx.job(),
                c.label.as_deref(),
                c.timeout_ms,
            )
            .await;
        match started {
            Ok(row) => {
                // DESIGN's wake-up rule: only a task the root session started wakes it. One a
                // subagent started is owed to no one (its wake-up is claimed now); it shows in
                // the root's bg_list and the subagent reads it with bg_output.
                let child = ctx.host.session().parent_id.is_some();
                if child && let Err(e) = deps.store.claim_delivery(&row.id).await {
                    tracing::warn!(error = %e, task = %row.id, "cannot mark a subagent's task as waking no one");
                }
                let note = if child {
                    "Started. Nothing will wake you or your parent when it ends: read its output with bg_output (offset 0, then next_offset) before you answer."
                } else if deps.prompts.interactive {
                    "Started. Keep working: you will be woken when it ends by itself. Read its output any time with bg_output (offset 0, then next_offset)."
                } else {
                    "Started. Nothing will wake you in this headless run: read its output with bg_output (offset 0, then next_offset). Live tasks are stopped when the run ends."
                };
                ToolOutput::json(&serde_json::json!({
                    "id": row.id, "label": row.label, "status": "running",
                    "timeout_ms": row.timeout_ms, "note": note,
                }))
            }
            Err(e) => task_err(e),
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgListArgs {
    pub status: Option<TaskStatus>,
    /// Default 20.
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<i64>,
}

pub struct BgList;

impl super::Tool for BgList {
    const NAME: &'static str = "bg_list";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str =
        "List this session's background tasks, newest first (`status` filter, `limit` up to 50).";
    const HOST: bool = true;
    type Args = BgListArgs;
    type Call = BgListArgs;

    fn prepare(a: BgListArgs, _: &PathPolicy) -> Result<Gated<BgListArgs>, PrepareError> {
        Ok(Gated::plain(a))
    }

    async fn run(a: BgListArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        let limit = a.limit.unwrap_or(20).clamp(1, 50);
        match ctx
            .services()
            .store
            .list_tasks(&owner(ctx), a.status, limit)
            .await
        {
            Ok(rows) => {
                let tasks: Vec<TaskInfo> = rows.into_iter().map(Into::into).collect();
                ToolOutput::json(&serde_json::json!({ "tasks": tasks }))
            }
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgOutputArgs {
    /// The task id.
    pub id: String,
    /// Byte offset: 0 first, then the previous `next_offset`.
    pub offset: Option<u64>,
    /// Bytes to read (default 16384).
    #[schemars(range(min = 1, max = 65536))]
    pub limit: Option<usize>,
}

pub struct BgOutput;

impl super::Tool for BgOutput {
    const NAME: &'static str = "bg_output";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Read a background task's output by byte offset: pass 0 first, then the previous `next_offset`; `limit` up to 65536 bytes (default 16384). `eof` is true only when the task ended and all was read.";
    const HOST: bool = true;
    type Args = BgOutputArgs;
    type Call = BgOutputArgs;

    fn prepare(a: BgOutputArgs, _: &PathPolicy) -> Result<Gated<BgOutputArgs>, PrepareError> {
        Ok(Gated::plain(a))
    }

    async fn run(a: BgOutputArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        let tasks = &ctx.services().tasks;
        let row = match tasks.get_for(&owner(ctx), &a.id.as_str().into()).await {
            Ok(row) => row,
            Err(e) => return task_err(e),
        };
        match tasks.output(&row, a.offset.unwrap_or(0), a.limit).await {
            Ok(o) => ToolOutput::json(&o),
            Err(e) => task_err(e),
        }
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgStopArgs {
    /// The task id.
    pub id: String,
}

pub struct BgStop;

impl super::Tool for BgStop {
    const NAME: &'static str = "bg_stop";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Stop a background task (SIGTERM to its process group, SIGKILL after 3 s). It ends cancelled.";
    const HOST: bool = true;
    type Args = BgStopArgs;
    type Call = crate::protocol::TaskId;

    fn prepare(
        a: BgStopArgs,
        _: &PathPolicy,
    ) -> Result<Gated<crate::protocol::TaskId>, PrepareError> {
        Ok(Gated::plain(a.id.into()))
    }

    async fn run(id: crate::protocol::TaskId, ctx: &ToolCtx<'_>) -> ToolOutput {
        let tasks = &ctx.services().tasks;
        match tasks.stop(Some(&owner(ctx)), &id, TaskStopper::Model).await {
            Ok(row) => ToolOutput::json(&TaskInfo::from(row)),
            Err(e) => task_err(e),
        }
    }
}
