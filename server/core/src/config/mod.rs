//! Command line and configuration layers: flags > environment > `config.json` in the state dir.

mod cli;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

pub const DEFAULT_PORT: u16 = 7420;

pub use cli::*;

/// `config.json` in the state directory (all optional).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FileConfig {
    /// The mode new sessions start in (`ask`, `auto`, `full`), capped by what the start flags
    /// allow; default: the smallest mode under which every effect they allow runs unasked.
    pub default_mode: Option<crate::protocol::Mode>,
    pub bind: Option<IpAddr>,
    pub port: Option<u16>,
    pub workspace: Option<PathBuf>,
    pub allow_write: bool,
    pub allow_process: bool,
    pub allow_external: bool,
    pub read_only: bool,
    pub additional_directories: Vec<PathBuf>,
    pub allowed_hosts: Vec<String>,
    pub provider: FileProvider,
    /// Several providers side by side (`[{id, kind, baseUrl, model, apiKeyEnv | key}]`).
    pub providers: Vec<ProviderEntrySettings>,
    pub tasks: TaskSettings,
    pub plan: PlanSettings,
    pub agent: AgentSettings,
    pub titles: TitleSettings,
    pub network: NetworkSettings,
    pub sandbox: SandboxSettings,
    pub webfetch: WebFetchSettings,
    pub websearch: WebSearchSettings,
    pub worktrees: WorktreeSettings,
    pub terminal: TerminalSettings,
    pub mcp: McpSettings,
    /// The MCP servers in the form other clients use (`{"mcpServers": {NAME: {...}}}`); merged
    /// with `mcp.servers` (which wins on a name in both).
    pub mcp_servers: BTreeMap<String, McpServerDef>,
    /// What config says of models (`"<provider>/<model>"` or a bare model name).
    pub models: BTreeMap<String, crate::models::ModelOverride>,
    pub spend: SpendSettings,
    pub goal: GoalSettings,
    pub hooks: HooksSettings,
    /// A custom agent's `model` alias (`sonnet`, `opus`, `haiku`, …) → `<provider>/<model>`.
    pub model_aliases: BTreeMap<String, String>,
    /// `false` turns off the workspace snapshots undo needs.
    pub undo: Option<bool>,
    /// Days a run can still be reverted (its snapshots are kept); default 30.
    pub undo_keep_days: Option<u64>,
    pub auth: crate::auth::AuthSettings,
    /// `"auto"` or `"off"`; `tlsCert`/`tlsKey` give files.
    pub tls: Option<String>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub public_url: Option<String>,
    pub mdns: bool,
}

/// The process sandbox (`sandbox` in config.json).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct SandboxSettings {
    /// `allow` (default; the classifier still asks for recognised network commands) or `deny`
    /// (Landlock's TCP rules refuse every connect and bind).
    pub network: String,
    /// `false` turns the sandbox off (commands run unconfined, as without Landlock).
    pub enabled: bool,
    /// `auto` (the bubblewrap jail where it works, else the Landlock fallback), `bwrap` or
    /// `landlock` (either forced).
    pub jail: JailChoice,
    /// More files and folders the jail binds in (read-only unless `write`); `~/` is the home
    /// folder.
    pub allow: Vec<SandboxAllow>,
}

/// How commands are confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JailChoice {
    /// The jail where bubblewrap and user namespaces work, else the Landlock fallback.
    Auto,
    /// The jail (the Landlock fallback, said so, where it cannot be made).
    Bwrap,
    /// The Landlock fallback only.
    Landlock,
}

/// One entry of `sandbox.allow`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SandboxAllow {
    pub path: String,
    #[serde(default)]
    pub write: bool,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            network: "allow".into(),
            enabled: true,
            jail: JailChoice::Auto,
            allow: Vec::new(),
        }
    }
}

/// `webfetch` in config.json.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WebFetchSettings {
    /// Origins (`http://localhost:8080`) `webfetch` may reach without the private-address
    /// approval: a local documentation server, say. Matched by exact origin.
    pub allow_hosts: Vec<String>,
}

