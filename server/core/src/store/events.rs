//! The durable event log: `(session_id, seq)` unique and gap-free, stored before it is sent.
//! Rows keep `(type, data JSON)` apart from the Rust enum so the enum can change without a data
//! migration.

use sqlx::{AnyConnection, Executor};

use super::{NewMessage, Store, StoreError, StoreResult};
use crate::protocol::{RunId, RunStatus, SessionId};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRow {
    pub session_id: SessionId,
    pub seq: i64,
    pub run_id: Option<RunId>,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub data: String,
    pub created_at: i64,
}

/// An event to store; its `seq` is allocated by the store.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub run_id: Option<RunId>,
    pub kind: String,
    pub data: String,
    /// A `run_finished` event's end: the run's row is made final with it, in the same
    /// transaction.
    pub ends_run: Option<RunEndRow>,
}

/// What a run's row records of its end (`error` and `usage` as their JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct RunEndRow {
    pub run_id: RunId,
    pub status: crate::protocol::RunStatus,
    pub error: Option<String>,
    pub usage: String,
}

/// Batch inserts take the rows as one JSON array parameter, so each is a single prepared
/// statement whatever the batch size (no per-row binding, no per-size statement).
const EVENTS_POSTGRES: &str = "INSERT INTO events (session_id, seq, run_id, type, data, created_at) \
     SELECT $1, $2 + j.ord - 1, j.value ->> 0, j.value ->> 1, j.value ->> 2, $3 \
     FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS j(value, ord)";
/// A run's row is final in the same transaction as its `run_finished` event, so whoever hears
/// the event and reads the run finds it ended (and no extra write delays the event).
const RUNS_POSTGRES: &str = "UPDATE runs SET status = j.value ->> 1, error = j.value ->> 2, usage = j.value ->> 3, finished_at = $1 \
     FROM jsonb_array_elements($2::jsonb) AS j(value) \
     WHERE runs.id = j.value ->> 0 AND runs.status IN ($3, $4)";
const MESSAGES_POSTGRES: &str = "INSERT INTO messages (id, session_id, run_id, role, parts, created_at) \
     SELECT j.value ->> 0, $1, j.value ->> 1, j.value ->> 2, j.value ->> 3, $2 \
     FROM jsonb_array_elements($3::jsonb) AS j(value)";

/// SQLite, on the event log's own connection: the whole group commit as one multi-statement
/// query, so it costs one trip to SQLite's thread instead of five. `$1` events, `$2` now,
/// `$3` session, `$4` events JSON, `$5` messages JSON, `$6` ended runs JSON (see `RUNS_POSTGRES`),
/// `$7`, `$8` the statuses of a run not ended (queued, running).
/// The `RETURNING` row is the session's new `last_seq`; no row means no such session (and nothing
/// was inserted: both inserts join it).
const BATCH_SQLITE: &str = "BEGIN IMMEDIATE; \
     UPDATE sessions SET last_seq = last_seq + $1, updated_at = $2 WHERE id = $3 RETURNING last_seq; \
     INSERT INTO events (session_id, seq, run_id, type, data, created_at) \
     SELECT s.id, s.last_seq - $1 + 1 + j.key, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), $2 \
     FROM sessions AS s, json_each($4) AS j WHERE s.id = $3; \
     INSERT INTO messages (id, session_id, run_id, role, parts, created_at) \
     SELECT json_extract(j.value, '$[0]'), s.id, json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'), $2 \
     FROM sessions AS s, json_each($5) AS j WHERE s.id = $3; \
     UPDATE runs SET status = json_extract(j.value, '$[1]'), error = json_extract(j.value, '$[2]'), \
     usage = json_extract(j.value, '$[3]'), finished_at = $2 \
     FROM json_each($6) AS j WHERE runs.id = json_extract(j.value, '$[0]') AND runs.status IN ($7, $8); \
     COMMIT";

impl Store {
    /// Store a batch of events (and the messages written with them) in one write transaction:
    /// one `seq` range is allocated, then one insert per table. This is the group commit behind the
    /// event writer.
    pub async fn append_batch(
        &self,
        session_id: &SessionId,
        events: &[NewEvent],
        messages: &[NewMessage],
    ) -> StoreResult<Vec<EventRow>> {
        if events.is_empty() && messages.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(w) = self.writer() {
            let mut guard = w.conn.lock().await;
            let Some(conn) = guard.as_mut() else {
                return Err(StoreError::Other(anyhow::anyhow!("the store is closed")));
            };
            let rows = sqlite_batch(conn, session_id, events, messages).await;
            drop(guard);
            self.checkpoint_soon();
            return rows;
        }
        let mut tx = self.begin_write().await?;
        let rows = postgres_batch(&mut tx, session_id, events, messages).await?;
        tx.commit().await?;
        Ok(rows)
    }

