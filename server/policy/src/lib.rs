//! THE gate. `decide` is the only function that says allow / ask / deny for a proposed tool
//! call — model calls, user `!commands` and nested calls alike. It is pure (no I/O), so the
//! whole truth table is unit-tested, and it fails closed: an unknown tool is `external`, a
//! missing interactive UI turns `ask` into `deny`, and the categories that never loosen
//! (recursive deletes, the network, becoming administrator, installing packages, boot and
//! autostart files) keep asking in `full` mode unless the server was started with `--yolo`.
//!
//! Order of checks (first that applies wins): `--read-only` and the plan agent remove
//! write/process/external; hard-denied paths; paths outside every root (directory approval comes
//! before the effect check); the effect against mode × startup ceiling × session grants; the
//! never-loosening command categories.

pub mod command;
pub mod corpus;
mod git_writes;
pub mod jail;
mod keys;
pub mod lists;
pub mod paths;
pub mod secrets;

use std::collections::HashSet;
use std::path::PathBuf;

pub use git_writes::{git_writes, git_writes_of};
pub use keys::*;

use command::CommandAnalysis;
use protocol::{Agent, ApprovalScope, Effect, Mode};
use tradewind_protocol as protocol;

/// Startup flags are the ceiling of what runs without asking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ceiling {
    pub write: bool,
    pub process: bool,
    pub external: bool,
}

/// Who is asking, under which switches.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub agent: Agent,
    pub mode: Mode,
    /// An interactive UI can answer approvals (the server); headless runs never ask.
    pub interactive: bool,
    pub ceiling: Ceiling,
    pub read_only: bool,
    pub yolo: bool,
    /// Approval keys granted for this session, plus one-shot grants of this call.
    pub grants: &'a HashSet<String>,
}

/// A path the call touches, already resolved by `paths::PathPolicy`.
#[derive(Debug, Clone)]
pub struct PathUse {
    /// Hard links of the file (1 for a new file or a directory): a file with more than one may
    /// be another file — a credential — under an innocent name, so touching it asks.
    pub links: u64,
    pub path: PathBuf,
    pub inside: bool,
    pub directory: PathBuf,
}

/// Who proposed a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The model (every tool call), or a `!command` from a caller without the `admin` scope.
    Model,
    /// The user's own `!command`, sent with the `admin` scope (the browser, an admin token, the
    /// local command line): what asks only because a model might have proposed it — the mode,
    /// the start flags' ceiling, the categories that never loosen for a model, paths outside the
    /// workspace — is allowed. `--read-only`, hard-denied paths, running outside the sandbox,
    /// the SSH agent, installs, git's own state and private networks still decide as for the
    /// model, and the command still runs in the jail.
    User,
}

/// What the call wants to do.
#[derive(Debug, Clone, Copy)]
pub struct Proposal<'a> {
    pub tool: &'a str,
    pub origin: Origin,
    pub effect: Effect,
    pub paths: &'a [PathUse],
    /// For shell/run_process: the classification of the command.
    pub command: Option<&'a CommandAnalysis>,
    /// The command text (for its approval key).
    pub command_text: Option<&'a str>,
    /// For network tools: where the call connects, already resolved.
    pub net: Option<&'a NetUse>,
    /// For a tool of an MCP server: which one, as connected.
    pub mcp: Option<&'a McpUse>,
}

/// A call of a tool an MCP server offers. MCP never loosens (like the network): interactive, every call
/// asks unless this very tool — same server, same description and schema — was allowed for the
/// session; headless, only with `--allow-mcp` (and `--allow-external`, the effect's own check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpUse {
    pub server: String,
    /// The tool's name on its server.
    pub tool: String,
    /// A short hash of the tool's description and schema: a grant covers this version only.
    pub version: String,
    /// `--allow-mcp` / `mcp.allow`: headless runs may call MCP tools.
    pub headless_allowed: bool,
    /// The tool's annotations as the server states them (read-only, destructive, open-world):
    /// shown on the approval, never trusted to loosen it.
    pub hints: Vec<String>,
}

