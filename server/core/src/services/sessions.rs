//! Creating, changing and deleting sessions.

use std::path::{Path, PathBuf};

use super::{Core, OrNotFound, ServiceError, ServiceResult};
use crate::protocol::{
    Agent, CreateSessionParams, Mode, PatchSessionParams, Session, SessionStatus,
};
use crate::store::SessionPatch;

pub const MAX_TITLE_CHARS: usize = 200;

/// A title as given: at most 200 characters, not blank, no control characters (the spec's
/// pattern says the same); stored trimmed.
fn check_title(t: &str) -> ServiceResult<String> {
    if t.trim().is_empty() || t.chars().count() > MAX_TITLE_CHARS {
        return Err(ServiceError::Invalid(format!(
            "title must be 1 to {MAX_TITLE_CHARS} characters"
        )));
    }
    let t = t.trim();
    if t.chars().any(char::is_control) {
        return Err(ServiceError::Invalid(
            "title must not contain control characters".into(),
        ));
    }
    Ok(t.to_string())
}

/// A model name: 1 to 200 characters, not blank, no control characters (trimmed).
fn check_model(m: &str) -> ServiceResult<String> {
    if m.trim().is_empty() || m.chars().count() > 200 || m.chars().any(char::is_control) {
        return Err(ServiceError::Invalid(
            "model must be 1 to 200 characters, not blank, without control characters".into(),
        ));
    }
    Ok(m.trim().to_string())
}

/// An absolute, existing directory outside Tradewind's state directory.
fn check_workspace(w: &str, state_dir: &Path) -> ServiceResult<PathBuf> {
    if w.chars().count() > 4096 || w.contains('\0') {
        return Err(ServiceError::Invalid("workspace path is not valid".into()));
    }
    let path = Path::new(w);
    if !path.is_absolute() {
        return Err(ServiceError::Invalid(
            "workspace must be an absolute path".into(),
        ));
    }
    let canon = std::fs::canonicalize(path)
        .map_err(|_| ServiceError::Invalid(format!("workspace {w} does not exist")))?;
    if !canon.is_dir() {
        return Err(ServiceError::Invalid(format!(
            "workspace {w} is not a directory"
        )));
    }
    let state_dir = std::fs::canonicalize(state_dir).unwrap_or(state_dir.to_path_buf());
    if canon.starts_with(&state_dir) {
        return Err(ServiceError::Invalid(
            "the workspace cannot be inside Tradewind's state directory".into(),
        ));
    }
    Ok(canon)
}

impl Core {
    pub async fn create_session(&self, p: &CreateSessionParams) -> ServiceResult<Session> {
        let workspace = match p.workspace.as_deref() {
            None | Some("") => self.cfg.workspace.clone(),
            Some(w) => check_workspace(w, &self.cfg.state_dir)?,
        };
        // The Landlock fallback cannot hide the state directory inside a root (the jail masks it).
        if self.cfg.state_dir.starts_with(&workspace)
            && self.env.tools.sandbox.info().await.jail == "landlock"
        {
            return Err(ServiceError::Invalid(format!(
                "the workspace {} holds Tradewind's state directory {}, which the sandbox's Landlock fallback (no bubblewrap here) cannot hide from commands; restart the server with --state-dir outside it",
                workspace.display(),
                self.cfg.state_dir.display()
            )));
        }
        let title = match p.title.as_deref() {
            Some(t) => check_title(t)?,
            None => super::DEFAULT_TITLE.to_string(),
        };
        let mode = match p.mode {
            Some(m) => {
                self.check_mode(m).await?;
                m
            }
            // A server whose default is `full` starts its sessions in `auto` where only the
            // fallback confines commands.
            None => match self.cfg.default_mode() {
                Mode::Full if self.check_mode(Mode::Full).await.is_err() => Mode::Auto,
                m => m,
            },
        };
        let agent = self.checked_agent(&workspace, p.agent.as_ref()).await?;
        let id: crate::protocol::SessionId = crate::util::new_id().into();
        let wanted = p.worktree.unwrap_or(self.cfg.worktrees.default);
        if p.base.is_some() && !wanted {
            return Err(ServiceError::Invalid(
                "base is for a session in a worktree (send worktree: true)".into(),
            ));
        }
        // Only a worktree asked for refuses a workspace outside git; `worktrees.default` makes
        // one where it can.
        let worktree = match wanted {
            true if p.worktree == Some(true) || self.repo_of(&workspace).is_ok() => Some(
                self.make_worktree(&id, &workspace, p.base.as_deref())
                    .await?,
            ),
            _ => None,
        };
        let ws = worktree.as_ref().map_or(&workspace, |(w, _)| w);
        let made = self
            .store
            .create_session(&id, &title, &ws.to_string_lossy(), agent, mode, None)
            .await;
        let row = match (made, worktree) {
            (Ok(_), Some((_, wt))) => {
                let json = serde_json::to_string(&wt).unwrap_or_default();
                self.store.set_session_worktree(&id, &json).await?;
                self.start_worktree_setup(&id).await;
                self.load_session(&id).await?
            }
            (Ok(row), None) => row,
            (Err(e), wt) => {
                if let Some((_, wt)) = wt {
                    let _ = self.remove_worktree(&wt, true).await;
                }
                return Err(e.into());
            }
        };
        self.events.touch(&row.id);
        Ok(row.into())
    }

