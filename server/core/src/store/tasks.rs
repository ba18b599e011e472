//! Background tasks. Every state change is a compare-and-set, so a terminal state is never left
//! and a stop racing the process exit ends in exactly one state.

use super::cas::{Set, Transition};
use super::{Store, StoreError, StoreResult};
use crate::protocol::{SessionId, TaskId, TaskStatus, TaskStopper, UnknownValue};

/// Who stopped a task, as stored (null: it ended by itself).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stopper(pub Option<TaskStopper>);

impl TryFrom<Option<String>> for Stopper {
    type Error = UnknownValue;
    fn try_from(s: Option<String>) -> Result<Self, UnknownValue> {
        s.map(TaskStopper::try_from).transpose().map(Stopper)
    }
}
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TaskRow {
    pub id: TaskId,
    pub session_id: SessionId,
    pub command: String,
    pub cwd: String,
    pub label: String,
    #[sqlx(try_from = "String")]
    pub status: TaskStatus,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    #[sqlx(try_from = "Option<String>")]
    pub stopped_by: Stopper,
    pub pid: Option<i64>,
    pub owner_pid: i64,
    pub owner_start: i64,
    pub log_path: String,
    pub output_bytes: i64,
    pub timeout_ms: i64,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub read_at: Option<i64>,
    pub claimed_at: Option<i64>,
    pub delivered_at: Option<i64>,
}

macro_rules! select_tasks {
    ($tail:literal) => {
        concat!(
            "SELECT id, session_id, command, cwd, label, status, exit_code, error, stopped_by, pid, owner_pid, owner_start, ",
            "log_path, output_bytes, timeout_ms, created_at, started_at, finished_at, read_at, claimed_at, delivered_at FROM tasks ",
            $tail
        )
    };
}

/// The states of a task not ended yet, as stored.
const LIVE: [TaskStatus; 3] = [
    TaskStatus::Queued,
    TaskStatus::Running,
    TaskStatus::Stopping,
];
/// Ended by itself (a timeout counts): such a task owes its session a wake-up.
const ENDED_ALONE: [TaskStatus; 2] = [TaskStatus::Succeeded, TaskStatus::Failed];

