//! Undo: snapshots of a workspace's files, in a store of the server's own under the state
//! directory (never the user's repository), written in-process: no git, so no repository
//! configuration, hook or filter can run. A run of the build agent is snapshotted before its
//! first call that can change files and after it ends; both are *marked* at their moment and
//! resolved by the next walk (see `marks`), so a turn that only writes files through the file
//! tools never waits for a walk: each file's content is stored before a tool first changes it.
//! A revert puts back the files its own session's runs changed since a message (`owners` tells
//! whose change each file is, from every session's snapshots of the workspace).
//!
//! One walk at a time per workspace (they share the stat cache).

mod legacy;
pub mod marks;
pub mod objects;
pub mod owners;
mod scan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use marks::{Label, Marks};
use objects::{Kind, Manifest, Objects};
use owners::Put;

/// One file a revert changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    /// `restored` (put back as it was), `deleted` (it did not exist then).
    pub action: &'static str,
}

/// One workspace's store, its stat cache and its open marks.
#[derive(Debug)]
struct WsStore {
    objects: Objects,
    /// Held by every walk and every operation on the files, across its awaits.
    op: tokio::sync::Mutex<()>,
    index: Arc<parking_lot::Mutex<scan::Index>>,
    marks: parking_lot::Mutex<Marks>,
}

/// The snapshot stores of every workspace.
#[derive(Debug)]
pub struct Snapshots {
    state_dir: PathBuf,
    root: PathBuf,
    stores: parking_lot::Mutex<HashMap<PathBuf, Arc<WsStore>>>,
    /// Where resolved marks are recorded.
    store: crate::store::Store,
}

fn blocking_err(e: tokio::task::JoinError) -> String {
    format!("the snapshot task failed: {e}")
}

/// Run `f` on a thread of its own at the lowest CPU priority (Linux keeps a nice value per
/// thread): a walk nobody waits for yields the cores to the runs in flight.
async fn at_low_priority<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("tw-undo-walk".into())
        .spawn(move || {
            let _ = rustix::process::setpriority_process(None, 19);
            let _ = tx.send(f());
        })
        .map_err(|e| format!("cannot start the snapshot: {e}"))?;
    rx.await.map_err(|_| "the snapshot task failed".to_string())
}

impl Snapshots {
    pub fn new(state_dir: &Path, store: crate::store::Store) -> Snapshots {
        Snapshots {
            state_dir: state_dir.to_path_buf(),
            root: state_dir.join("undo"),
            stores: parking_lot::Mutex::default(),
            store,
        }
    }

    fn dir_of(&self, ws: &Path) -> PathBuf {
        let h = crate::util::sha256_hex(ws.as_os_str().as_encoded_bytes());
        self.root.join(&h[..16])
    }

    fn store(&self, ws: &Path) -> Arc<WsStore> {
        self.stores
            .lock()
            .entry(ws.to_path_buf())
            .or_insert_with(|| {
                let dir = self.dir_of(ws);
                Arc::new(WsStore {
                    marks: parking_lot::Mutex::new(Marks::load(&dir)),
                    objects: Objects::new(dir),
                    op: tokio::sync::Mutex::new(()),
                    index: Arc::default(),
                })
            })
            .clone()
    }

    fn skip(&self, ws: &Path) -> scan::Skip {
        scan::Skip {
            state_dir: self
                .state_dir
                .starts_with(ws)
                .then(|| self.state_dir.clone()),
        }
    }

