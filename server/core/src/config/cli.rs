//! The command line: every subcommand and flag (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::*;

#[derive(Debug, Parser)]
#[command(
    name = "tradewind",
    version,
    about = "Self-hosted, web-first coding-agent server"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct OpenapiArgs {
    /// Print the Markdown reference docs/PROTOCOL.md embeds (operations and event types)
    /// instead of the JSON document.
    #[arg(long)]
    pub reference: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web app, the REST API and the WebSocket.
    Serve(ServeArgs),
    /// Run one prompt headless (never asks; an effect not allowed is simply unavailable).
    Run(RunArgs),
    /// Print the OpenAPI document.
    Openapi(OpenapiArgs),
    /// Set the login password (argon2id), read from standard input.
    Passwd(PasswdArgs),
    /// The permission gate, from the command line.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Copy the database to FILE while the server runs (SQLite: a consistent snapshot, mode
    /// 0600; PostgreSQL: use pg_dump).
    Backup(BackupArgs),
    /// Check the database: integrity, schema version, counts.
    Check(PasswdArgs),
    /// Print a fresh one-time sign-in link (and its QR code) for the server running with this
    /// state directory: the way in for a new device, or back in without a password.
    Link(PasswdArgs),
    /// MCP servers from config.json.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Workspaces whose `.tradewind/config.json`, skills, agents or hooks you trusted: list them, or
    /// take one back.
    #[command(subcommand)]
    Trust(TrustCommand),
    /// Plugins (the state directory's `plugins/`): install, list, enable, disable, remove. A
    /// plugin bundles skills, agents, commands, hooks and MCP servers; it takes effect only once
    /// enabled.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// The sessions of this state directory: list, show, export, import (through the running
    /// server when there is one).
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// Internal: run a command confined (Landlock, own session, subreaper). The server execs
    /// this for every command the agent starts.
    #[command(hide = true)]
    SandboxExec {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<std::ffi::OsString>,
    },
}

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// Every installed plugin: name, on/off, version, what it bundles (tab-separated).
    List(PasswdArgs),
    /// Install a plugin, disabled: `npm:<package>[@version]`, a package name, or
    /// `file:<path to a .tgz>` (offline). npm runs with `--ignore-scripts`: nothing of the
    /// package runs.
    Install(PluginInstallArgs),
    /// Turn an installed plugin on (a running server counts its skills, agents, commands and
    /// hooks from its next run; its MCP servers from its next start).
    Enable(PluginNameArgs),
    /// Turn it off.
    Disable(PluginNameArgs),
    /// Delete an installed plugin (turned off first).
    Remove(PluginNameArgs),
}

#[derive(Debug, Args)]
pub struct PluginInstallArgs {
    #[command(flatten)]
    pub common: PasswdArgs,
    pub spec: String,
    /// Install without asking (the command line's own consent).
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct PluginNameArgs {
    #[command(flatten)]
    pub common: PasswdArgs,
    pub name: String,
}

#[derive(Debug, Subcommand)]
pub enum TrustCommand {
    /// What is trusted: kind, `current` or `changed`, hash, workspace (tab-separated).
    List(PasswdArgs),
    /// Take back what is trusted of a workspace (every kind, or only `--kind`).
    Revoke(TrustRevokeArgs),
}

#[derive(Debug, Args)]
pub struct TrustRevokeArgs {
    #[command(flatten)]
    pub common: PasswdArgs,
    /// The workspace, as `trust list` shows it.
    pub path: PathBuf,
    /// `config`, `skills`, `hooks` or `agents` (default: all four).
    #[arg(long)]
    pub kind: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Every session, newest first: id, status, agent, title (tab-separated).
    List(SessionsListArgs),
    /// A session's transcript as Markdown.
    Show(SessionArgs),
    /// A whole session: `--format json` (events and messages; `sessions import` takes it back)
    /// or `md`.
    Export(SessionExportArgs),
    /// Create a session from an exported JSON file; prints its id.
    Import(SessionImportArgs),
}

#[derive(Debug, Args)]
pub struct SessionsListArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
    /// Include archived sessions.
    #[arg(long)]
    pub archived: bool,
}

