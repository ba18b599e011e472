//! The Agent Skills of the server's workspace: listed, and trusted as shown.

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{SkillInfo, SkillList};
use crate::skills::{self, Source};

impl Core {
    /// The skills a session of the server's workspace sees, and those left out.
    pub async fn skills(&self) -> ServiceResult<SkillList> {
        let c = self
            .store
            .skill_catalogue(&self.cfg.workspace, &self.cfg.state_dir)
            .await;
        let info = |s: &skills::Skill, enabled: bool| SkillInfo {
            name: s.name.clone(),
            description: s.description.clone(),
            source: match s.source {
                Source::Workspace => "workspace",
                Source::User => "user",
                Source::Plugin => "plugin",
            }
            .into(),
            dir: s.dir.display().to_string(),
            allowed_tools: s.allowed_tools.clone(),
            preview: crate::util::truncate_str(&s.body, 400).to_string(),
            enabled,
        };
        let mut data: Vec<SkillInfo> = c.skills.iter().map(|s| info(s, true)).collect();
        data.extend(c.disabled.iter().map(|s| info(s, false)));
        Ok(SkillList {
            data,
            skipped: c.skipped,
            workspace_hash: c.workspace_hash,
            untrusted: c.untrusted,
        })
    }

    /// Turn a skill on or off in the server's workspace (off: listed, never offered nor a
    /// command). An unknown name is refused.
    pub async fn set_skill_enabled(&self, name: &str, enabled: bool) -> ServiceResult<SkillList> {
        let ws = &self.cfg.workspace;
        let c = self.store.skill_catalogue(ws, &self.cfg.state_dir).await;
        if !c.skills.iter().chain(&c.disabled).any(|s| s.name == name) {
            return Err(ServiceError::NotFound("skill"));
        }
        let mut off = self.store.skill_choices(ws).await?.disabled;
        if enabled {
            off.remove(name);
        } else {
            off.insert(name.to_string());
        }
        let mut off: Vec<String> = off.into_iter().collect();
        off.sort();
        let key = skills::disabled_key(ws);
        if off.is_empty() {
            self.store.delete_setting(&key).await?;
        } else {
            self.store
                .put_setting(&key, &serde_json::to_string(&off).unwrap_or_default())
                .await?;
        }
        self.skills().await
    }

    /// Trust the workspace's skills as they were shown (`hash`); a change since is refused.
    pub async fn trust_skills(&self, hash: &str) -> ServiceResult<SkillList> {
        let ws = self.cfg.workspace.clone();
        let key = skills::trust_key(&ws);
        trust_as_shown(&self.store, &key, hash, "skills", move || {
            skills::workspace_hash(&ws)
        })
        .await?;
        self.skills().await
    }
}

impl Core {
    /// The hooks the server's workspace's sessions run, and every hooks file found.
    pub async fn hooks(&self) -> ServiceResult<crate::protocol::HookList> {
        let ws = self.cfg.workspace.clone();
        let state = self.cfg.state_dir.clone();
        let trusted = self
            .store
            .get_setting(&crate::hooks::trust_key(&ws))
            .await?;
        let plugins = self.store.plugins_setting().await;
        let (user, workspace, mut counted, plugin) = tokio::task::spawn_blocking(move || {
            let plugin: Vec<_> = crate::plugins::enabled(&state, plugins.as_deref())
                .iter()
                .filter_map(|p| crate::hooks::plugin_file(p.hooks.as_ref()?, &p.root))
                .collect();
            (
                crate::hooks::user_file(&state),
                crate::hooks::workspace_files(&ws),
                crate::hooks::files(&ws, &state, trusted.as_deref()),
                plugin,
            )
        })
        .await
        .unwrap_or_default();
        counted.extend(plugin.iter().cloned());
        let workspace_hash = crate::hooks::workspace_hash(&workspace);
        let untrusted = workspace_hash.is_some()
            && !counted
                .iter()
                .any(|c| workspace.iter().any(|w| w.path == c.path));
        let info = |f: &crate::hooks::HookFile, source: &str| crate::protocol::HookFileInfo {
            path: f.path.display().to_string(),
            hash: f.hash.clone(),
            source: source.into(),
            skipped: f.skipped.clone(),
        };
        let mut files: Vec<_> = user.iter().map(|f| info(f, "user")).collect();
        files.extend(workspace.iter().map(|f| info(f, "workspace")));
        files.extend(plugin.iter().map(|f| info(f, "plugin")));
        Ok(crate::protocol::HookList {
            data: counted
                .iter()
                .flat_map(|f| {
                    f.hooks.iter().flat_map(move |(event, hooks)| {
                        hooks.iter().map(move |h| crate::protocol::HookInfo {
                            file: f.path.display().to_string(),
                            event: event.as_str().into(),
                            matcher: h.matcher.clone(),
                            command: h.command.clone(),
                            timeout_secs: h.timeout.as_secs(),
                        })
                    })
                })
                .collect(),
            files,
            workspace_hash,
            untrusted,
        })
    }

