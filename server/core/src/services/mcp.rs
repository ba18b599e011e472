//! MCP servers: list them, connect and disconnect them while the server runs.

use super::{Core, ServiceError, ServiceResult};
use crate::mcp::McpError;
use crate::protocol::{McpServerInfo, McpServerList, WorkspaceConfigView, WorkspaceMcpServer};

impl From<McpError> for ServiceError {
    fn from(e: McpError) -> Self {
        match e {
            McpError::NotFound(_) => ServiceError::NotFound("MCP server"),
            McpError::Disabled(_) | McpError::Blocked => ServiceError::Conflict(e.to_string()),
            McpError::Failed(m) => ServiceError::Upstream(m),
        }
    }
}

impl Core {
    /// Every configured MCP server, its state and tools.
    pub fn mcp_servers(&self) -> McpServerList {
        self.env.mcp.list()
    }

    /// Connect (or reconnect) a server: its tools are offered from the next model call.
    pub async fn mcp_connect(&self, name: &str) -> ServiceResult<McpServerInfo> {
        Ok(self.env.mcp.connect(name).await?)
    }

    /// Close a server's connection: its tools are no longer offered.
    pub fn mcp_disconnect(&self, name: &str) -> ServiceResult<McpServerInfo> {
        Ok(self.env.mcp.disconnect(name)?)
    }
}

impl Core {
    /// The workspace's `.tradewind/config.json`: what it names, and whether it is approved.
    pub async fn workspace_config(&self) -> ServiceResult<WorkspaceConfigView> {
        let ws = &self.cfg.workspace;
        let path = crate::workspace_config::path_of(ws);
        let read = crate::workspace_config::read(ws);
        let approved_hash = self
            .store
            .get_setting(&crate::workspace_config::setting_key(ws))
            .await?;
        let user = self.env.mcp.user_server_names();
        Ok(match read {
            None => WorkspaceConfigView {
                path: path.display().to_string(),
                present: false,
                hash: None,
                approved: false,
                servers: Vec::new(),
                ignored: Vec::new(),
            },
            Some(c) => WorkspaceConfigView {
                path: path.display().to_string(),
                present: true,
                approved: approved_hash.is_some() && approved_hash == c.hash,
                hash: c.hash,
                servers: c
                    .servers
                    .iter()
                    .map(|(name, def)| WorkspaceMcpServer {
                        name: name.clone(),
                        target: crate::mcp::target_of(def).1,
                        shadowed: user.contains(name),
                    })
                    .collect(),
                ignored: c.ignored,
            },
        })
    }

    /// Approve the workspace config with this hash: its servers are listed (disconnected) now
    /// and at every start while the file stays the same.
    pub async fn approve_workspace_config(&self, hash: &str) -> ServiceResult<WorkspaceConfigView> {
        let ws = &self.cfg.workspace;
        let Some(c) = crate::workspace_config::read(ws) else {
            return Err(ServiceError::NotFound("workspace config"));
        };
        if c.hash.as_deref() != Some(hash) {
            return Err(ServiceError::Conflict(
                "the file changed since it was shown: review it again".into(),
            ));
        }
        self.store
            .put_setting(&crate::workspace_config::setting_key(ws), hash)
            .await?;
        self.env.mcp.add_workspace_servers(&c.servers);
        self.workspace_config().await
    }
}
