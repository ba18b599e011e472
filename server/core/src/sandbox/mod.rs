//! Confinement the kernel enforces. Every process the agent starts — and the server's own git on
//! its behalf — runs in the jail (`jail.rs`: bubblewrap namespaces holding only what the task
//! needs, with the `sandbox-exec` helper's Landlock ruleset and seccomp filter inside). Where
//! user namespaces or bubblewrap are unavailable, the helper alone confines it (the Landlock
//! fallback: read-write for the roots, temp and named caches; read-only for system folders and
//! each entry of `$HOME` except the hard-deny list). The server says which in `GET /api/config`,
//! the web app and a line printed once the probe has run — after the server is healthy, never on
//! the start path.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

mod binds;
mod gitconfig;
pub mod guard;
mod helper;
pub mod jail;

pub use crate::config::JailChoice;
pub use gitconfig::filtered as filtered_git_config;
pub use gitconfig::parse as gitconfig_pairs;
pub use helper::{
    exec, kill_group, kill_labelled, kill_tree, kill_tree_and_group, run as run_helper,
};
pub use jail::Allowed;

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

/// What a sandboxed command may touch (the helper's Landlock rules).
pub use tradewind_confine::Rules;

/// One command's share of the jail, beyond what every command gets.
#[derive(Debug, Clone, Default)]
pub struct Job {
    /// The session's roots (its workspace first), read-write.
    pub roots: Vec<PathBuf>,
    /// Bind the roots read-only (the server's own git).
    pub read_only_roots: bool,
    /// Also readable (an MCP server's installation).
    pub read: Vec<PathBuf>,
    /// Read-only paths made writable for this one command (the `.git` paths its approval named).
    pub writable: Vec<PathBuf>,
    /// Files bound read-only over a path (a filtered `.git/config`).
    pub bind_over: Vec<(PathBuf, PathBuf)>,
    /// A worktree session's share of its repository's git directory (outside its roots),
    /// writable with its hooks, config and the other control files read-only on top.
    pub lent_git: Option<crate::policy::paths::LentGit>,
    /// The server's own `git worktree add`/`remove` on a repository's shared git directory:
    /// writable, with its hooks, config and info read-only on top.
    pub git_admin: Option<PathBuf>,
    /// No network at all (besides the server's `sandbox.network: deny`).
    pub network_deny: bool,
    /// An install the user approved (a plugin's, the analysis extras'): the network is allowed
    /// for this one call even where `sandbox.network` is `deny` (never where the job itself
    /// says `network_deny`). Everything else of the jail holds.
    pub install: bool,
    /// Standard input is a terminal the command is to own (`--tty` to the helper).
    pub tty: bool,
    /// The user's SSH agent socket is bound in (the approval said "lets this command use your
    /// SSH keys").
    pub ssh_agent: bool,
    /// Variables set inside.
    pub env: Vec<(String, String)>,
    /// A unique name the jail's own processes carry on their command line (`TW_JOB=<label>`):
    /// a task of a server that died is found by it, since its jail outlives the group leader.
    pub label: Option<String>,
    /// What the roots held that programs outside the jail run (git directories, `.envrc` …),
    /// looked at just before the command: the jail protects it, and the caller compares it
    /// with a look after the command ([`guard::Snapshot::new_since`]). `None`: the jail looks.
    pub seen: Option<std::sync::Arc<guard::Snapshot>>,
}

/// Where a loaded skill's folder shows in the jail (read-only): `<this>/<name>`. A neutral path
/// outside the state directory and the workspace, so a command that runs a skill's script names
/// nothing the gate holds back.
pub const SKILLS_IN_JAIL: &str = "/run/tradewind/skills";

impl Job {
    /// Show each of these skill folders read-only at `SKILLS_IN_JAIL/<name>` (only these: the
    /// rest of the state directory stays hidden, and nothing of them is writable).
    pub fn with_skills<'a>(
        mut self,
        skills: impl IntoIterator<Item = (&'a String, &'a PathBuf)>,
    ) -> Job {
        for (name, dir) in skills {
            if crate::skills::valid_name(name) {
                self.bind_over
                    .push((dir.clone(), Path::new(SKILLS_IN_JAIL).join(name)));
            }
        }
        self
    }

    /// A command in the roots of a session's path policy.
    pub fn in_roots(paths: &crate::policy::paths::PathPolicy) -> Job {
        let mut roots = vec![paths.workspace.clone()];
        roots.extend(paths.extra_roots.iter().cloned());
        Job {
            roots,
            lent_git: paths.lent_git.clone(),
            ..Job::default()
        }
    }

    /// A session's command: its roots, and the paths its grants let into the jail.
    pub fn for_session(paths: &crate::policy::paths::PathPolicy, let_in: Vec<PathBuf>) -> Job {
        Job {
            read: let_in,
            ..Job::in_roots(paths)
        }
    }
}

