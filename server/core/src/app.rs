//! The composition root: the services are built here, once, each given only the handles it
//! uses, and wired to each other — the tools' services, the agent loop's dependencies, the
//! scheduler with its after-run hooks (an approved plan's implementation, then a goal's next
//! turn), and the scheduler handed back to what queues runs through it.

use std::sync::Arc;

use crate::agent::AgentDeps;
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
}

/// Everything the agent loop needs, and the channel on which ended background tasks arrive.
async fn agent_deps(
    cfg: &Arc<Config>,
    store: &Store,
    events: &Arc<EventBus>,
    interactive: bool,
) -> anyhow::Result<(
    AgentDeps,
    (crate::scheduler::RunQueue, crate::scheduler::Starts),
    tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
)> {
    let net = cfg.network.policy();
    let providers = initial_providers(cfg, store, net).await?;
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
    let questions: Arc<crate::pending::Pending<crate::pending::Questions>> = Arc::default();
    let plans: Arc<crate::pending::Pending<crate::pending::Plans>> = Arc::default();
    let goal_lock: Arc<tokio::sync::Mutex<()>> = Arc::default();
    let lineages: Arc<crate::subagents::Lineages> = Arc::default();
    let queue = crate::scheduler::RunQueue::new(store.clone());
    let deps = AgentDeps {
        cfg: cfg.clone(),
        store: store.clone(),
        events: events.clone(),
        provider: Arc::new(providers),
        approvals: Arc::default(),
        questions: questions.clone(),
        plans: plans.clone(),
        paths: crate::policy::paths::PathPolicy::new(
            &cfg.workspace,
            &cfg.extra_roots,
            &cfg.state_dir,
        ),
        tasks: tasks.clone(),
        history: Arc::default(),
        net,
        interactive,
        offered: parking_lot::Mutex::default(),
        mcp: Arc::new(
            crate::mcp::McpHub::new(
                &cfg.mcp,
                cfg.read_only,
                &cfg.workspace,
                &cfg.state_dir,
                cfg.home.as_deref(),
                sandbox.clone(),
            )
            .reserve_names(crate::agent::toolset::names()),
        ),
        sandbox: sandbox.clone(),
        grants_epoch: std::sync::atomic::AtomicU64::new(0),
        files: Arc::default(),
        net_exempt: net_exempt.to_vec(),
        websearch: websearch.clone(),
        snapshots: Arc::new(crate::undo::Snapshots::new(&cfg.state_dir, store.clone())),
        attachments: Arc::new(crate::attachments::Attachments::new(&cfg.state_dir)),
        goal_lock: goal_lock.clone(),
        queue: queue.0.clone(),
        lineages: lineages.clone(),
        modes: Arc::default(),
        tools: Arc::new(crate::tools::ToolServices {
            cfg: cfg.clone(),
            store: store.clone(),
            events: events.clone(),
            tasks: tasks.clone(),
            sandbox: sandbox.clone(),
            questions: questions.clone(),
            plans: plans.clone(),
            websearch,
            net_exempt,
            goal_lock,
            lineages,
            queue: queue.0.clone(),
            interactive,
        }),
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
    };
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
    tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
)> {
    let (deps, queue, ended) = agent_deps(cfg, store, events, interactive).await?;
    let hooks: Vec<Arc<dyn AfterRun>> = vec![
        Arc::new(crate::plan::implement::Implementation {
            store: store.clone(),
            events: events.clone(),
            queue: queue.0.clone(),
        }),
        Arc::new(crate::goals::Continuation {
            store: store.clone(),
            events: events.clone(),
            lock: deps.goal_lock.clone(),
            blocked_repeats: cfg.goal.blocked_repeats(),
            queue: queue.0.clone(),
        }),
    ];
    let on_idle: Vec<Arc<dyn OnIdle>> = vec![Arc::new(crate::goals::GoalTurns {
        store: store.clone(),
    })];
    Ok((
        RunManager::new(Arc::new(deps), queue, hooks, on_idle),
        ended,
    ))
}
