//! Starting and stopping a server: used by `tradewind serve` and by tests (which bind port 0
//! and shut down through the returned handle — no sleeps, a health probe at most).

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, bail};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::auth::AuthService;
use crate::config::Config;
use crate::events::EventBus;
use crate::http::{AppState, Face, HostPolicy, router};
use crate::services::Core;
use crate::state_dir::StateDir;

pub use tradewind_core::app::open_store;

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    join: Option<JoinHandle<std::io::Result<()>>>,
    /// The local socket's accept loop (see [`crate::accept::serve_local`]).
    local: Option<JoinHandle<()>>,
    mdns: Option<mdns_sd::ServiceDaemon>,
    _state_dir: StateDir,
}

/// What `tradewind link` reads to build a link for the running server (`server.json` in the
/// state dir, mode 0600, removed at shutdown).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct RunningInfo {
    pub pid: u32,
    /// This machine's URL (loopback for a loopback bind).
    pub local_url: String,
    /// The URL other devices use.
    pub url: String,
    pub ca_fingerprint: Option<String>,
    /// No longer written: the command line reaches the running server through the state
    /// directory's socket ([`LOCAL_SOCKET`]), so no file a command could ever see holds an
    /// all-scope credential. Read only to tell an older server apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// The running server's local socket in the state directory (see
/// [`crate::accept::serve_local`]).
pub const LOCAL_SOCKET: &str = "server.sock";

/// Bind the state directory's socket (0600), in place of a stale one (the state directory's
/// lock is held, so no other server uses it). `None`, with a warning, where it cannot be made
/// (a path longer than a socket address holds).
fn bind_local(state_dir: &std::path::Path) -> Option<tokio::net::UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    let path = state_dir.join(LOCAL_SOCKET);
    let _ = std::fs::remove_file(&path);
    match tokio::net::UnixListener::bind(&path) {
        Ok(l) => {
            if let Err(e) = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            {
                tracing::warn!(error = %e, "cannot make the local socket private; not serving it");
                let _ = std::fs::remove_file(&path);
                return None;
            }
            Some(l)
        }
        Err(e) => {
            tracing::warn!(error = %e, path = %path.display(), "cannot make the local socket: `tradewind run` cannot reach this server");
            None
        }
    }
}

impl Server {
    /// `http(s)://ADDR/?token=CODE` — a one-time sign-in link (15 minutes) for this machine.
    pub fn launch_url(&self) -> anyhow::Result<String> {
        Ok(format!(
            "{}/?token={}",
            self.base_url(),
            self.state.auth.mint_link()?
        ))
    }

    /// A one-time sign-in link for another device (publicUrl, host name or LAN address).
    pub fn device_url(&self) -> anyhow::Result<String> {
        Ok(format!(
            "{}/?token={}",
            self.state.face.url,
            self.state.auth.mint_link()?
        ))
    }

    /// The URL on this machine: loopback when bound to all addresses.
    pub fn base_url(&self) -> String {
        let host = if self.addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else if self.addr.is_ipv6() {
            format!("[{}]", self.addr.ip())
        } else {
            self.addr.ip().to_string()
        };
        let scheme = if self.state.face.secure {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{host}:{}", self.addr.port())
    }

    /// Stop accepting, finish in-flight requests, stop background work.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.wait(async {}).await
    }

    /// Run until `stop` resolves (e.g. `wait_for_signal`), then shut down: runs are cancelled,
    /// live background tasks stopped, in-flight requests finished, the store closed.
    pub async fn wait(mut self, stop: impl std::future::Future<Output = ()>) -> anyhow::Result<()> {
        stop.await;
        if let Some(d) = self.mdns.take() {
            let _ = d.shutdown();
        }
        let _ = std::fs::remove_file(self.state.cfg.state_dir.join(RUNNING_FILE));
        if let Some(l) = self.local.take() {
            l.abort();
            let _ = std::fs::remove_file(self.state.cfg.state_dir.join(LOCAL_SOCKET));
        }
        self.state.runs.shutdown();
        if !self
            .state
            .runs
            .stopped(std::time::Duration::from_secs(5))
            .await
        {
            tracing::warn!(
                "some runs did not record their end within 5 s; they will read interrupted at the next start"
            );
        }
        self.state.core.tasks().shutdown().await;
        // Long-lived responses (SSE streams, long polls) end so the server can stop.
        self.state.connections.closing.cancel();
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(j) = self.join.take() {
            j.await.context("server task panicked")??;
        }
        self.state.store.close().await;
        Ok(())
    }
}

