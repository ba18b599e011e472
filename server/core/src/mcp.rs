//! MCP servers: the user's own config names them (`mcp.servers` / `mcpServers` in config.json);
//! they stay disconnected until `--allow-mcp` (or `mcp.allow`) connects the enabled ones at start
//! or the user connects one (`POST /api/mcp/servers/{name}/connect`). A stdio server runs in the
//! process sandbox with a cleared environment (only `envAllow` names pass); an HTTP server gets
//! the configured headers. Each connection's tools are offered as `mcp_<server>_<tool>` from the
//! next model turn, with effect `external`; the gate asks for every call (MCP never loosens), a grant
//! covering one tool in one version (description and schema), so a server that changes a tool
//! is asked about again.
//!
//! A tool keeps the connection it was listed on: after a reconnect, a call made against the old
//! listing fails clearly instead of running against a schema the model never saw.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ContentBlock, ResourceContents};
use rmcp::service::RunningService;
use serde::Deserialize;
use serde_json::Value;
use sha2::Digest;

use crate::config::{McpServerDef, McpSettings};
use crate::protocol::{
    KeyValueEntry, McpServerInfo, McpServerList, McpState, McpToolInfo, Part, TreeNode,
};
use crate::tools::output::{MAX_MODEL_TEXT, ToolOutput, bound_text};

type Client = RunningService<rmcp::RoleClient, Watch>;

/// The client side of a connection. On `notifications/tools/list_changed` it lists the tools
/// again and, when a description, schema or the set of tools differs from the listing the model
/// was given, marks the connection: its tools are withdrawn until a reconnect (a server that
/// merely repeats the notification with the same tools changes nothing).
#[derive(Clone, Default)]
struct Watch {
    tools_changed: Arc<std::sync::atomic::AtomicBool>,
    /// The listing the model was given: tool name → version (`None` while the connection is
    /// still listing them: that listing is the current one).
    versions: Arc<Mutex<Option<BTreeMap<String, String>>>>,
}

impl rmcp::ClientHandler for Watch {
    async fn on_tool_list_changed(
        &self,
        context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let now = match context.peer.list_all_tools().await {
            Ok(listed) => Some(
                listed
                    .iter()
                    .map(|t| (t.name.to_string(), described(t).3))
                    .collect::<BTreeMap<_, _>>(),
            ),
            Err(_) => None,
        };
        let given = self.versions.lock().clone();
        if given.is_some() && now != given {
            self.tools_changed
                .store(true, std::sync::atomic::Ordering::Release);
        }
    }
}

/// A listed tool's description, input schema, hints, and version (a hash of the three): what a
/// grant covers.
fn described(t: &rmcp::model::Tool) -> (String, Value, Vec<String>, String) {
    let hints = hints_of(t.annotations.as_ref());
    let description = t.description.as_deref().unwrap_or("").to_string();
    let schema = Value::Object((*t.input_schema).clone());
    let version = short_hash(&format!(
        "{description}\u{0}{}\u{0}{}",
        serde_json::to_string(&schema).unwrap_or_default(),
        hints.join(",")
    ));
    (description, schema, hints, version)
}

/// How long the handshake and the tool listing may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// A tool call's default and largest time limit.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
const MAX_CALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Providers accept tool names up to 64 characters of `[A-Za-z0-9_-]`.
const MAX_NAME: usize = 64;
/// Variables every stdio server gets besides its `envAllow` list.
const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"];

/// One live connection: the client and the process group to kill when it ends.
struct Connection {
    client: Client,
    /// The stdio server's process (group leader under the sandbox helper), if any.
    pid: Option<u32>,
    /// Set when a call found the connection gone (the server exited or crashed).
    lost: Mutex<Option<String>>,
}

impl Connection {
    fn new(client: Client, pid: Option<u32>) -> Connection {
        Connection {
            client,
            pid,
            lost: Mutex::new(None),
        }
    }

