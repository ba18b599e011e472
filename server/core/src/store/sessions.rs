//! Sessions: a workspace, an agent, a permission mode, and a sequenced event log.

use super::{Store, StoreError, StoreResult};
use crate::protocol::{AgentName, Mode, RunId, SessionId, SessionStatus};
use crate::util::now_ms;

#[derive(Debug, Clone)]
pub struct SessionRow {
    pub id: SessionId,
    pub title: String,
    pub workspace: String,
    pub agent: AgentName,
    pub mode: Mode,
    pub archived: bool,
    pub parent_id: Option<SessionId>,
    pub last_seq: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub forked_from_session: Option<SessionId>,
    pub forked_from_seq: Option<i64>,
    /// The session's own spend cap (USD); `None`: the server's `spend.sessionUsd`.
    pub spend_cap_usd: Option<f64>,
    pub reasoning_effort: EffortColumn,
    /// The session's own provider id and model; `None`: the defaults.
    pub provider: Option<String>,
    pub model: Option<String>,
    /// Derived: `waiting` (something waits for the user), `running`, or `idle`.
    pub status: SessionStatus,
    /// Derived: whether the session has a goal (in any status).
    pub has_goal: bool,
    /// The git worktree the server made for the session (JSON of `worktree::Worktree`).
    pub worktree: Option<String>,
}

/// Read by hand (not derived) for its flags: both backends store them as integers 0/1, which
/// the `Any` driver will not decode as `bool`; here they become `bool` once, and an enum column
/// holding a value this server does not know is an error naming the column.
impl<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> for SessionRow {
    fn from_row(row: &'r sqlx::any::AnyRow) -> Result<Self, sqlx::Error> {
        use sqlx::Row;
        fn column<T, E: std::error::Error + Send + Sync + 'static>(
            index: &str,
            v: Result<T, E>,
        ) -> Result<T, sqlx::Error> {
            v.map_err(|e| sqlx::Error::ColumnDecode {
                index: index.to_string(),
                source: Box::new(e),
            })
        }
        let flag = |name: &str| row.try_get::<i64, _>(name).map(|v| v != 0);
        Ok(SessionRow {
            id: row.try_get("id")?,
            title: row.try_get("title")?,
            workspace: row.try_get("workspace")?,
            agent: column(
                "agent",
                AgentName::try_from(row.try_get::<String, _>("agent")?),
            )?,
            mode: column("mode", Mode::try_from(row.try_get::<String, _>("mode")?))?,
            archived: flag("archived")?,
            parent_id: row.try_get("parent_id")?,
            last_seq: row.try_get("last_seq")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            forked_from_session: row.try_get("forked_from_session")?,
            forked_from_seq: row.try_get("forked_from_seq")?,
            spend_cap_usd: row.try_get("spend_cap_usd")?,
            reasoning_effort: column(
                "reasoning_effort",
                EffortColumn::try_from(row.try_get::<Option<String>, _>("reasoning_effort")?),
            )?,
            provider: row.try_get("provider")?,
            model: row.try_get("model")?,
            status: column(
                "status",
                SessionStatus::try_from(row.try_get::<String, _>("status")?),
            )?,
            has_goal: flag("has_goal")?,
            worktree: row.try_get("worktree")?,
        })
    }
}

/// `SELECT … FROM sessions s` with the derived status, as a literal (sqlx takes `&'static str`).
/// The statuses it reads and gives are its first parameters, `$1`–`$8` (bound by
/// [`with_statuses`]); the tail's own begin at `$9`.
macro_rules! select_sessions {
    ($tail:literal) => {
        concat!(
            "SELECT s.id, s.title, s.workspace, s.agent, s.mode, s.archived, s.parent_id, s.last_seq, s.created_at, s.updated_at, ",
            "s.forked_from_session, s.forked_from_seq, s.spend_cap_usd, s.reasoning_effort, s.provider, s.model, s.worktree, ",
            "CASE WHEN EXISTS (SELECT 1 FROM approvals a WHERE a.session_id = s.id AND a.status = $1) ",
            "  OR EXISTS (SELECT 1 FROM questions q WHERE q.session_id = s.id AND q.status = $2) ",
            "  OR EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND p.status = $3) ",
            // A subagent (two levels at most) that asks makes its root wait too.
            "  OR EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = s.id AND ( ",
            "    EXISTS (SELECT 1 FROM approvals a WHERE a.session_id = c.id AND a.status = $1) ",
            "    OR EXISTS (SELECT 1 FROM questions q WHERE q.session_id = c.id AND q.status = $2) ",
            "    OR EXISTS (SELECT 1 FROM sessions g WHERE g.parent_id = c.id AND ( ",
            "      EXISTS (SELECT 1 FROM approvals a WHERE a.session_id = g.id AND a.status = $1) ",
            "      OR EXISTS (SELECT 1 FROM questions q WHERE q.session_id = g.id AND q.status = $2))))) THEN $6 ",
            "WHEN EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id AND r.status IN ($4, $5)) THEN $7 ",
            "ELSE $8 END AS status, ",
            "CAST(CASE WHEN EXISTS (SELECT 1 FROM goals gl WHERE gl.session_id = s.id) THEN 1 ELSE 0 END AS BIGINT) AS has_goal ",
            "FROM sessions s ",
            $tail
        )
    };
}