/// Hourly: old background tasks go; daily (from an hour after the start): undo snapshots
/// older than the retention go.
fn spawn_upkeep(tasks: Arc<crate::tasks::TaskManager>, core: Core, keep_days: u64) {
    tokio::spawn(async move {
        for hour in 0u64.. {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            let _ = tasks.cleanup().await;
            if hour % 24 == 0 {
                match core
                    .gc_snapshots(keep_days, std::time::Duration::from_secs(3600))
                    .await
                {
                    Ok(r) => tracing::info!(
                        expired = r.expired,
                        stores = r.stores,
                        bytes = r.bytes,
                        removed = r.removed,
                        "undo snapshots collected"
                    ),
                    Err(e) => tracing::warn!("undo snapshot gc failed: {e}"),
                }
            }
        }
    });
}

/// Lock the state dir, open storage, refuse unsafe binds, bind, and serve in the background.
/// The wake-ups: tasks that end wake their session; what was owed before a restart is
/// delivered now (one query, however many sessions).
async fn start_wakeups(
    runs: &Arc<tradewind_core::runs::RunManager>,
    (store, events): (
        &tradewind_core::store::Store,
        &Arc<tradewind_core::events::EventBus>,
    ),
    ended: tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
) {
    let waker = crate::runs::wake::Waker::new(
        runs.clone(),
        (store.clone(), events.clone()),
        crate::runs::wake::WakeRules::default(),
    );
    waker.spawn(ended);
    match store.sessions_owed_wakeups().await {
        Ok(sessions) => {
            for s in sessions {
                waker.poke(&s);
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot read the wake-ups owed"),
    }
}

pub async fn launch(cfg: Config) -> anyhow::Result<Server> {
    tradewind_core::sandbox::check_state_dir(&cfg)?;
    let state_dir = StateDir::open_locked(&cfg.state_dir)?;
    let keys = Arc::new(tradewind_core::keystore::KeyStore::open(&cfg.state_dir)?);
    let store = open_store(&cfg).await?.with_keys(keys.clone());
    // Keys saved in clear by an older version are sealed before anything reads them.
    match store.seal_clear_secrets().await {
        Ok(0) => {}
        Ok(n) => tracing::info!(n, "saved keys sealed with the state directory's key"),
        Err(e) => tracing::warn!(error = %e, "cannot seal saved keys"),
    }
    if !cfg.bind.is_loopback() && store.password_hash().await?.is_none() {
        bail!(
            "refusing to listen on {} without a password: anyone on the network could run commands here. \
             Run `tradewind passwd` first (or bind 127.0.0.1).",
            cfg.bind
        );
    }
    let tls = tls_for(&cfg)?;
    let listener = TcpListener::bind((cfg.bind, cfg.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", cfg.bind, cfg.port))?;
    let addr = listener.local_addr()?;
    let auth = Arc::new(AuthService::new(
        store.clone(),
        cfg.access_token.clone(),
        &cfg.state_dir,
        cfg.auth,
        keys.clone(),
    )?);
    let events = Arc::new(EventBus::new(store.clone()));
    let hosts = Arc::new(HostPolicy::new(&host_names(&cfg), cfg.bind));
    let face = Arc::new(Face {
        secure: tls.is_some(),
        tls_mode: tls.as_ref().map_or("off", |t| t.mode),
        ca: tls.as_ref().and_then(|t| t.ca.clone()),
        url: device_base_url(&cfg, addr, tls.is_some()),
    });
    let cfg = Arc::new(cfg);
    let (runs, env, ended) =
        tradewind_core::app::assemble(&cfg, &store, &events, !cfg.headless).await?;
    let tasks = env.tools.tasks.clone();
    runs.recover().await?;
    let lost = tasks.recover().await.map_err(|e| anyhow::anyhow!(e))?;
    if lost > 0 {
        tracing::warn!(
            lost,
            "background tasks of a server that died were marked lost (their processes were stopped)"
        );
    }
    start_wakeups(&runs, (&store, &events), ended).await;
    let core = Core::new(runs, env);
    spawn_upkeep(tasks.clone(), core.clone(), cfg.undo_keep_days);
    let state = AppState {
        core,
        auth,
        hosts,
        connections: Arc::default(),
        face: face.clone(),
    };
    let app = router(state.clone());
    let tls_side = tls.map(|t| crate::accept::TlsSide {
        acceptor: t.acceptor,
        plain: crate::http::plain_side_router(state.clone()),
    });
    let (tx, rx) = oneshot::channel::<()>();
    crate::accept::raise_fd_limit();
    let local = bind_local(&cfg.state_dir).map(|l| {
        let token: Arc<str> = state.auth.access_token().into();
        tokio::spawn(crate::accept::serve_local(
            l,
            app.clone(),
            token,
            std::future::pending(),
        ))
    });
    let join = tokio::spawn(crate::accept::serve(listener, app, tls_side, async move {
        let _ = rx.await;
    }));
    // Serving: now the sandbox is probed (a command that comes first waits for it).
    state.core.sandbox().probe_soon();
    let mdns = if state.cfg.mdns {
        match announce(&face, addr.port()) {
            Ok(d) => Some(d),
            Err(e) => {
                tracing::warn!(error = %e, "cannot announce on mDNS");
                None
            }
        }
    } else {
        None
    };
    let server = Server {
        addr,
        state,
        shutdown: Some(tx),
        join: Some(join),
        local,
        mdns,
        _state_dir: state_dir,
    };
    let info = RunningInfo {
        pid: std::process::id(),
        local_url: server.base_url(),
        url: face.url.clone(),
        ca_fingerprint: face.ca.as_ref().map(|c| c.fingerprint.clone()),
        token: None,
    };
    write_running_info(&server.state.cfg.state_dir, &info)?;
    Ok(server)
}

/// The TLS side for `cfg`; a plain-HTTP network bind (`--no-tls`) is said loudly.
fn tls_for(cfg: &Config) -> anyhow::Result<Option<crate::tls::Tls>> {
    let tls = crate::tls::setup(cfg)?;
    if tls.is_none() && !cfg.bind.is_loopback() {
        tracing::warn!(
            bind = %cfg.bind,
            "serving plain HTTP on a network address (--no-tls): the password and the sign-in cookie cross the network in clear text, and browsers withhold notifications and the installable app"
        );
        eprintln!(
            "WARNING: --no-tls on {}: passwords and cookies cross the network unencrypted; anyone on the network path can read them and take over this server.",
            cfg.bind
        );
    }
    Ok(tls)
}

/// The host names the server answers to besides loopback and IP literals: the configured ones,
/// publicUrl's host, and on a network bind this machine's name (and `NAME.local`).
fn host_names(cfg: &Config) -> Vec<String> {
    let mut names = cfg.allowed_hosts.clone();
    names.extend(cfg.public_host());
    if !cfg.bind.is_loopback()
        && let Some(h) = crate::tls::host_name()
    {
        names.push(format!("{h}.local"));
        names.push(h);
    }
    names
}

pub const RUNNING_FILE: &str = "server.json";

fn write_running_info(dir: &std::path::Path, info: &RunningInfo) -> anyhow::Result<()> {
    // Not synced to disk: it describes this process only (a crash leaves a file that names a
    // dead pid, which readers check).
    crate::tls::write_private_unsynced(&dir.join(RUNNING_FILE), &serde_json::to_vec_pretty(info)?)
}

/// The base URL other devices open: `publicUrl`; else, on a network bind, the host name (or
/// the bound address, or the first LAN address); on loopback, this machine's loopback URL.
pub fn device_base_url(cfg: &crate::config::Config, addr: SocketAddr, secure: bool) -> String {
    if let Some(u) = &cfg.public_url {
        return u.clone();
    }
    let scheme = if secure { "https" } else { "http" };
    let ip_host = |ip: std::net::IpAddr| match ip {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    };
    let host = if cfg.bind.is_loopback() || !cfg.bind.is_unspecified() {
        ip_host(cfg.bind)
    } else if let Some(h) = crate::tls::host_name() {
        h
    } else {
        let ips = crate::tls::local_ips();
        let pick = ips
            .iter()
            .find(|i| i.is_ipv4() && !i.is_loopback())
            .or_else(|| ips.iter().find(|i| !i.is_loopback()))
            .copied()
            .unwrap_or(std::net::IpAddr::from([127, 0, 0, 1]));
        ip_host(pick)
    };
    format!("{scheme}://{host}:{}", addr.port())
}

/// The mDNS record announcing this server: `_tradewind._tcp`, with the CA fingerprint (`fp`)
/// and the URL in TXT, so a device can find the server and check the certificate it is about
/// to trust.
pub fn mdns_record(face: &Face, port: u16) -> anyhow::Result<mdns_sd::ServiceInfo> {
    let host = crate::tls::host_name().unwrap_or_else(|| "tradewind".into());
    let ips: Vec<std::net::IpAddr> = crate::tls::local_ips()
        .into_iter()
        .filter(|i| !i.is_loopback())
        .collect();
    let mut props = vec![
        ("url".to_string(), face.url.clone()),
        ("tls".to_string(), face.tls_mode.to_string()),
        ("v".to_string(), env!("CARGO_PKG_VERSION").to_string()),
    ];
    if let Some(ca) = &face.ca {
        props.push(("fp".to_string(), ca.fingerprint.clone()));
    }
    let info = mdns_sd::ServiceInfo::new(
        "_tradewind._tcp.local.",
        &format!("Tradewind on {host}"),
        &format!("{host}.local."),
        ips.as_slice(),
        port,
        props.as_slice(),
    )?;
    Ok(info)
}

fn announce(face: &Face, port: u16) -> anyhow::Result<mdns_sd::ServiceDaemon> {
    let daemon = mdns_sd::ServiceDaemon::new()?;
    daemon.register(mdns_record(face, port)?)?;
    Ok(daemon)
}

/// Resolves on SIGINT or SIGTERM.
pub async fn wait_for_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