/// A session's path policy: the server's for its workspace, and for a session in a worktree
/// the share of the repository's git directory its commands write (see `Job::lent_git`).
pub fn session_paths(
    base: &crate::policy::paths::PathPolicy,
    row: &crate::store::SessionRow,
) -> crate::policy::paths::PathPolicy {
    let ws = Path::new(&row.workspace);
    let lent = row
        .worktree
        .as_deref()
        .and_then(|w| serde_json::from_str::<crate::protocol::SessionWorktree>(w).ok())
        .map(|w| lent_git_of(&w));
    match lent {
        Some(l) => base.with_worktree(ws, l),
        None => base.with_workspace(ws),
    }
}

/// What a worktree's commands write of its repository's git directory: the shared one, and
/// the worktree's own folder in it (the one its `.git` file names when that lies in
/// `<common>/worktrees/`, else `<common>/worktrees/<folder name>`).
pub fn lent_git_of(w: &crate::protocol::SessionWorktree) -> crate::policy::paths::LentGit {
    let common = PathBuf::from(&w.git_dir);
    let dir = PathBuf::from(&w.dir);
    let within = common.join("worktrees");
    let own = std::fs::read_to_string(dir.join(".git"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("gitdir:"))
                .map(|g| crate::policy::paths::normalize(Path::new(g.trim())))
        })
        .filter(|g| g.parent() == Some(within.as_path()))
        .unwrap_or_else(|| within.join(dir.file_name().unwrap_or_default()));
    crate::policy::paths::LentGit { common, own }
}

#[derive(Debug, Clone)]
enum Kind {
    Jail(Box<jail::Jail>),
    Landlock(Fallback),
}

/// The Landlock fallback: the helper's rules for every command, and what stands in for the
/// jail's HOME (the workspaces' caches, the generated `.gitconfig`).
#[derive(Debug, Clone)]
struct Fallback {
    rules: Rules,
    cache_root: Option<PathBuf>,
    gitconfig: Option<PathBuf>,
}

/// The server's sandbox: the helper and how it confines commands.
#[derive(Debug, Clone)]
pub struct Sandbox {
    pub helper: PathBuf,
    kind: Kind,
    network_deny: bool,
    state_dir: PathBuf,
    /// Why the Landlock fallback refuses every command (a state directory under a temp folder
    /// it must grant).
    refuse_all: Option<String>,
}

/// Is `dir` under `/tmp`, `/var/tmp` or `$TMPDIR`?
pub fn under_temp(dir: &Path) -> bool {
    let mut temps = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    temps.extend(std::env::var_os("TMPDIR").map(PathBuf::from));
    temps.push(std::env::temp_dir());
    temps
        .iter()
        .filter(|t| t.as_os_str().len() > 1)
        .any(|t| dir.starts_with(t) || std::fs::canonicalize(t).is_ok_and(|c| dir.starts_with(c)))
}

/// Will commands run in the Landlock fallback? Known before the probe only from what is cheap
/// to look at (the configuration, whether `bwrap` is installed): the start-time refusal of a
/// state directory under a temp folder uses it.
pub fn fallback_certain(cfg: &crate::config::Config) -> bool {
    cfg.sandbox.enabled
        && match cfg.sandbox.jail {
            JailChoice::Landlock => true,
            JailChoice::Auto | JailChoice::Bwrap => jail::find_bwrap().is_none(),
        }
}

/// The start-time refusal of the Landlock fallback: it grants the temp folders whole, so a state
/// directory there would be readable and writable by every command.
pub fn check_state_dir(cfg: &crate::config::Config) -> anyhow::Result<()> {
    if fallback_certain(cfg) && under_temp(&cfg.state_dir) {
        anyhow::bail!(
            "the state directory {} is under a temp folder, which commands may write without a \
             jail (bubblewrap is {}); start with --state-dir outside /tmp and $TMPDIR",
            cfg.state_dir.display(),
            if cfg.sandbox.jail == JailChoice::Landlock {
                "turned off by sandbox.jail = \"landlock\""
            } else {
                "not installed"
            }
        );
    }
    Ok(())
}

