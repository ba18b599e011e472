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
use crate::http::{AppState, HostPolicy, router};
use crate::runs::RunManager;
use crate::services::Core;
use crate::state_dir::StateDir;

pub use crate::services::{agent_deps, open_store};

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    join: Option<JoinHandle<std::io::Result<()>>>,
    _state_dir: StateDir,
}

impl Server {
    /// `http://ADDR/?token=…` — the one-time launch link.
    pub fn launch_url(&self) -> String {
        format!(
            "{}/?token={}",
            self.base_url(),
            self.state.auth.access_token()
        )
    }

    pub fn base_url(&self) -> String {
        let host = if self.addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else if self.addr.is_ipv6() {
            format!("[{}]", self.addr.ip())
        } else {
            self.addr.ip().to_string()
        };
        format!("http://{host}:{}", self.addr.port())
    }

    /// Stop accepting, finish in-flight requests, stop background work.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.wait(async {}).await
    }

    /// Run until `stop` resolves (e.g. `wait_for_signal`), then shut down: runs are cancelled,
    /// live background tasks stopped, in-flight requests finished, the store closed.
    pub async fn wait(mut self, stop: impl std::future::Future<Output = ()>) -> anyhow::Result<()> {
        stop.await;
        self.state.runs.shutdown();
        self.state.runs.deps().tasks.shutdown().await;
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

/// Lock the state dir, open storage, refuse unsafe binds, bind, and serve in the background.
pub async fn launch(cfg: Config) -> anyhow::Result<Server> {
    let state_dir = StateDir::open_locked(&cfg.state_dir)?;
    let store = open_store(&cfg).await?;
    if !cfg.bind.is_loopback() && store.password_hash().await?.is_none() {
        bail!(
            "refusing to listen on {} without a password: anyone on the network could run commands here. \
             Run `tradewind passwd` first (or bind 127.0.0.1).",
            cfg.bind
        );
    }
    let listener = TcpListener::bind((cfg.bind, cfg.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", cfg.bind, cfg.port))?;
    let addr = listener.local_addr()?;
    let auth = Arc::new(AuthService::new(store.clone(), cfg.access_token.clone())?);
    let events = Arc::new(EventBus::new(store.clone()));
    let hosts = Arc::new(HostPolicy::new(&cfg.allowed_hosts, cfg.bind));
    let cfg = Arc::new(cfg);
    let (deps, ended) = agent_deps(&cfg, &store, &events, true).await?;
    let tasks = deps.tasks.clone();
    let runs = RunManager::new(Arc::new(deps));
    runs.recover().await?;
    let lost = tasks.recover().await.map_err(|e| anyhow::anyhow!(e))?;
    if lost > 0 {
        tracing::warn!(
            lost,
            "background tasks of a server that died were marked lost (their processes were stopped)"
        );
    }
    let waker =
        crate::runs::wake::Waker::new(runs.clone(), crate::runs::wake::WakeRules::default());
    waker.spawn(ended);
    // Deliver what was owed before a restart, and clean old tasks hourly.
    if let Ok(sessions) = store.list_sessions(None, 1000, false).await {
        for s in sessions {
            if !store
                .undelivered_tasks(&s.id)
                .await
                .unwrap_or_default()
                .is_empty()
            {
                waker.poke(&s.id);
            }
        }
    }
    {
        let tasks = tasks.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                let _ = tasks.cleanup().await;
            }
        });
    }
    let state = AppState {
        core: Core::new(runs),
        auth,
        hosts,
        connections: Arc::default(),
    };
    let app = router(state.clone());
    let (tx, rx) = oneshot::channel::<()>();
    crate::accept::raise_fd_limit();
    let join = tokio::spawn(crate::accept::serve(listener, app, async move {
        let _ = rx.await;
    }));
    Ok(Server {
        addr,
        state,
        shutdown: Some(tx),
        join: Some(join),
        _state_dir: state_dir,
    })
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
