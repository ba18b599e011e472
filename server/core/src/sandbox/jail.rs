//! The jail: every confined command runs under Debian's `bubblewrap` in new user, mount, PID,
//! IPC and UTS namespaces with every capability dropped, further user namespaces disabled, and
//! the `sandbox-exec` helper (Landlock, seccomp, the reaper) as its first process.
//!
//! What it holds is an allow-list, not a deny list: the system's program and library folders
//! read-only; an empty `HOME` with the toolchains and caches of [`tradewind_policy::jail`] bound
//! in read-only, a generated `~/.gitconfig` with only the user's name and email, and one writable
//! cache per workspace; a private `/tmp` and `/run` (no sockets, no `/run/user`); its own procfs
//! (the server's process is not there to read or signal); the session's roots read-write with the
//! files that run code later (`.git/hooks`, `.git/config`, `.envrc`, …) read-only on top, and the
//! state directory masked where a root holds it. Network is the host's unless denied, when the
//! jail gets a network namespace of its own. When the server runs as root, files only root may
//! read in the bound system folders (`/etc/shadow`, host keys) are masked, and the command runs
//! as uid 1000 inside.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use std::os::fd::OwnedFd;

use tradewind_policy::jail as list;

use super::Job;
use super::binds::{Binder, Found};

/// Where the helper is bound inside the jail (under the jail's own `/run`).
const HELPER_IN_JAIL: &str = "/run/tradewind/sandbox-exec";

/// System folders bound read-only (a symbolic link among them, as merged-`/usr` systems have
/// for `/bin` and `/lib`, is recreated as the same link).
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/srv",
    "/snap", "/nix", "/sys",
];

/// System folders scanned for files only their owner may read (masked when the server is root).
const SCANNED: &[&str] = &["/etc", "/opt", "/srv"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Sys {
    Bind(PathBuf),
    /// A system folder empty at start (`/srv` often): an empty folder in the jail, no mount.
    Empty(PathBuf),
    Link {
        target: PathBuf,
        at: PathBuf,
    },
}

/// Bound last: each bind after a recursive one pays for its submounts (bubblewrap reads the
/// mount table once per bind), and `/sys` has a dozen.
const BOUND_LAST: &str = "/sys";

/// A file or folder of the configuration's `sandbox.allow`, or the default allow-list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    pub path: PathBuf,
    pub write: bool,
}

/// Everything about the jail that does not change between commands, found once by the probe.
#[derive(Debug, Clone)]
pub struct Jail {
    bwrap: PathBuf,
    helper: PathBuf,
    system: Vec<Sys>,
    /// Owner-only files and folders in the bound system folders (only when the server is root).
    masked_files: Vec<PathBuf>,
    masked_dirs: Vec<PathBuf>,
    /// `/etc/resolv.conf`'s target when it lies under `/run` (systemd-resolved).
    resolv: Option<PathBuf>,
    home: Option<PathBuf>,
    /// Existing allowed paths: toolchains and caches read-only, `sandbox.allow` as configured.
    allowed: Vec<Allowed>,
    /// `~/.cache/tradewind/jail`: the per-workspace caches and the generated `.gitconfig`.
    cache_root: Option<PathBuf>,
    gitconfig: Option<PathBuf>,
    state_dir: PathBuf,
    as_root: bool,
}

/// Find `bwrap` in `PATH`.
pub fn find_bwrap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file())
}