/// A network destination a call reaches (`webfetch` and each redirect it follows), resolved by
/// the caller: the gate stays pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetUse {
    /// `scheme://host:port`: what an answer covers.
    pub origin: String,
    /// When the host is (or resolves to) an address that is not public: the address and its
    /// range, e.g. `127.0.0.1 (loopback)`. Configured endpoints and `webfetch.allowHosts` are
    /// exempt and come with `None`.
    pub private: Option<String>,
    /// The URL's query string, if any: data may leave in it, so the approval shows it.
    pub query: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    pub scope: ApprovalScope,
    /// The first grant key (what the approval row records).
    pub key: String,
    /// Every grant key the approval covers: an "allow once" answer grants them all for this
    /// call, an "allow for this session/directory" answer stores them all.
    pub keys: Vec<String>,
    /// Every reason joined with "; ".
    pub reason: String,
    /// Every reason the call asks: mode, outside directories, startup files, categories.
    pub reasons: Vec<String>,
    pub directory: Option<PathBuf>,
    pub warnings: Vec<String>,
    /// "Allow commands like this": the argv prefix a `prefix` answer would store, offered when
    /// the call asks only for its effect and every part of the command would be covered.
    pub prefix: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow { reason: String, key: String },
    Ask(Ask),
    Deny { reason: String, key: String },
}

impl Decision {
    pub fn label(&self) -> crate::protocol::PolicyDecision {
        match self {
            Decision::Allow { .. } => crate::protocol::PolicyDecision::Allow,
            Decision::Ask(_) => crate::protocol::PolicyDecision::Ask,
            Decision::Deny { .. } => crate::protocol::PolicyDecision::Deny,
        }
    }
}

/// Files that run code at login, at boot, or inside git: a write to them always asks, like the
/// command categories that never loosen (a boot or autostart file is one of them).
pub fn always_ask_path(p: &std::path::Path) -> Option<&'static str> {
    if lists::is_startup_location(&p.to_string_lossy()) {
        return Some("a shell startup or autostart file");
    }
    let comps: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
        .collect();
    if comps.first().is_some_and(|c| c == "/") && comps.get(1).is_some_and(|c| c == "etc") {
        return Some("system configuration");
    }
    if comps.iter().any(|c| c == ".git") {
        return Some("git's own files (hooks and config can run commands)");
    }
    if comps.iter().any(|c| c == ".tradewind") {
        return Some("Tradewind's project configuration (it can name tools and servers)");
    }
    jail::program_file(p)
}

fn is_gated(effect: Effect) -> bool {
    matches!(effect, Effect::Write | Effect::Process | Effect::External)
}

/// The mode table: `ask` runs reads only, `auto` adds writes, `full` adds processes and the
/// network (each still under the startup ceiling).
pub fn mode_allows(mode: Mode, effect: Effect) -> bool {
    match effect {
        Effect::Read | Effect::Internal => true,
        Effect::Write => matches!(mode, Mode::Auto | Mode::Full),
        Effect::Process | Effect::External => mode == Mode::Full,
    }
}

pub fn ceiling_allows(c: Ceiling, effect: Effect) -> bool {
    match effect {
        Effect::Read | Effect::Internal => true,
        Effect::Write => c.write,
        Effect::Process => c.process,
        Effect::External => c.external,
    }
}

/// Is a tool of this effect offered to the model at all? (`--read-only` and the plan agent
/// remove gated tools; headless runs drop what they could only ask for.)
pub fn offered(
    effect: Effect,
    agent: Agent,
    interactive: bool,
    ceiling: Ceiling,
    read_only: bool,
    yolo: bool,
) -> bool {
    if !is_gated(effect) {
        return true;
    }
    if read_only || agent == Agent::Plan {
        return false;
    }
    interactive || yolo || ceiling_allows(ceiling, effect)
}

/// One reason the gate found, with what it alone would decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// Stable code: `removed`, `outside_workspace`, `hard_denied`, `effect`, `startup_write`,
    /// `never_loosens`, `outside_sandbox`, `ssh_agent`, `private_network`, `mcp`, `granted`, `allowed`.
    pub code: &'static str,
    pub message: String,
    pub verdict: protocol::PolicyDecision,
    /// The grant key an approval of this reason stores (`None` for denials).
    pub key: Option<String>,
    pub directory: Option<PathBuf>,
}

/// The decision and every reason behind it: deny wins over ask over allow, and all the reasons
/// that ask are gathered into one approval (answering it once is enough).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub decision: Decision,
    pub reasons: Vec<Reason>,
}

/// The one decision.
pub fn decide(ctx: &Context<'_>, p: &Proposal<'_>) -> Decision {
    explain(ctx, p).decision
}