    /// The server said its tools changed since they were listed.
    fn tools_changed(&self) -> bool {
        self.client
            .service()
            .tools_changed
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Await one request on this connection, within `limit` and until the run is cancelled;
    /// never retried (it may have had effects). A broken transport marks the connection lost.
    /// `Err`: what the model is told.
    async fn request<T>(
        &self,
        server: &str,
        what: &str,
        limit: Duration,
        cancel: &tokio_util::sync::CancellationToken,
        work: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, ToolOutput> {
        let result = tokio::select! {
            r = tokio::time::timeout(limit, work) => r,
            () = cancel.cancelled() => {
                return Err(ToolOutput::err("cancelled", "the run was cancelled during the MCP call"));
            }
        };
        match result {
            Err(_) => Err(ToolOutput::err(
                "mcp_timeout",
                format!(
                    "the MCP server `{server}` did not answer within {} s",
                    limit.as_secs()
                ),
            )),
            Ok(Err(e)) => {
                if matches!(
                    e,
                    rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
                ) {
                    *self.lost.lock() = Some(format!("the connection broke during a {what}: {e}"));
                }
                Err(ToolOutput::err(
                    "mcp_error",
                    format!(
                        "the MCP server `{server}` failed the {what}: {e} (it was not retried: it may have had effects)"
                    ),
                ))
            }
            Ok(Ok(v)) => Ok(v),
        }
    }

    /// Why the connection is gone, if it is.
    fn gone(&self) -> Option<String> {
        if let Some(why) = self.lost.lock().clone() {
            return Some(why);
        }
        (self.client.is_closed() || self.client.peer().is_transport_closed())
            .then(|| "the server closed the connection (it exited or crashed)".to_string())
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            crate::sandbox::kill_tree_and_group(pid);
        }
    }
}

/// A tool of a connected server, as offered to the model.
pub struct McpTool {
    /// The name the model calls.
    pub name: String,
    pub server: String,
    /// The name on the server.
    pub remote: String,
    pub description: String,
    pub schema: Value,
    pub hints: Vec<String>,
    /// Hash of the description, schema and hints: what a grant covers.
    pub version: String,
    timeout: Duration,
    conn: Arc<Connection>,
}

impl McpTool {
    pub fn spec(&self) -> crate::provider::ToolSpec {
        crate::provider::ToolSpec {
            name: self.name.clone(),
            description: format!(
                "[MCP server `{}`, tool `{}`] {}",
                self.server, self.remote, self.description
            ),
            parameters: self.schema.clone(),
        }
    }

    pub fn usage(&self, headless_allowed: bool) -> crate::policy::McpUse {
        crate::policy::McpUse {
            server: self.server.clone(),
            tool: self.remote.clone(),
            version: self.version.clone(),
            headless_allowed,
            hints: self.hints.clone(),
        }
    }

