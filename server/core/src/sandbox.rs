//! Confinement the kernel enforces. Every process the agent starts runs through
//! `tradewind sandbox-exec`, a small re-exec helper (safe Rust: no `unsafe`, no `pre_exec`) that
//! starts a new session, applies a Landlock ruleset, becomes the child subreaper, runs the command
//! as its child and, when the command ends or the helper is told to stop (SIGTERM, SIGINT,
//! SIGHUP), kills every descendant left — `setsid` and double-forked ones included — before it
//! exits with the command's status.
//!
//! Landlock only grants, so the ruleset is a list: read-write for the workspace, the extra roots,
//! temp and named cache directories; read-only for system directories and for each entry of
//! `$HOME` except the hard-deny list (one list, shared with the file tools and the classifier);
//! nothing else. Where Landlock is unavailable the server says so at start and in
//! `GET /api/config`, and commands run unconfined as before.
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus,
};

const ABI_WANTED: ABI = ABI::V5;

/// System directories every command may read and execute.
const SYSTEM_RO: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/run",
    "/var/lib",
    "/var/cache",
    "/snap",
    "/nix",
];

/// Writable outside the roots: temp and devices.
const SYSTEM_RW: &[&str] = &["/tmp", "/var/tmp", "/dev"];

/// Caches under `$HOME` that builds write (never `~/.cargo/bin`, shell rc files or other config a
/// later unsandboxed program would run).
const HOME_CACHES: &[&str] = &[
    ".cargo/registry",
    ".cargo/git",
    ".npm/_cacache",
    ".npm/_logs",
    ".npm/_npx",
    ".cache/pip",
    ".cache/go-build",
    ".cache/uv",
    ".cache/yarn",
    ".cache/pnpm",
    ".cache/ms-playwright",
    ".cache/node",
    ".cache/deno",
    ".cache/bun",
    ".rustup/tmp",
    "go/pkg/mod",
    ".gradle/caches",
    ".m2/repository",
];

/// What a sandboxed command may touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub rw: Vec<PathBuf>,
    pub ro: Vec<PathBuf>,
    pub network_deny: bool,
}

/// The server's sandbox: the helper to exec and the rules every command shares.
#[derive(Debug, Clone)]
pub struct Sandbox {
    pub helper: PathBuf,
    pub base: Rules,
}

/// The server's sandbox from its configuration, and what `GET /api/config` says about it.
pub fn for_config(cfg: &crate::config::Config) -> (Option<Sandbox>, crate::protocol::SandboxInfo) {
    let network_deny = cfg.sandbox.network == "deny";
    let mut notes = Vec::new();
    let helper = match (&cfg.sandbox_helper, cfg.sandbox.enabled) {
        (_, false) => {
            notes.push("the sandbox is turned off in config.json (sandbox.enabled = false)".into());
            None
        }
        (None, true) => {
            notes.push("no sandbox helper binary is known".into());
            None
        }
        (Some(h), true) => match available().and_then(|()| probe(h)) {
            Ok(()) => Some(h.clone()),
            Err(e) => {
                notes.push(format!("{e}; commands run unconfined"));
                None
            }
        },
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut roots = vec![cfg.workspace.clone()];
    roots.extend(cfg.extra_roots.iter().cloned());
    for r in &roots {
        if home.as_deref() == Some(r.as_path()) || home.as_deref().is_some_and(|h| h.starts_with(r))
        {
            notes.push(format!(
                "the root {} holds your home directory: its credentials are writable by commands (the file tools still refuse them)",
                r.display()
            ));
        }
    }
    for r in &roots {
        let found = denied_inside(r);
        if let Some(first) = found.first() {
            notes.push(format!(
                "{} holds {} file(s) on the hard-deny list (e.g. {}): commands can read them inside the root; the file tools still refuse them",
                r.display(),
                found.len(),
                first.display()
            ));
        }
    }
    let sandbox =
        helper.map(|h| Sandbox::new(h, &roots, home.as_deref(), &cfg.state_dir, network_deny));
    let info = crate::protocol::SandboxInfo {
        active: sandbox.is_some(),
        network: if network_deny { "deny" } else { "allow" }.into(),
        notes,
    };
    (sandbox, info)
}

/// The server's sandbox, known once it has been probed: its helper is run once and the roots
/// are looked through, which is never done on the start path — the server probes after it is
/// healthy, and a command that comes first waits for the probe.
#[derive(Clone)]
pub struct SandboxHandle {
    cfg: std::sync::Arc<crate::config::Config>,
    cell: std::sync::Arc<tokio::sync::OnceCell<Probed>>,
}

#[derive(Clone)]
struct Probed {
    sandbox: Option<std::sync::Arc<Sandbox>>,
    info: crate::protocol::SandboxInfo,
}

impl std::fmt::Debug for SandboxHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxHandle")
            .field("probed", &self.cell.initialized())
            .finish()
    }
}

