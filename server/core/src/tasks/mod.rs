//! Background tasks (`bg_run`): a shell command in its own process group whose stdout and stderr
//! go, in arrival order, to a log read by byte offset. The log keeps the first
//! `tasks.maxOutputBytes`, then a notice line, and the last 32 KiB are appended at exit. States
//! queued → running → stopping → succeeded | failed | cancelled | lost, each a compare-and-set.
//! Stop = SIGTERM to the group, SIGKILL after 3 s. A watchdog fails tasks that run too long. On
//! start, unfinished tasks whose owner process (pid + start time) is gone become `lost`.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;

use crate::children::{ENV_ALLOW, GroupGuard, SHELL};
use crate::config::TaskSettings;
use crate::events::EventBus;
use crate::protocol::{EventPayload, TaskStatus, TaskStopper};
use crate::store::{Stopper, Store, StoreError, TaskRow};
use crate::util::{new_id, now_ms};

pub const MAX_COMMAND_CHARS: usize = 8000;
pub const TAIL_BYTES: usize = 32 * 1024;
pub const STOP_GRACE: Duration = Duration::from_secs(3);
pub const MIN_TIMEOUT_MS: u64 = 1_000;
pub const MAX_TIMEOUT_MS: u64 = 24 * 3600 * 1000;
pub const DEFAULT_OUTPUT_LIMIT: usize = 16 * 1024;
pub const MAX_OUTPUT_LIMIT: usize = 65_536;

pub use crate::protocol::TaskInfo;

impl From<TaskRow> for TaskInfo {
    fn from(r: TaskRow) -> TaskInfo {
        TaskInfo {
            id: r.id,
            session_id: r.session_id,
            label: r.label,
            command: r.command,
            cwd: r.cwd,
            status: r.status,
            exit_code: r.exit_code,
            error: r.error,
            stopped_by: r.stopped_by.0,
            pid: r.pid,
            output_bytes: r.output_bytes,
            timeout_ms: r.timeout_ms,
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
        }
    }
}

/// A read of a task's log.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TaskOutput {
    pub id: String,
    pub status: TaskStatus,
    pub exit_code: Option<i64>,
    pub text: String,
    pub next_offset: u64,
    /// True only when the task has ended and everything was read.
    pub eof: bool,
    pub output_truncated: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("task not found")]
    NotFound,
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Limit(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Io(String),
}

/// Process start time (clock ticks since boot) from /proc, to tell a live owner from a reused pid.
/// This boot's id: a pid and start time only name the same process within one boot.
pub fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

pub fn process_start_time(pid: u32) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    crate::util::stat_field(&stat, 22)?.parse().ok()
}

struct Live {
    stop: CancellationToken,
    origin: Arc<Mutex<Option<TaskStopper>>>,
}

pub struct TaskManager {
    store: Store,
    events: Arc<EventBus>,
    settings: TaskSettings,
    logs: PathBuf,
    owner_pid: u32,
    owner_start: i64,
    live: Mutex<HashMap<crate::protocol::TaskId, Live>>,
    /// Notified when a task ends by itself (wake-ups).
    ended: tokio::sync::mpsc::UnboundedSender<crate::protocol::SessionId>,
    sandbox: crate::sandbox::SandboxHandle,
}

impl TaskManager {
    pub fn new(
        store: Store,
        events: Arc<EventBus>,
        settings: TaskSettings,
        state_dir: &Path,
        sandbox: crate::sandbox::SandboxHandle,
    ) -> (
        Arc<TaskManager>,
        tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let owner_pid = std::process::id();
        let tm = TaskManager {
            store,
            events,
            settings,
            logs: state_dir.join("tasks"),
            owner_pid,
            owner_start: process_start_time(owner_pid).unwrap_or(0),
            live: Mutex::new(HashMap::new()),
            ended: tx,
            sandbox,
        };
        (Arc::new(tm), rx)
    }