    /// Call the tool (the gate has allowed it). Never retried: a call may have effects.
    pub async fn call(
        &self,
        input: &Value,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> ToolOutput {
        if self.conn.tools_changed() {
            return ToolOutput::err(
                "mcp_tools_changed",
                format!(
                    "the MCP server `{}` changed its tools since they were listed; the call was not run (the user can reconnect it)",
                    self.server
                ),
            );
        }
        if let Some(why) = self.conn.gone() {
            return ToolOutput::err(
                "mcp_disconnected",
                format!(
                    "the MCP server `{}` is no longer connected ({why}); the user can reconnect it",
                    self.server
                ),
            );
        }
        let arguments = match input {
            Value::Object(m) => Some(m.clone()),
            Value::Null => None,
            _ => return ToolOutput::err("invalid_input", "the arguments must be a JSON object"),
        };
        let mut params = CallToolRequestParams::new(self.remote.clone());
        params.arguments = arguments;
        let call = self.conn.client.call_tool(params);
        match self
            .conn
            .request(&self.server, "call", self.timeout, cancel, call)
            .await
        {
            Ok(r) => result_output(&r),
            Err(out) => out,
        }
    }
}

/// Images shown in the web app: at most this many bytes decoded.
const MAX_IMAGE_BYTES: usize = 1 << 20;
/// Table rows shown.
const MAX_ROWS: usize = 500;

/// What the model sees of a result, and what the web app shows: text parts as text; images as
/// image parts (the model reads a line naming them); structured content — `structuredContent`,
/// or a text part that is JSON — shaped as a table, key–value pairs or a tree becomes that
/// display part, with its text projection for the model when no text came with it.
pub fn result_output(r: &rmcp::model::CallToolResult) -> ToolOutput {
    let mut pieces: Vec<String> = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    for c in &r.content {
        pieces.push(match c {
            ContentBlock::Text(t) => {
                if let Ok(v) = serde_json::from_str::<Value>(&t.text)
                    && let Some((p, _)) = shaped(&v)
                {
                    parts.push(p);
                }
                t.text.clone()
            }
            ContentBlock::Image(i) => {
                let bytes = i.data.len() / 4 * 3;
                if bytes <= MAX_IMAGE_BYTES
                    && matches!(
                        i.mime_type.as_str(),
                        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
                    )
                {
                    parts.push(Part::Image {
                        mime_type: i.mime_type.clone(),
                        data: i.data.clone(),
                    });
                }
                format!("[image {}, {bytes} bytes]", i.mime_type)
            }
            ContentBlock::Audio(a) => {
                format!("[audio {}, {} bytes]", a.mime_type, a.data.len() / 4 * 3)
            }
            ContentBlock::Resource(e) => resource_text(&e.resource),
            ContentBlock::ResourceLink(l) => format!("[resource link {} ({})]", l.uri, l.name),
            _ => "[content of a kind this client does not know]".into(),
        });
    }
    let has_text = r.content.iter().any(|c| matches!(c, ContentBlock::Text(_)));
    if let Some(s) = &r.structured_content {
        let shape = shaped(s);
        if !has_text {
            pieces.push(match &shape {
                Some((_, text)) => text.clone(),
                None => serde_json::to_string_pretty(s).unwrap_or_default(),
            });
        }
        if let Some((p, _)) = shape
            && !parts.contains(&p)
        {
            parts.push(p);
        }
    }
    let text = bound_text(&pieces.join("\n"), MAX_MODEL_TEXT);
    let mut out = if r.is_error == Some(true) {
        ToolOutput::err("mcp_tool_error", text)
    } else {
        ToolOutput::ok(text)
    };
    out.parts = parts;
    out
}

/// A resource's contents for the model: text as text, a blob named.
fn resource_text(c: &ResourceContents) -> String {
    match c {
        ResourceContents::TextResourceContents { uri, text, .. } => {
            format!("[resource {uri}]\n{text}")
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => format!(
            "[resource {uri}, {}, {} bytes]",
            mime_type.as_deref().unwrap_or("binary"),
            blob.len() / 4 * 3
        ),
        _ => "[resource of a kind this client does not know]".into(),
    }
}

/// A JSON value as a scalar's text (`None` for arrays and objects).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => Some("null".into()),
        Value::Bool(_) | Value::Number(_) => Some(v.to_string()),
        _ => None,
    }
}

fn cell(v: &Value) -> String {
    scalar(v).unwrap_or_else(|| v.to_string())
}

/// A table, key–value pairs or a tree, and its text projection; `None` for other shapes.
pub fn shaped(v: &Value) -> Option<(Part, String)> {
    let o = v.as_object()?;
    let columns: Option<Vec<String>> = o
        .get("columns")
        .or_else(|| o.get("headers"))
        .and_then(Value::as_array)
        .map(|c| c.iter().map(cell).collect());
    if let (Some(columns), Some(rows)) = (columns, o.get("rows").and_then(Value::as_array)) {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| match r {
                Value::Array(a) => a.iter().map(cell).collect(),
                Value::Object(m) => columns
                    .iter()
                    .map(|c| m.get(c).map(cell).unwrap_or_default())
                    .collect(),
                other => vec![cell(other)],
            })
            .collect();
        let mut text = columns.join(" | ");
        for r in &rows {
            text.push('\n');
            text.push_str(&r.join(" | "));
        }
        let truncated = rows.len() > MAX_ROWS;
        let rows = rows.into_iter().take(MAX_ROWS).collect();
        return Some((
            Part::Table {
                columns,
                rows,
                truncated,
            },
            text,
        ));
    }
    if let Some(nodes) = o.get("nodes").and_then(Value::as_array)
        && o.len() == 1
    {
        let nodes: Option<Vec<TreeNode>> = nodes.iter().map(|n| tree_node(n, 0)).collect();
        let nodes = nodes?;
        let mut text = String::new();
        tree_text(&nodes, 0, &mut text);
        return Some((Part::Tree { nodes }, text.trim_end().to_string()));
    }
    if !o.is_empty() && o.len() <= 200 {
        let entries: Option<Vec<KeyValueEntry>> = o
            .iter()
            .map(|(k, v)| {
                scalar(v).map(|value| KeyValueEntry {
                    key: k.clone(),
                    value,
                })
            })
            .collect();
        let entries = entries?;
        let text = entries
            .iter()
            .map(|e| format!("{}: {}", e.key, e.value))
            .collect::<Vec<_>>()
            .join("\n");
        return Some((Part::KeyValue { entries }, text));
    }
    None
}

fn tree_node(v: &Value, depth: usize) -> Option<TreeNode> {
    if depth > 32 {
        return None;
    }
    let o = v.as_object()?;
    let label = scalar(o.get("label")?)?;
    let meta = o.get("meta").map(cell);
    let children = match o.get("children") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(c)) => c
            .iter()
            .map(|n| tree_node(n, depth + 1))
            .collect::<Option<Vec<_>>>()?,
        Some(_) => return None,
    };
    Some(TreeNode {
        label,
        meta,
        children,
    })
}

fn tree_text(nodes: &[TreeNode], depth: usize, out: &mut String) {
    for n in nodes {
        out.push_str(&"  ".repeat(depth));
        out.push_str("- ");
        out.push_str(&n.label);
        if let Some(m) = &n.meta {
            out.push_str(&format!(" ({m})"));
        }
        out.push('\n');
        tree_text(&n.children, depth + 1, out);
    }
}

/// The tools that reach a server itself rather than one of its tools: offered when servers are
/// configured; each asks like any MCP call (key `mcp:<server>/<what>#hub`).
pub const HUB_TOOLS: &[&str] = &["mcp_connect", "mcp_resource", "mcp_prompt"];

