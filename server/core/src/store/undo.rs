//! Snapshots taken around runs, and reverts (see `crate::undo`).

use super::{Store, StoreResult};
use crate::protocol::{RevertId, RunId, SessionId};
use crate::util::{new_id, now_ms};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RevertRow {
    pub id: RevertId,
    pub session_id: SessionId,
    pub run_id: RunId,
    pub from_tree: String,
    pub to_tree: String,
    /// JSON: the files it changed, `[{path, action}]`.
    pub files: String,
    pub created_at: i64,
    pub undone_at: Option<i64>,
    /// `both`, `files` or `conversation`: what it took back.
    pub scope: String,
}

/// A snapshot as a workspace's timeline reads it (see `crate::undo::owners`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SnapshotRow {
    pub id: String,
    pub session_id: SessionId,
    /// The run it was taken around, or (kind `revert` or `redo`) the revert's id.
    pub run_id: String,
    /// `before`, `after`, `revert` or `redo`.
    pub kind: String,
    pub tree: String,
    pub created_at: i64,
    /// When its run ended (none for a revert's, or a run still going).
    pub run_finished_at: Option<i64>,
}

impl Store {
    /// Forget snapshots and reverts older than `before` (ms): their runs can no longer be
    /// reverted. Returns how many rows went.
    pub async fn expire_snapshots(&self, before: i64) -> StoreResult<u64> {
        let a = sqlx::query("DELETE FROM snapshots WHERE created_at < $1")
            .bind(before)
            .execute(self.pool())
            .await?
            .rows_affected();
        let b = sqlx::query("DELETE FROM reverts WHERE created_at < $1")
            .bind(before)
            .execute(self.pool())
            .await?
            .rows_affected();
        Ok(a + b)
    }