impl Jail {
    /// Look the system over (once, off the start path) and run the jail once: `Err` says why it
    /// cannot be used here.
    pub fn probe(
        helper: &Path,
        home: Option<&Path>,
        state_dir: &Path,
        configured: &[Allowed],
    ) -> Result<Jail, String> {
        let bwrap = find_bwrap().ok_or("bubblewrap (bwrap) is not installed")?;
        let as_root = rustix::process::geteuid().is_root();
        let mut system = Vec::new();
        for s in SYSTEM {
            let p = Path::new(s);
            match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(p) {
                        system.push(Sys::Link {
                            target,
                            at: p.to_path_buf(),
                        });
                    }
                }
                Ok(m) if m.is_dir() => {
                    let empty = std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_none());
                    system.push(if empty {
                        Sys::Empty(p.to_path_buf())
                    } else {
                        Sys::Bind(p.to_path_buf())
                    });
                }
                _ => {}
            }
        }
        let (mut masked_files, mut masked_dirs) = (Vec::new(), Vec::new());
        if as_root {
            for s in SCANNED {
                owner_only(Path::new(s), &mut masked_files, &mut masked_dirs);
            }
        }
        let resolv = std::fs::canonicalize("/etc/resolv.conf")
            .ok()
            .filter(|p| p.starts_with("/run"));
        let mut allowed = Vec::new();
        if let Some(h) = home {
            for rel in list::HOME_TOOLCHAINS.iter().chain(list::HOME_CACHES) {
                allowed.push(Allowed {
                    path: h.join(rel),
                    write: false,
                });
            }
        }
        allowed.extend(configured.iter().cloned());
        // Folders of PATH outside the system folders and HOME (`/work/tools/bin`): read-only,
        // so the programs the user runs are found inside too.
        for d in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let outside = d.is_absolute()
                && d.parent().is_some()
                && !SYSTEM.iter().any(|s| d.starts_with(s))
                && !home.is_some_and(|h| d.starts_with(h) || h.starts_with(&d))
                && !tradewind_policy::lists::names_hard_denied_path(
                    &d.to_string_lossy().to_lowercase(),
                );
            if outside && d.is_dir() {
                allowed.push(Allowed {
                    path: d,
                    write: false,
                });
            }
        }
        allowed.retain(|a| a.path.exists() && !reaches(&a.path, state_dir));
        let cache_root = home.map(|h| h.join(CACHE_ROOT));
        let gitconfig = match (&cache_root, home) {
            (Some(root), Some(h)) => write_gitconfig(root, h).ok(),
            _ => None,
        };
        let jail = Jail {
            bwrap,
            helper: helper.to_path_buf(),
            system,
            masked_files,
            masked_dirs,
            resolv,
            home: home.map(Path::to_path_buf),
            allowed,
            cache_root,
            gitconfig,
            state_dir: state_dir.to_path_buf(),
            as_root,
        };
        // A jail that fails once may only have met a passing shortage (a namespace limit, a
        // process table full for a moment, a bind source replaced while bubblewrap started):
        // three tries, a little apart, before the whole server settles for the fallback.
        let mut last = String::new();
        for pause_ms in [0u64, 100, 400] {
            std::thread::sleep(std::time::Duration::from_millis(pause_ms));
            match jail.try_once() {
                Ok(()) => return Ok(jail),
                Err(e) => {
                    tracing::warn!("process sandbox: the jail's probe failed: {e}");
                    last = e;
                }
            }
        }
        Err(last)
    }

    /// Run `sandbox-exec --probe` in the jail: user namespaces, the mounts and Landlock inside.
    fn try_once(&self) -> Result<(), String> {
        use command_fds::CommandFdExt;
        let mut cmd = std::process::Command::new(&self.bwrap);
        let (args, fds) = self.args(&Job::default(), &[]);
        cmd.args(args)
            .args(["--", HELPER_IN_JAIL, "sandbox-exec", "--probe"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(std::process::Stdio::null());
        if !fds.is_empty() {
            cmd.preserved_fds(fds);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.bwrap.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "bubblewrap cannot make a jail here ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// The command: `bwrap <jail> -- <helper> sandbox-exec <rules> -- program args…`. What it
    /// binds from a tree the agent can change is handed over as descriptors the command holds
    /// (see [`super::binds`]).
    pub fn command(
        &self,
        job: &Job,
        roots: &[PathBuf],
        program: &Path,
        args: &[OsString],
    ) -> tokio::process::Command {
        use command_fds::CommandFdExt;
        let mut cmd = tokio::process::Command::new(&self.bwrap);
        // The server's own git (roots read-only) gets no writable cache either.
        let cache = self
            .workspace_cache(roots.first().map(PathBuf::as_path))
            .filter(|_| !job.read_only_roots);
        let (mut a, fds) = self.args(job, roots);
        if let Some(c) = &cache {
            a.push("--bind".into());
            a.push(c.into());
            a.push(c.into());
            for (var, sub) in list::CACHE_ENV {
                a.push("--setenv".into());
                a.push((*var).into());
                a.push(c.join(sub).into());
            }
            a.push("--setenv".into());
            a.push("MAVEN_OPTS".into());
            let mut m = OsString::from("-Dmaven.repo.local=");
            m.push(c.join(list::MAVEN_REPO));
            a.push(m);
        }
        a.push("--".into());
        a.push(HELPER_IN_JAIL.into());
        a.push("sandbox-exec".into());
        a.push("--exec".into());
        if job.tty {
            a.push("--tty".into());
        }
        a.extend(["--ro".into(), "/".into()]);
        let home = self.home_in_jail();
        for p in roots
            .iter()
            .map(PathBuf::as_path)
            .chain([Path::new("/tmp"), Path::new("/var/tmp"), Path::new("/dev")])
            .chain(std::iter::once(home.as_path()))
            .chain(cache.as_deref())
            .chain(job.writable.iter().map(PathBuf::as_path))
        {
            a.push("--rw".into());
            a.push(p.into());
        }
        if job.network_deny {
            a.push("--network-deny".into());
        }
        a.push("--".into());
        a.push(program.into());
        a.extend(args.iter().cloned());
        cmd.args(a);
        if !fds.is_empty() {
            cmd.preserved_fds(fds);
        }
        // Its own group: the server's stop reaches the helper inside (see `stop`), and the hard
        // stop kills bwrap, whose death takes the whole PID namespace with it.
        cmd.process_group(0);
        cmd
    }

    /// Whether a command of `job` cannot see `path` (judged from the name alone: whether it
    /// exists is not looked up): under HOME outside the allow-list, in a system folder's masked
    /// files, or anywhere the jail binds nothing (other users' homes, `/var`, `/mnt`, the host's
    /// `/tmp`). The jail's own `/proc`, `/dev` and `/run` are not the host's and are never said
    /// hidden.
    pub fn hides(&self, job: &Job, path: &Path) -> bool {
        if !path.is_absolute() {
            return false;
        }
        let under = |base: &Path| path.starts_with(base);
        if ["/proc", "/dev", "/run"]
            .iter()
            .any(|p| under(Path::new(p)))
        {
            return false;
        }
        if self.masked(path) {
            return true;
        }
        let seen = job.roots.iter().any(|r| under(r))
            || job.read.iter().any(|r| under(r))
            || job.writable.iter().any(|r| under(r))
            || self.allowed.iter().any(|a| under(&a.path))
            || self.gitconfig.is_some()
                && self
                    .home
                    .as_ref()
                    .is_some_and(|h| path == h.join(".gitconfig"));
        if seen {
            return false;
        }
        if let Some(h) = &self.home
            && under(h)
        {
            return true;
        }
        // A system link the jail recreates (`/bin` → `usr/bin` on a merged /usr) shows what
        // its target shows.
        let through_link = self.system.iter().find_map(|s| match s {
            Sys::Link { target, at } if under(at) => {
                let base = at.parent().unwrap_or(Path::new("/")).join(target);
                let rest = path.strip_prefix(at).ok()?;
                Some(crate::policy::paths::normalize(&base.join(rest)))
            }
            _ => None,
        });
        let path = through_link.as_deref().unwrap_or(path);
        !self
            .system
            .iter()
            .any(|s| matches!(s, Sys::Bind(b) if path.starts_with(b)))
    }

    /// Is `path` one of the system files only root may read that the jail masks?
    fn masked(&self, path: &Path) -> bool {
        self.masked_files.iter().any(|f| f == path)
            || self.masked_dirs.iter().any(|d| path.starts_with(d))
    }

    /// The paths `output` (a failed command's) names that the jail would hide and that may be
    /// offered to the user at all, at most [`MAX_HIDDEN_SHOWN`]: what the command's card offers
    /// to allow for the session. Judged by name only — nothing is looked up, so what the model
    /// is told ("hidden or missing") says nothing of what exists.
    pub fn hidden_in(&self, job: &Job, output: &str) -> Vec<PathBuf> {
        named_paths(output, self.home.as_deref())
            .into_iter()
            .map(|p| crate::policy::paths::normalize(&p))
            .filter(|p| {
                self.hides(job, p)
                    && !self.masked(p)
                    && super::refuses_by_name(p, self.home.as_deref(), &self.state_dir).is_none()
            })
            .take(MAX_HIDDEN_SHOWN)
            .collect()
    }

    /// Why the jail may not let `path` in for a session, if it may not: the one check every
    /// path entering a jail passes ([`super::admit`]: the hard-deny list, the state directory,
    /// HOME, regular files and folders only, for the path and what it resolves to), then the
    /// masked system files, and only what the jail hides. `Ok`: what to let in.
    pub fn admit(&self, job: &Job, path: &Path) -> Result<PathBuf, String> {
        let ok = super::admit(path, self.home.as_deref(), &self.state_dir)?;
        if self.masked(path) || self.masked(&ok.resolved) {
            return Err(format!(
                "{} is a file only root may read, which commands never see",
                path.display()
            ));
        }
        if !self.hides(job, &ok.resolved) {
            return Err(format!("the jail does not hide {}", ok.resolved.display()));
        }
        Ok(ok.resolved)
    }

    /// What to let in for `path`: what it resolves to and — when the path a command named goes
    /// through a link the jail hides — that path as well, bound there with what it resolves to
    /// (a command that names the link then finds it; the target alone would not do).
    pub fn admit_named(&self, job: &Job, path: &Path) -> Result<Vec<PathBuf>, String> {
        let resolved = self.admit(job, path)?;
        let named = crate::policy::paths::normalize(path);
        let mut out = vec![resolved.clone()];
        if named != resolved && self.hides(job, &named) {
            out.push(named);
        }
        Ok(out)
    }

    fn home_in_jail(&self) -> PathBuf {
        self.home
            .clone()
            .unwrap_or_else(|| PathBuf::from("/tmp/home"))
    }

    fn workspace_cache(&self, workspace: Option<&Path>) -> Option<PathBuf> {
        workspace_cache(self.cache_root.as_ref()?, workspace?)
    }

    /// bwrap's options for `job` with `roots` read-write (bwrap keeps the caller's working
    /// folder, bound at the same path).
    /// What it binds from a tree a command can change comes as descriptors, returned beside.
    fn args(&self, job: &Job, roots: &[PathBuf]) -> (Vec<OsString>, Vec<OwnedFd>) {
        let mut a = self.system_args(job);
        let mut binder = self.binder(job, roots);
        self.home_and_roots(&mut a, &mut binder, job, roots);
        if self.system.contains(&Sys::Bind(BOUND_LAST.into())) {
            a.extend(["--ro-bind".into(), BOUND_LAST.into(), BOUND_LAST.into()]);
        }
        (a, binder.into_fds())
    }

    /// The trees a jailed command can change, opened for this command's binds: every root
    /// (read-only for this job or not: another command writes it), the writable grants and
    /// allows, and the workspaces' caches.
    fn binder(&self, job: &Job, roots: &[PathBuf]) -> Binder {
        let writable_allows = self.allowed.iter().filter(|a| a.write).map(|a| &a.path);
        Binder::new(
            roots
                .iter()
                .chain(&job.roots)
                .chain(&job.writable)
                .chain(job.lent_git.as_ref().map(|l| &l.common))
                .chain(&job.git_admin)
                .chain(writable_allows)
                .chain(&self.cache_root)
                .map(PathBuf::as_path),
        )
    }

    /// The namespaces and what every command sees of the system: `/usr` and the rest read-only,
    /// secrets in `/etc` masked, its own `/proc`, `/dev`, `/tmp`, `/run`, and the helper.
    fn system_args(&self, job: &Job) -> Vec<OsString> {
        let mut a: Vec<OsString> = Vec::with_capacity(96);
        let mut push = |items: &[&std::ffi::OsStr]| a.extend(items.iter().map(|s| (*s).into()));
        push(
            &[
                "--unshare-user",
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--unshare-cgroup-try",
                "--disable-userns",
                "--die-with-parent",
                "--new-session",
                "--cap-drop",
                "ALL",
                "--hostname",
                "tradewind-jail",
            ]
            .map(std::ffi::OsStr::new),
        );
        if self.as_root {
            push(&["--uid", "1000", "--gid", "1000"].map(std::ffi::OsStr::new));
        }
        if job.network_deny {
            push(&[std::ffi::OsStr::new("--unshare-net")]);
        }
        for s in &self.system {
            match s {
                Sys::Bind(p) if p == Path::new(BOUND_LAST) => {}
                Sys::Bind(p) => push(&["--ro-bind".as_ref(), p.as_os_str(), p.as_os_str()]),
                Sys::Empty(p) => push(&["--dir".as_ref(), p.as_os_str()]),
                Sys::Link { target, at } => {
                    push(&["--symlink".as_ref(), target.as_os_str(), at.as_os_str()]);
                }
            }
        }
        for f in &self.masked_files {
            push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), f.as_os_str()]);
        }
        for d in &self.masked_dirs {
            push(&["--tmpfs".as_ref(), d.as_os_str()]);
            push(&["--remount-ro".as_ref(), d.as_os_str()]);
        }
        push(
            &[
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp",
                "--tmpfs", "/run",
            ]
            .map(std::ffi::OsStr::new),
        );
        if let Some(r) = &self.resolv {
            push(&["--ro-bind".as_ref(), r.as_os_str(), r.as_os_str()]);
        }
        push(&[
            "--ro-bind".as_ref(),
            self.helper.as_os_str(),
            HELPER_IN_JAIL.as_ref(),
        ]);
        a
    }

    /// The empty HOME with what it lets in, the roots with their read-only files, the state
    /// directory masked, and the job's own binds and variables.
    fn home_and_roots(&self, a: &mut Vec<OsString>, b: &mut Binder, job: &Job, roots: &[PathBuf]) {
        let home = self.home_in_jail();
        // A root that holds HOME is bound first, so the empty HOME hides the real one inside it;
        // every other root comes after, so one under HOME shows through.
        let (outer, inner): (Vec<&PathBuf>, Vec<&PathBuf>) =
            roots.iter().partition(|r| home.starts_with(r));
        for r in &outer {
            bind_root(a, b, r, job.read_only_roots);
        }
        a.extend(["--tmpfs".into(), home.clone().into_os_string()]);
        for al in &self.allowed {
            // An allowed path inside a tree a command changes that is a link or missing now is
            // simply not bound.
            let _ = b.bind(a, &al.path, &al.path, al.write, true);
        }
        if let Some(g) = &self.gitconfig {
            a.extend([
                "--ro-bind".into(),
                g.clone().into_os_string(),
                home.join(".gitconfig").into_os_string(),
            ]);
        }
        for r in &inner {
            bind_root(a, b, r, job.read_only_roots);
        }
        if !job.read_only_roots {
            let seen = match &job.seen {
                Some(s) => std::borrow::Cow::Borrowed(s.as_ref()),
                None => std::borrow::Cow::Owned(super::guard::Snapshot::take(roots)),
            };
            protect_roots(a, b, roots, job, &seen);
        }
        if let Some(lent) = &job.lent_git {
            lend_git(a, b, &lent.common, Some(&lent.own));
        } else if let Some(g) = &job.git_admin {
            lend_git(a, b, g, None);
        }
        for r in roots {
            if self.state_dir.starts_with(r) && self.state_dir.is_dir() {
                a.extend([
                    "--tmpfs".into(),
                    self.state_dir.clone().into_os_string(),
                    "--remount-ro".into(),
                    self.state_dir.clone().into_os_string(),
                ]);
            }
        }
        for p in &job.read {
            if !reaches(p, &self.state_dir) {
                let _ = b.bind(a, p, p, false, true);
            }
        }
        for (src, at) in &job.bind_over {
            if b.bind(a, src, at, false, false).is_err() {
                // A file the server made that is not there as a file: the path stays read-only
                // and empty rather than shown as it is.
                a.extend(["--ro-bind".into(), "/dev/null".into(), at.into()]);
            }
        }
        for p in &job.writable {
            // A git directory named writable was bound so above, with its hooks and config
            // still read-only on top.
            if !p.ends_with(".git") {
                let _ = b.bind(a, p, p, true, true);
            }
        }
        if job.ssh_agent {
            if let Some(sock) = std::env::var_os("SSH_AUTH_SOCK").filter(|s| !s.is_empty()) {
                a.extend(["--bind-try".into(), sock.clone(), sock]);
            }
        } else {
            a.extend(["--unsetenv".into(), "SSH_AUTH_SOCK".into()]);
        }
        a.extend([
            "--setenv".into(),
            "HOME".into(),
            home.into_os_string(),
            "--setenv".into(),
            "TMPDIR".into(),
            "/tmp".into(),
        ]);
        for (k, v) in &job.env {
            a.extend(["--setenv".into(), k.into(), v.into()]);
        }
        if let Some(l) = &job.label {
            a.extend(["--setenv".into(), "TW_JOB".into(), l.into()]);
        }
    }
}

