//! The server itself: health, sign-in and devices, Web Push, TLS, tokens, the queue, the
//! configuration it reports.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(examples(json!({"id": "01JD8Q3W5V6X7Y8Z9A0B1C2D3E", "session_id": "01JD8Q2N4M5K6J7H8G9F0E1D2C", "status": "completed", "trigger": "prompt", "agent": "build", "error": null, "usage": {"input_tokens": 5120, "output_tokens": 840}, "created_at": 1764547200000_i64, "started_at": 1764547200010_i64, "finished_at": 1764547231000_i64})))]
pub struct RunInfo {
    pub id: RunId,
    pub session_id: SessionId,
    pub status: RunStatus,
    pub trigger: RunTrigger,
    pub agent: AgentName,
    /// Why the run failed or was interrupted; null otherwise.
    pub error: Option<WireError>,
    /// Tokens used; null until the run ends.
    pub usage: Option<Usage>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Health {
    pub status: String,
    pub version: String,
    /// A password is set, so the sign-in page offers a password field; otherwise the way in is
    /// a one-time link (`tradewind link` on the server's machine).
    pub password_login: bool,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginParams {
    /// At most 1024 bytes.
    #[schema(max_length = 1024)]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WhoAmI {
    /// `cookie` (browser login), `bearer` (access token or API token).
    pub kind: String,
    pub login_session_id: Option<String>,
    pub token_id: Option<String>,
    pub password_set: bool,
    /// What the caller may do: a browser sign-in and the access token have every scope.
    pub scopes: Vec<TokenScope>,
    /// For a browser sign-in: the `view` query parameter of addresses the browser loads itself
    /// (artifact files and downloads, attachments), where it cannot send the page token.
    pub view_token: Option<String>,
}

/// What an API token may do. `read`: every GET. `prompt`: every other request that does not
/// widen what the agent may do. `admin`: the ones that do — answering an approval or a plan,
/// changing a session's mode (or creating one in a mode other than `ask`), grants, approving a
/// workspace's config, connecting an MCP server, editing or testing a provider, creating tokens
/// or device links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TokenScope {
    Read,
    Prompt,
    Admin,
}

impl TokenScope {
    pub const ALL: [TokenScope; 3] = [TokenScope::Read, TokenScope::Prompt, TokenScope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            TokenScope::Read => "read",
            TokenScope::Prompt => "prompt",
            TokenScope::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<TokenScope> {
        TokenScope::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// A single-use ticket for one Server-Sent Events connection (`?ticket=`), for clients that
/// cannot send headers (`EventSource`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StreamTicket {
    pub ticket: String,
    /// 60: the ticket must be used within this many seconds.
    pub expires_in_secs: u64,
}

/// A diagram of a pending plan that the browser could not render.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderError {
    /// The diagram's id in the plan revision (1 to 80 characters).
    #[schema(min_length = 1, max_length = 80)]
    pub diagram_id: String,
    /// Mermaid's error message (not blank, at most 2,000 characters).
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub message: String,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderErrorsParams {
    /// 1 to 10 errors.
    #[schema(min_items = 1, max_items = 10)]
    pub errors: Vec<RenderError>,
}

/// An input waiting behind a session's active run.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QueueItem {
    /// The id of the run it will become.
    pub id: RunId,
    /// 1 = next.
    pub position: u32,
    pub trigger: RunTrigger,
    pub text: String,
    /// Milliseconds since the epoch.
    pub queued_at: i64,
    /// `steer`: the active run takes it at its next tool boundary; `queue`: it waits for the
    /// run to end.
    #[serde(default)]
    pub delivery: crate::Delivery,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QueueList {
    pub data: Vec<QueueItem>,
}

/// A queued input's new text.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchQueueItem {
    /// The same rules as a prompt: not blank, at most 200,000 characters.
    #[schema(
        min_length = 1,
        max_length = 200000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub text: String,
}

/// `POST /api/runs/{id}/cancel` body (optional).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelParams {
    /// Also cancel every input queued behind this run on its session.
    #[serde(default)]
    pub drop_queue: bool,
}

/// A signed-in browser (one login session).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Device {
    pub id: String,
    /// The name the user gave it, else a readable one from the user agent, e.g. "Firefox on
    /// Android".
    pub name: String,
    /// The name the user gave it (`PATCH /api/devices/{id}`); null: none.
    #[serde(default)]
    pub label: Option<String>,
    /// The address it signed in from.
    #[serde(default)]
    pub signin_ip: Option<String>,
    pub user_agent: Option<String>,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub last_seen_at: i64,
    pub last_ip: Option<String>,
    /// When the sign-in ends however active it is (`auth.maxDays`); it also ends after
    /// `auth.idleDays` unseen.
    pub expires_at: i64,
    /// The device making this request.
    pub current: bool,
}

/// `PATCH /api/devices/{id}`: name a device.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"label": "Work laptop"})))]
pub struct DevicePatch {
    /// 1 to 60 characters, no control characters; null or blank: back to its browser's name.
    pub label: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DeviceList {
    pub data: Vec<Device>,
}

/// Web Push: the server's public key and the browsers subscribed to it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushInfo {
    /// The VAPID public key (base64url, uncompressed P-256 point): the `applicationServerKey`
    /// a browser subscribes with.
    pub public_key: String,
    pub data: Vec<PushSubscription>,
}