    /// `worktrees.setup` in a new worktree, as a `!command` through the gate (it asks where
    /// commands ask).
    async fn start_worktree_setup(&self, id: &crate::protocol::SessionId) {
        let Some(cmd) = self
            .cfg
            .worktrees
            .setup
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        else {
            return;
        };
        if let Err(e) = self.post_message(id, &format!("!{cmd}")).await {
            tracing::warn!("worktrees.setup in session {id}: {e}");
        }
    }

    /// Rename, switch agent or permission mode, archive or unarchive; clients hear
    /// `session_updated`.
    pub async fn update_session(
        &self,
        id: &crate::protocol::SessionId,
        p: &PatchSessionParams,
    ) -> ServiceResult<Session> {
        if let Some(Some(pid)) = &p.provider
            && self.providers().get(pid).is_none()
        {
            return Err(ServiceError::Invalid(format!(
                "no provider has the id `{pid}` (GET /api/providers lists them)"
            )));
        }
        let model = match &p.model {
            Some(Some(m)) => Some(Some(check_model(m)?)),
            Some(None) => Some(None),
            // A new provider without a model: that provider's default model.
            None => p.provider.as_ref().map(|_| None),
        };
        if let Some(m) = p.mode {
            self.check_mode(m).await?;
        }
        if let Some(a) = &p.agent {
            let row = self.load_session(id).await?;
            self.checked_agent(std::path::Path::new(&row.workspace), Some(a))
                .await?;
        }
        let patch = SessionPatch {
            provider: p.provider.clone(),
            model,
            title: p.title.as_deref().map(check_title).transpose()?,
            agent: p.agent.clone(),
            mode: p.mode,
            archived: p.archived,
            spend_cap_usd: p.spend_cap_usd,
            reasoning_effort: p.reasoning_effort,
        };
        let row = self
            .store
            .update_session(id, &patch)
            .await
            .or_not_found("session")?;
        let session = Session::from(row);
        self.events.session_updated(&session).await;
        if let Some(mode) = p.mode {
            self.follow_mode_down(id, mode).await?;
        }
        Ok(session)
    }

    /// `full` needs the jail: the Landlock fallback cannot keep a repository's control files
    /// read-only or hide the host by mount, so it refuses `full` (unless the server was started
    /// with `--yolo`, which asks for no such care), with the reason and the fix. Only `full`
    /// waits for the sandbox probe.
    async fn check_mode(&self, mode: Mode) -> ServiceResult<()> {
        if mode != Mode::Full || self.cfg.yolo {
            return Ok(());
        }
        let info = self.env.tools.sandbox.info().await;
        if info.jail == "landlock" {
            return Err(ServiceError::Refused {
                code: "mode_unsafe_here",
                message: format!(
                    "full mode needs the jail, and commands here run in the Landlock fallback, which cannot keep a repository's control files read-only or hide the host's files; use auto or ask, or {}",
                    crate::sandbox::FALLBACK_FIX
                ),
            });
        }
        Ok(())
    }

