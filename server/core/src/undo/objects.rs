//! A workspace's snapshot store on disk: file contents as blobs named by their SHA-256
//! (`objects/ab/cdef…`), and each snapshot as a manifest (`trees/<id>`) listing every file's
//! path, mode, blob and size, named by the SHA-256 of its own bytes. Identical workspaces give
//! identical ids. Everything is written to a temporary name and renamed into place, blobs before
//! the manifest that names them, so a snapshot interrupted at any point leaves no manifest and
//! an earlier, complete one is what a revert finds.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The first line of every manifest.
const MANIFEST_HEADER: &str = "tradewind-snapshot 1\n";

/// Files up to this size are hashed from memory; larger ones are streamed to a temporary blob.
const IN_MEMORY: u64 = 4 << 20;

/// What a manifest records of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    pub hash: [u8; 32],
    pub size: u64,
}

/// A regular file (with or without its owner's execute bit) or a symbolic link (the blob is the
/// link's target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Executable,
    Symlink,
}

impl Kind {
    fn code(self) -> &'static str {
        match self {
            Kind::File => "100644",
            Kind::Executable => "100755",
            Kind::Symlink => "120000",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        match s {
            "100644" => Some(Kind::File),
            "100755" => Some(Kind::Executable),
            "120000" => Some(Kind::Symlink),
            _ => None,
        }
    }
}

/// A snapshot: every file by its path relative to the workspace (`/`-separated, UTF-8).
pub type Manifest = BTreeMap<String, Entry>;

pub fn hex(h: &[u8; 32]) -> String {
    crate::util::hex(h)
}

fn unhex(s: &str) -> Option<[u8; 32]> {
    let v = hex::decode(s).ok()?;
    v.try_into().ok()
}

/// Whether `id` can name a manifest of this store (64 lowercase hex digits).
pub fn is_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The bytes of a manifest, and so its id.
pub fn encode(m: &Manifest) -> Vec<u8> {
    let mut out = Vec::with_capacity(MANIFEST_HEADER.len() + m.len() * 96);
    out.extend_from_slice(MANIFEST_HEADER.as_bytes());
    for (path, e) in m {
        out.extend_from_slice(
            format!("{} {} {}\t", e.kind.code(), hex(&e.hash), e.size).as_bytes(),
        );
        out.extend_from_slice(path.as_bytes());
        out.push(0);
    }
    out
}

fn decode(bytes: &[u8]) -> Result<Manifest, String> {
    let body = bytes
        .strip_prefix(MANIFEST_HEADER.as_bytes())
        .ok_or("not a snapshot manifest")?;
    let mut m = Manifest::new();
    for rec in body.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let rec = std::str::from_utf8(rec).map_err(|_| "a manifest entry is not UTF-8")?;
        let (head, path) = rec.split_once('\t').ok_or("a manifest entry has no path")?;
        let mut f = head.split(' ');
        let (Some(kind), Some(hash), Some(size)) = (
            f.next().and_then(Kind::parse),
            f.next().and_then(unhex),
            f.next().and_then(|s| s.parse().ok()),
        ) else {
            return Err(format!("a manifest entry is malformed: {head}"));
        };
        m.insert(path.to_string(), Entry { kind, hash, size });
    }
    Ok(m)
}

/// One workspace's store.
#[derive(Debug, Clone)]
pub struct Objects {
    pub dir: PathBuf,
}

impl Objects {
    pub fn new(dir: PathBuf) -> Objects {
        Objects { dir }
    }

    fn blob_path(&self, hash: &[u8; 32]) -> PathBuf {
        let h = hex(hash);
        self.dir.join("objects").join(&h[..2]).join(&h[2..])
    }

    fn tree_path(&self, id: &str) -> PathBuf {
        self.dir.join("trees").join(id)
    }

    /// A new temporary file in the store (renamed into place when complete).
    fn temp(&self) -> std::io::Result<(PathBuf, std::fs::File)> {
        let dir = self.dir.join("tmp");
        crate::state_dir::ensure_dir(&dir).map_err(std::io::Error::other)?;
        let path = dir.join(crate::util::new_id());
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok((path, f))
    }

    /// Move a complete temporary file to `dest` (its directory made as needed); a `dest` that
    /// exists already holds the same bytes (names are hashes).
    fn install(&self, tmp: &Path, dest: &Path) -> std::io::Result<()> {
        if dest.exists() {
            let _ = std::fs::remove_file(tmp);
            return Ok(());
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::rename(tmp, dest)
    }

    /// Store `bytes` as a blob; returns its hash.
    pub fn put_bytes(&self, bytes: &[u8]) -> std::io::Result<[u8; 32]> {
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        let dest = self.blob_path(&hash);
        if !dest.exists() {
            let (tmp, mut f) = self.temp()?;
            f.write_all(bytes)?;
            drop(f);
            self.install(&tmp, &dest)?;
        }
        Ok(hash)
    }

    /// Store what `file` holds (`size` bytes as its metadata said; what is read counts);
    /// returns the hash and the size read.
    pub fn put_file(
        &self,
        file: &mut std::fs::File,
        size: u64,
    ) -> std::io::Result<([u8; 32], u64)> {
        if size <= IN_MEMORY {
            let mut buf = Vec::with_capacity(size as usize);
            file.read_to_end(&mut buf)?;
            let n = buf.len() as u64;
            return Ok((self.put_bytes(&buf)?, n));
        }
        let (tmp, mut out) = self.temp()?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 256 << 10];
        let mut n = 0u64;
        let result = (|| -> std::io::Result<()> {
            loop {
                let r = file.read(&mut buf)?;
                if r == 0 {
                    return Ok(());
                }
                hasher.update(&buf[..r]);
                out.write_all(&buf[..r])?;
                n += r as u64;
            }
        })();
        drop(out);
        if let Err(e) = result {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        let hash: [u8; 32] = hasher.finalize().into();
        self.install(&tmp, &self.blob_path(&hash))?;
        Ok((hash, n))
    }

    /// Make a stored blob young again (a collection keeps what was written since its cutoff).
    pub fn touch(&self, hash: &[u8; 32]) {
        if let Ok(f) = std::fs::File::options()
            .append(true)
            .open(self.blob_path(hash))
        {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }

    /// A blob's bytes.
    pub fn get(&self, hash: &[u8; 32]) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.blob_path(hash))
    }