    /// Trust the workspace's hooks as they were shown (`hash`); a change since is refused.
    pub async fn trust_hooks(&self, hash: &str) -> ServiceResult<crate::protocol::HookList> {
        let ws = self.cfg.workspace.clone();
        let key = crate::hooks::trust_key(&ws);
        trust_as_shown(&self.store, &key, hash, "hooks", move || {
            crate::hooks::workspace_hash(&crate::hooks::workspace_files(&ws))
        })
        .await?;
        self.hooks().await
    }
}

/// Keep `hash` as what the user trusts of a workspace's files of one kind (`what`), if it is
/// what they hold now (`now` reads it): a change since they were shown is refused (409), no
/// files at all is a 404.
pub(super) async fn trust_as_shown(
    store: &crate::store::Store,
    key: &str,
    hash: &str,
    what: &'static str,
    now: impl FnOnce() -> Option<String> + Send + 'static,
) -> ServiceResult<()> {
    let Some(now) = tokio::task::spawn_blocking(now).await.unwrap_or_default() else {
        return Err(ServiceError::NotFound(match what {
            "skills" => "workspace skills",
            "hooks" => "workspace hooks",
            _ => "workspace agents",
        }));
    };
    if now != hash {
        return Err(ServiceError::Conflict(format!(
            "the {what} changed since they were shown: review them again"
        )));
    }
    store.put_setting(key, hash).await?;
    Ok(())
}

/// What the user can trust of a workspace: the setting prefix of each kind.
const TRUSTED: [(crate::protocol::TrustKind, &str); 4] = [
    (crate::protocol::TrustKind::Config, "workspace_config:"),
    (crate::protocol::TrustKind::Skills, "workspace_skills:"),
    (crate::protocol::TrustKind::Hooks, "workspace_hooks:"),
    (crate::protocol::TrustKind::Agents, "workspace_agents:"),
];

/// The hash a workspace's files of `kind` hold now.
fn current_hash(kind: crate::protocol::TrustKind, ws: &std::path::Path) -> Option<String> {
    use crate::protocol::TrustKind;
    match kind {
        TrustKind::Config => crate::workspace_config::read(ws).and_then(|c| c.hash),
        TrustKind::Skills => skills::workspace_hash(ws),
        TrustKind::Hooks => crate::hooks::workspace_hash(&crate::hooks::workspace_files(ws)),
        TrustKind::Agents => crate::agents::workspace_hash(ws),
    }
}

/// Every workspace whose config, skills or hooks the user trusted, with the hash trusted and
/// whether its files still hold it.
pub async fn trust_list(store: &crate::store::Store) -> ServiceResult<crate::protocol::TrustList> {
    let mut rows = Vec::new();
    for (kind, prefix) in TRUSTED {
        for (key, hash) in store.settings_with_prefix(prefix).await? {
            if let Some(ws) = key.strip_prefix(prefix) {
                rows.push((kind, ws.to_string(), hash));
            }
        }
    }
    let data = tokio::task::spawn_blocking(move || {
        rows.into_iter()
            .map(|(kind, workspace, hash)| crate::protocol::TrustInfo {
                current: current_hash(kind, std::path::Path::new(&workspace)).as_deref()
                    == Some(hash.as_str()),
                kind,
                workspace,
                hash,
            })
            .collect()
    })
    .await
    .unwrap_or_default();
    Ok(crate::protocol::TrustList { data })
}

/// Take back the trust of a workspace's files of `kind`: they are held back from now on (a
/// workspace's MCP servers already listed stay until the next start).
pub async fn revoke_trust(
    store: &crate::store::Store,
    kind: crate::protocol::TrustKind,
    workspace: &str,
) -> ServiceResult<()> {
    let prefix = TRUSTED
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("", |(_, p)| *p);
    if workspace.is_empty()
        || !store
            .delete_setting(&format!("{prefix}{workspace}"))
            .await?
    {
        return Err(ServiceError::NotFound("trust"));
    }
    Ok(())
}

impl Core {
    pub async fn trust_list(&self) -> ServiceResult<crate::protocol::TrustList> {
        trust_list(&self.store).await
    }

    pub async fn revoke_trust(
        &self,
        kind: crate::protocol::TrustKind,
        workspace: &str,
    ) -> ServiceResult<()> {
        revoke_trust(&self.store, kind, workspace).await
    }
}
