//! The turn loop. A run: record the input, then repeat — assemble context, stream the model,
//! store its message, pass each tool call through the gate, run what is allowed — until a
//! text-only answer, the iteration limit, an error, or cancellation. Every step is a durable
//! event. The `!command` typed by a user builds the same proposal and passes the same gate.

pub(crate) mod calls;
pub mod coalesce;
pub mod context;
pub mod history;
pub mod mentions;
pub mod toolset;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::events::DeltaKind;
use crate::events::EventBus;
use crate::pending::{Approvals, Pending, Plans, Questions};
use crate::policy::paths::PathPolicy;
use crate::policy::{self};
use crate::protocol::{Agent, Effect, EventPayload, Mode, RunStatus, RunTrigger, Usage, WireError};
use crate::provider::{self, ChatRequest, NetPolicy, ProviderError, ProviderEvent, ToolCallReq};
use crate::store::{NewMessage, SessionRow, Store};
use crate::tools::{self};
use crate::util::new_id;
pub(crate) use calls::changes_files;
use calls::{handle_call, run_calls};
use coalesce::Coalescer;
use history::StoredParts;

/// Independent reads run in batches of up to this many.
pub const READ_BATCH: usize = 4;

/// What the loop needs; shared by the server and headless runs.
pub struct AgentDeps {
    pub cfg: Arc<Config>,
    pub store: Store,
    pub events: Arc<EventBus>,
    /// The providers configured side by side (Settings changes them at run time).
    pub provider: Arc<crate::provider::registry::Registry>,
    pub approvals: Arc<Pending<Approvals>>,
    pub questions: Arc<Pending<Questions>>,
    pub plans: Arc<Pending<Plans>>,
    pub paths: PathPolicy,
    pub tasks: Arc<crate::tasks::TaskManager>,
    /// Parsed session histories kept between runs.
    pub history: Arc<history::HistoryCache>,
    pub net: NetPolicy,
    /// A UI can answer approvals (server) — headless runs never ask.
    pub interactive: bool,
    /// The tool lists offered so far, per agent and flag set (built once each).
    pub offered: parking_lot::Mutex<Vec<(OfferKey, Arc<[provider::ToolSpec]>)>>,
    /// The process sandbox every command runs in (`None`: unavailable or turned off).
    pub sandbox: Option<Arc<crate::sandbox::Sandbox>>,
    /// The MCP servers and their connections.
    pub mcp: Arc<crate::mcp::McpHub>,
    pub sandbox_info: crate::protocol::SandboxInfo,
    /// Bumped by every revoke, so runs in flight re-read their grants.
    pub grants_epoch: std::sync::atomic::AtomicU64,
    /// Each workspace's file list, for `@` mentions.
    pub files: Arc<crate::files::FileLists>,
    /// Origins the user configured (provider, search endpoint, `webfetch.allowHosts`): network
    /// tools may reach them even on a private address.
    pub net_exempt: Vec<String>,
    /// The web search provider (changed at run time through Settings).
    pub websearch: Arc<parking_lot::RwLock<crate::config::WebSearchSettings>>,
    /// Workspace snapshots around runs (undo).
    pub snapshots: Arc<crate::undo::Snapshots>,
    /// Images sent with prompts.
    pub attachments: Arc<crate::attachments::Attachments>,
    /// One change of a goal at a time (a report, a finished turn, the user's edit).
    pub goal_lock: Arc<tokio::sync::Mutex<()>>,
    /// The scheduler these runs belong to (subagents queue their runs on it); set once the
    /// scheduler exists.
    pub scheduler: crate::scheduler::SchedulerHandle,
    /// The sessions above each subagent `task` started (parent first): its runs start without
    /// reading them back.
    pub lineages: Arc<crate::subagents::Lineages>,
    /// What tools may use of the services.
    pub tools: Arc<crate::tools::ToolServices>,
    /// Web Push to closed apps (`None`: headless, or the key could not be read).
    pub push: Option<Arc<crate::push::Push>>,
}

/// What the offered tool list depends on: agent, interactive, ceiling, read-only, yolo.
pub type OfferKey = (Agent, bool, crate::config::Ceiling, bool, bool);

pub struct RunSpec {
    pub run_id: String,
    pub session: SessionRow,
    pub trigger: RunTrigger,
    pub text: String,
    /// Images sent with the prompt.
    pub images: Vec<crate::protocol::ImageRef>,
    pub cancel: CancellationToken,
    /// Cancelled when the server stops (the parent of `cancel`): a run it stops ends
    /// `interrupted` with reason `shutdown`, not `cancelled`.
    pub server_stop: CancellationToken,
    /// The run's place in the global cap (given back while it only waits).
    pub slot: Arc<crate::slot::Slot>,
}

/// How a run ended, and whether the session's goal was active when it started (only then is
/// the run one of the goal's turns).
pub struct Finished {
    pub end: crate::scheduler::RunEnd,
    pub goal_active: bool,
}