/// The server's sandbox from its configuration, and what `GET /api/config` says about it.
pub fn for_config(cfg: &crate::config::Config) -> (Option<Sandbox>, crate::protocol::SandboxInfo) {
    let network_deny = cfg.sandbox.network == "deny";
    let mut notes = Vec::new();
    let home = cfg.home.clone();
    let mut roots = vec![cfg.workspace.clone()];
    roots.extend(cfg.extra_roots.iter().cloned());
    let kind = match (&cfg.sandbox_helper, cfg.sandbox.enabled) {
        (_, false) => {
            notes.push("the sandbox is turned off in config.json (sandbox.enabled = false)".into());
            None
        }
        (None, true) => {
            notes.push("no sandbox helper binary is known".into());
            None
        }
        (Some(h), true) => {
            let jail = match cfg.sandbox.jail {
                JailChoice::Landlock => None,
                JailChoice::Auto | JailChoice::Bwrap => {
                    let allowed = allowed_paths(
                        &cfg.sandbox.allow,
                        home.as_deref(),
                        &cfg.state_dir,
                        &mut notes,
                    );
                    match jail::Jail::probe(
                        &jail_helper(h),
                        home.as_deref(),
                        &cfg.state_dir,
                        &allowed,
                    ) {
                        Ok(j) => Some(j),
                        Err(e) => {
                            notes.push(format!("{e}: commands run in the Landlock fallback, which gives fewer guarantees (see them listed)"));
                            None
                        }
                    }
                }
            };
            match jail {
                Some(j) => Some(Kind::Jail(Box::new(j))),
                None => fallback_kind(cfg, h, &roots, network_deny, &mut notes),
            }
        }
    };
    let fallback = matches!(kind, Some(Kind::Landlock(_)));
    if fallback {
        for r in &roots {
            if home.as_deref().is_some_and(|h| h.starts_with(r)) {
                notes.push(format!(
                    "the root {} holds your home directory: its credentials are writable by commands (the file tools still refuse them)",
                    r.display()
                ));
            }
        }
    }
    // The jail binds a root whole, as the fallback grants it: both warn of what it holds.
    if kind.is_some() {
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
    }
    let refuse_all = (fallback && under_temp(&cfg.state_dir)).then(|| {
        format!(
            "the state directory {} is under a temp folder, which the Landlock fallback lets every command write; restart with --state-dir outside /tmp and $TMPDIR",
            cfg.state_dir.display()
        )
    });
    if let Some(r) = &refuse_all {
        notes.push(format!("{r} (commands are refused until then)"));
    }
    let jail_name = match &kind {
        Some(Kind::Jail(_)) => "bwrap",
        Some(Kind::Landlock(_)) => "landlock",
        None => "none",
    };
    let sandbox = match (kind, &cfg.sandbox_helper) {
        (Some(kind), Some(h)) => Some(Sandbox {
            helper: h.clone(),
            kind,
            network_deny,
            state_dir: cfg.state_dir.clone(),
            refuse_all,
        }),
        _ => None,
    };
    if jail_name == "landlock" {
        notes.push(format!(
            "the Landlock fallback cannot keep a repository's control files read-only or hide the host's files by mount, so sessions cannot run in `full` here; {FALLBACK_FIX}"
        ));
    }
    let info = crate::protocol::SandboxInfo {
        active: sandbox.is_some(),
        jail: jail_name.into(),
        network: if network_deny { "deny" } else { "allow" }.into(),
        notes,
        guarantees: guarantees(jail_name, cfg.yolo),
    };
    (sandbox, info)
}

/// The Landlock fallback for `cfg` with the helper `h`, when the kernel enforces Landlock (else
/// `None`, with a note: commands run unconfined).
fn fallback_kind(
    cfg: &crate::config::Config,
    h: &Path,
    roots: &[PathBuf],
    network_deny: bool,
    notes: &mut Vec<String>,
) -> Option<Kind> {
    if let Err(e) = available().and_then(|()| probe(h)) {
        notes.push(format!("{e}; commands run unconfined"));
        return None;
    }
    let home = cfg.home.as_deref();
    let allowed = allowed_paths(&cfg.sandbox.allow, home, &cfg.state_dir, notes);
    let cache_root = home.map(|h| h.join(jail::CACHE_ROOT));
    let gitconfig = match (&cache_root, home) {
        (Some(root), Some(h)) => jail::write_gitconfig(root, h).ok(),
        _ => None,
    };
    let mut rules = landlock_rules(roots, home, &cfg.state_dir, network_deny, &allowed);
    rules.ro.extend(gitconfig.iter().cloned());
    Some(Kind::Landlock(Fallback {
        rules,
        cache_root,
        gitconfig,
    }))
}