/// `mcp` in config.json (the user's own config: a repository cannot add servers).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct McpSettings {
    /// As `--allow-mcp`: connect the enabled servers at start; headless runs may call them.
    pub allow: bool,
    pub servers: BTreeMap<String, McpServerDef>,
}

/// One MCP server: a command spoken to over stdio, or a streamable HTTP `url`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase", default)]
pub struct McpServerDef {
    /// The program (looked up in `PATH`), run in the process sandbox.
    pub command: Option<String>,
    pub args: Vec<String>,
    /// Variables set for the server (literal values).
    pub env: BTreeMap<String, String>,
    /// Variables of the server's own environment passed on by name; nothing else is (besides
    /// `PATH`, `HOME`, `LANG`, `LC_ALL`, `TERM`, `TMPDIR`, `USER`).
    pub env_allow: Vec<String>,
    /// A streamable HTTP endpoint.
    pub url: Option<String>,
    /// HTTP headers; `${NAME}` in a value is the variable NAME of the server's environment
    /// (`"Authorization": "Bearer ${GITHUB_TOKEN}"`).
    pub headers: BTreeMap<String, String>,
    /// `false` keeps the server listed but never connected.
    pub enabled: Option<bool>,
    /// Seconds a tool call may take (default 60, at most 600).
    pub timeout: Option<u64>,
    /// An enabled plugin's server: the plugin's root, which its jail shows read-only (and its
    /// arguments may name); never read from config.json.
    #[serde(skip)]
    pub plugin_root: Option<PathBuf>,
}

/// `websearch` in config.json (Settings can change provider and SearXNG URL at run time).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct WebSearchSettings {
    /// `searxng`, `duckduckgo-instant`, `duckduckgo-html`, `tavily`, `brave` or `serpapi`;
    /// none: the default public SearXNG instance.
    pub provider: Option<String>,
    /// The SearXNG instance (`https://…`, or `http://` on loopback).
    pub searxng_url: Option<String>,
    /// The environment variable holding the provider's key, instead of its usual one.
    pub api_key_env: Option<String>,
    /// The provider's API URL instead of its public one (a proxy, a compatible service).
    pub endpoint: Option<String>,
    /// `native`: the tool type sent to the model's provider instead of its default
    /// (`web_search` for OpenAI's Responses API, `web_search_20250305` for Anthropic).
    pub native_tool_type: Option<String>,
    /// The public SearXNG instance offered when nothing is chosen (`https://searx.be` when
    /// unset): the web app asks once before the first search goes there.
    pub public_searxng_url: Option<String>,
}

/// `terminal` in config.json: terminals in the browser, as `--allow-terminal`.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct TerminalSettings {
    pub enabled: bool,
}

/// `worktrees` in config.json: a session in a git worktree of its own
/// (`POST /api/sessions {worktree: true}`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct WorktreeSettings {
    /// New sessions get a worktree unless they say otherwise (default false).
    pub default: bool,
    /// Where worktrees are made (`<dir>/<repo name>-<hash>/<slug>`); default
    /// `~/.local/share/tradewind/worktrees`. Never inside the repository or the state directory.
    pub dir: Option<PathBuf>,
    /// Untracked files of the main checkout copied into a new worktree (`.env`), relative to
    /// the repository.
    pub copy: Vec<String>,
    /// A command run in a new worktree, through the gate (`npm ci`).
    pub setup: Option<String>,
}

impl WorktreeSettings {
    /// The folder worktrees are made in.
    pub fn root(&self, home: Option<&Path>) -> Option<PathBuf> {
        match &self.dir {
            Some(d) => Some(d.clone()),
            None => home.map(|h| h.join(".local/share/tradewind/worktrees")),
        }
    }
}

/// Origins network tools may reach on a private address without asking: the ones the user
/// configured (`webfetch.allowHosts`, the provider's base URL, the search endpoints).
pub fn exempt_origins(
    webfetch: &WebFetchSettings,
    websearch: &WebSearchSettings,
    provider_base_url: Option<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    for raw in &webfetch.allow_hosts {
        match crate::net::config_origin(raw) {
            Some(o) => out.push(o),
            None => {
                tracing::warn!(entry = %raw, "webfetch.allowHosts: not an http(s) URL; ignored")
            }
        }
    }
    let configured = [
        provider_base_url,
        websearch.searxng_url.as_deref(),
        websearch.endpoint.as_deref(),
        websearch.public_searxng_url.as_deref(),
    ];
    out.extend(
        configured
            .into_iter()
            .flatten()
            .filter_map(crate::net::config_origin),
    );
    out
}

