//! One connection to an MCP server: the rmcp client (watching for a changed tool list), its
//! transport (a sandboxed child process, or streamable HTTP), and the tools it lists.

use super::*;

pub(super) type Client = RunningService<rmcp::RoleClient, Watch>;

/// The client side of a connection. On `notifications/tools/list_changed` it lists the tools
/// again and, when a description, schema or the set of tools differs from the listing the model
/// was given, marks the connection: its tools are withdrawn until a reconnect (a server that
/// merely repeats the notification with the same tools changes nothing).
#[derive(Clone, Default)]
pub(super) struct Watch {
    pub(super) tools_changed: Arc<std::sync::atomic::AtomicBool>,
    /// The listing the model was given: tool name → version (`None` while the connection is
    /// still listing them: that listing is the current one).
    pub(super) versions: Arc<Mutex<Option<BTreeMap<String, String>>>>,
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
pub(super) fn described(t: &rmcp::model::Tool) -> (String, Value, Vec<String>, String) {
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

/// The largest input schema offered (serialized), and how deep it may nest.
const MAX_SCHEMA_BYTES: usize = 64 * 1024;
const MAX_SCHEMA_DEPTH: usize = 32;

/// Is this an input schema every provider accepts? An object schema (`type: object`), whose
/// `properties` is an object of schemas and whose `required` names properties it has, with
/// local `$ref`s only, at most 64 KiB and 32 levels deep.
pub(super) fn check_schema(schema: &Value) -> Result<(), String> {
    let size = serde_json::to_string(schema).map_or(usize::MAX, |s| s.len());
    if size > MAX_SCHEMA_BYTES {
        return Err(format!(
            "its input schema is {size} bytes (at most {MAX_SCHEMA_BYTES})"
        ));
    }
    let obj = schema
        .as_object()
        .ok_or("its input schema is not a JSON object")?;
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err("its input schema's `type` is not \"object\"".into());
    }
    let props = match obj.get("properties") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => return Err("its input schema's `properties` is not an object".into()),
    };
    if let Some(req) = obj.get("required") {
        let list = req
            .as_array()
            .ok_or("its input schema's `required` is not a list")?;
        for r in list {
            let n = r
                .as_str()
                .ok_or("its input schema's `required` holds a non-string")?;
            if !props.is_some_and(|p| p.contains_key(n)) {
                return Err(format!(
                    "its input schema requires `{n}`, which it does not define"
                ));
            }
        }
    }
    fn walk(v: &Value, depth: usize) -> Result<(), String> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(format!(
                "its input schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
            ));
        }
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref")
                    && !r.as_str().is_some_and(|r| r.starts_with('#'))
                {
                    return Err("its input schema refers outside itself (`$ref`)".into());
                }
                if let Some(p) = m.get("properties")
                    && !p.is_object()
                {
                    return Err("a nested `properties` is not an object".into());
                }
                m.values().try_for_each(|x| walk(x, depth + 1))
            }
            Value::Array(a) => a.iter().try_for_each(|x| walk(x, depth + 1)),
            _ => Ok(()),
        }
    }
    walk(schema, 0)
}

/// How long the handshake and the tool listing may take.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// A tool call's default and largest time limit.
pub(super) const CALL_TIMEOUT: Duration = Duration::from_secs(60);
pub(super) const MAX_CALL_TIMEOUT: Duration = Duration::from_secs(600);
/// Providers accept tool names up to 64 characters of `[A-Za-z0-9_-]`.
pub(super) const MAX_NAME: usize = 64;
/// Variables every stdio server gets besides its `envAllow` list.
pub(super) const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"];

/// One live connection: the client and the process group to kill when it ends.
pub(super) struct Connection {
    pub(super) client: Client,
    /// The stdio server's process (group leader under the sandbox helper), if any.
    pub(super) pid: Option<u32>,
    /// Set when a call found the connection gone (the server exited or crashed).
    pub(super) lost: Mutex<Option<String>>,
    /// A jailed stdio server's roots, watched for what programs outside the jail run.
    pub(super) guarded: Option<Guarded>,
    /// What the server created at its start that programs outside the jail run, held aside
    /// (one line each).
    pub(super) held: Mutex<Vec<String>>,
}

