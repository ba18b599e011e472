//! Model calls: the usage and cost of each, the totals a report or a spend cap needs.

use super::{Store, StoreResult};
use crate::protocol::SessionId;
use crate::protocol::Usage;

/// One model call, as recorded after it ends.
#[derive(Debug, Clone)]
pub struct NewModelCall<'a> {
    pub id: &'a str,
    pub session_id: &'a str,
    pub run_id: Option<&'a str>,
    pub provider: &'a str,
    pub model: &'a str,
    /// `turn` or `compaction`.
    pub purpose: &'a str,
    pub usage: &'a Usage,
    pub context_window: u64,
    pub at: i64,
}

/// What a report groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageGroup {
    Session,
    Model,
    /// The UTC day (`key` is the day number since the epoch).
    Day,
}

/// Totals of one group.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UsageTotalsRow {
    pub key: String,
    pub calls: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cached_input_tokens: i64,
    pub reasoning_tokens: i64,
    pub cost_usd: f64,
    /// Calls with tokens but no price.
    pub unpriced_calls: i64,
}

impl UsageTotalsRow {
    /// The totals as usage: the cost is unknown (null) when calls had no price and nothing
    /// priced was spent.
    pub fn usage(&self) -> Usage {
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        let unknown = self.unpriced_calls > 0 && self.cost_usd == 0.0;
        Usage {
            input_tokens: n(self.input_tokens),
            output_tokens: n(self.output_tokens),
            cached_input_tokens: n(self.cached_input_tokens),
            reasoning_tokens: n(self.reasoning_tokens),
            cost_usd: (!unknown).then_some(self.cost_usd),
            estimated: false,
        }
    }
}

/// The latest call of a session: how full its context was.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LastCallRow {
    pub provider: String,
    pub model: String,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub context_window: i64,
    pub created_at: i64,
}

// Sums are cast: PostgreSQL sums BIGINT into NUMERIC, which the `Any` driver cannot read.
macro_rules! totals {
    ($key:literal, $tail:literal) => {
        concat!(
            "SELECT ",
            $key,
            " AS key, CAST(COUNT(*) AS BIGINT) AS calls, ",
            "CAST(COALESCE(SUM(input_tokens), 0) AS BIGINT) AS input_tokens, ",
            "CAST(COALESCE(SUM(output_tokens), 0) AS BIGINT) AS output_tokens, ",
            "CAST(COALESCE(SUM(cached_input_tokens), 0) AS BIGINT) AS cached_input_tokens, ",
            "CAST(COALESCE(SUM(reasoning_tokens), 0) AS BIGINT) AS reasoning_tokens, ",
            "CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION) AS cost_usd, ",
            "CAST(COALESCE(SUM(CASE WHEN cost_usd IS NULL AND input_tokens + output_tokens > 0 THEN 1 ELSE 0 END), 0) AS BIGINT) AS unpriced_calls ",
            "FROM model_calls WHERE created_at >= $1 AND created_at < $2 ",
            $tail
        )
    };
}