    /// SQLite: cap the event log's connection at `extra_pages` more pages than the file has now
    /// (`None` lifts the cap) — a full disk as that connection sees it. For tests and drills.
    pub async fn limit_event_log_pages(&self, extra_pages: Option<i64>) -> StoreResult<()> {
        let Some(w) = self.writer() else {
            return Err(StoreError::Other(anyhow::anyhow!(
                "only SQLite has an event-log connection"
            )));
        };
        let mut guard = w.conn.lock().await;
        let Some(conn) = guard.as_mut() else {
            return Err(StoreError::Other(anyhow::anyhow!("the store is closed")));
        };
        let max = match extra_pages {
            Some(extra) => {
                let (pages,): (i64,) = sqlx::query_as("PRAGMA page_count")
                    .fetch_one(&mut *conn)
                    .await?;
                pages + extra
            }
            None => 1_073_741_823,
        };
        // `max` is an integer this function computed: no injection possible.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "PRAGMA max_page_count = {max}"
        )))
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// Events with `seq > after`, oldest first.
    /// One event of a session by seq.
    pub async fn event_at(&self, session_id: &SessionId, seq: i64) -> StoreResult<EventRow> {
        sqlx::query_as::<_, EventRow>(
            "SELECT session_id, seq, run_id, type, data, created_at FROM events WHERE session_id = $1 AND seq = $2",
        )
        .bind(session_id)
        .bind(seq)
        .fetch_optional(self.pool())
        .await?
        .ok_or(StoreError::NotFound)
    }

    /// The seq of a run's first event in a session.
    pub async fn first_seq_of_run(
        &self,
        session_id: &SessionId,
        run_id: &RunId,
    ) -> StoreResult<Option<i64>> {
        let row: Option<(Option<i64>,)> =
            sqlx::query_as("SELECT MIN(seq) FROM events WHERE session_id = $1 AND run_id = $2")
                .bind(session_id)
                .bind(run_id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.and_then(|r| r.0))
    }

    /// Whether the session's log holds an event of type `kind` whose `field` is `id` (a prompt's
    /// request: `approval_requested` by `approval_id`, …).
    pub async fn has_event_naming(
        &self,
        session_id: &SessionId,
        kind: &str,
        field: &str,
        id: &str,
    ) -> StoreResult<bool> {
        let pattern = format!("%\"{field}\":\"{id}\"%");
        let row: Option<(i64,)> = sqlx::query_as(
            "SELECT seq FROM events WHERE session_id = $1 AND type = $2 AND data LIKE $3 LIMIT 1",
        )
        .bind(session_id)
        .bind(kind)
        .bind(pattern)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.is_some())
    }

    /// The data of a session's last `limit` events of one type, newest first.
    pub async fn events_of_type(
        &self,
        session_id: &SessionId,
        kind: &str,
        limit: i64,
    ) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT data FROM events WHERE session_id = $1 AND type = $2 ORDER BY seq DESC LIMIT $3",
        )
        .bind(session_id)
        .bind(kind)
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }

    pub async fn list_events(
        &self,
        session_id: &SessionId,
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

    /// The last `limit` events with `after < seq < before`, oldest first (paging back through
    /// a long session from its end).
    pub async fn list_events_before(
        &self,
        session_id: &SessionId,
        after: i64,
        before: i64,
        limit: i64,
    ) -> StoreResult<Vec<EventRow>> {
        let mut rows = sqlx::query_as::<_, EventRow>(
            "SELECT session_id, seq, run_id, type, data, created_at FROM events \
             WHERE session_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq DESC LIMIT $4",
        )
        .bind(session_id)
        .bind(after)
        .bind(before)
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.reverse();
        Ok(rows)
    }
}