/// A jailed server's roots and the last look at what programs outside the jail run there (git
/// directories, `.envrc`, Claude Code and VS Code settings): the jail keeps what exists
/// read-only; what the server creates is found at its start and after each request, and held.
pub(super) struct Guarded {
    pub(super) roots: Vec<PathBuf>,
    pub(super) seen: tokio::sync::Mutex<crate::sandbox::guard::Snapshot>,
}

impl Connection {
    pub(super) fn new(client: Client, pid: Option<u32>) -> Connection {
        Connection {
            client,
            pid,
            lost: Mutex::new(None),
            guarded: None,
            held: Mutex::new(Vec::new()),
        }
    }

    /// After the server's start (handshake and tool listing): hold what it created, nobody
    /// being there to ask; listed in [`Connection::held`].
    pub(super) async fn hold_since_start(&self, server: &str) {
        use crate::sandbox::guard;
        let Some(g) = &self.guarded else { return };
        let mut seen = g.seen.lock().await;
        let after = guard::look(&g.roots).await;
        let lines = guard::hold_unasked(
            &format!("the MCP server `{server}` at its start"),
            after.new_since(&seen),
        );
        *seen = if lines.is_empty() {
            after
        } else {
            guard::look(&g.roots).await
        };
        for l in &lines {
            tracing::warn!(server, "{l}");
        }
        *self.held.lock() = lines;
    }

    /// After a request: hold what the server created since the last look, asking the user
    /// about each; the outcomes are added to `out` for the model. Concurrent requests look one
    /// at a time (each sees what the one before kept).
    pub(super) async fn hold_created(
        &self,
        ctx: &crate::tools::ToolCtx<'_>,
        server: &str,
        out: &mut ToolOutput,
    ) {
        let Some(g) = &self.guarded else { return };
        let mut seen = g.seen.lock().await;
        let mut text = String::new();
        let who = format!("the MCP server `{server}`");
        let looked = crate::tools::held::hold_created(ctx, &who, &g.roots, &seen, &mut text).await;
        *seen = looked.seen;
        if !text.is_empty() {
            if !out.text.is_empty() && !out.text.ends_with('\n') {
                out.text.push('\n');
            }
            out.text.push_str(&text);
        }
    }

