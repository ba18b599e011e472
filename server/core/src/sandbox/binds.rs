//! What the jail binds from a tree a jailed command can change — the session's roots, the
//! writable grants and allows, the workspace's cache — is opened by the server beneath that tree
//! without following a link (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`), and bubblewrap
//! mounts the descriptor (`--ro-bind-fd` / `--bind-fd`), never the path. A link planted where the
//! jail binds (`.git/hooks -> ../../..`, a committed `.envrc -> ../..`) is therefore never
//! followed to the host's files, and what the agent swaps after the server looked is not what
//! gets mounted: the descriptor names the folder or file the server saw.
//!
//! Where an entry is a link or a special file (FIFO, socket, device) nothing of it is bound:
//! a special file gets an empty read-only file over it; a link is left as the jail sees it (its
//! target, resolved inside the jail, is only ever what the jail already shows).
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

const RESOLVE: ResolveFlags = ResolveFlags::BENEATH
    .union(ResolveFlags::NO_SYMLINKS)
    .union(ResolveFlags::NO_MAGICLINKS);

const PATH_FLAGS: OFlags = OFlags::PATH.union(OFlags::CLOEXEC).union(OFlags::NOFOLLOW);

/// What a bind source turned out to be when opened beneath its tree.
#[derive(Debug)]
pub enum Found {
    /// A folder or a regular file: bind the descriptor.
    Open {
        fd: OwnedFd,
        dir: bool,
    },
    /// A symbolic link (at the end, or any component on the way).
    Link,
    /// A FIFO, socket or device.
    Special,
    Missing,
}

/// The trees a jailed command can change, each opened once, and the descriptors a command's
/// binds hand to bubblewrap (kept open until the command is spawned).
#[derive(Debug, Default)]
pub struct Binder {
    trees: Vec<(PathBuf, OwnedFd)>,
    fds: Vec<OwnedFd>,
}

impl Binder {
    /// Open `trees` (the roots, writable grants and allows, the cache), outer ones first: a tree
    /// inside another is opened beneath it like any other bind, so a nested root swapped for a
    /// link is not followed either. A tree that cannot be opened is left out (a bind from it
    /// then fails as a missing path would).
    pub fn new<'a>(trees: impl IntoIterator<Item = &'a Path>) -> Binder {
        let mut list: Vec<&Path> = trees.into_iter().filter(|t| t.is_absolute()).collect();
        list.sort_by_key(|t| t.components().count());
        list.dedup();
        let mut b = Binder::default();
        for t in list {
            let fd = match b.open(t) {
                Some(Found::Open { fd, dir: true }) => Some(fd),
                Some(_) => None,
                None => rustix::fs::open(
                    t,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .ok(),
            };
            if let Some(fd) = fd {
                b.trees.push((t.to_path_buf(), fd));
            }
        }
        b
    }

    /// Open `path` beneath the innermost tree that strictly holds it (`None`: no tree holds it,
    /// so nothing a command writes can redirect it).
    pub fn open(&self, path: &Path) -> Option<Found> {
        let (fd, rel) = self.tree_of(path)?;
        Some(open_beneath(fd, rel))
    }

    /// The innermost tree that strictly holds `path`, and the path relative to it.
    fn tree_of<'p>(&self, path: &'p Path) -> Option<(&OwnedFd, &'p Path)> {
        let (tree, fd) = self
            .trees
            .iter()
            .filter(|(t, _)| path.starts_with(t) && path != t)
            .max_by_key(|(t, _)| t.components().count())?;
        Some((fd, path.strip_prefix(tree).ok()?))
    }

    /// The text of the regular file at `path`, read beneath its tree without following a link
    /// (by path where no tree holds it). At most 1 MiB.
    pub fn read(&self, path: &Path) -> Option<String> {
        use std::io::Read;
        let file = match self.tree_of(path) {
            Some((fd, rel)) => {
                let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOFOLLOW;
                let fd = rustix::fs::openat2(fd, rel, flags, Mode::empty(), RESOLVE).ok()?;
                std::fs::File::from(fd)
            }
            None => std::fs::File::open(path).ok()?,
        };
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let mut text = String::new();
        file.take(1 << 20).read_to_string(&mut text).ok()?;
        Some(text)
    }

    /// Bind `src` at `dest` (read-only unless `write`): by descriptor when a tree holds it, by
    /// path otherwise (`optional`: a missing path is skipped). `Err` when it is a link, a
    /// special file or missing where a tree holds it: the caller decides what stands in its
    /// place.
    pub fn bind(
        &mut self,
        a: &mut Vec<OsString>,
        src: &Path,
        dest: &Path,
        write: bool,
        optional: bool,
    ) -> Result<(), Found> {
        match self.open(src) {
            None => {
                let flag = match (write, optional) {
                    (true, true) => "--bind-try",
                    (true, false) => "--bind",
                    (false, true) => "--ro-bind-try",
                    (false, false) => "--ro-bind",
                };
                a.extend([flag.into(), src.into(), dest.into()]);
                Ok(())
            }
            Some(Found::Open { fd, .. }) => {
                let flag = if write { "--bind-fd" } else { "--ro-bind-fd" };
                a.extend([flag.into(), fd.as_raw_fd().to_string().into(), dest.into()]);
                self.fds.push(fd);
                Ok(())
            }
            Some(other) => Err(other),
        }
    }

    /// The descriptors to hand to bubblewrap (every other descriptor of the server stays
    /// close-on-exec).
    pub fn into_fds(self) -> Vec<OwnedFd> {
        self.fds
    }
}