/// Connect a configured MCP server for this session, so its tools are offered.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ConnectArgs {
    /// The server's name (`GET /api/mcp/servers`, or as the user named it).
    server: String,
}

/// List a connected server's resources, or read one.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResourceArgs {
    server: String,
    /// The resource's URI; leave out to list the resources.
    uri: Option<String>,
}

/// List a connected server's prompts, or get one filled in.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct PromptArgs {
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

struct Slot {
    def: McpServerDef,
    state: McpState,
    error: Option<String>,
    info: Option<String>,
    tools: Vec<Arc<McpTool>>,
    /// The live connection (its tools hold it too).
    conn: Option<Arc<Connection>>,
    /// `user` (config.json in the state directory) or `workspace` (an approved
    /// `.tradewind/config.json`).
    source: &'static str,
}

/// Why opening a connection failed; `auth`: the server asked for credentials.
struct OpenFailure {
    auth: bool,
    message: String,
}

impl From<String> for OpenFailure {
    fn from(message: String) -> Self {
        OpenFailure {
            auth: false,
            message,
        }
    }
}

/// Why a server cannot be connected.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("no MCP server named `{0}` in config.json")]
    NotFound(String),
    #[error("the MCP server `{0}` is disabled in config.json")]
    Disabled(String),
    #[error("MCP is off: the server runs --read-only")]
    Blocked,
    #[error("{0}")]
    Failed(String),
}

/// Every configured server and its connection.
pub struct McpHub {
    slots: RwLock<BTreeMap<String, Slot>>,
    /// Serialises connects of one server (a second Connect waits for the first).
    connecting: tokio::sync::Mutex<()>,
    sandbox: Option<Arc<crate::sandbox::Sandbox>>,
    workspace: PathBuf,
    /// `--allow-mcp` / `mcp.allow`.
    pub allowed: bool,
    /// `--read-only`.
    pub blocked: bool,
    /// The built-in tools' names: an MCP tool never takes one.
    reserved: Vec<String>,
}

impl McpHub {
    pub fn new(
        settings: &McpSettings,
        read_only: bool,
        workspace: &Path,
        sandbox: Option<Arc<crate::sandbox::Sandbox>>,
    ) -> McpHub {
        let slots = settings
            .servers
            .iter()
            .map(|(name, def)| {
                let state = if def.enabled == Some(false) {
                    McpState::Disabled
                } else {
                    McpState::Disconnected
                };
                let slot = Slot {
                    def: def.clone(),
                    state,
                    error: None,
                    info: None,
                    tools: Vec::new(),
                    conn: None,
                    source: "user",
                };
                (name.clone(), slot)
            })
            .collect();
        McpHub {
            slots: RwLock::new(slots),
            connecting: tokio::sync::Mutex::new(()),
            sandbox,
            workspace: workspace.to_path_buf(),
            allowed: settings.allow && !read_only,
            blocked: read_only,
            reserved: Vec::new(),
        }
    }

    /// The names MCP tools must not take (the built-in tools').
    pub fn reserve_names(mut self, names: impl IntoIterator<Item = String>) -> McpHub {
        self.reserved.extend(names);
        self
    }

    /// Add the servers of an approved workspace config; a name the user's config has keeps the
    /// user's definition.
    pub fn add_workspace_servers(&self, servers: &BTreeMap<String, McpServerDef>) {
        let mut slots = self.slots.write();
        for (name, def) in servers {
            slots.entry(name.clone()).or_insert_with(|| Slot {
                def: def.clone(),
                state: if def.enabled == Some(false) {
                    McpState::Disabled
                } else {
                    McpState::Disconnected
                },
                error: None,
                info: None,
                tools: Vec::new(),
                conn: None,
                source: "workspace",
            });
        }
    }