/// Where the workspaces' caches and the generated `.gitconfig` live, under HOME.
pub(super) const CACHE_ROOT: &str = ".cache/tradewind/jail";

/// The workspace's writable cache (`~/.cache/tradewind/jail/<hash of the workspace>`), created
/// when missing.
pub(super) fn workspace_cache(root: &Path, ws: &Path) -> Option<PathBuf> {
    let h = crate::util::sha256_hex(ws.as_os_str().as_encoded_bytes());
    let dir = root.join(&h[..16]);
    if !dir.is_dir() {
        std::fs::create_dir_all(&dir).ok()?;
    }
    Some(dir)
}

/// How many hidden paths one command's card names, at most.
pub const MAX_HIDDEN_SHOWN: usize = 4;

/// Absolute paths (and `~/…` ones, under `home`) that `text` names, in order, each once: what
/// error messages quote (`cat: /x: No such file…`, `open '/x'`, `[Errno 2] …: '/x'`). Only the
/// first 64 KiB are read, and at most 32 paths kept.
fn named_paths(text: &str, home: Option<&Path>) -> Vec<PathBuf> {
    let mut end = text.len().min(64 * 1024);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out: Vec<PathBuf> = Vec::new();
    let delimiter = |c: char| c.is_whitespace() || "'\"`,;:()[]{}<>=|".contains(c);
    for word in text[..end].split(delimiter) {
        let word = word.trim_end_matches(['.', '!', '?']);
        let path = match (word.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) if !rest.is_empty() => h.join(rest),
            _ if word.len() > 1 && word.starts_with('/') => PathBuf::from(word),
            _ => continue,
        };
        if !out.contains(&path) {
            out.push(path);
            if out.len() == 32 {
                break;
            }
        }
    }
    out
}

