//! Path policy for mediated file operations: resolve a model-supplied path against the
//! workspace and the extra roots, compare by component after canonicalisation (a sibling
//! `proj-evil` is outside `proj`), resolve the parent of a not-yet-existing path, refuse symlinks
//! below a root, and apply the hard deny list (never askable) to both the written and the
//! resolved path.

use std::path::{Component, Path, PathBuf};

/// Longest path accepted from a model.
pub const MAX_PATH_BYTES: usize = 4096;

/// Directory names that are never readable or writable, anywhere (compared case-insensitively).
use crate::lists::HARD_DENY_DIRS as DENIED_DIRS;
use crate::lists::{HARD_DENY_EXTS as DENIED_EXTS, HARD_DENY_NAMES as DENIED_NAMES};

#[derive(Debug, Clone)]
pub struct PathPolicy {
    /// Canonical workspace.
    pub workspace: PathBuf,
    /// Canonical extra roots (`--add-dir`, `additionalDirectories`).
    pub extra_roots: Vec<PathBuf>,
    /// Canonical state directory (hard-denied).
    pub state_dir: PathBuf,
    pub home: Option<PathBuf>,
    /// A worktree session's share of its repository's git directory (outside its roots): what
    /// its commands may write there to record work on its own branch.
    pub lent_git: Option<LentGit>,
}

/// The git directory a worktree session's commands write: the repository's shared one
/// (`common`, the main checkout's `.git`: objects, refs, logs, packed-refs) and the worktree's
/// own state in it (`own`, `common/worktrees/<slug>`). Its hooks, config, info, other
/// worktrees' state and the main checkout's `HEAD` and index stay read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LentGit {
    pub common: PathBuf,
    pub own: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Hard links of an existing regular file; 1 otherwise.
    pub links: u64,
    /// The real path (existing part canonicalised, the rest appended).
    pub path: PathBuf,
    /// Inside the workspace or an extra root.
    pub inside: bool,
    /// The directory an outside-path approval covers (the containing directory).
    pub directory: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("invalid path: {0}")]
    Invalid(String),
    #[error("`{0}` is a symbolic link; file tools do not follow links")]
    Symlink(String),
    #[error("access to {path} is never allowed ({why})")]
    HardDenied { path: String, why: &'static str },
}

impl PathError {
    pub fn code(&self) -> &'static str {
        match self {
            PathError::Invalid(_) => "invalid_path",
            PathError::Symlink(_) => "symlink_rejected",
            PathError::HardDenied { .. } => "path_denied",
        }
    }
}

/// Lexical normalisation: drop `.`, apply `..` (never above the root).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
                if out.as_os_str().is_empty() {
                    out.push("/");
                }
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

