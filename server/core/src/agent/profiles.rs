//! Which agent a session or a subagent runs as: a built-in (`build`, `plan`) or a custom agent
//! of its workspace or of the user (see `crate::agents`), looked up by name each time it is
//! needed so an edited file counts from the next run without a restart.

use std::path::Path;
use std::sync::Arc;

use crate::agents::{Catalogue, Profile};
use crate::protocol::{Agent, AgentName};
use crate::store::Store;

/// Whether a tool of this name exists (a custom agent's `tools` may name only these).
pub fn known_tool(name: &str) -> bool {
    super::toolset::descriptor(name).is_some()
}

/// The custom agents a session of `workspace` can choose (the workspace's once trusted).
pub async fn catalogue(store: &Store, workspace: &Path, state_dir: &Path) -> Catalogue {
    let trusted = store
        .get_setting(&crate::agents::trust_key(workspace))
        .await
        .ok()
        .flatten();
    let plugins = store.plugins_setting().await;
    let (ws, state) = (workspace.to_path_buf(), state_dir.to_path_buf());
    tokio::task::spawn_blocking(move || {
        let dirs: Vec<_> = crate::plugins::enabled(&state, plugins.as_deref())
            .into_iter()
            .filter_map(|p| p.agents)
            .collect();
        crate::agents::catalogue(&ws, &state, trusted.as_deref(), &dirs, &known_tool)
    })
    .await
    .unwrap_or_default()
}

/// An agent name the session cannot see, with those it can.
#[derive(Debug, Clone)]
pub struct UnknownAgent {
    pub name: String,
    pub known: Vec<String>,
}

impl std::fmt::Display for UnknownAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no agent named `{}` here; agents: {}",
            self.name,
            self.known.join(", ")
        )
    }
}

/// The agent of this name: `None` for a built-in, its profile for a custom one.
pub async fn resolve(
    store: &Store,
    workspace: &Path,
    state_dir: &Path,
    name: &AgentName,
) -> Result<Option<Arc<Profile>>, UnknownAgent> {
    if name.builtin().is_some() {
        return Ok(None);
    }
    let c = catalogue(store, workspace, state_dir).await;
    match c.get(name.as_str()) {
        Some(p) => Ok(Some(Arc::new(p.clone()))),
        None => Err(UnknownAgent {
            name: name.to_string(),
            known: c.names(),
        }),
    }
}

/// The built-in an agent name stands on (a custom agent's `base`; one that cannot be found
/// counts as `plan`, the narrowest, so a view never shows more than a run would do).
pub async fn base_of(store: &Store, workspace: &Path, state_dir: &Path, name: &AgentName) -> Agent {
    match name.builtin() {
        Some(a) => a,
        None => match resolve(store, workspace, state_dir, name).await {
            Ok(Some(p)) => p.base,
            _ => Agent::Plan,
        },
    }
}
