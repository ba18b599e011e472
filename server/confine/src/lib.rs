//! Confine the calling thread — a Landlock ruleset (with signal and abstract-socket scoping where
//! the kernel has them) and a seccomp filter — and replace the process with the command. Safe
//! Rust: no `unsafe`, no `pre_exec`.
//!
//! Two programs use it: the `tradewind-confine` binary, which the bubblewrap jail starts as each
//! command's first process (small, so a command pays little to start it: the server's own binary
//! costs ~2.5 ms more to start, most of it page faults and relocations), and the server's
//! `sandbox-exec` subcommand (the Landlock fallback, and the jail's helper when the small binary
//! is not installed beside the server).
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use landlock::{
    ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

pub mod seccomp;

/// The newest Landlock ABI the rules use: 6 adds signal and abstract-socket scoping, so a
/// confined command can neither signal the server nor reach an abstract Unix socket outside.
const ABI_WANTED: ABI = ABI::V6;

/// What a sandboxed command may touch (the Landlock rules).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub rw: Vec<PathBuf>,
    pub ro: Vec<PathBuf>,
    pub network_deny: bool,
    /// No Unix socket can be made (`socket(AF_UNIX, …)` fails): the Landlock fallback's stand-in
    /// for a mount namespace, since Landlock does not restrict `connect` to a socket file and a
    /// read-only view still connects to a tmux server, an SSH agent or a D-Bus.
    pub unix_sockets_denied: bool,
    /// The command's standard input is a terminal it is to own: a new session whose
    /// controlling terminal it is (a browser terminal's shell).
    pub tty: bool,
}

/// The helper's arguments: the rules, and the program and its arguments after `--`.
pub type Parsed = (Rules, OsString, Vec<OsString>);

/// `[--rw DIR]… [--ro DIR]… [--network-deny] [--deny-unix-sockets] [--tty] [--exec] -- PROGRAM
/// ARGS…`
/// (`--exec` is the caller's to read).
pub fn parse(args: Vec<OsString>) -> Result<Parsed, ExitCode> {
    let mut rules = Rules::default();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("--rw") => rules.rw.extend(it.next().map(PathBuf::from)),
            Some("--ro") => rules.ro.extend(it.next().map(PathBuf::from)),
            Some("--network-deny") => rules.network_deny = true,
            Some("--deny-unix-sockets") => rules.unix_sockets_denied = true,
            Some("--tty") => rules.tty = true,
            Some("--exec") => {}
            Some("--") => match it.next() {
                Some(prog) => return Ok((rules, prog, it.collect())),
                None => break,
            },
            _ => {
                eprintln!("tradewind sandbox-exec: unexpected argument {a:?}");
                return Err(ExitCode::from(125));
            }
        }
    }
    eprintln!("tradewind sandbox-exec: no program after --");
    Err(ExitCode::from(125))
}

/// Confine this thread: Landlock, every capability dropped, then the system-call filter. Never
/// run a command unconfined while the server believes it is confined.
pub fn confine(rules: &Rules) -> Result<(), ExitCode> {
    let why = match restrict(rules) {
        Ok(RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced) => {
            match drop_capabilities().and_then(|()| seccomp::apply(rules.unix_sockets_denied)) {
                Ok(()) => return Ok(()),
                Err(e) => format!("cannot finish confining the command: {e}"),
            }
        }
        Ok(RulesetStatus::NotEnforced) => "the kernel does not enforce Landlock here".into(),
        Err(e) => format!("cannot confine the command: {e}"),
    };
    eprintln!("tradewind sandbox-exec: {why}");
    Err(ExitCode::from(125))
}