    /// A session's mode changed: runs in flight follow it at their next tool call, and every
    /// subagent below it with a wider mode is lowered to it.
    async fn follow_mode_down(&self, id: &str, mode: Mode) -> ServiceResult<()> {
        self.env.live.modes.write().insert(id.into(), mode);
        let mut below = vec![crate::protocol::SessionId::from(id)];
        // Subagents nest at most `MAX_DEPTH` deep; the bound guards against a corrupt loop.
        for _ in 0..=crate::subagents::MAX_DEPTH {
            let mut next = Vec::new();
            for parent in &below {
                for child in self.store.child_sessions(parent).await? {
                    if child.mode > mode {
                        let patch = SessionPatch {
                            mode: Some(mode),
                            ..Default::default()
                        };
                        let row = self.store.update_session(&child.id, &patch).await?;
                        self.events.session_updated(&Session::from(row)).await;
                    }
                    self.env
                        .live
                        .modes
                        .write()
                        .insert(child.id.clone(), mode.min(child.mode));
                    next.push(child.id);
                }
            }
            if next.is_empty() {
                break;
            }
            below = next;
        }
        Ok(())
    }

    /// Set a session's permission mode (the mode menu; the WebSocket's `set_mode`).
    pub async fn set_mode(
        &self,
        id: &crate::protocol::SessionId,
        mode: Mode,
    ) -> ServiceResult<Session> {
        let patch = PatchSessionParams {
            mode: Some(mode),
            ..Default::default()
        };
        self.update_session(id, &patch).await
    }

    /// Fork a session ("edit and resend"): a new session with the conversation before one of its
    /// user messages (or all of it), then `text` sent there. The original is untouched.
    pub async fn fork_session(
        &self,
        id: &crate::protocol::SessionId,
        p: &crate::protocol::ForkParams,
    ) -> ServiceResult<crate::protocol::Forked> {
        let src = self.load_session(id).await?;
        // Everything is checked before the fork exists, so a refused call leaves nothing behind.
        if let Some(text) = p.text.as_deref() {
            super::prompt_trigger(text)?;
        }
        let title = match p.title.as_deref() {
            Some(t) => check_title(t)?,
            None => {
                let base: String = src.title.chars().take(180).collect();
                format!("{base} (fork)")
            }
        };
        let (cut, at_seq) = match p.seq {
            Some(seq) => {
                let ev = self.store.event_at(id, seq).await.or_not_found("event")?;
                if ev.kind != "user_message" {
                    return Err(ServiceError::NotFound("user message at that seq"));
                }
                // Cut before the run that message opened, so none of that run comes along.
                let cut = match &ev.run_id {
                    Some(run) => self.store.first_seq_of_run(id, run).await?.unwrap_or(seq),
                    None => seq,
                };
                (cut, seq)
            }
            None => {
                if matches!(src.status, SessionStatus::Running | SessionStatus::Waiting) {
                    return Err(ServiceError::Conflict(
                        "the session has an active run; fork at a message, or wait".into(),
                    ));
                }
                (src.last_seq + 1, src.last_seq + 1)
            }
        };
        let new_id = crate::protocol::SessionId::from(crate::util::new_id());
        let row = self
            .store
            .fork_session(&crate::store::ForkSpec {
                from: id,
                new_id: &new_id,
                title: &title,
                cut,
                at_seq,
            })
            .await?;
        self.events.touch(&new_id);
        let run_id = match p.text.as_deref() {
            Some(text) => Some(self.post_message(&new_id, text).await?),
            None => None,
        };
        let session = match run_id {
            Some(_) => self.load_session(&new_id).await?.into(),
            None => row.into(),
        };
        Ok(crate::protocol::Forked { session, run_id })
    }