    /// A home directory or the root is refused: a snapshot would copy everything under it.
    fn refused(ws: &Path) -> Result<(), String> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if ws == Path::new("/") || home.as_deref() == Some(ws) {
            return Err(format!(
                "{} is a home directory or the root; undo snapshots only project folders",
                ws.display()
            ));
        }
        Ok(())
    }

    /// Mark a snapshot of `ws` as of now (`label`), resolved by the next walk.
    pub fn mark(&self, ws: &Path, label: Label) -> Result<(), String> {
        Self::refused(ws)?;
        self.store(ws)
            .marks
            .lock()
            .mark(label)
            .map_err(|e| format!("cannot note the snapshot: {e}"))
    }

    /// Before a file tool writes `path`: its content now is stored for every open mark that
    /// lacks it. A path outside the workspace is not the snapshots' to cover.
    pub async fn before_write(&self, ws: &Path, path: &Path) -> Result<(), String> {
        let s = self.store(ws);
        let rel = match path.strip_prefix(ws) {
            Ok(r) => r.to_path_buf(),
            Err(_) => match std::fs::canonicalize(ws)
                .map(|w| path.strip_prefix(w).map(Path::to_path_buf))
            {
                Ok(Ok(r)) => r,
                _ => return Ok(()),
            },
        };
        let Some(rel) = rel.to_str().map(str::to_string) else {
            return Ok(());
        };
        if !s.marks.lock().wants(&rel) {
            return Ok(());
        }
        let (objects, path) = (s.objects.clone(), path.to_path_buf());
        let pre = tokio::task::spawn_blocking(move || {
            crate::state_dir::ensure_dir(&objects.dir).map_err(|e| e.to_string())?;
            let pre = scan::pre_image(&path, &objects)
                .map_err(|e| format!("cannot keep {}'s content: {e}", path.display()))?;
            pause_for_tests(&objects);
            Ok::<_, String>(pre)
        })
        .await
        .map_err(blocking_err)??;
        s.marks
            .lock()
            .patch(&rel, pre)
            .map_err(|e| format!("cannot note {rel}'s content: {e}"))
    }

    /// Whether a mark of `ws` waits for a walk.
    pub fn has_open(&self, ws: &Path) -> bool {
        self.store(ws).marks.lock().any_open()
    }

    /// Resolve the open marks of `ws` (one walk), unless none is open. `background`: nothing
    /// waits for it (what a run left), so the walk runs at the lowest CPU priority and yields
    /// to the runs in flight.
    pub async fn resolve(&self, ws: &Path, background: bool) -> Result<(), String> {
        let s = self.store(ws);
        if !s.marks.lock().any_open() {
            return Ok(());
        }
        let _op = s.op.lock().await;
        if !s.marks.lock().any_open() {
            return Ok(());
        }
        self.walk_locked(&s, ws, background).await.map(drop)
    }

    /// Record the workspace's files now (resolving the open marks with the same walk); returns
    /// the snapshot's id.
    pub async fn snapshot(&self, ws: &Path) -> Result<String, String> {
        Self::refused(ws)?;
        let s = self.store(ws);
        let _op = s.op.lock().await;
        self.walk_locked(&s, ws, false).await
    }

    /// One walk: the workspace now, and every mark opened before it began, recorded in order.
    async fn walk_locked(
        &self,
        s: &Arc<WsStore>,
        ws: &Path,
        background: bool,
    ) -> Result<String, String> {
        let horizon = s.marks.lock().horizon();
        let (objects, index, root, skip) = (
            s.objects.clone(),
            s.index.clone(),
            ws.to_path_buf(),
            self.skip(ws),
        );
        let walk = move || {
            crate::state_dir::ensure_dir(&objects.dir).map_err(|e| e.to_string())?;
            let mut index = index.lock();
            let m = scan::scan(&root, &objects, &mut index, &skip)?;
            pause_for_tests(&objects);
            let id = objects
                .put_manifest(&m)
                .map_err(|e| format!("cannot store the snapshot: {e}"))?;
            index.save(&objects);
            Ok::<_, String>((id, m))
        };
        let walked = if background {
            at_low_priority(walk).await?
        } else {
            tokio::task::spawn_blocking(walk)
                .await
                .map_err(blocking_err)?
        };
        let taken = s.marks.lock().take(horizon);
        let (id, now) = match walked {
            Ok(w) => w,
            Err(e) => {
                // Those marks cannot be resolved: undo does not cover their runs.
                s.marks.lock().resolved(&taken);
                return Err(e);
            }
        };
        if !taken.is_empty() {
            let objects = s.objects.clone();
            let resolved = taken.clone();
            let trees = tokio::task::spawn_blocking(move || {
                resolved
                    .iter()
                    .map(|m| objects.put_manifest(&m.resolve(&now)))
                    .collect::<std::io::Result<Vec<String>>>()
            })
            .await
            .map_err(blocking_err)?
            .map_err(|e| format!("cannot store the snapshot: {e}"))?;
            for (m, tree) in taken.iter().zip(trees) {
                let l = &m.label;
                if let Err(e) = self
                    .store
                    .record_snapshot(&l.session, &l.run, &l.kind, &tree, l.at)
                    .await
                {
                    tracing::warn!(error = %e, "cannot record a snapshot");
                }
            }
            s.marks.lock().resolved(&taken);
        }
        Ok(id)
    }

    /// A snapshot's manifest, copying an earlier release's tree into the store first.
    async fn manifest(&self, s: &WsStore, ws: &Path, id: &str) -> Result<Manifest, String> {
        if legacy::is_legacy_id(id) {
            let dir = legacy::store_dir(&self.state_dir, ws);
            let m = legacy::import(&dir, id, &s.objects).await?;
            s.objects
                .put_manifest(&m)
                .map_err(|e| format!("cannot store the snapshot: {e}"))?;
            return Ok(m);
        }
        let objects = s.objects.clone();
        let id = id.to_string();
        tokio::task::spawn_blocking(move || objects.manifest(&id))
            .await
            .map_err(blocking_err)?
    }

    /// The stored contents of `hashes` in `ws`'s store (`None`: not there any more).
    pub async fn blobs(&self, ws: &Path, hashes: Vec<[u8; 32]>) -> Vec<Option<Vec<u8>>> {
        let objects = self.store(ws).objects.clone();
        tokio::task::spawn_blocking(move || hashes.iter().map(|h| objects.get(h).ok()).collect())
            .await
            .unwrap_or_default()
    }

    /// The paths that differ between two snapshots.
    pub async fn changed(&self, ws: &Path, a: &str, b: &str) -> Result<Vec<String>, String> {
        if a == b {
            return Ok(Vec::new());
        }
        let s = self.store(ws);
        let (ma, mb) = (
            self.manifest(&s, ws, a).await?,
            self.manifest(&s, ws, b).await?,
        );
        Ok(objects::changed(&ma, &mb))
    }

    /// What going from snapshot `from` to `to` changes: each path, restored or deleted.
    pub async fn plan(&self, ws: &Path, from: &str, to: &str) -> Result<Vec<Change>, String> {
        if from == to {
            return Ok(Vec::new());
        }
        let s = self.store(ws);
        let (mf, mt) = (
            self.manifest(&s, ws, from).await?,
            self.manifest(&s, ws, to).await?,
        );
        Ok(objects::changed(&mf, &mt)
            .into_iter()
            .map(|path| Change {
                action: if mt.contains_key(&path) {
                    "restored"
                } else {
                    "deleted"
                },
                path,
            })
            .collect())
    }

    /// Put the workspace's files of `changes` as they are in snapshot `to`, then record the
    /// result (returned). Paths come from the store's own manifests, and every write goes
    /// through a descriptor of the workspace that refuses links and `..`.
    pub async fn apply(&self, ws: &Path, to: &str, changes: &[Change]) -> Result<String, String> {
        let s = self.store(ws);
        let target = self.manifest(&s, ws, to).await?;
        let puts: Vec<Put> = changes
            .iter()
            .map(|c| Put {
                path: c.path.clone(),
                entry: target.get(&c.path).copied(),
            })
            .collect();
        self.put_back(ws, &puts).await
    }

    /// Put each file of `puts` as its entry says (or delete it), then record the result
    /// (returned). The entries come from the store's own manifests, and every write goes
    /// through a descriptor of the workspace that refuses links and `..`.
    pub async fn put_back(&self, ws: &Path, puts: &[Put]) -> Result<String, String> {
        let s = self.store(ws);
        let _op = s.op.lock().await;
        // The marks open now are of the workspace before these files change.
        if s.marks.lock().any_open() {
            self.walk_locked(&s, ws, false).await?;
        }
        let (objects, root, puts) = (s.objects.clone(), ws.to_path_buf(), puts.to_vec());
        tokio::task::spawn_blocking(move || restore(&root, &objects, &puts))
            .await
            .map_err(blocking_err)??;
        self.walk_locked(&s, ws, false).await
    }

    /// Sort the files that changed along `tl` by whose change they are, for session `me` (see
    /// `owners`). Only the start's manifest and those of the stretch at hand are held at once.
    pub async fn sort(
        &self,
        ws: &Path,
        tl: &owners::Timeline,
        me: &crate::protocol::SessionId,
    ) -> Result<owners::Sorted, String> {
        let s = self.store(ws);
        let Some(first) = tl.trees.first() else {
            return Ok(owners::Sorted::default());
        };
        let mut prev = self.manifest(&s, ws, first).await?;
        let mut sorter = owners::Sorter::new(tl, prev.clone());
        for (k, pair) in tl.trees.windows(2).enumerate() {
            if pair[0] == pair[1] {
                continue;
            }
            let next = self.manifest(&s, ws, &pair[1]).await?;
            sorter.stretch(k, &prev, &next);
            prev = next;
        }
        Ok(sorter.finish(me))
    }

    /// Keep exactly `live` (snapshots still named by a run or a revert), what they hold, and
    /// whatever was written within `keep_newer` (a snapshot taken but not recorded yet); remove
    /// the rest. Returns the store's size in bytes afterwards. An earlier release's store goes
    /// once none of `live` is in it.
    pub async fn gc(
        &self,
        ws: &Path,
        live: &[String],
        keep_newer: Duration,
    ) -> Result<u64, String> {
        let s = self.store(ws);
        let _op = s.op.lock().await;
        let old = legacy::store_dir(&self.state_dir, ws);
        if old.exists() && !live.iter().any(|t| legacy::is_legacy_id(t)) {
            let _ = std::fs::remove_dir_all(&old);
        }
        let cutoff = std::time::SystemTime::now()
            .checked_sub(keep_newer)
            .unwrap_or(std::time::UNIX_EPOCH);
        let (objects, index, live) = (s.objects.clone(), s.index.clone(), live.to_vec());
        let blobs = s.marks.lock().blobs();
        tokio::task::spawn_blocking(move || {
            let size = objects.gc(&live, &blobs, cutoff);
            let mut index = index.lock();
            index.load(&objects);
            index.retain_stored(&objects);
            index.save(&objects);
            size
        })
        .await
        .map_err(blocking_err)
    }

    /// Every store (this release's and an earlier one's), by directory.
    pub fn stores(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&self.root)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        v.extend(legacy::stores(&self.state_dir));
        v
    }

    /// Whether `dir` is a store of `ws`.
    pub fn is_store_of(&self, dir: &Path, ws: &Path) -> bool {
        self.dir_of(ws) == dir || legacy::store_dir(&self.state_dir, ws) == dir
    }
}

