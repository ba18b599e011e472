//! Goals: one per session, with its budgets, what was used, and the agent's reports.

use super::{Store, StoreError, StoreResult};
use crate::protocol::{Goal, GoalBudgets, GoalId, GoalReport, GoalStatus, SessionId};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GoalRow {
    pub id: GoalId,
    pub session_id: SessionId,
    pub objective: String,
    #[sqlx(try_from = "String")]
    pub status: GoalStatus,
    pub budget_turns: i64,
    pub budget_tokens: i64,
    pub budget_minutes: i64,
    pub used_turns: i64,
    pub used_tokens: i64,
    pub used_ms: i64,
    pub blocked_streak: i64,
    /// The goal turn (1-based) of the last `blocked` report; 0: none.
    pub last_blocked_turn: i64,
    pub reason: Option<String>,
    /// JSON `[GoalReport]`.
    pub reports: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl GoalRow {
    pub fn reports(&self) -> Vec<GoalReport> {
        serde_json::from_str(&self.reports).unwrap_or_default()
    }

    /// The budget that ran out, if one did.
    pub fn exhausted(&self) -> Option<&'static str> {
        if self.used_turns >= self.budget_turns {
            Some("turns")
        } else if self.used_tokens >= self.budget_tokens {
            Some("tokens")
        } else if self.used_ms >= self.budget_minutes.saturating_mul(60_000) {
            Some("minutes")
        } else {
            None
        }
    }

    pub fn view(&self, blocked_repeats: i64) -> Goal {
        Goal {
            id: self.id.clone(),
            session: self.session_id.clone(),
            objective: self.objective.clone(),
            status: self.status,
            budget: GoalBudgets {
                turns: self.budget_turns,
                tokens: self.budget_tokens,
                minutes: self.budget_minutes,
                used_turns: self.used_turns,
                used_tokens: self.used_tokens,
                used_minutes: (self.used_ms as f64 / 60_000.0 * 60.0).round() / 60.0,
            },
            blocked_streak: self.blocked_streak,
            blocked_repeats,
            reason: self.reason.clone(),
            reports: self.reports(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

impl Store {
    pub async fn get_goal(&self, session: &SessionId) -> StoreResult<Option<GoalRow>> {
        Ok(
            sqlx::query_as::<_, GoalRow>("SELECT id, session_id, objective, status, budget_turns, budget_tokens, budget_minutes, used_turns, used_tokens, used_ms, blocked_streak, last_blocked_turn, reason, reports, created_at, updated_at FROM goals WHERE session_id = $1")
                .bind(session)
                .fetch_optional(self.pool())
                .await?,
        )
    }

    /// A new goal for the session, replacing one that ended.
    pub async fn insert_goal(&self, g: &GoalRow) -> StoreResult<()> {
        let mut tx = self.pool().begin().await?;
        sqlx::query("DELETE FROM goals WHERE session_id = $1")
            .bind(&g.session_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO goals (id, session_id, objective, status, budget_turns, budget_tokens, budget_minutes, used_turns, used_tokens, used_ms, blocked_streak, last_blocked_turn, reason, reports, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, 0, 0, 0, NULL, '[]', $8, $9)",
        )
        .bind(&g.id)
        .bind(&g.session_id)
        .bind(&g.objective)
        .bind(g.status.as_str())
        .bind(g.budget_turns)
        .bind(g.budget_tokens)
        .bind(g.budget_minutes)
        .bind(g.created_at)
        .bind(g.updated_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Write back every changing field of a goal read before (by id), stamping `updated_at`.
    pub async fn save_goal(&self, g: &mut GoalRow) -> StoreResult<()> {
        g.updated_at = now_ms();
        let n = sqlx::query(
            "UPDATE goals SET objective = $1, status = $2, budget_turns = $3, budget_tokens = $4, budget_minutes = $5, used_turns = $6, used_tokens = $7, used_ms = $8, blocked_streak = $9, last_blocked_turn = $10, reason = $11, reports = $12, updated_at = $13 WHERE id = $14",
        )
        .bind(&g.objective)
        .bind(g.status.as_str())
        .bind(g.budget_turns)
        .bind(g.budget_tokens)
        .bind(g.budget_minutes)
        .bind(g.used_turns)
        .bind(g.used_tokens)
        .bind(g.used_ms)
        .bind(g.blocked_streak)
        .bind(g.last_blocked_turn)
        .bind(&g.reason)
        .bind(&g.reports)
        .bind(g.updated_at)
        .bind(&g.id)
        .execute(self.pool())
        .await?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    pub async fn delete_goal(&self, session: &SessionId) -> StoreResult<bool> {
        Ok(sqlx::query("DELETE FROM goals WHERE session_id = $1")
            .bind(session)
            .execute(self.pool())
            .await?
            .rows_affected()
            > 0)
    }
}