    /// Delete a session and everything it owns; refused while a run is active. A session's
    /// worktree is removed with it (its branch kept): refused while it has uncommitted changes
    /// unless `force`.
    pub async fn delete_session(
        &self,
        id: &crate::protocol::SessionId,
        force: bool,
    ) -> ServiceResult<()> {
        let row = self.load_session(id).await?;
        if matches!(row.status, SessionStatus::Running | SessionStatus::Waiting) {
            return Err(ServiceError::Conflict(
                "the session has an active run; cancel it first".into(),
            ));
        }
        // Its subagents go with it (the store cascades): none may be running.
        let tree = self.store.descendant_ids(id).await?;
        if tree.iter().any(|c| self.runs.is_busy(c)) {
            return Err(ServiceError::Conflict(
                "a subagent of this session is still running; cancel it first".into(),
            ));
        }
        // The worktree is the root's (a subagent and a fork share it): removed when the last
        // session working in it goes.
        let worktree = row
            .worktree
            .as_deref()
            .and_then(|w| serde_json::from_str::<crate::protocol::SessionWorktree>(w).ok());
        if let Some(wt) = &worktree
            && row.parent_id.is_none()
            && self.store.sessions_in_worktree(&row.worktree).await? <= 1 + tree.len()
        {
            self.remove_worktree(wt, force).await?;
        }
        self.store
            .delete_session(id)
            .await
            .or_not_found("session")?;
        for c in tree.iter().chain([id]) {
            self.runs.forget_session(c);
            self.env.terminals.close_session(c);
        }
        self.events.touch(id);
        Ok(())
    }
}

impl Core {
    /// A session's agent as its runs take it: the built-in it stands on, its mode under the
    /// agent's ceiling, and the custom agent's profile (`None`: `build` or `plan`). A custom
    /// agent that cannot be found counts as `plan` in `ask`: a view never shows more than a run
    /// would do (the run itself ends with `unknown_agent`).
    pub(crate) async fn agent_of(
        &self,
        workspace: &str,
        name: &crate::protocol::AgentName,
        mode: crate::protocol::Mode,
    ) -> (
        Agent,
        crate::protocol::Mode,
        Option<std::sync::Arc<crate::agents::Profile>>,
    ) {
        let ws = std::path::Path::new(workspace);
        match crate::agent::profiles::resolve(&self.store, ws, &self.cfg.state_dir, name).await {
            Ok(None) => (name.builtin().unwrap_or(Agent::Plan), mode, None),
            Ok(Some(p)) => (p.base, p.mode_in(mode), Some(p)),
            Err(_) => (Agent::Plan, crate::protocol::Mode::Ask, None),
        }
    }

    /// The built-in a session's agent stands on.
    pub(crate) async fn agent_base(&self, row: &crate::store::SessionRow) -> Agent {
        self.agent_of(&row.workspace, &row.agent, row.mode).await.0
    }

    /// The agent a session of `workspace` is to run as (`build` when none is named): a name it
    /// cannot see is refused, naming those it can.
    pub(crate) async fn checked_agent(
        &self,
        workspace: &std::path::Path,
        name: Option<&crate::protocol::AgentName>,
    ) -> ServiceResult<crate::protocol::AgentName> {
        let Some(name) = name else {
            return Ok(crate::protocol::AgentName::build());
        };
        crate::agent::profiles::resolve(&self.store, workspace, &self.cfg.state_dir, name)
            .await
            .map_err(|e| ServiceError::Invalid(e.to_string()))?;
        Ok(name.clone())
    }

