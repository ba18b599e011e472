//! MCP calls as the tools' prepared calls: the one place the tool layer meets MCP (the tools
//! never name it; this module implements their [`Runnable`] seam). After each call, what a
//! jailed server created that programs outside the jail run is held, the user asked about each
//! (as after a shell command).
use std::sync::Arc;

use serde_json::Value;

use super::{HubCall, McpHub, McpTool};
use crate::tools::{BoxFuture, Prepared, Runnable, ToolCtx, ToolOutput};

/// A call of an MCP server's tool (as offered in this model turn).
pub fn prepare_tool(tool: Arc<McpTool>, input: Value, headless_allowed: bool) -> Prepared {
    let usage = tool.usage(headless_allowed);
    Prepared::external_mcp(usage, Box::new(ToolCall { tool, input }))
}

/// A call of `mcp_connect`, `mcp_resource` or `mcp_prompt`.
pub fn prepare_hub(hub: Arc<McpHub>, call: HubCall, headless_allowed: bool) -> Prepared {
    let usage = call.usage(headless_allowed);
    Prepared::external_mcp(usage, Box::new(HubToolCall { hub, call }))
}

struct HubToolCall {
    hub: Arc<McpHub>,
    call: HubCall,
}

impl Runnable for HubToolCall {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let server = self.call.server().to_string();
            // A connect holds what the server's start created itself (nobody asked).
            let connect = matches!(self.call, HubCall::Connect(_));
            let mut out = self.hub.run(self.call, ctx.cancel).await;
            if !connect && let Some(conn) = self.hub.connection(&server) {
                conn.hold_created(ctx, &server, &mut out).await;
            }
            out
        })
    }
}

struct ToolCall {
    tool: Arc<McpTool>,
    input: Value,
}

impl Runnable for ToolCall {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let mut out = self.tool.call(&self.input, ctx.cancel).await;
            self.tool
                .conn
                .hold_created(ctx, &self.tool.server, &mut out)
                .await;
            out
        })
    }
}
