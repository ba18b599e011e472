//! Who may call the server: the per-start access token (launch URL + bearer), browser login
//! sessions (HttpOnly cookie), API tokens, and the argon2id password with a per-client login
//! limiter. Secrets are compared in constant time and stored only as hashes. One-time sign-in
//! links (`links`) carry a code distinct from the access token.

pub mod links;

use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use tokio::sync::Semaphore;

use crate::protocol::TokenScope;
use crate::store::Store;
use crate::util::{ct_eq, new_id, random_hex, sha256_hex};

pub const COOKIE_NAME: &str = "tw_session";
/// The cookie's name on TLS: the `__Host-` prefix makes the browser insist on `Secure`, `Path=/`
/// and no `Domain`, so no other host or plain-HTTP page can plant or shadow it.
pub const COOKIE_NAME_TLS: &str = "__Host-tw_session";
const DAY_MS: i64 = 24 * 3600 * 1000;
/// A device's last-seen time is written at most this often.
const TOUCH_EVERY: Duration = Duration::from_secs(60);
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

/// `auth` in config.json: how long a browser stays signed in.
#[derive(Debug, Clone, Copy, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthSettings {
    /// A device not seen for this many days is signed out.
    pub idle_days: u32,
    /// A sign-in ends this many days after it was made, however active.
    pub max_days: u32,
}

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            idle_days: 30,
            max_days: 90,
        }
    }
}

impl AuthSettings {
    pub fn idle_ms(&self) -> i64 {
        i64::from(self.idle_days.max(1)) * DAY_MS
    }
    pub fn max_ms(&self) -> i64 {
        i64::from(self.max_days.max(1)) * DAY_MS
    }
}

/// Who is signing in, for the device list.
#[derive(Debug, Clone, Default)]
pub struct ClientInfo {
    pub ip: Option<IpAddr>,
    pub user_agent: Option<String>,
}

pub struct AuthService {
    store: Store,
    access_token: String,
    links: links::LinkCodes,
    settings: AuthSettings,
    /// When each login session's last-seen time was last written.
    touched: Mutex<HashMap<String, Instant>>,
    password_known: std::sync::OnceLock<bool>,
    limiter: LoginLimiter,
    hashing: Semaphore,
    revoked: tokio::sync::broadcast::Sender<Principal>,
    /// Signs page tokens and view tokens: derived from the key store at the first sign-in.
    page_key: std::sync::OnceLock<Option<crate::keystore::MacKey>>,
    keys: std::sync::Arc<crate::keystore::KeyStore>,
    /// Single-use stream tickets: hash of the ticket → who got it, and when it lapses. A ticket
    /// stands for its principal only while that is live: revoking the principal drops its
    /// tickets, and redeeming one checks the principal again.
    tickets: Mutex<HashMap<String, (Principal, Scopes, Instant)>>,
}

/// A new browser sign-in: the cookie's secret, and the page token the page keeps (in
/// `localStorage`, sent as `X-Tradewind-Page`): the cookie alone authorises nothing but the
/// app's static files.
pub struct SignIn {
    pub secret: String,
    pub page_token: String,
}

/// What a caller may do (see `TokenScope`). A browser sign-in presenting its page token and the
/// access token have every scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scopes(u8);

impl Scopes {
    pub const ALL: Scopes = Scopes(0b111);
    /// New API tokens: read and prompt.
    pub const DEFAULT: Scopes = Scopes(0b011);

    fn bit(s: TokenScope) -> u8 {
        match s {
            TokenScope::Read => 1,
            TokenScope::Prompt => 2,
            TokenScope::Admin => 4,
        }
    }

    pub fn has(self, s: TokenScope) -> bool {
        self.0 & Self::bit(s) != 0
    }

    /// From a list; `read` is always included.
    pub fn of(list: &[TokenScope]) -> Scopes {
        Scopes(list.iter().fold(1, |a, s| a | Self::bit(*s)))
    }

