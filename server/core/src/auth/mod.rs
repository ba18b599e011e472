//! Who may call the server: the per-start access token (launch URL + bearer), browser login
//! sessions (HttpOnly cookie), API tokens, and the argon2id password with a per-client login
//! limiter. Secrets are compared in constant time and stored only as hashes.

use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use tokio::sync::Semaphore;

use crate::store::Store;
use crate::util::{ct_eq, new_id, random_hex, sha256_hex};

pub const COOKIE_NAME: &str = "tw_session";
/// Browser login sessions last 30 days.
pub const LOGIN_TTL_MS: i64 = 30 * 24 * 3600 * 1000;
/// Failed logins allowed per client address per window.
pub const LOGIN_FAILURES_PER_WINDOW: usize = 10;
pub const LOGIN_WINDOW: Duration = Duration::from_secs(60);

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// A browser with a login-session cookie.
    Cookie { login_session_id: String },
    /// `Authorization: Bearer` with the access token (`token_id` None) or an API token.
    Bearer { token_id: Option<String> },
}

pub struct AuthService {
    store: Store,
    access_token: String,
    launch_used: AtomicBool,
    limiter: LoginLimiter,
    hashing: Semaphore,
    revoked: tokio::sync::broadcast::Sender<Principal>,
}

pub enum LaunchOutcome {
    /// A new login session; the value is the cookie secret.
    Issued(String),
    /// Wrong token, or the launch link was already used.
    Rejected,
}

impl AuthService {
    pub fn new(store: Store, fixed_token: Option<String>) -> anyhow::Result<AuthService> {
        let access_token = match fixed_token {
            Some(t) => t,
            None => random_hex(32)?,
        };
        Ok(AuthService {
            store,
            access_token,
            launch_used: AtomicBool::new(false),
            limiter: LoginLimiter::default(),
            hashing: Semaphore::new(2),
            revoked: tokio::sync::broadcast::channel(64).0,
        })
    }

    pub fn access_token(&self) -> &str {
        &self.access_token
    }

    /// Resolve a bearer secret: the access token, or a live API token.
    pub async fn check_bearer(&self, secret: &str) -> anyhow::Result<Option<Principal>> {
        if ct_eq(secret.as_bytes(), self.access_token.as_bytes()) {
            return Ok(Some(Principal::Bearer { token_id: None }));
        }
        if !secret.starts_with("tw_") || secret.len() > 256 {
            return Ok(None);
        }
        let id = self
            .store
            .find_api_token(&sha256_hex(secret.as_bytes()))
            .await?;
        Ok(id.map(|id| Principal::Bearer { token_id: Some(id) }))
    }

    pub async fn check_cookie(&self, secret: &str) -> anyhow::Result<Option<Principal>> {
        if secret.len() != 64 {
            return Ok(None);
        }
        let id = self
            .store
            .find_login_session(&sha256_hex(secret.as_bytes()))
            .await?;
        Ok(id.map(|login_session_id| Principal::Cookie { login_session_id }))
    }

    /// The `?token=` launch link works once per server start.
    pub async fn redeem_launch_token(&self, token: &str) -> anyhow::Result<LaunchOutcome> {
        if !ct_eq(token.as_bytes(), self.access_token.as_bytes()) {
            return Ok(LaunchOutcome::Rejected);
        }
        if self.launch_used.swap(true, Ordering::SeqCst) {
            return Ok(LaunchOutcome::Rejected);
        }
        Ok(LaunchOutcome::Issued(self.new_login_session().await?))
    }

    async fn new_login_session(&self) -> anyhow::Result<String> {
        let secret = random_hex(32)?;
        self.store
            .create_login_session(&new_id(), &sha256_hex(secret.as_bytes()), LOGIN_TTL_MS)
            .await?;
        Ok(secret)
    }

    /// Password login. `Err(retry_after)` when the client is rate-limited (argon2 not run).
    /// Each attempt reserves a failure slot *before* verifying, so concurrent guesses cannot all
    /// slip past the check; a success gives its slot back.
    pub async fn login(
        &self,
        client: IpAddr,
        password: &str,
    ) -> anyhow::Result<Result<Option<String>, u64>> {
        let slot = match self.limiter.reserve(client) {
            Ok(slot) => slot,
            Err(wait) => return Ok(Err(wait.as_secs().max(1))),
        };
        let Some(phc) = self.store.password_hash().await? else {
            return Ok(Ok(None));
        };
        if !self.verify_password(password, phc).await? {
            return Ok(Ok(None));
        }
        self.limiter.release(client, slot);
        Ok(Ok(Some(self.new_login_session().await?)))
    }