/// Bind a root read-write (or read-only): by path where no other tree holds it, else by a
/// descriptor opened beneath that tree (a root inside another root that was swapped for a link
/// is not bound at all, so commands fail in it rather than see what the link names).
fn bind_root(a: &mut Vec<OsString>, b: &mut Binder, r: &Path, read_only: bool) {
    if b.bind(a, r, r, !read_only, false).is_err() {
        a.extend(["--tmpfs".into(), r.into(), "--remount-ro".into(), r.into()]);
    }
}

/// Mount read-only, over the roots bound read-write, what programs outside the jail run later:
/// every git directory under a root as a whole — a `.git` folder, the folder a `.git` file
/// names and its `commondir` when they lie in a root — unless the job's approval names it
/// writable (an approved git command), in which case its hooks, config, info and the other
/// entries of [`list::READ_ONLY_IN_ROOTS`] stay read-only on top, with an empty read-only
/// folder where a hooks or info folder is missing; every program file (`.envrc`, Claude
/// Code's and VS Code's); and the folder `core.hooksPath` names when it lies in a root. Each is
/// opened beneath its root without following links and bound by descriptor; a link is never
/// bound (its target could be anything on the host), and a special file gets an empty read-only
/// file over it. (What a command creates is found when it ends: see [`super::guard`].)
fn protect_roots(
    a: &mut Vec<OsString>,
    b: &mut Binder,
    roots: &[PathBuf],
    job: &Job,
    seen: &super::guard::Snapshot,
) {
    let in_roots = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    let mut git_dirs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for dot in seen.git_entries() {
        let Some(base) = dot.parent() else { continue };
        match b.open(dot) {
            Some(Found::Open { dir: true, .. }) => {
                git_dirs.push((dot.to_path_buf(), base.to_path_buf()));
            }
            Some(Found::Open { dir: false, .. }) => {
                // A worktree or submodule: `gitdir: PATH`, relative to the work tree.
                let target = b.read(dot).and_then(|t| {
                    t.lines()
                        .find_map(|l| l.strip_prefix("gitdir:"))
                        .map(|g| crate::policy::paths::normalize(&base.join(g.trim())))
                });
                if let Some(t) = target.filter(|t| in_roots(t)) {
                    git_dirs.push((t, base.to_path_buf()));
                }
                // The `.git` file itself: changing it redirects the repository.
                let _ = b.bind(a, dot, dot, false, false);
            }
            _ => {}
        }
    }
    // Each git directory's `commondir` (the shared one of a worktree) counts too.
    let mut common = Vec::new();
    for (g, base) in &git_dirs {
        if let Some(c) = b.read(&g.join("commondir")) {
            let c = crate::policy::paths::normalize(&g.join(c.trim()));
            if in_roots(&c) && !git_dirs.iter().any(|(x, _)| x == &c) {
                common.push((c, base.clone()));
            }
        }
    }
    git_dirs.extend(common);
    let mut opened = false;
    for (g, base) in &git_dirs {
        let write = job.writable.iter().any(|w| w == g);
        if b.bind(a, g, g, write, false).is_err() {
            continue;
        }
        if write {
            opened = true;
            protect_inside(a, b, g, base);
        }
        if let Some(hooks) = hooks_path(b, g, base).filter(|h| in_roots(h) && !h.starts_with(g)) {
            let _ = b.bind(a, &hooks, &hooks, false, false);
        }
    }
    if opened {
        pin_git_programs(a);
    }
    for f in seen.program_files_found() {
        if let Err(Found::Special) = b.bind(a, f, f, false, false) {
            a.extend(["--ro-bind".into(), "/dev/null".into(), f.into()]);
        }
    }
}

