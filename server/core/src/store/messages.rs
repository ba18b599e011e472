//! Conversation messages (user, assistant, tool) with their parts as JSON: the history the agent
//! sends to the model. The event log is the UI's record; this is the model's.

use super::{Store, StoreResult};
use crate::protocol::{MessageId, MessageRole, RunId, SessionId};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MessageRow {
    pub id: MessageId,
    pub session_id: SessionId,
    pub run_id: Option<RunId>,
    #[sqlx(try_from = "String")]
    pub role: MessageRole,
    pub parts: String,
    pub created_at: i64,
}

/// A message to store with a batch of events (see `Store::append_batch`).
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub id: MessageId,
    pub run_id: Option<RunId>,
    pub role: MessageRole,
    pub parts: String,
}

impl Store {
    /// Messages with id > `after` (ULIDs sort by time), oldest first.
    pub async fn list_messages(
        &self,
        session_id: &SessionId,
        after: Option<&str>,
        limit: i64,
    ) -> StoreResult<Vec<MessageRow>> {
        Ok(sqlx::query_as::<_, MessageRow>(
            "SELECT id, session_id, run_id, role, parts, created_at FROM messages \
             WHERE session_id = $1 AND id > $2 ORDER BY id LIMIT $3",
        )
        .bind(session_id)
        .bind(after.unwrap_or(""))
        .bind(limit)
        .fetch_all(self.pool())
        .await?)
    }

    /// The newest assistant messages' parts (JSON), newest first: a subagent's answer is the
    /// text of the latest one that has text.
    pub async fn latest_assistant_parts(
        &self,
        session_id: &SessionId,
        limit: i64,
    ) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT parts FROM messages WHERE session_id = $1 AND role = 'assistant' \
             ORDER BY id DESC LIMIT $2",
        )
        .bind(session_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|(p,)| p).collect())
    }
}