/// How to get the jail where the fallback runs.
pub const FALLBACK_FIX: &str = "to get the jail, install bubblewrap (`apt install bubblewrap`) and let unprivileged user namespaces run (Ubuntu 23.10 and later restrict them through AppArmor: `sysctl kernel.apparmor_restrict_unprivileged_userns=0`, or an AppArmor profile that allows `userns` for bwrap); in Docker, run with the project's seccomp profile and `systempaths=unconfined` as docker/compose.yaml does";

/// What the sandbox guarantees with `jail` (`bwrap`, `landlock` or `none`), each said to hold
/// or not, and why not.
pub fn guarantees(jail: &str, yolo: bool) -> Vec<crate::protocol::SandboxGuarantee> {
    let (j, f) = (jail == "bwrap", jail == "landlock");
    let off = "commands run unconfined (no sandbox)";
    let g = |id: &str, holds: bool, yes: &str, no: &str| crate::protocol::SandboxGuarantee {
        id: id.into(),
        holds,
        detail: if holds { yes } else { no }.into(),
    };
    vec![
        g(
            "home_allow_list",
            j || f,
            "commands see only the toolchains and caches of HOME, and what you allowed",
            off,
        ),
        g(
            "git_control_files_read_only",
            j,
            "a repository's hooks and config, .envrc and the like are read-only to commands",
            if f {
                "the Landlock fallback grants a root whole: commands can write .git/hooks and .git/config"
            } else {
                off
            },
        ),
        g(
            "server_out_of_reach",
            j || f,
            if j {
                "commands cannot see or signal the server, and reach no socket of the host"
            } else {
                "commands cannot signal the server or make Unix sockets (the host's stay out of reach); they can see its process"
            },
            off,
        ),
        g(
            "no_capabilities",
            j || f,
            "commands run without any capability, even when the server runs as root",
            off,
        ),
        g(
            "no_set_uid",
            j || f,
            "nothing a command writes can be set-user-ID or set-group-ID",
            off,
        ),
        g(
            "network_deny_all",
            j,
            "with sandbox.network = deny, commands have no network at all",
            if f {
                "with sandbox.network = deny, the Landlock fallback cuts TCP only (UDP, e.g. DNS, still goes out)"
            } else {
                off
            },
        ),
        g(
            "full_mode",
            !f || yolo,
            if j {
                "sessions may run in full (commands run without asking, in the jail)"
            } else {
                "sessions may run in full — with commands unconfined, since no sandbox runs here"
            },
            &format!("sessions cannot run in full without the jail; {FALLBACK_FIX}"),
        ),
    ]
}

/// Credential locations under HOME (the hard-deny list's folders and files): a path that holds
/// one of them is never let into a jail whole.
const HOME_CREDENTIALS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".config/gh",
    ".config/gcloud",
    ".docker/config.json",
    ".kube/config",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".netrc",
    ".git-credentials",
    ".pgpass",
];

/// System files only root may read, refused whether or not this server masks them.
const SYSTEM_SECRETS: &[&str] = &["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/root"];

/// A path let into a jail, as checked by [`admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// What the path resolves to: what is bound, and what the user is shown.
    pub resolved: PathBuf,
    pub dir: bool,
}

/// Why `path` may never be let into a jail, judged from its name alone (nothing is looked up on
/// disk, so nothing is learnt of what exists): not absolute, the root, HOME or a folder above
/// it, the state directory or anything holding it or inside it, a path on the hard-deny list or
/// holding a credential location, or a system secret.
pub fn refuses_by_name(path: &Path, home: Option<&Path>, state_dir: &Path) -> Option<String> {
    let shown = path.display();
    if !path.is_absolute() {
        return Some(format!("{shown} is not an absolute path"));
    }
    let path = &crate::policy::paths::normalize(path);
    if path.parent().is_none() || home.is_some_and(|h| h.starts_with(path)) {
        return Some(format!(
            "{shown} would let every command see all of HOME: allow the file or folder the command needs"
        ));
    }
    if path.starts_with(state_dir) || state_dir.starts_with(path) {
        return Some(format!(
            "{shown} holds or lies in the server's state directory, which commands never reach"
        ));
    }
    let lower = path.to_string_lossy().to_lowercase();
    let holds_credentials =
        home.is_some_and(|h| HOME_CREDENTIALS.iter().any(|c| h.join(c).starts_with(path)));
    if tradewind_policy::lists::names_hard_denied_path(&lower) || holds_credentials {
        return Some(format!(
            "{shown} is or holds a credential location on the hard-deny list, which no command may see"
        ));
    }
    if SYSTEM_SECRETS
        .iter()
        .any(|s| path.starts_with(s) || Path::new(s).starts_with(path) && path != Path::new("/etc"))
    {
        return Some(format!("{shown} holds secrets only root may read"));
    }
    None
}

