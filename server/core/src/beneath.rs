//! Opening files below a root without a time-of-check/time-of-use window: every open goes
//! through `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)` from a
//! descriptor of the root, so a component swapped for a symlink (or `..`) after the path was
//! checked makes the open fail instead of escaping. Writes create missing directories one
//! component at a time the same way, and rename inside the directory descriptor they opened.
//! Safe Rust over `rustix`; kernels without `openat2` (before 5.6) fall back to `O_NOFOLLOW`.
use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

const RESOLVE: ResolveFlags = ResolveFlags::BENEATH
    .union(ResolveFlags::NO_SYMLINKS)
    .union(ResolveFlags::NO_MAGICLINKS);

fn escaped(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!(
            "{} leads through a symbolic link or out of its root; file tools do not follow links",
            path.display()
        ),
    )
}

fn map(e: Errno, path: &Path) -> std::io::Error {
    match e {
        Errno::XDEV | Errno::LOOP => escaped(path),
        e => e.into(),
    }
}

fn rel<'p>(root: &Path, path: &'p Path) -> std::io::Result<&'p Path> {
    let r = path.strip_prefix(root).map_err(|_| {
        std::io::Error::other(format!(
            "{} is not below {}",
            path.display(),
            root.display()
        ))
    })?;
    Ok(if r.as_os_str().is_empty() {
        Path::new(".")
    } else {
        r
    })
}

fn root_dir(root: &Path) -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

fn openat2(
    dir: &OwnedFd,
    rel: &Path,
    flags: OFlags,
    mode: Mode,
    full: &Path,
) -> std::io::Result<OwnedFd> {
    let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    match rustix::fs::openat2(dir, rel, flags, mode, RESOLVE) {
        Ok(fd) => Ok(fd),
        Err(Errno::NOSYS) => rustix::fs::openat(dir, rel, flags, mode).map_err(|e| map(e, full)),
        Err(e) => Err(map(e, full)),
    }
}

/// Open `path` (below `root`) for reading.
pub fn open_read(root: &Path, path: &Path) -> std::io::Result<File> {
    let dir = root_dir(root)?;
    let fd = openat2(
        &dir,
        rel(root, path)?,
        OFlags::RDONLY | OFlags::NONBLOCK,
        Mode::empty(),
        path,
    )?;
    Ok(File::from(fd))
}

/// Open the directory `dir` (below `root`, or `root` itself), creating what is missing one
/// component at a time.
fn dir_creating(root: &Path, dir: &Path) -> std::io::Result<OwnedFd> {
    let mut cur = root_dir(root)?;
    for c in rel(root, dir)?.components() {
        let name = match c {
            Component::CurDir => continue,
            Component::Normal(n) => Path::new(n),
            _ => return Err(escaped(dir)),
        };
        let flags = OFlags::RDONLY | OFlags::DIRECTORY;
        cur = match openat2(&cur, name, flags, Mode::empty(), dir) {
            Ok(fd) => fd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match rustix::fs::mkdirat(&cur, name, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(map(e, dir)),
                }
                openat2(&cur, name, flags, Mode::empty(), dir)?
            }
            Err(e) => return Err(e),
        };
    }
    Ok(cur)
}

/// Write `bytes` to `path` (below `root`) atomically: a temp file in the same directory, fsync,
/// rename inside that directory's descriptor, fsync of the directory. The old bytes or the new,
/// never a mix, and never through a link.
pub fn atomic_write(root: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent directory"));
    };
    let dir = dir_creating(root, parent)?;
    let mode = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => {
            return Err(escaped(path));
        }
        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => {
            st.st_mode & 0o7777
        }
        Ok(_) => {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )));
        }
        Err(_) => 0o644,
    };
    let tmp = format!(
        ".{}.tw-tmp-{}",
        name.to_string_lossy(),
        crate::util::new_id()
    );
    let result = (|| -> std::io::Result<()> {
        let fd = rustix::fs::openat(
            &dir,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )?;
        let mut f = File::from(fd);
        f.write_all(bytes)?;
        f.sync_all()?;
        rustix::fs::renameat(&dir, tmp.as_str(), &dir, name)?;
        rustix::fs::fsync(&dir)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), AtFlags::empty());
    }
    result
}

