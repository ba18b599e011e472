//! Memories: short notes the agent keeps, per workspace or the user's own, found by full-text
//! search (see migration 0014).

use super::{Backend, Store, StoreResult, query_terms};
use crate::protocol::MemoryId;
use crate::util::{new_id, now_ms};

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct MemoryRow {
    pub id: MemoryId,
    /// `workspace` or `user`.
    pub scope: String,
    /// The workspace of a `workspace` memory; empty for the user's.
    pub workspace: String,
    pub key: Option<String>,
    pub text: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "m.id, m.scope, m.workspace, m.key, m.text, m.created_at, m.updated_at";

impl Store {
    /// Write a memory; one with the same scope, workspace and key is replaced (same id).
    pub async fn write_memory(
        &self,
        scope: &str,
        workspace: &str,
        key: Option<&str>,
        text: &str,
    ) -> StoreResult<MemoryRow> {
        let now = now_ms();
        if let Some(k) = key {
            let n = sqlx::query(
                "UPDATE memories SET text = $1, updated_at = $2 WHERE scope = $3 AND workspace = $4 AND key = $5",
            )
            .bind(text)
            .bind(now)
            .bind(scope)
            .bind(workspace)
            .bind(k)
            .execute(self.pool())
            .await?
            .rows_affected();
            if n > 0 {
                let row: MemoryRow = sqlx::query_as(
                    "SELECT id, scope, workspace, key, text, created_at, updated_at FROM memories WHERE scope = $1 AND workspace = $2 AND key = $3",
                )
                .bind(scope)
                .bind(workspace)
                .bind(k)
                .fetch_one(self.pool())
                .await?;
                return Ok(row);
            }
        }
        let id = new_id();
        sqlx::query(
            "INSERT INTO memories (id, scope, workspace, key, text, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(scope)
        .bind(workspace)
        .bind(key)
        .bind(text)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(MemoryRow {
            id: id.into(),
            scope: scope.into(),
            workspace: workspace.into(),
            key: key.map(str::to_string),
            text: text.into(),
            created_at: now,
            updated_at: now,
        })
    }

    /// The memories a workspace sees (its own and the user's) that match any word of `query`,
    /// best first; every one of them, newest first, when `query` has no words.
    pub async fn search_memories(
        &self,
        workspace: &str,
        query: &str,
        limit: i64,
    ) -> StoreResult<Vec<MemoryRow>> {
        let terms = query_terms(query);
        if terms.is_empty() {
            return Ok(sqlx::query_as(
                "SELECT id, scope, workspace, key, text, created_at, updated_at FROM memories \
                 WHERE scope = 'user' OR workspace = $1 ORDER BY updated_at DESC, id DESC LIMIT $2",
            )
            .bind(workspace)
            .bind(limit)
            .fetch_all(self.pool())
            .await?);
        }
        let rows = match self.backend() {
            Backend::Sqlite => {
                let q = terms
                    .iter()
                    .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
                    .collect::<Vec<_>>()
                    .join(" OR ");
                sqlx::query_as::<_, MemoryRow>(sqlx::AssertSqlSafe(format!(
                    "SELECT {COLUMNS} FROM memories_index JOIN memories m ON m.rowid = memories_index.rowid \
                     WHERE memories_index MATCH $1 AND (m.scope = 'user' OR m.workspace = $2) \
                     ORDER BY bm25(memories_index) LIMIT $3"
                )))
                .bind(q)
                .bind(workspace)
                .bind(limit)
                .fetch_all(self.pool())
                .await?
            }
            Backend::Postgres => {
                // Terms hold only letters, digits and `_`: nothing tsquery reads.
                let q = terms.join(" | ");
                sqlx::query_as::<_, MemoryRow>(sqlx::AssertSqlSafe(format!(
                    "SELECT {COLUMNS} FROM memories m, to_tsquery('simple', $1) q \
                     WHERE m.search @@ q AND (m.scope = 'user' OR m.workspace = $2) \
                     ORDER BY ts_rank(m.search, q) DESC, m.updated_at DESC LIMIT $3"
                )))
                .bind(q)
                .bind(workspace)
                .bind(limit)
                .fetch_all(self.pool())
                .await?
            }
        };
        Ok(rows)
    }

    pub async fn get_memory(
        &self,
        id: &crate::protocol::MemoryId,
    ) -> StoreResult<Option<MemoryRow>> {
        Ok(sqlx::query_as(
            "SELECT id, scope, workspace, key, text, created_at, updated_at FROM memories WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await?)
    }

    pub async fn update_memory(
        &self,
        id: &crate::protocol::MemoryId,
        text: &str,
    ) -> StoreResult<bool> {
        Ok(
            sqlx::query("UPDATE memories SET text = $1, updated_at = $2 WHERE id = $3")
                .bind(text)
                .bind(now_ms())
                .bind(id)
                .execute(self.pool())
                .await?
                .rows_affected()
                > 0,
        )
    }

    pub async fn delete_memory(&self, id: &crate::protocol::MemoryId) -> StoreResult<bool> {
        Ok(sqlx::query("DELETE FROM memories WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?
            .rows_affected()
            > 0)
    }
}