    fn live_count(&self) -> usize {
        self.live.lock().len()
    }

    async fn emit(&self, row: &TaskRow) {
        let p = EventPayload::TaskUpdated {
            task: TaskInfo::from(row.clone()),
        };
        let _ = self.events.append(&row.session_id, None, &p).await;
    }

    /// The task if it belongs to this session; "not found" otherwise.
    pub async fn get_for(
        &self,
        session_id: &crate::protocol::SessionId,
        id: &crate::protocol::TaskId,
    ) -> Result<TaskRow, TaskError> {
        match self.store.get_task(id).await {
            Ok(t) if t.session_id == *session_id => Ok(t),
            Ok(_) | Err(StoreError::NotFound) => Err(TaskError::NotFound),
            Err(e) => Err(e.into()),
        }
    }

    /// Any task by id (the UI and tests; the model always goes through `get_for`).
    pub async fn get_for_any(&self, id: &crate::protocol::TaskId) -> Result<TaskRow, TaskError> {
        self.store.get_task(id).await.map_err(|e| match e {
            StoreError::NotFound => TaskError::NotFound,
            o => o.into(),
        })
    }

    /// The command's shape, the timeout (capped by tasks.maxRunMs), and the live-task limits.
    async fn check_start(
        &self,
        session_id: &crate::protocol::SessionId,
        command: &str,
        timeout_ms: Option<u64>,
    ) -> Result<u64, TaskError> {
        if command.trim().is_empty()
            || command.chars().count() > MAX_COMMAND_CHARS
            || command.contains('\0')
        {
            return Err(TaskError::Invalid(format!(
                "command must be 1 to {MAX_COMMAND_CHARS} characters"
            )));
        }
        let cap = self
            .settings
            .max_run_ms
            .clamp(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
        let timeout = match timeout_ms {
            Some(t) if !(MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&t) => {
                return Err(TaskError::Invalid(
                    "timeoutMs must be between 1000 (1 s) and 86400000 (24 h)".into(),
                ));
            }
            Some(t) => t.min(cap),
            None => cap,
        };
        let per_session = self.store.count_live_tasks(session_id).await? as usize;
        if per_session >= self.settings.max_per_session {
            return Err(TaskError::Limit(format!(
                "this session already has {per_session} live tasks (tasks.maxPerSession is {}); stop one first",
                self.settings.max_per_session
            )));
        }
        if self.live_count() >= self.settings.max_per_process {
            return Err(TaskError::Limit(format!(
                "the server already runs {} tasks (limit {})",
                self.live_count(),
                self.settings.max_per_process
            )));
        }
        Ok(timeout)
    }

    /// Start a task; returns it as `running`.
    pub async fn start(
        self: &Arc<Self>,
        session_id: &crate::protocol::SessionId,
        command: &str,
        cwd: &Path,
        job: &crate::sandbox::Job,
        label: Option<&str>,
        timeout_ms: Option<u64>,
    ) -> Result<TaskRow, TaskError> {
        let timeout = self.check_start(session_id, command, timeout_ms).await?;
        std::fs::create_dir_all(&self.logs).map_err(|e| TaskError::Io(e.to_string()))?;
        let id = crate::protocol::TaskId::from(new_id());
        let label = label
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| crate::util::truncate_str(l, 200).to_string())
            .unwrap_or_else(|| {
                crate::util::truncate_str(command.lines().next().unwrap_or(""), 80).to_string()
            });
        let log_path = self.logs.join(format!("{id}.log"));
        let row = TaskRow {
            id: id.clone(),
            session_id: session_id.into(),
            command: command.to_string(),
            cwd: cwd.to_string_lossy().into_owned(),
            label,
            status: TaskStatus::Queued,
            exit_code: None,
            error: None,
            stopped_by: Stopper(None),
            pid: None,
            owner_pid: i64::from(self.owner_pid),
            owner_start: self.owner_start,
            log_path: log_path.to_string_lossy().into_owned(),
            output_bytes: 0,
            timeout_ms: timeout as i64,
            created_at: now_ms(),
            started_at: None,
            finished_at: None,
            read_at: None,
            claimed_at: None,
            delivered_at: None,
        };
        self.store.create_task(&row).await?;
        let sandbox = self.sandbox.get().await;
        // What programs outside the jail run, as the roots hold it now (see the shell tool's
        // `hold_created`): what the task creates is held when it ends.
        let seen = match &sandbox {
            Some(_) => Some(Arc::new(crate::sandbox::guard::look(&job.roots).await)),
            _ => None,
        };
        // Named after the task, so a restart finds its jail even once the leader is gone.
        let job = &crate::sandbox::Job {
            label: Some(id.to_string()),
            seen: seen.clone(),
            ..job.clone()
        };
        let guarded = seen.map(|s| (job.roots.clone(), s));
        let (child, reader) = match spawn_shell(command, cwd, sandbox.as_deref(), job) {
            Ok(x) => x,
            Err(e) => {
                let _ = self
                    .store
                    .task_finished(
                        &id,
                        TaskStatus::Queued,
                        TaskStatus::Failed,
                        None,
                        Some(&format!("cannot start: {e}")),
                        None,
                        0,
                    )
                    .await;
                return Err(TaskError::Io(format!("cannot start the command: {e}")));
            }
        };
        let pid = child.id().unwrap_or(0);
        let (start, boot) = (process_start_time(pid), boot_id());
        self.store
            .task_started(&id, i64::from(pid), start, boot.as_deref())
            .await?;
        let stop = CancellationToken::new();
        let origin = Arc::new(Mutex::new(None));
        {
            let mut m = self.live.lock();
            m.insert(
                id.clone(),
                Live {
                    stop: stop.clone(),
                    origin: origin.clone(),
                },
            );
        }
        let running = self.store.get_task(&id).await?;
        self.emit(&running).await;
        let me = self.clone();
        let file = std::fs::File::from(std::os::fd::OwnedFd::from(reader));
        tokio::spawn(async move {
            me.monitor(
                running,
                child,
                file,
                log_path,
                stop,
                origin,
                Duration::from_millis(timeout),
                guarded,
            )
            .await
        });
        self.store.get_task(&id).await.map_err(Into::into)
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one row's columns, bound in order"
    )]
    async fn monitor(
        self: Arc<Self>,
        row: TaskRow,
        mut child: tokio::process::Child,
        pipe: std::fs::File,
        log_path: PathBuf,
        stop: CancellationToken,
        origin: Arc<Mutex<Option<TaskStopper>>>,
        timeout: Duration,
        guarded: Option<(Vec<PathBuf>, Arc<crate::sandbox::guard::Snapshot>)>,
    ) {
        let id = row.id.clone();
        let mut guard = GroupGuard::new(child.id().unwrap_or(0));
        let mut log = TaskLog::create(&log_path, self.settings.max_output_bytes as usize).await;
        let mut pipe = tokio::fs::File::from_std(pipe);
        let mut buf = vec![0u8; 64 * 1024];
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut last_flush = tokio::time::Instant::now();
        // A stop (the watchdog, or a stop request) was started: SIGTERM sent once.
        let mut stopping = false;
        let mut open = true;
        let mut exit: Option<std::process::ExitStatus> = None;
        // SIGKILL deadline after a SIGTERM. It fires only while the leader is unreaped, so its pid
        // (the group id) cannot have been reused by another process.
        let far = tokio::time::Instant::now() + Duration::from_secs(365 * 24 * 3600);
        let kill_at = tokio::time::sleep_until(far);
        tokio::pin!(kill_at);
        let mut kill_armed = false;
        let mut live = crate::events::LiveOutput::new(
            &self.events,
            &row.session_id,
            None,
            crate::events::LiveOf::Task(&id),
        );
        loop {
            let due = live.due();
            tokio::select! {
                           r = pipe.read(&mut buf), if open => match r {
                               Ok(0) | Err(_) => open = false,
                               Ok(n) => {
                                   log.push(&buf[..n]).await;
                                   live.push(crate::protocol::OutputStream::Stdout, &buf[..n]);
                                   if last_flush.elapsed() > Duration::from_secs(1) {
                                       last_flush = tokio::time::Instant::now();
                                       let _ = self.store.task_output_bytes(&id, log.written as i64).await;
                                   }
                               }
                           },
                           s = child.wait(), if exit.is_none() => {
                               exit = s.ok();
                               // The leader exited: kill what is left of its group right away (children
                               // holding the pipe), then never signal that group id again.
                               guard.signal(rustix::process::Signal::KILL);
                               guard.disarm();
                               if !open { break; }
                           }
                           _ = &mut deadline, if !stopping && exit.is_none() => {
                               stopping = true;
                               {
            let mut o = origin.lock(); *o = Some(TaskStopper::Timeout); }
                               let _ = self.store.task_stopping(&id, TaskStopper::Timeout).await;
                               if let Ok(r) = self.store.get_task(&id).await && r.status == TaskStatus::Stopping { self.emit(&r).await; }
                               guard.signal(rustix::process::Signal::TERM);
                               kill_at.as_mut().reset(tokio::time::Instant::now() + STOP_GRACE);
                               kill_armed = true;
                           }
                           _ = stop.cancelled(), if !stopping && exit.is_none() => {
                               stopping = true;
                               guard.signal(rustix::process::Signal::TERM);
                               kill_at.as_mut().reset(tokio::time::Instant::now() + STOP_GRACE);
                               kill_armed = true;
                           }
                           _ = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => live.flush(),
                           _ = &mut kill_at, if kill_armed && exit.is_none() => {
                               kill_armed = false;
                               guard.signal(rustix::process::Signal::KILL);
                           }
                       }
            if exit.is_some() && !open {
                break;
            }
        }
        live.flush();
        guard.disarm();
        if let Some((roots, before)) = guarded {
            for line in hold_created(roots, &before).await {
                log.push(line.as_bytes()).await;
            }
        }
        let written = log.close().await;
        let code = exit.and_then(|s| s.code()).map(i64::from);
        self.record_end(&id, code, &origin, written).await;
    }

    /// One terminal state. A stop that won its CAS (`stopping`) ends cancelled (failed for the
    /// watchdog); otherwise the exit decides. A stop announced (origin set) whose CAS has not
    /// landed yet is waited for briefly, so the two never both "win". A task that ended by
    /// itself wakes its session.
    async fn record_end(
        &self,
        id: &crate::protocol::TaskId,
        code: Option<i64>,
        origin: &Mutex<Option<TaskStopper>>,
        written: usize,
    ) {
        let id = id.clone();
        let st = &self.store;
        let mut ok = Ok(false);
        for _ in 0..100 {
            let cur = match st.get_task(&id).await {
                Ok(r) => r,
                Err(e) => {
                    ok = Err(e);
                    break;
                }
            };
            let by = *origin.lock();
            let attempt = match cur.status {
                TaskStatus::Stopping => match cur.stopped_by.0 {
                    Some(TaskStopper::Timeout) => {
                        st.task_finished(
                            &id,
                            TaskStatus::Stopping,
                            TaskStatus::Failed,
                            code,
                            Some("timeout"),
                            None,
                            written as i64,
                        )
                        .await
                    }
                    _ => {
                        st.task_finished(
                            &id,
                            TaskStatus::Stopping,
                            TaskStatus::Cancelled,
                            code,
                            None,
                            None,
                            written as i64,
                        )
                        .await
                    }
                },
                TaskStatus::Running | TaskStatus::Queued if by.is_some() => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                TaskStatus::Running | TaskStatus::Queued => {
                    let (to, err) = if code == Some(0) {
                        (TaskStatus::Succeeded, None)
                    } else {
                        (TaskStatus::Failed, Some("the command exited with an error"))
                    };
                    st.task_finished(&id, cur.status, to, code, err, None, written as i64)
                        .await
                }
                _ => break,
            };
            if let Ok(true) = attempt {
                ok = Ok(true);
                break;
            }
        }
        {
            let mut m = self.live.lock();
            m.remove(&id);
        }
        if let Ok(r) = st.get_task(&id).await {
            self.emit(&r).await;
            let by_itself = matches!(r.status, TaskStatus::Succeeded | TaskStatus::Failed)
                && r.stopped_by.0.is_none_or(|b| b == TaskStopper::Timeout);
            if ok.unwrap_or(false) && by_itself {
                let _ = self.ended.send(r.session_id.clone());
            }
        }
    }

    /// Stop a task (origin: user, model or shutdown). Returns the task as it is after the stop.
    pub async fn stop(
        &self,
        session_id: Option<&crate::protocol::SessionId>,
        id: &crate::protocol::TaskId,
        by: TaskStopper,
    ) -> Result<TaskRow, TaskError> {
        // Ownership check: another session gets "not found".
        match session_id {
            Some(s) => self.get_for(s, id).await?,
            None => self.get_for_any(id).await?,
        };
        let live = self
            .live
            .lock()
            .get(id)
            .map(|l| (l.stop.clone(), l.origin.clone()));
        if let Some((token, origin)) = live {
            {
                let mut o = origin.lock();
                if o.is_none() {
                    *o = Some(by);
                }
            }
            if self.store.task_stopping(id, by).await? {
                // Announce `stopping` only if the monitor has not already ended it (the monitor
                // emits the one terminal event).
                if let Ok(r) = self.store.get_task(id).await
                    && r.status == TaskStatus::Stopping
                {
                    self.emit(&r).await;
                }
                token.cancel();
                // Wait for the terminal state (SIGKILL after 3 s at worst).
                for _ in 0..100 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let r = self.store.get_task(id).await?;
                    if !r.status.is_live() {
                        return Ok(r);
                    }
                }
            } else {
                let mut o = origin.lock();
                // The exit won: do not claim the stop.
                if *o == Some(by) {
                    *o = None;
                }
            }
        }
        Ok(self.store.get_task(id).await?)
    }

    /// The model reads the log (a complete read after the end cancels the task's wake-up).
    pub async fn output(
        &self,
        row: &TaskRow,
        offset: u64,
        limit: Option<usize>,
    ) -> Result<TaskOutput, TaskError> {
        let out = self.read_log(row, offset, limit).await?;
        if out.eof {
            let _ = self.store.task_read_after_end(&row.id).await;
        }
        Ok(out)
    }

    /// The user reads the log (the UI): the wake-up still happens.
    pub async fn output_for_user(
        &self,
        row: &TaskRow,
        offset: u64,
        limit: Option<usize>,
    ) -> Result<TaskOutput, TaskError> {
        self.read_log(row, offset, limit).await
    }

    /// Read the log from `offset` (at most `limit` bytes, cut back to a UTF-8 boundary).
    async fn read_log(
        &self,
        row: &TaskRow,
        offset: u64,
        limit: Option<usize>,
    ) -> Result<TaskOutput, TaskError> {
        let limit = limit
            .unwrap_or(DEFAULT_OUTPUT_LIMIT)
            .clamp(1, MAX_OUTPUT_LIMIT);
        let mut bytes = Vec::new();
        let mut len = 0u64;
        if let Ok(mut f) = tokio::fs::File::open(&row.log_path).await {
            len = f.metadata().await.map(|m| m.len()).unwrap_or(0);
            if offset < len {
                use tokio::io::AsyncSeekExt;
                let _ = f.seek(std::io::SeekFrom::Start(offset)).await;
                let _ = f.take(limit as u64).read_to_end(&mut bytes).await;
            }
        }
        let ended = !row.status.is_live();
        // Never split a character between two reads (unless the log ends there).
        let mut keep = bytes.len();
        if offset + (keep as u64) < len || !ended {
            while keep > 0 && std::str::from_utf8(&bytes[..keep]).is_err() && bytes.len() - keep < 4
            {
                keep -= 1;
            }
            if keep == 0 {
                keep = bytes.len();
            }
        }
        bytes.truncate(keep);
        let next = offset + bytes.len() as u64;
        Ok(TaskOutput {
            id: row.id.to_string(),
            status: row.status,
            exit_code: row.exit_code,
            text: String::from_utf8_lossy(&bytes).into_owned(),
            next_offset: next,
            eof: ended && next >= len,
            output_truncated: len > self.settings.max_output_bytes,
        })
    }

    /// Server shutdown: every live task's group is stopped; they end `cancelled` (shutdown).
    pub async fn shutdown(&self) {
        let ids: Vec<crate::protocol::TaskId> = self.live.lock().keys().cloned().collect();
        let stops = ids
            .iter()
            .map(|id| self.stop(None, id, TaskStopper::Shutdown));
        futures::future::join_all(stops).await;
    }

    /// At start: unfinished tasks whose owner is gone become `lost`; old ones are deleted.
    pub async fn recover(&self) -> Result<usize, TaskError> {
        let mut lost = 0;
        for t in self.store.unfinished_tasks().await? {
            let alive = u32::try_from(t.owner_pid)
                .ok()
                .and_then(process_start_time)
                .is_some_and(|st| st == t.owner_start);
            if alive && (t.owner_pid != i64::from(self.owner_pid)) {
                continue; // another live server owns it
            }
            if self.store.mark_task_lost(&t.id).await? {
                lost += 1;
                self.kill_orphan(&t.id).await;
                if let Ok(r) = self.store.get_task(&t.id).await {
                    self.emit(&r).await;
                }
            }
        }
        self.cleanup().await?;
        Ok(lost)
    }

    /// A task of a server that died may still run: stop its process tree, but only when the
    /// recorded pid is provably the same process (same boot, same start time) — a reused pid is
    /// never hit.
    async fn kill_orphan(&self, id: &crate::protocol::TaskId) {
        let Ok(Some((pid, start, boot))) = self.store.task_process(id).await else {
            return;
        };
        let Ok(pid) = u32::try_from(pid) else { return };
        if boot_id().as_deref() != Some(boot.as_str()) {
            return;
        }
        // Its jail carries the task's id: the PID namespace's init outlives the outer bwrap
        // (the group leader) when the server dies, in a session of its own.
        crate::sandbox::kill_labelled(id);
        match process_start_time(pid) {
            Some(s) if s == start => crate::sandbox::kill_tree_and_group(pid),
            Some(_) => return, // the pid was reused: never hit it
            // The leader is gone but its group may live on (an unconfined command's children).
            // No new process can take the pid while the group holds it, so the group is still
            // the task's.
            None => crate::sandbox::kill_group(pid),
        }
        tracing::warn!(
            task = %id,
            pid,
            "stopped the processes of a task whose server died"
        );
    }

    /// Delete finished tasks and their logs after `tasks.retentionDays`.
    pub async fn cleanup(&self) -> Result<usize, TaskError> {
        let cutoff = now_ms() - (self.settings.retention_days as i64) * 24 * 3600 * 1000;
        let logs = self.store.delete_old_tasks(cutoff).await?;
        for l in &logs {
            let _ = std::fs::remove_file(l);
        }
        Ok(logs.len())
    }
}

