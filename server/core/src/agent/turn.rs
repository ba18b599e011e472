//! One run's state as the loop and its tools see it, and what a tool may ask of it (the
//! `ToolHost` it is).

use super::*;

pub(crate) struct Turn<'a> {
    /// The session's grants, cached for this run.
    /// The session's grants, read once per run and again after any revoke (`grants_epoch`).
    pub(super) grants: super::grants::Grants,
    pub(crate) deps: &'a LoopEnv,
    pub(crate) run: &'a RunSpec,
    pub(crate) agent: Agent,
    pub(crate) mode: Mode,
    /// Whether someone can answer this run's questions: the server's, unless the run's own
    /// limits say no (`tradewind run` through a server without `--interactive`).
    pub(crate) interactive: bool,
    pub(crate) paths: PathPolicy,
    pub(super) usage: Usage,
    /// The session's history as the model sees it: loaded once per run, then kept in step with
    /// what this run stores (so no model call re-reads it).
    pub(super) history: parking_lot::Mutex<history::History>,
    /// What of MCP the latest model call offered: a call runs against the listing the model
    /// saw, never a newer one.
    pub(super) mcp_offer: parking_lot::Mutex<McpOffer>,
    /// The model this run calls: its window and price.
    pub(super) model: context::ModelMeta,
    /// A smaller window learnt from a prompt the provider refused as too long.
    pub(super) window_cap: Option<u64>,
    /// Characters per token, measured on the provider's own counts (4 until then).
    pub(super) chars_per_token: f64,
    /// The goal tools are offered (the session's goal is active; not the plan agent).
    pub(crate) goal_tools: bool,
    /// A call that must not ask is running (one `execute` makes, a file an `@` mention
    /// attaches): an approval it would need is a denial, which this advice follows.
    pub(crate) never_ask: parking_lot::Mutex<Option<&'static str>>,
    /// For a subagent: the sessions above it, its parent first and the root last (empty for a
    /// session the user started).
    pub(crate) lineage: Vec<crate::protocol::SessionId>,
    /// The run's files are snapshotted for undo (a build run of a session the user started).
    pub(super) undo: bool,
    /// Set once the snapshot from before the run's first change is stored.
    pub(super) before: tokio::sync::OnceCell<()>,
    /// Subdirectories whose instruction files this run has looked for (and added once).
    pub(super) instructions_seen: parking_lot::Mutex<HashSet<std::path::PathBuf>>,
    /// The hooks files, read when the run began (the user's, the workspace's once trusted).
    pub(super) hooks: Vec<Arc<crate::hooks::HookFile>>,
    /// Whether each file (by hash) may run its hooks in this session, once decided.
    pub(super) hooks_granted: parking_lot::Mutex<std::collections::HashMap<String, bool>>,
    /// The session's custom agent (`None`: `build` or `plan` as they are).
    pub(crate) profile: Option<Arc<crate::agents::Profile>>,
}