/// `BATCH_SQLITE` on the event log's connection; a failure part-way is rolled back here (the
/// statements after it did not run, so the transaction would stay open).
async fn sqlite_batch(
    conn: &mut AnyConnection,
    session_id: &crate::protocol::SessionId,
    events: &[NewEvent],
    messages: &[NewMessage],
) -> StoreResult<Vec<EventRow>> {
    let now = now_ms();
    let n = events.len() as i64;
    let (ev, msgs) = (events_json(events)?, messages_json(messages)?);
    let runs = ended_runs_json(events)?;
    let res: Result<Vec<(i64,)>, sqlx::Error> = sqlx::query_as(BATCH_SQLITE)
        .bind(n)
        .bind(now)
        .bind(session_id)
        .bind(ev)
        .bind(msgs)
        .bind(runs)
        .bind(RunStatus::Queued.as_str())
        .bind(RunStatus::Running.as_str())
        .fetch_all(&mut *conn)
        .await;
    let last = match res {
        Ok(rows) => rows.first().map(|r| r.0),
        Err(e) => {
            // "no transaction is active" when BEGIN itself failed: nothing to undo.
            let _ = conn.execute("ROLLBACK").await;
            return Err(e.into());
        }
    };
    let Some(last) = last else {
        return Err(StoreError::NotFound);
    };
    Ok(stored_rows(session_id, last - n + 1, now, events))
}

/// Events as the JSON array parameter of the batch inserts: `[[run, type, data], …]`.
fn events_json(events: &[NewEvent]) -> StoreResult<String> {
    let arr: Vec<(&Option<RunId>, &str, &str)> = events
        .iter()
        .map(|e| (&e.run_id, e.kind.as_str(), e.data.as_str()))
        .collect();
    Ok(serde_json::to_string(&arr).map_err(|e| anyhow::anyhow!(e))?)
}

/// The runs a batch ends, from its events' typed ends: `[[run, status, error, usage], …]`.
fn ended_runs_json(events: &[NewEvent]) -> StoreResult<String> {
    let arr: Vec<(&str, &str, &Option<String>, &str)> = events
        .iter()
        .filter_map(|e| e.ends_run.as_ref())
        .map(|r| {
            (
                r.run_id.as_str(),
                r.status.as_str(),
                &r.error,
                r.usage.as_str(),
            )
        })
        .collect();
    Ok(serde_json::to_string(&arr).map_err(|e| anyhow::anyhow!(e))?)
}

/// Messages as the JSON array parameter of the batch inserts: `[[id, run, role, parts], …]`.
fn messages_json(messages: &[NewMessage]) -> StoreResult<String> {
    let arr: Vec<(&str, &Option<RunId>, &str, &str)> = messages
        .iter()
        .map(|m| (m.id.as_str(), &m.run_id, m.role.as_str(), m.parts.as_str()))
        .collect();
    Ok(serde_json::to_string(&arr).map_err(|e| anyhow::anyhow!(e))?)
}

/// The rows a batch stored, `seq` counting up from `first`.
fn stored_rows(
    session_id: &crate::protocol::SessionId,
    first: i64,
    now: i64,
    events: &[NewEvent],
) -> Vec<EventRow> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| EventRow {
            session_id: session_id.into(),
            seq: first + i as i64,
            run_id: e.run_id.clone(),
            kind: e.kind.clone(),
            data: e.data.clone(),
            created_at: now,
        })
        .collect()
}

/// PostgreSQL, inside a transaction: one `seq` range from `sessions.last_seq`, then one insert
/// per table.
async fn postgres_batch(
    conn: &mut AnyConnection,
    session_id: &crate::protocol::SessionId,
    events: &[NewEvent],
    messages: &[NewMessage],
) -> StoreResult<Vec<EventRow>> {
    let now = now_ms();
    let mut rows = Vec::new();
    if !events.is_empty() {
        let n = events.len() as i64;
        let last: Option<(i64,)> = sqlx::query_as(
            "UPDATE sessions SET last_seq = last_seq + $1, updated_at = $2 WHERE id = $3 RETURNING last_seq",
        )
        .bind(n)
        .bind(now)
        .bind(session_id)
        .fetch_optional(&mut *conn)
        .await?;
        let Some((last,)) = last else {
            return Err(StoreError::NotFound);
        };
        let first = last - n + 1;
        let json = events_json(events)?;
        sqlx::query(EVENTS_POSTGRES)
            .bind(session_id)
            .bind(first)
            .bind(now)
            .bind(json)
            .execute(&mut *conn)
            .await?;
        rows = stored_rows(session_id, first, now, events);
        if events.iter().any(|e| e.ends_run.is_some()) {
            sqlx::query(RUNS_POSTGRES)
                .bind(now)
                .bind(ended_runs_json(events)?)
                .bind(RunStatus::Queued.as_str())
                .bind(RunStatus::Running.as_str())
                .execute(&mut *conn)
                .await?;
        }
    }
    if !messages.is_empty() {
        let json = messages_json(messages)?;
        sqlx::query(MESSAGES_POSTGRES)
            .bind(session_id)
            .bind(now)
            .bind(json)
            .execute(&mut *conn)
            .await?;
    }
    Ok(rows)
}
