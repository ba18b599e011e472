//! MCP servers over REST (the web app's MCP panel).

use axum::extract::{Path, State};

use super::AppState;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{
    McpServerInfo, McpServerList, SkillList, SkillTrust, WorkspaceConfigApproval,
    WorkspaceConfigView,
};

/// Every MCP server config.json names, with its state and tools.
///
/// States: `disabled` (`enabled: false`), `disconnected` (not connected yet: `--allow-mcp` /
/// `mcp.allow` connects at start, else Connect), `connecting`, `connected` (its tools are offered
/// from the next model call, and every call asks), `failed` (`error` says why: it could not
/// start, the handshake failed, it exited), `needs_restart`. `allowed`: connected at start and
/// callable by headless runs; `blocked`: the server runs `--read-only`, MCP is off.
#[utoipa::path(get, path = "/api/mcp/servers", tag = "mcp",
    responses((status = 200, description = "The configured MCP servers", body = McpServerList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_servers(State(state): State<AppState>) -> axum::Json<McpServerList> {
    axum::Json(state.mcp_servers())
}

/// Connect (or reconnect) an MCP server and list its tools.
///
/// Waits for the handshake and the tool list (at most 30 s). A stdio server starts in the
/// process sandbox with only the variables `envAllow` names. Its tools are offered to the agent
/// from the next model call; each call still asks.
#[utoipa::path(post, path = "/api/mcp/servers/{name}/connect", tag = "mcp",
    params(("name" = String, Path, description = "The server's name in config.json")),
    responses((status = 200, description = "Connected; its tools", body = McpServerInfo),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No server of that name", body = ErrorBody),
              (status = 409, description = "The server is disabled, or MCP is off (--read-only)", body = ErrorBody),
              (status = 502, description = "The server could not be started or did not answer", body = ErrorBody)))]
pub async fn connect_server(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<axum::Json<McpServerInfo>> {
    Ok(axum::Json(state.mcp_connect(&name).await?))
}

/// Disconnect an MCP server.
///
/// Its tools are no longer offered from the next model call, and a stdio server's process group
/// is stopped. Connect lists them again.
#[utoipa::path(post, path = "/api/mcp/servers/{name}/disconnect", tag = "mcp",
    params(("name" = String, Path, description = "The server's name in config.json")),
    responses((status = 200, description = "Disconnected", body = McpServerInfo),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No server of that name", body = ErrorBody)))]
pub async fn disconnect_server(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<axum::Json<McpServerInfo>> {
    Ok(axum::Json(state.mcp_disconnect(&name)?))
}

/// The workspace's own `.tradewind/config.json`, and whether it is approved.
///
/// A repository's file is untrusted: nothing in it is used until the user approves this exact
/// content (`hash`, SHA-256 of the file; any change needs approval again). Even approved, only
/// its MCP servers are read (without credential-like `envAllow` names or headers); `ignored`
/// lists what is not used and why.
#[utoipa::path(get, path = "/api/workspace/config", tag = "mcp",
    responses((status = 200, description = "The workspace config and its approval", body = WorkspaceConfigView),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn workspace_config(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<WorkspaceConfigView>> {
    Ok(axum::Json(state.workspace_config().await?))
}

/// Approve the workspace's `.tradewind/config.json` as shown.
///
/// `hash` is the one `GET /api/workspace/config` gave: a file changed since then is refused
/// (409). Approved, its MCP servers are listed (disconnected) now and at every start while the
/// file stays the same.
#[utoipa::path(post, path = "/api/workspace/config/approve", tag = "mcp", request_body = WorkspaceConfigApproval,
    responses((status = 200, description = "Approved", body = WorkspaceConfigView),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "The workspace has no .tradewind/config.json", body = ErrorBody),
              (status = 409, description = "The file changed since it was shown", body = ErrorBody),
              (status = 422, description = "Invalid body", body = ErrorBody)))]
pub async fn approve_workspace_config(
    State(state): State<AppState>,
    super::extract::ApiJson(p): super::extract::ApiJson<WorkspaceConfigApproval>,
) -> ApiResult<axum::Json<WorkspaceConfigView>> {
    Ok(axum::Json(state.approve_workspace_config(&p.hash).await?))
}

/// The Agent Skills the server's workspace's sessions see.
///
/// The workspace's own (`.tradewind/skills`, `.agents/skills`, `.claude/skills`) count only
/// once trusted as they are (`untrusted` says they are held back; `workspace_hash` is what to
/// trust); the user's own (`skills/` in the state directory) always. `skipped` names each folder
/// left out and why.
#[utoipa::path(get, path = "/api/skills", tag = "mcp",
    responses((status = 200, description = "The skills", body = SkillList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_skills(State(state): State<AppState>) -> ApiResult<axum::Json<SkillList>> {
    Ok(axum::Json(state.skills().await?))
}

/// Trust the workspace's skills as `GET /api/skills` showed them.
///
/// `hash` is the `workspace_hash` it gave: skills changed since are refused (409) and must be
/// reviewed again; any later change holds them back until trusted again. Needs the `admin`
/// scope.
#[utoipa::path(post, path = "/api/skills/trust", tag = "mcp", request_body = SkillTrust,
    responses((status = 200, description = "Trusted", body = SkillList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "The workspace has no skills", body = ErrorBody),
              (status = 409, description = "The skills changed since they were shown", body = ErrorBody),
              (status = 422, description = "Invalid body", body = ErrorBody)))]
pub async fn trust_skills(
    State(state): State<AppState>,
    super::extract::ApiJson(p): super::extract::ApiJson<SkillTrust>,
) -> ApiResult<axum::Json<SkillList>> {
    Ok(axum::Json(state.trust_skills(&p.hash).await?))
}

/// Turn a skill on or off in the server's workspace.
///
/// Off, it is still listed (`enabled: false`) but never offered to the model nor a slash
/// command. Needs the `admin` scope.
#[utoipa::path(put, path = "/api/skills/{name}", tag = "mcp", request_body = crate::protocol::SkillSwitch,
    params(("name" = String, Path, description = "The skill's name")),
    responses((status = 200, description = "Switched", body = SkillList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "No skill of that name", body = ErrorBody),
              (status = 422, description = "Invalid body", body = ErrorBody)))]
