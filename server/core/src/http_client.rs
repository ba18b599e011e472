//! Every outgoing HTTP client of the server (model providers, web search and fetch, Web Push,
//! the local-model probe): one root store and one rustls configuration, built once, on first
//! use — never on the start path — and one client per policy, shared, so connections are
//! reused. A client pinned to checked addresses (webfetch) is built per request from the same
//! TLS configuration, which costs no certificate loading.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// What distinguishes one shared client from another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Policy {
    pub connect_timeout: Duration,
    /// A whole request's limit (`None`: none; streams run as long as they flow).
    pub timeout: Option<Duration>,
    /// Redirects followed (0: none).
    pub redirects: usize,
    /// Ignore proxies from the environment.
    pub no_proxy: bool,
    pub user_agent: Option<&'static str>,
}

impl Policy {
    /// No redirect followed, proxies from the environment honoured, a connect timeout.
    pub const fn direct(connect_timeout: Duration) -> Policy {
        Policy {
            connect_timeout,
            timeout: None,
            redirects: 0,
            no_proxy: false,
            user_agent: None,
        }
    }
}

/// The TLS configuration every client uses: the system's roots through the platform
/// verifier, HTTP/2 and HTTP/1.1 offered. `None` only if it cannot be built (clients then fall
/// back to the library's own).
fn tls() -> Option<rustls::ClientConfig> {
    static TLS: OnceLock<Option<rustls::ClientConfig>> = OnceLock::new();
    TLS.get_or_init(|| {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = match rustls_platform_verifier::Verifier::new(provider.clone()) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "cannot load the system's TLS roots");
                return None;
            }
        };
        let mut cfg = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .ok()?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Some(cfg)
    })
    .clone()
}

/// A shared client named by its policy, built when first used.
#[derive(Debug, Clone, Copy)]
pub struct Lazy(pub Policy);

impl Lazy {
    pub fn get(&self) -> Result<reqwest::Client, String> {
        shared(self.0)
    }
}

/// A client builder with the shared TLS configuration (for clients that cannot be shared).
pub fn builder() -> reqwest::ClientBuilder {
    let b = reqwest::Client::builder();
    match tls() {
        Some(cfg) => b.tls_backend_preconfigured(cfg),
        None => b,
    }
}

/// The shared client of a policy, built on first use.
pub fn shared(p: Policy) -> Result<reqwest::Client, String> {
    static CLIENTS: OnceLock<parking_lot::Mutex<HashMap<Policy, reqwest::Client>>> =
        OnceLock::new();
    let clients = CLIENTS.get_or_init(Default::default);
    if let Some(c) = clients.lock().get(&p) {
        return Ok(c.clone());
    }
    let mut b = builder()
        .connect_timeout(p.connect_timeout)
        .redirect(if p.redirects == 0 {
            reqwest::redirect::Policy::none()
        } else {
            reqwest::redirect::Policy::limited(p.redirects)
        });
    if let Some(t) = p.timeout {
        b = b.timeout(t);
    }
    if p.no_proxy {
        b = b.no_proxy();
    }
    if let Some(ua) = p.user_agent {
        b = b.user_agent(ua);
    }
    let c = b
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    Ok(clients.lock().entry(p).or_insert(c).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_per_policy() {
        let p = Policy::direct(Duration::from_secs(3));
        assert!(shared(p).is_ok());
        assert!(shared(p).is_ok());
        let clients = [p, Policy { redirects: 5, ..p }];
        for c in clients {
            assert!(shared(c).is_ok());
        }
        assert!(tls().is_some_and(|c| c.alpn_protocols.len() == 2));
    }
}