/// Provider timeouts and retries (`network` in config.json).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NetworkSettings {
    pub connect_timeout_ms: u64,
    pub first_byte_timeout_ms: u64,
    pub idle_timeout_ms: u64,
    pub max_retries: u32,
}

impl Default for NetworkSettings {
    fn default() -> Self {
        let n = crate::provider::NetPolicy::default();
        NetworkSettings {
            connect_timeout_ms: n.connect.as_millis() as u64,
            first_byte_timeout_ms: n.first_byte.as_millis() as u64,
            idle_timeout_ms: n.idle.as_millis() as u64,
            max_retries: n.max_retries,
        }
    }
}

impl NetworkSettings {
    pub fn policy(&self) -> crate::provider::NetPolicy {
        use std::time::Duration;
        crate::provider::NetPolicy {
            connect: Duration::from_millis(self.connect_timeout_ms.max(1)),
            first_byte: Duration::from_millis(self.first_byte_timeout_ms.max(1)),
            idle: Duration::from_millis(self.idle_timeout_ms.max(1)),
            max_retries: self.max_retries.min(10),
            ..crate::provider::NetPolicy::default()
        }
    }
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FileProvider {
    pub kind: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// `chat` (default) or `responses`.
    pub api_mode: Option<crate::protocol::ApiMode>,
}

/// One of `providers` in config.json: several side by side, each with its own key.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderEntrySettings {
    /// 1 to 32 of `a-z 0-9 _ -`: what sessions and Settings name it by.
    pub id: String,
    /// `openai` (any OpenAI-compatible server) or `anthropic`.
    pub kind: String,
    pub base_url: Option<String>,
    /// Its default model.
    pub model: Option<String>,
    /// The environment variable holding its key.
    pub api_key_env: Option<String>,
    /// The key itself (config.json is in the 0700 state directory).
    pub key: Option<String>,
    /// `chat` (default) or `responses` (`openai` only).
    #[serde(default)]
    pub api_mode: crate::protocol::ApiMode,
}

/// `goal` in config.json.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GoalSettings {
    /// Consecutive turns that must report `blocked` before a goal stops (default 2).
    pub blocked_repeats: u32,
}

impl Default for GoalSettings {
    fn default() -> Self {
        GoalSettings { blocked_repeats: 2 }
    }
}

impl GoalSettings {
    /// The setting, kept between 1 and 10.
    pub fn blocked_repeats(&self) -> i64 {
        i64::from(self.blocked_repeats.clamp(1, 10))
    }
}

/// `hooks` in config.json.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HooksSettings {
    /// Turns in a row `Stop` hooks may ask for (default 3, at most 20).
    pub max_stop_turns: u32,
}

impl Default for HooksSettings {
    fn default() -> Self {
        HooksSettings { max_stop_turns: 3 }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskSettings {
    pub max_output_bytes: u64,
    pub max_run_ms: u64,
    pub max_per_session: usize,
    pub max_per_process: usize,
    pub retention_days: u64,
}

impl Default for TaskSettings {
    fn default() -> Self {
        Self {
            max_output_bytes: 2 * 1024 * 1024,
            max_run_ms: 3_600_000,
            max_per_session: 4,
            max_per_process: 16,
            retention_days: 7,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlanSettings {
    pub max_diagrams: usize,
}
impl Default for PlanSettings {
    fn default() -> Self {
        Self { max_diagrams: 5 }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentSettings {
    /// Model calls per run before the loop stops.
    pub max_iterations: u32,
    /// How long an `ask` waits for an answer before it is denied.
    pub approval_timeout_secs: u64,
    /// How full the context window may get (0.1–0.95) before older turns are compacted.
    pub compact_threshold: f64,
}
impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            max_iterations: 50,
            approval_timeout_secs: 1800,
            compact_threshold: 0.8,
        }
    }
}

impl AgentSettings {
    /// The threshold, kept where compaction can work (a nonsense value falls back to 0.8).
    pub fn compact_at(&self) -> f64 {
        if self.compact_threshold.is_finite() && (0.1..=0.95).contains(&self.compact_threshold) {
            self.compact_threshold
        } else {
            0.8
        }
    }
}

/// Session titles the model writes (`titles` in config.json): after a session's first
/// exchange, one call of at most 200 output tokens names it — counted in usage and the spend
/// caps like any call.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TitleSettings {
    pub enabled: bool,
    /// The model that writes them (`<provider>/<model>` or a model of the session's provider);
    /// default: the session's own.
    pub model: Option<String>,
}
impl Default for TitleSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            model: None,
        }
    }
}

