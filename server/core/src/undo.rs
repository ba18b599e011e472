//! Undo: snapshots of a workspace's files in a hidden git object store under the state
//! directory (never the user's repository), taken before and after each run of the build
//! agent; a revert puts the files back as they were before a message.
//!
//! A snapshot is `git add -A` into the store's own index (the workspace's `.gitignore` holds;
//! dependency and build folders are left out) and `git write-tree`: the cost is proportional to
//! what changed. No user or system git configuration is read, so no filter, hook or fsmonitor
//! of the workspace runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use tokio::io::AsyncWriteExt;

/// Left out of every snapshot (and so never touched by a revert), besides `.gitignore`'s.
const EXCLUDE: &str = "# Tradewind's snapshots leave these out.\n.git/\nnode_modules/\ntarget/\n.venv/\nvenv/\n__pycache__/\n.tradewind/cache/\n";

/// One file a revert changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    /// `restored` (put back as it was), `deleted` (it did not exist then).
    pub action: &'static str,
}

/// The snapshot stores of every workspace, one git directory each.
#[derive(Debug)]
pub struct Snapshots {
    root: PathBuf,
    /// One operation at a time per workspace (they share an index).
    locks: parking_lot::Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

impl Snapshots {
    pub fn new(state_dir: &Path) -> Snapshots {
        Snapshots {
            root: state_dir.join("snapshots"),
            locks: parking_lot::Mutex::default(),
        }
    }

    fn git_dir(&self, ws: &Path) -> PathBuf {
        let h = crate::util::sha256_hex(ws.as_os_str().as_encoded_bytes());
        self.root.join(&h[..16])
    }

    fn lock(&self, ws: &Path) -> Arc<tokio::sync::Mutex<()>> {
        self.locks
            .lock()
            .entry(ws.to_path_buf())
            .or_default()
            .clone()
    }

    async fn git(&self, ws: &Path, args: &[&str], stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
        let mut cmd = crate::tools::git::confined(&self.git_dir(ws), ws);
        cmd.args([
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.safecrlf=false",
            "-c",
            "core.quotePath=false",
            "-c",
            "advice.addEmbeddedRepo=false",
            // Pruning is ours (`gc`): git's own would drop trees undo still needs.
            "-c",
            "gc.auto=0",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| format!("cannot run git: {e}"))?;
        if let (Some(data), Some(mut pipe)) = (stdin, child.stdin.take()) {
            pipe.write_all(data)
                .await
                .map_err(|e| format!("cannot write to git: {e}"))?;
        }
        let out = child
            .wait_with_output()
            .await
            .map_err(|e| format!("git failed: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {}: {}",
                args.first().copied().unwrap_or(""),
                crate::util::truncate_str(String::from_utf8_lossy(&out.stderr).trim(), 2000)
            ));
        }
        Ok(out.stdout)
    }

    async fn ensure(&self, ws: &Path) -> Result<(), String> {
        let dir = self.git_dir(ws);
        if dir.join("HEAD").exists() {
            return Ok(());
        }
        crate::state_dir::ensure_dir(&self.root).map_err(|e| e.to_string())?;
        let out = tokio::process::Command::new("git")
            .args(["init", "--bare", "-q"])
            .arg(&dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::null())
            .output()
            .await
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cannot create the snapshot store: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        std::fs::create_dir_all(dir.join("info")).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("info").join("exclude"), EXCLUDE).map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Record the workspace's files now; returns the snapshot's tree id. A home directory or
    /// the root is refused: a snapshot would copy everything under it.
    pub async fn snapshot(&self, ws: &Path) -> Result<String, String> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if ws == Path::new("/") || home.as_deref() == Some(ws) {
            return Err(format!(
                "{} is a home directory or the root; undo snapshots only project folders",
                ws.display()
            ));
        }
        let lock = self.lock(ws);
        let _held = lock.lock().await;
        self.snapshot_locked(ws).await
    }

    async fn snapshot_locked(&self, ws: &Path) -> Result<String, String> {
        self.ensure(ws).await?;
        self.git(ws, &["add", "-A", "--ignore-errors", "--", "."], None)
            .await
            .or_else(|e| {
                // Unreadable files are left out (and reported by git); anything else fails.
                if e.contains("unable to index") || e.contains("Permission denied") {
                    Ok(Vec::new())
                } else {
                    Err(e)
                }
            })?;
        let tree = self.git(ws, &["write-tree"], None).await?;
        Ok(String::from_utf8_lossy(&tree).trim().to_string())
    }