    /// The names of the servers the user's own config defines.
    pub fn user_server_names(&self) -> Vec<String> {
        self.slots
            .read()
            .iter()
            .filter(|(_, s)| s.source == "user")
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Connect every enabled server (at start, with `--allow-mcp`); failures are logged and
    /// shown in the list.
    pub async fn connect_enabled(&self) {
        let names: Vec<String> = self
            .slots
            .read()
            .iter()
            .filter(|(_, s)| s.state == McpState::Disconnected)
            .map(|(n, _)| n.clone())
            .collect();
        for n in names {
            if let Err(e) = self.connect(&n).await {
                tracing::warn!(server = %n, error = %e, "MCP server not connected");
            }
        }
    }

    /// The servers as the API shows them.
    pub fn list(&self) -> McpServerList {
        self.refresh_closed();
        let data = self
            .slots
            .read()
            .iter()
            .map(|(name, s)| info_of(name, s))
            .collect();
        McpServerList {
            data,
            allowed: self.allowed,
            blocked: self.blocked,
        }
    }

    pub fn get(&self, name: &str) -> Option<McpServerInfo> {
        self.refresh_closed();
        self.slots.read().get(name).map(|s| info_of(name, s))
    }

    /// A server whose connection closed by itself (it crashed or exited) is `failed`.
    fn refresh_closed(&self) {
        let mut slots = self.slots.write();
        for s in slots.values_mut() {
            if s.state != McpState::Connected {
                continue;
            }
            if let Some(why) = s.conn.as_ref().and_then(|c| c.gone()) {
                s.state = McpState::Failed;
                s.error = Some(why);
                s.tools.clear();
                s.conn = None;
            } else if s.conn.as_ref().is_some_and(|c| c.tools_changed()) {
                s.state = McpState::NeedsRestart;
                s.error = Some(
                    "the server changed its tools: reconnect to list them again (they are not offered meanwhile)"
                        .into(),
                );
                s.tools.clear();
                s.conn = None;
            }
        }
    }

    /// The tools of every connected server, in server order.
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        self.refresh_closed();
        self.slots
            .read()
            .values()
            .filter(|s| s.state == McpState::Connected)
            .flat_map(|s| s.tools.iter().cloned())
            .collect()
    }

    /// (Re)connect a server and list its tools.
    pub async fn connect(&self, name: &str) -> Result<McpServerInfo, McpError> {
        if self.blocked {
            return Err(McpError::Blocked);
        }
        let _one = self.connecting.lock().await;
        let def = {
            let mut slots = self.slots.write();
            let s = slots
                .get_mut(name)
                .ok_or_else(|| McpError::NotFound(name.into()))?;
            if s.state == McpState::Disabled {
                return Err(McpError::Disabled(name.into()));
            }
            s.state = McpState::Connecting;
            s.error = None;
            s.tools.clear();
            s.conn = None;
            s.def.clone()
        };
        let opened = tokio::time::timeout(CONNECT_TIMEOUT, self.open(name, &def)).await;
        let result = match opened {
            Err(_) => Err(OpenFailure::from(format!(
                "no answer within {} s (handshake and tool list)",
                CONNECT_TIMEOUT.as_secs()
            ))),
            Ok(r) => r,
        };
        let mut slots = self.slots.write();
        let s = slots
            .get_mut(name)
            .ok_or_else(|| McpError::NotFound(name.into()))?;
        match result {
            Ok((conn, info, tools)) => {
                s.state = McpState::Connected;
                s.info = info;
                s.tools = tools;
                s.conn = Some(conn);
                Ok(info_of(name, s))
            }
            Err(e) => {
                s.state = if e.auth {
                    McpState::NeedsAuth
                } else {
                    McpState::Failed
                };
                s.error = Some(e.message.clone());
                Err(McpError::Failed(e.message))
            }
        }
    }

    /// Close a server's connection (its tools are no longer offered).
    pub fn disconnect(&self, name: &str) -> Result<McpServerInfo, McpError> {
        let mut slots = self.slots.write();
        let s = slots
            .get_mut(name)
            .ok_or_else(|| McpError::NotFound(name.into()))?;
        if s.state != McpState::Disabled {
            s.state = McpState::Disconnected;
        }
        s.error = None;
        // The last holder dropped drops the connection, which kills a stdio server's group.
        s.tools.clear();
        s.conn = None;
        Ok(info_of(name, s))
    }

    /// Whether any server is configured (the hub tools are offered only then).
    pub fn has_servers(&self) -> bool {
        !self.slots.read().is_empty()
    }

