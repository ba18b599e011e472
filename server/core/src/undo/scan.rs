//! Reading a workspace into a manifest. The walk follows the workspace's `.gitignore` files
//! (as git would in that folder, without the user's global excludes) and always leaves out
//! version-control, dependency and build folders, nested repositories and the server's own
//! state directory. A file is read and hashed only when its size, times, inode or mode changed
//! since the last snapshot (the stat cache, kept in memory and in the store's `index`), so a
//! snapshot of an unchanged workspace costs a walk and a `stat` per file.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::objects::{Entry, Kind, Manifest, Objects};

/// Folders left out at any depth.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
];
/// Folders left out at the workspace's top level.
const SKIPPED_TOP: &[&str] = &[".tradewind/cache"];

/// A file modified this close to the scan may change again within the file system's timestamp
/// granularity without its metadata changing: its cache entry is not trusted next time.
const RACY: Duration = Duration::from_secs(2);

/// What the cache knows of a file: the metadata it had when its blob was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
    mode: u32,
}

impl Stat {
    fn of(m: &std::fs::Metadata) -> Stat {
        Stat {
            size: m.size(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
            ino: m.ino(),
            mode: m.mode(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Cached {
    stat: Stat,
    entry: Entry,
    /// Modified too close to the scan that stored it: read again next time.
    racy: bool,
}

/// The stat cache of one workspace.
#[derive(Debug, Default)]
pub struct Index {
    files: HashMap<String, Cached>,
    loaded: bool,
    dirty: bool,
}

/// The index file's first line.
const INDEX_HEADER: &str = "tradewind-index 1\n";

impl Index {
    /// Read the store's saved index, once.
    pub fn load(&mut self, objects: &Objects) {
        if self.loaded {
            return;
        }
        self.loaded = true;
        let Ok(bytes) = std::fs::read(objects.dir.join("index")) else {
            return;
        };
        let Some(body) = bytes.strip_prefix(INDEX_HEADER.as_bytes()) else {
            return;
        };
        for rec in body.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            if let Some((path, c)) = std::str::from_utf8(rec).ok().and_then(parse_cached) {
                self.files.insert(path, c);
            }
        }
    }

    /// Save the index if it changed (a lost index only costs reading the files again).
    pub fn save(&mut self, objects: &Objects) {
        if !self.dirty {
            return;
        }
        let mut out = Vec::with_capacity(INDEX_HEADER.len() + self.files.len() * 160);
        out.extend_from_slice(INDEX_HEADER.as_bytes());
        for (path, c) in self.files.iter().filter(|(_, c)| !c.racy) {
            let s = c.stat;
            let e = c.entry;
            let kind = match e.kind {
                Kind::File => 'f',
                Kind::Executable => 'x',
                Kind::Symlink => 'l',
            };
            out.extend_from_slice(
                format!(
                    "{kind} {} {} {} {} {} {} {}\t{path}",
                    super::objects::hex(&e.hash),
                    e.size,
                    s.size,
                    s.mtime_ns,
                    s.ctime_ns,
                    s.ino,
                    s.mode
                )
                .as_bytes(),
            );
            out.push(0);
        }
        let tmp = objects
            .dir
            .join(format!("index.tmp-{}", crate::util::new_id()));
        if std::fs::write(&tmp, &out).is_ok()
            && std::fs::rename(&tmp, objects.dir.join("index")).is_ok()
        {
            self.dirty = false;
        } else {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// Forget entries whose blob is no longer stored (after a collection).
    pub fn retain_stored(&mut self, objects: &Objects) {
        let before = self.files.len();
        self.files.retain(|_, c| objects.has(&c.entry.hash));
        self.dirty |= self.files.len() != before;
    }
}

fn parse_cached(rec: &str) -> Option<(String, Cached)> {
    let (head, path) = rec.split_once('\t')?;
    let f: Vec<&str> = head.split(' ').collect();
    let [kind, hash, esize, size, mtime, ctime, ino, mode] = f.as_slice() else {
        return None;
    };
    let kind = match *kind {
        "f" => Kind::File,
        "x" => Kind::Executable,
        "l" => Kind::Symlink,
        _ => return None,
    };
    let hash: [u8; 32] = hex::decode(hash).ok()?.try_into().ok()?;
    Some((
        path.to_string(),
        Cached {
            stat: Stat {
                size: size.parse().ok()?,
                mtime_ns: mtime.parse().ok()?,
                ctime_ns: ctime.parse().ok()?,
                ino: ino.parse().ok()?,
                mode: mode.parse().ok()?,
            },
            entry: Entry {
                kind,
                hash,
                size: esize.parse().ok()?,
            },
            racy: false,
        },
    ))
}

/// What a scan leaves out besides `.gitignore`'s rules.
#[derive(Debug, Clone)]
pub struct Skip {
    /// The server's state directory, when it lies in the workspace.
    pub state_dir: Option<PathBuf>,
}

/// Walk `ws` and store what changed: the manifest of the workspace now.
pub fn scan(
    ws: &Path,
    objects: &Objects,
    index: &mut Index,
    skip: &Skip,
) -> Result<Manifest, String> {
    index.load(objects);
    let started = SystemTime::now();
    let racy_after = started
        .checked_sub(RACY)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    let top = ws.to_path_buf();
    let state_dir = skip.state_dir.clone();
    let walker = ignore::WalkBuilder::new(ws)
        .standard_filters(false)
        .hidden(false)
        .parents(false)
        .ignore(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            if !e.file_type().is_some_and(|t| t.is_dir()) || e.depth() == 0 {
                return true;
            }
            let p = e.path();
            let name = e.file_name().to_string_lossy();
            if SKIPPED_DIRS.contains(&name.as_ref()) {
                return false;
            }
            if let Ok(rel) = p.strip_prefix(&top)
                && SKIPPED_TOP.iter().any(|s| rel == Path::new(s))
            {
                return false;
            }
            if state_dir.as_deref() == Some(p) {
                return false;
            }
            // A nested repository is its own project: git would record it as a link, not its
            // files.
            std::fs::symlink_metadata(p.join(".git")).is_err()
        })
        .build();
    let mut manifest = Manifest::new();
    let mut seen = std::collections::HashSet::new();
    for dent in walker {
        let Ok(dent) = dent else { continue };
        let Some(ft) = dent.file_type() else { continue };
        if !(ft.is_file() || ft.is_symlink()) {
            continue;
        }
        let Ok(rel) = dent.path().strip_prefix(ws) else {
            continue;
        };
        // Names that are not UTF-8 are left out (the transcript and the API name files as text).
        let Some(rel) = rel.to_str().map(str::to_string) else {
            tracing::debug!(path = %dent.path().display(), "left out of the snapshot: not a UTF-8 name");
            continue;
        };
        let Ok(meta) = dent.path().symlink_metadata() else {
            continue;
        };
        let stat = Stat::of(&meta);
        let entry = match index.files.get(&rel) {
            Some(c) if c.stat == stat && !c.racy => c.entry,
            _ => match store_file(dent.path(), &meta, objects) {
                Ok(Some(e)) => {
                    index.files.insert(
                        rel.clone(),
                        Cached {
                            stat,
                            entry: e,
                            racy: stat.mtime_ns >= racy_after || stat.ctime_ns >= racy_after,
                        },
                    );
                    index.dirty = true;
                    e
                }
                // Gone, or no longer a file, since the walk saw it.
                Ok(None) => continue,
                Err(e) => {
                    tracing::debug!(path = %dent.path().display(), error = %e, "left out of the snapshot: unreadable");
                    continue;
                }
            },
        };
        seen.insert(rel.clone());
        manifest.insert(rel, entry);
    }
    let before = index.files.len();
    index.files.retain(|p, _| seen.contains(p));
    index.dirty |= index.files.len() != before;
    Ok(manifest)
}

/// A file's content now, stored (`None`: there is no file there): kept before a tool changes
/// it. A blob stored earlier is made young again, so a collection running meanwhile keeps it.
pub fn pre_image(path: &Path, objects: &Objects) -> std::io::Result<Option<Entry>> {
    let meta = match path.symlink_metadata() {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return Ok(None);
    }
    let entry = store_file(path, &meta, objects)?;
    if let Some(e) = &entry {
        objects.touch(&e.hash);
    }
    Ok(entry)
}

/// Store one file's content (a link's target for a symbolic link).
fn store_file(
    path: &Path,
    meta: &std::fs::Metadata,
    objects: &Objects,
) -> std::io::Result<Option<Entry>> {
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path)?;
        let bytes = target.as_os_str().as_encoded_bytes();
        return Ok(Some(Entry {
            kind: Kind::Symlink,
            hash: objects.put_bytes(bytes)?,
            size: bytes.len() as u64,
        }));
    }
    // Never follow a link swapped in after the walk, and never block on a FIFO.
    let mut f = match rustix::fs::open(
        path,
        rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) {
        Ok(fd) => std::fs::File::from(fd),
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::LOOP) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let now = f.metadata()?;
    if !now.file_type().is_file() {
        return Ok(None);
    }
    let (hash, size) = objects.put_file(&mut f, now.len())?;
    let kind = if now.mode() & 0o100 != 0 {
        Kind::Executable
    } else {
        Kind::File
    };
    Ok(Some(Entry { kind, hash, size }))
}