impl PathPolicy {
    pub fn new(workspace: &Path, extra_roots: &[PathBuf], state_dir: &Path) -> PathPolicy {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| normalize(p));
        PathPolicy {
            workspace: canon(workspace),
            extra_roots: extra_roots.iter().map(|r| canon(r)).collect(),
            state_dir: canon(state_dir),
            home: std::env::var_os("HOME").map(PathBuf::from),
            lent_git: None,
        }
    }

    /// The same policy for another workspace (sessions may point elsewhere).
    pub fn with_workspace(&self, workspace: &Path) -> PathPolicy {
        PathPolicy {
            workspace: std::fs::canonicalize(workspace).unwrap_or_else(|_| normalize(workspace)),
            lent_git: None,
            ..self.clone()
        }
    }

    /// A worktree session's policy: its worktree as the workspace, and the git directory it
    /// records its work in lent to its commands.
    pub fn with_worktree(&self, workspace: &Path, lent: LentGit) -> PathPolicy {
        PathPolicy {
            lent_git: Some(lent),
            ..self.with_workspace(workspace)
        }
    }

    fn roots(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.workspace).chain(self.extra_roots.iter())
    }

    pub fn is_inside(&self, p: &Path) -> bool {
        self.roots().any(|r| p.starts_with(r))
    }

    /// The absolute, lexically normalised form of what the model wrote.
    pub fn lexical(&self, raw: &str) -> Result<PathBuf, PathError> {
        if raw.is_empty() {
            return Err(PathError::Invalid("the path is empty".into()));
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(PathError::Invalid(format!(
                "the path is longer than {MAX_PATH_BYTES} bytes"
            )));
        }
        if raw.contains('\0') {
            return Err(PathError::Invalid("the path contains a NUL byte".into()));
        }
        let expanded = match (&self.home, raw) {
            (Some(h), "~") | (Some(h), "$HOME") => h.clone(),
            (Some(h), r) if r.starts_with("~/") => h.join(&r[2..]),
            (Some(h), r) if r.starts_with("$HOME/") => h.join(&r[6..]),
            _ => PathBuf::from(raw),
        };
        let abs = if expanded.is_absolute() {
            expanded
        } else {
            self.workspace.join(expanded)
        };
        Ok(normalize(&abs))
    }

    /// Resolve a model-supplied path. Hard-denied paths and symlinks are errors; an outside path
    /// is `inside: false` (the gate asks or denies).
    pub fn resolve(&self, raw: &str) -> Result<Resolved, PathError> {
        let lexical = self.lexical(raw)?;
        self.check_denied(&lexical)?;
        let real = match self.roots().find(|r| lexical.starts_with(r)) {
            Some(root) => {
                // Below a root: walk each component and refuse links.
                let rest = lexical.strip_prefix(root).unwrap_or(Path::new(""));
                let mut cur = root.clone();
                let mut missing = false;
                for c in rest.components() {
                    cur.push(c.as_os_str());
                    if missing {
                        continue;
                    }
                    match std::fs::symlink_metadata(&cur) {
                        Ok(m) if m.file_type().is_symlink() => {
                            return Err(PathError::Symlink(cur.to_string_lossy().into_owned()));
                        }
                        Ok(_) => {}
                        Err(_) => missing = true,
                    }
                }
                cur
            }
            None => real_path(&lexical)?,
        };
        self.check_denied(&real)?;
        let inside = self.is_inside(&real);
        let directory = if real.is_dir() {
            real.clone()
        } else {
            real.parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("/"))
        };
        let links = std::fs::symlink_metadata(&real)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map_or(1, |m| std::os::unix::fs::MetadataExt::nlink(&m));
        Ok(Resolved {
            links,
            path: real,
            inside,
            directory,
        })
    }

    /// The directory a file tool opens `r` from: the root it lies in, or (outside every root,
    /// approved) the nearest existing ancestor of its directory.
    pub fn anchor(&self, r: &Resolved) -> PathBuf {
        if let Some(root) = self.roots().find(|root| r.path.starts_with(root)) {
            return root.clone();
        }
        r.directory
            .ancestors()
            .find(|a| a.is_dir())
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
    }

    /// The paths a command writes to or works in outside its working directory (taken out of
    /// `a`, see `CommandAnalysis::take_outside_paths`), resolved from `cwd`: inside a root they
    /// ask nothing more than the command's effect; outside, the gate's directory rule applies.
    /// A path that resolves to a hard-denied place joins `a.hard_denied`.
    pub fn command_paths(
        &self,
        a: &mut crate::command::CommandAnalysis,
        cwd: &Path,
    ) -> Vec<crate::PathUse> {
        let root = self.roots().find(|r| cwd.starts_with(r)).cloned();
        a.settle_local_bins(|bin| {
            let Some(root) = &root else { return false };
            let rel = Path::new(bin);
            cwd.ancestors()
                .take_while(|d| d.starts_with(root))
                .any(|d| {
                    let p = normalize(&d.join(rel));
                    p.starts_with(root) && std::fs::metadata(&p).is_ok_and(|m| m.is_file())
                })
        });
        let mut uses = Vec::new();
        for raw in a.take_outside_paths() {
            let joined = if raw.starts_with('/') || raw.starts_with('~') {
                raw.clone()
            } else {
                cwd.join(&raw).to_string_lossy().into_owned()
            };
            match self.resolve(&joined) {
                Ok(r) => uses.push(crate::PathUse {
                    links: r.links,
                    path: r.path,
                    inside: r.inside,
                    directory: r.directory,
                }),
                Err(PathError::HardDenied { .. }) => {
                    a.hard_denied.push(crate::command::visible(&raw))
                }
                Err(_) => {
                    // A link or an odd path: judge it where it is written, without following.
                    if let Ok(l) = self.lexical(&joined) {
                        let directory = l
                            .parent()
                            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
                        uses.push(crate::PathUse {
                            links: 1,
                            inside: self.is_inside(&l),
                            path: l,
                            directory,
                        });
                    }
                }
            }
        }
        uses
    }

    /// The hard deny list: sensitive directories, private keys and certificates by name, and
    /// Tradewind's own state directory.
    pub fn check_denied(&self, p: &Path) -> Result<(), PathError> {
        if let Some(why) = self.denied_reason(p) {
            return Err(PathError::HardDenied {
                path: p.to_string_lossy().into_owned(),
                why,
            });
        }
        Ok(())
    }

    pub fn denied_reason(&self, p: &Path) -> Option<&'static str> {
        if p.starts_with(&self.state_dir) || eq_ci_prefix(p, &self.state_dir) {
            return Some("Tradewind's own state directory");
        }
        // Process and device pseudo-files: /proc/self/environ holds the server's secrets.
        if ["/proc", "/sys", "/dev"].iter().any(|d| p.starts_with(d)) {
            return Some("system pseudo-files");
        }
        for c in p.components() {
            if let Component::Normal(n) = c {
                let n = n.to_string_lossy().to_ascii_lowercase();
                if DENIED_DIRS.contains(&n.as_str()) {
                    return Some("credentials directory");
                }
            }
        }
        if crate::lists::credential_location(&p.to_string_lossy().to_ascii_lowercase()) {
            return Some("credentials file");
        }
        let name = p.file_name()?.to_string_lossy().to_ascii_lowercase();
        if DENIED_NAMES.contains(&name.as_str()) {
            return Some("private key");
        }
        if let Some((_, ext)) = name.rsplit_once('.')
            && DENIED_EXTS.contains(&ext)
        {
            return Some("private key or certificate");
        }
        None
    }
}

