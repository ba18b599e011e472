//! Approvals (durable, with ids) and the session grants they create.

use super::cas::{Set, Transition};
use super::{ApprovalStatus, Store, StoreError, StoreResult};
use crate::protocol::{ApprovalId, ApprovalScope, CallId, Effect, RunId, SessionId};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ApprovalRow {
    pub id: ApprovalId,
    pub session_id: SessionId,
    pub run_id: RunId,
    pub call_id: CallId,
    pub tool: String,
    #[sqlx(try_from = "String")]
    pub effect: Effect,
    #[sqlx(try_from = "String")]
    pub scope: ApprovalScope,
    pub grant_key: String,
    pub input: String,
    pub reason: String,
    #[sqlx(try_from = "String")]
    pub status: ApprovalStatus,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    /// The argv prefix (JSON) a `prefix` answer may store, when one was offered.
    pub prefix: Option<String>,
    /// What the request showed beyond its reason (JSON [`ApprovalDetail`]).
    pub detail: Option<String>,
}

/// What an approval request showed beyond its reason.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ApprovalDetail {
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub warnings: Vec<String>,
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_keeps: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct NewApproval {
    pub id: ApprovalId,
    pub session_id: SessionId,
    pub run_id: RunId,
    pub call_id: CallId,
    pub tool: String,
    pub effect: Effect,
    pub scope: ApprovalScope,
    pub grant_key: String,
    pub input: String,
    pub reason: String,
    pub prefix: Option<Vec<String>>,
    pub detail: ApprovalDetail,
}

/// Where a grant lives: one session, or every session of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantRow {
    pub key: String,
    /// `None`: the session's own; `Some(dir)`: the workspace's.
    pub workspace: Option<String>,
    pub created_at: i64,
}

impl Store {
    pub async fn create_approval(&self, a: &NewApproval) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO approvals (id, session_id, run_id, call_id, tool, effect, scope, grant_key, input, reason, status, created_at, prefix, detail) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $14, $11, $12, $13)",
        )
        .bind(&a.id)
        .bind(&a.session_id)
        .bind(&a.run_id)
        .bind(&a.call_id)
        .bind(&a.tool)
        .bind(a.effect.as_str())
        .bind(a.scope.as_str())
        .bind(&a.grant_key)
        .bind(&a.input)
        .bind(&a.reason)
        .bind(now_ms())
        .bind(a.prefix.as_ref().and_then(|p| serde_json::to_string(p).ok()))
        .bind(serde_json::to_string(&a.detail).ok())
        .bind(ApprovalStatus::Pending.as_str())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn get_approval(&self, id: &crate::protocol::ApprovalId) -> StoreResult<ApprovalRow> {
        sqlx::query_as::<_, ApprovalRow>(
            "SELECT id, session_id, run_id, call_id, tool, effect, scope, grant_key, input, reason, status, created_at, decided_at, prefix, detail \
             FROM approvals WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await
            .map_err(|e| StoreError::from(e).in_row("approval", id))?
        .ok_or(super::StoreError::NotFound)
    }

    /// `pending → status`, once. False when it was already decided (a replayed answer).
    pub async fn decide_approval(
        &self,
        id: &crate::protocol::ApprovalId,
        status: ApprovalStatus,
    ) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "approvals",
                id,
                from: &[ApprovalStatus::Pending.as_str()],
                to: status.as_str(),
                set: vec![("decided_at", Set::Int(Some(now_ms())))],
            })
            .await?;
        Ok(moved == 1)
    }

    pub async fn pending_approvals(&self, session_id: &SessionId) -> StoreResult<Vec<ApprovalRow>> {
        Ok(sqlx::query_as::<_, ApprovalRow>(
            "SELECT id, session_id, run_id, call_id, tool, effect, scope, grant_key, input, reason, status, created_at, decided_at, prefix, detail \
             FROM approvals WHERE session_id = $1 AND status = $2 ORDER BY created_at, id",
        )
        .bind(session_id)
        .bind(ApprovalStatus::Pending.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn add_grant(&self, session_id: &SessionId, key: &str) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO grants (session_id, grant_key, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (session_id, grant_key) DO NOTHING",
        )
        .bind(session_id)
        .bind(key)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The session's grants and its workspace's, as keys (what the gate reads).
    pub async fn list_grants(&self, session_id: &SessionId) -> StoreResult<Vec<String>> {
        Ok(self
            .grant_rows(session_id)
            .await?
            .into_iter()
            .map(|g| g.key)
            .collect())
    }

    /// The session's grants, then those of its workspace.
    pub async fn grant_rows(&self, session_id: &SessionId) -> StoreResult<Vec<GrantRow>> {
        let rows: Vec<(String, Option<String>, i64)> = sqlx::query_as(
            "SELECT grant_key, NULL, created_at FROM grants WHERE session_id = $1 \
             UNION ALL \
             SELECT w.grant_key, w.workspace, w.created_at FROM workspace_grants w \
             JOIN sessions s ON s.workspace = w.workspace WHERE s.id = $1 \
             ORDER BY 1",
        )
        .bind(session_id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(key, workspace, created_at)| GrantRow {
                key,
                workspace,
                created_at,
            })
            .collect())
    }

    pub async fn add_workspace_grant(&self, workspace: &str, key: &str) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO workspace_grants (workspace, grant_key, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (workspace, grant_key) DO NOTHING",
        )
        .bind(workspace)
        .bind(key)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Revoke a grant of the session (or, with `workspace`, of its workspace). False when
    /// there was no such grant.
    pub async fn revoke_grant(
        &self,
        session_id: &SessionId,
        workspace: Option<&str>,
        key: &str,
    ) -> StoreResult<bool> {
        let q = match workspace {
            None => sqlx::query("DELETE FROM grants WHERE session_id = $1 AND grant_key = $2")
                .bind(session_id)
                .bind(key),
            Some(w) => {
                sqlx::query("DELETE FROM workspace_grants WHERE workspace = $1 AND grant_key = $2")
                    .bind(w)
                    .bind(key)
            }
        };
        Ok(q.execute(self.pool()).await?.rows_affected() > 0)
    }
}
