//! The composition root: every service is built here, once, and each consumer is handed only
//! what it uses — the tools their `ToolServices` (shared, never copied), the loop its `LoopEnv`,
//! the scheduler a run queue with its after-run and on-idle hooks (an approved plan's
//! implementation, then a goal's next turn), the HTTP layer its `services::Core`. Nothing reaches
//! back for a bag of everything.

use std::sync::Arc;

use crate::agent::LoopEnv;
use crate::config::Config;
use crate::events::EventBus;
use crate::runs::RunManager;
use crate::scheduler::{AfterRun, OnIdle};
use crate::services::initial_providers;
use crate::store::Store;

/// Open the configured database: `DATABASE_URL` (Postgres) or `tradewind.db` in the state dir.
pub async fn open_store(cfg: &Config) -> anyhow::Result<Store> {
    match &cfg.database_url {
        Some(url) => Store::connect(url).await,
        None => Store::open_sqlite(&cfg.state_dir.join("tradewind.db")).await,
    }
    .map(|s| s.with_disabled_plugins(&cfg.disabled_plugins))
}

/// What the loop uses, the run queue, and the channel on which ended background tasks arrive.
async fn loop_env(
    cfg: &Arc<Config>,
    store: &Store,
    events: &Arc<EventBus>,
    interactive: bool,
) -> anyhow::Result<(
    LoopEnv,
    (crate::scheduler::RunQueue, crate::scheduler::Starts),
    tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
)> {
    let providers = initial_providers(cfg, store, cfg.network.policy()).await?;
    let sandbox = crate::sandbox::SandboxHandle::new(cfg.clone());
    let (tasks, ended) = crate::tasks::TaskManager::new(
        store.clone(),
        events.clone(),
        cfg.tasks.clone(),
        &cfg.state_dir,
        sandbox.clone(),
    );
    let net_exempt: Arc<[String]> = crate::config::exempt_origins(
        &cfg.webfetch,
        &cfg.websearch,
        cfg.provider.as_ref().and_then(|p| p.base_url.as_deref()),
    )
    .into();
    let websearch = Arc::new(parking_lot::RwLock::new(
        crate::tools::websearch::stored_settings(store, &cfg.websearch).await,
    ));
    let prompts = Arc::new(crate::pending::Prompts {
        interactive,
        push: if interactive {
            match crate::push::Push::open(&cfg.state_dir, store.clone()) {
                Ok(p) => Some(Arc::new(p)),
                Err(e) => {
                    tracing::warn!(error = %e, "Web Push is off");
                    None
                }
            }
        } else {
            None
        },
        ..Default::default()
    });
    let live: Arc<crate::subagents::Live> = Arc::default();
    let queue = crate::scheduler::RunQueue::new(store.clone());
    let tools = Arc::new(crate::tools::ToolServices {
        cfg: cfg.clone(),
        store: store.clone(),
        events: events.clone(),
        tasks,
        sandbox: sandbox.clone(),
        prompts: prompts.clone(),
        websearch,
        net_exempt,
        goal_lock: Arc::default(),
        live: live.clone(),
        queue: queue.0.clone(),
    });
    let mcp = Arc::new(
        crate::mcp::McpHub::new(
            &cfg.mcp,
            cfg.read_only,
            &cfg.workspace,
            &cfg.state_dir,
            cfg.home.as_deref(),
            sandbox,
        )
        .reserve_names(crate::agent::toolset::names()),
    );
    let deps = LoopEnv::new(
        cfg.clone(),
        store.clone(),
        events.clone(),
        Arc::new(providers),
        prompts,
        mcp,
        live,
        tools,
    );
    if let Some(wc) = crate::workspace_config::read(&cfg.workspace) {
        let key = crate::workspace_config::setting_key(&cfg.workspace);
        let approved = store.get_setting(&key).await.ok().flatten();
        if approved.is_some() && approved == wc.hash {
            deps.mcp.add_workspace_servers(&wc.servers);
        } else if !wc.servers.is_empty() {
            tracing::warn!(
                "{} names MCP servers; they are ignored until you approve the file (Settings, or POST /api/workspace/config/approve)",
                crate::workspace_config::path_of(&cfg.workspace).display()
            );
        }
    }
    // The enabled plugins' MCP servers (none read when no plugin was ever enabled).
    for p in store.enabled_plugins(&cfg.state_dir).await {
        let (defs, bad) = crate::services::plugins::mcp_defs(&p);
        for b in bad {
            tracing::warn!(plugin = %p.name, "{b}");
        }
        for taken in deps.mcp.add_plugin_servers(&p.name, &p.root, &defs) {
            tracing::warn!(plugin = %p.name, server = %taken, "an MCP server of this name exists: the plugin's is left out");
        }
    }
    // A headless run without --allow-external could not call the tools: nothing starts.
    if deps.mcp.allowed && (interactive || cfg.ceiling.external || cfg.yolo) {
        // A headless run needs the tools before it starts; a server shows them as they come.
        if interactive {
            let hub = deps.mcp.clone();
            tokio::spawn(async move { hub.connect_enabled().await });
        } else {
            deps.mcp.connect_enabled().await;
        }
    }
    Ok((deps, queue, ended))
}

/// The run scheduler with everything under it, and the channel on which ended background tasks
/// arrive (for the wake-ups).
pub async fn assemble(
    cfg: &Arc<Config>,
    store: &Store,
    events: &Arc<EventBus>,
    interactive: bool,
) -> anyhow::Result<(
    Arc<RunManager>,
    Arc<LoopEnv>,
    tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
)> {
    let (deps, queue, ended) = loop_env(cfg, store, events, interactive).await?;
    let hooks: Vec<Arc<dyn AfterRun>> = vec![
        Arc::new(crate::plan::implement::Implementation {
            store: store.clone(),
            events: events.clone(),
            queue: queue.0.clone(),
        }),
        Arc::new(crate::goals::Continuation {
            store: store.clone(),
            events: events.clone(),
            lock: deps.tools.goal_lock.clone(),
            blocked_repeats: cfg.goal.blocked_repeats(),
            queue: queue.0.clone(),
        }),
        Arc::new(crate::comments::ReviewAnswers {
            store: store.clone(),
            events: events.clone(),
            awaiting: deps.awaiting.clone(),
        }),
        Arc::new(crate::hooks::StopTurns {
            store: store.clone(),
            events: events.clone(),
            queue: queue.0.clone(),
            max: cfg.hooks.max_stop_turns,
            streak: parking_lot::Mutex::default(),
        }),
    ];
    let on_idle: Vec<Arc<dyn OnIdle>> = vec![Arc::new(crate::goals::GoalTurns {
        store: store.clone(),
    })];
    let env = Arc::new(deps);
    Ok((
        RunManager::new(env.clone(), queue, hooks, on_idle),
        env,
        ended,
    ))
}