type SessionsQuery<'q> =
    sqlx::query::QueryAs<'q, sqlx::Any, SessionRow, <sqlx::Any as sqlx::Database>::Arguments>;

/// Bind the statuses [`select_sessions`] reads and gives (`$1`–`$8`).
fn with_statuses(q: SessionsQuery<'_>) -> SessionsQuery<'_> {
    use crate::protocol::RunStatus;
    use crate::store::{ApprovalStatus, PlanStatus, QuestionStatus};
    q.bind(ApprovalStatus::Pending.as_str())
        .bind(QuestionStatus::Pending.as_str())
        .bind(PlanStatus::Pending.as_str())
        .bind(RunStatus::Queued.as_str())
        .bind(RunStatus::Running.as_str())
        .bind(SessionStatus::Waiting.as_str())
        .bind(SessionStatus::Running.as_str())
        .bind(SessionStatus::Idle.as_str())
}

#[derive(Debug, Clone, Default)]
pub struct SessionPatch {
    pub title: Option<String>,
    pub agent: Option<AgentName>,
    pub mode: Option<Mode>,
    pub archived: Option<bool>,
    /// `Some(None)` clears the session's own cap.
    pub spend_cap_usd: Option<Option<f64>>,
    /// `Some(None)` stops sending one.
    pub reasoning_effort: Option<Option<crate::protocol::ReasoningEffort>>,
    /// `Some(None)` goes back to the default provider.
    pub provider: Option<Option<String>>,
    /// `Some(None)` goes back to the provider's default model.
    pub model: Option<Option<String>>,
}

/// A nullable `reasoning_effort` column (an unknown value is an error, like every enum).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EffortColumn(pub Option<crate::protocol::ReasoningEffort>);

impl TryFrom<Option<String>> for EffortColumn {
    type Error = crate::protocol::UnknownValue;
    fn try_from(v: Option<String>) -> Result<Self, Self::Error> {
        v.map(crate::protocol::ReasoningEffort::try_from)
            .transpose()
            .map(EffortColumn)
    }
}

impl Store {
    /// The last `n` distinct workspaces of the top-level sessions, most recently active first.
    pub async fn recent_workspaces(&self, n: i64) -> StoreResult<Vec<String>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT workspace, MAX(updated_at) AS t FROM sessions WHERE parent_id IS NULL GROUP BY workspace ORDER BY t DESC LIMIT $1",
        )
        .bind(n)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|(w, _)| w).collect())
    }

    pub async fn create_session(
        &self,
        id: &crate::protocol::SessionId,
        title: &str,
        workspace: &str,
        agent: AgentName,
        mode: Mode,
        parent_id: Option<&str>,
    ) -> StoreResult<SessionRow> {
        let now = now_ms();
        sqlx::query(
            "INSERT INTO sessions (id, title, workspace, agent, mode, archived, parent_id, last_seq, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, 0, $6, 0, $7, $8)",
        )
        .bind(id)
        .bind(title)
        .bind(workspace)
        .bind(agent.as_str())
        .bind(mode.as_str())
        .bind(parent_id)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        self.get_session(id).await
    }

    /// A subagent's session: the parent's workspace, provider, model, reasoning effort and
    /// spend cap, linked to the parent (deleting the parent deletes it).
    pub async fn create_child_session(
        &self,
        parent: &SessionRow,
        id: &crate::protocol::SessionId,
        title: &str,
        agent: AgentName,
        mode: Mode,
    ) -> StoreResult<SessionRow> {
        let now = now_ms();
        sqlx::query(
            "INSERT INTO sessions (id, title, workspace, agent, mode, archived, parent_id, last_seq, created_at, updated_at, \
             spend_cap_usd, reasoning_effort, provider, model, worktree) \
             VALUES ($1, $2, $3, $4, $5, 0, $6, 0, $7, $8, $9, $10, $11, $12, $13)",
        )
        .bind(id)
        .bind(title)
        .bind(&parent.workspace)
        .bind(agent.as_str())
        .bind(mode.as_str())
        .bind(&parent.id)
        .bind(now)
        .bind(now)
        .bind(parent.spend_cap_usd)
        .bind(parent.reasoning_effort.0.map(|e| e.as_str()))
        .bind(&parent.provider)
        .bind(&parent.model)
        .bind(&parent.worktree)
        .execute(self.pool())
        .await?;
        Ok(SessionRow {
            id: id.into(),
            title: title.to_string(),
            workspace: parent.workspace.clone(),
            agent,
            mode,
            archived: false,
            parent_id: Some(parent.id.clone()),
            last_seq: 0,
            created_at: now,
            updated_at: now,
            forked_from_session: None,
            forked_from_seq: None,
            spend_cap_usd: parent.spend_cap_usd,
            reasoning_effort: parent.reasoning_effort,
            provider: parent.provider.clone(),
            model: parent.model.clone(),
            status: SessionStatus::Idle,
            has_goal: false,
            worktree: parent.worktree.clone(),
        })
    }

    /// Record the git worktree the server made for a session (JSON of
    /// `protocol::SessionWorktree`).
    pub async fn set_session_worktree(&self, id: &SessionId, worktree: &str) -> StoreResult<()> {
        sqlx::query("UPDATE sessions SET worktree = $1 WHERE id = $2")
            .bind(worktree)
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// How many sessions work in this worktree (the same JSON).
    pub async fn sessions_in_worktree(&self, worktree: &Option<String>) -> StoreResult<usize> {
        let Some(w) = worktree else { return Ok(0) };
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sessions WHERE worktree = $1")
            .bind(w)
            .fetch_one(self.pool())
            .await?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// The subagent sessions a session started, oldest first.
    pub async fn child_sessions(&self, parent: &SessionId) -> StoreResult<Vec<SessionRow>> {
        Ok(
            with_statuses(sqlx::query_as::<_, SessionRow>(select_sessions!(
                "WHERE s.parent_id = $9 ORDER BY s.created_at, s.id"
            )))
            .bind(parent)
            .fetch_all(self.pool())
            .await?,
        )
    }

    /// The ids of a session's own subagents (no derived status: cheap).
    pub async fn child_ids(&self, parent: &SessionId) -> StoreResult<Vec<SessionId>> {
        let ids: Vec<(SessionId,)> =
            sqlx::query_as("SELECT id FROM sessions WHERE parent_id = $1 ORDER BY created_at, id")
                .bind(parent)
                .fetch_all(self.pool())
                .await?;
        Ok(ids.into_iter().map(|(i,)| i).collect())
    }

    /// A session's own spend cap, read alone (before every model call: no derived status).
    pub async fn spend_cap_of(&self, id: &SessionId) -> StoreResult<Option<f64>> {
        let row: Option<(Option<f64>,)> =
            sqlx::query_as("SELECT spend_cap_usd FROM sessions WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        row.map(|(c,)| c).ok_or(StoreError::NotFound)
    }

    /// The session a subagent's session belongs to (`None`: a session the user started).
    pub async fn parent_of(&self, id: &SessionId) -> StoreResult<Option<SessionId>> {
        let row: Option<(Option<SessionId>,)> =
            sqlx::query_as("SELECT parent_id FROM sessions WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.and_then(|(p,)| p))
    }

    /// The ids of a session's subagents at every depth, parents before their children.
    pub async fn descendant_ids(&self, root: &SessionId) -> StoreResult<Vec<SessionId>> {
        let mut out: Vec<SessionId> = Vec::new();
        let mut level = vec![root.clone()];
        // Subagents nest at most two deep; the bound only guards against a corrupt loop.
        for _ in 0..8 {
            let mut next = Vec::new();
            for id in &level {
                next.extend(self.child_ids(id).await?);
            }
            if next.is_empty() {
                break;
            }
            out.extend(next.iter().cloned());
            level = next;
        }
        Ok(out)
    }

    pub async fn get_session(&self, id: &SessionId) -> StoreResult<SessionRow> {
        with_statuses(sqlx::query_as::<_, SessionRow>(select_sessions!(
            "WHERE s.id = $9"
        )))
        .bind(id)
        .fetch_optional(self.pool())
        .await
        .map_err(|e| StoreError::from(e).in_row("session", id))?
        .ok_or(StoreError::NotFound)
    }

    /// Most recent activity first; `before` is the cursor `(updated_at, id)` of the last row seen.
    pub async fn list_sessions(
        &self,
        before: Option<(i64, String)>,
        limit: i64,
        include_archived: bool,
    ) -> StoreResult<Vec<SessionRow>> {
        let (ts, id) = before.unwrap_or((i64::MAX, String::new()));
        let rows = with_statuses(sqlx::query_as::<_, SessionRow>(select_sessions!(
            "WHERE s.parent_id IS NULL AND (s.updated_at < $9 OR (s.updated_at = $10 AND s.id < $11)) AND (s.archived = 0 OR $12 = 1) \
             ORDER BY s.updated_at DESC, s.id DESC LIMIT $13"
        )))
        .bind(ts)
        .bind(ts)
        .bind(if id.is_empty() { "\u{10FFFF}".to_string() } else { id })
        .bind(if include_archived { 1i64 } else { 0 })
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        Ok(rows)
    }

    pub async fn update_session(
        &self,
        id: &SessionId,
        patch: &SessionPatch,
    ) -> StoreResult<SessionRow> {
        let cur = self.get_session(id).await?;
        let title = patch.title.clone().unwrap_or(cur.title);
        let agent = patch.agent.clone().unwrap_or(cur.agent.clone());
        let mode = patch.mode.unwrap_or(cur.mode);
        let archived = patch.archived.unwrap_or(cur.archived);
        let cap = patch.spend_cap_usd.unwrap_or(cur.spend_cap_usd);
        let effort = patch.reasoning_effort.unwrap_or(cur.reasoning_effort.0);
        let provider = patch.provider.clone().unwrap_or(cur.provider);
        let model = patch.model.clone().unwrap_or(cur.model);
        let n = sqlx::query(
            "UPDATE sessions SET title = $1, agent = $2, mode = $3, archived = $4, spend_cap_usd = $5, reasoning_effort = $6, provider = $7, model = $8, updated_at = $9 WHERE id = $10",
        )
        .bind(title)
        .bind(agent.as_str())
        .bind(mode.as_str())
        .bind(i64::from(archived))
        .bind(cap)
        .bind(effort.map(|e| e.as_str()))
        .bind(provider)
        .bind(model)
        .bind(now_ms())
        .bind(id)
        .execute(self.pool())
        .await?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        self.get_session(id).await
    }

    /// Retitle a session whose title is still `from` (a rename meanwhile wins); the session
    /// when it changed.
    pub async fn retitle(
        &self,
        id: &SessionId,
        from: &str,
        to: &str,
    ) -> StoreResult<Option<SessionRow>> {
        let n = sqlx::query(
            "UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3 AND title = $4",
        )
        .bind(to)
        .bind(now_ms())
        .bind(id)
        .bind(from)
        .execute(self.pool())
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(None);
        }
        Ok(Some(self.get_session(id).await?))
    }

    pub async fn delete_session(&self, id: &SessionId) -> StoreResult<()> {
        let n = sqlx::query("DELETE FROM sessions WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }
}

impl From<SessionRow> for crate::protocol::Session {
    fn from(r: SessionRow) -> Self {
        crate::protocol::Session {
            agent: r.agent,
            mode: r.mode,
            archived: r.archived,
            status: r.status,
            id: r.id,
            title: r.title,
            workspace: r.workspace,
            last_seq: r.last_seq,
            created_at: r.created_at,
            updated_at: r.updated_at,
            forked_from: match (r.forked_from_session, r.forked_from_seq) {
                (Some(session), Some(seq)) => Some(crate::protocol::ForkedFrom { session, seq }),
                _ => None,
            },
            spend_cap_usd: r.spend_cap_usd,
            reasoning_effort: r.reasoning_effort.0,
            provider: r.provider,
            model: r.model,
            parent_id: r.parent_id,
            has_goal: r.has_goal,
            last_run_status: None,
            worktree: r
                .worktree
                .as_deref()
                .and_then(|w| serde_json::from_str(w).ok()),
        }
    }
}

/// What a fork copies: the events before `cut` (renumbered from 1, so seq stays gap-free) and
/// the history messages of the runs among them.
pub struct ForkSpec<'a> {
    pub from: &'a SessionId,
    pub new_id: &'a SessionId,
    pub title: &'a str,
    /// Events with `seq < cut` are copied.
    pub cut: i64,
    /// The user message the fork was made at (recorded as `forked_from.seq`).
    pub at_seq: i64,
}

impl Store {
    /// Make a fork in one transaction: the new session row, the copied events and messages.
    pub async fn fork_session(&self, f: &ForkSpec<'_>) -> StoreResult<SessionRow> {
        let src = self.get_session(f.from).await?;
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO sessions (id, title, workspace, agent, mode, archived, parent_id, last_seq, created_at, updated_at, forked_from_session, forked_from_seq, worktree) \
             VALUES ($1, $2, $3, $4, $5, 0, NULL, $6, $7, $8, $9, $10, $11)",
        )
        .bind(f.new_id)
        .bind(f.title)
        .bind(&src.workspace)
        .bind(src.agent.as_str())
        .bind(src.mode.as_str())
        .bind((f.cut - 1).max(0))
        .bind(now)
        .bind(now)
        .bind(f.from)
        .bind(f.at_seq)
        .bind(&src.worktree)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO events (session_id, seq, run_id, type, data, created_at) \
             SELECT $1, seq, run_id, type, data, created_at FROM events WHERE session_id = $2 AND seq < $3",
        )
        .bind(f.new_id)
        .bind(f.from)
        .bind(f.cut)
        .execute(&mut *tx)
        .await?;
        // Messages keep their order (history is read by id): each copy's id is the original's
        // with the fork's id appended, which sorts the same way among the copies and before
        // anything the fork adds later.
        sqlx::query(
            "INSERT INTO messages (id, session_id, run_id, role, parts, created_at) \
             SELECT m.id || '.' || $1, $2, m.run_id, m.role, m.parts, m.created_at FROM messages m \
             WHERE m.session_id = $3 AND m.run_id IN \
               (SELECT DISTINCT e.run_id FROM events e WHERE e.session_id = $4 AND e.seq < $5 AND e.run_id IS NOT NULL)",
        )
        .bind(f.new_id)
        .bind(f.new_id)
        .bind(f.from)
        .bind(f.from)
        .bind(f.cut)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.get_session(f.new_id).await
    }
}

/// A session read back from an export: its row, then its events (numbered from 1 in order) and
/// messages (in order), each as stored.
pub struct ImportSpec<'a> {
    pub id: &'a SessionId,
    pub title: &'a str,
    pub workspace: &'a str,
    pub agent: AgentName,
    pub mode: Mode,
    /// (run id, type, data JSON, created_at)
    pub events: &'a [(Option<RunId>, String, String, i64)],
    /// (run id, role, parts JSON, created_at)
    pub messages: &'a [(Option<RunId>, String, String, i64)],
}