    /// The server said its tools changed since they were listed.
    pub(super) fn tools_changed(&self) -> bool {
        self.client
            .service()
            .tools_changed
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Await one request on this connection, within `limit` and until the run is cancelled;
    /// never retried (it may have had effects). A broken transport marks the connection lost.
    /// `Err`: what the model is told.
    pub(super) async fn request<T>(
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
    pub(super) fn gone(&self) -> Option<String> {
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
    pub(super) timeout: Duration,
    pub(super) conn: Arc<Connection>,
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

/// One request of a hub tool to a connected server; the text for the model.
pub(super) async fn hub_request(
    conn: &Connection,
    call: HubCall,
) -> Result<String, rmcp::ServiceError> {
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

pub(super) async fn open_http(
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
pub(super) fn expand_env(v: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = v;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed `${{` in the header value `{v}`"));
        };
        let name = &after[..end];
        let val = crate::secret_env::var(name).ok_or_else(|| {
            format!("the environment variable `{name}` a header names is not set")
        })?;
        out.push_str(&val);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Keep the last 2 KB a server wrote to stderr (for the error shown when it fails).
pub(super) async fn drain_stderr(err: tokio::process::ChildStderr, tail: Arc<Mutex<String>>) {
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

/// The paths an MCP stdio server's arguments name (`/srv/docs`, `~/notes`, `--root=/data`):
/// bound into its jail read-write, as the user approved them when connecting it. Each passes
/// the one check every path entering a jail passes ([`crate::sandbox::admit`]): an argument
/// naming `/`, the home folder or a parent of it, the state directory, a credential location or
/// a folder holding one, a socket or device (or a link to any of these) is refused, with the
/// reason; one that does not exist is left out.
pub(super) fn path_args(
    def: &McpServerDef,
    home: Option<&Path>,
    state_dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for arg in &def.args {
        let value = arg.split_once('=').map_or(arg.as_str(), |(_, v)| v);
        let p = match (value.strip_prefix("~/"), value == "~", home) {
            (_, true, Some(h)) => h.to_path_buf(),
            (Some(rest), _, Some(h)) => h.join(rest),
            _ if value.starts_with('/') => PathBuf::from(value),
            _ => continue,
        };
        let p = crate::policy::paths::normalize(&p);
        // A plugin's own files: its folder is shown read-only as it is.
        if def.plugin_root.as_ref().is_some_and(|r| p.starts_with(r)) {
            continue;
        }
        if p == Path::new("/") {
            return Err(format!(
                "the argument {arg:?} gives the server the whole file system; name a project folder instead"
            ));
        }
        if std::fs::symlink_metadata(&p).is_err() {
            // Not there: nothing to bind (the server will say so itself if it needs it).
            continue;
        }
        // The one check every path entering a jail passes: the hard-deny list, HOME, the state
        // directory, sockets and devices, for the path and what it resolves to.
        let real = crate::sandbox::admit(&p, home, state_dir)
            .map_err(|why| format!("the argument {arg:?} cannot be given to the server: {why}"))?
            .resolved;
        if !out.contains(&real) {
            out.push(real);
        }
    }
    Ok(out)
}

/// What a stdio server must read besides the system and the workspace: for the program and each
/// argument that is an existing absolute path, the project it belongs to (the directory holding
/// its `node_modules`, `.venv` or `site-packages`), else its directory. Read-only.
pub(super) fn installation(program: &Path, def: &McpServerDef) -> Vec<PathBuf> {
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

pub(super) fn find_program(command: &str) -> Option<PathBuf> {
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

pub(super) fn hints_of(a: Option<&rmcp::model::ToolAnnotations>) -> Vec<String> {
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

pub(super) fn short_hash(s: &str) -> String {
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
mod tests {
    use super::*;
    use serde_json::json;

    /// An MCP server's arguments pass the one check every path entering a jail passes: `~/.ssh`
    /// and `~/.config` (which holds the GitHub CLI's token) never become roots of its jail, nor
    /// does a link to them or a socket; a project folder does, as what it resolves to.
    #[test]
    #[expect(clippy::unwrap_used, reason = "tests fail loudly")]
    fn mcp_arguments_never_bring_credentials_or_sockets_into_the_jail() {
        let base = std::env::temp_dir().join(format!("tw-mcp-args-{}", crate::util::new_id()));
        let home = base.join("home");
        let state = base.join("state");
        for d in [".ssh", ".config/gh", "proj", "socks"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).unwrap();
        let _l = std::os::unix::net::UnixListener::bind(home.join("socks/s")).unwrap();
        let def = |args: &[&str]| McpServerDef {
            args: args.iter().map(|a| a.to_string()).collect(),
            ..McpServerDef::default()
        };
        for bad in [
            "~/.ssh",
            "~/.config",
            "--root=~/.config/gh",
            "~/keys",
            "~/socks",
            "~/socks/s",
            "~",
            "/",
        ] {
            let r = path_args(&def(&["x", bad]), Some(&home), &state);
            assert!(r.is_err(), "{bad}: {r:?}");
        }
        let ok = path_args(&def(&["~/proj", "~/missing"]), Some(&home), &state).unwrap();
        assert_eq!(ok, vec![std::fs::canonicalize(home.join("proj")).unwrap()]);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn input_schemas_no_provider_takes_are_refused() {
        let ok = [
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            json!({"type": "object"}),
            json!({"type": "object", "$defs": {"x": {}}, "properties": {"a": {"$ref": "#/$defs/x"}}}),
        ];
        for good in ok {
            assert!(check_schema(&good).is_ok(), "{good}");
        }
        for bad in [
            json!({"type": "string"}),
            json!({"properties": {}}),
            json!({"type": "object", "properties": []}),
            json!({"type": "object", "required": ["missing"]}),
            json!({"type": "object", "required": "a"}),
            json!({"type": "object", "properties": {"a": {"$ref": "https://evil.example/s.json"}}}),
            json!({"type": "object", "properties": {"a": {"properties": 3}}}),
        ] {
            assert!(check_schema(&bad).is_err(), "{bad}");
        }
        let mut deep = json!({"type": "string"});
        for _ in 0..40 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        assert!(check_schema(&deep).is_err(), "too deep");
        let big = json!({"type": "object", "description": "x".repeat(70_000)});
        assert!(check_schema(&big).is_err(), "too large");
    }
}