    /// The gate's dry run for a tool call, as in a session (its workspace, mode, agent and
    /// grants) or, without one, as in a new session of the server's workspace.
    pub async fn policy_check(
        &self,
        p: &crate::protocol::PolicyCheckParams,
    ) -> ServiceResult<crate::protocol::PolicyCheckReport> {
        let deps = &self.env;
        let (paths, agent, mode, grants) = match &p.session {
            Some(id) => {
                let row = self.load_session(id).await?;
                let grants = self.grant_set(id).await?;
                let paths = crate::sandbox::session_paths(&deps.paths, &row);
                let (agent, mode, _) = self.agent_of(&row.workspace, &row.agent, row.mode).await;
                (paths, agent, mode, grants)
            }
            None => {
                let name = self
                    .checked_agent(&self.cfg.workspace, p.agent.as_ref())
                    .await?;
                let ws = self.cfg.workspace.to_string_lossy();
                let mode = p.mode.unwrap_or(crate::protocol::Mode::Ask);
                let (agent, mode, _) = self.agent_of(&ws, &name, mode).await;
                (
                    deps.paths.clone(),
                    agent,
                    mode,
                    std::collections::HashSet::new(),
                )
            }
        };
        let ctx = self.gate_context(agent, mode, &grants);
        match crate::policy_check::check(&ctx, &p.tool, &p.input, &paths, &deps.tools.net_exempt)
            .await
        {
            Ok(report) => Ok(report),
            Err(crate::tools::PrepareError::Unknown(_)) => Err(ServiceError::NotFound("tool")),
            // The gate refuses a call whose arguments do not fit the tool (or name a path it
            // cannot resolve) before any policy applies: the dry run says so.
            Err(e) => Ok(crate::protocol::PolicyCheckReport {
                decision: crate::protocol::PolicyDecision::Deny,
                tool: p.tool.clone(),
                effect: crate::agent::toolset::effect_of(&p.tool),
                reasons: vec![crate::protocol::PolicyReason {
                    code: e.code().to_string(),
                    message: e.to_string(),
                    decision: crate::protocol::PolicyDecision::Deny,
                }],
                categories: vec![],
                commands: vec![],
                warnings: vec![],
            }),
        }
    }
}

/// A grant as the API shows it: its key, kind, words and scope.
fn grant_info(key: String, workspace: bool, created_at: i64) -> crate::protocol::GrantInfo {
    let (kind, label) = describe_grant(&key);
    crate::protocol::GrantInfo {
        kind: kind.into(),
        label,
        scope: if workspace { "workspace" } else { "session" }.into(),
        key,
        created_at,
    }
}

/// A grant key in words, and its kind.
fn describe_grant(key: &str) -> (&'static str, String) {
    use crate::policy::{Access, GrantKey};
    match GrantKey::parse(key) {
        Some(GrantKey::Effect(e)) => ("effect", format!("{} effects without asking", e.as_str())),
        Some(GrantKey::Dir { access, path }) => (
            "directory",
            match access {
                Access::Write => format!("reading and writing under {}", path.display()),
                Access::Read => format!("reading under {}", path.display()),
            },
        ),
        Some(GrantKey::Prefix(argv)) => (
            "prefix",
            format!("commands starting with `{}`", argv.join(" ")),
        ),
        Some(GrantKey::Command(h)) => {
            let short: String = h.chars().take(12).collect();
            ("command", format!("one exact command (sha256 {short}…)"))
        }
        Some(GrantKey::File(p)) => ("file", format!("the file {}", p.display())),
        Some(GrantKey::Net(origin)) => ("network", format!("connections to {origin}")),
        Some(GrantKey::Jail(p)) => ("jail", format!("commands see {} (read-only)", p.display())),
        Some(GrantKey::Mcp {
            server,
            tool,
            version,
        }) => (
            "mcp",
            format!("the MCP tool {server}/{tool} (version {version})"),
        ),
        // Never stored (they allow the one call answered); shown if an old row has one.
        Some(GrantKey::OutsideSandbox(_)) => ("once", "one command outside the sandbox".into()),
        Some(GrantKey::SshAgent(_)) => ("once", "one command with your SSH keys".into()),
        Some(GrantKey::PluginInstall(_)) => ("once", "one plugin install".into()),
        Some(GrantKey::ForcePush(_)) => ("once", "one force push".into()),
        None => {
            if let Some(p) = key.strip_prefix("write:") {
                ("write", format!("changes to {p}"))
            } else if let Some(h) = key.strip_prefix("hooks:") {
                let short: String = h.chars().take(12).collect();
                (
                    "hooks",
                    format!("running the hooks of one hooks file (sha256 {short}…)"),
                )
            } else if let Some(p) = key.strip_prefix("native-search:") {
                ("web_search", format!("web search through {p}"))
            } else if let Some(p) = key.strip_prefix("native-search-declined:") {
                (
                    "web_search",
                    format!("no web search through {p} (declined; revoke to be asked again)"),
                )
            } else {
                ("other", key.to_string())
            }
        }
    }
}