/// Apply `puts` (deletions first, so a file can take the place of a deleted folder).
fn restore(root: &Path, objects: &Objects, puts: &[Put]) -> Result<(), String> {
    use crate::beneath;
    for c in puts.iter().filter(|c| c.entry.is_none()) {
        let p = checked(root, &c.path)?;
        beneath::remove_file_and_empty_parents(root, &p)
            .map_err(|e| format!("cannot delete {}: {e}", c.path))?;
    }
    for c in puts {
        let Some(e) = c.entry else {
            continue;
        };
        let p = checked(root, &c.path)?;
        let bytes = objects
            .get(&e.hash)
            .map_err(|err| format!("the snapshot's copy of {} is missing: {err}", c.path))?;
        let done = match e.kind {
            Kind::Symlink => beneath::replace_symlink(root, &p, &bytes),
            Kind::Executable => beneath::replace_file(root, &p, &bytes, 0o755),
            Kind::File => beneath::replace_file(root, &p, &bytes, 0o644),
        };
        done.map_err(|err| format!("cannot restore {}: {err}", c.path))?;
    }
    Ok(())
}

/// A manifest path as a path below `root`: relative, no `..`.
fn checked(root: &Path, rel: &str) -> Result<PathBuf, String> {
    let p = Path::new(rel);
    if p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(format!("{rel} is not a path inside the workspace"));
    }
    Ok(root.join(p))
}