pub async fn switch_skill(
    State(state): State<AppState>,
    axum::extract::Path(name): axum::extract::Path<String>,
    super::extract::ApiJson(p): super::extract::ApiJson<crate::protocol::SkillSwitch>,
) -> ApiResult<axum::Json<SkillList>> {
    Ok(axum::Json(state.set_skill_enabled(&name, p.enabled).await?))
}

/// The agents a session of the server's workspace can run as.
///
/// `build` and `plan`, then the custom agents: the workspace's (`.tradewind/agents/<name>.md`,
/// `.claude/agents/`), which count only once trusted as they are (`untrusted` says they are
/// held back; `workspace_hash` is what to trust), and the user's (`agents/` in the state
/// directory). `skipped` names each file left out and why.
#[utoipa::path(get, path = "/api/agents", tag = "mcp",
    responses((status = 200, description = "The agents", body = crate::protocol::AgentList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_agents(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<crate::protocol::AgentList>> {
    Ok(axum::Json(state.agents().await?))
}

/// Trust the workspace's agents as `GET /api/agents` showed them.
///
/// `hash` is the `workspace_hash` it gave: agents changed since are refused (409); any later
/// change holds them back until trusted again. Needs the `admin` scope.
#[utoipa::path(post, path = "/api/agents/trust", tag = "mcp", request_body = SkillTrust,
    responses((status = 200, description = "Trusted", body = crate::protocol::AgentList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "The workspace has no agents", body = ErrorBody),
              (status = 409, description = "The agents changed since they were shown", body = ErrorBody),
              (status = 422, description = "Invalid body", body = ErrorBody)))]
pub async fn trust_agents(
    State(state): State<AppState>,
    super::extract::ApiJson(p): super::extract::ApiJson<SkillTrust>,
) -> ApiResult<axum::Json<crate::protocol::AgentList>> {
    Ok(axum::Json(state.trust_agents(&p.hash).await?))
}

/// The plugins installed in the state directory's `plugins/`, each on or off.
///
/// A plugin bundles skills, agents, prompt commands, hooks and MCP servers; nothing of it takes
/// effect until enabled. Install one with `tradewind plugin install SPEC --yes`.
#[utoipa::path(get, path = "/api/plugins", tag = "mcp",
    responses((status = 200, description = "The plugins", body = crate::protocol::PluginList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_plugins(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<crate::protocol::PluginList>> {
    Ok(axum::Json(state.plugins().await?))
}

/// Turn an installed plugin on or off.
///
/// On: its skills, agents, commands and hooks count from the next run, its MCP servers are
/// added (and connected where MCP is allowed). Off: all of it is taken away. Needs the
/// `admin` scope.
#[utoipa::path(put, path = "/api/plugins/{name}", tag = "mcp", request_body = crate::protocol::PluginSwitch,
    params(("name" = String, Path, description = "The plugin's name")),
    responses((status = 200, description = "Switched", body = crate::protocol::PluginList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "No plugin of that name is installed", body = ErrorBody),
              (status = 422, description = "Invalid body", body = ErrorBody)))]
pub async fn switch_plugin(
    State(state): State<AppState>,
    axum::extract::Path(name): axum::extract::Path<String>,
    super::extract::ApiJson(p): super::extract::ApiJson<crate::protocol::PluginSwitch>,
) -> ApiResult<axum::Json<crate::protocol::PluginList>> {
    Ok(axum::Json(
        state.set_plugin_enabled(&name, p.enabled).await?,
    ))
}

/// The hooks the server's workspace's sessions run.
///
/// The user's (`hooks.json` in the state directory) and the workspace's
/// (`.tradewind/hooks.json`, the `hooks` of `.claude/settings.json`), which count only once
/// trusted as they are (`untrusted` says they are held back; `workspace_hash` is what to trust).
/// Each file's `hash` is what a session's grant to run its hooks covers.
#[utoipa::path(get, path = "/api/hooks", tag = "mcp",
    responses((status = 200, description = "The hooks", body = crate::protocol::HookList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_hooks(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<crate::protocol::HookList>> {
    Ok(axum::Json(state.hooks().await?))
}

/// Trust the workspace's hooks as `GET /api/hooks` showed them.
///
/// `hash` is the `workspace_hash` it gave: hooks changed since are refused (409); any later
/// change holds them back until trusted again. Each session still allows a file's hooks to run
/// (the gate's own question). Needs the `admin` scope.
#[utoipa::path(post, path = "/api/hooks/trust", tag = "mcp", request_body = SkillTrust,
    responses((status = 200, description = "Trusted", body = crate::protocol::HookList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "The workspace has no hooks", body = ErrorBody),
              (status = 409, description = "The hooks changed since they were shown", body = ErrorBody),
              (status = 422, description = "Invalid body", body = ErrorBody)))]
pub async fn trust_hooks(
    State(state): State<AppState>,
    super::extract::ApiJson(p): super::extract::ApiJson<SkillTrust>,
) -> ApiResult<axum::Json<crate::protocol::HookList>> {
    Ok(axum::Json(state.trust_hooks(&p.hash).await?))
}

/// Every workspace whose files the user trusted.
///
/// Each workspace's `.tradewind/config.json` (`config`), skills and hooks approved, with the
/// hash approved and whether the files still hold it (`current`: false means they changed and
/// are held back until trusted again).
#[utoipa::path(get, path = "/api/trust", tag = "mcp",
    responses((status = 200, description = "What is trusted", body = crate::protocol::TrustList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_trust(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<crate::protocol::TrustList>> {
    Ok(axum::Json(state.trust_list().await?))
}

/// Take back a workspace's trust of one kind.
///
/// Its files of that kind are held back from now on, until trusted again. Needs the `admin`
/// scope.
#[utoipa::path(delete, path = "/api/trust", tag = "mcp", params(crate::protocol::TrustRevoke),
    responses((status = 204, description = "Revoked"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "Nothing of that kind is trusted for that workspace", body = ErrorBody),
              (status = 422, description = "An unknown kind, or no workspace", body = ErrorBody)))]
pub async fn revoke_trust(
    State(state): State<AppState>,
    super::extract::ApiQuery(q): super::extract::ApiQuery<crate::protocol::TrustRevoke>,
) -> ApiResult<axum::http::StatusCode> {
    state.revoke_trust(q.kind, &q.workspace).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}