impl Core {
    /// What a session may do without asking: the server's ceiling and switches, the session's
    /// mode, and every grant (its own and its workspace's rules; a subagent's are its root's).
    pub async fn permissions(
        &self,
        id: &crate::protocol::SessionId,
    ) -> ServiceResult<crate::protocol::SessionPermissions> {
        let row = self.load_session(id).await?;
        let owner = crate::subagents::grant_owner(&self.store, &row).await;
        let grants = self
            .store
            .grant_rows(&owner)
            .await
            .map_err(ServiceError::Store)?
            .into_iter()
            .map(|g| grant_info(g.key, g.workspace.is_some(), g.created_at))
            .collect();
        let c = &self.cfg;
        Ok(crate::protocol::SessionPermissions {
            session: row.id.clone(),
            mode: row.mode,
            agent: row.agent,
            workspace: row.workspace.clone(),
            ceiling: c.ceiling_info(),
            read_only: c.read_only,
            yolo: c.yolo,
            extra_roots: c.extra_roots_shown(),
            sandbox: self.env.tools.sandbox.info().await,
            grants,
        })
    }

    /// Let `path`, which the jail hid from one of the session's commands, into the session's
    /// later commands, read-only ("allow for this session" on the command's card). Refused with
    /// the reason by the one check every path entering the jail passes (`Sandbox::admit`): the
    /// hard-deny list, the state directory, HOME or above, a socket, FIFO or device, a masked
    /// system file, a path the jail does not hide; a symbolic link is judged as what it points
    /// to, which the grant names — and, the link being hidden too, a second grant lets the
    /// link's own path in (bound there with its target), so the command that named it works.
    /// A subagent's grant is its root session's.
    pub async fn allow_in_jail(
        &self,
        id: &crate::protocol::SessionId,
        path: &std::path::Path,
    ) -> ServiceResult<crate::protocol::GrantInfo> {
        let row = self.load_session(id).await?;
        let Some(sandbox) = self.env.tools.sandbox.get().await else {
            return Err(ServiceError::Conflict(
                "no sandbox runs this server's commands: there is nothing to let in".into(),
            ));
        };
        let owner = crate::subagents::grant_owner(&self.store, &row).await;
        let grants = self.grant_set(id).await?;
        let paths = crate::sandbox::session_paths(&self.env.paths, &row);
        let job = crate::sandbox::Job::for_session(&paths, crate::policy::jail_paths(&grants));
        let admitted = sandbox.admit(&job, path).map_err(ServiceError::Invalid)?;
        // What it resolves to first (the grant returned), then the link's own path if any.
        let keys: Vec<String> = admitted
            .iter()
            .map(|p| crate::policy::jail_key(p))
            .collect();
        for key in &keys {
            self.store
                .add_grant(&owner, key)
                .await
                .map_err(ServiceError::Store)?;
        }
        let key = keys.into_iter().next().unwrap_or_default();
        self.env
            .live
            .grants_epoch
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(grant_info(key, false, crate::util::now_ms()))
    }

    /// Revoke one grant of a session (`workspace`: the rule kept for its workspace). Runs in
    /// flight see it at their next call.
    pub async fn revoke_grant(
        &self,
        id: &crate::protocol::SessionId,
        key: &str,
        workspace: bool,
    ) -> ServiceResult<()> {
        let row = self.load_session(id).await?;
        let ws = workspace.then_some(row.workspace.as_str());
        let owner = crate::subagents::grant_owner(&self.store, &row).await;
        let removed = self
            .store
            .revoke_grant(&owner, ws, key)
            .await
            .map_err(ServiceError::Store)?;
        if !removed {
            return Err(ServiceError::NotFound("grant"));
        }
        self.env
            .live
            .grants_epoch
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(())
    }