    /// Run a hub tool (the gate has allowed it).
    pub async fn run(
        &self,
        call: HubCall,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> ToolOutput {
        let server = call.server().to_string();
        if let HubCall::Connect(name) = &call {
            return match self.connect(name).await {
                Ok(info) => {
                    let names: Vec<&str> = info.tools.iter().map(|t| t.name.as_str()).collect();
                    ToolOutput::ok(format!(
                        "Connected `{name}` ({}): {} tool(s), offered from your next step: {}",
                        info.server_info.as_deref().unwrap_or("unnamed server"),
                        names.len(),
                        names.join(", ")
                    ))
                }
                Err(e) => ToolOutput::err("mcp_connect_failed", e),
            };
        }
        self.refresh_closed();
        let conn = self.slots.read().get(&server).map(|s| s.conn.clone());
        let conn = match conn {
            None => {
                return ToolOutput::err(
                    "invalid_input",
                    format!("no MCP server named `{server}` is configured"),
                );
            }
            Some(None) => {
                return ToolOutput::err(
                    "mcp_disconnected",
                    format!("the MCP server `{server}` is not connected: call mcp_connect first"),
                );
            }
            Some(Some(c)) => c,
        };
        let work = hub_request(&conn, call);
        match conn
            .request(&server, "request", CALL_TIMEOUT, cancel, work)
            .await
        {
            Ok(text) => ToolOutput::ok(bound_text(&text, MAX_MODEL_TEXT)),
            Err(out) => out,
        }
    }

    async fn open(
        &self,
        name: &str,
        def: &McpServerDef,
    ) -> Result<(Arc<Connection>, Option<String>, Vec<Arc<McpTool>>), OpenFailure> {
        let conn = if let Some(url) = &def.url {
            open_http(url, &def.headers).await?
        } else if let Some(command) = &def.command {
            self.open_stdio(command, def).await?
        } else {
            return Err(OpenFailure::from(
                "the server has neither `command` nor `url`".to_string(),
            ));
        };
        let conn = Arc::new(conn);
        let info = conn.client.peer_info().and_then(|p| {
            p.server_info
                .as_ref()
                .map(|i| format!("{} {}", i.name, i.version))
        });
        let listed = conn
            .client
            .list_all_tools()
            .await
            .map_err(|e| OpenFailure::from(format!("cannot list its tools: {e}")))?;
        let timeout = def
            .timeout
            .map_or(CALL_TIMEOUT, Duration::from_secs)
            .min(MAX_CALL_TIMEOUT);
        let mut taken: Vec<String> = self.reserved.clone();
        taken.extend(HUB_TOOLS.iter().map(|t| t.to_string()));
        {
            let slots = self.slots.read();
            for (n, s) in slots.iter() {
                if n != name {
                    taken.extend(s.tools.iter().map(|t| t.name.clone()));
                }
            }
        }
        let mut tools = Vec::new();
        let mut versions = BTreeMap::new();
        for t in listed {
            let (description, schema, hints, version) = described(&t);
            versions.insert(t.name.to_string(), version.clone());
            let offered = tool_name(name, &t.name, &taken);
            taken.push(offered.clone());
            tools.push(Arc::new(McpTool {
                name: offered,
                server: name.to_string(),
                remote: t.name.to_string(),
                description,
                schema,
                hints,
                version,
                timeout,
                conn: conn.clone(),
            }));
        }
        *conn.client.service().versions.lock() = Some(versions);
        Ok((conn, info, tools))
    }

    async fn open_stdio(&self, command: &str, def: &McpServerDef) -> Result<Connection, String> {
        let program = find_program(command)
            .ok_or_else(|| format!("`{command}` is not a program found in PATH"))?;
        let args: Vec<std::ffi::OsString> = def.args.iter().map(Into::into).collect();
        let mut cmd = match &self.sandbox {
            Some(s) => s.command_reading(
                &self.workspace,
                &installation(&program, def),
                &program,
                &args,
            ),
            None => {
                let mut c = tokio::process::Command::new(&program);
                c.args(&args);
                c.process_group(0);
                c
            }
        };
        cmd.current_dir(&self.workspace);
        cmd.env_clear();
        for k in BASE_ENV
            .iter()
            .copied()
            .chain(def.env_allow.iter().map(String::as_str))
        {
            if let Some(v) = std::env::var_os(k) {
                cmd.env(k, v);
            }
        }
        cmd.envs(&def.env);
        let (proc, stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{command}`: {e}"))?;
        let pid = proc.id();
        let tail = Arc::new(Mutex::new(String::new()));
        if let Some(err) = stderr {
            tokio::spawn(drain_stderr(err, tail.clone()));
        }
        match Watch::default().serve(proc).await {
            Ok(client) => Ok(Connection::new(client, pid)),
            Err(e) => {
                if let Some(p) = pid {
                    crate::sandbox::kill_tree_and_group(p);
                }
                let said = tail.lock().trim().to_string();
                Err(if said.is_empty() {
                    format!("the handshake failed: {e}")
                } else {
                    format!("the handshake failed: {e}; it said: {said}")
                })
            }
        }
    }
}

/// One request of a hub tool to a connected server; the text for the model.
async fn hub_request(conn: &Connection, call: HubCall) -> Result<String, rmcp::ServiceError> {
    match call {
        HubCall::Resource(_, None) => conn.client.list_all_resources().await.map(|rs| {
            rs.iter()
                .map(|r| {
                    format!(
                        "{} — {}{}",
                        r.uri,
                        r.name,
                        r.mime_type
                            .as_deref()
                            .map(|m| format!(" ({m})"))
                            .unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        }),
        HubCall::Resource(_, Some(uri)) => conn
            .client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(uri))
            .await
            .map(|r| {
                r.contents
                    .iter()
                    .map(resource_text)
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
        HubCall::Prompt(_, None, _) => conn.client.list_all_prompts().await.map(|ps| {
            ps.iter()
                .map(|p| {
                    let args: Vec<String> = p
                        .arguments
                        .iter()
                        .flatten()
                        .map(|a| {
                            if a.required == Some(true) {
                                a.name.clone()
                            } else {
                                format!("{}?", a.name)
                            }
                        })
                        .collect();
                    format!(
                        "{}({}) — {}",
                        p.name,
                        args.join(", "),
                        p.description.as_deref().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        }),
        HubCall::Prompt(_, Some(name), arguments) => {
            let mut params = rmcp::model::GetPromptRequestParams::new(name);
            params.arguments =
                arguments.map(|a| a.into_iter().map(|(k, v)| (k, Value::String(v))).collect());
            conn.client.get_prompt(params).await.map(|r| {
                r.messages
                    .iter()
                    .map(|m| {
                        let role = match m.role {
                            rmcp::model::Role::User => "user",
                            rmcp::model::Role::Assistant => "assistant",
                        };
                        let one = rmcp::model::CallToolResult::success(vec![m.content.clone()]);
                        format!("{role}: {}", result_output(&one).text)
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n")
            })
        }
        HubCall::Connect(_) => Ok(String::new()),
    }
}

async fn open_http(
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<Connection, OpenFailure> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let parsed = url::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{url}` must be http(s)").into());
    }
    let mut h = HashMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("`{k}` is not an HTTP header name"))?;
        let value = reqwest::header::HeaderValue::from_str(&expand_env(v)?)
            .map_err(|_| format!("the header `{k}` has a value HTTP cannot carry"))?;
        h.insert(name, value);
    }
    let cfg = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(h);
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(cfg);
    let client = Watch::default().serve(transport).await.map_err(|e| match e.auth_challenge() {
        Some(challenge) => OpenFailure {
            auth: true,
            message: format!(
                "the server asks for credentials ({challenge}): give it a header from an environment variable in config.json, e.g. \"headers\": {{\"Authorization\": \"Bearer ${{TOKEN}}\"}}"
            ),
        },
        None => OpenFailure::from(format!("the handshake failed: {e}")),
    })?;
    Ok(Connection::new(client, None))
}