/// Every stage, in order: switches that remove effects, paths outside the roots, hard-denied
/// command paths, the effect against mode × ceiling × grants, startup-file writes and the
/// categories that never loosen.
pub fn explain(ctx: &Context<'_>, p: &Proposal<'_>) -> Explanation {
    if let Some(r) = removed(ctx, p) {
        return finish(ctx, p, vec![r], Vec::new());
    }
    let mut rs = outside_roots(ctx, p);
    rs.extend(sensitive_files(ctx, p));
    if is_gated(p.effect) {
        rs.extend(hard_denied_command(ctx, p));
        let warnings = command_warnings(p.command);
        rs.extend(effect_not_allowed(ctx, p));
        rs.extend(startup_write(ctx, p));
        rs.extend(never_loosens(ctx, p));
        rs.extend(outside_sandbox(ctx, p));
        rs.extend(ssh_agent(ctx, p));
        rs.extend(force_push(ctx, p));
        rs.extend(plugin_install(ctx, p));
        rs.extend(git_state_write(ctx, p));
        rs.extend(private_network(ctx, p));
        rs.extend(mcp_tool(ctx, p));
        let mut warnings = warnings;
        if let Some(m) = p.mcp {
            warnings.extend(m.hints.iter().map(|h| format!("the server says: {h}")));
        }
        if let Some(q) = p.net.and_then(|n| n.query.as_deref()) {
            warnings.push(format!(
                "the URL sends data in its query string: ?{}",
                command::visible(q)
            ));
        }
        if p.origin == Origin::User {
            users_own(&mut rs);
        }
        return finish(ctx, p, rs, warnings);
    }
    finish(ctx, p, rs, Vec::new())
}

/// The reasons that hold only for a model's proposal, allowed for the user's own command.
const MODEL_ONLY: [&str; 4] = ["effect", "never_loosens", "outside_workspace", "force_push"];

fn users_own(rs: &mut [Reason]) {
    for r in rs
        .iter_mut()
        .filter(|r| MODEL_ONLY.contains(&r.code) && r.verdict != protocol::PolicyDecision::Allow)
    {
        r.verdict = protocol::PolicyDecision::Allow;
        r.message = format!("your own command ({})", r.message);
        r.code = "users_own";
    }
}

fn reason(
    code: &'static str,
    verdict: protocol::PolicyDecision,
    message: String,
    key: Option<String>,
) -> Reason {
    Reason {
        code,
        message,
        verdict,
        key,
        directory: None,
    }
}

/// Ask if someone can answer, deny otherwise.
fn ask_verdict(ctx: &Context<'_>) -> protocol::PolicyDecision {
    if ctx.interactive {
        protocol::PolicyDecision::Ask
    } else {
        protocol::PolicyDecision::Deny
    }
}

