//! `GET /api/fs/dirs`: a workspace picker's folders. Folder names only, under the home folder:
//! no files, no hidden folder unless asked, never the server's state directory or a credential
//! location; with the last workspaces used, and a warning for folders no session should work in.

use std::path::{Path, PathBuf};

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{DirEntry, DirListing, RecentWorkspace};

/// The most folders one listing holds.
const MAX_DIRS: usize = 1000;
/// How many recent workspaces are offered.
const RECENT: i64 = 10;

/// What to say before a session starts in `path`: a system folder, or the home folder itself
/// (every file of the user's would be in reach).
pub fn workspace_warning(path: &Path, home: Option<&Path>) -> Option<String> {
    const SYSTEM: [&str; 6] = ["/", "/etc", "/usr", "/var", "/bin", "/boot"];
    let p = crate::policy::paths::normalize(path);
    if SYSTEM.iter().any(|s| p == Path::new(s)) {
        return Some(format!(
            "{} is a system folder: a session there can change what the whole machine runs",
            p.display()
        ));
    }
    if home.is_some_and(|h| crate::policy::paths::normalize(h) == p) {
        return Some(format!(
            "{} is your home folder itself: every file of yours would be in the session's reach; pick a project folder",
            p.display()
        ));
    }
    None
}

impl Core {
    /// The folders of `path` (default: the home folder), which must lie under the home folder.
    pub async fn list_dirs(&self, path: Option<&str>, hidden: bool) -> ServiceResult<DirListing> {
        let home =
            self.cfg.home.clone().ok_or_else(|| {
                ServiceError::Invalid("the server has no home folder (HOME)".into())
            })?;
        let state_dir = self.cfg.state_dir.clone();
        let wanted = path
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map_or_else(|| home.clone(), PathBuf::from);
        if !wanted.is_absolute() {
            return Err(ServiceError::Invalid("path must be absolute".into()));
        }
        let listing = tokio::task::spawn_blocking(move || list(&wanted, &home, &state_dir, hidden))
            .await
            .map_err(|e| ServiceError::Store(crate::store::StoreError::Other(e.into())))??;
        let home = self.cfg.home.as_deref();
        let recent = self
            .store
            .recent_workspaces(RECENT)
            .await?
            .into_iter()
            .map(|w| RecentWorkspace {
                warning: workspace_warning(Path::new(&w), home),
                path: w,
            })
            .collect();
        Ok(DirListing { recent, ..listing })
    }
}

/// Whether a folder is never offered: the state directory (and what is in it), a credential
/// location.
fn refused(path: &Path, state_dir: &Path) -> bool {
    path.starts_with(state_dir)
        || tradewind_policy::lists::names_hard_denied_path(&path.to_string_lossy().to_lowercase())
}

fn list(wanted: &Path, home: &Path, state_dir: &Path, hidden: bool) -> ServiceResult<DirListing> {
    let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    let state_dir = std::fs::canonicalize(state_dir).unwrap_or_else(|_| state_dir.to_path_buf());
    let dir = std::fs::canonicalize(wanted).map_err(|_| ServiceError::NotFound("folder"))?;
    if !dir.starts_with(&home) {
        return Err(ServiceError::Invalid(format!(
            "only folders under the home folder ({}) are listed",
            home.display()
        )));
    }
    if refused(&dir, &state_dir) {
        return Err(ServiceError::Invalid(
            "that folder is the server's state or a credential location: it is never listed".into(),
        ));
    }
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotADirectory {
            ServiceError::Invalid("path is not a folder".into())
        } else {
            ServiceError::NotFound("folder")
        }
    })?;
    let mut dirs: Vec<DirEntry> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            if name.starts_with('.') && !hidden {
                return None;
            }
            let path = e.path();
            // A link counts as a folder only when it leads to one under the home folder.
            let real = std::fs::canonicalize(&path).ok()?;
            if !real.is_dir() || !real.starts_with(&home) || refused(&real, &state_dir) {
                return None;
            }
            if refused(&path, &state_dir) {
                return None;
            }
            Some(DirEntry {
                name,
                path: path.to_string_lossy().into_owned(),
            })
        })
        .collect();
    dirs.sort_by_key(|d| d.name.to_lowercase());
    let truncated = dirs.len() > MAX_DIRS;
    dirs.truncate(MAX_DIRS);
    let parent = dir
        .parent()
        .filter(|p| p.starts_with(&home))
        .map(|p| p.to_string_lossy().into_owned());
    Ok(DirListing {
        warning: workspace_warning(&dir, Some(&home)),
        path: dir.to_string_lossy().into_owned(),
        parent,
        dirs,
        truncated,
        recent: Vec::new(),
    })
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn system_folders_and_the_home_folder_are_warned_about() {
        let home = Path::new("/home/ana");
        for p in [
            "/",
            "/etc",
            "/usr/",
            "/var",
            "/bin",
            "/boot",
            "/home/ana",
            "/home/ana/",
        ] {
            assert!(workspace_warning(Path::new(p), Some(home)).is_some(), "{p}");
        }
        for p in [
            "/home/ana/src/app",
            "/etc/nginx",
            "/srv/app",
            "/usr/local/src/x",
        ] {
            assert!(workspace_warning(Path::new(p), Some(home)).is_none(), "{p}");
        }
    }

    /// The state directory and what is in it, credential locations: never offered.
    #[test]
    fn the_state_directory_and_credentials_are_never_listed() {
        let base = std::env::temp_dir().join(format!("tw-dirs-{}", crate::util::new_id()));
        for d in ["proj", ".ssh", ".config", "state", "state/keys"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        let state = base.join("state");
        let l = list(&base, &base, &state, true).unwrap();
        let names: Vec<&str> = l.dirs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, [".config", "proj"]);
        assert!(list(&state.join("keys"), &base, &state, true).is_err());
        assert!(list(&base.join(".ssh"), &base, &state, true).is_err());
        assert!(
            list(Path::new("/"), &base, &state, false).is_err(),
            "outside the home folder"
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