/// Drop every capability: from the bounding set (where this process may: a server running as
/// root, in the Landlock fallback), the ambient set, and the effective, permitted and
/// inheritable sets. With `no_new_privs` (set by Landlock), nothing the command executes gets
/// one back — a command of a server running as root keeps uid 0's ownership of files, none of
/// root's powers. In the jail every capability is gone already (bubblewrap's `--cap-drop ALL`).
pub fn drop_capabilities() -> Result<(), String> {
    use rustix::thread::{CapabilitySet, CapabilitySets};
    for cap in CapabilitySet::all().iter() {
        match rustix::thread::remove_capability_from_bounding_set(cap) {
            // Not ours to drop (no CAP_SETPCAP: an ordinary user, or already gone), or a
            // capability this kernel does not know.
            Ok(()) | Err(rustix::io::Errno::PERM | rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(format!("cannot drop a capability: {e}")),
        }
    }
    rustix::thread::clear_ambient_capability_set()
        .map_err(|e| format!("cannot clear the ambient capabilities: {e}"))?;
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    rustix::thread::set_capabilities(None, none)
        .map_err(|e| format!("cannot drop the capabilities: {e}"))
}

/// What a shell answers for a command it cannot start: 127 not found, 126 not runnable.
pub fn cannot_start(prog: &std::ffi::OsStr, e: &std::io::Error) -> ExitCode {
    eprintln!(
        "tradewind sandbox-exec: cannot run {}: {e}",
        prog.to_string_lossy()
    );
    ExitCode::from(if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    })
}

/// `--exec …`: confine this process, then replace it with the command.
pub fn exec_in_place(args: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let (rules, prog, rest) = match parse(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if rules.tty {
        take_terminal();
    }
    if let Err(code) = confine(&rules) {
        return code;
    }
    let err = std::process::Command::new(&prog).args(rest).exec();
    cannot_start(&prog, &err)
}

/// Make standard input this process's controlling terminal, in a session of its own (already
/// one where the jail made it: bubblewrap's `--new-session`). Best effort: a shell without one
/// still runs, only without job control.
pub fn take_terminal() {
    let _ = rustix::process::setsid();
    if let Err(e) = rustix::process::ioctl_tiocsctty(std::io::stdin()) {
        eprintln!("tradewind sandbox-exec: the terminal is not this shell's own: {e}");
    }
}

/// `--probe`: whether this kernel enforces a Landlock ruleset here (0), or not (3, said on
/// stderr).
pub fn probe() -> ExitCode {
    match restrict(&Rules::default()) {
        Ok(RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced) => ExitCode::SUCCESS,
        Ok(RulesetStatus::NotEnforced) => {
            eprintln!("Landlock is not enforced by this kernel");
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(3)
        }
    }
}

/// The `tradewind-confine` program: `[sandbox-exec] --probe`, or `[sandbox-exec] [--exec]
/// RULES -- PROGRAM ARGS…` (it always confines and becomes the command: inside the jail the PID
/// namespace ends every process with it, so there is nothing to watch). The optional first word
/// lets the jail call it exactly as it calls the server's `sandbox-exec`.
pub fn main_with(args: impl Iterator<Item = OsString>) -> ExitCode {
    let mut args: Vec<OsString> = args.collect();
    if args.first().is_some_and(|a| a == "sandbox-exec") {
        args.remove(0);
    }
    if args.len() == 1 && args[0] == "--probe" {
        return probe();
    }
    exec_in_place(args)
}

/// Apply the ruleset for `r` to this thread.
pub fn restrict(r: &Rules) -> Result<RulesetStatus, landlock::RulesetError> {
    let abi = ABI_WANTED;
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if r.network_deny {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    // Best effort: a kernel before ABI 6 keeps the file rules without the scoping.
    ruleset = ruleset.scope(Scope::from_all(abi))?;
    let mut created = ruleset.create()?;
    for (paths, access) in [
        (&r.rw, AccessFs::from_all(abi)),
        (&r.ro, AccessFs::from_read(abi)),
    ] {
        for p in paths {
            let Ok(fd) = PathFd::new(p) else { continue };
            let access = if p.is_dir() {
                access
            } else {
                access & AccessFs::from_file(abi)
            };
            created = created.add_rule(PathBeneath::new(fd, access))?;
        }
    }
    Ok(created.restrict_self()?.ruleset)
}
