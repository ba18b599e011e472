//! Web Push subscriptions: a browser's push endpoint with its encryption keys, owned by the
//! sign-in that registered it (a login session or an API token). Only subscriptions whose owner
//! is still live receive anything; revoking the owner deletes them.

use super::{Store, StoreResult};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PushSubscriptionRow {
    pub id: String,
    pub endpoint: String,
    /// The browser's P-256 public key (base64url, uncompressed point).
    pub p256dh: String,
    /// The browser's 16-byte authentication secret (base64url).
    pub auth: String,
    pub login_session_id: Option<String>,
    pub token_id: Option<String>,
    pub user_agent: Option<String>,
    pub created_at: i64,
    pub last_sent_at: Option<i64>,
    pub last_error: Option<String>,
}

/// Who registered a subscription.
#[derive(Debug, Clone, Copy)]
pub enum PushOwner<'a> {
    Login(&'a str),
    Token(&'a str),
}

/// The row's columns (a macro, so each query stays one static string).
macro_rules! columns {
    () => {
        "p.id, p.endpoint, p.p256dh, p.auth, p.login_session_id, p.token_id, p.user_agent, \
         p.created_at, p.last_sent_at, p.last_error"
    };
}

impl Store {
    /// Record a subscription; the same endpoint registered again replaces its keys and owner
    /// (a browser renews its subscription). Returns the stored row.
    pub async fn upsert_push_subscription(
        &self,
        row: &PushSubscriptionRow,
    ) -> StoreResult<PushSubscriptionRow> {
        sqlx::query(
            "INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, login_session_id, token_id, user_agent, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, \
             login_session_id = excluded.login_session_id, token_id = excluded.token_id, \
             user_agent = excluded.user_agent, last_error = NULL",
        )
        .bind(&row.id)
        .bind(&row.endpoint)
        .bind(&row.p256dh)
        .bind(&row.auth)
        .bind(row.login_session_id.as_deref())
        .bind(row.token_id.as_deref())
        .bind(row.user_agent.as_deref())
        .bind(row.created_at)
        .execute(self.pool())
        .await?;
        Ok(sqlx::query_as::<_, PushSubscriptionRow>(concat!(
            "SELECT ",
            columns!(),
            " FROM push_subscriptions p WHERE p.endpoint = $1"
        ))
        .bind(&row.endpoint)
        .fetch_one(self.pool())
        .await?)
    }

    /// The subscriptions whose owner is live (a login session not revoked or expired, an API
    /// token not revoked; the server's own token owns its for as long as the server runs).
    pub async fn live_push_subscriptions(&self) -> StoreResult<Vec<PushSubscriptionRow>> {
        Ok(sqlx::query_as::<_, PushSubscriptionRow>(concat!(
            "SELECT ",
            columns!(),
            " FROM push_subscriptions p \
             WHERE (p.login_session_id IS NULL OR EXISTS (SELECT 1 FROM login_sessions l \
                    WHERE l.id = p.login_session_id AND l.revoked_at IS NULL AND l.expires_at > $1)) \
               AND (p.token_id IS NULL OR EXISTS (SELECT 1 FROM api_tokens t \
                    WHERE t.id = p.token_id AND t.revoked_at IS NULL)) \
             ORDER BY p.created_at, p.id"
        ))
            .bind(now_ms())
            .fetch_all(self.pool())
            .await?)
    }

    /// Delete one subscription; false when there was none with this id.
    pub async fn delete_push_subscription(&self, id: &str) -> StoreResult<bool> {
        Ok(sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?
            .rows_affected()
            > 0)
    }

    /// A push service said the endpoint is gone (404/410): forget it.
    pub async fn delete_push_endpoint(&self, endpoint: &str) -> StoreResult<()> {
        sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1")
            .bind(endpoint)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The sign-in that owned these was revoked (device signed out, token revoked).
    pub async fn delete_push_subscriptions_of(&self, owner: PushOwner<'_>) -> StoreResult<()> {
        let (sql, id) = match owner {
            PushOwner::Login(id) => (
                "DELETE FROM push_subscriptions WHERE login_session_id = $1",
                id,
            ),
            PushOwner::Token(id) => ("DELETE FROM push_subscriptions WHERE token_id = $1", id),
        };
        sqlx::query(sql).bind(id).execute(self.pool()).await?;
        Ok(())
    }

    /// How the last delivery to a subscription went.
    pub async fn mark_push_result(&self, id: &str, error: Option<&str>) -> StoreResult<()> {
        let sql = if error.is_some() {
            "UPDATE push_subscriptions SET last_error = $1 WHERE id = $2"
        } else {
            "UPDATE push_subscriptions SET last_sent_at = $3, last_error = $1 WHERE id = $2"
        };
        let mut q = sqlx::query(sql).bind(error).bind(id);
        if error.is_none() {
            q = q.bind(now_ms());
        }
        q.execute(self.pool()).await?;
        Ok(())
    }
}
