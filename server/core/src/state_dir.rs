//! The state directory: created with mode 0700, locked by one server at a time.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Holds the instance lock for as long as it lives.
#[derive(Debug)]
pub struct StateDir {
    pub path: PathBuf,
    _lock: File,
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
        let lock_path = path.join("server.lock");
        let mut lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .with_context(|| format!("cannot open {}", lock_path.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&lock_path).unwrap_or_default();
                bail!(
                    "another Tradewind server is already using the state directory {} (pid {}). \
                     Stop it, or start this one with a different --state-dir / TRADEWIND_HOME.",
                    path.display(),
                    holder.trim()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", lock_path.display()));
            }
        }
        lock.set_len(0).ok();
        write!(lock, "{}", std::process::id()).ok();
        Ok(StateDir {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }
}