/// A worktree session's share of its repository's git directory: the shared `.git` writable as a
/// folder (git rewrites `packed-refs` and the refs by renaming a `.lock` beside them, which a
/// bind of the file itself would refuse), with read-only on top what records no work on the
/// session's branch: the hooks, config and the other entries of [`list::READ_ONLY_IN_ROOTS`],
/// the other worktrees' state, this worktree's `commondir` and `gitdir` (which redirect it),
/// and the main checkout's `HEAD` and index. A rename onto one of these fails, so they stay as
/// they are; a `commondir` made there is held when the command ends (`guard`). Git's programs
/// are pinned as for an approved git command. Without `own` (the
/// server's own `git worktree add`/`remove`): the shared directory with only its hooks, config
/// and info read-only.
fn lend_git(a: &mut Vec<OsString>, b: &mut Binder, common: &Path, own: Option<&Path>) {
    if b.bind(a, common, common, true, false).is_err() {
        return;
    }
    protect_inside(a, b, common, common);
    let mut read_only: Vec<PathBuf> = Vec::new();
    if let Some(own) = own {
        read_only.extend(
            ["HEAD", "index", "ORIG_HEAD", "FETCH_HEAD", "shallow"].map(|f| common.join(f)),
        );
        if let Ok(rd) = std::fs::read_dir(common.join("worktrees")) {
            read_only.extend(
                rd.flatten()
                    .take(500)
                    .map(|e| e.path())
                    .filter(|p| p != own),
            );
        }
        read_only.extend(["commondir", "gitdir"].map(|f| own.join(f)));
    }
    for p in read_only {
        match b.bind(a, &p, &p, false, false) {
            Ok(()) | Err(Found::Missing | Found::Link) => {}
            Err(Found::Special | Found::Open { .. }) => {
                a.extend(["--ro-bind".into(), "/dev/null".into(), p.into_os_string()]);
            }
        }
    }
    // Submodules' git directories hold config git runs from the main checkout: none may be
    // made or changed (an empty read-only folder where there is none).
    if own.is_some() {
        let modules = common.join("modules");
        match b.bind(a, &modules, &modules, false, false) {
            Ok(()) | Err(Found::Link) => {}
            Err(Found::Missing) => a.extend([
                "--tmpfs".into(),
                modules.clone().into_os_string(),
                "--remount-ro".into(),
                modules.into_os_string(),
            ]),
            Err(Found::Special | Found::Open { .. }) => {
                a.extend([
                    "--ro-bind".into(),
                    "/dev/null".into(),
                    modules.into_os_string(),
                ]);
            }
        }
    }
    pin_git_programs(a);
}

