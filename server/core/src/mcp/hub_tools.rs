//! The hub's own tools: `mcp_connect`, `mcp_resource` and `mcp_prompt`.

use super::*;

/// The tools that reach a server itself rather than one of its tools: offered when servers are
/// configured; each asks like any MCP call (key `mcp:<server>/<what>#hub`).
pub const HUB_TOOLS: &[&str] = &["mcp_connect", "mcp_resource", "mcp_prompt"];

/// Connect a configured MCP server for this session, so its tools are offered.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ConnectArgs {
    /// The server's name (`GET /api/mcp/servers`, or as the user named it).
    server: String,
}

/// List a connected server's resources, or read one.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ResourceArgs {
    server: String,
    /// The resource's URI; leave out to list the resources.
    uri: Option<String>,
}

/// List a connected server's prompts, or get one filled in.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PromptArgs {
    server: String,
    /// The prompt's name; leave out to list the prompts.
    name: Option<String>,
    /// The prompt's arguments.
    arguments: Option<BTreeMap<String, String>>,
}

/// A prepared call of a hub tool.
pub enum HubCall {
    Connect(String),
    Resource(String, Option<String>),
    Prompt(String, Option<String>, Option<BTreeMap<String, String>>),
}

impl HubCall {
    pub fn server(&self) -> &str {
        match self {
            HubCall::Connect(s) | HubCall::Resource(s, _) | HubCall::Prompt(s, _, _) => s,
        }
    }

    /// What the gate sees: the server and what is asked of it.
    pub fn usage(&self, headless_allowed: bool) -> crate::policy::McpUse {
        let what = match self {
            HubCall::Connect(_) => "connect",
            HubCall::Resource(..) => "resources",
            HubCall::Prompt(..) => "prompts",
        };
        crate::policy::McpUse {
            server: self.server().to_string(),
            tool: what.into(),
            version: "hub".into(),
            headless_allowed,
            hints: Vec::new(),
        }
    }
}

/// The specs of the hub tools.
pub fn hub_specs() -> Vec<crate::provider::ToolSpec> {
    use crate::tools::schema::args_schema;
    let spec = |name: &str, description: &str, parameters: Value| crate::provider::ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters,
    };
    vec![
        spec(
            "mcp_connect",
            "Connect one of the MCP servers the user configured, so its tools (mcp_<server>_<tool>) are offered from your next step. Asks the user.",
            args_schema::<ConnectArgs>(),
        ),
        spec(
            "mcp_resource",
            "List the resources of a connected MCP server (no uri), or read one (uri). Asks the user.",
            args_schema::<ResourceArgs>(),
        ),
        spec(
            "mcp_prompt",
            "List the prompts of a connected MCP server (no name), or get one with its arguments. Asks the user.",
            args_schema::<PromptArgs>(),
        ),
    ]
}

/// Parse a hub tool's arguments; `None` when `name` is not a hub tool.
pub fn prepare_hub(name: &str, input: &Value) -> Option<Result<HubCall, String>> {
    let parsed = match name {
        "mcp_connect" => ConnectArgs::deserialize(input).map(|a| HubCall::Connect(a.server)),
        "mcp_resource" => {
            ResourceArgs::deserialize(input).map(|a| HubCall::Resource(a.server, a.uri))
        }
        "mcp_prompt" => {
            PromptArgs::deserialize(input).map(|a| HubCall::Prompt(a.server, a.name, a.arguments))
        }
        _ => return None,
    };
    Some(parsed.map_err(|e| e.to_string()))
}