/// `${NAME}` → the variable NAME of the server's environment (an unset one is an error, so a
/// missing token is named rather than sent empty).
fn expand_env(v: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = v;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed `${{` in the header value `{v}`"));
        };
        let name = &after[..end];
        let val = std::env::var(name)
            .map_err(|_| format!("the environment variable `{name}` a header names is not set"))?;
        out.push_str(&val);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Keep the last 2 KB a server wrote to stderr (for the error shown when it fails).
async fn drain_stderr(err: tokio::process::ChildStderr, tail: Arc<Mutex<String>>) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(err).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(target: "mcp", "{line}");
        let mut t = tail.lock();
        t.push_str(&line);
        t.push('\n');
        if t.len() > 2048 {
            let cut = t.len() - 2048;
            let cut = (cut..t.len())
                .find(|&i| t.is_char_boundary(i))
                .unwrap_or(t.len());
            t.drain(..cut);
        }
    }
}

/// What a stdio server must read besides the system and the workspace: for the program and each
/// argument that is an existing absolute path, the project it belongs to (the directory holding
/// its `node_modules`, `.venv` or `site-packages`), else its directory. Read-only.
fn installation(program: &Path, def: &McpServerDef) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let paths = std::iter::once(program.to_path_buf()).chain(
        def.args
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && p.exists()),
    );
    for p in paths {
        let p = std::fs::canonicalize(&p).unwrap_or(p);
        let project = p
            .ancestors()
            .find(|a| {
                a.file_name()
                    .is_some_and(|n| n == "node_modules" || n == ".venv" || n == "site-packages")
            })
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let dir = project.or_else(|| {
            if p.is_dir() {
                Some(p.clone())
            } else {
                p.parent().map(Path::to_path_buf)
            }
        });
        if let Some(d) = dir
            && d.parent().is_some()
            && !out.contains(&d)
        {
            out.push(d);
        }
    }
    out
}

fn find_program(command: &str) -> Option<PathBuf> {
    let p = Path::new(command);
    if p.components().count() > 1 {
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(command))
        .find(|c| c.is_file())
}