/// Settings that make git run a program, pinned for a command whose approval opened a git
/// directory (through `GIT_CONFIG_COUNT`, which outranks every config file): no hooks, no
/// file-system monitor, plain `ssh`, no credential helper, no pager or editor of the repository's.
const GIT_PINNED: &[(&str, &str)] = &[
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("core.sshCommand", "ssh"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("gpg.program", "gpg"),
    ("protocol.ext.allow", "never"),
];

fn pin_git_programs(a: &mut Vec<OsString>) {
    a.extend([
        "--setenv".into(),
        "GIT_CONFIG_COUNT".into(),
        GIT_PINNED.len().to_string().into(),
    ]);
    for (i, (k, v)) in GIT_PINNED.iter().enumerate() {
        a.extend([
            "--setenv".into(),
            format!("GIT_CONFIG_KEY_{i}").into(),
            (*k).into(),
            "--setenv".into(),
            format!("GIT_CONFIG_VALUE_{i}").into(),
            (*v).into(),
        ]);
    }
}

/// Inside a git directory `g` made writable for one approved command: its hooks, config, info
/// and the other git entries of [`list::READ_ONLY_IN_ROOTS`] stay read-only (an empty read-only
/// folder where a hooks or info folder is missing).
fn protect_inside(a: &mut Vec<OsString>, b: &mut Binder, g: &Path, base: &Path) {
    for pat in list::READ_ONLY_IN_ROOTS {
        let Some(inside) = pat.strip_prefix(".git/") else {
            continue;
        };
        for p in expand(g, inside) {
            match b.bind(a, &p, &p, false, false) {
                Ok(()) | Err(Found::Link) => {}
                Err(Found::Special | Found::Open { .. }) => {
                    a.extend(["--ro-bind".into(), "/dev/null".into(), p.into_os_string()]);
                }
                Err(Found::Missing) => {
                    if list::READ_ONLY_FOLDERS.contains(pat) && !pat.contains('*') {
                        a.extend([
                            "--tmpfs".into(),
                            p.clone().into_os_string(),
                            "--remount-ro".into(),
                            p.into_os_string(),
                        ]);
                    }
                }
            }
        }
    }
    let _ = base;
}

/// The existing paths `pat` (relative, `*` = one component) names under `base`; a pattern
/// without `*` names its one path whether or not it exists.
fn expand(base: &Path, pat: &str) -> Vec<PathBuf> {
    let mut found = vec![base.to_path_buf()];
    for comp in pat.split('/') {
        let mut next = Vec::new();
        for dir in &found {
            if comp == "*" {
                if let Ok(rd) = std::fs::read_dir(dir) {
                    next.extend(rd.flatten().take(500).map(|e| e.path()));
                }
            } else {
                next.push(dir.join(comp));
            }
        }
        found = next;
    }
    found
}

/// `core.hooksPath` of a repository's config (a plain reading of the `[core]` section; an
/// include is not followed), resolved against the work tree. The config is read through a
/// descriptor opened beneath its tree (a `config` that is a link is not read).
fn hooks_path(b: &Binder, git_dir: &Path, work_tree: &Path) -> Option<PathBuf> {
    let text = b.read(&git_dir.join("config"))?;
    let entries = super::gitconfig::parse(&text);
    let v = entries
        .iter()
        .rev()
        .find(|(k, _)| k == "core.hookspath")
        .map(|(_, v)| v.clone())?;
    let p = PathBuf::from(v);
    Some(crate::policy::paths::normalize(&if p.is_absolute() {
        p
    } else {
        work_tree.join(p)
    }))
}

/// Does `p` hold the state directory or lie in it?
pub(super) fn reaches(p: &Path, state_dir: &Path) -> bool {
    p.starts_with(state_dir) || state_dir.starts_with(p)
}

/// Files and folders under `dir` that only their owner may read (a bounded walk).
pub(super) fn owner_only(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) {
    use std::os::unix::fs::PermissionsExt;
    let mut stack = vec![(dir.to_path_buf(), 0u8)];
    let mut seen = 0usize;
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            seen += 1;
            if seen > 20_000 {
                return;
            }
            let Ok(m) = e.metadata() else { continue };
            let mode = m.permissions().mode();
            if m.is_dir() {
                if mode & 0o005 != 0o005 {
                    dirs.push(e.path());
                } else if depth < 8 {
                    stack.push((e.path(), depth + 1));
                }
            } else if m.is_file() && mode & 0o004 == 0 {
                files.push(e.path());
            }
        }
    }
}