    /// Live connections of revoked principals close (logout, token revocation).
    pub fn revocations(&self) -> tokio::sync::broadcast::Receiver<Principal> {
        self.revoked.subscribe()
    }

    pub async fn revoke_api_token(&self, id: &str) -> Result<(), crate::store::StoreError> {
        self.store.revoke_api_token(id).await?;
        let _ = self.revoked.send(Principal::Bearer {
            token_id: Some(id.to_string()),
        });
        Ok(())
    }

    async fn verify_password(&self, password: &str, phc: String) -> anyhow::Result<bool> {
        let _permit = self.hashing.acquire().await?;
        let pw = password.to_string();
        Ok(tokio::task::spawn_blocking(move || {
            Argon2::default()
                .verify_password(pw.as_bytes(), phc.as_str())
                .is_ok()
        })
        .await?)
    }

    pub async fn logout(&self, login_session_id: &str) -> anyhow::Result<()> {
        self.store.revoke_login_session(login_session_id).await?;
        let _ = self.revoked.send(Principal::Cookie {
            login_session_id: login_session_id.to_string(),
        });
        Ok(())
    }

    pub async fn password_set(&self) -> anyhow::Result<bool> {
        Ok(self.store.password_hash().await?.is_some())
    }

    /// A new API token: `(id, secret)`; the secret is shown once.
    pub async fn create_api_token(&self, name: &str) -> anyhow::Result<(String, String)> {
        let id = new_id();
        let secret = format!("tw_{}", random_hex(32)?);
        self.store
            .create_api_token(&id, name, &sha256_hex(secret.as_bytes()))
            .await?;
        Ok((id, secret))
    }
}

/// argon2id PHC string for a password.
pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let phc = Argon2::default()
        .hash_password(password.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot hash password: {e}"))?;
    Ok(phc.to_string())
}

/// Counts failed logins per client address in a sliding window. Successes cost nothing, and one
/// client's failures never lock out another (no global lockout).
#[derive(Default)]
struct LoginLimiter {
    failures: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

impl LoginLimiter {
    /// Take a failure slot for this attempt, or say how long to wait.
    fn reserve(&self, ip: IpAddr) -> Result<Instant, Duration> {
        let mut map = self.failures.lock();
        if map.len() > 10_000 {
            map.retain(|_, q| q.back().is_some_and(|t| t.elapsed() < LOGIN_WINDOW));
        }
        let now = Instant::now();
        let q = map.entry(ip).or_default();
        while q
            .front()
            .is_some_and(|t| now.duration_since(*t) > LOGIN_WINDOW)
        {
            q.pop_front();
        }
        if q.len() >= LOGIN_FAILURES_PER_WINDOW {
            let oldest = q.front().copied().unwrap_or(now);
            return Err(
                LOGIN_WINDOW.saturating_sub(now.duration_since(oldest)) + Duration::from_secs(1)
            );
        }
        q.push_back(now);
        Ok(now)
    }

    /// A successful attempt costs nothing.
    fn release(&self, ip: IpAddr, slot: Instant) {
        let mut map = self.failures.lock();
        if let Some(q) = map.get_mut(&ip)
            && let Some(i) = q.iter().position(|t| *t == slot)
        {
            q.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_blocks_one_client_only() {
        let l = LoginLimiter::default();
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        if let Ok(slot) = l.reserve(a) {
            l.release(a, slot);
        }
        for _ in 0..LOGIN_FAILURES_PER_WINDOW {
            assert!(l.reserve(a).is_ok());
        }
        assert!(l.reserve(a).is_err());
        assert!(l.reserve(b).is_ok());
    }

    #[test]
    fn password_hash_roundtrip() {
        let phc = hash_password("correct horse").unwrap_or_default();
        assert!(phc.starts_with("$argon2id$"));
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", phc.as_str())
                .is_ok()
        );
        assert!(
            Argon2::default()
                .verify_password(b"wrong", phc.as_str())
                .is_err()
        );
    }
}