    /// From the stored comma-separated form; unknown words are ignored.
    pub fn parse(csv: &str) -> Scopes {
        let list: Vec<TokenScope> = csv
            .split(',')
            .filter_map(|w| TokenScope::parse(w.trim()))
            .collect();
        Scopes::of(&list)
    }

    pub fn list(self) -> Vec<TokenScope> {
        TokenScope::ALL
            .into_iter()
            .filter(|s| self.has(*s))
            .collect()
    }

    pub fn csv(self) -> String {
        self.list()
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// How long a stream ticket lives.
pub const TICKET_TTL: Duration = Duration::from_secs(60);
/// Tickets waiting to be used, at most (the oldest go first).
const MAX_TICKETS: usize = 10_000;

pub enum LaunchOutcome {
    /// A new login session.
    Issued(SignIn),
    /// The link is past its time.
    Expired,
    /// Unknown code, or the link was already used.
    Rejected,
}

impl AuthService {
    pub fn new(
        store: Store,
        fixed_token: Option<String>,
        state_dir: &Path,
        settings: AuthSettings,
        keys: std::sync::Arc<crate::keystore::KeyStore>,
    ) -> anyhow::Result<AuthService> {
        let access_token = match fixed_token {
            Some(t) => t,
            None => random_hex(32)?,
        };
        let links = links::LinkCodes::new(state_dir);
        links.sweep();
        Ok(AuthService {
            store,
            access_token,
            links,
            settings,
            touched: Mutex::default(),
            password_known: std::sync::OnceLock::new(),
            limiter: LoginLimiter::default(),
            hashing: Semaphore::new(2),
            revoked: tokio::sync::broadcast::channel(64).0,
            page_key: std::sync::OnceLock::new(),
            keys,
            tickets: Mutex::default(),
        })
    }

    fn page_mac(&self) -> anyhow::Result<&crate::keystore::MacKey> {
        self.page_key
            .get_or_init(|| self.keys.mac_key("page").ok())
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("the key store cannot be used (see the log)"))
    }

    fn sign(&self, what: &str, login_session_id: &str) -> anyhow::Result<String> {
        Ok(self.page_mac()?.sign_hex(&[what, login_session_id]))
    }

    /// The page token of a login session (what its sign-in gave the page).
    pub fn page_token(&self, login_session_id: &str) -> anyhow::Result<String> {
        self.sign("page", login_session_id)
    }

    /// Does `presented` belong to this login session? Constant time; never without a key.
    pub fn check_page(&self, login_session_id: &str, presented: &str) -> bool {
        presented.len() == 64
            && self
                .page_token(login_session_id)
                .is_ok_and(|t| ct_eq(t.as_bytes(), presented.as_bytes()))
    }

    /// The `view` token of a login session: for addresses the browser loads itself (artifact
    /// files, downloads, attachments), read-only.
    pub fn view_token(&self, login_session_id: &str) -> anyhow::Result<String> {
        self.sign("view", login_session_id)
    }

    pub fn check_view(&self, login_session_id: &str, presented: &str) -> bool {
        presented.len() == 64
            && self
                .view_token(login_session_id)
                .is_ok_and(|t| ct_eq(t.as_bytes(), presented.as_bytes()))
    }

    /// A single-use ticket, valid `TICKET_TTL`, for one event stream of this caller.
    pub fn mint_ticket(&self, principal: &Principal, scopes: Scopes) -> anyhow::Result<String> {
        let ticket = format!("twt_{}", random_hex(24)?);
        let now = Instant::now();
        let mut m = self.tickets.lock();
        m.retain(|_, (_, _, until)| *until > now);
        if m.len() >= MAX_TICKETS
            && let Some(oldest) = m.iter().min_by_key(|(_, v)| v.2).map(|(k, _)| k.clone())
        {
            m.remove(&oldest);
        }
        m.insert(
            sha256_hex(ticket.as_bytes()),
            (principal.clone(), scopes, now + TICKET_TTL),
        );
        Ok(ticket)
    }

    /// Spend a ticket: who it was given to, if it is unused, within its time, and its principal
    /// (the sign-in or API token it was minted for) is still live. A ticket never outlives its
    /// principal: minted before a revocation, it opens nothing after it.
    pub async fn redeem_ticket(&self, ticket: &str) -> anyhow::Result<Option<(Principal, Scopes)>> {
        if ticket.len() > 128 {
            return Ok(None);
        }
        let found = self.tickets.lock().remove(&sha256_hex(ticket.as_bytes()));
        let Some((p, scopes, until)) = found else {
            return Ok(None);
        };
        if until <= Instant::now() || !self.is_live(&p).await? {
            return Ok(None);
        }
        Ok(Some((p, scopes)))
    }

    /// Drop the unspent tickets of a principal being revoked.
    fn forget_tickets(&self, principal: &Principal) {
        self.tickets.lock().retain(|_, (p, _, _)| p != principal);
    }

    /// Is this caller's credential still good: the access token always; an API token until it
    /// is revoked; a sign-in until it is signed out, revoked, past its lifetime or idle too long.
    pub async fn is_live(&self, principal: &Principal) -> anyhow::Result<bool> {
        Ok(match principal {
            Principal::Bearer { token_id: None } => true,
            Principal::Bearer { token_id: Some(id) } => self.store.api_token_live(id).await?,
            Principal::Cookie { login_session_id } => {
                self.store
                    .login_session_live(login_session_id, self.settings.idle_ms())
                    .await?
            }
        })
    }

    pub fn access_token(&self) -> &str {
        &self.access_token
    }

    /// Resolve a bearer secret: the access token (every scope), or a live API token (its own).
    pub async fn check_bearer(&self, secret: &str) -> anyhow::Result<Option<(Principal, Scopes)>> {
        if ct_eq(secret.as_bytes(), self.access_token.as_bytes()) {
            return Ok(Some((Principal::Bearer { token_id: None }, Scopes::ALL)));
        }
        if !secret.starts_with("tw_") || secret.len() > 256 {
            return Ok(None);
        }
        let found = self
            .store
            .find_api_token(&sha256_hex(secret.as_bytes()))
            .await?;
        let Some((id, scopes)) = found else {
            return Ok(None);
        };
        // "Last used", at most once a minute per token (as a device's "last seen").
        if self.due_for_touch(&id) {
            self.store.touch_api_token(&id).await?;
        }
        Ok(Some((
            Principal::Bearer { token_id: Some(id) },
            Scopes::parse(&scopes),
        )))
    }

    /// A live login session for this cookie secret; notes when and from where it was seen.
    pub async fn check_cookie(
        &self,
        secret: &str,
        ip: Option<IpAddr>,
    ) -> anyhow::Result<Option<Principal>> {
        if secret.len() != 64 {
            return Ok(None);
        }
        let id = self
            .store
            .find_login_session(&sha256_hex(secret.as_bytes()), self.settings.idle_ms())
            .await?;
        let Some(login_session_id) = id else {
            return Ok(None);
        };
        if self.due_for_touch(&login_session_id) {
            let ip = ip.map(|i| i.to_string()).unwrap_or_default();
            self.store
                .touch_login_session(&login_session_id, &ip)
                .await?;
        }
        Ok(Some(Principal::Cookie { login_session_id }))
    }

    fn due_for_touch(&self, id: &str) -> bool {
        let mut m = self.touched.lock();
        if m.len() > 10_000 {
            m.retain(|_, t| t.elapsed() < TOUCH_EVERY);
        }
        match m.get(id) {
            Some(t) if t.elapsed() < TOUCH_EVERY => false,
            _ => {
                m.insert(id.to_string(), Instant::now());
                true
            }
        }
    }

    /// The cookie's `Max-Age`: the absolute lifetime of a sign-in.
    pub fn max_age_secs(&self) -> i64 {
        self.settings.max_ms() / 1000
    }

    /// A fresh one-time sign-in link code (15 minutes).
    pub fn mint_link(&self) -> anyhow::Result<String> {
        self.links.mint(links::LINK_TTL_MS)
    }

    /// A one-time code for "Add a device": 5 minutes.
    pub fn mint_device_link(&self) -> anyhow::Result<String> {
        self.links.mint(links::DEVICE_LINK_TTL_MS)
    }

    /// The `?token=` sign-in link: a one-time code, never the access token.
    pub async fn redeem_link(
        &self,
        code: &str,
        client: &ClientInfo,
    ) -> anyhow::Result<LaunchOutcome> {
        match self.links.redeem(code) {
            links::Redeemed::Valid => {
                Ok(LaunchOutcome::Issued(self.new_login_session(client).await?))
            }
            links::Redeemed::Expired => Ok(LaunchOutcome::Expired),
            links::Redeemed::Unknown => Ok(LaunchOutcome::Rejected),
        }
    }

    async fn new_login_session(&self, client: &ClientInfo) -> anyhow::Result<SignIn> {
        let secret = random_hex(32)?;
        let id = new_id();
        let ip = client.ip.map(|i| i.to_string());
        let ua = client
            .user_agent
            .as_deref()
            .map(|u| crate::util::truncate_str(u, 512));
        self.store
            .create_login_session(&crate::store::NewLoginSession {
                id: &id,
                token_hash: &sha256_hex(secret.as_bytes()),
                ttl_ms: self.settings.max_ms(),
                user_agent: ua,
                ip: ip.as_deref(),
            })
            .await?;
        Ok(SignIn {
            page_token: self.page_token(&id)?,
            secret,
        })
    }

    /// The signed-in browsers.
    pub async fn devices(&self) -> anyhow::Result<Vec<crate::store::LoginSessionRow>> {
        Ok(self
            .store
            .list_login_sessions(self.settings.idle_ms())
            .await?)
    }

    /// Sign a device out at once: its cookie stops working and its live connections close.
    pub async fn revoke_device(&self, id: &str) -> Result<(), crate::store::StoreError> {
        self.store.revoke_login_session(id).await?;
        self.touched.lock().remove(id);
        // Its Web Push subscriptions go with it (the device must not hear of prompts).
        if let Err(e) = self
            .store
            .delete_push_subscriptions_of(crate::store::PushOwner::Login(id))
            .await
        {
            tracing::warn!(error = %e, "cannot delete a signed-out device's push subscriptions");
        }
        let p = Principal::Cookie {
            login_session_id: id.to_string(),
        };
        self.forget_tickets(&p);
        let _ = self.revoked.send(p);
        Ok(())
    }

    /// Password login. `Err(retry_after)` when the client is rate-limited (argon2 not run).
    /// Each attempt reserves a failure slot *before* verifying, so concurrent guesses cannot all
    /// slip past the check; a success gives its slot back.
    pub async fn login(
        &self,
        client: &ClientInfo,
        password: &str,
    ) -> anyhow::Result<Result<Option<SignIn>, u64>> {
        let ip = client.ip.unwrap_or(IpAddr::from([0, 0, 0, 0]));
        let slot = match self.limiter.reserve(ip) {
            Ok(slot) => slot,
            Err(wait) => return Ok(Err(wait.as_secs().max(1))),
        };
        let Some(phc) = self.store.password_hash().await? else {
            return Ok(Ok(None));
        };
        if !self.verify_password(password, phc).await? {
            return Ok(Ok(None));
        }
        self.limiter.release(ip, slot);
        Ok(Ok(Some(self.new_login_session(client).await?)))
    }

    /// Resolves when `principal` is revoked — signed out, its device revoked, its token revoked —
    /// or when revocations were missed (a lagging listener ends to be safe). The one revocation
    /// path: every live WebSocket, event stream and long-poll of a caller ends on it. Subscribed
    /// when called, so a revocation after this call is never missed; and one between the
    /// request's authentication and this call is caught too: once subscribed, the credential
    /// is looked up again, and one no longer live resolves it at once.
    pub fn until_revoked(
        &self,
        principal: &Principal,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.revoked.subscribe();
        let p = principal.clone();
        let store = self.store.clone();
        let idle_ms = self.settings.idle_ms();
        async move {
            let live = match &p {
                Principal::Bearer { token_id: Some(id) } => {
                    store.api_token_live(id).await.unwrap_or(false)
                }
                // The access token is revoked only by a restart.
                Principal::Bearer { token_id: None } => true,
                Principal::Cookie { login_session_id } => store
                    .login_session_live(login_session_id, idle_ms)
                    .await
                    .unwrap_or(false),
            };
            if !live {
                return;
            }
            loop {
                match rx.recv().await {
                    Ok(r) if r == p => return,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                        std::future::pending::<()>().await;
                    }
                }
            }
        }
    }

