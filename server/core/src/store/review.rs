//! Line comments on a session's review and on its plans (migration 0023).

use super::{Store, StoreError, StoreResult};
use crate::protocol::{
    CommentSide, CommentStatus, CommentTarget, PlanId, ReviewComment, ReviewCommentId, SessionId,
};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
struct CommentRow {
    id: ReviewCommentId,
    session_id: SessionId,
    target: String,
    plan_id: Option<PlanId>,
    revision: Option<i64>,
    path: String,
    start_line: i64,
    end_line: i64,
    side: String,
    quote: String,
    body: String,
    status: String,
    answer: Option<String>,
    created_at: i64,
    updated_at: i64,
}

const COLUMNS: &str = "id, session_id, target, plan_id, revision, path, start_line, end_line, side, quote, body, status, answer, created_at, updated_at";

fn line(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

impl From<CommentRow> for ReviewComment {
    fn from(r: CommentRow) -> Self {
        let (status, resolved_by) = match r.status.split_once(':') {
            Some(("resolved", by)) => (CommentStatus::Resolved, Some(by.to_string())),
            _ => (
                match r.status.as_str() {
                    "sent" => CommentStatus::Sent,
                    "answered" => CommentStatus::Answered,
                    "resolved" => CommentStatus::Resolved,
                    _ => CommentStatus::Draft,
                },
                None,
            ),
        };
        ReviewComment {
            id: r.id,
            session: r.session_id,
            target: if r.target == "plan" {
                CommentTarget::Plan
            } else {
                CommentTarget::Diff
            },
            plan_id: r.plan_id,
            revision: r.revision.map(line),
            path: r.path,
            start_line: line(r.start_line),
            end_line: line(r.end_line),
            side: if r.side == "old" {
                CommentSide::Old
            } else {
                CommentSide::New
            },
            quote: r.quote,
            body: r.body,
            status,
            answer: r.answer,
            resolved_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// How a status is stored: `resolved:<by>` keeps who resolved it.
pub fn comment_status(status: CommentStatus, resolved_by: Option<&str>) -> String {
    match status {
        CommentStatus::Draft => "draft".into(),
        CommentStatus::Sent => "sent".into(),
        CommentStatus::Answered => "answered".into(),
        CommentStatus::Resolved => format!("resolved:{}", resolved_by.unwrap_or("user")),
    }
}

impl Store {
    /// Record a new comment (as given, with its id and times).
    pub async fn add_comment(&self, c: &ReviewComment) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO review_comments (id, session_id, target, plan_id, revision, path, start_line, end_line, side, quote, body, status, answer, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(&c.id)
        .bind(&c.session)
        .bind(if c.target == CommentTarget::Plan { "plan" } else { "diff" })
        .bind(&c.plan_id)
        .bind(c.revision.map(i64::from))
        .bind(&c.path)
        .bind(i64::from(c.start_line))
        .bind(i64::from(c.end_line))
        .bind(if c.side == CommentSide::Old { "old" } else { "new" })
        .bind(&c.quote)
        .bind(&c.body)
        .bind(comment_status(c.status, c.resolved_by.as_deref()))
        .bind(&c.answer)
        .bind(c.created_at)
        .bind(c.updated_at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// A session's comments, oldest first.
    pub async fn comments(&self, session: &SessionId) -> StoreResult<Vec<ReviewComment>> {
        let rows: Vec<CommentRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM review_comments WHERE session_id = $1 ORDER BY created_at, id"
        )))
        .bind(session)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    pub async fn comment(&self, id: &ReviewCommentId) -> StoreResult<ReviewComment> {
        let row: Option<CommentRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM review_comments WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.map(Into::into).ok_or(StoreError::NotFound)
    }

    /// Store a comment's text, status and answer as given (its `updated_at` set to now).
    pub async fn update_comment(&self, c: &ReviewComment) -> StoreResult<ReviewComment> {
        let n = sqlx::query(
            "UPDATE review_comments SET body = $1, status = $2, answer = $3, updated_at = $4 WHERE id = $5",
        )
        .bind(&c.body)
        .bind(comment_status(c.status, c.resolved_by.as_deref()))
        .bind(&c.answer)
        .bind(now_ms())
        .bind(&c.id)
        .execute(self.pool())
        .await?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        self.comment(&c.id).await
    }

    pub async fn delete_comment(&self, id: &ReviewCommentId) -> StoreResult<()> {
        let n = sqlx::query("DELETE FROM review_comments WHERE id = $1")
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
