//! The state directory: created with mode 0700, locked by one server at a time.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};

/// Holds the instance lock for as long as it lives.
///
/// The lock is a POSIX record lock (`fcntl(F_SETLK)`), not `flock`: an `flock` lock belongs to
/// the open file description, so every child forked by the server holds it too until that
/// child's `exec` closes the descriptor, and a server restarted in that window is refused.
/// Record locks belong to the process and are never inherited by a fork. Because they do not
/// exclude the same process, and closing *any* descriptor of the file drops them, the paths
/// this process holds are also kept in [`HELD`] and checked before the file is opened.
#[derive(Debug)]
pub struct StateDir {
    pub path: PathBuf,
    lock_path: PathBuf,
    lock: Option<File>,
}

/// Lock files this process holds (canonical paths).
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn held() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for StateDir {
    fn drop(&mut self) {
        // Closed under the registry's lock: a thread that re-locks this path in between would
        // otherwise get a lock our closing descriptor then drops.
        let mut held = held();
        drop(self.lock.take());
        held.retain(|p| p != &self.lock_path);
    }
}

fn refused(path: &Path, pid: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "another Tradewind server is already using the state directory {} (pid {}). \
         Stop it, or start this one with a different --state-dir / TRADEWIND_HOME.",
        path.display(),
        pid.trim()
    )
}

/// Create the directory (0700) if needed and tighten an existing one.
pub fn ensure_dir(path: &Path) -> anyhow::Result<()> {
    if !path.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)
            .with_context(|| format!("cannot create state directory {}", path.display()))?;
    }
    let meta = std::fs::metadata(path)
        .with_context(|| format!("cannot read state directory {}", path.display()))?;
    if !meta.is_dir() {
        bail!("state directory {} is not a directory", path.display());
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("cannot set mode 0700 on {}", path.display()))?;
    }
    Ok(())
}

impl StateDir {
    /// Open and lock. A second server on the same directory gets a clear error.
    pub fn open_locked(path: &Path) -> anyhow::Result<StateDir> {
        ensure_dir(path)?;
        let dir = std::fs::canonicalize(path)
            .with_context(|| format!("cannot resolve {}", path.display()))?;
        let lock_path = dir.join("server.lock");
        let mut held = held();
        if held.contains(&lock_path) {
            // Checked before opening: closing a second descriptor would drop our own lock.
            return Err(refused(path, &std::process::id().to_string()));
        }
        let mut lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .with_context(|| format!("cannot open {}", lock_path.display()))?;
        match rustix::fs::fcntl_lock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(e) if e == rustix::io::Errno::AGAIN || e == rustix::io::Errno::ACCESS => {
                let mut holder = String::new();
                let _ = lock.read_to_string(&mut holder);
                return Err(refused(path, &holder));
            }
            Err(e) => {
                return Err(std::io::Error::from(e))
                    .with_context(|| format!("cannot lock {}", lock_path.display()));
            }
        }
        lock.set_len(0).ok();
        write!(lock, "{}", std::process::id()).ok();
        held.push(lock_path.clone());
        Ok(StateDir {
            path: path.to_path_buf(),
            lock_path,
            lock: Some(lock),
        })
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tw-statedir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// A second holder in this process is refused, and the first keeps its lock after the
    /// refusal (no second descriptor was opened and closed); dropping the holder frees it.
    #[test]
    fn one_holder_per_directory_in_this_process() {
        let dir = scratch("one");
        let first = StateDir::open_locked(&dir).unwrap();
        let err = StateDir::open_locked(&dir).unwrap_err().to_string();
        assert!(err.contains("already using the state directory"), "{err}");
        assert!(err.contains(&std::process::id().to_string()), "{err}");
        let again = StateDir::open_locked(&dir).unwrap_err().to_string();
        assert!(again.contains("already using"), "{again}");
        drop(first);
        let second = StateDir::open_locked(&dir).unwrap();
        drop(second);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A server restarted on its directory while other threads spawn children (each one a
    /// fork that copies the descriptor table until its `exec`) always gets the lock.
    #[test]
    fn a_restart_is_not_refused_while_children_are_forked() {
        let dir = scratch("fork");
        let stop = Arc::new(AtomicBool::new(false));
        let spawner = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut spawned = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    std::process::Command::new("true")
                        .spawn()
                        .unwrap()
                        .wait()
                        .unwrap();
                    spawned += 1;
                }
                spawned
            })
        };
        let mut restarts = 0u32;
        // Bounded both ways: enough restarts to overlap many forks, and never unbounded.
        while restarts < 3000 {
            let held = StateDir::open_locked(&dir).unwrap();
            drop(held);
            restarts += 1;
        }
        stop.store(true, Ordering::Relaxed);
        let spawned = spawner.join().unwrap();
        assert!(spawned > 0, "no child was spawned during the restarts");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
