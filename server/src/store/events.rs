//! The durable event log: `(session_id, seq)` unique and gap-free, stored before it is sent.
//! Rows keep `(type, data JSON)` apart from the Rust enum so the enum can change without a data
//! migration.

use super::{NewMessage, Store, StoreError, StoreResult};
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

/// An event to store; its `seq` is allocated by the store.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub run_id: Option<String>,
    pub kind: String,
    pub data: String,
}

/// Rows per multi-row `INSERT` (6 parameters each: far below SQLite's and Postgres' limits).
const ROWS_PER_INSERT: usize = 256;

/// `prefix ($1, …, $k), ($k+1, …)` for `rows` rows of `cols` parameters.
fn multi_row_insert(prefix: &str, cols: usize, rows: usize) -> String {
    use std::fmt::Write;
    let mut sql = String::with_capacity(prefix.len() + rows * cols * 5);
    sql.push_str(prefix);
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 0..cols {
            let _ = write!(
                sql,
                "{}${}",
                if c == 0 { "" } else { ", " },
                r * cols + c + 1
            );
        }
        sql.push(')');
    }
    sql
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

    /// Store a batch of events (and the messages written with them) in one write transaction:
    /// one `seq` range is allocated, then multi-row inserts. This is the group commit behind the
    /// event writer; a batch of one costs about what `append_event` costs.
    pub async fn append_batch(
        &self,
        session_id: &str,
        events: &[NewEvent],
        messages: &[NewMessage],
    ) -> StoreResult<Vec<EventRow>> {
        if events.is_empty() && messages.is_empty() {
            return Ok(Vec::new());
        }
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        let mut rows = Vec::with_capacity(events.len());
        if !events.is_empty() {
            let n = events.len() as i64;
            let last: Option<(i64,)> = sqlx::query_as(
                "UPDATE sessions SET last_seq = last_seq + $1, updated_at = $2 WHERE id = $3 RETURNING last_seq",
            )
            .bind(n)
            .bind(now)
            .bind(session_id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((last,)) = last else {
                return Err(StoreError::NotFound);
            };
            let first = last - n + 1;
            for (i, chunk) in events.chunks(ROWS_PER_INSERT).enumerate() {
                let base = first + (i * ROWS_PER_INSERT) as i64;
                let sql = multi_row_insert(
                    "INSERT INTO events (session_id, seq, run_id, type, data, created_at) VALUES ",
                    6,
                    chunk.len(),
                );
                let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
                for (j, e) in chunk.iter().enumerate() {
                    q = q
                        .bind(session_id)
                        .bind(base + j as i64)
                        .bind(e.run_id.as_deref())
                        .bind(e.kind.as_str())
                        .bind(e.data.as_str())
                        .bind(now);
                }
                q.execute(&mut *tx).await?;
            }
            rows.extend(events.iter().enumerate().map(|(i, e)| EventRow {
                session_id: session_id.to_string(),
                seq: first + i as i64,
                run_id: e.run_id.clone(),
                kind: e.kind.clone(),
                data: e.data.clone(),
                created_at: now,
            }));
        }
        for chunk in messages.chunks(ROWS_PER_INSERT) {
            let sql = multi_row_insert(
                "INSERT INTO messages (id, session_id, run_id, role, parts, created_at) VALUES ",
                6,
                chunk.len(),
            );
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for m in chunk {
                q = q
                    .bind(m.id.as_str())
                    .bind(session_id)
                    .bind(m.run_id.as_deref())
                    .bind(m.role.as_str())
                    .bind(m.parts.as_str())
                    .bind(now);
            }
            q.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(rows)
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

#[cfg(test)]
mod tests {
    #[test]
    fn multi_row_insert_numbers_every_parameter() {
        assert_eq!(
            super::multi_row_insert("INSERT INTO t (a, b) VALUES ", 2, 2),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"
        );
    }
}
