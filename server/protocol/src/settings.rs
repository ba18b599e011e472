//! Settings: providers and models, web search, and the rest the web app edits.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

// ---- Settings ----

/// Where the running provider's configuration came from: start flags (or the config file) at
/// start, or a change through Settings since (the last one set wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderSource {
    /// `--provider` … flags or the config file, applied at start.
    Flags,
    /// `PUT /api/settings/provider` (now or before a restart, when no flags were given).
    Settings,
    /// The config file's `providers` list, applied at start.
    Config,
    /// Nothing is configured: every run fails at once with "no model configured".
    None,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderSettingsView {
    /// `openai`, `anthropic`, `replay`, or empty when none is configured.
    pub kind: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Whether an API key is stored (it is never returned).
    pub api_key_set: bool,
    /// Where the running configuration came from.
    pub source: ProviderSource,
    /// The API an `openai` provider speaks (`chat` or `responses`).
    #[serde(default)]
    pub api_mode: ApiMode,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettingsParams {
    /// `openai` (any OpenAI-compatible server) or `anthropic`.
    #[schema(value_type = ProviderKind)]
    pub kind: String,
    /// The server's base URL, starting `http://` or `https://`, e.g.
    /// `http://127.0.0.1:11434/v1` (422 when the rest is not a valid URL); blank or null: the
    /// provider's default.
    #[schema(
        pattern = "^(https?://[\\s\\S]*|[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)$"
    )]
    pub base_url: Option<String>,
    /// The model name (required, not blank).
    #[schema(value_type = String, min_length = 1, pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]")]
    pub model: Option<String>,
    /// Set a new key; an empty string removes it; absent keeps the stored one.
    pub api_key: Option<String>,
    /// The environment variable to read the key from when none is stored (a name of letters,
    /// digits and `_`, at most 128); absent: the kind's usual one (`OPENAI_API_KEY`,
    /// `ANTHROPIC_API_KEY`).
    #[schema(pattern = "^[A-Za-z_][A-Za-z0-9_]{0,127}$")]
    pub api_key_env: Option<String>,
    /// `chat` (default) or `responses` (OpenAI's Responses API); `openai` providers only.
    #[serde(default)]
    pub api_mode: Option<ApiMode>,
}

/// A provider to test before (or without) saving it: what the Add/Edit provider form says.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"kind": "openai", "base_url": "http://127.0.0.1:11434/v1"})))]
pub struct ProviderTestParams {
    /// The saved provider the form edits, if any: its stored key is used only when `base_url`
    /// and `kind` are still the ones it was saved with (a changed URL needs the key typed).
    pub id: Option<String>,
    /// `openai` (any OpenAI-compatible server) or `anthropic`.
    #[schema(value_type = ProviderKind)]
    pub kind: String,
    /// As in `PUT /api/providers/{id}`; blank or null: the provider's default.
    #[schema(
        pattern = "^(https?://[\\s\\S]*|[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)$"
    )]
    pub base_url: Option<String>,
    /// A key typed in the form (at most 4096 bytes): sent to `base_url` for this test only,
    /// never stored.
    pub api_key: Option<String>,
    /// The model the form names: the answer says whether the server lists it.
    pub model: Option<String>,
    #[serde(default)]
    pub api_mode: Option<ApiMode>,
}

/// Which key a provider test sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestKey {
    /// The one typed in the form.
    Typed,
    /// The saved provider's, to the URL it was saved with.
    Saved,
    /// None.
    None,
}

/// What a provider test found: the models the server lists (as `GET /api/models` gives them).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderTestResult {
    pub data: Vec<ModelInfo>,
    pub key: TestKey,
    /// With `model`: whether the server lists it (null without `model`).
    pub model_listed: Option<bool>,
}

/// Which API of an `openai` provider its calls use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApiMode {
    /// Chat Completions (`/chat/completions`): every OpenAI-compatible server.
    #[default]
    Chat,
    /// The Responses API (`/responses`): OpenAI's newer models and Codex.
    Responses,
}