/// A task's log file: the first `limit` bytes, then a notice line, then (at the end) the last
/// `TAIL_BYTES` of what followed.
struct TaskLog {
    file: Option<tokio::fs::File>,
    limit: usize,
    written: usize,
    tail: VecDeque<u8>,
    noticed: bool,
}

impl TaskLog {
    async fn create(path: &Path, limit: usize) -> TaskLog {
        let file = match tokio::fs::File::create(path).await {
            Ok(f) => Some(f),
            Err(e) => {
                tracing::error!(error = %e, "cannot create task log");
                None
            }
        };
        TaskLog {
            file,
            limit,
            written: 0,
            tail: VecDeque::new(),
            noticed: false,
        }
    }

    async fn push(&mut self, chunk: &[u8]) {
        let n = chunk.len();
        let keep = n.min(self.limit.saturating_sub(self.written));
        if let Some(f) = self.file.as_mut() {
            if keep > 0 {
                let _ = f.write_all(&chunk[..keep]).await;
            }
            if keep < n && !self.noticed {
                self.noticed = true;
                let notice = format!(
                    "\n[… output passed {} bytes (tasks.maxOutputBytes); the last {TAIL_BYTES} bytes are appended when the task ends …]\n",
                    self.limit
                );
                let _ = f.write_all(notice.as_bytes()).await;
                self.written += notice.len();
            }
        }
        self.written += keep;
        if keep < n {
            self.tail.extend(&chunk[keep..]);
            let excess = self.tail.len().saturating_sub(TAIL_BYTES);
            self.tail.drain(..excess);
        }
    }