impl SandboxHandle {
    pub fn new(cfg: std::sync::Arc<crate::config::Config>) -> SandboxHandle {
        SandboxHandle {
            cfg,
            cell: std::sync::Arc::default(),
        }
    }

    async fn probed(&self) -> &Probed {
        self.cell
            .get_or_init(|| async {
                let cfg = self.cfg.clone();
                let (sandbox, info) = tokio::task::spawn_blocking(move || for_config(&cfg))
                    .await
                    .unwrap_or_else(|e| {
                        (
                            None,
                            crate::protocol::SandboxInfo {
                                active: false,
                                network: "allow".into(),
                                notes: vec![format!("the sandbox probe failed: {e}")],
                            },
                        )
                    });
                for n in &info.notes {
                    tracing::warn!("process sandbox: {n}");
                }
                Probed {
                    sandbox: sandbox.map(std::sync::Arc::new),
                    info,
                }
            })
            .await
    }

    /// The sandbox every command runs in (`None`: unavailable or turned off).
    pub async fn get(&self) -> Option<std::sync::Arc<Sandbox>> {
        self.probed().await.sandbox.clone()
    }

    /// What `GET /api/config` says of it.
    pub async fn info(&self) -> crate::protocol::SandboxInfo {
        self.probed().await.info.clone()
    }

    /// Probe now, in the background (the server does once it is healthy).
    pub fn probe_soon(&self) {
        let me = self.clone();
        tokio::spawn(async move {
            me.probed().await;
        });
    }
}

/// Hard-denied files inside a root (keys, certificates, credential files), from a bounded walk
/// that skips dependency and build directories: the sandbox grants the root whole, so the
/// server warns about them at start.
fn denied_inside(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(false)
        .ignore(false)
        .follow_links(false)
        .max_depth(Some(6))
        .filter_entry(|e| {
            !matches!(
                e.file_name().to_str(),
                Some(
                    "node_modules"
                        | "target"
                        | ".git"
                        | ".venv"
                        | "venv"
                        | "dist"
                        | "build"
                        | "__pycache__"
                )
            )
        })
        .build();
    for e in walk.flatten().take(20_000) {
        let p = e.path();
        if p != root && tradewind_policy::lists::names_hard_denied_path(&p.to_string_lossy()) {
            found.push(p.to_path_buf());
            if found.len() >= 50 {
                break;
            }
        }
    }
    found
}