/// Spend caps in USD (`spend` in config.json): reaching one stops the run. A session's own cap
/// (`PATCH /api/sessions/{id} {spend_cap_usd}`) replaces `sessionUsd` for it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SpendSettings {
    pub session_usd: Option<f64>,
    /// All sessions together, per UTC day.
    pub day_usd: Option<f64>,
}

pub use crate::policy::Ceiling;

#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub kind: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub replay: Option<PathBuf>,
    pub api_mode: crate::protocol::ApiMode,
}

/// The resolved configuration a server or a headless run works with.
#[derive(Debug, Clone)]
pub struct Config {
    pub bind: IpAddr,
    pub port: u16,
    pub workspace: PathBuf,
    pub state_dir: PathBuf,
    pub ceiling: Ceiling,
    pub read_only: bool,
    pub yolo: bool,
    /// config.json's `defaultMode`, if any (see [`Config::default_mode`]).
    pub default_mode_setting: Option<crate::protocol::Mode>,
    pub extra_roots: Vec<PathBuf>,
    pub allowed_hosts: Vec<String>,
    /// `--disable-plugin`: installed plugins kept off, and the built-in ones (`memory`,
    /// `subagents`, `todo`) whose tools are not offered.
    pub disabled_plugins: Vec<String>,
    /// Fixed access token (TRADEWIND_TOKEN), else a random one per start.
    pub access_token: Option<String>,
    pub database_url: Option<String>,
    pub provider: Option<ProviderSettings>,
    /// config.json's `providers`, checked at start (ids unique and valid, kinds known).
    pub providers: Vec<ProviderEntrySettings>,
    pub tasks: TaskSettings,
    pub plan: PlanSettings,
    pub agent: AgentSettings,
    /// `titles` in config.json.
    pub titles: TitleSettings,
    pub network: NetworkSettings,
    pub sandbox: SandboxSettings,
    pub webfetch: WebFetchSettings,
    pub websearch: WebSearchSettings,
    /// `worktrees` in config.json: sessions in git worktrees of their own.
    pub worktrees: WorktreeSettings,
    /// Terminals in the browser (`--allow-terminal` or `terminal.enabled`; never under
    /// `--read-only`).
    pub terminal_enabled: bool,
    /// MCP servers (`mcp.servers` and `mcpServers`); `allow`: `--allow-mcp` or `mcp.allow`.
    pub mcp: McpSettings,
    /// Context windows and prices.
    pub models: crate::models::Catalog,
    pub spend: SpendSettings,
    /// `goal` in config.json.
    pub goal: GoalSettings,
    /// `hooks` in config.json (the hooks themselves are in `hooks.json`).
    pub hooks: HooksSettings,
    /// `modelAliases` in config.json: a custom agent's `model` alias → `<provider>/<model>`
    /// (an alias not named here means the session's own model).
    pub model_aliases: BTreeMap<String, String>,
    /// Snapshot the workspace around each build run so it can be reverted (`undo` in
    /// config.json, default true).
    pub undo: bool,
    /// Days snapshots are kept (`undoKeepDays`, default 30); older runs cannot be reverted.
    pub undo_keep_days: u64,
    /// A server the command line started for itself: an effect that would ask is unavailable
    /// (nobody is there to answer).
    pub headless: bool,
    /// The binary that provides `sandbox-exec` (the server's own executable; tests point it at
    /// the built `tradewind`). `None`: commands run unconfined.
    pub sandbox_helper: Option<PathBuf>,
    /// The user's home folder (`$HOME`): what the jail's allow-list and caches are relative to.
    pub home: Option<PathBuf>,
    pub auth: crate::auth::AuthSettings,
    /// HTTPS; `None` decides by the bind address (see `effective_tls`).
    pub tls: Option<TlsSetting>,
    /// The URL users open, without a trailing slash.
    pub public_url: Option<String>,
    pub mdns: bool,
}