    /// The workspaces sessions use.
    pub async fn session_workspaces(&self) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT DISTINCT workspace FROM sessions")
            .fetch_all(self.pool())
            .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }

    /// Every tree a snapshot or a revert still needs, with its session's workspace.
    pub async fn live_trees(&self) -> StoreResult<Vec<(String, String)>> {
        Ok(sqlx::query_as(
            "SELECT s.workspace, n.tree FROM snapshots n JOIN sessions s ON s.id = n.session_id \
             UNION SELECT s.workspace, r.from_tree FROM reverts r JOIN sessions s ON s.id = r.session_id \
             UNION SELECT s.workspace, r.to_tree FROM reverts r JOIN sessions s ON s.id = r.session_id",
        )
        .fetch_all(self.pool())
        .await?)
    }

    /// Record a run's snapshot: `before` it changes anything, `after` it ended; `at` (ms) is the
    /// moment it shows (it may be recorded later, see `crate::undo::marks`).
    pub async fn record_snapshot(
        &self,
        session: &SessionId,
        run: &RunId,
        kind: &str,
        tree: &str,
        at: i64,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO snapshots (id, session_id, run_id, kind, tree, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(new_id())
        .bind(session)
        .bind(run)
        .bind(kind)
        .bind(tree)
        .bind(at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// A run's snapshot of that kind.
    pub async fn run_snapshot(&self, run: &RunId, kind: &str) -> StoreResult<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT tree FROM snapshots WHERE run_id = $1 AND kind = $2 ORDER BY created_at DESC LIMIT 1",
        )
        .bind(run)
        .bind(kind)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| r.0))
    }

    /// Every snapshot of the sessions working in `workspace`, oldest first: the timeline that
    /// tells whose change each file is.
    pub async fn workspace_snapshots(&self, workspace: &str) -> StoreResult<Vec<SnapshotRow>> {
        Ok(sqlx::query_as::<_, SnapshotRow>(
            "SELECT n.id, n.session_id, n.run_id, n.kind, n.tree, n.created_at, \
             r.finished_at AS run_finished_at FROM snapshots n \
             JOIN sessions s ON s.id = n.session_id LEFT JOIN runs r ON r.id = n.run_id \
             WHERE s.workspace = $1 ORDER BY n.created_at, n.id",
        )
        .bind(workspace)
        .fetch_all(self.pool())
        .await?)
    }

    /// Every revert of the sessions working in `workspace`: its id, session and files (JSON,
    /// `[{path, action}]`).
    pub async fn workspace_reverts(
        &self,
        workspace: &str,
    ) -> StoreResult<Vec<(RevertId, SessionId, String)>> {
        Ok(sqlx::query_as(
            "SELECT r.id, r.session_id, r.files FROM reverts r \
             JOIN sessions s ON s.id = r.session_id WHERE s.workspace = $1",
        )
        .bind(workspace)
        .fetch_all(self.pool())
        .await?)
    }

    /// Record a revert (and, as the session's newest snapshot, what it left).
    pub async fn record_revert(&self, r: &RevertRow, left: &str) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO reverts (id, session_id, run_id, from_tree, to_tree, files, created_at, scope) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&r.id)
        .bind(&r.session_id)
        .bind(&r.run_id)
        .bind(&r.from_tree)
        .bind(&r.to_tree)
        .bind(&r.files)
        .bind(r.created_at)
        .bind(&r.scope)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO snapshots (id, session_id, run_id, kind, tree, created_at) VALUES ($1, $2, $3, 'revert', $4, $5)",
        )
        .bind(new_id())
        .bind(&r.session_id)
        .bind(&r.id)
        .bind(left)
        .bind(r.created_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The session's newest revert still in force.
    pub async fn active_revert(&self, session: &SessionId) -> StoreResult<Option<RevertRow>> {
        Ok(sqlx::query_as::<_, RevertRow>(
            "SELECT id, session_id, run_id, from_tree, to_tree, files, created_at, undone_at, scope FROM reverts \
             WHERE session_id = $1 AND undone_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(session)
        .fetch_optional(self.pool())
        .await?)
    }

    /// Undo a revert (and record what the redo left as the newest snapshot).
    pub async fn undo_revert(&self, r: &RevertRow, left: &str) -> StoreResult<()> {
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        sqlx::query("UPDATE reverts SET undone_at = $1 WHERE id = $2")
            .bind(now)
            .bind(&r.id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO snapshots (id, session_id, run_id, kind, tree, created_at) VALUES ($1, $2, $3, 'redo', $4, $5)",
        )
        .bind(new_id())
        .bind(&r.session_id)
        .bind(&r.id)
        .bind(left)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The runs a revert in force hides from the model: from the reverted run up to the revert.
    pub async fn hidden_runs(&self, session: &SessionId) -> StoreResult<Vec<RunId>> {
        let rows: Vec<(RunId,)> = sqlx::query_as(
            "SELECT r.id FROM runs r JOIN reverts v ON v.session_id = r.session_id \
             JOIN runs t ON t.id = v.run_id \
             WHERE v.session_id = $1 AND v.undone_at IS NULL AND v.scope <> 'files' \
               AND r.created_at >= t.created_at AND r.created_at < v.created_at",
        )
        .bind(session)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }

    /// The runs from `run` on that no revert in force hides yet: what reverting to it takes back.
    pub async fn runs_from(&self, session: &SessionId, run: &RunId) -> StoreResult<Vec<RunId>> {
        let hidden = self.hidden_runs(session).await?;
        let rows: Vec<(RunId,)> = sqlx::query_as(
            "SELECT r.id FROM runs r JOIN runs t ON t.id = $2 \
             WHERE r.session_id = $1 AND r.created_at >= t.created_at ORDER BY r.created_at, r.id",
        )
        .bind(session)
        .bind(run)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| r.0)
            .filter(|id| !hidden.contains(id))
            .collect())
    }

    /// The newest snapshot of a run that was queued before `run` (what the workspace was
    /// known to hold last before it started): its id.
    pub async fn last_snapshot_before_run(
        &self,
        session: &SessionId,
        run: &RunId,
    ) -> StoreResult<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT n.id FROM snapshots n JOIN runs r ON r.id = n.run_id JOIN runs t ON t.id = $2 \
             WHERE n.session_id = $1 AND (r.created_at < t.created_at OR (r.created_at = t.created_at AND r.id < t.id)) \
             ORDER BY n.created_at DESC, n.id DESC LIMIT 1",
        )
        .bind(session)
        .bind(run)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| r.0))
    }

    /// The session's audited gate decisions: `(run, data JSON)`.
    pub async fn policy_decisions(
        &self,
        session: &SessionId,
    ) -> StoreResult<Vec<(Option<RunId>, String)>> {
        Ok(sqlx::query_as(
            "SELECT run_id, data FROM events WHERE session_id = $1 AND type = 'policy_decision'",
        )
        .bind(session)
        .fetch_all(self.pool())
        .await?)
    }

    /// The runs one revert hides: from its run up to the revert.
    pub async fn runs_hidden_by(&self, r: &RevertRow) -> StoreResult<Vec<RunId>> {
        if r.scope == "files" {
            return Ok(Vec::new());
        }
        let rows: Vec<(RunId,)> = sqlx::query_as(
            "SELECT x.id FROM runs x JOIN runs t ON t.id = $2 \
             WHERE x.session_id = $1 AND x.created_at >= t.created_at AND x.created_at < $3 ORDER BY x.created_at, x.id",
        )
        .bind(&r.session_id)
        .bind(&r.run_id)
        .bind(r.created_at)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }

    /// The run of a user message (its `user_message` event's `message_id`).
    pub async fn run_of_user_message(
        &self,
        session: &SessionId,
        message_id: &str,
    ) -> StoreResult<Option<RunId>> {
        let needle = format!("%\"message_id\":\"{message_id}\"%");
        let row: Option<(Option<RunId>,)> = sqlx::query_as(
            "SELECT run_id FROM events WHERE session_id = $1 AND type = 'user_message' AND data LIKE $2 LIMIT 1",
        )
        .bind(session)
        .bind(needle)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.and_then(|r| r.0))
    }
}