impl Store {
    /// Create a session from an export, in one transaction.
    pub async fn import_session(&self, s: &ImportSpec<'_>) -> StoreResult<SessionRow> {
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO sessions (id, title, workspace, agent, mode, archived, parent_id, last_seq, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, 0, NULL, $6, $7, $8)",
        )
        .bind(s.id)
        .bind(s.title)
        .bind(s.workspace)
        .bind(s.agent.as_str())
        .bind(s.mode.as_str())
        .bind(i64::try_from(s.events.len()).unwrap_or(i64::MAX))
        .bind(now)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        for (i, (run, kind, data, at)) in s.events.iter().enumerate() {
            sqlx::query(
                "INSERT INTO events (session_id, seq, run_id, type, data, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(s.id)
            .bind(i64::try_from(i + 1).unwrap_or(i64::MAX))
            .bind(run.as_deref())
            .bind(kind)
            .bind(data)
            .bind(*at)
            .execute(&mut *tx)
            .await?;
        }
        // Message ids keep their order: a fresh ULID prefix, then the position.
        let base = crate::util::new_id();
        for (i, (run, role, parts, at)) in s.messages.iter().enumerate() {
            sqlx::query(
                "INSERT INTO messages (id, session_id, run_id, role, parts, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(format!("{base}.{i:08}"))
            .bind(s.id)
            .bind(run.as_deref())
            .bind(role)
            .bind(parts)
            .bind(*at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        self.get_session(s.id).await
    }
}