/// Debug builds only: with `TW_TEST_SNAPSHOT_PAUSE=<file>` set, a snapshot whose files are
/// stored waits before writing its manifest, and a file's content kept before a tool writes it
/// waits before it is noted, until that file is removed (a test kills the server there,
/// mid-snapshot). It creates `<file>.reached` when it gets there.
#[cfg(debug_assertions)]
fn pause_for_tests(objects: &Objects) {
    let Some(flag) = std::env::var_os("TW_TEST_SNAPSHOT_PAUSE").map(PathBuf::from) else {
        return;
    };
    if !flag.exists() {
        return;
    }
    let _ = objects;
    let mut reached = flag.clone().into_os_string();
    reached.push(".reached");
    let _ = std::fs::write(&reached, b"");
    while flag.exists() {
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(not(debug_assertions))]
fn pause_for_tests(_objects: &Objects) {}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    /// Snapshots with a store of their own under `state`.
    async fn snapshots(state: &Path) -> Snapshots {
        std::fs::create_dir_all(state).unwrap();
        let store = crate::store::Store::open_sqlite(&state.join("t.db"))
            .await
            .unwrap();
        Snapshots::new(state, store)
    }

    fn base(name: &str) -> PathBuf {
        let b = std::env::temp_dir().join(format!("tw-undo-{name}-{}", crate::util::new_id()));
        std::fs::create_dir_all(&b).unwrap();
        b
    }

    #[tokio::test]
    async fn snapshot_revert_and_the_gitignore() {
        let base = base("revert");
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(ws.join("node_modules/x")).unwrap();
        std::fs::write(ws.join("node_modules/x/i.js"), "dep\n").unwrap();
        std::fs::write(ws.join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(ws.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(ws.join("keep.txt"), "keep\n").unwrap();
        std::fs::write(ws.join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            ws.join("run.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("keep.txt", ws.join("link")).unwrap();
        let s = snapshots(&base.join("state")).await;
        let before = s.snapshot(&ws).await.unwrap();
        assert_eq!(
            s.snapshot(&ws).await.unwrap(),
            before,
            "same files, same id"
        );
        std::fs::write(ws.join("src/a.rs"), "fn a() { changed }\n").unwrap();
        std::fs::create_dir_all(ws.join("new/deep")).unwrap();
        std::fs::write(ws.join("new/deep/b.rs"), "new\n").unwrap();
        std::fs::remove_file(ws.join("keep.txt")).unwrap();
        std::fs::remove_file(ws.join("link")).unwrap();
        std::fs::remove_file(ws.join("run.sh")).unwrap();
        std::fs::write(ws.join("ignored.txt"), "not mine to revert\n").unwrap();
        std::fs::write(ws.join("node_modules/x/i.js"), "changed dep\n").unwrap();
        let after = s.snapshot(&ws).await.unwrap();
        assert_ne!(before, after);
        let changed = s.changed(&ws, &before, &after).await.unwrap();
        assert_eq!(
            changed,
            ["keep.txt", "link", "new/deep/b.rs", "run.sh", "src/a.rs"]
        );
        let plan = s.plan(&ws, &after, &before).await.unwrap();
        assert_eq!(plan.len(), 5);
        let now = s.apply(&ws, &before, &plan).await.unwrap();
        assert_eq!(now, before, "the files are as they were");
        assert_eq!(
            std::fs::read_to_string(ws.join("src/a.rs")).unwrap(),
            "fn a() {}\n"
        );
        assert_eq!(
            std::fs::read_link(ws.join("link")).unwrap(),
            Path::new("keep.txt")
        );
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(ws.join("run.sh")).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o755);
        assert!(!ws.join("new").exists(), "emptied folders go");
        assert!(
            ws.join("ignored.txt").exists(),
            "ignored files are not touched"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join("node_modules/x/i.js")).unwrap(),
            "changed dep\n"
        );
        // And forward again (redo).
        let redo = s.plan(&ws, &before, &after).await.unwrap();
        assert_eq!(s.apply(&ws, &after, &redo).await.unwrap(), after);
        assert!(ws.join("new/deep/b.rs").exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A file rewritten with the same size within the same second is seen (the stat cache does
    /// not trust entries that recent).
    #[tokio::test]
    async fn a_quick_same_size_rewrite_is_seen() {
        let base = base("racy");
        let ws = base.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let s = snapshots(&base.join("state")).await;
        std::fs::write(ws.join("a.txt"), "aaaa").unwrap();
        let one = s.snapshot(&ws).await.unwrap();
        std::fs::write(ws.join("a.txt"), "bbbb").unwrap();
        let two = s.snapshot(&ws).await.unwrap();
        assert_ne!(one, two);
        // A new server (an empty cache, the saved index) sees the same.
        let again = snapshots(&base.join("state")).await;
        assert_eq!(again.snapshot(&ws).await.unwrap(), two);
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A link swapped in for a folder does not let a revert write outside the workspace.
    #[tokio::test]
    async fn a_revert_never_writes_through_a_link() {
        let base = base("links");
        let ws = base.join("ws");
        let outside = base.join("outside");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(ws.join("sub/f.txt"), "mine\n").unwrap();
        let s = snapshots(&base.join("state")).await;
        let before = s.snapshot(&ws).await.unwrap();
        std::fs::write(ws.join("sub/f.txt"), "changed\n").unwrap();
        let now = s.snapshot(&ws).await.unwrap();
        let plan = s.plan(&ws, &now, &before).await.unwrap();
        // The folder becomes a link to outside between the plan and the revert.
        std::fs::remove_dir_all(ws.join("sub")).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("sub")).unwrap();
        assert!(s.apply(&ws, &before, &plan).await.is_err());
        assert!(!outside.join("f.txt").exists(), "nothing written outside");
        // A revert planned with the link in place replaces the link itself.
        let now = s.snapshot(&ws).await.unwrap();
        let plan = s.plan(&ws, &now, &before).await.unwrap();
        assert_eq!(s.apply(&ws, &before, &plan).await.unwrap(), before);
        assert!(!outside.join("f.txt").exists());
        assert_eq!(
            std::fs::read_to_string(ws.join("sub/f.txt")).unwrap(),
            "mine\n"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// Back-to-back runs that only write files never walk the workspace: each run's `before`
    /// and `after` are marked, the files' contents kept before each write, and one later walk
    /// records them all, each as the workspace was at its moment. A server stopped with marks
    /// open finds them in the journal.
    #[tokio::test]
    async fn marked_snapshots_are_the_workspace_at_their_moment() {
        use owners::Taken;
        let base = base("marks");
        let (ws, state) = (base.join("ws"), base.join("state"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "one").unwrap();
        std::fs::write(ws.join("b.txt"), "b").unwrap();
        let s = snapshots(&state).await;
        let sid: crate::protocol::SessionId = "S".into();
        let ws_text = ws.to_string_lossy().into_owned();
        s.store
            .create_session(
                &sid,
                "t",
                &ws_text,
                crate::protocol::AgentName::build(),
                crate::protocol::Mode::Auto,
                None,
            )
            .await
            .unwrap();
        let start = s.snapshot(&ws).await.unwrap();
        let (r1, r2): (crate::protocol::RunId, crate::protocol::RunId) = ("R1".into(), "R2".into());
        let write = |rel: &str, text: &str| std::fs::write(ws.join(rel), text).unwrap();
        // Run 1 writes a.txt; run 2, right after, writes a.txt again and creates new.txt.
        s.mark(&ws, Label::new(&sid, &r1, Taken::Before)).unwrap();
        s.before_write(&ws, &ws.join("a.txt")).await.unwrap();
        write("a.txt", "two");
        s.mark(&ws, Label::new(&sid, &r1, Taken::After)).unwrap();
        s.mark(&ws, Label::new(&sid, &r2, Taken::Before)).unwrap();
        s.before_write(&ws, &ws.join("a.txt")).await.unwrap();
        write("a.txt", "three");
        s.before_write(&ws, &ws.join("new.txt")).await.unwrap();
        write("new.txt", "new");
        // Written again in the same run: the first content kept stands.
        s.before_write(&ws, &ws.join("a.txt")).await.unwrap();
        write("a.txt", "four");
        s.mark(&ws, Label::new(&sid, &r2, Taken::After)).unwrap();
        assert!(s.has_open(&ws));
        // A server stopped now finds the marks again.
        let again = snapshots(&state).await;
        assert!(again.has_open(&ws));
        drop(again);
        let now = s.snapshot(&ws).await.unwrap();
        assert!(!s.has_open(&ws));
        type Seen = (String, Option<String>, Option<String>, Option<String>);
        async fn tree(s: &Snapshots, ws: &Path, run: &crate::protocol::RunId, kind: &str) -> Seen {
            let id = s.store.run_snapshot(run, kind).await.unwrap().unwrap();
            let st = s.store(ws);
            let m = s.manifest(&st, ws, &id).await.unwrap();
            let text = |rel: &str| {
                m.get(rel)
                    .map(|e| String::from_utf8(st.objects.get(&e.hash).unwrap()).unwrap())
            };
            let seen = (text("a.txt"), text("new.txt"), text("b.txt"));
            (id, seen.0, seen.1, seen.2)
        }
        let b1 = tree(&s, &ws, &r1, "before").await;
        assert_eq!(b1.0, start);
        let a1 = tree(&s, &ws, &r1, "after").await;
        assert_eq!((a1.1.as_deref(), a1.2.as_deref()), (Some("two"), None));
        let b2 = tree(&s, &ws, &r2, "before").await;
        assert_eq!(b2.0, a1.0, "nothing changed between the runs");
        let a2 = tree(&s, &ws, &r2, "after").await;
        assert_eq!(a2.0, now);
        assert_eq!(
            (a2.1.as_deref(), a2.2.as_deref(), a2.3.as_deref()),
            (Some("four"), Some("new"), Some("b"))
        );
        // A revert of both runs puts back exactly the start.
        let plan = s.plan(&ws, &now, &b1.0).await.unwrap();
        assert_eq!(s.apply(&ws, &b1.0, &plan).await.unwrap(), start);
        assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one");
        assert!(!ws.join("new.txt").exists());
        let _ = std::fs::remove_dir_all(&base);
    }

    /// GC keeps the snapshots still named (and what they hold) and drops the rest.
    #[tokio::test]
    async fn gc_keeps_what_is_named_and_drops_the_rest() {
        let base = base("gc");
        let ws = base.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let s = snapshots(&base.join("state")).await;
        std::fs::write(ws.join("a.txt"), "one\n").unwrap();
        let keep = s.snapshot(&ws).await.unwrap();
        std::fs::write(ws.join("a.txt"), "two, never needed again\n").unwrap();
        let drop = s.snapshot(&ws).await.unwrap();
        std::fs::write(ws.join("a.txt"), "three\n").unwrap();
        let now = s.snapshot(&ws).await.unwrap();
        // Young objects survive a cautious GC…
        s.gc(&ws, std::slice::from_ref(&keep), Duration::from_secs(3600))
            .await
            .unwrap();
        assert!(s.plan(&ws, &drop, &keep).await.is_ok());
        // …and go when old enough.
        let size = s
            .gc(&ws, &[keep.clone(), now.clone()], Duration::ZERO)
            .await
            .unwrap();
        assert!(size > 0);
        assert!(
            s.plan(&ws, &drop, &keep).await.is_err(),
            "the dropped snapshot is gone"
        );
        let back = s.plan(&ws, &now, &keep).await.unwrap();
        assert_eq!(s.apply(&ws, &keep, &back).await.unwrap(), keep);
        assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
        // The stat cache forgot what the collection removed: an unchanged file is stored again.
        std::fs::write(ws.join("a.txt"), "two, never needed again\n").unwrap();
        let again = s.snapshot(&ws).await.unwrap();
        assert_eq!(again, drop);
        let to_one = s.plan(&ws, &again, &keep).await.unwrap();
        assert_eq!(s.apply(&ws, &keep, &to_one).await.unwrap(), keep);
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A tree of an earlier release's git store is read and reverted to.
    #[tokio::test]
    async fn an_earlier_release_s_snapshot_is_still_reverted_to() {
        let base = base("legacy");
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join("d")).unwrap();
        std::fs::write(ws.join("d/a.txt"), "old\n").unwrap();
        let state = base.join("state");
        let git_dir = legacy::store_dir(&state, &ws);
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .arg(format!("--git-dir={}", git_dir.display()))
                .arg(format!("--work-tree={}", ws.display()))
                .args(args)
                .current_dir(&ws)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        std::fs::create_dir_all(&git_dir).unwrap();
        let init = std::process::Command::new("git")
            .args(["init", "--bare", "-q"])
            .arg(&git_dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(init.success());
        git(&["add", "-A"]);
        let old = git(&["write-tree"]);
        assert!(legacy::is_legacy_id(&old));
        std::fs::write(ws.join("d/a.txt"), "new\n").unwrap();
        let s = snapshots(&state).await;
        let now = s.snapshot(&ws).await.unwrap();
        let plan = s.plan(&ws, &now, &old).await.unwrap();
        assert_eq!(
            plan,
            [Change {
                path: "d/a.txt".into(),
                action: "restored"
            }]
        );
        s.apply(&ws, &old, &plan).await.unwrap();
        assert_eq!(
            std::fs::read_to_string(ws.join("d/a.txt")).unwrap(),
            "old\n"
        );
        // Once nothing names it, the old store goes.
        s.gc(&ws, &[now], Duration::ZERO).await.unwrap();
        assert!(!git_dir.exists());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
