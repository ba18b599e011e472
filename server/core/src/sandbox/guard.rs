//! What programs outside the jail run without asking, found in the roots before and after a
//! jailed command: every git directory (`.git` folders, `.git` files and the folders they name,
//! `commondir`), and the files other local programs run — direnv's `.envrc`, Claude Code's
//! `.claude/settings.json` and `.claude/settings.local.json`, VS Code's `.vscode/tasks.json`.
//!
//! The jail keeps those that exist read-only (see `jail.rs`); what a command *creates* — `git
//! init` in a subfolder, a `.git` file pointing elsewhere, a new `.envrc` — is found when the
//! command ends ([`Snapshot::new_since`]) and held ([`hold`]: renamed aside in place, where no
//! program looks for it) before anything outside the jail can read it; the user is asked
//! whether to keep it, and only then is it put back ([`release`]).
use std::path::{Path, PathBuf};

use tradewind_policy::jail::PROGRAM_FILES;

/// Folders the walk does not enter: dependencies and build output hold no repository of the
/// user's own, and are where a walk would spend its time.
const SKIPPED: &[&str] = &[
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    "dist",
    "build",
    ".tox",
    ".mypy_cache",
    ".gradle",
];

/// How deep, and through how many folders, the walk looks.
const MAX_DEPTH: usize = 8;
const MAX_DIRS: usize = 20_000;

/// One thing outside programs run, as found.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Found {
    pub path: PathBuf,
    /// What it is, for the user: "a git repository", "a git link (`.git` file)", …
    pub what: String,
}

/// The things outside programs run that the roots hold at one moment (with the text of each
/// `.git` file and `commondir`, so a changed redirection counts as new).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    items: std::collections::BTreeMap<PathBuf, (String, String)>,
    /// The walk stopped at its bound: what lies further was not seen.
    pub partial: bool,
}

impl Snapshot {
    /// Look through `roots` (a bounded walk that follows no link).
    pub fn take(roots: &[PathBuf]) -> Snapshot {
        let mut s = Snapshot::default();
        let mut dirs = 0usize;
        for root in roots {
            let mut stack = vec![(root.clone(), 0usize)];
            while let Some((dir, depth)) = stack.pop() {
                dirs += 1;
                if dirs > MAX_DIRS {
                    s.partial = true;
                    return s;
                }
                let Ok(rd) = std::fs::read_dir(&dir) else {
                    continue;
                };
                // Program files are looked up only where the listing names their first
                // component (no lookups in the many folders without one).
                let mut program_here = false;
                for e in rd.flatten() {
                    let name = e.file_name();
                    let Ok(t) = e.file_type() else { continue };
                    if name == ".git" {
                        s.git_entry(&e.path(), t);
                        continue;
                    }
                    program_here |= PROGRAM_FILES
                        .iter()
                        .any(|(rel, _)| rel.split('/').next().is_some_and(|first| name == first));
                    if t.is_dir() && !SKIPPED.iter().any(|n| name == *n) {
                        if depth < MAX_DEPTH {
                            stack.push((e.path(), depth + 1));
                        } else {
                            s.partial = true;
                        }
                    }
                }
                if program_here {
                    s.program_files(&dir);
                }
            }
        }
        s
    }

    fn program_files(&mut self, dir: &Path) {
        for (rel, program) in PROGRAM_FILES {
            let p = dir.join(rel);
            // Only through real folders: a `.claude` that is a link to the user's own folder is
            // not this root's to hold (and the jail never bound through it).
            if p.parent().is_some_and(|f| {
                f != dir && !std::fs::symlink_metadata(f).is_ok_and(|m| m.file_type().is_dir())
            }) {
                continue;
            }
            if let Ok(m) = std::fs::symlink_metadata(&p) {
                let kind = if m.file_type().is_symlink() {
                    "link"
                } else {
                    "file"
                };
                self.items.insert(
                    p,
                    (
                        format!("a program file — {program}"),
                        format!("{kind}:{}", m.len()),
                    ),
                );
            }
        }
    }