/// Run the helper once with an empty ruleset: it says whether the kernel enforces it.
fn probe(helper: &Path) -> Result<(), String> {
    let out = std::process::Command::new(helper)
        .args(["sandbox-exec", "--probe"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run the sandbox helper {}: {e}", helper.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the kernel does not enforce Landlock here ({})",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Is Landlock usable here? `Err` says why not (once, at start).
pub fn available() -> Result<(), String> {
    // A quick look at the active security modules; where the list cannot be read, the helper's
    // probe (an empty ruleset it must see enforced) decides.
    let listed = std::fs::read_to_string("/sys/kernel/security/lsm")
        .map(|l| l.split(',').any(|m| m.trim() == "landlock"))
        .unwrap_or(true);
    if listed {
        Ok(())
    } else {
        Err("the kernel's LSM list has no landlock".into())
    }
}

impl Sandbox {
    /// The rules for a server whose roots are `roots`, with `state_dir` (never granted).
    pub fn new(
        helper: PathBuf,
        roots: &[PathBuf],
        home: Option<&Path>,
        state_dir: &Path,
        network_deny: bool,
    ) -> Sandbox {
        let mut rw: Vec<PathBuf> = roots.to_vec();
        rw.extend(SYSTEM_RW.iter().map(PathBuf::from));
        if let Some(t) = std::env::var_os("TMPDIR") {
            rw.push(PathBuf::from(t));
        }
        let mut ro: Vec<PathBuf> = SYSTEM_RO.iter().map(PathBuf::from).collect();
        if let Some(h) = home {
            rw.extend(HOME_CACHES.iter().map(|c| h.join(c)));
            home_entries(h, state_dir, &mut ro, 0);
            // The public part of ~/.ssh: with the agent's socket (SSH_AUTH_SOCK passes through),
            // `git push` over SSH verifies the host without any key being readable.
            for f in SSH_PUBLIC {
                let p = h.join(".ssh").join(f);
                if p.is_file() {
                    ro.push(p);
                }
            }
        }
        ro.retain(|p| !p.starts_with(state_dir));
        Sandbox {
            helper,
            base: Rules {
                rw,
                ro,
                network_deny,
            },
        }
    }

    /// The helper's arguments for a command run in `workspace` (the session's, granted too).
    pub fn args(&self, workspace: &Path) -> Vec<std::ffi::OsString> {
        self.args_reading(workspace, &[])
    }

    /// [`Sandbox::args`], with `read` readable too (an MCP server's own installation).
    pub fn args_reading(&self, workspace: &Path, read: &[PathBuf]) -> Vec<std::ffi::OsString> {
        let mut a: Vec<std::ffi::OsString> = vec!["sandbox-exec".into()];
        for p in std::iter::once(workspace).chain(self.base.rw.iter().map(PathBuf::as_path)) {
            a.push("--rw".into());
            a.push(p.into());
        }
        for p in self.base.ro.iter().chain(read) {
            a.push("--ro".into());
            a.push(p.into());
        }
        if self.base.network_deny {
            a.push("--network-deny".into());
        }
        a.push("--".into());
        a
    }

    /// A command that runs `program args…` inside the sandbox (its own session; do not put it in
    /// a process group of its own: the helper's `setsid` makes it the group leader).
    pub fn command(
        &self,
        workspace: &Path,
        program: &Path,
        args: &[std::ffi::OsString],
    ) -> tokio::process::Command {
        self.command_reading(workspace, &[], program, args)
    }

    /// [`Sandbox::command`], with `read` readable too.
    pub fn command_reading(
        &self,
        workspace: &Path,
        read: &[PathBuf],
        program: &Path,
        args: &[std::ffi::OsString],
    ) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.helper);
        cmd.args(self.args_reading(workspace, read))
            .arg(program)
            .args(args);
        cmd
    }
}

/// Files of `~/.ssh` that hold no secret: the hosts ssh has verified.
const SSH_PUBLIC: &[&str] = &["known_hosts", "known_hosts2"];

/// Each entry of `$HOME`, read-only, except the hard-denied ones; an entry holding a denied
/// location (`.config/gh`, `.docker/config.json`) or the state directory is listed one level
/// down instead.
fn home_entries(dir: &Path, state_dir: &Path, ro: &mut Vec<PathBuf>, depth: u8) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let lower = p.to_string_lossy().to_lowercase();
        if p.starts_with(state_dir) || tradewind_policy::lists::names_hard_denied_path(&lower) {
            continue;
        }
        let below = tradewind_policy::lists::HARD_DENY_FRAGMENTS
            .iter()
            .any(|f| {
                let first = f.split('/').next().unwrap_or(f);
                lower.ends_with(&format!("/{first}"))
            })
            || state_dir.starts_with(&p);
        if !below {
            ro.push(p);
        } else if depth < 2 && p.is_dir() {
            home_entries(&p, state_dir, ro, depth + 1);
        }
    }
}

/// `tradewind sandbox-exec [--rw DIR]… [--ro DIR]… [--network-deny] -- PROGRAM ARGS…`
pub async fn exec(args: Vec<std::ffi::OsString>) -> std::process::ExitCode {
    if args.len() == 1 && args[0] == "--probe" {
        return match restrict(&Rules::default()) {
            Ok(RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced) => {
                std::process::ExitCode::SUCCESS
            }
            Ok(RulesetStatus::NotEnforced) => {
                eprintln!("Landlock is not enforced by this kernel");
                std::process::ExitCode::from(3)
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::ExitCode::from(3)
            }
        };
    }
    let mut rules = Rules::default();
    let mut it = args.into_iter();
    let mut program: Vec<std::ffi::OsString> = Vec::new();
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("--rw") => rules.rw.extend(it.next().map(PathBuf::from)),
            Some("--ro") => rules.ro.extend(it.next().map(PathBuf::from)),
            Some("--network-deny") => rules.network_deny = true,
            Some("--") => {
                program = it.collect();
                break;
            }
            _ => {
                eprintln!("tradewind sandbox-exec: unexpected argument {a:?}");
                return std::process::ExitCode::from(125);
            }
        }
    }
    let Some((prog, rest)) = program.split_first() else {
        eprintln!("tradewind sandbox-exec: no program after --");
        return std::process::ExitCode::from(125);
    };
    // A new session (and process group) the server can signal as one; fails only when already
    // a group leader, which the server avoids.
    let _ = rustix::process::setsid();
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    match restrict(&rules) {
        Ok(RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced) => {}
        Ok(RulesetStatus::NotEnforced) => {
            // Never run a command unconfined while the server believes it is confined.
            eprintln!("tradewind sandbox-exec: the kernel does not enforce Landlock here");
            return std::process::ExitCode::from(125);
        }
        Err(e) => {
            eprintln!("tradewind sandbox-exec: cannot confine the command: {e}");
            return std::process::ExitCode::from(125);
        }
    }
    let mut child = match tokio::process::Command::new(prog).args(rest).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tradewind sandbox-exec: cannot start {prog:?}: {e}");
            return std::process::ExitCode::from(if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            });
        }
    };
    let signals = [
        tokio::signal::unix::SignalKind::terminate(),
        tokio::signal::unix::SignalKind::interrupt(),
        tokio::signal::unix::SignalKind::hangup(),
    ]
    .map(tokio::signal::unix::signal);
    let [Ok(mut term), Ok(mut int), Ok(mut hup)] = signals else {
        kill_descendants();
        return std::process::ExitCode::from(125);
    };
    // A stop request (the server signals the whole group) is passed on to every descendant —
    // those that left the group with `setsid` too — and the command gets its grace period; the
    // server's hard kill (`kill_tree`) ends whatever is left.
    let code = loop {
        let sig = tokio::select! {
            s = child.wait() => break match s {
                Ok(s) => status_code(s),
                Err(_) => 125,
            },
            _ = term.recv() => rustix::process::Signal::TERM,
            _ = int.recv() => rustix::process::Signal::INT,
            _ = hup.recv() => rustix::process::Signal::HUP,
        };
        signal_descendants(std::process::id(), sig);
    };
    kill_descendants();
    let _ = child.try_wait();
    std::process::ExitCode::from(code)
}