fn finish(
    ctx: &Context<'_>,
    p: &Proposal<'_>,
    mut rs: Vec<Reason>,
    warnings: Vec<String>,
) -> Explanation {
    use protocol::PolicyDecision as V;
    let decision = if let Some(d) = rs.iter().find(|r| r.verdict == V::Deny) {
        Decision::Deny {
            reason: d.message.clone(),
            key: d.key.clone().unwrap_or_else(|| effect_key(p.effect)),
        }
    } else if rs.iter().any(|r| r.verdict == V::Ask) {
        let asks: Vec<&Reason> = rs.iter().filter(|r| r.verdict == V::Ask).collect();
        let keys: Vec<String> = asks.iter().filter_map(|r| r.key.clone()).collect();
        let directory = asks.iter().find_map(|r| r.directory.clone());
        let only_effect = asks.iter().all(|r| r.code == "effect");
        let prefix = p
            .command
            .filter(|_| only_effect && p.effect == Effect::Process)
            .and_then(suggested_prefix);
        Decision::Ask(Ask {
            prefix,
            scope: if directory.is_some() {
                ApprovalScope::Directory
            } else {
                ApprovalScope::Effect
            },
            key: keys
                .first()
                .cloned()
                .unwrap_or_else(|| effect_key(p.effect)),
            keys,
            reason: asks
                .iter()
                .map(|r| r.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            reasons: asks.iter().map(|r| r.message.clone()).collect(),
            directory,
            warnings,
        })
    } else {
        let r = rs
            .iter()
            .find(|r| matches!(r.code, "granted" | "rule" | "users_own"))
            .cloned()
            .unwrap_or_else(|| allowed(ctx, p));
        if !rs.iter().any(|x| x.code == r.code) {
            rs.push(r.clone());
        }
        Decision::Allow {
            reason: r.message,
            key: r.key.unwrap_or_else(|| effect_key(p.effect)),
        }
    };
    Explanation {
        decision,
        reasons: rs,
    }
}

/// Programs that only filter text: in a pipeline after a covered command they need no rule of
/// their own (`cargo test 2>&1 | tail -5`).
const FILTERS: &[&str] = &[
    "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "sort", "uniq", "cut", "tr", "cat",
    "column", "nl", "jq", "less", "more", "true", "echo", "printf",
];

fn is_filter(c: &command::SimpleCommand) -> bool {
    c.dangers.is_empty()
        && c.argv
            .first()
            .is_some_and(|p| FILTERS.contains(&p.as_str()))
}

/// The rule that covers this command: every simple command starts with the argv of a rule (word
/// for word: `["cargo","test"]` covers `cargo test -p x`, not `cargo testx`) that names all a rule
/// for it must (an interpreter's script: `["python3"]` covers no `python3 x.py`), or is a plain
/// text filter; at least one matched a rule, and nothing in it never loosens.
fn covering_rule(grants: &HashSet<String>, a: &CommandAnalysis) -> Option<Vec<String>> {
    if a.never_loosens() || !a.hard_denied.is_empty() || a.commands.is_empty() {
        return None;
    }
    let rules: Vec<Vec<String>> = grants.iter().filter_map(|g| parse_prefix_key(g)).collect();
    if rules.is_empty() {
        return None;
    }
    let mut used: Option<Vec<String>> = None;
    for c in &a.commands {
        match rules.iter().find(|r| command::rule_covers(r, &c.argv)) {
            Some(r) => {
                used.get_or_insert_with(|| r.clone());
            }
            None if is_filter(c) => {}
            None => return None,
        }
    }
    used
}

/// "Allow commands like this": the program and its leading sub-command words (`cargo test`,
/// `npm run build`) — for an interpreter or a runner also what it runs (`python3 manage.py
/// test`, `uv run pytest`), behind any wrapper word for word (`timeout 60 cargo test`) — when the
/// command has no category that never loosens and every other part is a plain text filter or
/// starts the same way. Code inline or on standard input offers no rule.
pub fn suggested_prefix(a: &CommandAnalysis) -> Option<Vec<String>> {
    if a.never_loosens() || !a.hard_denied.is_empty() || a.has_control_chars {
        return None;
    }
    let main = a.commands.iter().find(|c| !is_filter(c))?;
    let (_, len) = command::rule_span(&main.argv)?;
    let prefix: Vec<String> = main.argv.iter().take(len).cloned().collect();
    if prefix.is_empty() || prefix.iter().any(|w| w.is_empty() || w.len() > 200) {
        return None;
    }
    a.commands
        .iter()
        .all(|c| is_filter(c) || command::rule_covers(&prefix, &c.argv))
        .then_some(prefix)
}

/// 1. Switches that remove effects entirely.
fn removed(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    if !is_gated(p.effect) {
        return None;
    }
    let message = if ctx.read_only {
        format!(
            "`{}` is unavailable: the server runs with --read-only",
            p.tool
        )
    } else if ctx.agent == Agent::Plan {
        format!(
            "`{}` is unavailable to the plan agent, which is read-only whatever the mode",
            p.tool
        )
    } else {
        return None;
    };
    Some(reason(
        "removed",
        protocol::PolicyDecision::Deny,
        message,
        None,
    ))
}

/// 2. Paths outside every root: a directory approval each (never with --read-only).
fn outside_roots(ctx: &Context<'_>, p: &Proposal<'_>) -> Vec<Reason> {
    let mut out: Vec<Reason> = Vec::new();
    for u in p
        .paths
        .iter()
        .filter(|u| !u.inside && !dir_granted(ctx.grants, p.effect, &u.path))
    {
        let key = dir_key(p.effect, &u.directory);
        if out.iter().any(|r| r.key.as_deref() == Some(key.as_str())) {
            continue;
        }
        let (path, dir) = (u.path.display(), u.directory.display());
        let (verdict, message) = if ctx.read_only {
            (
                protocol::PolicyDecision::Deny,
                format!("{path} is outside the workspace and --read-only allows no outside path"),
            )
        } else if !ctx.interactive {
            (
                protocol::PolicyDecision::Deny,
                format!(
                    "{path} is outside the workspace; start with --add-dir {dir} or add it to additionalDirectories in config.json"
                ),
            )
        } else {
            (
                protocol::PolicyDecision::Ask,
                format!("`{}` wants to access {path}, outside the workspace", p.tool),
            )
        };
        let mut r = reason("outside_workspace", verdict, message, Some(key));
        r.directory = Some(u.directory.clone());
        out.push(r);
    }
    out
}

/// Is this an environment file (`.env`, `.env.local`, not `.env.example`)?
pub fn is_env_file(p: &std::path::Path) -> bool {
    let Some(name) = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
    else {
        return false;
    };
    let templates = [
        ".example",
        ".sample",
        ".template",
        ".dist",
        ".defaults",
        ".tmpl",
    ];
    (name == ".env" || name.starts_with(".env.")) && !templates.iter().any(|t| name.ends_with(t))
}

/// 2a. Files that may hold secrets under an innocent name ask before they are read or written
/// (review finding 2 and 3): a regular file with several hard links (`ln ~/.aws/credentials
/// ws/innocent.txt`), and environment files. One approval per file; `--yolo` skips it.
fn sensitive_files(ctx: &Context<'_>, p: &Proposal<'_>) -> Vec<Reason> {
    if ctx.yolo || !matches!(p.effect, Effect::Read | Effect::Write) {
        return Vec::new();
    }
    p.paths
        .iter()
        .filter_map(|u| {
            let key = file_key(&u.path);
            if ctx.grants.contains(&key) {
                return None;
            }
            let (code, why) = if u.links > 1 {
                (
                    "hard_link",
                    format!(
                        "{} has {} hard links: it may be another file (a credential?) under this name",
                        u.path.display(),
                        u.links
                    ),
                )
            } else if is_env_file(&u.path) {
                (
                    "env_file",
                    format!("{} is an environment file, which often holds secrets", u.path.display()),
                )
            } else {
                return None;
            };
            let message = format!("`{}` would open {}", p.tool, why);
            Some(reason(code, ask_verdict(ctx), message, Some(key)))
        })
        .collect()
}

/// 2b. A command naming a hard-denied path (`~/.ssh`, keys, the state dir, `/proc/*/environ`…)
/// is denied, never asked, unless `--yolo`: the file tools' rule holds for processes.
fn hard_denied_command(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let a = p
        .command
        .filter(|a| !a.hard_denied.is_empty() && !ctx.yolo)?;
    Some(reason(
        "hard_denied",
        protocol::PolicyDecision::Deny,
        format!(
            "`{}` names {}, which is never read or written (credentials, keys and Tradewind's own state are off limits, even with an approval)",
            p.tool,
            a.hard_denied.join(", ")
        ),
        None,
    ))
}

/// What the approval prompt shows about a command.
fn command_warnings(command: Option<&CommandAnalysis>) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(a) = command {
        warnings.extend(a.reasons.iter().cloned());
        for m in &a.sensitive_mentions {
            warnings.push(format!("mentions {m}, which file tools may never read; a shell command is not confined by that list"));
        }
        if a.has_control_chars {
            warnings.push("the command contains control or invisible characters".into());
        }
    }
    warnings
}