    /// Every workspace that has a store (by the store's directory name).
    pub fn stores(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.root)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.join("HEAD").exists())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `ws`'s store is the directory `dir`.
    pub fn is_store_of(&self, dir: &Path, ws: &Path) -> bool {
        self.git_dir(ws) == dir
    }

    /// Keep exactly `live` (trees still named by a snapshot or a revert) and what they hold;
    /// everything else in the workspace's store goes, and what stays is packed. Returns the
    /// store's size in bytes afterwards.
    /// Unreachable objects younger than `keep_newer` (git's `--prune` date, e.g. `1.hour.ago`)
    /// stay: a snapshot just taken is not recorded yet.
    pub async fn gc(&self, ws: &Path, live: &[String], keep_newer: &str) -> Result<u64, String> {
        let lock = self.lock(ws);
        let _held = lock.lock().await;
        if !self.git_dir(ws).join("HEAD").exists() {
            return Ok(0);
        }
        let old = self
            .git(
                ws,
                &["for-each-ref", "--format=%(refname)", "refs/live/"],
                None,
            )
            .await?;
        let want: std::collections::BTreeSet<String> = live
            .iter()
            .filter(|t| t.len() >= 40 && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(|t| format!("refs/live/{t}"))
            .collect();
        let have: std::collections::BTreeSet<String> = String::from_utf8_lossy(&old)
            .lines()
            .map(str::to_string)
            .collect();
        let mut tx = String::new();
        for r in have.difference(&want) {
            tx.push_str(&format!("delete {r}\n"));
        }
        for r in want.difference(&have) {
            let t = r.trim_start_matches("refs/live/");
            tx.push_str(&format!("update {r} {t}\n"));
        }
        self.git(ws, &["update-ref", "--stdin"], Some(tx.as_bytes()))
            .await?;
        let prune = format!("--prune={keep_newer}");
        self.git(
            ws,
            &[
                "-c",
                "gc.reflogExpire=now",
                "-c",
                "gc.reflogExpireUnreachable=now",
                "gc",
                "-q",
                &prune,
            ],
            None,
        )
        .await?;
        Ok(dir_size(&self.git_dir(ws)))
    }

    /// The paths that differ between two snapshots.
    pub async fn changed(&self, ws: &Path, a: &str, b: &str) -> Result<Vec<String>, String> {
        if a == b {
            return Ok(Vec::new());
        }
        let out = self
            .git(
                ws,
                &["diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b],
                None,
            )
            .await?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }

    /// What going from snapshot `from` to `to` changes: each path, restored or deleted.
    pub async fn plan(&self, ws: &Path, from: &str, to: &str) -> Result<Vec<Change>, String> {
        if from == to {
            return Ok(Vec::new());
        }
        let out = self
            .git(
                ws,
                &[
                    "diff-tree",
                    "-r",
                    "-z",
                    "--no-renames",
                    "--name-status",
                    from,
                    to,
                ],
                None,
            )
            .await?;
        let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
        let mut changes = Vec::new();
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            changes.push(Change {
                path: String::from_utf8_lossy(path).into_owned(),
                action: if status.first() == Some(&b'D') {
                    "deleted"
                } else {
                    "restored"
                },
            });
        }
        Ok(changes)
    }

    /// Put the workspace's files of `changes` as they are in snapshot `to`, then record the
    /// result (returned). Paths never leave the workspace: they come from git's own trees.
    pub async fn apply(&self, ws: &Path, to: &str, changes: &[Change]) -> Result<String, String> {
        let lock = self.lock(ws);
        let _held = lock.lock().await;
        let restore: Vec<u8> = changes
            .iter()
            .filter(|c| c.action == "restored")
            .flat_map(|c| c.path.bytes().chain(std::iter::once(0)))
            .collect();
        if !restore.is_empty() {
            self.git(
                ws,
                &[
                    "checkout",
                    to,
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                ],
                Some(&restore),
            )
            .await?;
        }
        for c in changes.iter().filter(|c| c.action == "deleted") {
            let p = ws.join(&c.path);
            // A path with a `..` or an absolute one cannot come from a git tree; refuse anyway.
            if !p.starts_with(ws) || c.path.split('/').any(|s| s == "..") {
                continue;
            }
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => std::fs::remove_file(&p)
                    .map_err(|e| format!("cannot delete {}: {e}", c.path))?,
                Err(_) => {}
            }
            // Folders the deleted files leave empty go too (never the workspace itself).
            let mut dir = p.parent();
            while let Some(d) = dir {
                if d == ws || std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        self.snapshot_locked(ws).await
    }
}

/// Bytes of the files under `dir`.
fn dir_size(dir: &Path) -> u64 {
    ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn snapshot_revert_and_the_gitignore() {
        let base = std::env::temp_dir().join(format!("tw-undo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(ws.join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(ws.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(ws.join("keep.txt"), "keep\n").unwrap();
        let s = Snapshots::new(&base.join("state"));
        let before = s.snapshot(&ws).await.unwrap();
        std::fs::write(ws.join("src/a.rs"), "fn a() { changed }\n").unwrap();
        std::fs::create_dir_all(ws.join("new/deep")).unwrap();
        std::fs::write(ws.join("new/deep/b.rs"), "new\n").unwrap();
        std::fs::remove_file(ws.join("keep.txt")).unwrap();
        std::fs::write(ws.join("ignored.txt"), "not mine to revert\n").unwrap();
        let after = s.snapshot(&ws).await.unwrap();
        assert_ne!(before, after);
        let mut changed = s
            .changed(&ws, before.as_str(), after.as_str())
            .await
            .unwrap();
        changed.sort();
        assert_eq!(changed, ["keep.txt", "new/deep/b.rs", "src/a.rs"]);
        let plan = s.plan(&ws, &after, &before).await.unwrap();
        assert_eq!(plan.len(), 3);
        let now = s.apply(&ws, &before, &plan).await.unwrap();
        assert_eq!(now, before, "the files are as they were");
        assert_eq!(
            std::fs::read_to_string(ws.join("src/a.rs")).unwrap(),
            "fn a() {}\n"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
            "keep\n"
        );
        assert!(!ws.join("new").exists(), "emptied folders go");
        assert!(
            ws.join("ignored.txt").exists(),
            "ignored files are not touched"
        );
        // And forward again (redo).
        let redo = s.plan(&ws, &before, &after).await.unwrap();
        assert_eq!(s.apply(&ws, &after, &redo).await.unwrap(), after);
        assert!(ws.join("new/deep/b.rs").exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// GC keeps the trees still named (and what they hold) and drops the rest, packed.
    #[tokio::test]
    async fn gc_keeps_what_is_named_and_drops_the_rest() {
        let base = std::env::temp_dir().join(format!("tw-undo-gc-{}", crate::util::new_id()));
        let ws = base.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let s = Snapshots::new(&base.join("state"));
        std::fs::write(ws.join("a.txt"), "one\n").unwrap();
        let keep = s.snapshot(&ws).await.unwrap();
        std::fs::write(ws.join("a.txt"), "two, never needed again\n").unwrap();
        let drop = s.snapshot(&ws).await.unwrap();
        // The newest snapshot stays in the store's index (the next one starts from it).
        std::fs::write(ws.join("a.txt"), "three\n").unwrap();
        let now = s.snapshot(&ws).await.unwrap();
        let exists = |id: &str| {
            let id = id.to_string();
            let s = &s;
            let ws = ws.clone();
            async move { s.git(&ws, &["cat-file", "-e", &id], None).await.is_ok() }
        };
        assert!(exists(&drop).await);
        // Young unreachable objects survive a cautious GC…
        s.gc(&ws, std::slice::from_ref(&keep), "1.hour.ago")
            .await
            .unwrap();
        assert!(exists(&drop).await);
        // …and go when old enough.
        let size = s.gc(&ws, std::slice::from_ref(&keep), "now").await.unwrap();
        assert!(size > 0);
        assert!(exists(&keep).await);
        assert!(!exists(&drop).await, "an unnamed tree was pruned");
        assert!(exists(&now).await, "the index keeps the newest");
        let plan = s.plan(&ws, &drop, &keep).await;
        assert!(plan.is_err(), "the dropped tree is gone");
        let back = s.plan(&ws, &now, &keep).await.unwrap();
        assert_eq!(s.apply(&ws, &keep, &back).await.unwrap(), keep);
        assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
