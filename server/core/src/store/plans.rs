//! Artifacts (plan revisions and their files), plans awaiting a decision, and questions.

use super::cas::{Set, Transition};
use super::{PlanStatus, QuestionStatus, Store, StoreError, StoreResult};
use crate::protocol::{ArtifactId, CallId, PlanId, QuestionId, RunId, SessionId};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ArtifactRow {
    pub id: ArtifactId,
    pub session_id: SessionId,
    pub kind: String,
    pub name: String,
    pub revision: i64,
    /// Folder of the artifact's files, relative to the state dir's `artifacts/`.
    pub path: String,
    /// JSON: title, files, diagrams…
    pub meta: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlanRow {
    pub id: PlanId,
    pub session_id: SessionId,
    pub run_id: RunId,
    pub call_id: CallId,
    pub artifact_id: ArtifactId,
    pub revision: i64,
    pub title: Option<String>,
    pub hash: String,
    #[sqlx(try_from = "String")]
    pub status: PlanStatus,
    pub feedback: Option<String>,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    /// JSON array of `{diagram_id, message}`: diagrams the browser could not render.
    pub render_errors: Option<String>,
}

/// A prompt still pending: `kind` is `approval`, `question` or `plan`; `tool` and
/// `grant_key` are an approval's, `questions` a question's (JSON).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PendingPrompt {
    pub kind: String,
    pub id: String,
    pub session_id: SessionId,
    pub run_id: RunId,
    pub call_id: CallId,
    pub tool: String,
    pub grant_key: String,
    pub questions: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct QuestionRow {
    pub id: QuestionId,
    pub session_id: SessionId,
    pub run_id: RunId,
    pub call_id: CallId,
    pub questions: String,
    pub answers: Option<String>,
    #[sqlx(try_from = "String")]
    pub status: QuestionStatus,
    pub created_at: i64,
    pub answered_at: Option<i64>,
}

impl Store {
    pub async fn create_artifact(&self, a: &ArtifactRow) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO artifacts (id, session_id, kind, name, revision, path, meta, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&a.id)
        .bind(&a.session_id)
        .bind(&a.kind)
        .bind(&a.name)
        .bind(a.revision)
        .bind(&a.path)
        .bind(&a.meta)
        .bind(a.created_at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn list_artifacts(&self, session_id: &SessionId) -> StoreResult<Vec<ArtifactRow>> {
        Ok(sqlx::query_as::<_, ArtifactRow>(
            "SELECT id, session_id, kind, name, revision, path, meta, created_at FROM artifacts WHERE session_id = $1 ORDER BY created_at, id",
        )
        .bind(session_id)
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn get_artifact(&self, id: &crate::protocol::ArtifactId) -> StoreResult<ArtifactRow> {
        sqlx::query_as::<_, ArtifactRow>(
            "SELECT id, session_id, kind, name, revision, path, meta, created_at FROM artifacts WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await?
        .ok_or(StoreError::NotFound)
    }

    /// The newest artifact of a kind in a session (the previous plan revision).
    pub async fn latest_artifact(
        &self,
        session_id: &SessionId,
        kind: &str,
    ) -> StoreResult<Option<ArtifactRow>> {
        Ok(sqlx::query_as::<_, ArtifactRow>(
            "SELECT id, session_id, kind, name, revision, path, meta, created_at FROM artifacts \
             WHERE session_id = $1 AND kind = $2 ORDER BY revision DESC LIMIT 1",
        )
        .bind(session_id)
        .bind(kind)
        .fetch_optional(self.pool())
        .await?)
    }

    pub async fn create_plan(&self, p: &PlanRow) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO plans (id, session_id, run_id, call_id, artifact_id, revision, title, hash, status, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $10, $9)",
        )
        .bind(&p.id)
        .bind(&p.session_id)
        .bind(&p.run_id)
        .bind(&p.call_id)
        .bind(&p.artifact_id)
        .bind(p.revision)
        .bind(&p.title)
        .bind(&p.hash)
        .bind(p.created_at)
        .bind(PlanStatus::Pending.as_str())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn get_plan(&self, id: &crate::protocol::PlanId) -> StoreResult<PlanRow> {
        sqlx::query_as::<_, PlanRow>(
            "SELECT id, session_id, run_id, call_id, artifact_id, revision, title, hash, status, feedback, created_at, decided_at, render_errors FROM plans WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await
            .map_err(|e| StoreError::from(e).in_row("plan", id))?
        .ok_or(StoreError::NotFound)
    }

    pub async fn pending_plans(&self, session_id: &SessionId) -> StoreResult<Vec<PlanRow>> {
        Ok(sqlx::query_as::<_, PlanRow>(
            "SELECT id, session_id, run_id, call_id, artifact_id, revision, title, hash, status, feedback, created_at, decided_at, render_errors \
             FROM plans WHERE session_id = $1 AND status = $2 ORDER BY created_at, id",
        )
        .bind(session_id)
        .bind(PlanStatus::Pending.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    /// Record the browser's render errors for a pending plan; false when it is not pending.
    pub async fn set_plan_render_errors(
        &self,
        id: &crate::protocol::PlanId,
        errors_json: &str,
    ) -> StoreResult<bool> {
        let n = sqlx::query("UPDATE plans SET render_errors = $1 WHERE id = $2 AND status = $3")
            .bind(errors_json)
            .bind(id)
            .bind(PlanStatus::Pending.as_str())
            .execute(self.pool())
            .await?
            .rows_affected();
        Ok(n == 1)
    }

    /// `from → to` once (compare-and-set); false when the plan was not in `from`.
    pub async fn transition_plan(
        &self,
        id: &crate::protocol::PlanId,
        from: PlanStatus,
        to: PlanStatus,
        feedback: Option<&str>,
    ) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "plans",
                id,
                from: &[from.as_str()],
                to: to.as_str(),
                set: vec![
                    ("feedback", Set::TextOrKeep(feedback.map(str::to_string))),
                    ("decided_at", Set::Int(Some(now_ms()))),
                ],
            })
            .await?;
        Ok(moved == 1)
    }

    /// Approved plans of a run whose implementation has not started.
    pub async fn approved_plans_of_run(&self, run_id: &RunId) -> StoreResult<Vec<PlanRow>> {
        Ok(sqlx::query_as::<_, PlanRow>(
            "SELECT id, session_id, run_id, call_id, artifact_id, revision, title, hash, status, feedback, created_at, decided_at, render_errors \
             FROM plans WHERE run_id = $1 AND status = $2 ORDER BY created_at DESC",
        )
        .bind(run_id)
        .bind(PlanStatus::Approved.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn create_question(
        &self,
        id: &crate::protocol::QuestionId,
        session_id: &SessionId,
        run_id: &RunId,
        call_id: &crate::protocol::CallId,
        questions: &str,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO questions (id, session_id, run_id, call_id, questions, status, created_at) VALUES ($1, $2, $3, $4, $5, $7, $6)",
        )
        .bind(id)
        .bind(session_id)
        .bind(run_id)
        .bind(call_id)
        .bind(questions)
        .bind(now_ms())
        .bind(QuestionStatus::Pending.as_str())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn get_question(&self, id: &crate::protocol::QuestionId) -> StoreResult<QuestionRow> {
        sqlx::query_as::<_, QuestionRow>(
            "SELECT id, session_id, run_id, call_id, questions, answers, status, created_at, answered_at FROM questions WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await
            .map_err(|e| StoreError::from(e).in_row("question", id))?
        .ok_or(StoreError::NotFound)
    }

    pub async fn pending_questions(&self, session_id: &SessionId) -> StoreResult<Vec<QuestionRow>> {
        Ok(sqlx::query_as::<_, QuestionRow>(
            "SELECT id, session_id, run_id, call_id, questions, answers, status, created_at, answered_at \
             FROM questions WHERE session_id = $1 AND status = $2 ORDER BY created_at, id",
        )
        .bind(session_id)
        .bind(QuestionStatus::Pending.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    /// `pending → status` with answers, once.
    pub async fn answer_question(
        &self,
        id: &crate::protocol::QuestionId,
        status: QuestionStatus,
        answers: Option<&str>,
    ) -> StoreResult<bool> {
        let moved = self
            .transition(Transition {
                table: "questions",
                id,
                from: &[QuestionStatus::Pending.as_str()],
                to: status.as_str(),
                set: vec![
                    ("answers", Set::Text(answers.map(str::to_string))),
                    ("answered_at", Set::Int(Some(now_ms()))),
                ],
            })
            .await?;
        Ok(moved == 1)
    }

    /// Every approval, question and plan still pending (read at start-up), oldest first.
    pub async fn pending_prompts(&self) -> StoreResult<Vec<PendingPrompt>> {
        Ok(sqlx::query_as::<_, PendingPrompt>(
            "SELECT 'approval' AS kind, id, session_id, run_id, call_id, tool, grant_key, '' AS questions, created_at \
               FROM approvals WHERE status = $1 \
             UNION ALL SELECT 'question' AS kind, id, session_id, run_id, call_id, '' AS tool, '' AS grant_key, questions, created_at \
               FROM questions WHERE status = $2 \
             UNION ALL SELECT 'plan' AS kind, id, session_id, run_id, call_id, '' AS tool, '' AS grant_key, '' AS questions, created_at \
               FROM plans WHERE status = $3 \
             ORDER BY created_at, id",
        )
        .bind(super::ApprovalStatus::Pending.as_str())
        .bind(QuestionStatus::Pending.as_str())
        .bind(PlanStatus::Pending.as_str())
        .fetch_all(self.pool())
        .await?)
    }

    /// A pending prompt nobody will answer any more: expired (a plan reads skipped). False
    /// when it was not pending.
    pub async fn expire_prompt(&self, p: &PendingPrompt) -> StoreResult<bool> {
        match p.kind.as_str() {
            "approval" => {
                self.decide_approval(&p.id.as_str().into(), super::ApprovalStatus::Expired)
                    .await
            }
            "question" => {
                self.answer_question(&p.id.as_str().into(), QuestionStatus::Expired, None)
                    .await
            }
            _ => {
                self.transition_plan(
                    &p.id.as_str().into(),
                    PlanStatus::Pending,
                    PlanStatus::Skipped,
                    None,
                )
                .await
            }
        }
    }
}