/// The command line or URL of a server, and its transport.
pub fn target_of(def: &McpServerDef) -> (&'static str, String) {
    match (&def.url, &def.command) {
        (Some(u), _) => ("http", u.clone()),
        (None, Some(c)) => (
            "stdio",
            std::iter::once(c.as_str())
                .chain(def.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        (None, None) => ("stdio", String::new()),
    }
}

fn info_of(name: &str, s: &Slot) -> McpServerInfo {
    let (transport, target) = target_of(&s.def);
    McpServerInfo {
        name: name.to_string(),
        transport: transport.into(),
        target,
        state: s.state,
        source: s.source.into(),
        error: s.error.clone(),
        server_info: s.info.clone(),
        tools: s
            .tools
            .iter()
            .map(|t| McpToolInfo {
                name: t.name.clone(),
                remote_name: t.remote.clone(),
                description: t.description.clone(),
                hints: t.hints.clone(),
            })
            .collect(),
    }
}

fn hints_of(a: Option<&rmcp::model::ToolAnnotations>) -> Vec<String> {
    let Some(a) = a else {
        return Vec::new();
    };
    let mut h = Vec::new();
    if a.read_only_hint == Some(true) {
        h.push("read-only".to_string());
    } else if a.destructive_hint != Some(false) {
        h.push("destructive".to_string());
    }
    if a.idempotent_hint == Some(true) {
        h.push("idempotent".to_string());
    }
    if a.open_world_hint != Some(false) {
        h.push("open-world".to_string());
    }
    h
}

fn short_hash(s: &str) -> String {
    hex::encode(&sha2::Sha256::digest(s.as_bytes())[..4])
}

/// `mcp_<server>_<tool>` in provider-safe characters, at most 64; a short hash of the server and
/// tool is appended when the name had to be cut or was taken.
pub fn tool_name(server: &str, tool: &str, taken: &[String]) -> String {
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let full = format!("mcp_{}_{}", safe(server), safe(tool));
    if full.len() <= MAX_NAME && !taken.contains(&full) {
        return full;
    }
    let hash = short_hash(&format!("{server}\u{0}{tool}"));
    let keep = MAX_NAME - hash.len() - 1;
    let mut cut: String = full.chars().take(keep).collect();
    cut.push('_');
    cut.push_str(&hash);
    cut
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn names_are_provider_safe_and_unique() {
        assert_eq!(tool_name("fs", "read_file", &[]), "mcp_fs_read_file");
        assert_eq!(tool_name("my server", "a.b/c", &[]), "mcp_my_server_a_b_c");
        let taken = vec!["mcp_a_b_c".to_string()];
        // `a` + `b_c` and `a_b` + `c` collide: the second gets a hash.
        let second = tool_name("a_b", "c", &taken);
        assert_ne!(second, "mcp_a_b_c");
        assert!(second.starts_with("mcp_a_b_c_"));
        let long = tool_name("server", &"x".repeat(100), &[]);
        assert_eq!(long.len(), MAX_NAME);
        assert_ne!(long, tool_name("server", &"x".repeat(101), &[]));
        assert!(
            long.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }

    #[test]
    fn header_values_name_variables() {
        assert_eq!(
            expand_env("Bearer ${PATH}").ok(),
            std::env::var("PATH").ok().map(|p| format!("Bearer {p}"))
        );
        assert!(
            expand_env("${TW_SURELY_UNSET_VARIABLE}")
                .unwrap_err()
                .contains("TW_SURELY_UNSET_VARIABLE")
        );
        assert!(expand_env("${OPEN").is_err());
        assert_eq!(expand_env("plain").ok().as_deref(), Some("plain"));
    }

    #[test]
    fn results_keep_text_and_name_the_rest() {
        let r: rmcp::model::CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"}
            ]
        }))
        .unwrap();
        let out = result_output(&r);
        assert!(out.ok);
        assert_eq!(out.text, "hello\n[image image/png, 3 bytes]");
        assert!(
            matches!(&out.parts[..], [Part::Image { mime_type, .. }] if mime_type == "image/png")
        );
        let r: rmcp::model::CallToolResult = serde_json::from_value(serde_json::json!({
            "content": [],
            "structuredContent": {"temperature": 21},
            "isError": true
        }))
        .unwrap();
        let out = result_output(&r);
        assert!(!out.ok);
        assert_eq!(out.text, "error [mcp_tool_error]: temperature: 21");
        assert_eq!(
            out.parts,
            vec![Part::KeyValue {
                entries: vec![KeyValueEntry {
                    key: "temperature".into(),
                    value: "21".into()
                }]
            }]
        );
    }

    #[test]
    fn structured_results_become_tables_and_trees() {
        let (p, text) = shaped(&serde_json::json!({
            "headers": ["name", "size"],
            "rows": [["a.txt", 3], {"name": "b.txt", "size": 5}]
        }))
        .unwrap();
        assert_eq!(text, "name | size\na.txt | 3\nb.txt | 5");
        assert!(matches!(p, Part::Table { ref rows, truncated: false, .. } if rows.len() == 2));
        let (p, text) = shaped(&serde_json::json!({"nodes": [
            {"label": "src", "children": [{"label": "main.rs", "meta": "2 KB"}]}
        ]}))
        .unwrap();
        assert_eq!(text, "- src\n  - main.rs (2 KB)");
        assert!(matches!(p, Part::Tree { ref nodes } if nodes[0].children.len() == 1));
        // Nested objects are neither: the JSON stays text.
        assert!(shaped(&serde_json::json!({"a": {"b": 1}})).is_none());
        assert!(shaped(&serde_json::json!([1, 2])).is_none());
    }
}