#[derive(Debug, Args)]
pub struct SessionArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    pub id: String,
}

#[derive(Debug, Args)]
pub struct SessionExportArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    pub id: String,
    /// `json` or `md`.
    #[arg(long, default_value = "json")]
    pub format: String,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SessionImportArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// A file written by `sessions export --format json`.
    pub file: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// The configured MCP servers (nothing is started).
    List(McpArgs),
    /// Start one server as the agent would (sandbox, environment), connect, list its tools;
    /// say what fails. Exit status 1 when it cannot connect.
    Doctor(McpDoctorArgs),
}

#[derive(Debug, Args)]
pub struct McpArgs {
    #[arg(long, env = "TRADEWIND_HOME")]
    pub state_dir: Option<PathBuf>,
    /// Workspace the server runs in (default: the current directory).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct McpDoctorArgs {
    #[command(flatten)]
    pub common: McpArgs,
    /// The server's name in config.json.
    pub name: String,
}

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// What the gate would decide for a shell command (`-- 'CMD'`) or a tool call (`--tool NAME
    /// --input JSON`); nothing is executed. Exit status: 0 allow, 1 ask, 2 deny, 3 usage error.
    Check(PolicyCheckArgs),
}

#[derive(Debug, Clone, Args)]
pub struct PolicyCheckArgs {
    /// Permission mode to judge in.
    #[arg(long, default_value = "ask", value_parser = parse_mode)]
    pub mode: crate::protocol::Mode,
    /// Agent: build, plan, or a custom agent of the workspace or of the user (judged as the
    /// built-in it narrows, in its mode ceiling).
    #[arg(long, default_value = "build", value_parser = parse_agent)]
    pub agent: crate::protocol::AgentName,
    #[arg(long)]
    pub allow_write: bool,
    #[arg(long)]
    pub allow_process: bool,
    #[arg(long)]
    pub allow_external: bool,
    #[arg(long)]
    pub read_only: bool,
    #[arg(long)]
    pub yolo: bool,
    /// Judge as a headless run (nobody to ask: asks become denials).
    #[arg(long)]
    pub headless: bool,
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Extra root (repeatable).
    #[arg(long = "add-dir")]
    pub add_dir: Vec<PathBuf>,
    /// State directory (hard-denied; default: $TRADEWIND_HOME or ~/.tradewind).
    #[arg(long, env = "TRADEWIND_HOME")]
    pub state_dir: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// A tool name (`write_file`, `run_process`, …) instead of a shell command.
    #[arg(long, requires = "input")]
    pub tool: Option<String>,
    /// The tool's arguments as JSON.
    #[arg(long, requires = "tool")]
    pub input: Option<String>,
    /// The shell command (after `--`).
    #[arg(last = true, conflicts_with = "tool")]
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Default, Args)]
pub struct CommonArgs {
    /// Workspace directory (default: the current directory).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// State directory (default: $TRADEWIND_HOME or ~/.tradewind).
    #[arg(long, env = "TRADEWIND_HOME")]
    pub state_dir: Option<PathBuf>,
    /// Let write tools run without asking.
    #[arg(long)]
    pub allow_write: bool,
    /// Let process tools run without asking.
    #[arg(long)]
    pub allow_process: bool,
    /// Let network tools run without asking.
    #[arg(long)]
    pub allow_external: bool,
    /// Connect the enabled MCP servers of config.json at start; headless runs may then call
    /// their tools (with --allow-external too). Without it, the web app's Connect does it.
    #[arg(long)]
    pub allow_mcp: bool,
    /// Remove write, process and external tools entirely.
    #[arg(long)]
    pub read_only: bool,
    /// Approve everything, including the categories that never loosen.
    #[arg(long)]
    pub yolo: bool,
    /// Extra directory the file tools may touch (repeatable).
    #[arg(long = "add-dir")]
    pub add_dir: Vec<PathBuf>,
    /// Keep a plugin off (repeatable): an installed one, or a built-in one — `memory`,
    /// `subagents`, `todo` — whose tools are then not offered (with `--read-only`: a strictly
    /// write-free agent).
    #[arg(long = "disable-plugin", value_name = "NAME")]
    pub disable_plugin: Vec<String>,
    /// Model provider.
    #[arg(long, env = "TRADEWIND_PROVIDER", value_parser = ["openai", "anthropic", "replay"])]
    pub provider: Option<String>,
    /// Provider base URL (OpenAI-compatible servers: e.g. http://127.0.0.1:11434/v1).
    #[arg(long, env = "TRADEWIND_BASE_URL")]
    pub base_url: Option<String>,
    /// Model name.
    #[arg(long, env = "TRADEWIND_MODEL")]
    pub model: Option<String>,
    /// Replay script (with --provider replay).
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// The API an openai provider's calls use: `chat` (Chat Completions, default) or
    /// `responses` (OpenAI's Responses API).
    #[arg(long, env = "TRADEWIND_API_MODE", value_parser = ["chat", "responses"])]
    pub api_mode: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Address to bind (default 127.0.0.1). A non-loopback address needs a password.
    #[arg(long)]
    pub bind: Option<IpAddr>,
    /// Port (default 7420; 0 picks a free one).
    #[arg(long)]
    pub port: Option<u16>,
    /// HTTPS: `auto` makes a local certificate authority once (in the state dir) and a
    /// certificate for this machine's names and addresses; `off` serves plain HTTP. Default:
    /// `auto` when binding a non-loopback address, else `off`.
    #[arg(long, value_parser = ["auto", "off"], conflicts_with_all = ["no_tls", "tls_cert"])]
    pub tls: Option<String>,
    /// Serve plain HTTP even on a non-loopback address (passwords and cookies cross the
    /// network in clear text).
    #[arg(long)]
    pub no_tls: bool,
    /// HTTPS with your own certificate chain (PEM), e.g. from mkcert or Tailscale; reloaded
    /// when the file changes.
    #[arg(long, requires = "tls_key", conflicts_with = "no_tls")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) for --tls-cert.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The URL users open (e.g. `https://devbox.lan:7420`): its host goes into the certificate,
    /// the allowed host names and the sign-in links.
    #[arg(long)]
    pub public_url: Option<String>,
    /// Announce the server on the local network (mDNS `_tradewind._tcp`, with the CA
    /// fingerprint). Off by default.
    #[arg(long)]
    pub mdns: bool,
    /// Let the session's owner open terminals in the browser (a shell in the session's jail).
    /// Never on a plain-HTTP network bind; off under --read-only.
    #[arg(long)]
    pub allow_terminal: bool,
}