/// 3. The effect: mode within the startup ceiling, or a session grant; headless: flags only.
fn effect_not_allowed(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let ekey = effect_key(p.effect);
    let effect_ok = ctx.yolo
        || if ctx.interactive {
            (mode_allows(ctx.mode, p.effect) && ceiling_allows(ctx.ceiling, p.effect))
                || ctx.grants.contains(&ekey)
        } else {
            ceiling_allows(ctx.ceiling, p.effect)
        };
    if effect_ok {
        return None;
    }
    if ctx.interactive
        && let Some(rule) = p.command.and_then(|a| covering_rule(ctx.grants, a))
    {
        return Some(reason(
            "rule",
            protocol::PolicyDecision::Allow,
            format!("allowed by the rule `{} …`", rule.join(" ")),
            Some(prefix_key(&rule)),
        ));
    }
    let effect = p.effect.as_str();
    if !ctx.interactive {
        return Some(reason(
            "effect",
            protocol::PolicyDecision::Deny,
            format!(
                "`{}` needs the {effect} effect, which this headless run does not allow (start with --allow-{effect})",
                p.tool
            ),
            Some(ekey),
        ));
    }
    // In words a person reads on the card: what asks, and why.
    let (what, verb) = match p.effect {
        Effect::Process => ("commands", "ask"),
        Effect::Write => ("file edits", "ask"),
        Effect::External => ("network access", "asks"),
        _ => ("these calls", "ask"),
    };
    let why = if mode_allows(ctx.mode, p.effect) {
        format!("the server was started without --allow-{effect}, so {what} always {verb}")
    } else {
        format!("in `{}` mode, {what} {verb} first", ctx.mode.as_str())
    };
    Some(reason(
        "effect",
        protocol::PolicyDecision::Ask,
        why,
        Some(ekey),
    ))
}