/// The one check every path that enters a jail from a click or a configuration passes — "allow
/// for this session", `sandbox.allow`, an MCP server's arguments (and, later, a worktree's
/// binds): [`refuses_by_name`] for the path as given and for what it resolves to, and only a
/// regular file or a folder (a socket, a FIFO or a device is refused: a read-only bind of a
/// socket still connects), a folder holding none near its top (a tmux or ssh-agent socket's
/// folder). `Err` says why, naming the resolved target when it differs.
pub fn admit(path: &Path, home: Option<&Path>, state_dir: &Path) -> Result<Admitted, String> {
    if let Some(why) = refuses_by_name(path, home, state_dir) {
        return Err(why);
    }
    let resolved = std::fs::canonicalize(path)
        .map_err(|_| format!("{} is hidden from commands or missing", path.display()))?;
    if resolved != path
        && let Some(why) = refuses_by_name(&resolved, home, state_dir)
    {
        return Err(format!(
            "{} leads to {}: {why}",
            path.display(),
            resolved.display()
        ));
    }
    let meta = std::fs::metadata(&resolved)
        .map_err(|_| format!("{} is hidden from commands or missing", path.display()))?;
    if meta.is_dir() {
        if let Some(sock) = special_inside(&resolved) {
            return Err(format!(
                "{} holds {}, a socket, FIFO or device: commands could reach what listens there",
                resolved.display(),
                sock.display()
            ));
        }
    } else if !meta.is_file() {
        return Err(format!(
            "{} is a socket, FIFO or device, not a file or folder: commands could reach what listens there",
            resolved.display()
        ));
    }
    Ok(Admitted {
        resolved,
        dir: meta.is_dir(),
    })
}

/// A socket, FIFO or device in `dir` or up to two levels below (a bounded look).
fn special_inside(dir: &Path) -> Option<PathBuf> {
    let mut stack = vec![(dir.to_path_buf(), 0u8)];
    let mut seen = 0usize;
    while let Some((d, depth)) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            seen += 1;
            if seen > 5_000 {
                return None;
            }
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() && depth < 2 {
                stack.push((e.path(), depth + 1));
            } else if !t.is_dir() && !t.is_file() && !t.is_symlink() {
                return Some(e.path());
            }
        }
    }
    None
}

/// `sandbox.allow` as absolute paths (`~/` is the home folder); an entry that names or holds a
/// credential location is left out, with a note.
fn allowed_paths(
    list: &[crate::config::SandboxAllow],
    home: Option<&Path>,
    state_dir: &Path,
    notes: &mut Vec<String>,
) -> Vec<Allowed> {
    let mut out = Vec::new();
    for a in list {
        let p = match (a.path.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ => PathBuf::from(&a.path),
        };
        match admit(&p, home, state_dir) {
            Ok(ok) => out.push(Allowed {
                path: ok.resolved,
                write: a.write,
            }),
            Err(why) if !p.is_absolute() || std::fs::symlink_metadata(&p).is_ok() => {
                notes.push(format!("sandbox.allow: {}: {why}; left out", a.path));
            }
            // A configured path that is not there (yet) is no mistake: nothing to bind.
            Err(_) => {}
        }
    }
    out
}

