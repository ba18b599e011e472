//! Full-text search over every session's prompts, answers, tool calls and results: SQLite FTS5
//! or PostgreSQL `tsvector`, both kept in step with the event log by the database itself (see
//! migration 0008).

use super::{Backend, Store, StoreResult};
use crate::protocol::SessionId;

/// One hit: the event it is in, and a snippet with the matched terms between `\u{1}` and
/// `\u{2}`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SearchHitRow {
    pub session_id: SessionId,
    pub title: String,
    pub seq: i64,
    pub kind: String,
    pub snippet: String,
    pub created_at: i64,
}

/// The words of a query, each at most 64 characters, at most 12.
pub fn query_terms(q: &str) -> Vec<String> {
    q.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().take(64).collect::<String>().to_lowercase())
        .take(12)
        .collect()
}

const SQLITE: &str = "SELECT e.session_id AS session_id, s.title AS title, e.seq AS seq, e.type AS kind, \
     snippet(search_index, 0, char(1), char(2), '…', 16) AS snippet, e.created_at AS created_at \
     FROM search_index JOIN events e ON e.rowid = search_index.rowid JOIN sessions s ON s.id = e.session_id \
     WHERE search_index MATCH $1 AND ($2 = '' OR e.session_id = $2) \
     ORDER BY search_index.rowid DESC LIMIT $3";

const POSTGRES: &str = "SELECT e.session_id AS session_id, s.title AS title, e.seq AS seq, e.type AS kind, \
     ts_headline('simple', e.search_text, q, 'StartSel=' || chr(1) || ', StopSel=' || chr(2) || ', MaxWords=24, MinWords=8, ShortWord=1') AS snippet, \
     e.created_at AS created_at \
     FROM events e JOIN sessions s ON s.id = e.session_id, to_tsquery('simple', $1) q \
     WHERE e.search @@ q AND ($2 = '' OR e.session_id = $2) \
     ORDER BY e.created_at DESC, e.seq DESC LIMIT $3";

impl Store {
    /// The newest `limit` hits for every term of `terms` (the last one as a prefix), optionally
    /// in one session. Newest first: FTS5 walks its index in rowid order and stops at `limit`,
    /// so a common word costs no more than a rare one.
    pub async fn search(
        &self,
        terms: &[String],
        session: Option<&SessionId>,
        limit: i64,
    ) -> StoreResult<Vec<SearchHitRow>> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let last = terms.len() - 1;
        let (sql, q) = match self.backend() {
            Backend::Sqlite => (
                SQLITE,
                terms
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let quoted = format!("\"{}\"", t.replace('"', "\"\""));
                        if i == last {
                            format!("{quoted}*")
                        } else {
                            quoted
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Backend::Postgres => (
                POSTGRES,
                terms
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        // Terms hold only letters, digits and `_`: nothing tsquery reads.
                        if i == last {
                            format!("{t}:*")
                        } else {
                            t.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" & "),
            ),
        };
        Ok(sqlx::query_as::<_, SearchHitRow>(sql)
            .bind(q)
            .bind(session.map_or("", |s| s.as_str()))
            .bind(limit)
            .fetch_all(self.pool())
            .await?)
    }
}