impl ApiMode {
    pub fn is_chat(&self) -> bool {
        *self == ApiMode::Chat
    }
}

/// One configured provider (`GET /api/providers`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"id": "local", "kind": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder:14b", "api_key_set": false, "api_key_env": null, "source": "config", "default": true})))]
pub struct ProviderView {
    /// What sessions name it by (`default` for the one the start flags or
    /// `PUT /api/settings/provider` set).
    pub id: String,
    /// `openai`, `anthropic` or `replay`.
    pub kind: String,
    pub base_url: Option<String>,
    /// Its default model.
    pub model: Option<String>,
    /// Whether a key is available (stored, named by `api_key_env`, in config.json, or the
    /// kind's usual environment variable); the key itself is never returned.
    pub api_key_set: bool,
    /// The environment variable its key is read from, when it names one.
    pub api_key_env: Option<String>,
    pub source: ProviderSource,
    /// Sessions without their own provider use this one.
    pub default: bool,
    /// `chat` or `responses` (`openai` providers).
    #[serde(default, skip_serializing_if = "ApiMode::is_chat")]
    pub api_mode: ApiMode,
    /// What the server behind an OpenAI-compatible provider is, and how its default model's
    /// calls are read (asked of the server when listed; absent for other kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_server: Option<ModelServerView>,
}

/// What a model server is and does for a model (`GET /api/providers`, `GET /api/models`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
pub struct ModelServerView {
    /// `llama_cpp`, `vllm`, `ollama`, `lm_studio`, or `other` (not recognised).
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether the server takes `tools` for the model (absent: it does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<bool>,
    /// How the model's calls are read: `native`, `text` (written as text, the tools described
    /// in the system prompt) or `auto` (native, and the tagged formats in text).
    pub tool_calls: String,
    /// The output constraint its requests carry: `gbnf`, `json_schema` or `off`.
    pub constrained: String,
    /// The context window Tradewind assumes for it.
    pub context_window: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderList {
    pub data: Vec<ProviderView>,
    /// The default provider's id; null when none is configured.
    pub default: Option<String>,
}

/// `GET /api/models?provider=`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ModelsQuery {
    /// A provider's id (`GET /api/providers`); absent: the default provider.
    pub provider: Option<String>,
}

/// A web search provider (`websearch` sends the query there).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum SearchProvider {
    /// A SearXNG instance (`searxng_url`; by default a public one).
    Searxng,
    /// DuckDuckGo Instant Answer: no key; direct factual queries only.
    DuckduckgoInstant,
    /// DuckDuckGo's HTML page: no key; a general web search.
    DuckduckgoHtml,
    /// Tavily (`TAVILY_API_KEY`).
    Tavily,
    /// Brave Search (`BRAVE_SEARCH_API_KEY`).
    Brave,
    /// SerpApi (`SERPAPI_API_KEY`).
    Serpapi,
    /// The model's provider searches on its side (OpenAI's Responses API, Anthropic): no
    /// `websearch` tool is offered; the provider's own search tool is sent instead, in a
    /// session where `external` runs without asking or once the user allowed it.
    Native,
}

impl SearchProvider {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One provider the Settings page offers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchProviderInfo {
    pub id: SearchProvider,
    pub label: String,
    /// The environment variable its key is read from when none is stored (keyless: absent).
    pub key_env: Option<String>,
    /// What to know before choosing it.
    pub note: String,
}

/// Where the web search settings in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettingsSource {
    /// Nothing configured: the defaults.
    Default,
    /// `websearch` in the state directory's config.json.
    Config,
    /// `PUT /api/settings/websearch`.
    Settings,
}