/// 4. Writes to startup/autostart/git files never loosen either.
fn startup_write(ctx: &Context<'_>, p: &Proposal<'_>) -> Vec<Reason> {
    if p.effect != Effect::Write || ctx.yolo {
        return Vec::new();
    }
    p.paths
        .iter()
        .filter_map(|u| {
            let what = always_ask_path(&u.path)?;
            let key = format!("write:{}", u.path.to_string_lossy());
            (!ctx.grants.contains(&key)).then(|| {
                let message = format!(
                    "`{}` would change {} ({what}); this always asks",
                    p.tool,
                    u.path.display()
                );
                reason("startup_write", ask_verdict(ctx), message, Some(key))
            })
        })
        .collect()
}

/// 5. Categories that never loosen (recursive deletes, the network, administrator, installs,
///    boot files): still ask, unless --yolo.
fn never_loosens(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let a = p.command.filter(|a| a.never_loosens() && !ctx.yolo)?;
    let key = command_key(p.command_text.unwrap_or(""));
    if ctx.grants.contains(&key) {
        return Some(reason(
            "granted",
            protocol::PolicyDecision::Allow,
            "this exact command was allowed for the session".into(),
            Some(key),
        ));
    }
    let message = format!("this command always asks: {}", a.reasons.join("; "));
    Some(reason(
        "never_loosens",
        ask_verdict(ctx),
        message,
        Some(key),
    ))
}

/// 5c. A network call to an address that is not public (loopback, private, link-local, CGNAT,
/// multicast, cloud metadata) asks — even in `full` mode with `--allow-external` — naming the
/// address: it could reach services on this machine or its network (SSRF). `--yolo` allows it.
fn private_network(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let n = p.net?;
    let why = n.private.as_deref()?;
    let key = net_key(&n.origin);
    if ctx.yolo || ctx.grants.contains(&key) {
        return None;
    }
    let message = format!(
        "{} is a non-public address, {why}: a request there could reach services on this machine or its network",
        n.origin
    );
    Some(reason(
        "private_network",
        ask_verdict(ctx),
        message,
        Some(key),
    ))
}

/// An MCP tool: asks every time (or denies headless without `--allow-mcp`), whatever the mode
/// and ceiling; `--yolo` and a session grant of this tool's version aside.
fn mcp_tool(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let m = p.mcp?;
    let key = mcp_key(m);
    if ctx.yolo || ctx.grants.contains(&key) {
        return None;
    }
    if !ctx.interactive {
        if m.headless_allowed {
            return None;
        }
        return Some(reason(
            "mcp",
            protocol::PolicyDecision::Deny,
            format!(
                "`{}` is a tool of the MCP server `{}`: a headless run calls MCP tools only with --allow-mcp and --allow-external",
                p.tool, m.server
            ),
            Some(key),
        ));
    }
    Some(reason(
        "mcp",
        protocol::PolicyDecision::Ask,
        format!(
            "`{}` is the tool `{}` of the MCP server `{}`: MCP tools always ask (what the server does is outside the gate)",
            p.tool, m.tool, m.server
        ),
        Some(key),
    ))
}

/// 5b. Running a command outside the process sandbox (e.g. a tool that needs a credential file
/// the sandbox hides) always asks — even with `--yolo` — names why, and is never granted for the
/// session.
fn outside_sandbox(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let why = p.command?.outside_sandbox.as_deref()?;
    let key = GrantKey::OutsideSandbox(command_hash(p.command_text.unwrap_or(""))).to_string();
    if ctx.grants.contains(&key) {
        return None; // answered for this call
    }
    let message = format!(
        "`{}` asks to run outside the sandbox (it could then read credentials and write anywhere you can): {}",
        p.tool,
        command::visible(why)
    );
    Some(reason(
        "outside_sandbox",
        ask_verdict(ctx),
        message,
        Some(key),
    ))
}