/// config.json's `providers`: each id valid and named once, each kind one that can be built.
fn checked_providers(
    list: Vec<ProviderEntrySettings>,
) -> anyhow::Result<Vec<ProviderEntrySettings>> {
    let mut seen = std::collections::HashSet::new();
    for p in &list {
        if !crate::provider::registry::valid_id(&p.id) {
            bail!(
                "config.json: provider id {:?} must be 1 to 32 of a-z 0-9 _ - (starting with a letter or digit)",
                p.id
            );
        }
        if !seen.insert(p.id.as_str()) {
            bail!("config.json: provider id {:?} is used twice", p.id);
        }
        if !matches!(p.kind.as_str(), "openai" | "anthropic") {
            bail!(
                "config.json: provider {:?} has kind {:?}; it must be \"openai\" or \"anthropic\"",
                p.id,
                p.kind
            );
        }
        if p.model.as_deref().is_none_or(|m| m.trim().is_empty()) {
            bail!("config.json: provider {:?} needs a model", p.id);
        }
    }
    Ok(list)
}

/// `$TRADEWIND_HOME` (already folded in by clap) or `~/.tradewind`.
pub fn default_state_dir(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    let home = std::env::var_os("HOME").context("HOME is not set; pass --state-dir")?;
    Ok(PathBuf::from(home).join(".tradewind"))
}

