//! THE gate. `decide` is the only function that says allow / ask / deny for a proposed tool
//! call — model calls, user `!commands` and nested calls alike. It is pure (no I/O), so the
//! whole truth table is unit-tested, and it fails closed: an unknown tool is `external`, a
//! missing interactive UI turns `ask` into `deny`, and the categories of seed 003 that never
//! loosen keep asking in `full` mode unless the server was started with `--yolo`.
//!
//! Order of checks (first that applies wins): `--read-only` and the plan agent remove
//! write/process/external; hard-denied paths; paths outside every root (directory approval comes
//! before the effect check); the effect against mode × startup ceiling × session grants; the
//! never-loosening command categories.

pub mod command;
pub mod corpus;
pub mod lists;
pub mod paths;
mod shell;

use std::collections::HashSet;
use std::path::PathBuf;

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
    pub path: PathBuf,
    pub inside: bool,
    pub directory: PathBuf,
}

/// What the call wants to do.
#[derive(Debug, Clone, Copy)]
pub struct Proposal<'a> {
    pub tool: &'a str,
    pub effect: Effect,
    pub paths: &'a [PathUse],
    /// For shell/run_process: the classification of the command.
    pub command: Option<&'a CommandAnalysis>,
    /// The command text (for its approval key).
    pub command_text: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    pub scope: ApprovalScope,
    /// The grant key an "allow for this session/directory" answer stores.
    pub key: String,
    pub reason: String,
    pub directory: Option<PathBuf>,
    pub warnings: Vec<String>,
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

pub fn effect_key(effect: Effect) -> String {
    format!("effect:{}", effect.as_str())
}

/// Directory grants are scoped by access: a `write` grant covers reads too, never the reverse.
pub fn dir_key(effect: Effect, dir: &std::path::Path) -> String {
    let access = if effect == Effect::Write {
        "write"
    } else {
        "read"
    };
    format!("dir:{access}:{}", dir.to_string_lossy())
}

fn dir_granted(grants: &HashSet<String>, effect: Effect, path: &std::path::Path) -> bool {
    grants.iter().any(|g| {
        let rest = match g.strip_prefix("dir:write:") {
            Some(r) => Some(r),
            None if effect != Effect::Write => g.strip_prefix("dir:read:"),
            None => None,
        };
        rest.is_some_and(|d| path.starts_with(d))
    })
}

/// Files that run code at login, at boot, or inside git: a write to them always asks (seed 003,
/// "boot/autostart files"), like the command categories that never loosen.
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
    None
}

pub fn command_key(command: &str) -> String {
    format!(
        "cmd:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(command.as_bytes()))
    )
}

fn is_gated(effect: Effect) -> bool {
    matches!(effect, Effect::Write | Effect::Process | Effect::External)
}

/// The mode table of seed 000 ("Modos de permisos").
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

/// The one decision: each stage may settle it, in this order (deny wins over ask over allow).
pub fn decide(ctx: &Context<'_>, p: &Proposal<'_>) -> Decision {
    if let Some(d) = removed(ctx, p).or_else(|| outside_roots(ctx, p)) {
        return d;
    }
    if !is_gated(p.effect) {
        return Decision::Allow {
            reason: format!("{} effects are always allowed", p.effect.as_str()),
            key: effect_key(p.effect),
        };
    }
    if let Some(d) = hard_denied_command(ctx, p) {
        return d;
    }
    let warnings = command_warnings(p.command);
    effect_not_allowed(ctx, p, &warnings)
        .or_else(|| startup_write(ctx, p, &warnings))
        .or_else(|| never_loosens(ctx, p, &warnings))
        .unwrap_or_else(|| allowed(ctx, p))
}