#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub error: Option<WireError>,
    pub usage: Usage,
}

pub(crate) struct Turn<'a> {
    /// The session's grants, cached for this run.
    /// The session's grants, read once per run and again after any revoke (`grants_epoch`).
    grants: parking_lot::Mutex<Option<(u64, HashSet<String>)>>,
    pub(crate) deps: &'a AgentDeps,
    pub(crate) run: &'a RunSpec,
    pub(crate) agent: Agent,
    pub(crate) mode: Mode,
    pub(crate) paths: PathPolicy,
    usage: Usage,
    /// The session's history as the model sees it: loaded once per run, then kept in step with
    /// what this run stores (so no model call re-reads it).
    history: parking_lot::Mutex<history::History>,
    /// What of MCP the latest model call offered: a call runs against the listing the model
    /// saw, never a newer one.
    mcp_offer: parking_lot::Mutex<McpOffer>,
    /// The model this run calls: its window and price.
    model: context::ModelMeta,
    /// A smaller window learnt from a prompt the provider refused as too long.
    window_cap: Option<u64>,
    /// Characters per token, measured on the provider's own counts (4 until then).
    chars_per_token: f64,
    /// The goal tools are offered (the session's goal is active; not the plan agent).
    pub(crate) goal_tools: bool,
    /// A call that must not ask is running (one `execute` makes, a file an `@` mention
    /// attaches): an approval it would need is a denial, which this advice follows.
    pub(crate) never_ask: parking_lot::Mutex<Option<&'static str>>,
    /// For a subagent: the sessions above it, its parent first and the root last (empty for a
    /// session the user started).
    pub(crate) lineage: Vec<String>,
    /// The run's files are snapshotted for undo (a build run of a session the user started).
    undo: bool,
    /// Set once the snapshot from before the run's first change is stored.
    before: tokio::sync::OnceCell<()>,
}

#[derive(Default)]
struct McpOffer {
    tools: Vec<Arc<crate::mcp::McpTool>>,
    /// `mcp_connect`, `mcp_resource` and `mcp_prompt`.
    hub: bool,
}

fn werr(code: &str, message: impl Into<String>) -> WireError {
    WireError {
        code: code.into(),
        message: message.into(),
    }
}

impl Turn<'_> {
    /// A call of a hub tool (`mcp_connect` …), if it was offered in the latest model call.
    pub(crate) fn mcp_hub_call(
        &self,
        name: &str,
        input: &serde_json::Value,
    ) -> Option<Result<crate::mcp::HubCall, String>> {
        if !self.mcp_offer.lock().hub {
            return None;
        }
        crate::mcp::prepare_hub(name, input)
    }

    /// The MCP tool of that name offered in the latest model call.
    pub(crate) fn mcp_tool(&self, name: &str) -> Option<Arc<crate::mcp::McpTool>> {
        self.mcp_offer
            .lock()
            .tools
            .iter()
            .find(|m| m.name == name)
            .cloned()
    }

    /// Queue an event: stored (in order, group-committed) before it is sent; the loop does not
    /// wait for the disk. `durable` waits for everything queued so far.
    pub(crate) fn emit(&self, p: EventPayload) {
        self.deps
            .events
            .post(&self.run.session.id, Some(&self.run.run_id), &p);
    }

    /// Where this run's prompts to the user wait.
    pub(crate) fn waiter(&self) -> crate::pending::Waiter<'_> {
        crate::pending::Waiter {
            store: &self.deps.store,
            events: &self.deps.events,
            session: &self.run.session.id,
            run: &self.run.run_id,
            timeout: Duration::from_secs(self.deps.cfg.agent.approval_timeout_secs.max(1)),
            cancel: &self.run.cancel,
            slot: Some(&self.run.slot),
            ancestors: &self.lineage,
            push: self.deps.push.as_ref(),
        }
    }

    /// The session whose grants this run uses: a subagent has its root session's, never more.
    pub(crate) fn grant_session(&self) -> &str {
        self.lineage.last().unwrap_or(&self.run.session.id)
    }

    /// A built-in tool this run is not offered: `exit_plan` in a subagent (it answers in
    /// text), the subagent tools at the deepest level.
    pub(crate) fn hides(&self, name: &str) -> bool {
        let depth = self.depth();
        toolset::descriptor(name).is_some_and(|d| {
            (depth > 0 && !d.in_subagents())
                || (depth >= crate::subagents::MAX_DEPTH && d.subagents())
        })
    }

    /// How deep below a session the user started this one is (0: started by the user).
    pub(crate) fn depth(&self) -> usize {
        self.lineage.len()
    }

    /// Wait until every event and message queued by this run is stored: before an effect runs,
    /// its proposal and the gate's decision are on disk.
    pub(crate) async fn durable(&self) {
        if let Err(e) = self.deps.events.flush(&self.run.session.id).await {
            tracing::error!(error = %e, "cannot store events");
        }
    }

    fn delta(&self, kind: DeltaKind, message_id: &str, text: &str) {
        self.deps.events.post_delta(
            &self.run.session.id,
            Some(&self.run.run_id),
            kind,
            message_id,
            text,
        );
    }

    /// Post whatever the coalescers hold (reasoning first, as the model sent it).
    fn flush_deltas(&self, message_id: &str, tc: &mut Coalescer, rc: &mut Coalescer) {
        if !rc.is_empty() {
            self.delta(DeltaKind::Reasoning, message_id, &rc.take());
        }
        if !tc.is_empty() {
            self.delta(DeltaKind::Text, message_id, &tc.take());
        }
    }

    fn store_message(&self, role: &str, parts: StoredParts) {
        let m = NewMessage {
            id: new_id(),
            run_id: Some(self.run.run_id.clone()),
            role: role.to_string(),
            parts: serde_json::to_string(&parts).unwrap_or_default(),
        };
        self.history.lock().push(&m.id, role, parts);
        self.deps.events.post_message(&self.run.session.id, m);
    }
}