fn status_code(s: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => u8::try_from(c).unwrap_or(1),
        (None, Some(sig)) => u8::try_from(128 + sig).unwrap_or(255),
        _ => 1,
    }
}

fn restrict(r: &Rules) -> Result<RulesetStatus, landlock::RulesetError> {
    let abi = ABI_WANTED;
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if r.network_deny {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
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

/// Kill every process below `root` (not `root` itself), several rounds so a fork racing the
/// scan is caught: the server's hard stop, before it kills the group.
pub fn kill_tree(root: u32) {
    for _ in 0..5 {
        if signal_descendants(root, rustix::process::Signal::KILL) == 0 {
            break;
        }
    }
}

/// The hard stop of a command: its whole tree (`kill_tree`), then the group it leads.
pub fn kill_tree_and_group(leader: u32) {
    kill_tree(leader);
    if let Some(p) = i32::try_from(leader)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}

/// Send `sig` to every descendant of `root`; how many there were.
fn signal_descendants(root: u32, sig: rustix::process::Signal) -> usize {
    let kids = descendants(root);
    for pid in &kids {
        if let Some(p) = i32::try_from(*pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(p, sig);
        }
    }
    kids.len()
}

/// Kill every process below this one (the command's group, and whatever was reparented here as
/// the subreaper: `setsid`, double forks), then reap them. Bounded rounds: a fork bomb racing
/// the kill is stopped by the server's group kill.
fn kill_descendants() {
    let me = std::process::id();
    let reap = || {
        while let Ok(Some(_)) = rustix::process::waitpid(None, rustix::process::WaitOptions::NOHANG)
        {
        }
    };
    for _ in 0..20 {
        if signal_descendants(me, rustix::process::Signal::KILL) == 0 {
            break;
        }
        reap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        reap();
    }
}

/// All descendants of `root`, from `/proc/*/stat` parent links (zombies excluded).
fn descendants(root: u32) -> Vec<u32> {
    let mut parent: Vec<(u32, u32)> = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some((_, after)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut f = after.split_whitespace();
        let state = f.next().unwrap_or("");
        let ppid = f.next().and_then(|x| x.parse::<u32>().ok()).unwrap_or(0);
        if state != "Z" {
            parent.push((pid, ppid));
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (c, pp) in &parent {
            if *pp == p && !out.contains(c) {
                out.push(*c);
                frontier.push(*c);
            }
        }
    }
    out
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    /// Every readable entry of a home, and of its `.ssh` only the known hosts.
    #[test]
    fn home_rules_leave_keys_out_and_known_hosts_in() {
        let base = std::env::temp_dir().join(format!("tw-sbx-{}", crate::util::new_id()));
        let home = base.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join("src")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "secret").unwrap();
        std::fs::write(home.join(".ssh/known_hosts"), "github.com ssh-ed25519 AAAA").unwrap();
        std::fs::write(home.join(".gitconfig"), "[user]").unwrap();
        let s = Sandbox::new(
            PathBuf::from("/bin/true"),
            &[base.join("ws")],
            Some(&home),
            &base.join("state"),
            false,
        );
        let ro = &s.base.ro;
        assert!(ro.contains(&home.join(".ssh/known_hosts")), "{ro:?}");
        assert!(ro.contains(&home.join(".gitconfig")));
        assert!(ro.contains(&home.join("src")));
        assert!(
            !ro.iter()
                .any(|p| p.ends_with("id_ed25519") || p == &home.join(".ssh")),
            "{ro:?}"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }
}