/// 1. Switches that remove effects entirely.
fn removed(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Decision> {
    if !is_gated(p.effect) {
        return None;
    }
    let reason = if ctx.read_only {
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
    Some(Decision::Deny {
        reason,
        key: effect_key(p.effect),
    })
}

/// 2. Paths outside every root: a directory approval first (never with --read-only).
fn outside_roots(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Decision> {
    let u = p
        .paths
        .iter()
        .filter(|u| !u.inside)
        .find(|u| !dir_granted(ctx.grants, p.effect, &u.path))?;
    let key = dir_key(p.effect, &u.directory);
    let (path, dir) = (u.path.display(), u.directory.display());
    Some(if ctx.read_only {
        Decision::Deny {
            reason: format!(
                "{path} is outside the workspace and --read-only allows no outside path"
            ),
            key,
        }
    } else if !ctx.interactive {
        Decision::Deny {
            reason: format!(
                "{path} is outside the workspace; start with --add-dir {dir} or add it to additionalDirectories in config.json"
            ),
            key,
        }
    } else {
        Decision::Ask(Ask {
            scope: ApprovalScope::Directory,
            reason: format!("`{}` wants to access {path}, outside the workspace", p.tool),
            key,
            directory: Some(u.directory.clone()),
            warnings: Vec::new(),
        })
    })
}

/// 2b. A command naming a hard-denied path (`~/.ssh`, keys, the state dir, `/proc/*/environ`…)
/// is denied, never asked, unless `--yolo` (seed 003): the file tools' rule holds for processes.
fn hard_denied_command(ctx: &Context<'_>, p: &Proposal<'_>) -> Option<Decision> {
    let a = p
        .command
        .filter(|a| !a.hard_denied.is_empty() && !ctx.yolo)?;
    Some(Decision::Deny {
        reason: format!(
            "`{}` names {}, which is never read or written (credentials, keys and Tradewind's own state are off limits, even with an approval)",
            p.tool,
            a.hard_denied.join(", ")
        ),
        key: effect_key(p.effect),
    })
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
fn effect_not_allowed(
    ctx: &Context<'_>,
    p: &Proposal<'_>,
    warnings: &[String],
) -> Option<Decision> {
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
    let effect = p.effect.as_str();
    if !ctx.interactive {
        return Some(Decision::Deny {
            reason: format!(
                "`{}` needs the {effect} effect, which this headless run does not allow (start with --allow-{effect})",
                p.tool
            ),
            key: ekey,
        });
    }
    let why = if mode_allows(ctx.mode, p.effect) {
        format!("the server was started without --allow-{effect}")
    } else {
        format!("mode `{}` asks for {effect} effects", ctx.mode.as_str())
    };
    Some(Decision::Ask(Ask {
        scope: ApprovalScope::Effect,
        reason: format!("`{}` wants a {effect} effect: {why}", p.tool),
        key: ekey,
        directory: None,
        warnings: warnings.to_vec(),
    }))
}

/// 4. Writes to startup/autostart/git files never loosen either.
fn startup_write(ctx: &Context<'_>, p: &Proposal<'_>, warnings: &[String]) -> Option<Decision> {
    if p.effect != Effect::Write || ctx.yolo {
        return None;
    }
    let (u, what, key) = p.paths.iter().find_map(|u| {
        let what = always_ask_path(&u.path)?;
        let key = format!("write:{}", u.path.to_string_lossy());
        (!ctx.grants.contains(&key)).then_some((u, what, key))
    })?;
    let reason = format!(
        "`{}` would change {} ({what}); this always asks",
        p.tool,
        u.path.display()
    );
    Some(ask_or_deny(ctx, reason, key, warnings))
}

/// 5. Categories that never loosen (seed 003): still ask, unless --yolo.
fn never_loosens(ctx: &Context<'_>, p: &Proposal<'_>, warnings: &[String]) -> Option<Decision> {
    let a = p.command.filter(|a| a.never_loosens() && !ctx.yolo)?;
    let key = command_key(p.command_text.unwrap_or(""));
    if ctx.grants.contains(&key) {
        return Some(Decision::Allow {
            reason: "this exact command was allowed for the session".into(),
            key,
        });
    }
    let reason = format!("this command always asks: {}", a.reasons.join("; "));
    Some(ask_or_deny(ctx, reason, key, warnings))
}

/// An effect-scoped ask, or (headless, nobody to ask) a deny.
fn ask_or_deny(ctx: &Context<'_>, reason: String, key: String, warnings: &[String]) -> Decision {
    if !ctx.interactive {
        return Decision::Deny { reason, key };
    }
    Decision::Ask(Ask {
        scope: ApprovalScope::Effect,
        reason,
        key,
        directory: None,
        warnings: warnings.to_vec(),
    })
}

/// 6. Allowed: say why.
fn allowed(ctx: &Context<'_>, p: &Proposal<'_>) -> Decision {
    let ekey = effect_key(p.effect);
    let reason = if ctx.yolo {
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
    Decision::Allow { reason, key: ekey }
}

#[cfg(test)]
mod tests;