/// A browser subscribed to Web Push. Its endpoint is a capability and is never shown back;
/// `origin` names its push service.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushSubscription {
    pub id: String,
    /// The push service (scheme, host and port of the endpoint).
    pub origin: String,
    /// A readable name from the browser's user agent.
    pub name: String,
    pub created_at: i64,
    pub last_sent_at: Option<i64>,
    /// Why the last delivery failed (cleared by the next success).
    pub last_error: Option<String>,
    /// Registered by the device making this request.
    pub current: bool,
}

/// A browser's subscription as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PushSubscribeParams {
    /// The push service URL (https; plain http only on loopback), at most 2048 characters.
    pub endpoint: String,
    pub keys: PushKeys,
    /// Ignored (browsers send it; push services renew through the browser).
    #[serde(default)]
    pub expiration_time: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushKeys {
    /// The browser's P-256 public key (base64url, 65 bytes).
    pub p256dh: String,
    /// The browser's authentication secret (base64url, 16 bytes).
    pub auth: String,
}

/// What a test notification did.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushTestResult {
    /// Subscriptions whose push service took it.
    pub sent: u32,
    pub failed: Vec<PushFailure>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PushFailure {
    pub subscription: String,
    pub error: String,
}

/// A one-time sign-in link for another device ("Add a device"): single use, 5 minutes.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DeviceLink {
    pub url: String,
    pub expires_at: i64,
    /// The link as a QR code (SVG document), for a phone's camera.
    pub qr_svg: String,
    /// False when the server listens on loopback only and has no publicUrl (e.g. a tunnel or a
    /// proxy in front): another device cannot reach it.
    pub reachable_from_other_devices: bool,
}

/// How the server speaks HTTPS.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TlsInfo {
    /// `off`, `auto` (a local certificate authority in the state dir) or `files`
    /// (`--tls-cert`/`--tls-key`).
    pub mode: String,
    /// `auto`: SHA-256 of the local CA certificate, `AB:CD:…`, to compare on a phone.
    pub ca_fingerprint: Option<String>,
    /// `auto`: the page with the CA certificate and how to trust it on each platform.
    pub install_url: Option<String>,
    /// The address other devices use (publicUrl, else the host name, else a LAN address).
    pub url: String,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"name": "ci"})))]
pub struct CreateTokenParams {
    /// A label for the token: 1 to 100 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub name: String,
    /// What the token may do; default `["read", "prompt"]`. `read` is always included.
    #[serde(default)]
    pub scopes: Option<Vec<TokenScope>>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedToken {
    pub id: String,
    pub name: String,
    /// Shown once; only its hash is stored.
    pub token: String,
    pub scopes: Vec<TokenScope>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiToken {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    /// Tokens made before scopes existed have all three.
    pub scopes: Vec<TokenScope>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiTokenList {
    pub data: Vec<ApiToken>,
}

/// The server's startup ceiling and switches, for the UI's permission menu.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ServerConfig {
    pub version: String,
    pub workspace: String,
    pub ceiling: CeilingInfo,
    pub read_only: bool,
    pub yolo: bool,
    /// The mode a new session starts in when none is given: the smallest under which every
    /// effect the start flags allow runs unasked, or config.json's `defaultMode` (capped).
    pub default_mode: Mode,
    pub extra_roots: Vec<String>,
    pub sandbox: SandboxInfo,
    pub tls: TlsInfo,
    /// Terminals in the browser.
    pub terminal: TerminalInfo,
}

/// The process sandbox: whether commands run in the jail, in the Landlock fallback, or not
/// confined, and why.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SandboxInfo {
    /// Every command the agent starts runs confined (files and, with `network: deny`, TCP).
    pub active: bool,
    /// `bwrap` (the jail: namespaces, an empty HOME, Landlock and seccomp inside), `landlock`
    /// (the fallback: Landlock only, HOME read-only minus a deny list) or `none`.
    pub jail: String,
    /// `allow` or `deny`.
    pub network: String,
    /// Why the sandbox is off, or what it cannot protect (a root holding credentials).
    pub notes: Vec<String>,
    /// What the sandbox guarantees on this server, each said to hold or not (and why not, with
    /// the fix): the Landlock fallback gives fewer than the jail.
    #[serde(default)]
    pub guarantees: Vec<SandboxGuarantee>,
}

/// One guarantee of the process sandbox, and whether it holds on this server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SandboxGuarantee {
    /// A stable name: `home_allow_list` (HOME shows only toolchains, caches and what the user
    /// allowed), `git_control_files_read_only` (a repository's control files, `.envrc` and the
    /// like are read-only to commands), `server_out_of_reach` (the server's process, signals and
    /// the host's Unix sockets), `no_capabilities`, `no_set_uid` (nothing written carries
    /// set-user-ID or set-group-ID out), `network_deny_all` (`network: deny` cuts every
    /// protocol, not TCP alone), `full_mode` (sessions may run in `full`).
    pub id: String,
    pub holds: bool,
    /// What it means where it holds; where it does not, why, and the fix.
    pub detail: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
/// Terminals in the browser on this server.
pub struct TerminalInfo {
    /// The session's owner may open terminals (`terminal_open` on the WebSocket).
    pub enabled: bool,
    /// Why not, when they may not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CeilingInfo {
    pub write: bool,
    pub process: bool,
    pub external: bool,
}
