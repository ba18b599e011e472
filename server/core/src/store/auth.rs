//! Authentication records: the argon2id password hash, API tokens and login sessions. Secrets are
//! stored only as SHA-256 hashes (they are 256-bit random, so a fast hash is the right tool).

use super::{Store, StoreError, StoreResult};
use crate::util::now_ms;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ApiTokenRow {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    /// Comma-separated: `read,prompt,admin`.
    pub scopes: String,
}

/// A browser sign-in about to be recorded.
pub struct NewLoginSession<'a> {
    pub id: &'a str,
    pub token_hash: &'a str,
    /// Absolute lifetime.
    pub ttl_ms: i64,
    pub user_agent: Option<&'a str>,
    pub ip: Option<&'a str>,
}

/// A live browser login session: one device.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LoginSessionRow {
    pub id: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub user_agent: Option<String>,
    pub last_seen_at: i64,
    pub last_ip: Option<String>,
    /// The name the user gave it.
    pub label: Option<String>,
    /// Where it signed in from.
    pub signin_ip: Option<String>,
}

impl Store {
    pub async fn password_hash(&self) -> StoreResult<Option<String>> {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT password_hash FROM auth_settings WHERE id = 1")
                .fetch_optional(self.pool())
                .await?;
        Ok(row.and_then(|r| r.0))
    }

    /// Set the password and revoke every login session made with the old one.
    pub async fn set_password_hash(&self, phc: &str) -> StoreResult<()> {
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO auth_settings (id, password_hash, password_changed_at) VALUES (1, $1, $2) \
             ON CONFLICT (id) DO UPDATE SET password_hash = excluded.password_hash, password_changed_at = excluded.password_changed_at",
        )
        .bind(phc)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE login_sessions SET revoked_at = $1 WHERE revoked_at IS NULL")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM push_subscriptions WHERE login_session_id IS NOT NULL")
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn create_api_token(
        &self,
        id: &str,
        name: &str,
        token_hash: &str,
        scopes: &str,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO api_tokens (id, name, token_hash, created_at, scopes) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(name)
        .bind(token_hash)
        .bind(now_ms())
        .bind(scopes)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn list_api_tokens(&self) -> StoreResult<Vec<ApiTokenRow>> {
        Ok(sqlx::query_as::<_, ApiTokenRow>(
            "SELECT id, name, created_at, last_used_at, scopes FROM api_tokens WHERE revoked_at IS NULL ORDER BY created_at, id",
        )
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn revoke_api_token(&self, id: &str) -> StoreResult<()> {
        self.revoke(
            "UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
            id,
        )
        .await
    }

    /// Mark one live credential revoked; `NotFound` when there is no live one with that id.
    async fn revoke(&self, sql: &'static str, id: &str) -> StoreResult<()> {
        let n = sqlx::query(sql)
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// The token id and scopes (comma-separated) for a live API token hash.
    pub async fn find_api_token(&self, token_hash: &str) -> StoreResult<Option<(String, String)>> {
        Ok(sqlx::query_as(
            "SELECT id, scopes FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL",
        )
        .bind(token_hash)
        .fetch_optional(self.pool())
        .await?)
    }

    /// Note that an API token was used now (its "last used" in the token list).
    pub async fn touch_api_token(&self, id: &str) -> StoreResult<()> {
        sqlx::query("UPDATE api_tokens SET last_used_at = $1 WHERE id = $2")
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Is the API token with this id live (not revoked)?
    pub async fn api_token_live(&self, id: &str) -> StoreResult<bool> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT id FROM api_tokens WHERE id = $1 AND revoked_at IS NULL")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.is_some())
    }

    pub async fn create_login_session(&self, new: &NewLoginSession<'_>) -> StoreResult<()> {
        let now = now_ms();
        sqlx::query(
            "INSERT INTO login_sessions (id, token_hash, created_at, expires_at, user_agent, last_seen_at, last_ip, signin_ip) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
        )
        .bind(new.id)
        .bind(new.token_hash)
        .bind(now)
        .bind(now + new.ttl_ms)
        .bind(new.user_agent)
        .bind(now)
        .bind(new.ip)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The login session id for a live cookie hash: not revoked, within its absolute lifetime,
    /// and seen within `idle_ms`.
    pub async fn find_login_session(
        &self,
        token_hash: &str,
        idle_ms: i64,
    ) -> StoreResult<Option<String>> {
        let now = now_ms();
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT id FROM login_sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2 \
             AND COALESCE(last_seen_at, created_at) > $3",
        )
        .bind(token_hash)
        .bind(now)
        .bind(now - idle_ms)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| r.0))
    }

    /// Is the login session with this id live: not revoked, within its absolute lifetime, and
    /// seen within `idle_ms` (what `find_login_session` asks of a cookie)?
    pub async fn login_session_live(&self, id: &str, idle_ms: i64) -> StoreResult<bool> {
        let now = now_ms();
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT id FROM login_sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2 \
             AND COALESCE(last_seen_at, created_at) > $3",
        )
        .bind(id)
        .bind(now)
        .bind(now - idle_ms)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.is_some())
    }

    /// Record that a login session was just used, and from where.
    pub async fn touch_login_session(&self, id: &str, ip: &str) -> StoreResult<()> {
        sqlx::query("UPDATE login_sessions SET last_seen_at = $1, last_ip = $2 WHERE id = $3")
            .bind(now_ms())
            .bind(ip)
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Live login sessions (devices), most recently seen first.
    pub async fn list_login_sessions(&self, idle_ms: i64) -> StoreResult<Vec<LoginSessionRow>> {
        let now = now_ms();
        Ok(sqlx::query_as::<_, LoginSessionRow>(
            "SELECT id, created_at, expires_at, user_agent, COALESCE(last_seen_at, created_at) AS last_seen_at, last_ip, label, signin_ip \
             FROM login_sessions WHERE revoked_at IS NULL AND expires_at > $1 AND COALESCE(last_seen_at, created_at) > $2 \
             ORDER BY COALESCE(last_seen_at, created_at) DESC, id",
        )
        .bind(now)
        .bind(now - idle_ms)
        .fetch_all(self.pool())
        .await?)
    }

    /// Name a live login session (`None`: back to the name its browser gives); `NotFound` when
    /// there is no live one with that id.
    pub async fn label_login_session(&self, id: &str, label: Option<&str>) -> StoreResult<()> {
        let n = sqlx::query(
            "UPDATE login_sessions SET label = $1 WHERE id = $2 AND revoked_at IS NULL AND expires_at > $3",
        )
        .bind(label)
        .bind(id)
        .bind(now_ms())
        .execute(self.pool())
        .await?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Revoke one login session; `NotFound` when there is no live one with that id.
    pub async fn revoke_login_session(&self, id: &str) -> StoreResult<()> {
        self.revoke(
            "UPDATE login_sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
            id,
        )
        .await
    }

    pub async fn revoke_all_login_sessions(&self) -> StoreResult<()> {
        sqlx::query("UPDATE login_sessions SET revoked_at = $1 WHERE revoked_at IS NULL")
            .bind(now_ms())
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
