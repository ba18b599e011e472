//! Runs: one model-and-tools turn chain of a session. Status changes are compare-and-set.

use super::cas::{Set, Transition};
use super::{Store, StoreError, StoreResult};
use crate::protocol::{AgentName, RunId, RunStatus, RunTrigger, SessionId};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RunRow {
    pub id: RunId,
    pub session_id: SessionId,
    #[sqlx(try_from = "String")]
    pub status: RunStatus,
    #[sqlx(try_from = "String")]
    pub trigger: RunTrigger,
    pub input: String,
    #[sqlx(try_from = "String")]
    pub agent: AgentName,
    pub error: Option<String>,
    pub usage: Option<String>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    /// The prompt's images (JSON `[ImageRef]`); `None`: none.
    pub images: Option<String>,
    /// The run's own limits (JSON `RunLimits`); `None`: the server's.
    pub limits: Option<String>,
}

/// A run to queue: its prompt, and the images and limits it carries (JSON).
#[derive(Debug)]
pub struct NewRun<'a> {
    pub id: &'a RunId,
    pub session_id: &'a SessionId,
    pub trigger: RunTrigger,
    pub input: &'a str,
    pub agent: AgentName,
    pub images: Option<String>,
    pub limits: Option<String>,
}

const SELECT: &str = "SELECT id, session_id, status, trigger, input, agent, error, usage, created_at, started_at, finished_at, images, limits FROM runs";

impl Store {
    /// A run with nothing but its prompt (see [`Store::queue_run`]).
    pub async fn create_run(
        &self,
        id: &RunId,
        session_id: &SessionId,
        trigger: RunTrigger,
        input: &str,
        agent: AgentName,
    ) -> StoreResult<()> {
        self.queue_run(&NewRun {
            id,
            session_id,
            trigger,
            input,
            agent,
            images: None,
            limits: None,
        })
        .await
    }

    /// Record a queued run, its images and limits with it: one statement, so a run is either
    /// queued whole or not at all.
    pub async fn queue_run(&self, r: &NewRun<'_>) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO runs (id, session_id, status, trigger, input, agent, created_at, images, limits) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(r.id)
        .bind(r.session_id)
        .bind(RunStatus::Queued.as_str())
        .bind(r.trigger.as_str())
        .bind(r.input)
        .bind(r.agent.as_str())
        .bind(now_ms())
        .bind(r.images.as_deref())
        .bind(r.limits.as_deref())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn get_run(&self, id: &RunId) -> StoreResult<RunRow> {
        let _ = SELECT;
        sqlx::query_as::<_, RunRow>(
            "SELECT id, session_id, status, trigger, input, agent, error, usage, created_at, started_at, finished_at, images, limits FROM runs WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await
            .map_err(|e| StoreError::from(e).in_row("run", id))?
        .ok_or(super::StoreError::NotFound)
    }

    /// `queued → running`; false if the run was not queued any more.
    pub async fn start_run(&self, id: &RunId) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "runs",
                id,
                from: &[RunStatus::Queued.as_str()],
                to: RunStatus::Running.as_str(),
                set: vec![("started_at", Set::Int(Some(now_ms())))],
            })
            .await?;
        Ok(moved == 1)
    }

    /// A queued run's new input (edited before it started).
    pub async fn update_run_input(
        &self,
        id: &str,
        input: &str,
        trigger: RunTrigger,
    ) -> StoreResult<()> {
        sqlx::query("UPDATE runs SET input = $1, trigger = $2 WHERE id = $3 AND status = $4")
            .bind(input)
            .bind(trigger.as_str())
            .bind(id)
            .bind(RunStatus::Queued.as_str())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Move a live run to its end; false if it had ended already.
    pub async fn finish_run(&self, end: &super::RunEndRow) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "runs",
                id: &end.run_id,
                from: &[RunStatus::Queued.as_str(), RunStatus::Running.as_str()],
                to: end.status.as_str(),
                set: vec![
                    ("error", Set::Text(end.error.clone())),
                    ("usage", Set::Text(Some(end.usage.clone()))),
                    ("finished_at", Set::Int(Some(now_ms()))),
                ],
            })
            .await?;
        Ok(moved == 1)
    }

    /// What a run left behind when its server died: the time of its last event, and how many
    /// characters of answer it streamed (for an output-token estimate).
    pub async fn run_trace(&self, run_id: &RunId) -> StoreResult<(Option<i64>, usize)> {
        let rows: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT type, data, created_at FROM events WHERE run_id = $1 ORDER BY seq",
        )
        .bind(run_id)
        .fetch_all(self.pool())
        .await?;
        let last = rows.iter().map(|r| r.2).max();
        let streamed = rows
            .iter()
            .filter(|r| r.0 == "message_delta" || r.0 == "reasoning_delta")
            .filter_map(|r| serde_json::from_str::<serde_json::Value>(&r.1).ok())
            .map(|v| v["text"].as_str().map_or(0, str::len))
            .sum();
        Ok((last, streamed))
    }

    /// Runs that were `running` when the server died (marked interrupted at start).
    pub async fn list_runs_with_status(&self, status: RunStatus) -> StoreResult<Vec<RunRow>> {
        Ok(sqlx::query_as::<_, RunRow>(
            "SELECT id, session_id, status, trigger, input, agent, error, usage, created_at, started_at, finished_at, images, limits \
             FROM runs WHERE status = $1 ORDER BY created_at, id",
        )
        .bind(status.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn list_session_runs(
        &self,
        session_id: &SessionId,
        limit: i64,
    ) -> StoreResult<Vec<RunRow>> {
        Ok(sqlx::query_as::<_, RunRow>(
            "SELECT id, session_id, status, trigger, input, agent, error, usage, created_at, started_at, finished_at, images, limits \
             FROM runs WHERE session_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        )
        .bind(session_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }
}