impl Store {
    pub async fn record_model_call(&self, c: &NewModelCall<'_>) -> StoreResult<()> {
        let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        sqlx::query(
            "INSERT INTO model_calls (id, session_id, run_id, provider, model, purpose, input_tokens, output_tokens, \
             cached_input_tokens, reasoning_tokens, cost_usd, context_window, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        )
        .bind(c.id)
        .bind(c.session_id)
        .bind(c.run_id)
        .bind(c.provider)
        .bind(c.model)
        .bind(c.purpose)
        .bind(n(c.usage.input_tokens))
        .bind(n(c.usage.output_tokens))
        .bind(n(c.usage.cached_input_tokens))
        .bind(n(c.usage.reasoning_tokens))
        .bind(c.usage.cost_usd)
        .bind(n(c.context_window))
        .bind(c.at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Totals per group of the calls made in `[from, to)` (Unix ms), optionally of one session;
    /// largest cost first (days: in order).
    pub async fn usage_report(
        &self,
        from: i64,
        to: i64,
        group: UsageGroup,
        session: Option<&SessionId>,
    ) -> StoreResult<Vec<UsageTotalsRow>> {
        let q = match group {
            UsageGroup::Session => totals!(
                "session_id",
                "AND ($3 = '' OR session_id = $3) GROUP BY session_id ORDER BY 7 DESC, 1"
            ),
            UsageGroup::Model => totals!(
                "provider || '/' || model",
                "AND ($3 = '' OR session_id = $3) GROUP BY provider, model ORDER BY 7 DESC, 1"
            ),
            UsageGroup::Day => totals!(
                "CAST(created_at / 86400000 AS TEXT)",
                "AND ($3 = '' OR session_id = $3) GROUP BY created_at / 86400000 ORDER BY created_at / 86400000"
            ),
        };
        Ok(sqlx::query_as::<_, UsageTotalsRow>(q)
            .bind(from)
            .bind(to)
            .bind(session.map_or("", |s| s.as_str()))
            .fetch_all(self.pool())
            .await?)
    }

    /// What a run's recorded model calls used (`None` when it recorded none): the usage of a
    /// run that ended without counting it (the server stopped during it).
    pub async fn run_usage(&self, run: &crate::protocol::RunId) -> StoreResult<Option<Usage>> {
        let r = sqlx::query_as::<_, UsageTotalsRow>(totals!(
            "run_id",
            "AND run_id = $3 GROUP BY run_id"
        ))
        .bind(0_i64)
        .bind(i64::MAX)
        .bind(run)
        .fetch_optional(self.pool())
        .await?;
        Ok(r.filter(|r| r.calls > 0).map(|r| r.usage()))
    }

    /// How many subagent sessions `session` has at every depth, and the totals of their model
    /// calls.
    pub async fn subagent_usage(
        &self,
        session: &SessionId,
    ) -> StoreResult<(i64, Option<UsageTotalsRow>)> {
        // The session's subagents at every depth, the parent named by parameter `$p`.
        let tree = |p: u8| {
            format!(
                "WITH RECURSIVE tree(id) AS (SELECT id FROM sessions WHERE parent_id = ${p} \
                 UNION ALL SELECT s.id FROM sessions s JOIN tree t ON s.parent_id = t.id) "
            )
        };
        let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{}SELECT CAST(COUNT(*) AS BIGINT) FROM tree",
            tree(1)
        )))
        .bind(session)
        .fetch_one(self.pool())
        .await?;
        if n == 0 {
            return Ok((0, None));
        }
        let q = format!(
            "{}{}",
            tree(3),
            totals!("'subagents'", "AND session_id IN (SELECT id FROM tree)")
        );
        let row = sqlx::query_as::<_, UsageTotalsRow>(sqlx::AssertSqlSafe(q))
            .bind(0_i64)
            .bind(i64::MAX)
            .bind(session)
            .fetch_one(self.pool())
            .await?;
        Ok((n, Some(row)))
    }

    /// What a session has cost so far, and what every session has since `day_start`.
    pub async fn spent(&self, session: &SessionId, day_start: i64) -> StoreResult<(f64, f64)> {
        let (s,): (f64,) = sqlx::query_as(
            "SELECT CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION) FROM model_calls WHERE session_id = $1",
        )
        .bind(session)
        .fetch_one(self.pool())
        .await?;
        let (d,): (f64,) = sqlx::query_as(
            "SELECT CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION) FROM model_calls WHERE created_at >= $1",
        )
        .bind(day_start)
        .fetch_one(self.pool())
        .await?;
        Ok((s, d))
    }

    /// A session's latest answer (not a compaction's summary call), if it made one: how full
    /// its context was.
    pub async fn last_model_call(&self, session: &SessionId) -> StoreResult<Option<LastCallRow>> {
        Ok(sqlx::query_as::<_, LastCallRow>(
            "SELECT provider, model, input_tokens, output_tokens, context_window, created_at FROM model_calls \
             WHERE session_id = $1 AND purpose = 'turn' ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(session)
        .fetch_optional(self.pool())
        .await?)
    }
}
