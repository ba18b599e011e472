//! MCP servers: list them, connect and disconnect them while the server runs.

use super::{Core, ServiceError, ServiceResult};
use crate::mcp::McpError;
use crate::protocol::{McpServerInfo, McpServerList};

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
        self.deps().mcp.list()
    }

    /// Connect (or reconnect) a server: its tools are offered from the next model call.
    pub async fn mcp_connect(&self, name: &str) -> ServiceResult<McpServerInfo> {
        Ok(self.deps().mcp.connect(name).await?)
    }

    /// Close a server's connection: its tools are no longer offered.
    pub fn mcp_disconnect(&self, name: &str) -> ServiceResult<McpServerInfo> {
        Ok(self.deps().mcp.disconnect(name)?)
    }
}