/// `GET /api/settings/websearch`: the provider `websearch` uses now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WebSearchSettingsView {
    pub provider: SearchProvider,
    /// The SearXNG instance (used by `searxng`).
    pub searxng_url: String,
    /// `websearch.endpoint` from config.json: the provider's API URL instead of its public one.
    pub endpoint: Option<String>,
    /// The variable the key is read from when none is stored (keyless providers: absent).
    pub key_env: Option<String>,
    /// Whether a key is available (stored, or in the server's environment). Never returned.
    pub api_key_set: bool,
    pub source: SettingsSource,
    /// Every provider, for a chooser.
    pub providers: Vec<SearchProviderInfo>,
    /// `websearch.nativeToolType` from config.json: the tool type `native` sends instead of
    /// the provider's default (`web_search` for OpenAI, `web_search_20250305` for Anthropic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_tool_type: Option<String>,
}

/// `PUT /api/settings/websearch`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchSettingsParams {
    pub provider: SearchProvider,
    /// The SearXNG instance: `https://…`, or `http://` on a loopback host (422 otherwise);
    /// blank or absent: the default public instance.
    #[schema(
        pattern = "^(https?://[\\s\\S]*|[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)$"
    )]
    pub searxng_url: Option<String>,
    /// Set a new key; an empty string removes it; absent keeps the stored one.
    #[schema(max_length = 4096)]
    pub api_key: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ModelList {
    pub data: Vec<ModelInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ModelInfo {
    pub id: String,
    /// The context window its server gives it (Ollama's `/api/show`, llama.cpp's `/props`,
    /// LM Studio's and vLLM's model lists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Whether it takes tools; `false`: its calls are read from its text (choosing it warns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<bool>,
    /// Whether it takes images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
    /// Its size on disk, in bytes (Ollama, LM Studio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
}

/// `POST /api/policy/check`: what the gate would decide for a tool call. Nothing is executed.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyCheckParams {
    /// Judge as in this session (its workspace, mode, agent and grants). Without it: the server's
    /// workspace, mode `ask` (or `mode`), the build agent (or `agent`), nothing granted.
    pub session: Option<SessionId>,
    /// A tool name (`shell`, `write_file`, …).
    pub tool: String,
    /// The tool's arguments, as the model would send them.
    #[schema(value_type = Object)]
    pub input: serde_json::Value,
    /// Without `session`: the mode to judge in.
    pub mode: Option<Mode>,
    /// Without `session`: the agent to judge for.
    pub agent: Option<AgentName>,
}

/// One reason the gate found.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyReason {
    /// `removed`, `outside_workspace`, `hard_denied`, `effect`, `startup_write`,
    /// `never_loosens`, `granted` or `allowed`.
    pub code: String,
    pub message: String,
    /// What this reason alone decides.
    pub decision: PolicyDecision,
}

/// A simple command the shell parser found in a `shell`, `bg_run` or `run_process` call.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyCommand {
    pub argv: Vec<String>,
    pub effect: Effect,
    /// The first category that never loosens, if any.
    pub category: Option<String>,
    /// Every category found in this command.
    pub categories: Vec<String>,
    /// What the gate would decide for this command alone.
    pub decision: PolicyDecision,
}

/// The gate's dry run: the decision, every reason, the categories and the commands it saw.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PolicyCheckReport {
    pub decision: PolicyDecision,
    pub tool: String,
    pub effect: Effect,
    pub reasons: Vec<PolicyReason>,
    /// Categories of the whole command: `recursive_delete`, `network`, `admin`,
    /// `package_install`, `boot_autostart`, `opaque`, `outside_cwd`.
    pub categories: Vec<String>,
    pub commands: Vec<PolicyCommand>,
    /// Deny-list mentions, control characters and the categories' explanations.
    pub warnings: Vec<String>,
}

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The user cancelled it (status `cancelled`).
    User,
    /// The server was stopped during the run (status `interrupted`).
    Shutdown,
    /// Found unfinished at the next start: the server had crashed (status `interrupted`).
    Crash,
    /// A steered message (`delivery: steer`): the active run took it at a tool boundary, so
    /// this queued run never started (status `completed`; the message is in that run).
    Steered,
}

/// What made an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    /// A plan revision (`exit_plan`).
    Plan,
}