/// Open `rel` beneath `dir` as a path descriptor, following no link on the way or at the end.
fn open_beneath(dir: &OwnedFd, rel: &Path) -> Found {
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    let fd = match rustix::fs::openat2(dir, rel, PATH_FLAGS, Mode::empty(), RESOLVE) {
        Ok(fd) => fd,
        Err(Errno::NOSYS) => match walk_nofollow(dir, rel) {
            Ok(fd) => fd,
            Err(e) => return not_opened(e),
        },
        Err(e) => return not_opened(e),
    };
    match rustix::fs::fstat(&fd).map(|st| FileType::from_raw_mode(st.st_mode)) {
        Ok(FileType::Directory) => Found::Open { fd, dir: true },
        Ok(FileType::RegularFile) => Found::Open { fd, dir: false },
        Ok(FileType::Symlink) => Found::Link,
        Ok(_) => Found::Special,
        Err(_) => Found::Missing,
    }
}

fn not_opened(e: Errno) -> Found {
    match e {
        Errno::NOENT => Found::Missing,
        // A link on the way (`ELOOP`), out of the tree (`EXDEV`), or a link where a folder was
        // expected (`ENOTDIR` in the component walk).
        _ => Found::Link,
    }
}

/// Kernels without `openat2` (before 5.6): one component at a time, `O_NOFOLLOW` each.
fn walk_nofollow(dir: &OwnedFd, rel: &Path) -> Result<OwnedFd, Errno> {
    let mut cur = rustix::io::fcntl_dupfd_cloexec(dir, 0)?;
    let comps: Vec<_> = rel.components().collect();
    for (i, c) in comps.iter().enumerate() {
        let name = match c {
            Component::CurDir => continue,
            Component::Normal(n) => *n,
            _ => return Err(Errno::XDEV),
        };
        let last = i + 1 == comps.len();
        let flags = if last {
            PATH_FLAGS
        } else {
            PATH_FLAGS | OFlags::DIRECTORY
        };
        cur = rustix::fs::openat(&cur, name, flags, Mode::empty())?;
    }
    Ok(cur)
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    /// A link anywhere on the way, or at the end, is never opened; a nested tree is opened
    /// beneath its outer one; a path no tree holds is bound by path.
    #[test]
    fn links_in_trees_are_never_followed() {
        let base = std::env::temp_dir().join(format!("tw-binds-{}", crate::util::new_id()));
        let root = base.join("root");
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::os::unix::fs::symlink("../..", root.join(".envrc")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("inner")).unwrap();
        let b = Binder::new([root.as_path(), root.join("inner").as_path()]);
        assert!(matches!(
            b.open(&root.join(".git/hooks")),
            Some(Found::Open { dir: true, .. })
        ));
        assert!(matches!(b.open(&root.join(".envrc")), Some(Found::Link)));
        assert!(matches!(b.open(&root.join("inner/x")), Some(Found::Link)));
        assert!(matches!(b.open(&root.join("nope")), Some(Found::Missing)));
        assert!(b.open(&base.join("outside")).is_none());
        let mut b = b;
        let mut a = Vec::new();
        assert!(
            b.bind(
                &mut a,
                &root.join(".git/hooks"),
                &root.join(".git/hooks"),
                false,
                false
            )
            .is_ok()
        );
        assert_eq!(a[0], "--ro-bind-fd");
        assert_eq!(b.into_fds().len(), 1);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