impl Turn<'_> {
    /// Open a model call, retrying what is worth it; each wait is reported as it begins
    /// (`provider_retry`), so clients count it down while it happens.
    pub(crate) async fn open_stream(
        &self,
        req: &ChatRequest,
    ) -> Result<provider::EventStream, ProviderError> {
        let provider = self.model.provider_client.clone();
        if self.depth() > 0 {
            crate::probe::moment(crate::probe::MarkKind::ChildRequest);
        }
        let mut req = req.clone();
        req.model = Some(Arc::from(self.model.model.as_str()));
        provider::open_with_retry(&provider, &req, &self.deps.net, &self.run.cancel, |r| {
            self.emit(EventPayload::ProviderRetry {
                attempt: r.attempt,
                max_attempts: r.max_attempts,
                delay_ms: r.delay.as_millis() as u64,
                reason: r.reason.clone(),
            });
        })
        .await
    }

    /// Before a call that can change the workspace's files runs: the snapshot that undoes this
    /// run is stored (taken once per run, by its first such call; later calls find it done).
    pub(crate) async fn protect_files(&self) {
        if !self.undo {
            return;
        }
        self.before
            .get_or_init(|| async {
                let ws = std::path::Path::new(&self.run.session.workspace);
                // The previous run's closing snapshot first, so snapshots are recorded in order.
                self.deps.snapshots.settled(ws).await;
                take_snapshot(self.deps, self.run, "before").await;
            })
            .await;
    }

    /// Whether the session's grants, as last read by the gate, hold `key`.
    pub(crate) fn grants_contain(&self, key: &str) -> bool {
        self.grants
            .lock()
            .as_ref()
            .is_some_and(|(_, g)| g.contains(key))
    }
}

impl crate::tools::ToolHost for Turn<'_> {
    fn services(&self) -> &crate::tools::ToolServices {
        &self.deps.tools
    }
    fn session(&self) -> &SessionRow {
        &self.run.session
    }
    fn run_id(&self) -> &str {
        &self.run.run_id
    }
    fn agent(&self) -> Agent {
        self.agent
    }
    fn mode(&self) -> Mode {
        self.mode
    }
    fn lineage(&self) -> &[String] {
        &self.lineage
    }
    fn slot(&self) -> &crate::slot::Slot {
        &self.run.slot
    }
    fn waiter(&self) -> crate::pending::Waiter<'_> {
        Turn::waiter(self)
    }
    fn grants_contain(&self, key: &str) -> bool {
        Turn::grants_contain(self, key)
    }
    fn gate_net<'a>(
        &'a self,
        ctx: &'a tools::ToolCtx<'a>,
        input: serde_json::Value,
        net: &'a crate::policy::NetUse,
        once: HashSet<String>,
    ) -> futures::future::BoxFuture<'a, Result<(), tools::ToolOutput>> {
        Box::pin(async move {
            let checked = calls::Gate {
                paths: &[],
                command: None,
                net: Some(net),
                mcp: None,
            };
            calls::gate(self, ctx.call, &input, ctx.effect, checked, once).await
        })
    }
    fn confirm<'a>(
        &'a self,
        ctx: &'a tools::ToolCtx<'a>,
        reason: &'a str,
        key: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<(), tools::ToolOutput>> {
        Box::pin(calls::confirm(self, ctx, reason, key))
    }
    fn nested<'a>(
        &'a self,
        call: &'a ToolCallReq,
        advice: &'static str,
    ) -> futures::future::BoxFuture<'a, tools::ToolOutput> {
        Box::pin(async move {
            // What the model may only call itself (it waits for the user, nests, or is a goal
            // tool) is refused inside a snippet.
            if !toolset::TOOLS
                .iter()
                .any(|d| d.name() == call.name && d.nested())
            {
                return tools::ToolOutput::err(
                    "refused",
                    format!("`{}` cannot be called from execute", call.name),
                );
            }
            calls::handle_nested(self, call, advice).await
        })
    }
}