    /// Every tool as the session sees it now: enabled (runs without asking), ask or disabled,
    /// and why (what `/tools` lists).
    pub async fn tool_status(
        &self,
        id: &crate::protocol::SessionId,
    ) -> ServiceResult<crate::protocol::ToolStatusList> {
        let row = self.load_session(id).await?;
        let deps = &self.env;
        let grants = self.grant_set(id).await?;
        let c = &self.cfg;
        let (agent, mode, profile) = self.agent_of(&row.workspace, &row.agent, row.mode).await;
        let ctx = self.gate_context(agent, mode, &grants);
        let narrowed = profile.as_ref().and_then(|p| p.tools.as_ref());
        let data = crate::agent::toolset::TOOLS
            .iter()
            .map(|d| {
                let (status, reason) = if narrowed.is_some_and(|t| !t.allows(d.name())) {
                    (
                        "disabled",
                        format!("the {} agent's tools leave it out", row.agent),
                    )
                } else if d.only_agent().is_some_and(|a| a != agent) {
                    (
                        "disabled",
                        format!(
                            "only the {} agent has it",
                            d.only_agent().map_or("", |a| a.as_str())
                        ),
                    )
                } else if agent == Agent::Plan && !d.plan_agent() {
                    (
                        "disabled",
                        "the plan agent keeps nothing beyond its plan".to_string(),
                    )
                } else if d.interactive_only() && !deps.prompts.interactive {
                    (
                        "disabled",
                        "it needs someone to answer in the web app".to_string(),
                    )
                } else if !crate::policy::offered(
                    d.effect(),
                    agent,
                    deps.prompts.interactive,
                    c.ceiling,
                    c.read_only,
                    c.yolo,
                ) {
                    let why = if c.read_only {
                        "the server runs with --read-only".to_string()
                    } else if agent == crate::protocol::Agent::Plan {
                        "the plan agent is read-only".to_string()
                    } else if d.name() == "websearch"
                        && crate::tools::websearch::unchosen(&deps.tools.websearch.read())
                    {
                        "no web search provider is chosen (websearch.provider in config.json), and this headless run may use the public SearXNG default only with --allow-external".to_string()
                    } else {
                        format!(
                            "this headless run does not allow {} effects",
                            d.effect().as_str()
                        )
                    };
                    ("disabled", why)
                } else {
                    let p = crate::policy::Proposal {
                        origin: crate::policy::Origin::Model,
                        tool: d.name(),
                        effect: d.effect(),
                        paths: &[],
                        command: None,
                        command_text: None,
                        net: None,
                        mcp: None,
                    };
                    match crate::policy::decide(&ctx, &p) {
                        crate::policy::Decision::Allow { reason, .. } => ("enabled", reason),
                        crate::policy::Decision::Ask(a) => ("ask", a.reason),
                        crate::policy::Decision::Deny { reason, .. } => ("disabled", reason),
                    }
                };
                crate::protocol::ToolStatus {
                    name: d.name().to_string(),
                    effect: d.effect(),
                    status: status.into(),
                    reason,
                }
            })
            .collect();
        Ok(crate::protocol::ToolStatusList { data })
    }
}

impl Core {
    /// A session's grants (its own and its workspace's) as the gate reads them.
    pub(crate) async fn grant_set(
        &self,
        id: &crate::protocol::SessionId,
    ) -> ServiceResult<std::collections::HashSet<String>> {
        let row = self.load_session(id).await?;
        let owner = crate::subagents::grant_owner(&self.store, &row).await;
        Ok(self
            .store
            .list_grants(&owner)
            .await
            .map_err(ServiceError::Store)?
            .into_iter()
            .collect())
    }