/// The Landlock fallback's rules for a server whose roots are `roots`, with `state_dir` (never
/// granted). HOME is the jail's allow-list — the toolchains and caches of
/// [`tradewind_policy::jail`] read-only, `sandbox.allow` as configured, the public part of
/// `~/.ssh` — and nothing else of it; builds write the workspace's own cache (see
/// [`Sandbox::env`]). Where the server runs as root, the system folders are granted without the
/// files only their owner may read (root still owns them: a command keeps uid 0).
fn landlock_rules(
    roots: &[PathBuf],
    home: Option<&Path>,
    state_dir: &Path,
    network_deny: bool,
    allowed: &[Allowed],
) -> Rules {
    let mut rw: Vec<PathBuf> = roots.to_vec();
    rw.extend(SYSTEM_RW.iter().map(PathBuf::from));
    if let Some(t) = std::env::var_os("TMPDIR") {
        rw.push(PathBuf::from(t));
    }
    let as_root = rustix::process::geteuid().is_root();
    let mut ro: Vec<PathBuf> = Vec::new();
    for s in SYSTEM_RO {
        let p = Path::new(s);
        if as_root && SCANNED_AS_ROOT.contains(s) {
            let (mut files, mut dirs) = (Vec::new(), Vec::new());
            jail::owner_only(p, &mut files, &mut dirs);
            grant_except(p, &files, &dirs, &mut ro);
        } else {
            ro.push(p.to_path_buf());
        }
    }
    if let Some(h) = home {
        for rel in tradewind_policy::jail::HOME_TOOLCHAINS
            .iter()
            .chain(tradewind_policy::jail::HOME_CACHES)
        {
            ro.push(h.join(rel));
        }
        // The public part of ~/.ssh: `git push` over SSH verifies the host without any key
        // being readable.
        for f in SSH_PUBLIC {
            let p = h.join(".ssh").join(f);
            if p.is_file() {
                ro.push(p);
            }
        }
    }
    for a in allowed {
        if a.write { &mut rw } else { &mut ro }.push(a.path.clone());
    }
    ro.retain(|p| !jail::reaches(p, state_dir) && p.exists());
    Rules {
        rw,
        ro,
        network_deny,
        unix_sockets_denied: false,
        tty: false,
    }
}

/// System folders the fallback grants without their owner-only files when the server is root.
const SCANNED_AS_ROOT: &[&str] = &["/etc", "/opt", "/srv", "/var/lib", "/var/cache", "/snap"];

/// Grant `dir` read-only, or — where it holds one of `files` or `dirs` — each of its entries
/// that is not one, looking further down only where one lies.
fn grant_except(dir: &Path, files: &[PathBuf], dirs: &[PathBuf], out: &mut Vec<PathBuf>) {
    let holds = |p: &Path| files.iter().chain(dirs).any(|m| m.starts_with(p));
    if !holds(dir) {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if files.contains(&p) || dirs.contains(&p) {
            continue;
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) && holds(&p) {
            grant_except(&p, files, dirs, out);
        } else {
            out.push(p);
        }
    }
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

impl SandboxHandle {
    /// `--yolo`: nothing is held or asked.
    pub fn yolo(&self) -> bool {
        self.cfg.yolo
    }
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
                                jail: "none".into(),
                                network: "allow".into(),
                                notes: vec![format!("the sandbox probe failed: {e}")],
                                guarantees: guarantees("none", false),
                            },
                        )
                    });
                tracing::info!(
                    "process sandbox: {}",
                    match info.jail.as_str() {
                        "bwrap" => "every command runs in the jail (bubblewrap, Landlock, seccomp)",
                        "landlock" => "commands run in the Landlock fallback (no bubblewrap jail)",
                        _ => "commands run unconfined",
                    }
                );
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

    /// Probe in the background a moment after the server is healthy: the probe (bubblewrap and
    /// the helper, several milliseconds of CPU) never competes with the first requests on a
    /// small machine. A command, or `GET /api/config`, that comes first probes at once.
    pub fn probe_soon(&self) {
        let me = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(PROBE_AFTER_START).await;
            me.probed().await;
        });
    }
}

/// How long after the server is healthy the sandbox is probed unasked.
const PROBE_AFTER_START: std::time::Duration = std::time::Duration::from_millis(250);

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

/// The small confinement program (`tradewind-confine`, built with the server and installed
/// beside it) that the jail starts each command through; where it is not there (a `cargo run`
/// builds only the server), the server's own `sandbox-exec`, which costs a command ~2.5 ms more.
pub const SMALL_HELPER: &str = "tradewind-confine";