/// Execute one run to its end. Never panics on model or user input.
pub async fn run(deps: &AgentDeps, spec: &RunSpec) -> Finished {
    let started = Instant::now();
    let agent = spec.session.agent;
    let mode = spec.session.mode;
    let paths = deps
        .paths
        .with_workspace(std::path::Path::new(&spec.session.workspace));
    let (history, complete) = load_history(deps, spec).await;
    let mut model = context::ModelMeta::of(deps, &spec.session);
    model.learn_window().await;
    let lineage = crate::subagents::lineage_of(&deps.lineages, &deps.store, &spec.session).await;
    // A subagent works in its root's workspace, whose own run took the snapshot (its undo
    // covers what the subagent changed).
    let snapshot = lineage.is_empty() && snapshots_taken(deps, spec);
    // A session with no events yet has no goal (setting one records `goal_updated`): a new
    // subagent's first run skips the read.
    let goal_active =
        spec.session.last_seq > 0 && crate::goals::active(&deps.store, &spec.session.id).await;
    let mut t = Turn {
        grants: parking_lot::Mutex::new(None),
        deps,
        run: spec,
        agent,
        mode,
        paths,
        usage: Usage::default(),
        history: parking_lot::Mutex::new(history),
        mcp_offer: parking_lot::Mutex::default(),
        model,
        window_cap: None,
        chars_per_token: 4.0,
        goal_tools: agent != Agent::Plan && goal_active,
        never_ask: parking_lot::Mutex::new(None),
        lineage,
        undo: snapshot,
        before: tokio::sync::OnceCell::new(),
    };
    t.emit(EventPayload::RunStarted {
        run_id: spec.run_id.clone(),
        agent,
        mode,
        trigger: spec.trigger,
    });
    if t.depth() > 0 {
        crate::probe::moment(crate::probe::MarkKind::Step("run begun"));
    }
    let outcome = match spec.trigger {
        RunTrigger::Command => user_command(&mut t).await,
        RunTrigger::Compact => compact_command(&mut t).await,
        _ => {
            let message_id = new_id();
            t.emit(EventPayload::UserMessage {
                message_id,
                text: spec.text.clone(),
                origin: Some(spec.trigger),
                images: spec.images.clone(),
            });
            // The files the user's own prompt points at (`@path`), read before the first
            // model call: the model sees them with the prompt.
            let attached = if spec.trigger == RunTrigger::Prompt && spec.text.contains('@') {
                mentions::attach(&t, &spec.text).await
            } else {
                String::new()
            };
            t.store_message(
                "user",
                StoredParts {
                    text: format!("{}{attached}", spec.text),
                    images: spec.images.clone(),
                    ..Default::default()
                },
            );
            loop_turns(&mut t).await
        }
    };
    let (outcome, reason) =
        if spec.server_stop.is_cancelled() && outcome.status != RunStatus::Completed {
            (
                RunOutcome {
                    status: RunStatus::Interrupted,
                    error: Some(werr(
                        "interrupted",
                        "the server was stopped during this run",
                    )),
                    usage: t.usage,
                },
                Some(crate::protocol::StopReason::Shutdown),
            )
        } else if spec.cancel.is_cancelled() && outcome.status != RunStatus::Completed {
            (
                RunOutcome {
                    status: RunStatus::Cancelled,
                    error: None,
                    usage: t.usage,
                },
                Some(crate::protocol::StopReason::User),
            )
        } else {
            (outcome, None)
        };
    let protected = t.before.initialized();
    let history = t.history.into_inner();
    if complete {
        deps.history.put(&spec.session.id, history);
    }
    // What the run left, recorded after its end is sent (a revert waits for it).
    if protected {
        snapshot_after(deps, spec);
    }
    // The final event is awaited: once `run` returns, the whole run is stored. Its run row is
    // made final in the same transaction (see `store::events`), so whoever hears `run_finished`
    // and reads the run finds it ended.
    let end = crate::scheduler::RunEnd {
        status: outcome.status,
        reason,
        usage: outcome.usage,
        error: outcome.error,
        duration_ms: started.elapsed().as_millis() as u64,
    };
    record_end(deps, spec, &end).await;
    Finished { end, goal_active }
}

