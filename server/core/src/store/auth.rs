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
        tx.commit().await?;
        Ok(())
    }

    pub async fn create_api_token(
        &self,
        id: &str,
        name: &str,
        token_hash: &str,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO api_tokens (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(id)
        .bind(name)
        .bind(token_hash)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn list_api_tokens(&self) -> StoreResult<Vec<ApiTokenRow>> {
        Ok(sqlx::query_as::<_, ApiTokenRow>(
            "SELECT id, name, created_at, last_used_at FROM api_tokens WHERE revoked_at IS NULL ORDER BY created_at, id",
        )
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn revoke_api_token(&self, id: &str) -> StoreResult<()> {
        let n = sqlx::query(
            "UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
        )
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

    /// The token id for a live API token hash.
    pub async fn find_api_token(&self, token_hash: &str) -> StoreResult<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT id FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL",
        )
        .bind(token_hash)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| r.0))
    }

    pub async fn create_login_session(
        &self,
        id: &str,
        token_hash: &str,
        ttl_ms: i64,
    ) -> StoreResult<()> {
        let now = now_ms();
        sqlx::query("INSERT INTO login_sessions (id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4)")
            .bind(id)
            .bind(token_hash)
            .bind(now)
            .bind(now + ttl_ms)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The login session id for a live cookie hash.
    pub async fn find_login_session(&self, token_hash: &str) -> StoreResult<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT id FROM login_sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2",
        )
        .bind(token_hash)
        .bind(now_ms())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| r.0))
    }

    pub async fn revoke_login_session(&self, id: &str) -> StoreResult<()> {
        sqlx::query("UPDATE login_sessions SET revoked_at = $1 WHERE id = $2")
            .bind(now_ms())
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn revoke_all_login_sessions(&self) -> StoreResult<()> {
        sqlx::query("UPDATE login_sessions SET revoked_at = $1 WHERE revoked_at IS NULL")
            .bind(now_ms())
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
