//! Installed plugins: listed, enabled and disabled. Enabling one lets its skills, agents,
//! commands and hooks count from the next run and adds its MCP servers (connected now where
//! MCP is allowed); disabling takes them away again.

use super::{Core, ServiceError, ServiceResult};
use crate::plugins::{self, Plugin};
use crate::protocol::{PluginInfo, PluginList};
use crate::store::Store;

fn info(p: &Plugin, enabled: bool) -> PluginInfo {
    PluginInfo {
        name: p.name.clone(),
        version: p.version.clone(),
        description: p.description.clone(),
        enabled,
        root: p.root.display().to_string(),
        skills: p.skills.is_some(),
        agents: p.agents.is_some(),
        commands: p.commands.is_some(),
        hooks: p.hooks.is_some(),
        mcp_servers: p.mcp_servers.keys().cloned().collect(),
        websearch: p.websearch.as_ref().map(|(s, t)| format!("{s}/{t}")),
        problems: p.problems.clone(),
    }
}

/// Every installed plugin, each said on or off.
pub async fn list(store: &Store, state_dir: &std::path::Path) -> ServiceResult<PluginList> {
    let on = plugins::names(store.plugins_setting().await.as_deref());
    let state = state_dir.to_path_buf();
    let all = tokio::task::spawn_blocking(move || plugins::installed(&state))
        .await
        .unwrap_or_default();
    Ok(PluginList {
        data: all.iter().map(|p| info(p, on.contains(&p.name))).collect(),
    })
}

/// Turn a plugin on or off in the store (its effects follow from the next run); `Ok(plugin)`
/// as it is installed.
pub async fn switch(
    store: &Store,
    state_dir: &std::path::Path,
    name: &str,
    enabled: bool,
) -> ServiceResult<Plugin> {
    let state = state_dir.to_path_buf();
    let found = tokio::task::spawn_blocking(move || plugins::installed(&state))
        .await
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.name == name)
        .ok_or(ServiceError::NotFound("plugin"))?;
    let mut on = plugins::names(store.plugins_setting().await.as_deref());
    on.retain(|n| n != name);
    if enabled {
        on.push(name.to_string());
        on.sort();
    }
    store
        .put_setting(
            plugins::ENABLED_KEY,
            &serde_json::to_string(&on).unwrap_or_else(|_| "[]".into()),
        )
        .await?;
    Ok(found)
}

/// An enabled plugin's MCP servers as the hub takes them (bad entries left out and said).
pub fn mcp_defs(
    p: &Plugin,
) -> (
    std::collections::BTreeMap<String, crate::config::McpServerDef>,
    Vec<String>,
) {
    let mut defs = std::collections::BTreeMap::new();
    let mut bad = Vec::new();
    for (name, v) in &p.mcp_servers {
        match serde_json::from_value::<crate::config::McpServerDef>(v.clone()) {
            Ok(d) => {
                defs.insert(name.clone(), d);
            }
            Err(e) => bad.push(format!("MCP server {name}: {e}")),
        }
    }
    (defs, bad)
}

impl Core {
    pub async fn plugins(&self) -> ServiceResult<PluginList> {
        list(&self.store, &self.cfg.state_dir).await
    }

    /// Turn a plugin on (its MCP servers are added, and connected where MCP is allowed) or off
    /// (they are taken away).
    pub async fn set_plugin_enabled(&self, name: &str, enabled: bool) -> ServiceResult<PluginList> {
        let p = switch(&self.store, &self.cfg.state_dir, name, enabled).await?;
        let hub = &self.env.mcp;
        if enabled {
            let (defs, bad) = mcp_defs(&p);
            for b in bad {
                tracing::warn!(plugin = %p.name, "{b}");
            }
            hub.add_plugin_servers(&p.name, &p.root, &defs);
            if hub.allowed {
                let hub = hub.clone();
                let names = hub.plugin_server_names(&p.name);
                tokio::spawn(async move {
                    for n in names {
                        if let Err(e) = hub.connect(&n).await {
                            tracing::warn!(server = %n, error = %e, "plugin MCP server not connected");
                        }
                    }
                });
            }
        } else {
            hub.remove_plugin_servers(&p.name);
        }
        self.plugins().await
    }
}