/// Where a grant lives: the session alone, or a rule every session of its workspace uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrantScope {
    Session,
    Workspace,
}

/// The kinds of model provider Settings can switch to (`replay` is only set at start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// Any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio…).
    Openai,
    Anthropic,
}

/// One thing a session was allowed: by an approval answer, or a rule kept for its workspace.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GrantInfo {
    /// The stored key (pass it back to revoke).
    pub key: String,
    /// `effect`, `directory`, `file`, `command`, `prefix`, `network`, `mcp`, `jail` (a path let
    /// into the session's jail), `write`, `web_search` (the provider's own search allowed, or
    /// declined, for the session), `hooks` (a hooks file's hooks may run) or `other`.
    pub kind: String,
    /// What it allows, in words.
    pub label: String,
    #[schema(value_type = GrantScope)]
    pub scope: String,
    pub created_at: i64,
}

/// `GET /api/sessions/{id}/permissions`: what the session may do without asking, and why.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SessionPermissions {
    pub session: SessionId,
    pub mode: Mode,
    pub agent: AgentName,
    pub workspace: String,
    /// The server's startup flags: the ceiling of what runs without asking.
    pub ceiling: CeilingInfo,
    pub read_only: bool,
    pub yolo: bool,
    pub extra_roots: Vec<String>,
    pub sandbox: SandboxInfo,
    pub grants: Vec<GrantInfo>,
}

/// One tool as a session sees it now (what `/tools` lists: offered or not, and why).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ToolStatus {
    pub name: String,
    pub effect: Effect,
    /// `enabled` (runs without asking), `ask` or `disabled`.
    pub status: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ToolStatusList {
    pub data: Vec<ToolStatus>,
}