    fn git_entry(&mut self, p: &Path, t: std::fs::FileType) {
        if t.is_dir() {
            let common = small_text(&p.join("commondir")).unwrap_or_default();
            self.items.insert(
                p.to_path_buf(),
                ("a git repository".into(), format!("dir:{common}")),
            );
        } else if t.is_file() {
            let text = small_text(p).unwrap_or_default();
            self.worktree_common(p, &text);
            self.items.insert(
                p.to_path_buf(),
                (
                    "a git link (a `.git` file naming another git directory)".into(),
                    format!("file:{text}"),
                ),
            );
        } else {
            self.items.insert(
                p.to_path_buf(),
                ("a link named `.git`".into(), "link".into()),
            );
        }
    }

    /// A worktree (`.git` file naming `<common>/worktrees/<name>`) whose commands may write its
    /// repository's shared git directory (a worktree session's): a `commondir` there would
    /// redirect the main checkout's repository, so it is looked at like the rest.
    fn worktree_common(&mut self, dot: &Path, text: &str) {
        let Some(base) = dot.parent() else { return };
        let Some(target) = text
            .lines()
            .find_map(|l| l.strip_prefix("gitdir:"))
            .map(|g| crate::policy::paths::normalize(&base.join(g.trim())))
        else {
            return;
        };
        let Some(common) = target
            .parent()
            .filter(|w| w.file_name().is_some_and(|n| n == "worktrees"))
            .and_then(Path::parent)
        else {
            return;
        };
        let redirect = common.join("commondir");
        if let Some(t) = small_text(&redirect) {
            self.items.insert(
                redirect,
                (
                    "a git redirection (a `commondir` in the repository's own git directory)"
                        .into(),
                    format!("file:{t}"),
                ),
            );
        }
    }

    /// What is here now that `before` did not hold, or held otherwise (a `.git` swapped for a
    /// file, a new `commondir`, a `.git` file naming another directory).
    pub fn new_since(&self, before: &Snapshot) -> Vec<Found> {
        self.items
            .iter()
            .filter(|(p, v)| before.items.get(*p) != Some(*v))
            .map(|(p, (what, kind))| {
                let was_dir = before
                    .items
                    .get(p)
                    .is_some_and(|(_, k)| k.starts_with("dir:"));
                if was_dir && kind.starts_with("dir:") {
                    // The repository was there: only its new `commondir` is held.
                    Found {
                        path: p.join("commondir"),
                        what: "a git redirection (`commondir` naming another git directory)".into(),
                    }
                } else {
                    Found {
                        path: p.clone(),
                        what: what.clone(),
                    }
                }
            })
            .collect()
    }

    /// The `.git` entries found (folders and files), each once.
    pub fn git_entries(&self) -> impl Iterator<Item = &Path> {
        self.items
            .iter()
            .filter(|(p, (_, k))| p.ends_with(".git") && !k.starts_with("link"))
            .map(|(p, _)| p.as_path())
    }

    /// The program files found (`.envrc` and the like).
    pub fn program_files_found(&self) -> impl Iterator<Item = &Path> {
        self.items
            .iter()
            .filter(|(p, _)| !p.ends_with(".git"))
            .map(|(p, _)| p.as_path())
    }