/// The session's history as the model sees it: the cached one plus whatever was stored since
/// (everything after a restart or a revert, without the runs a revert took back). `false`: it
/// could not be read whole (used for this run, not kept).
async fn load_history(deps: &AgentDeps, spec: &RunSpec) -> (history::History, bool) {
    if spec.session.last_seq == 0 && spec.session.forked_from_session.is_none() {
        // A new session (a subagent's first run, most often): nothing to read.
        return (history::History::default(), true);
    }
    // Whatever an earlier run queued is stored before this one reads the history.
    let _ = deps.events.flush(&spec.session.id).await;
    let mut history = deps.history.take(&spec.session.id);
    let after = history.last_id().map(str::to_string);
    let hidden: HashSet<String> = if after.is_none() {
        match deps.store.hidden_runs(&spec.session.id).await {
            Ok(runs) => runs.into_iter().collect(),
            Err(e) => {
                // Without the list, reverted turns would come back: read nothing, keep nothing.
                tracing::error!(error = %e, "cannot read which runs a revert took back");
                return (history, false);
            }
        }
    } else {
        HashSet::new()
    };
    match deps
        .store
        .list_messages(&spec.session.id, after.as_deref(), 1_000_000)
        .await
    {
        Ok(rows) => {
            for r in rows
                .iter()
                .filter(|r| r.run_id.as_ref().is_none_or(|id| !hidden.contains(id)))
            {
                history.push_row(r);
            }
            (history, true)
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot read the history");
            (history, false)
        }
    }
}

/// Longest a snapshot may take before the run goes on without it.
const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(30);

/// Whether a run's files are snapshotted (undo): the build agent's runs that can change them.
fn snapshots_taken(deps: &AgentDeps, spec: &RunSpec) -> bool {
    !deps.cfg.read_only
        && deps.cfg.undo
        && spec.session.agent == Agent::Build
        && spec.trigger != RunTrigger::Compact
}

/// Record the workspace's files before or after a run; a failure only costs undo.
async fn take_snapshot(deps: &AgentDeps, spec: &RunSpec, kind: &str) {
    record_snapshot(
        &deps.snapshots,
        &deps.store,
        &spec.session.workspace,
        &spec.session.id,
        &spec.run_id,
        kind,
    )
    .await;
}

async fn record_snapshot(
    snapshots: &crate::undo::Snapshots,
    store: &Store,
    workspace: &str,
    session: &str,
    run: &str,
    kind: &str,
) {
    let ws = std::path::Path::new(workspace);
    let snap = tokio::time::timeout(SNAPSHOT_TIMEOUT, snapshots.snapshot(ws)).await;
    match snap.unwrap_or_else(|_| {
        Err(format!(
            "took longer than {} s (a very large workspace? set \"undo\": false, or ignore big folders in .gitignore)",
            SNAPSHOT_TIMEOUT.as_secs()
        ))
    }) {
        Ok(tree) => {
            if let Err(e) = store.record_snapshot(session, run, kind, &tree).await {
                tracing::warn!(error = %e, "cannot record a snapshot");
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot snapshot the workspace; undo will not cover this run")
        }
    }
}

/// The snapshot of what a run left, taken in the background (`Snapshots::settled` waits for
/// it: a revert, and the next run's first change).
fn snapshot_after(deps: &AgentDeps, spec: &RunSpec) {
    let ws = std::path::Path::new(&spec.session.workspace);
    let pending = deps.snapshots.pending(ws);
    let (snapshots, store) = (deps.snapshots.clone(), deps.store.clone());
    let (workspace, session, run) = (
        spec.session.workspace.clone(),
        spec.session.id.clone(),
        spec.run_id.clone(),
    );
    tokio::spawn(async move {
        record_snapshot(&snapshots, &store, &workspace, &session, &run, "after").await;
        drop(pending);
    });
}

/// Store the run's end. A full disk: keep trying in the background, so the run (and its
/// session) end as soon as space returns instead of reading `running` until the next restart.
async fn record_end(deps: &AgentDeps, spec: &RunSpec, end: &crate::scheduler::RunEnd) {
    let (session, run) = (&spec.session.id, &spec.run_id);
    if let Err(e) = deps.events.end_run(session, run, end, true).await {
        tracing::error!(error = %e, "cannot store the run's end; retrying in the background");
        let (events, session, run, end) = (
            deps.events.clone(),
            session.clone(),
            run.clone(),
            end.clone(),
        );
        tokio::spawn(async move {
            for _ in 0..3600 {
                tokio::time::sleep(END_RETRY_EVERY).await;
                if events.end_run(&session, &run, &end, true).await.is_ok() {
                    tracing::info!(run = %run, "the run's end is stored");
                    return;
                }
            }
        });
    }
}

/// How often a run's end that could not be stored (full disk) is tried again.
pub const END_RETRY_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// A run stopped because nothing more can be saved.
fn disk_full(usage: Usage) -> RunOutcome {
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr(
            "disk_full",
            "the server's disk is full: the run stopped because nothing more could be saved (everything saved before is intact); free some space and resume it",
        )),
        usage,
    }
}