/// The largest integer a JSON number holds exactly (2^53 − 1): the bound of seqs and offsets the
/// API takes (the schema states it as `maximum`).
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Where an MCP server stands (`GET /api/mcp/servers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpState {
    /// `enabled: false` in config.json: never connected.
    Disabled,
    /// Not connected yet: `--allow-mcp`/`mcp.allow` connects at start, Connect does it later.
    Disconnected,
    Connecting,
    /// Its tools are offered to the agent from the next model turn.
    Connected,
    /// The connection failed or the server went away; `error` says why.
    Failed,
    /// An HTTP server answered 401/403: it needs credentials (a header from an environment
    /// variable; there is no interactive OAuth).
    NeedsAuth,
    /// The server said its tools changed since they were listed: they are withdrawn (no call runs
    /// against a schema the model did not see) until a reconnect lists them again.
    NeedsRestart,
}

/// One tool an MCP server offers, as the agent sees it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct McpToolInfo {
    /// The name the model calls: `mcp_<server>_<tool>`.
    pub name: String,
    /// The tool's name on its server.
    pub remote_name: String,
    pub description: String,
    /// What the server says of the tool (`read-only`, `destructive`, `open-world`, …): shown on
    /// approvals, never a reason to ask less.
    pub hints: Vec<String>,
}

/// One configured MCP server.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct McpServerInfo {
    pub name: String,
    /// `stdio` (a command) or `http` (streamable HTTP).
    pub transport: String,
    /// The command line or URL, as configured (header values and variables not shown).
    pub target: String,
    pub state: McpState,
    /// `user` (config.json in the state directory) or `workspace` (the workspace's approved
    /// `.tradewind/config.json`).
    pub source: String,
    /// Why it failed.
    pub error: Option<String>,
    /// The server's own name and version, once connected.
    pub server_info: Option<String>,
    pub tools: Vec<McpToolInfo>,
    /// Tools the server listed that are not offered to the model, each as `name: why` (an
    /// input schema no provider accepts).
    pub skipped_tools: Vec<String>,
    /// What the server created at its start that programs outside the sandbox run without
    /// asking (a `.envrc`, a git directory, Claude Code or VS Code settings): moved aside, one
    /// line each naming where it went and how to keep it.
    #[serde(default)]
    pub held: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct McpServerList {
    pub data: Vec<McpServerInfo>,
    /// Connected at start (`--allow-mcp` or `mcp.allow`); headless runs may call the tools.
    pub allowed: bool,
    /// `--read-only`: MCP is off.
    pub blocked: bool,
}

/// The workspace's own `.tradewind/config.json` (`GET /api/workspace/config`): a repository's
/// file, so untrusted. Nothing in it is used until the user approves this exact content (pinned by
/// hash; any change needs approval again), and even then only its MCP servers are read.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WorkspaceConfigView {
    /// Where the file is (whether or not it exists).
    pub path: String,
    pub present: bool,
    /// SHA-256 of the file as it is now (hex); what an approval pins.
    pub hash: Option<String>,
    /// This content was approved: its servers are listed with the user's own.
    pub approved: bool,
    /// The MCP servers it names, as their command line or URL.
    pub servers: Vec<WorkspaceMcpServer>,
    /// What is ignored even once approved (security-relevant keys come only from the user's own
    /// config), or why the file cannot be used.
    pub ignored: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WorkspaceMcpServer {
    pub name: String,
    pub target: String,
    /// The user's config.json names a server of the same name: that one is used.
    pub shadowed: bool,
}

/// `POST /api/workspace/config/approve`: approve the file with this hash (as the view showed it).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WorkspaceConfigApproval {
    pub hash: String,
}

/// One Agent Skill (`GET /api/skills`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SkillInfo {
    pub name: String,
    pub description: String,
    /// `workspace` (its `.tradewind/skills`, `.agents/skills`, `.claude/skills`), `user` (the
    /// state directory's `skills/`) or `plugin` (an enabled plugin's).
    pub source: String,
    /// Its folder.
    pub dir: String,
    /// `allowed-tools` as written: shown, never a grant.
    pub allowed_tools: Vec<String>,
    /// The body's first 400 characters.
    pub preview: String,
    /// Off: listed, never offered to the model nor a slash command (`PUT /api/skills/{name}`).
    pub enabled: bool,
}

/// `PUT /api/skills/{name}`: turn a skill on or off in the server's workspace.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillSwitch {
    pub enabled: bool,
}

/// `GET /api/skills`: the skills the server's workspace's sessions see.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SkillList {
    pub data: Vec<SkillInfo>,
    /// Folders left out, each with why (invalid front matter, a duplicate name, too large).
    pub skipped: Vec<String>,
    /// The hash of the workspace's skill folders (absent: it has none): trust it with
    /// `POST /api/skills/trust`.
    pub workspace_hash: Option<String>,
    /// The workspace's skills are ignored until trusted (their files changed since, or never
    /// trusted).
    pub untrusted: bool,
}

/// `POST /api/skills/trust`: trust the workspace's skills as `GET /api/skills` showed them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillTrust {
    #[schema(max_length = 128)]
    pub hash: String,
}

/// One hook (`GET /api/hooks`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HookInfo {
    /// The file it is configured in.
    pub file: String,
    /// `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`, `SessionStart` or `PreCompact`.
    pub event: String,
    /// The tools it runs for (a regular expression over the whole name; absent: all).
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_secs: u64,
}

/// A hooks file as the server reads it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HookFileInfo {
    pub path: String,
    /// Its SHA-256: a session's grant to run its hooks covers this content only.
    pub hash: String,
    /// `user` (the state directory's `hooks.json`), `workspace` (`.tradewind/hooks.json`,
    /// `.claude/settings.json`) or `plugin` (an enabled plugin's `hooks/hooks.json`).
    pub source: String,
    /// What of it was left out, and why.
    pub skipped: Vec<String>,
}

/// `GET /api/hooks`: the hooks the server's workspace's sessions run.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HookList {
    /// The hooks of every file that counts (the workspace's only once trusted).
    pub data: Vec<HookInfo>,
    /// Every hooks file found, the untrusted workspace's included.
    pub files: Vec<HookFileInfo>,
    /// What to trust of the workspace's hooks (`POST /api/hooks/trust`); absent: it has none.
    pub workspace_hash: Option<String>,
    /// The workspace's hooks are ignored until trusted as they are now.
    pub untrusted: bool,
}

/// One agent a session can run as (`GET /api/agents`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentInfo {
    pub name: crate::AgentName,
    pub description: String,
    /// `builtin`, `workspace` (`.tradewind/agents`, `.claude/agents`) or `user` (the state
    /// directory's `agents/`).
    pub source: String,
    /// Its file (absent for a built-in).
    pub file: Option<String>,
    /// The built-in it narrows: `build`, or `plan`.
    pub base: Agent,
    /// Its tools, as our names (absent: every tool of its base). `shell` narrowed to some
    /// commands is listed in `commands`.
    pub tools: Option<Vec<String>>,
    /// The commands `shell` may run (`git *`: starting with `git`); empty: any.
    pub commands: Vec<String>,
    /// Its mode ceiling (never above the session's); absent: the session's.
    pub mode: Option<Mode>,
    /// The model as written (`<provider>/<model>`, an alias); absent: the session's.
    pub model: Option<String>,
    pub reasoning: Option<ReasoningEffort>,
    /// What of its front matter was left out, and why (an unknown tool name).
    pub skipped: Vec<String>,
}

/// `GET /api/agents`: the agents a session of the server's workspace can choose.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentList {
    /// `build` and `plan` first, then the custom ones.
    pub data: Vec<AgentInfo>,
    /// Files left out, each with why (invalid front matter, a duplicate or reserved name, too
    /// large).
    pub skipped: Vec<String>,
    /// What to trust of the workspace's agents (`POST /api/agents/trust`); absent: it has none.
    pub workspace_hash: Option<String>,
    /// The workspace's agents are ignored until trusted as they are now.
    pub untrusted: bool,
}

/// One installed plugin (`GET /api/plugins`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PluginInfo {
    pub name: String,
    pub version: Option<String>,
    pub description: String,
    /// Off until the user enables it (`PUT /api/plugins/{name}`, `tradewind plugin enable`):
    /// nothing of it takes effect before.
    pub enabled: bool,
    /// Its folder (in the state directory's `plugins/`).
    pub root: String,
    /// What it bundles: its skills', agents' and commands' folders, hooks file.
    pub skills: bool,
    pub agents: bool,
    pub commands: bool,
    pub hooks: bool,
    /// Its MCP servers' names.
    pub mcp_servers: Vec<String>,
    /// `server/tool`: the MCP tool of its own it names to serve `websearch`.
    pub websearch: Option<String>,
    /// What of it cannot be used, and why.
    pub problems: Vec<String>,
}

/// `GET /api/plugins`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PluginList {
    pub data: Vec<PluginInfo>,
}

/// `PUT /api/plugins/{name}`: turn an installed plugin on or off.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginSwitch {
    pub enabled: bool,
}

/// One workspace's files the user trusted (`GET /api/trust`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TrustInfo {
    pub kind: TrustKind,
    pub workspace: String,
    /// The hash trusted.
    pub hash: String,
    /// Whether the files still hold what was trusted (false: changed since; they are held back
    /// until trusted again).
    pub current: bool,
}

/// `GET /api/trust`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TrustList {
    pub data: Vec<TrustInfo>,
}

/// What of a workspace can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrustKind {
    /// Its `.tradewind/config.json`.
    Config,
    Skills,
    Hooks,
    Agents,
}

impl TrustKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TrustKind::Config => "config",
            TrustKind::Skills => "skills",
            TrustKind::Hooks => "hooks",
            TrustKind::Agents => "agents",
        }
    }
}

/// `DELETE /api/trust`: which trust to take back.
#[derive(Debug, Clone, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TrustRevoke {
    /// `config` (the workspace's `.tradewind/config.json`), `skills` or `hooks`.
    pub kind: TrustKind,
    /// The workspace, as listed.
    #[param(min_length = 1, max_length = 4096)]
    pub workspace: String,
}