    /// Append the tail, flush; the bytes the log holds.
    async fn close(mut self) -> usize {
        if let Some(f) = self.file.as_mut() {
            if !self.tail.is_empty() {
                let v: Vec<u8> = self.tail.drain(..).collect();
                let _ = f.write_all(&v).await;
                self.written += v.len();
            }
            let _ = f.flush().await;
        }
        self.written
    }
}

/// Start `/bin/sh -c command` in its own process group with the allow-listed environment;
/// stdout and stderr share one pipe (arrival order is kept by the kernel).
/// What a background task created for programs outside the jail (a nested git repository, a
/// `.git` file or `commondir`, a new `.envrc` …): held aside at once (nobody is there to ask
/// when a task ends), each named in a line for the task's log, with how to keep it.
async fn hold_created(
    roots: Vec<PathBuf>,
    before: &crate::sandbox::guard::Snapshot,
) -> Vec<String> {
    let after = crate::sandbox::guard::look(&roots).await;
    crate::sandbox::guard::hold_unasked("this task", after.new_since(before))
        .into_iter()
        .map(|line| format!("\n[tradewind] {line}\n"))
        .collect()
}

fn spawn_shell(
    command: &str,
    cwd: &Path,
    sandbox: Option<&crate::sandbox::Sandbox>,
    job: &crate::sandbox::Job,
) -> std::io::Result<(tokio::process::Child, std::io::PipeReader)> {
    let (reader, writer) = std::io::pipe()?;
    let writer2 = writer.try_clone()?;
    let argv: [std::ffi::OsString; 2] = ["-c".into(), command.into()];
    let mut cmd = match sandbox {
        // The jail and the helper make their own group; the task's cwd is inside a root.
        Some(sb) => sb
            .command(job, Path::new(SHELL), &argv)
            .map_err(std::io::Error::other)?,
        None => {
            let mut cmd = tokio::process::Command::new(SHELL);
            cmd.args(&argv).process_group(0);
            cmd
        }
    };
    cmd.current_dir(cwd)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer2));
    for k in ENV_ALLOW {
        if let Some(v) = std::env::var_os(k) {
            cmd.env(k, v);
        }
    }
    cmd.env("TERM", "dumb")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat");
    if let Some(sb) = sandbox {
        sb.env(job, &mut cmd);
    }
    let child = cmd.spawn()?;
    Ok((child, reader))
}