    /// Store a manifest (unless an identical one is stored); returns its id.
    pub fn put_manifest(&self, m: &Manifest) -> std::io::Result<String> {
        let bytes = encode(m);
        let id = crate::util::sha256_hex(&bytes);
        let dest = self.tree_path(&id);
        if dest.exists() {
            // Reused: young again, so a collection before it is recorded keeps it.
            if let Ok(f) = std::fs::File::options().append(true).open(&dest) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
        } else {
            let (tmp, mut f) = self.temp()?;
            f.write_all(&bytes)?;
            drop(f);
            self.install(&tmp, &dest)?;
        }
        Ok(id)
    }

    /// A stored manifest.
    pub fn manifest(&self, id: &str) -> Result<Manifest, String> {
        if !is_id(id) {
            return Err(format!("{id} is not a snapshot id"));
        }
        let bytes = std::fs::read(self.tree_path(id))
            .map_err(|e| format!("snapshot {} is not in the store: {e}", &id[..12]))?;
        decode(&bytes)
    }

    /// Keep the manifests in `live`, every manifest written or reused since `cutoff` (a
    /// snapshot taken but not recorded yet), and the blobs they name; remove every other
    /// manifest, blob and temporary file last changed before `cutoff`. Returns the store's size
    /// afterwards. Runs while no snapshot of the workspace is being taken.
    pub fn gc(&self, live: &[String], blobs: &[[u8; 32]], cutoff: std::time::SystemTime) -> u64 {
        let young = |p: &Path| {
            std::fs::symlink_metadata(p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= cutoff)
        };
        let live: std::collections::HashSet<&str> = live.iter().map(String::as_str).collect();
        let mut keep_blobs: std::collections::HashSet<String> = blobs.iter().map(hex).collect();
        let mut size = 0u64;
        for e in std::fs::read_dir(self.dir.join("trees"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let (p, name) = (e.path(), e.file_name().to_string_lossy().into_owned());
            if live.contains(name.as_str()) || young(&p) {
                if let Ok(m) = self.manifest(&name) {
                    keep_blobs.extend(m.values().map(|e| hex(&e.hash)));
                }
                size += e.metadata().map(|m| m.len()).unwrap_or(0);
            } else {
                let _ = std::fs::remove_file(&p);
            }
        }
        for d in std::fs::read_dir(self.dir.join("objects"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let prefix = d.file_name().to_string_lossy().into_owned();
            for e in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
                let p = e.path();
                let name = format!("{prefix}{}", e.file_name().to_string_lossy());
                if keep_blobs.contains(&name) || young(&p) {
                    size += e.metadata().map(|m| m.len()).unwrap_or(0);
                } else {
                    let _ = std::fs::remove_file(&p);
                }
            }
            let _ = std::fs::remove_dir(d.path());
        }
        for e in std::fs::read_dir(self.dir.join("tmp"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if !young(&e.path()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
        size
    }

    /// Whether the blob is stored.
    pub fn has(&self, hash: &[u8; 32]) -> bool {
        self.blob_path(hash).exists()
    }
}

/// The paths whose entries differ between two manifests (added, removed or changed).
pub fn changed(a: &Manifest, b: &Manifest) -> Vec<String> {
    let mut out: Vec<String> = a
        .iter()
        .filter(|(p, e)| b.get(*p) != Some(e))
        .map(|(p, _)| p.clone())
        .collect();
    out.extend(b.keys().filter(|p| !a.contains_key(*p)).cloned());
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_round_trip_and_name_themselves() {
        let mut m = Manifest::new();
        m.insert(
            "src/a b.rs".into(),
            Entry {
                kind: Kind::Executable,
                hash: [7; 32],
                size: 12,
            },
        );
        m.insert(
            "link".into(),
            Entry {
                kind: Kind::Symlink,
                hash: [1; 32],
                size: 3,
            },
        );
        let bytes = encode(&m);
        assert_eq!(decode(&bytes), Ok(m.clone()));
        assert!(decode(b"something else").is_err());
        let mut other = m.clone();
        other.remove("link");
        assert_eq!(changed(&m, &other), ["link"]);
        assert!(is_id(&crate::util::sha256_hex(&bytes)));
        assert!(!is_id("../../etc"));
    }
}