#[derive(Default)]
pub(super) struct McpOffer {
    pub(super) tools: Vec<Arc<crate::mcp::McpTool>>,
    /// `mcp_connect`, `mcp_resource` and `mcp_prompt`.
    pub(super) hub: bool,
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
            push: self.deps.prompts.push.as_ref(),
            stopping: Some((&self.run.server_stop, &self.deps.prompts.holding)),
        }
    }

    /// Who proposes this run's calls: the user, for the one call of a `!command` run sent with
    /// the `admin` scope; the model otherwise (a `!command` from a caller without `admin` too).
    pub(crate) fn call_origin(&self) -> crate::policy::Origin {
        if self.run.trigger == crate::protocol::RunTrigger::Command && self.run.by_admin {
            crate::policy::Origin::User
        } else {
            crate::policy::Origin::Model
        }
    }

    /// The session whose grants this run uses: a subagent has its root session's, never more.
    pub(crate) fn grant_session(&self) -> &crate::protocol::SessionId {
        self.lineage.last().unwrap_or(&self.run.session.id)
    }

    /// A built-in tool this run is not offered: `exit_plan` in a subagent (it answers in
    /// text), the subagent tools at the deepest level.
    pub(crate) fn hides(&self, name: &str) -> bool {
        toolset::descriptor(name).is_some_and(|d| self.hides_tool(d))
    }

    /// [`Turn::hides`], of a tool already looked up.
    pub(crate) fn hides_tool(&self, d: &dyn crate::tools::DynTool) -> bool {
        let depth = self.depth();
        (depth > 0 && !d.in_subagents())
            || (depth >= crate::subagents::MAX_DEPTH && d.subagents())
            || (self.agent == Agent::Plan && !d.plan_agent())
            || self.agent_tools().is_some_and(|a| !a.allows(d.name()))
            || toolset::turned_off(&self.deps.cfg, d.name())
    }

    /// The custom agent's tool allow-list, if it has one.
    pub(crate) fn agent_tools(&self) -> Option<&crate::agents::Tools> {
        self.profile.as_ref().and_then(|p| p.tools.as_ref())
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

    pub(super) fn delta(&self, kind: DeltaKind, message_id: &str, text: &str) {
        self.deps.events.post_delta(
            &self.run.session.id,
            Some(&self.run.run_id),
            kind,
            message_id,
            text,
        );
    }

    /// Post whatever the coalescers hold (reasoning first, as the model sent it).
    pub(super) fn flush_deltas(&self, message_id: &str, tc: &mut Coalescer, rc: &mut Coalescer) {
        if !rc.is_empty() {
            self.delta(DeltaKind::Reasoning, message_id, &rc.take());
        }
        if !tc.is_empty() {
            self.delta(DeltaKind::Text, message_id, &tc.take());
        }
    }

    pub(super) fn store_message(&self, role: crate::protocol::MessageRole, parts: StoredParts) {
        let m = NewMessage {
            id: new_id().into(),
            run_id: Some(self.run.run_id.clone()),
            role,
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
        provider::open_with_retry(
            &provider,
            &req,
            &self.deps.cfg.network.policy(),
            &self.run.cancel,
            |r| {
                self.emit(EventPayload::ProviderRetry {
                    attempt: r.attempt,
                    max_attempts: r.max_attempts,
                    delay_ms: r.delay.as_millis() as u64,
                    reason: r.reason.clone(),
                });
            },
        )
        .await
    }

    /// Before a call that can change the workspace's files runs: the snapshot that undoes this
    /// run is marked (once per run, by its first such call). A file tool's call (`written`: the
    /// files it writes, and only those) keeps each file's content first; any other call resolves
    /// the open marks with a walk before it runs (it may change anything).
    pub(crate) async fn protect_files(&self, written: Option<&[crate::policy::PathUse]>) {
        if !self.undo {
            return;
        }
        let snapshots = &self.deps.snapshots;
        self.before
            .get_or_init(|| async {
                mark_snapshot(snapshots, self.run, crate::undo::owners::Taken::Before);
            })
            .await;
        let ws = std::path::Path::new(&self.run.session.workspace);
        match written {
            Some(paths) => {
                for p in paths {
                    if let Err(e) = snapshots.before_write(ws, &p.path).await {
                        tracing::warn!(error = %e, "undo will not cover this change");
                    }
                }
            }
            None => resolve_snapshots(snapshots, &self.run.session.workspace, false).await,
        }
    }

    /// Whether the session's grants, as last read by the gate, hold `key`.
    pub(crate) fn grants_contain(&self, key: &str) -> bool {
        self.grants.contains(key)
    }
}

impl crate::tools::ToolHost for Turn<'_> {
    fn services(&self) -> &crate::tools::ToolServices {
        &self.deps.tools
    }
    fn session(&self) -> &SessionRow {
        &self.run.session
    }
    fn run_id(&self) -> &crate::protocol::RunId {
        &self.run.run_id
    }
    fn agent(&self) -> Agent {
        self.agent
    }
    fn plugin_search<'a>(
        &'a self,
        query: &'a str,
        cancel: &'a tokio_util::sync::CancellationToken,
    ) -> futures::future::BoxFuture<'a, Option<Result<(String, tools::ToolOutput), String>>> {
        Box::pin(async move {
            let deps = self.deps;
            let plugins = deps.store.enabled_plugins(&deps.cfg.state_dir).await;
            let (plugin, (server, tool)) = plugins
                .iter()
                .find_map(|p| p.websearch.as_ref().map(|w| (p, w)))?;
            let find = || {
                deps.mcp
                    .tools()
                    .into_iter()
                    .find(|t| t.server == *server && t.remote == *tool)
            };
            let found = match find() {
                Some(t) => Some(t),
                None => match deps.mcp.connect(server).await {
                    Ok(_) => find(),
                    Err(e) => {
                        return Some(Err(format!(
                            "the plugin {}'s search server `{server}` cannot connect: {e}",
                            plugin.name
                        )));
                    }
                },
            };
            let Some(t) = found else {
                return Some(Err(format!(
                    "the plugin {}'s server `{server}` offers no tool `{tool}`",
                    plugin.name
                )));
            };
            let out = t.call(&serde_json::json!({ "query": query }), cancel).await;
            Some(if out.ok {
                Ok((plugin.name.clone(), out))
            } else {
                Err(format!(
                    "the plugin {}'s search failed: {}",
                    plugin.name, out.text
                ))
            })
        })
    }
    fn agent_profile<'a>(
        &'a self,
        name: &'a crate::protocol::AgentName,
    ) -> futures::future::BoxFuture<'a, Result<Option<Arc<crate::agents::Profile>>, String>> {
        Box::pin(async move {
            super::profiles::resolve(
                &self.deps.store,
                &self.paths.workspace,
                &self.deps.cfg.state_dir,
                name,
            )
            .await
            .map_err(|e| e.to_string())
        })
    }
    fn interactive(&self) -> bool {
        self.interactive
    }
    /// The run's mode, lowered by any change since it started — of its own session or of one
    /// above it (a child's mode follows its parent's down).
    fn mode(&self) -> Mode {
        let board = self.deps.live.modes.read();
        if board.is_empty() {
            return self.mode;
        }
        std::iter::once(&self.run.session.id)
            .chain(self.lineage.iter())
            .filter_map(|id| board.get(id.as_str()))
            .fold(self.mode, |m, b| m.min(*b))
    }
    fn lineage(&self) -> &[crate::protocol::SessionId] {
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
    fn jail_paths(&self) -> Vec<std::path::PathBuf> {
        self.grants.jail_paths()
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