pub fn load_file_config(state_dir: &Path) -> anyhow::Result<FileConfig> {
    let path = state_dir.join("config.json");
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not valid configuration", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileConfig::default()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

impl Config {
    /// The mode a new session starts in: the smallest under which every effect the start flags
    /// allow runs without asking (`--allow-write` → `auto`; `--allow-process`,
    /// `--allow-external` or `--yolo` → `full`, where what the flags do not allow still asks; no
    /// flag → `ask`), or config.json's `defaultMode`, capped the same way.
    pub fn default_mode(&self) -> crate::protocol::Mode {
        use crate::protocol::Mode;
        let c = self.ceiling;
        let by_flags = if c.process || c.external || self.yolo {
            Mode::Full
        } else if c.write {
            Mode::Auto
        } else {
            Mode::Ask
        };
        self.default_mode_setting
            .map_or(by_flags, |m| m.min(by_flags))
    }

    pub fn resolve(
        common: &CommonArgs,
        bind: Option<IpAddr>,
        port: Option<u16>,
    ) -> anyhow::Result<Config> {
        let state_dir = default_state_dir(common.state_dir.as_deref())?;
        let file = load_file_config(&state_dir)?;
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let workspace = common
            .workspace
            .clone()
            .or(file.workspace.clone())
            .unwrap_or_else(|| cwd.clone());
        let workspace = absolutize(&cwd, &workspace);
        let workspace = std::fs::canonicalize(&workspace)
            .with_context(|| format!("workspace {} does not exist", workspace.display()))?;
        if !workspace.is_dir() {
            bail!("workspace {} is not a directory", workspace.display());
        }
        let read_only = common.read_only || file.read_only;
        let mut extra_roots = Vec::new();
        if !read_only {
            for d in common.add_dir.iter() {
                let p = absolutize(&cwd, d);
                extra_roots.push(
                    std::fs::canonicalize(&p)
                        .with_context(|| format!("--add-dir {} does not exist", p.display()))?,
                );
            }
            for d in file.additional_directories.iter() {
                // Relative to the config file that defines it.
                let p = absolutize(&state_dir, d);
                if let Ok(c) = std::fs::canonicalize(&p) {
                    extra_roots.push(c);
                } else {
                    tracing::warn!(path = %p.display(), "additionalDirectories entry does not exist; ignored");
                }
            }
        }
        let ceiling = if read_only {
            Ceiling::default()
        } else {
            Ceiling {
                write: common.allow_write || file.allow_write,
                process: common.allow_process || file.allow_process,
                external: common.allow_external || file.allow_external,
            }
        };
        let provider_kind = common.provider.clone().or(file.provider.kind.clone());
        let provider = provider_kind.map(|kind| ProviderSettings {
            kind,
            base_url: common.base_url.clone().or(file.provider.base_url.clone()),
            model: common.model.clone().or(file.provider.model.clone()),
            replay: common.replay.as_ref().map(|p| absolutize(&cwd, p)),
            api_mode: match common.api_mode.as_deref() {
                Some("responses") => crate::protocol::ApiMode::Responses,
                Some(_) => crate::protocol::ApiMode::Chat,
                None => file.provider.api_mode.unwrap_or_default(),
            },
        });
        let tls_base = state_dir.clone();
        Ok(Config {
            default_mode_setting: file.default_mode,
            bind: bind.or(file.bind).unwrap_or(IpAddr::from([127, 0, 0, 1])),
            port: port.or(file.port).unwrap_or(DEFAULT_PORT),
            workspace,
            state_dir,
            ceiling,
            read_only,
            yolo: common.yolo && !read_only,
            extra_roots,
            disabled_plugins: common.disable_plugin.clone(),
            allowed_hosts: file.allowed_hosts,
            access_token: crate::secret_env::var("TRADEWIND_TOKEN").filter(|t| !t.is_empty()),
            database_url: crate::secret_env::var("DATABASE_URL").filter(|u| !u.is_empty()),
            provider,
            providers: checked_providers(file.providers)?,
            tasks: file.tasks,
            plan: file.plan,
            agent: file.agent,
            titles: file.titles,
            network: file.network,
            sandbox: file.sandbox,
            webfetch: file.webfetch,
            websearch: file.websearch,
            worktrees: file.worktrees,
            terminal_enabled: file.terminal.enabled && !read_only,
            mcp: {
                let mut m = file.mcp;
                for (name, def) in file.mcp_servers {
                    m.servers.entry(name).or_insert(def);
                }
                m.allow = (m.allow || common.allow_mcp) && !read_only;
                m
            },
            models: crate::models::Catalog::new(file.models),
            spend: file.spend,
            goal: file.goal,
            hooks: file.hooks,
            model_aliases: file.model_aliases,
            undo: file.undo.unwrap_or(true),
            undo_keep_days: file.undo_keep_days.unwrap_or(30),
            headless: false,
            sandbox_helper: std::env::current_exe().ok(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            auth: file.auth,
            tls: match (
                file.tls.as_deref(),
                file.tls_cert.clone(),
                file.tls_key.clone(),
            ) {
                (_, Some(cert), Some(key)) => Some(TlsSetting::Files {
                    cert: absolutize(&tls_base, &cert),
                    key: absolutize(&tls_base, &key),
                }),
                (Some("auto"), _, _) => Some(TlsSetting::Auto),
                (Some("off"), _, _) => Some(TlsSetting::Off),
                (Some(other), _, _) => {
                    bail!("config.json: tls must be \"auto\" or \"off\", not {other:?}")
                }
                (None, _, _) => None,
            },
            public_url: file.public_url,
            mdns: file.mdns,
        })
    }

    /// `tradewind serve`: the configuration plus the serve-only flags.
    pub fn for_serve(args: &ServeArgs) -> anyhow::Result<Config> {
        let mut cfg = Config::resolve(&args.common, args.bind, args.port)?;
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
            cfg.tls = Some(TlsSetting::Files {
                cert: absolutize(&cwd, cert),
                key: absolutize(&cwd, key),
            });
        } else if args.no_tls || args.tls.as_deref() == Some("off") {
            cfg.tls = Some(TlsSetting::Off);
        } else if args.tls.as_deref() == Some("auto") {
            cfg.tls = Some(TlsSetting::Auto);
        }
        if let Some(u) = &args.public_url {
            cfg.public_url = Some(u.clone());
        }
        if let Some(u) = cfg.public_url.take() {
            cfg.public_url = Some(normalize_public_url(&u)?);
        }
        cfg.mdns |= args.mdns;
        cfg.terminal_enabled = (cfg.terminal_enabled || args.allow_terminal) && !cfg.read_only;
        Ok(cfg)
    }

    /// HTTPS as it will be served: explicit setting, else `auto` off loopback.
    pub fn effective_tls(&self) -> TlsSetting {
        match &self.tls {
            Some(t) => t.clone(),
            None if self.bind.is_loopback() => TlsSetting::Off,
            None => TlsSetting::Auto,
        }
    }

    /// The host name of `public_url`, if any.
    pub fn public_host(&self) -> Option<String> {
        let u = self.public_url.as_deref()?;
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or(rest);
        let host = if authority.starts_with('[') {
            authority
                .split(']')
                .next()
                .map(|h| h.trim_start_matches('['))
        } else {
            authority.split(':').next()
        }?;
        (!host.is_empty()).then(|| host.to_ascii_lowercase())
    }

    /// The startup ceiling as the API shows it.
    pub fn ceiling_info(&self) -> crate::protocol::CeilingInfo {
        crate::protocol::CeilingInfo {
            write: self.ceiling.write,
            process: self.ceiling.process,
            external: self.ceiling.external,
        }
    }

    /// The extra roots as the API shows them.
    pub fn extra_roots_shown(&self) -> Vec<String> {
        self.extra_roots
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    /// A configuration for tests and embedding: everything explicit, nothing read from disk.
    pub fn for_paths(workspace: PathBuf, state_dir: PathBuf) -> Config {
        Config {
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 0,
            workspace,
            state_dir,
            ceiling: Ceiling::default(),
            read_only: false,
            yolo: false,
            default_mode_setting: None,
            extra_roots: Vec::new(),
            disabled_plugins: Vec::new(),
            allowed_hosts: Vec::new(),
            access_token: None,
            database_url: None,
            provider: None,
            providers: Vec::new(),
            tasks: TaskSettings::default(),
            plan: PlanSettings::default(),
            agent: AgentSettings::default(),
            titles: TitleSettings::default(),
            network: NetworkSettings::default(),
            sandbox: SandboxSettings::default(),
            webfetch: WebFetchSettings::default(),
            websearch: WebSearchSettings::default(),
            worktrees: WorktreeSettings::default(),
            terminal_enabled: false,
            mcp: McpSettings::default(),
            models: crate::models::Catalog::default(),
            spend: SpendSettings::default(),
            goal: GoalSettings::default(),
            hooks: HooksSettings::default(),
            model_aliases: BTreeMap::new(),
            undo: true,
            undo_keep_days: 30,
            headless: false,
            sandbox_helper: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            auth: crate::auth::AuthSettings::default(),
            tls: None,
            public_url: None,
            mdns: false,
        }
    }
}

/// `https://host[:port]` with no path, query or trailing slash.
fn normalize_public_url(u: &str) -> anyhow::Result<String> {
    let u = u.trim().trim_end_matches('/');
    let Some((scheme, rest)) = u.split_once("://") else {
        bail!("publicUrl {u:?} must start with https:// or http://");
    };
    if scheme != "https" && scheme != "http" {
        bail!("publicUrl {u:?} must start with https:// or http://");
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        bail!("publicUrl {u:?} must be just scheme, host and optional port");
    }
    Ok(u.to_string())
}

fn absolutize(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

fn parse_mode(s: &str) -> Result<crate::protocol::Mode, String> {
    s.parse()
        .map_err(|_| format!("`{s}` is not a mode: ask, auto or full"))
}

fn parse_agent(s: &str) -> Result<crate::protocol::AgentName, String> {
    crate::protocol::AgentName::new(s).map_err(|_| {
        format!(
            "`{s}` is not an agent name: build, plan, or a custom agent's (a-z, then a-z 0-9 -)"
        )
    })
}