/// `!command`: the same proposal as a model `shell` call, through the same gate; no model call.
async fn user_command(t: &mut Turn<'_>) -> RunOutcome {
    let command = t.run.text.trim_start_matches('!').trim().to_string();
    t.emit(EventPayload::UserMessage {
        message_id: new_id(),
        text: t.run.text.clone(),
        origin: Some(RunTrigger::Command),
        images: Vec::new(),
    });
    let call = ToolCallReq {
        id: format!("cmd_{}", new_id()),
        name: "shell".into(),
        arguments: serde_json::json!({ "command": command }).to_string(),
    };
    let out = handle_call(t, &call, None).await;
    let text = format!("I ran `{command}` myself:\n{}", out.text);
    t.store_message(
        "user",
        StoredParts {
            text,
            ..Default::default()
        },
    );
    RunOutcome {
        status: if t.run.cancel.is_cancelled() {
            RunStatus::Cancelled
        } else {
            RunStatus::Completed
        },
        error: None,
        usage: t.usage,
    }
}

/// `/compact`: summarise the older turns now; no answer.
async fn compact_command(t: &mut Turn<'_>) -> RunOutcome {
    let tools = with_mcp(t, &offered_tools(t));
    let names: Vec<&str> = tools.iter().map(|s| s.name.as_str()).collect();
    let system = history::system_prompt(
        t.agent,
        &t.paths.workspace,
        &t.paths.extra_roots,
        &names,
        &history::agents_md(&t.paths.workspace),
    );
    let fixed = context::fixed_chars(&system, &tools);
    match context::compact(t, fixed, crate::protocol::CompactTrigger::Manual).await {
        Ok(done) => {
            if !done {
                t.emit(EventPayload::Error {
                    code: "nothing_to_compact".into(),
                    message: "Nothing to compact yet: the conversation is no longer than the latest turns that are always kept.".into(),
                    fatal: false,
                });
            }
            RunOutcome {
                status: RunStatus::Completed,
                error: None,
                usage: t.usage,
            }
        }
        Err(ProviderError::Cancelled) => RunOutcome {
            status: RunStatus::Cancelled,
            error: None,
            usage: t.usage,
        },
        Err(e) => {
            let message = format!("The conversation could not be compacted: {e}");
            t.emit(EventPayload::Error {
                code: e.code().into(),
                message: message.clone(),
                fatal: true,
            });
            RunOutcome {
                status: RunStatus::Failed,
                error: Some(werr(e.code(), message)),
                usage: t.usage,
            }
        }
    }
}

/// The tools a run may see: a function of the agent and the server's start-up flags only, so each
/// combination is built once per server and shared by every run and model call.
fn offered_tools(t: &Turn<'_>) -> Arc<[provider::ToolSpec]> {
    let c = &t.deps.cfg;
    let key: OfferKey = (t.agent, t.deps.interactive, c.ceiling, c.read_only, c.yolo);
    let mut built = t.deps.offered.lock();
    if let Some((_, specs)) = built.iter().find(|(k, _)| *k == key) {
        return specs.clone();
    }
    let specs: Arc<[provider::ToolSpec]> = toolset::TOOLS
        .iter()
        .filter(|d| !d.interactive_only() || t.deps.interactive)
        .filter(|d| d.only_agent().is_none_or(|a| a == t.agent))
        .filter(|d| {
            policy::offered(
                d.effect(),
                t.agent,
                t.deps.interactive,
                c.ceiling,
                c.read_only,
                c.yolo,
            )
        })
        .map(|d| d.spec())
        .collect();
    built.push((key, specs.clone()));
    specs
}

/// The tools of this model call: the built-in ones, then those of the MCP servers connected now
/// (when the agent may call them at all), remembered for the calls that follow.
fn with_mcp(t: &Turn<'_>, built_in: &Arc<[provider::ToolSpec]>) -> Arc<[provider::ToolSpec]> {
    let c = &t.deps.cfg;
    let hub = &t.deps.mcp;
    let may = policy::offered(
        Effect::External,
        t.agent,
        t.deps.interactive,
        c.ceiling,
        c.read_only,
        c.yolo,
    ) && (t.deps.interactive || c.yolo || hub.allowed);
    let mcp = if may { hub.tools() } else { Vec::new() };
    let with_hub = may && hub.has_servers();
    let specs = if !with_hub && !t.goal_tools && t.depth() == 0 {
        built_in.clone()
    } else {
        let goal = toolset::OPT_IN.iter().filter(|_| t.goal_tools);
        built_in
            .iter()
            .filter(|s| !t.hides(&s.name))
            .cloned()
            .chain(goal.map(|d| d.spec()))
            .chain(crate::mcp::hub_specs().into_iter().filter(|_| with_hub))
            .chain(mcp.iter().map(|m| m.spec()))
            .collect()
    };
    *t.mcp_offer.lock() = McpOffer {
        tools: mcp,
        hub: with_hub,
    };
    specs
}