/// The tool that installs plugins (a package fetched and put where the server loads it from):
/// it asks every time, in `full` too, and no answer is kept for the session; only `--yolo`
/// skips the question.
pub const PLUGIN_INSTALL_TOOL: &str = "plugin_install";

fn plugin_install(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    if p.tool != PLUGIN_INSTALL_TOOL || ctx.yolo {
        return None;
    }
    let key = GrantKey::PluginInstall(command_hash(p.command_text.unwrap_or(""))).to_string();
    if ctx.grants.contains(&key) {
        return None; // answered for this call
    }
    Some(reason(
        "package_install",
        ask_verdict(ctx),
        format!(
            "`{}` installs a plugin ({}): each install asks, and the plugin stays off until you enable it",
            p.tool,
            command::visible(p.command_text.unwrap_or(""))
        ),
        Some(key),
    ))
}

/// 5c. A command given the user's SSH agent always asks — even in `full` — says so, and is
/// never granted for the session: the keys sign in wherever they open.
fn ssh_agent(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let c = p.command?;
    if !c.ssh_agent {
        return None;
    }
    let key = GrantKey::SshAgent(command_hash(p.command_text.unwrap_or(""))).to_string();
    if ctx.grants.contains(&key) {
        return None; // answered for this call
    }
    Some(reason(
        "ssh_agent",
        ask_verdict(ctx),
        format!(
            "`{}` lets this command use your SSH keys (your SSH agent): it could sign in wherever they open",
            p.tool
        ),
        Some(key),
    ))
}

/// 5d. A force push the model proposes always asks — in `full` too, and whatever the session
/// was granted (a grant of the exact command or the network included): it rewrites or removes
/// a branch others may have. No answer is kept; only `--yolo` skips it.
fn force_push(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let c = p.command?;
    if ctx.yolo || !c.force_push() {
        return None;
    }
    let key = GrantKey::ForcePush(command_hash(p.command_text.unwrap_or(""))).to_string();
    if ctx.grants.contains(&key) {
        return None; // answered for this call
    }
    Some(reason(
        "force_push",
        ask_verdict(ctx),
        format!(
            "`{}` would force-push (rewrite or delete a remote branch): this asks every time",
            p.tool
        ),
        Some(key),
    ))
}

/// The key of "commands may write this session's repositories' state".
pub const GIT_STATE_KEY: &str = "git:state";

/// A command that writes a repository's own files (objects, refs, the index: `git commit`,
/// `git checkout`, `git stash` …) asks in every mode but `--yolo`, naming it — once: "for this
/// session" lets the session's later git commands write them too. The jail opens exactly the
/// git directories the command writes, with their hooks and config still read-only.
fn git_state_write(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Reason> {
    let c = p.command.filter(|c| c.writes_git_state())?;
    if ctx.yolo || ctx.grants.contains(GIT_STATE_KEY) {
        return None;
    }
    let _ = c;
    Some(reason(
        "git_state",
        ask_verdict(ctx),
        format!(
            "`{}` writes the repository's own files (objects, refs, the index), which commands may not change unasked: a repository's hooks and config run outside the sandbox (they stay read-only even when this is allowed)",
            p.command_text.unwrap_or(p.tool)
        ),
        Some(GIT_STATE_KEY.to_string()),
    ))
}

/// 6. Allowed: say why.
fn allowed(ctx: &Context<'_>, p: &Proposal<'_>) -> Reason {
    let ekey = effect_key(p.effect);
    let message = if !is_gated(p.effect) {
        format!("{} effects are always allowed", p.effect.as_str())
    } else if ctx.yolo {
        "--yolo".to_string()
    } else if ctx.grants.contains(&ekey) {
        format!("{} approved by the user", p.effect.as_str())
    } else {
        format!(
            "{} allowed by mode `{}` within the startup flags",
            p.effect.as_str(),
            ctx.mode.as_str()
        )
    };
    reason(
        "allowed",
        protocol::PolicyDecision::Allow,
        message,
        Some(ekey),
    )
}

#[cfg(test)]
mod tests;
