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

pub mod adapter;
mod client;
mod hub_tools;
mod result;

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

use client::*;
pub use client::{McpTool, target_of, tool_name};
pub use hub_tools::{HUB_TOOLS, HubCall, hub_specs, prepare_hub};
use result::*;
pub use result::{result_output, shaped};

/// A connected server's tools: the offered ones, and the skipped ones with why.
type Listed = (Vec<Arc<McpTool>>, Vec<String>);

struct Slot {
    def: McpServerDef,
    state: McpState,
    error: Option<String>,
    info: Option<String>,
    tools: Vec<Arc<McpTool>>,
    /// Tools the server listed that are not offered, each with why (a schema no provider takes).
    skipped: Vec<String>,
    /// The live connection (its tools hold it too).
    conn: Option<Arc<Connection>>,
    /// `user` (config.json in the state directory), `workspace` (an approved
    /// `.tradewind/config.json`) or `plugin` (an enabled plugin's).
    source: &'static str,
    /// The plugin it comes from.
    plugin: Option<String>,
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
    sandbox: crate::sandbox::SandboxHandle,
    workspace: PathBuf,
    state_dir: PathBuf,
    home: Option<PathBuf>,
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
        state_dir: &Path,
        home: Option<&Path>,
        sandbox: crate::sandbox::SandboxHandle,
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
                    skipped: Vec::new(),
                    conn: None,
                    source: "user",
                    plugin: None,
                };
                (name.clone(), slot)
            })
            .collect();
        McpHub {
            slots: RwLock::new(slots),
            connecting: tokio::sync::Mutex::new(()),
            sandbox,
            workspace: workspace.to_path_buf(),
            state_dir: state_dir.to_path_buf(),
            home: home.map(Path::to_path_buf),
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
                skipped: Vec::new(),
                conn: None,
                source: "workspace",
                plugin: None,
            });
        }
    }

    /// Add an enabled plugin's servers (a name already taken keeps its definition; the plugin
    /// is told).
    pub fn add_plugin_servers(
        &self,
        plugin: &str,
        root: &Path,
        servers: &BTreeMap<String, McpServerDef>,
    ) -> Vec<String> {
        let mut slots = self.slots.write();
        let mut taken = Vec::new();
        for (name, def) in servers {
            if slots.contains_key(name) {
                taken.push(name.clone());
                continue;
            }
            let def = McpServerDef {
                plugin_root: Some(root.to_path_buf()),
                ..def.clone()
            };
            slots.insert(
                name.clone(),
                Slot {
                    state: if def.enabled == Some(false) {
                        McpState::Disabled
                    } else {
                        McpState::Disconnected
                    },
                    def,
                    error: None,
                    info: None,
                    tools: Vec::new(),
                    skipped: Vec::new(),
                    conn: None,
                    source: "plugin",
                    plugin: Some(plugin.to_string()),
                },
            );
        }
        taken
    }

    /// Take a disabled plugin's servers away (their connections close).
    pub fn remove_plugin_servers(&self, plugin: &str) {
        self.slots
            .write()
            .retain(|_, s| s.plugin.as_deref() != Some(plugin));
    }

    /// The servers of a plugin (to connect once it is enabled).
    pub fn plugin_server_names(&self, plugin: &str) -> Vec<String> {
        self.slots
            .read()
            .iter()
            .filter(|(_, s)| s.plugin.as_deref() == Some(plugin))
            .map(|(n, _)| n.clone())
            .collect()
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
            Ok((conn, info, (tools, skipped))) => {
                s.state = McpState::Connected;
                s.info = info;
                s.tools = tools;
                s.skipped = skipped;
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

    /// A server's live connection.
    fn connection(&self, name: &str) -> Option<Arc<Connection>> {
        self.slots.read().get(name).and_then(|s| s.conn.clone())
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
                    let mut text = format!(
                        "Connected `{name}` ({}): {} tool(s), offered from your next step: {}",
                        info.server_info.as_deref().unwrap_or("unnamed server"),
                        names.len(),
                        names.join(", ")
                    );
                    for line in &info.held {
                        text.push_str(&format!("\nnote: {line}"));
                    }
                    ToolOutput::ok(text)
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
    ) -> Result<(Arc<Connection>, Option<String>, Listed), OpenFailure> {
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
        conn.hold_since_start(name).await;
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
        let mut skipped = Vec::new();
        let mut versions = BTreeMap::new();
        for t in listed {
            let (description, schema, hints, version) = described(&t);
            versions.insert(t.name.to_string(), version.clone());
            // A schema no provider accepts would fail every model call that offers it.
            if let Err(why) = client::check_schema(&schema) {
                tracing::warn!(server = name, tool = %t.name, "MCP tool skipped: {why}");
                skipped.push(format!("{}: {why}", t.name));
                continue;
            }
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
        Ok((conn, info, (tools, skipped)))
    }

    async fn open_stdio(&self, command: &str, def: &McpServerDef) -> Result<Connection, String> {
        let program = find_program(command)
            .ok_or_else(|| format!("`{command}` is not a program found in PATH"))?;
        let args: Vec<std::ffi::OsString> = def.args.iter().map(Into::into).collect();
        let home = self.home.clone();
        let named = client::path_args(def, home.as_deref(), &self.state_dir)?;
        let sandbox = self.sandbox.get().await;
        let mut job = crate::sandbox::Job {
            roots: std::iter::once(self.workspace.clone())
                .chain(named)
                .collect(),
            read: installation(&program, def),
            ..crate::sandbox::Job::default()
        };
        // A plugin's server sees its plugin's folder, read-only (only it of the state dir).
        if let Some(root) = &def.plugin_root {
            job.bind_over.push((root.clone(), root.clone()));
            job.env
                .push(("CLAUDE_PLUGIN_ROOT".into(), root.display().to_string()));
        }
        // What programs outside the jail run, as the roots hold it before the server starts:
        // the jail keeps it read-only, and what the server creates is held (`Guarded`).
        let before = match sandbox {
            Some(_) if !self.sandbox.yolo() => Some(crate::sandbox::guard::look(&job.roots).await),
            _ => None,
        };
        job.seen = before.clone().map(Arc::new);
        let mut cmd = match sandbox.as_deref() {
            Some(s) => s.command(&job, &program, &args)?,
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
            // A secret the server took out of its own environment still reaches the server
            // that names it.
            if let Some(v) = crate::secret_env::var(k) {
                cmd.env(k, v);
            } else if let Some(v) = std::env::var_os(k) {
                cmd.env(k, v);
            }
        }
        cmd.envs(&def.env);
        if let Some(s) = sandbox.as_deref() {
            s.env(&job, &mut cmd);
        }
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
            Ok(client) => {
                let mut conn = Connection::new(client, pid);
                conn.guarded = before.map(|seen| Guarded {
                    roots: job.roots,
                    seen: tokio::sync::Mutex::new(seen),
                });
                Ok(conn)
            }
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
        skipped_tools: s.skipped.clone(),
        held: s
            .conn
            .as_ref()
            .map(|c| c.held.lock().clone())
            .unwrap_or_default(),
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