/// Put a regular file with `bytes` and permission bits `mode` at `path` (below `root`), in
/// place of whatever file or link is there (the link itself is replaced, never followed).
pub fn replace_file(root: &Path, path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let (dir, name) = parent_beneath(root, path)?;
    let tmp = format!(
        ".{}.tw-tmp-{}",
        name.to_string_lossy(),
        crate::util::new_id()
    );
    let result = (|| -> std::io::Result<()> {
        let fd = rustix::fs::openat(
            &dir,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode & 0o7777))?;
        let mut f = File::from(fd);
        f.write_all(bytes)?;
        f.sync_all()?;
        rustix::fs::renameat(&dir, tmp.as_str(), &dir, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), AtFlags::empty());
    }
    result
}

/// Put a symbolic link to `target` at `path` (below `root`), in place of a file or link there.
pub fn replace_symlink(root: &Path, path: &Path, target: &[u8]) -> std::io::Result<()> {
    let (dir, name) = parent_beneath(root, path)?;
    let tmp = format!(
        ".{}.tw-tmp-{}",
        name.to_string_lossy(),
        crate::util::new_id()
    );
    let target = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(target);
    rustix::fs::symlinkat(target, &dir, tmp.as_str())?;
    if let Err(e) = rustix::fs::renameat(&dir, tmp.as_str(), &dir, name) {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), AtFlags::empty());
        return Err(e.into());
    }
    Ok(())
}

/// Remove the file or link at `path` (below `root`; a directory there is left alone), then the
/// directories above it that this leaves empty, up to (never including) `root`.
pub fn remove_file_and_empty_parents(root: &Path, path: &Path) -> std::io::Result<()> {
    let (dir, name) = match parent_beneath(root, path) {
        Ok(x) => x,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match rustix::fs::unlinkat(&dir, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) | Err(Errno::ISDIR) | Err(Errno::PERM) => {}
        Err(e) => return Err(map(e, path)),
    }
    let mut cur = path.parent();
    while let Some(d) = cur {
        if d == root || !d.starts_with(root) {
            break;
        }
        let Ok((parent, name)) = parent_beneath(root, d) else {
            break;
        };
        if rustix::fs::unlinkat(&parent, name, AtFlags::REMOVEDIR).is_err() {
            break;
        }
        cur = d.parent();
    }
    Ok(())
}

/// The directory holding `path` (created as needed, below `root`) and the last component.
fn parent_beneath<'p>(
    root: &Path,
    path: &'p Path,
) -> std::io::Result<(OwnedFd, &'p std::ffi::OsStr)> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent directory"));
    };
    Ok((dir_creating(root, parent)?, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("tw-beneath-{}", crate::util::new_id()));
        std::fs::create_dir_all(&p).ok();
        std::fs::canonicalize(&p).unwrap_or(p)
    }

    /// A directory swapped for a symlink after the check cannot be used to read or write
    /// outside the root.
    #[test]
    fn swapped_components_do_not_escape() {
        let root = tmp();
        let outside = tmp();
        std::fs::write(outside.join("secret"), b"s").ok();
        std::os::unix::fs::symlink(&outside, root.join("sub")).ok();
        assert!(open_read(&root, &root.join("sub/secret")).is_err());
        assert!(atomic_write(&root, &root.join("sub/new"), b"x").is_err());
        assert!(!outside.join("new").exists());
        std::os::unix::fs::symlink(outside.join("secret"), root.join("link")).ok();
        assert!(open_read(&root, &root.join("link")).is_err());
        assert!(atomic_write(&root, &root.join("link"), b"x").is_err());
        assert_eq!(
            std::fs::read(outside.join("secret")).unwrap_or_default(),
            b"s"
        );
        assert!(open_read(&root, &root.join("../x")).is_err());
        // Ordinary use works: nested directories are created, modes kept.
        atomic_write(&root, &root.join("a/b/c.txt"), b"hello").ok();
        let mut s = String::new();
        if let Ok(mut f) = open_read(&root, &root.join("a/b/c.txt")) {
            std::io::Read::read_to_string(&mut f, &mut s).ok();
        }
        assert_eq!(s, "hello");
        std::fs::remove_dir_all(&root).ok();
        std::fs::remove_dir_all(&outside).ok();
    }
}
