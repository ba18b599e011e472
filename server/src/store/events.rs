//! The durable event log: `(session_id, seq)` unique and gap-free, stored before it is sent.
//! Rows keep `(type, data JSON)` apart from the Rust enum so the enum can change without a data
//! migration.

use super::{Store, StoreError, StoreResult};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRow {
    pub session_id: String,
    pub seq: i64,
    pub run_id: Option<String>,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub data: String,
    pub created_at: i64,
}

impl Store {
    /// Allocate the next `seq` of the session and store the event, in one write transaction.
    pub async fn append_event(
        &self,
        session_id: &str,
        run_id: Option<&str>,
        kind: &str,
        data: &str,
    ) -> StoreResult<EventRow> {
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        let seq: Option<(i64,)> = sqlx::query_as(
            "UPDATE sessions SET last_seq = last_seq + 1, updated_at = $1 WHERE id = $2 RETURNING last_seq",
        )
        .bind(now)
        .bind(session_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((seq,)) = seq else {
            return Err(StoreError::NotFound);
        };
        sqlx::query(
            "INSERT INTO events (session_id, seq, run_id, type, data, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(session_id)
        .bind(seq)
        .bind(run_id)
        .bind(kind)
        .bind(data)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(EventRow {
            session_id: session_id.to_string(),
            seq,
            run_id: run_id.map(str::to_string),
            kind: kind.to_string(),
            data: data.to_string(),
            created_at: now,
        })
    }

    /// Events with `seq > after`, oldest first.
    pub async fn list_events(
        &self,
        session_id: &str,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<EventRow>> {
        Ok(sqlx::query_as::<_, EventRow>(
            "SELECT session_id, seq, run_id, type, data, created_at FROM events \
             WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        )
        .bind(session_id)
        .bind(after)
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }
}