/// The run's system prompt (its tools, roots, AGENTS.md and memories) and the first spend
/// check, read at once (a pooled connection each): both are on the way to the first model call.
async fn system_and_spend(
    t: &Turn<'_>,
    tools: &[provider::ToolSpec],
) -> (Arc<str>, Option<RunOutcome>) {
    let names: Vec<&str> = tools.iter().map(|s| s.name.as_str()).collect();
    let (memories, stop) = tokio::join!(
        crate::memory::prompt_section(&t.deps.store, &t.run.session.workspace, &t.run.text),
        t.spend_stop()
    );
    if t.depth() > 0 {
        crate::probe::moment(crate::probe::MarkKind::Step("memories read"));
    }
    let system = history::system_prompt(
        t.agent,
        &t.paths.workspace,
        &t.paths.extra_roots,
        &names,
        &format!("{}{memories}", history::agents_md(&t.paths.workspace)),
    );
    (system.into(), stop)
}

async fn loop_turns(t: &mut Turn<'_>) -> RunOutcome {
    let max = t.deps.cfg.agent.max_iterations.max(1);
    let tools = offered_tools(t);
    let (system, first_stop) = system_and_spend(t, &tools).await;
    let mut first_stop = Some(first_stop);
    // A prompt the provider refuses as too long is compacted and retried once per run.
    let mut overflowed = false;
    let mut iteration = 0;
    while iteration < max {
        iteration += 1;
        if t.run.cancel.is_cancelled() {
            return RunOutcome {
                status: RunStatus::Cancelled,
                error: None,
                usage: t.usage,
            };
        }
        if t.deps.events.storage_full() {
            return disk_full(t.usage);
        }
        let stop = match first_stop.take() {
            Some(stop) => stop,
            None => t.spend_stop().await,
        };
        if let Some(stop) = stop {
            return stop;
        }
        if t.depth() > 0 && iteration == 1 {
            crate::probe::moment(crate::probe::MarkKind::Step("spend checked"));
        }
        let offered = with_mcp(t, &tools);
        let fixed = context::fixed_chars(&system, &offered);
        if let Err(e) = context::maybe_compact(t, fixed).await
            && let Some(end) = compaction_failed(t, &e)
        {
            return end;
        }
        let messages = t.history.lock().messages();
        let prompt_tokens = t.tokens_of(context::prompt_chars(fixed, &messages));
        let req = ChatRequest {
            system: system.clone(),
            messages,
            tools: offered,
            reasoning_effort: t.run.session.reasoning_effort.0,
            model: None,
            attachments: Some(t.deps.attachments.clone()),
        };
        let model_call = tracing::info_span!("model_call", iteration);
        let calls = match tracing::Instrument::instrument(stream_turn(t, req), model_call).await {
            Ok(x) => x,
            Err(ProviderError::ContextLength(m)) if !overflowed => {
                overflowed = true;
                // The window is smaller than this prompt: work below it from now on.
                t.window_cap = Some(t.window().min(prompt_tokens).max(1));
                tracing::warn!(reason = %m, prompt_tokens, "the provider refused the prompt as too long; compacting");
                match context::compact(t, fixed, crate::protocol::CompactTrigger::Overflow).await {
                    Ok(true) => {
                        iteration -= 1;
                        continue;
                    }
                    Ok(false) => {
                        let e = ProviderError::ContextLength(m);
                        return fail(t, &e);
                    }
                    Err(e) => {
                        if let Some(end) = compaction_failed(t, &e) {
                            return end;
                        }
                        return fail(t, &ProviderError::ContextLength(m));
                    }
                }
            }
            Err(ProviderError::Cancelled) if t.deps.events.storage_full() => {
                return disk_full(t.usage);
            }
            Err(ProviderError::Cancelled) => {
                return RunOutcome {
                    status: RunStatus::Cancelled,
                    error: None,
                    usage: t.usage,
                };
            }
            Err(e) => return fail(t, &e),
        };
        if calls.is_empty() {
            return RunOutcome {
                status: RunStatus::Completed,
                error: None,
                usage: t.usage,
            };
        }
        run_calls(t, &calls).await;
    }
    let msg = format!("stopped after {max} model calls (agent.maxIterations)");
    t.emit(EventPayload::Error {
        code: "iteration_limit".into(),
        message: msg.clone(),
        fatal: true,
    });
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr("iteration_limit", msg)),
        usage: t.usage,
    }
}

/// A run ended by a provider error (shown once, as the final error).
fn fail(t: &Turn<'_>, e: &ProviderError) -> RunOutcome {
    t.emit(EventPayload::Error {
        code: e.code().into(),
        message: e.to_string(),
        fatal: true,
    });
    RunOutcome {
        status: RunStatus::Failed,
        error: Some(werr(e.code(), e.to_string())),
        usage: t.usage,
    }
}