/// The program the jail starts every command through: [`SMALL_HELPER`] beside `helper` when it
/// is a file, else `helper` itself (both take the same arguments).
pub fn jail_helper(helper: &Path) -> PathBuf {
    let small = helper.with_file_name(SMALL_HELPER);
    if small.is_file() {
        small
    } else {
        helper.to_path_buf()
    }
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

impl Fallback {
    /// The workspace's writable cache (its first root's), made when missing.
    fn cache_for(&self, job: &Job) -> Option<PathBuf> {
        jail::workspace_cache(self.cache_root.as_deref()?, job.roots.first()?)
    }
}

impl Sandbox {
    /// The Landlock fallback without its grants of the temp folders (`/tmp`, `/var/tmp`,
    /// `$TMPDIR`): for tests whose scratch may live under one of them (a clone in `/tmp`).
    #[doc(hidden)]
    pub fn without_temp_grants(mut self) -> Sandbox {
        if let Kind::Landlock(f) = &mut self.kind {
            f.rules
                .rw
                .retain(|p| !under_temp(p) && !p.starts_with("/tmp") && !p.starts_with("/var/tmp"));
            // Without those grants a state dir under temp is out of the commands' reach: the
            // reason to refuse them all is gone.
            self.refuse_all = None;
        }
        self
    }

    /// The paths a failed command's output names that the jail hid from it: what its card
    /// offers to allow for the session. Always empty in the Landlock fallback.
    pub fn hidden_in(&self, job: &Job, output: &str) -> Vec<PathBuf> {
        match &self.kind {
            Kind::Jail(j) => j.hidden_in(job, output),
            Kind::Landlock(_) => Vec::new(),
        }
    }

    /// What to let into a session's jail for `path` — what it resolves to, and the path itself
    /// when a link the jail hides leads there — or why not (see [`jail::Jail::admit_named`]).
    pub fn admit(&self, job: &Job, path: &Path) -> Result<Vec<PathBuf>, String> {
        match &self.kind {
            Kind::Jail(j) => j.admit_named(job, path),
            Kind::Landlock(_) => Err(
                "only the bubblewrap jail lets single paths in; this server runs commands in the Landlock fallback"
                    .into(),
            ),
        }
    }

    /// Does the jail hold commands (not the Landlock fallback)?
    pub fn jailed(&self) -> bool {
        matches!(self.kind, Kind::Jail(_))
    }

    /// A command that runs `program args…` confined as `job` says. The caller sets its working
    /// folder (inside a root), environment and pipes; it must not put it in a process group of
    /// its own (the jail and the helper do). `Err`: the Landlock fallback refuses it (a root
    /// holding the state directory, or a state directory under a temp folder), naming the fix.
    pub fn command(
        &self,
        job: &Job,
        program: &Path,
        args: &[OsString],
    ) -> Result<tokio::process::Command, String> {
        let job = &Job {
            network_deny: job.network_deny || (self.network_deny && !job.install),
            ..job.clone()
        };
        match &self.kind {
            Kind::Jail(j) => Ok(j.command(job, &job.roots, program, args)),
            Kind::Landlock(fallback) => {
                let base = &fallback.rules;
                if let Some(r) = &self.refuse_all {
                    return Err(r.clone());
                }
                if let Some(r) = job.roots.iter().find(|r| self.state_dir.starts_with(r)) {
                    return Err(format!(
                        "the root {} holds the state directory {}, which the Landlock fallback cannot hide from commands; restart with --state-dir outside it",
                        r.display(),
                        self.state_dir.display()
                    ));
                }
                let mut cmd = tokio::process::Command::new(&self.helper);
                cmd.arg("sandbox-exec");
                let cache = fallback.cache_for(job);
                // Landlock cannot make a file read-only inside a writable folder: a worktree
                // session gets only the folders git records its work in (a `packed-refs`
                // rewrite fails there).
                let lent: Vec<PathBuf> = job
                    .lent_git
                    .iter()
                    .flat_map(|l| {
                        ["objects", "refs", "logs"]
                            .map(|d| l.common.join(d))
                            .into_iter()
                            .chain([l.own.clone()])
                    })
                    .chain(job.git_admin.iter().cloned())
                    .collect();
                let rw = job
                    .roots
                    .iter()
                    .chain(&base.rw)
                    .chain(&cache)
                    .filter(|_| !job.read_only_roots)
                    .chain(&job.writable)
                    .chain(&lent);
                for p in rw {
                    cmd.arg("--rw").arg(p);
                }
                let ro_roots = job.roots.iter().filter(|_| job.read_only_roots);
                for p in base.ro.iter().chain(&job.read).chain(ro_roots) {
                    cmd.arg("--ro").arg(p);
                }
                if job.network_deny {
                    cmd.arg("--network-deny");
                }
                // No mount namespace hides the host's sockets (a tmux server's, an SSH agent's,
                // D-Bus): none can be made, unless this command was approved the SSH agent.
                if !job.ssh_agent {
                    cmd.arg("--deny-unix-sockets");
                }
                if job.tty {
                    cmd.arg("--tty");
                }
                cmd.arg("--").arg(program).args(args);
                Ok(cmd)
            }
        }
    }

    /// Variables every confined command gets on top of its own (the jail sets them itself): in
    /// the fallback, the builds' caches pointed at the workspace's own (HOME's are read-only) and
    /// git's global config at the generated one (name and email only).
    pub fn env(&self, job: &Job, cmd: &mut tokio::process::Command) {
        if let Kind::Landlock(fallback) = &self.kind {
            if let Some(c) = fallback.cache_for(job) {
                for (var, sub) in tradewind_policy::jail::CACHE_ENV {
                    cmd.env(var, c.join(sub));
                }
                let mut m = OsString::from("-Dmaven.repo.local=");
                m.push(c.join(tradewind_policy::jail::MAVEN_REPO));
                cmd.env("MAVEN_OPTS", m);
            }
            if let Some(g) = &fallback.gitconfig {
                cmd.env("GIT_CONFIG_GLOBAL", g);
            }
            for (k, v) in &job.env {
                cmd.env(k, v);
            }
            if !job.ssh_agent {
                cmd.env_remove("SSH_AUTH_SOCK");
            }
        }
    }
}

/// A graceful stop of the command whose group leader is `leader` (as started by
/// [`Sandbox::command`] or unconfined in a group of its own). In the jail, `sig` goes to the
/// helper and the command inside — not to bubblewrap, which would die of it and take the PID
/// namespace down with no grace period — and the helper passes it on to every descendant.
/// Otherwise the whole group gets it. Returns whether anything was signalled.
pub fn stop(leader: u32, sig: rustix::process::Signal) -> bool {
    let is_bwrap = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "bwrap")
    };
    let pid_of = |pid: u32| {
        i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
    };
    if !is_bwrap(leader) {
        return pid_of(leader).is_some_and(|p| rustix::process::kill_process_group(p, sig).is_ok());
    }
    let mut any = false;
    for pid in helper::descendants(leader) {
        if !is_bwrap(pid)
            && let Some(p) = pid_of(pid)
        {
            any |= rustix::process::kill_process(p, sig).is_ok();
        }
    }
    any
}