/// The user's git `user.name` and `user.email` (their global config, plain reading).
pub fn user_identity(home: &Path) -> (Option<String>, Option<String>) {
    let mut name = None;
    let mut email = None;
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".config"));
    for f in [xdg.join("git/config"), home.join(".gitconfig")] {
        if let Ok(text) = std::fs::read_to_string(&f) {
            for (k, v) in super::gitconfig::parse(&text) {
                match k.as_str() {
                    "user.name" => name = Some(v),
                    "user.email" => email = Some(v),
                    _ => {}
                }
            }
        }
    }
    (name, email)
}

/// The generated `~/.gitconfig`: the user's `user.name` and `user.email`, nothing else.
pub(super) fn write_gitconfig(root: &Path, home: &Path) -> std::io::Result<PathBuf> {
    let (name, email) = user_identity(home);
    let mut out = String::from("# Made by Tradewind for its jail: your name and email only.\n");
    if name.is_some() || email.is_some() {
        out.push_str("[user]\n");
        for (k, v) in [("name", name), ("email", email)] {
            if let Some(v) = v {
                out.push_str(&format!("\t{k} = {}\n", super::gitconfig::quote(&v)));
            }
        }
    }
    std::fs::create_dir_all(root)?;
    let path = root.join("gitconfig");
    crate::util::write_replace(&path, out.as_bytes())?;
    Ok(path)
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    /// The paths error messages quote, as `cat`, Python and Node print them, each once, and
    /// `~/` read under HOME; nothing else is taken for a path.
    #[test]
    fn error_messages_name_their_paths() {
        let text = "cat: /h/.config/a.toml: No such file or directory\n\
                    FileNotFoundError: [Errno 2] No such file or directory: '/h/b'\n\
                    Error: ENOENT: no such file or directory, open \"/h/c.json\"\n\
                    cannot read ~/d/e. Try again; see /h/.config/a.toml\n\
                    ratio 1/2 and a lone / stay words";
        let got = named_paths(text, Some(Path::new("/h")));
        let want: Vec<PathBuf> = ["/h/.config/a.toml", "/h/b", "/h/c.json", "/h/d/e"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(got, want);
        assert!(named_paths("~/x", None).is_empty());
        // A long output is read up to its first 64 KiB, on a character boundary.
        let long = format!("{}é /late", "x".repeat(64 * 1024 - 1));
        assert!(named_paths(&long, None).is_empty());
    }

    #[test]
    fn patterns_expand_over_existing_components() {
        let base = std::env::temp_dir().join(format!("tw-jail-{}", crate::util::new_id()));
        std::fs::create_dir_all(base.join(".git/modules/a/hooks")).unwrap();
        std::fs::create_dir_all(base.join(".git/modules/b")).unwrap();
        let got = expand(&base, ".git/modules/*/hooks");
        assert!(got.contains(&base.join(".git/modules/a/hooks")));
        assert!(got.contains(&base.join(".git/modules/b/hooks")));
        assert_eq!(expand(&base, ".envrc"), vec![base.join(".envrc")]);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