    /// Nothing found.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A small file's text (a `.git` file, `commondir`), never through a link.
fn small_text(p: &Path) -> Option<String> {
    use std::io::Read;
    let m = std::fs::symlink_metadata(p).ok()?;
    if !m.is_file() {
        return (m.file_type().is_symlink()).then(|| "link".to_string());
    }
    let mut text = String::new();
    std::fs::File::open(p)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// [`Snapshot::take`] off the async threads.
pub async fn look(roots: &[PathBuf]) -> Snapshot {
    let roots = roots.to_vec();
    tokio::task::spawn_blocking(move || Snapshot::take(&roots))
        .await
        .unwrap_or_default()
}

/// The suffix a held entry carries while the user decides.
pub const HELD_SUFFIX: &str = ".tradewind-held";

/// Where `path` is held: beside it, under a name no program looks for.
pub fn held_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(HELD_SUFFIX);
    path.with_file_name(name)
}

/// Move `path` aside (a rename in its own folder: atomic, the same file system). A path already
/// held there is replaced.
pub fn hold(path: &Path) -> std::io::Result<PathBuf> {
    let to = held_path(path);
    if std::fs::symlink_metadata(&to).is_ok() {
        remove(&to)?;
    }
    std::fs::rename(path, &to)?;
    Ok(to)
}

/// Hold each of `found` at once, nobody being there to ask (a background task's end, an MCP
/// server's start): one line each naming where it went and how to keep it, `who` ("this task")
/// having created it.
pub fn hold_unasked(who: &str, found: Vec<Found>) -> Vec<String> {
    found
        .into_iter()
        .map(|found| match hold(&found.path) {
            Ok(to) => format!(
                "{who} created {} ({}); programs outside the sandbox run what it holds, so it was moved aside to {}: rename it back to keep it",
                found.path.display(),
                found.what,
                to.display()
            ),
            Err(e) => format!(
                "{who} created {} ({}) and it could not be moved aside: {e}",
                found.path.display(),
                found.what
            ),
        })
        .collect()
}

/// The user kept it: put it back, unless something took its place meanwhile.
pub fn release(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} exists again; the held copy stays aside", path.display()),
        ));
    }
    std::fs::rename(held_path(path), path)
}

fn remove(p: &Path) -> std::io::Result<()> {
    let m = std::fs::symlink_metadata(p)?;
    if m.is_dir() {
        std::fs::remove_dir_all(p)
    } else {
        std::fs::remove_file(p)
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    /// A new repository, a `.git` swapped for a file, a new `commondir`, a new `.envrc` and a
    /// Claude settings file are each found; what was there before and did not change is not.
    #[test]
    fn what_a_command_creates_is_found_and_held() {
        let base = std::env::temp_dir().join(format!("tw-guard-{}", crate::util::new_id()));
        let root = base.join("root");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("old/.git")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x/.git")).unwrap();
        let roots = vec![root.clone()];
        let before = Snapshot::take(&roots);
        assert!(before.new_since(&before).is_empty());
        std::fs::create_dir_all(root.join("a/b/.git")).unwrap();
        std::fs::write(root.join(".git/commondir"), "../elsewhere").unwrap();
        std::fs::remove_dir_all(root.join("old/.git")).unwrap();
        std::fs::write(root.join("old/.git"), "gitdir: /tmp/x").unwrap();
        std::fs::write(root.join(".envrc"), "echo hi").unwrap();
        std::fs::create_dir_all(root.join("a/.claude")).unwrap();
        std::fs::write(root.join("a/.claude/settings.json"), "{}").unwrap();
        let after = Snapshot::take(&roots);
        let mut got: Vec<PathBuf> = after
            .new_since(&before)
            .into_iter()
            .map(|f| f.path)
            .collect();
        got.sort();
        let mut want = vec![
            root.join(".git/commondir"),
            root.join(".envrc"),
            root.join("a/.claude/settings.json"),
            root.join("a/b/.git"),
            root.join("old/.git"),
        ];
        want.sort();
        assert_eq!(got, want);
        // A program file reached through a link to a folder elsewhere is not this root's.
        let elsewhere = base.join("elsewhere/.claude");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("settings.json"), "{}").unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("old/.claude")).unwrap();
        let linked = Snapshot::take(&roots);
        assert!(
            linked.new_since(&after).is_empty(),
            "{:?}",
            linked.new_since(&after)
        );
        // Held aside, then put back or removed.
        let held = hold(&root.join("a/b/.git")).unwrap();
        assert!(held.is_dir() && !root.join("a/b/.git").exists());
        release(&root.join("a/b/.git")).unwrap();
        assert!(root.join("a/b/.git").is_dir());
        hold(&root.join(".envrc")).unwrap();
        assert!(!root.join(".envrc").exists() && held_path(&root.join(".envrc")).is_file());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