    /// The gate's context for this server, an agent, a mode and grants.
    fn gate_context<'g>(
        &self,
        agent: crate::protocol::Agent,
        mode: crate::protocol::Mode,
        grants: &'g std::collections::HashSet<String>,
    ) -> crate::policy::Context<'g> {
        crate::policy::Context {
            agent,
            mode,
            interactive: self.env.prompts.interactive,
            ceiling: self.cfg.ceiling,
            read_only: self.cfg.read_only,
            yolo: self.cfg.yolo,
            grants,
        }
    }
}

impl Core {
    /// Create a session from an export (`tradewind sessions export --format json`): a new id,
    /// its events renumbered from 1, its messages in order; the workspace when still usable.
    pub async fn import_session(
        &self,
        mut body: serde_json::Value,
        confirmed_workspace: Option<&str>,
    ) -> ServiceResult<crate::protocol::ImportResult> {
        whole_numbers(&mut body);
        let doc: crate::protocol::SessionExport = serde_json::from_value(body)
            .map_err(|e| ServiceError::Invalid(format!("not a session export: {e}")))?;
        if doc.format != crate::protocol::SESSION_EXPORT_FORMAT {
            return Err(ServiceError::Invalid(format!(
                "format must be {:?} (what tradewind sessions export --format json writes)",
                crate::protocol::SESSION_EXPORT_FORMAT
            )));
        }
        let title =
            check_title(&doc.session.title).unwrap_or_else(|_| super::DEFAULT_TITLE.to_string());
        // The export's workspace is only a proposal: the session works where the user confirmed
        // (never `/`), else in the server's own workspace.
        let workspace = match confirmed_workspace.filter(|w| !w.is_empty()) {
            Some(w) => {
                let p = check_workspace(w, &self.cfg.state_dir)?;
                if p == Path::new("/") {
                    return Err(ServiceError::Invalid(
                        "a session cannot work in / (the whole file system)".into(),
                    ));
                }
                p
            }
            None => self.cfg.workspace.clone(),
        };
        let export_workspace = doc.session.workspace.clone();
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        let (given_events, given_messages) = (count(doc.events.len()), count(doc.messages.len()));
        let mut events = Vec::with_capacity(doc.events.len());
        for v in doc.events {
            let v = serde_json::Value::Object(v);
            let Ok(f) = serde_json::from_value::<crate::protocol::EventFrame>(v) else {
                continue;
            };
            if let Ok(data) = serde_json::to_string(&f.payload) {
                events.push((f.run, f.payload.kind().to_string(), data, f.at));
            }
        }
        let mut messages = Vec::with_capacity(doc.messages.len());
        for v in doc.messages {
            let v = serde_json::Value::Object(v);
            let Ok(m) = serde_json::from_value::<crate::protocol::ExportedMessage>(v) else {
                continue;
            };
            if let Ok(parts) = serde_json::to_string(&m.parts) {
                messages.push((m.run_id, m.role.as_ref().to_string(), parts, m.created_at));
            }
        }

        let id = crate::protocol::SessionId::from(crate::util::new_id());
        let row = self
            .store
            .import_session(&crate::store::ImportSpec {
                id: &id,
                title: &title,
                workspace: &workspace.to_string_lossy(),
                agent: doc.session.agent,
                // An export cannot grant itself a mode: it starts in `ask`.
                mode: Mode::Ask,
                events: &events,
                messages: &messages,
            })
            .await?;
        let session = Session::from(row);
        self.events.session_updated(&session).await;
        Ok(crate::protocol::ImportResult {
            session,
            events: count(events.len()),
            messages: count(messages.len()),
            skipped_events: given_events - count(events.len()),
            skipped_messages: given_messages - count(messages.len()),
            export_workspace,
        })
    }
}

/// Numbers written as `5.0` read as the integers they are (a JSON tool may write any number so).
fn whole_numbers(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() <= crate::protocol::MAX_SAFE_INTEGER as f64
            {
                *v = serde_json::Value::from(f as i64);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(whole_numbers),
        serde_json::Value::Object(o) => o.values_mut().for_each(whole_numbers),
        _ => {}
    }
}