/// A compaction that failed: a cancel ends the run; anything else is reported and the run goes
/// on with the whole history (the provider may still take it).
fn compaction_failed(t: &Turn<'_>, e: &ProviderError) -> Option<RunOutcome> {
    if *e == ProviderError::Cancelled {
        return Some(RunOutcome {
            status: RunStatus::Cancelled,
            error: None,
            usage: t.usage,
        });
    }
    t.emit(EventPayload::Error {
        code: "compaction_failed".into(),
        message: format!(
            "The conversation could not be compacted ({e}); continuing with the whole history."
        ),
        fatal: false,
    });
    None
}

/// Stream one model response; store it whole once the model has finished (returns its tool
/// calls). A stream that breaks
/// before its finish stores nothing and runs no tool.
async fn stream_turn(
    t: &mut Turn<'_>,
    req: ChatRequest,
) -> Result<Vec<ToolCallReq>, ProviderError> {
    let cancel = t.run.cancel.clone();
    let called = Instant::now();
    let mut stream = t.open_stream(&req).await;
    // What a cancelled stream cost, if the provider never says (usage comes at the end).
    let prompt_chars = req.chars();
    // The history is shared with the request: let go of it, so storing this answer extends the
    // history in place instead of copying it.
    drop(req);
    let message_id = new_id();
    let (mut text, mut reasoning) = (String::new(), String::new());
    let mut calls: Vec<(usize, ToolCallReq)> = Vec::new();
    let mut finished = false;
    let mut reported: Option<Usage> = None;
    let (mut tc, mut rc) = (Coalescer::default(), Coalescer::default());
    let (mut signature, mut redacted) = (String::new(), Vec::new());
    let s = match &mut stream {
        Ok(s) => s,
        Err(e) => return Err(e.clone()),
    };
    loop {
        let deadline = match (tc.deadline(), rc.deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let next = tokio::select! {
            n = s.next() => n,
            _ = cancel.cancelled() => {
                // Stopped mid-answer: the provider has already generated (and billed) what was
                // streamed; count it, estimated, rather than showing nothing.
                let streamed = text.len()
                    + reasoning.len()
                    + calls.iter().map(|(_, c)| c.arguments.len()).sum::<usize>();
                let u = reported.unwrap_or(Usage {
                    input_tokens: provider::estimate_tokens(prompt_chars),
                    output_tokens: provider::estimate_tokens(streamed),
                    ..Usage::default()
                });
                t.flush_deltas(&message_id, &mut tc, &mut rc);
                t.account(u, "turn", prompt_chars).await;
                return Err(ProviderError::Cancelled);
            }
            _ = async { match deadline { Some(d) => tokio::time::sleep_until(d).await, None => std::future::pending().await } } => {
                t.flush_deltas(&message_id, &mut tc, &mut rc);
                continue;
            }
        };
        let Some(ev) = next else {
            crate::probe::model_call(called.elapsed());
            break;
        };
        if t.deps.events.storage_full() {
            // Streaming into a log that cannot be written: stop the model call now.
            return Err(ProviderError::Cancelled);
        }
        match ev? {
            ProviderEvent::TextDelta(d) => {
                crate::probe::chunk(d.len());
                text.push_str(&d);
                if let Some(chunk) = tc.push(&d) {
                    t.delta(DeltaKind::Text, &message_id, &chunk);
                }
            }
            ProviderEvent::ReasoningDelta(d) => {
                reasoning.push_str(&d);
                if let Some(chunk) = rc.push(&d) {
                    t.delta(DeltaKind::Reasoning, &message_id, &chunk);
                }
            }
            ProviderEvent::ReasoningSignature(s) => signature.push_str(&s),
            ProviderEvent::RedactedReasoning(d) => redacted.push(d),
            ProviderEvent::ToolCallStart { index, id, name } => calls.push((
                index,
                ToolCallReq {
                    id,
                    name,
                    arguments: String::new(),
                },
            )),
            ProviderEvent::ToolCallDelta { index, arguments } => {
                if let Some((_, c)) = calls.iter_mut().rev().find(|(i, _)| *i == index) {
                    c.arguments.push_str(&arguments);
                }
            }
            ProviderEvent::Usage(u) => reported = Some(u),
            ProviderEvent::Finish(_) => finished = true,
        }
    }
    t.flush_deltas(&message_id, &mut tc, &mut rc);
    if let Some(u) = reported {
        t.account(u, "turn", prompt_chars).await;
    }
    if !finished {
        return Err(ProviderError::Truncated(
            "the stream ended before the model finished".into(),
        ));
    }
    let calls: Vec<ToolCallReq> = calls.into_iter().map(|(_, c)| c).collect();
    t.store_message(
        "assistant",
        StoredParts {
            text: text.clone(),
            reasoning: reasoning.clone(),
            tool_calls: calls.clone(),
            reasoning_signature: signature,
            redacted_reasoning: redacted,
            ..Default::default()
        },
    );
    t.emit(EventPayload::MessageComplete {
        message_id,
        text,
        reasoning,
    });
    Ok(calls)
}