/// Case-insensitive component prefix test (for case-insensitive filesystems).
fn eq_ci_prefix(p: &Path, prefix: &Path) -> bool {
    let mut pc = p.components();
    for want in prefix.components() {
        match pc.next() {
            Some(got)
                if got
                    .as_os_str()
                    .to_string_lossy()
                    .eq_ignore_ascii_case(&want.as_os_str().to_string_lossy()) => {}
            _ => return false,
        }
    }
    true
}

/// Canonicalise the deepest existing ancestor and append the rest (a dangling link is refused).
fn real_path(lexical: &Path) -> Result<PathBuf, PathError> {
    let mut existing = lexical.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        match std::fs::symlink_metadata(&existing) {
            Ok(_) => break,
            Err(_) => match (
                existing.file_name().map(|n| n.to_os_string()),
                existing.parent(),
            ) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => break,
            },
        }
    }
    let mut real = std::fs::canonicalize(&existing)
        .map_err(|_| PathError::Symlink(existing.to_string_lossy().into_owned()))?;
    for n in rest.into_iter().rev() {
        real.push(n);
    }
    Ok(real)
}

/// File content that must never be shown: PEM private keys and certificates.
pub fn content_denied(bytes: &[u8]) -> Option<&'static str> {
    const MARK: &[u8] = b"-----BEGIN ";
    let mut i = 0;
    while let Some(pos) = find(&bytes[i..], MARK) {
        let start = i + pos + MARK.len();
        let end = (start + 64).min(bytes.len());
        let label = String::from_utf8_lossy(&bytes[start..end]).to_ascii_uppercase();
        if label.contains("PRIVATE KEY")
            || label.starts_with("CERTIFICATE")
            || label.contains("PGP PRIVATE")
        {
            return Some("the file contains a private key or certificate");
        }
        i = start;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempdir::Dir, PathPolicy) {
        let d = tempdir::Dir::new();
        let ws = d.0.join("proj");
        std::fs::create_dir_all(ws.join("src")).ok();
        std::fs::create_dir_all(d.0.join("proj-evil")).ok();
        std::fs::create_dir_all(d.0.join("state")).ok();
        std::fs::write(d.0.join("proj-evil/s"), "secret").ok();
        let p = PathPolicy::new(&ws, &[], &d.0.join("state"));
        (d, p)
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let p = std::env::temp_dir().join(format!("tw-paths-{}", ulid::Ulid::generate()));
                std::fs::create_dir_all(&p).ok();
                Dir(std::fs::canonicalize(&p).unwrap_or(p))
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                std::fs::remove_dir_all(&self.0).ok();
            }
        }
    }

    #[test]
    fn inside_and_sibling_prefix() {
        let (_d, p) = setup();
        assert!(p.resolve("src/new.rs").map(|r| r.inside).unwrap_or(false));
        let sib = p.resolve("../proj-evil/s").map(|r| r.inside);
        assert_eq!(sib, Ok(false));
        let abs = p
            .workspace
            .parent()
            .map(|x| x.join("proj/../proj-evil/s"))
            .unwrap_or_default();
        assert_eq!(
            p.resolve(&abs.to_string_lossy()).map(|r| r.inside),
            Ok(false)
        );
        assert_eq!(p.resolve("/etc/passwd").map(|r| r.inside), Ok(false));
    }

    #[test]
    fn invalid_inputs() {
        let (_d, p) = setup();
        assert!(matches!(p.resolve(""), Err(PathError::Invalid(_))));
        assert!(matches!(p.resolve("a\0b"), Err(PathError::Invalid(_))));
        assert!(matches!(
            p.resolve(&"a/".repeat(40_000)),
            Err(PathError::Invalid(_))
        ));
    }

    #[test]
    fn symlinks_below_root_are_refused() {
        let (d, p) = setup();
        std::os::unix::fs::symlink(d.0.join("proj-evil"), p.workspace.join("l")).ok();
        std::os::unix::fs::symlink(d.0.join("nowhere"), p.workspace.join("n")).ok();
        assert!(matches!(p.resolve("l/s"), Err(PathError::Symlink(_))));
        assert!(matches!(p.resolve("n"), Err(PathError::Symlink(_))));
        assert!(matches!(
            p.resolve("l/new/deeper.txt"),
            Err(PathError::Symlink(_))
        ));
    }

    #[test]
    fn deny_list() {
        let (d, p) = setup();
        for bad in [
            "~/.ssh/id_rsa",
            "~/.SSH/ID_RSA",
            "~/.ssh/./id_rsa",
            "$HOME/.aws/credentials",
            "~/.gnupg/x",
            "server.pem",
            "id_ed25519",
            "keys/prod.KEY",
        ] {
            assert!(
                matches!(p.resolve(bad), Err(PathError::HardDenied { .. })),
                "{bad}"
            );
        }
        let state = d.0.join("state/tradewind.db");
        assert!(matches!(
            p.resolve(&state.to_string_lossy()),
            Err(PathError::HardDenied { .. })
        ));
        assert!(p.resolve("id_rsa.pub").is_ok());
        assert!(content_denied(b"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc").is_some());
        assert!(content_denied(b"-----BEGIN CERTIFICATE-----").is_some());
        assert!(content_denied(b"-----BEGIN PUBLIC KEY-----").is_none());
    }
}