/// Files of `~/.ssh` that hold no secret: the hosts ssh has verified.
const SSH_PUBLIC: &[&str] = &["known_hosts", "known_hosts2"];

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    /// The jail starts commands through the small `tradewind-confine` beside the server when
    /// it is there, else through the server itself.
    #[test]
    fn the_jail_prefers_the_small_helper_beside_the_server() {
        let base = std::env::temp_dir().join(format!("tw-helper-{}", crate::util::new_id()));
        std::fs::create_dir_all(&base).unwrap();
        let server = base.join("tradewind");
        std::fs::write(&server, "").unwrap();
        assert_eq!(jail_helper(&server), server);
        std::fs::write(base.join(SMALL_HELPER), "").unwrap();
        assert_eq!(jail_helper(&server), base.join(SMALL_HELPER));
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// The fallback's HOME is the jail's allow-list: toolchains and caches, and of `.ssh` only
    /// the known hosts; nothing else of HOME, however harmless its name.
    #[test]
    fn home_rules_are_the_jails_allow_list() {
        let base = std::env::temp_dir().join(format!("tw-sbx-{}", crate::util::new_id()));
        let home = base.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join("src")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "secret").unwrap();
        std::fs::write(home.join(".ssh/known_hosts"), "github.com ssh-ed25519 AAAA").unwrap();
        std::fs::write(home.join(".gitconfig"), "[user]").unwrap();
        std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
        let s = landlock_rules(
            &[base.join("ws")],
            Some(&home),
            &base.join("state"),
            false,
            &[],
        );
        let ro = &s.ro;
        assert!(ro.contains(&home.join(".ssh/known_hosts")), "{ro:?}");
        assert!(ro.contains(&home.join(".cargo/bin")), "{ro:?}");
        assert!(!ro.contains(&home.join(".gitconfig")), "{ro:?}");
        assert!(!ro.contains(&home.join("src")), "{ro:?}");
        assert!(!ro.iter().any(|p| p == &home), "{ro:?}");
        assert!(
            !ro.iter()
                .any(|p| p.ends_with("id_ed25519") || p == &home.join(".ssh")),
            "{ro:?}"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }
}