    pub async fn revoke_api_token(&self, id: &str) -> Result<(), crate::store::StoreError> {
        self.store.revoke_api_token(id).await?;
        if let Err(e) = self
            .store
            .delete_push_subscriptions_of(crate::store::PushOwner::Token(id))
            .await
        {
            tracing::warn!(error = %e, "cannot delete a revoked token's push subscriptions");
        }
        let p = Principal::Bearer {
            token_id: Some(id.to_string()),
        };
        self.forget_tickets(&p);
        let _ = self.revoked.send(p);
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
        match self.revoke_device(login_session_id).await {
            Ok(()) | Err(crate::store::StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Whether a password is set. `tradewind passwd` needs the server stopped, so the answer
    /// holds for the life of this service once read.
    pub async fn password_set(&self) -> anyhow::Result<bool> {
        if let Some(known) = self.password_known.get() {
            return Ok(*known);
        }
        let set = self.store.password_hash().await?.is_some();
        let _ = self.password_known.set(set);
        Ok(set)
    }

    /// A new API token: `(id, secret)`; the secret is shown once.
    pub async fn create_api_token(
        &self,
        name: &str,
        scopes: Scopes,
    ) -> anyhow::Result<(String, String)> {
        let id = new_id();
        let secret = format!("tw_{}", random_hex(32)?);
        self.store
            .create_api_token(&id, name, &sha256_hex(secret.as_bytes()), &scopes.csv())
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
        let ip = crate::net::client_key(ip);
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
        let ip = crate::net::client_key(ip);
        let mut map = self.failures.lock();
        if let Some(q) = map.get_mut(&ip)
            && let Some(i) = q.iter().position(|t| *t == slot)
        {
            q.remove(i);
        }
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
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

    /// Rotating loopback addresses (or IPv6 addresses of one /64) earns no attempts, while a
    /// browser elsewhere still signs in (SECURITY.md A3).
    #[test]
    fn limiter_counts_loopback_as_one_client_and_ipv6_by_64() {
        let l = LoginLimiter::default();
        for i in 0..LOGIN_FAILURES_PER_WINDOW {
            let ip: IpAddr = [127, 0, 0, u8::try_from(i % 200 + 1).unwrap_or(1)].into();
            assert!(l.reserve(ip).is_ok());
        }
        for other in ["127.0.0.99", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            assert!(l.reserve(other.parse().unwrap()).is_err(), "{other}");
        }
        assert!(
            l.reserve([192, 168, 1, 20].into()).is_ok(),
            "another client"
        );
        let v6 = LoginLimiter::default();
        for i in 0..LOGIN_FAILURES_PER_WINDOW {
            assert!(
                v6.reserve(format!("2001:db8:1:2::{:x}", i + 1).parse().unwrap())
                    .is_ok()
            );
        }
        assert!(
            v6.reserve("2001:db8:1:2:ffff::1".parse().unwrap()).is_err(),
            "same /64"
        );
        assert!(
            v6.reserve("2001:db8:1:3::1".parse().unwrap()).is_ok(),
            "another /64"
        );
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