/// How the server speaks HTTPS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsSetting {
    Off,
    /// A local CA in the state dir and a leaf for this machine.
    Auto,
    /// The user's own certificate chain and key (PEM files).
    Files {
        cert: PathBuf,
        key: PathBuf,
    },
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Print one JSON event per line.
    #[arg(long)]
    pub json: bool,
    /// Agent: build (default for a new session), plan (read-only; its plan becomes the final
    /// answer), or a custom agent's name (`.tradewind/agents/<name>.md`, `.claude/agents/`, the
    /// state directory's `agents/`).
    #[arg(long, value_parser = parse_agent)]
    pub agent: Option<crate::protocol::AgentName>,
    /// Continue this session (`tradewind sessions list`) instead of starting a new one.
    #[arg(long)]
    pub session: Option<String>,
    /// Through a running server: let what would ask wait for an answer in its web app (without
    /// it, such an effect is unavailable, as in a run without a server).
    #[arg(long)]
    pub interactive: bool,
    /// The prompt.
    #[arg(required = true, trailing_var_arg = true)]
    pub prompt: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    #[arg(long, env = "TRADEWIND_HOME")]
    pub state_dir: Option<PathBuf>,
    /// The new file (it must not exist).
    pub file: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct PasswdArgs {
    #[arg(long, env = "TRADEWIND_HOME")]
    pub state_dir: Option<PathBuf>,
}