impl Store {
    pub async fn create_task(&self, t: &TaskRow) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO tasks (id, session_id, command, cwd, label, status, owner_pid, owner_start, log_path, output_bytes, timeout_ms, created_at) \
             VALUES ($1, $2, $3, $4, $5, $11, $6, $7, $8, 0, $9, $10)",
        )
        .bind(&t.id)
        .bind(&t.session_id)
        .bind(&t.command)
        .bind(&t.cwd)
        .bind(&t.label)
        .bind(t.owner_pid)
        .bind(t.owner_start)
        .bind(&t.log_path)
        .bind(t.timeout_ms)
        .bind(t.created_at)
        .bind(TaskStatus::Queued.as_str())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn get_task(&self, id: &crate::protocol::TaskId) -> StoreResult<TaskRow> {
        sqlx::query_as::<_, TaskRow>(select_tasks!("WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await
            .map_err(|e| StoreError::from(e).in_row("task", id))?
            .ok_or(StoreError::NotFound)
    }

    /// Newest first; `status` filters when given.
    pub async fn list_tasks(
        &self,
        session_id: &SessionId,
        status: Option<TaskStatus>,
        limit: i64,
    ) -> StoreResult<Vec<TaskRow>> {
        Ok(sqlx::query_as::<_, TaskRow>(select_tasks!(
            "WHERE session_id = $1 AND ($2 = '' OR status = $3) ORDER BY created_at DESC, id DESC LIMIT $4"
        ))
        .bind(session_id)
        .bind(status.map_or("", TaskStatus::as_str))
        .bind(status.map_or("", TaskStatus::as_str))
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn count_live_tasks(&self, session_id: &SessionId) -> StoreResult<i64> {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM tasks WHERE session_id = $1 AND status IN ($2, $3, $4)",
        )
        .bind(session_id)
        .bind(LIVE[0].as_str())
        .bind(LIVE[1].as_str())
        .bind(LIVE[2].as_str())
        .fetch_one(self.pool())
        .await?;
        Ok(n)
    }

    /// A task's process identity as recorded at start: pid, start time, boot id.
    pub async fn task_process(
        &self,
        id: &crate::protocol::TaskId,
    ) -> StoreResult<Option<(i64, i64, String)>> {
        let row: Option<(Option<i64>, Option<i64>, Option<String>)> =
            sqlx::query_as("SELECT pid, pid_start, boot_id FROM tasks WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(match row {
            Some((Some(pid), Some(start), Some(boot))) => Some((pid, start, boot)),
            _ => None,
        })
    }

    /// `queued → running`, with the process's identity (pid, its start time, the boot id).
    pub async fn task_started(
        &self,
        id: &crate::protocol::TaskId,
        pid: i64,
        pid_start: Option<i64>,
        boot_id: Option<&str>,
    ) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "tasks",
                id,
                from: &[TaskStatus::Queued.as_str()],
                to: TaskStatus::Running.as_str(),
                set: vec![
                    ("pid", Set::Int(Some(pid))),
                    ("started_at", Set::Int(Some(now_ms()))),
                    ("pid_start", Set::Int(pid_start)),
                    ("boot_id", Set::Text(boot_id.map(str::to_string))),
                ],
            })
            .await?;
        Ok(moved == 1)
    }

    /// `running → stopping`, recording who stopped it.
    pub async fn task_stopping(
        &self,
        id: &crate::protocol::TaskId,
        by: TaskStopper,
    ) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "tasks",
                id,
                from: &[TaskStatus::Queued.as_str(), TaskStatus::Running.as_str()],
                to: TaskStatus::Stopping.as_str(),
                set: vec![("stopped_by", Set::Text(Some(by.as_str().to_string())))],
            })
            .await?;
        Ok(moved == 1)
    }

    /// Move from one of `from` to a terminal `to`, once.
    #[expect(
        clippy::too_many_arguments,
        reason = "one row's columns, bound in order"
    )]
    pub async fn task_finished(
        &self,
        id: &crate::protocol::TaskId,
        from: TaskStatus,
        to: TaskStatus,
        exit_code: Option<i64>,
        error: Option<&str>,
        stopped_by: Option<TaskStopper>,
        output_bytes: i64,
    ) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "tasks",
                id,
                from: &[from.as_str()],
                to: to.as_str(),
                set: vec![
                    ("exit_code", Set::Int(exit_code)),
                    ("error", Set::Text(error.map(str::to_string))),
                    (
                        "stopped_by",
                        Set::TextOrKeep(stopped_by.map(|s| s.as_str().to_string())),
                    ),
                    ("output_bytes", Set::Int(Some(output_bytes))),
                    ("finished_at", Set::Int(Some(now_ms()))),
                ],
            })
            .await?;
        Ok(moved == 1)
    }

    pub async fn task_output_bytes(
        &self,
        id: &crate::protocol::TaskId,
        bytes: i64,
    ) -> StoreResult<()> {
        sqlx::query("UPDATE tasks SET output_bytes = $1 WHERE id = $2")
            .bind(bytes)
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The model read the output after the task ended: no wake-up for it.
    pub async fn task_read_after_end(&self, id: &crate::protocol::TaskId) -> StoreResult<()> {
        sqlx::query("UPDATE tasks SET read_at = $1 WHERE id = $2 AND finished_at IS NOT NULL AND read_at IS NULL")
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Tasks of a session that ended by themselves and still owe a wake-up.
    pub async fn undelivered_tasks(&self, session_id: &SessionId) -> StoreResult<Vec<TaskRow>> {
        Ok(sqlx::query_as::<_, TaskRow>(select_tasks!(
            "WHERE session_id = $1 AND status IN ($2, $3) AND (stopped_by IS NULL OR stopped_by = $4) \
             AND delivered_at IS NULL AND read_at IS NULL ORDER BY finished_at, id"
        ))
        .bind(session_id)
        .bind(ENDED_ALONE[0].as_str())
        .bind(ENDED_ALONE[1].as_str())
        .bind(TaskStopper::Timeout.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    /// The sessions (not archived) with an ended task whose wake-up was never delivered: owed
    /// after a restart.
    pub async fn sessions_owed_wakeups(&self) -> StoreResult<Vec<SessionId>> {
        let rows: Vec<(SessionId,)> = sqlx::query_as(
            "SELECT DISTINCT t.session_id FROM tasks t JOIN sessions s ON s.id = t.session_id \
             WHERE s.archived = 0 AND t.status IN ($1, $2) \
             AND (t.stopped_by IS NULL OR t.stopped_by = $3) \
             AND t.delivered_at IS NULL AND t.read_at IS NULL",
        )
        .bind(ENDED_ALONE[0].as_str())
        .bind(ENDED_ALONE[1].as_str())
        .bind(TaskStopper::Timeout.as_str())
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }

    /// Claim one task's wake-up delivery; true only for the one claimer that wins.
    pub async fn claim_delivery(&self, id: &crate::protocol::TaskId) -> StoreResult<bool> {
        let n = sqlx::query("UPDATE tasks SET delivered_at = $1 WHERE id = $2 AND delivered_at IS NULL AND read_at IS NULL")
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?
            .rows_affected();
        Ok(n == 1)
    }

    /// Unfinished tasks (any owner) — checked at start-up for dead owners.
    pub async fn unfinished_tasks(&self) -> StoreResult<Vec<TaskRow>> {
        Ok(
            sqlx::query_as::<_, TaskRow>(select_tasks!("WHERE status IN ($1, $2, $3)"))
                .bind(LIVE[0].as_str())
                .bind(LIVE[1].as_str())
                .bind(LIVE[2].as_str())
                .fetch_all(self.pool())
                .await?,
        )
    }

    pub async fn mark_task_lost(&self, id: &crate::protocol::TaskId) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "tasks",
                id,
                from: &[
                    TaskStatus::Queued.as_str(),
                    TaskStatus::Running.as_str(),
                    TaskStatus::Stopping.as_str(),
                ],
                to: TaskStatus::Lost.as_str(),
                set: vec![
                    (
                        "error",
                        Set::Text(Some("the server that owned this task stopped".into())),
                    ),
                    ("finished_at", Set::Int(Some(now_ms()))),
                ],
            })
            .await?;
        Ok(moved == 1)
    }

    /// Finished tasks older than the cutoff: returns their log paths after deleting the rows.
    pub async fn delete_old_tasks(&self, finished_before: i64) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as("DELETE FROM tasks WHERE finished_at IS NOT NULL AND finished_at < $1 RETURNING log_path")
            .bind(finished_before)
            .fetch_all(self.pool())
            .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }
}
