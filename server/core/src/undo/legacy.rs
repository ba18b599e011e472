//! Snapshots an earlier release took, in a hidden git object store per workspace
//! (`<state>/snapshots/<hash>`, named by 40-hex tree ids in the database). A revert to one of
//! them copies that tree into the current store first; git runs only then, on a store the
//! server made itself (no user or system configuration read, no work tree), never for a new
//! snapshot. Stores nothing names any more are removed by the collection.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::objects::{Entry, Kind, Manifest, Objects};

/// Whether `id` names a tree of an earlier release's store.
pub fn is_legacy_id(id: &str) -> bool {
    id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The earlier release's store of a workspace.
pub fn store_dir(state_dir: &Path, ws: &Path) -> PathBuf {
    let h = crate::util::sha256_hex(ws.as_os_str().as_encoded_bytes());
    state_dir.join("snapshots").join(&h[..16])
}

fn git(dir: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg(format!("--git-dir={}", dir.display()))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// Copy tree `tree` of the old store `dir` into `objects`: its manifest.
pub async fn import(dir: &Path, tree: &str, objects: &Objects) -> Result<Manifest, String> {
    if !is_legacy_id(tree) || !dir.join("HEAD").exists() {
        return Err(format!("snapshot {tree} is not in the store"));
    }
    let out = git(dir)
        .args(["ls-tree", "-r", "-z", "--full-tree", tree])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .await
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "snapshot {tree} cannot be read: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // `<mode> <type> <id>\t<path>`, NUL-terminated; submodule links (`commit`) hold no files.
    let mut wanted: Vec<(String, Kind, String)> = Vec::new();
    for rec in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let rec = String::from_utf8_lossy(rec);
        let Some((head, path)) = rec.split_once('\t') else {
            continue;
        };
        let f: Vec<&str> = head.split(' ').collect();
        let kind = match f.as_slice() {
            ["100755", "blob", _] => Kind::Executable,
            ["120000", "blob", _] => Kind::Symlink,
            [_, "blob", _] => Kind::File,
            _ => continue,
        };
        wanted.push((path.to_string(), kind, f[2].to_string()));
    }
    let mut child = git(dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("git has no input")?;
    let ids: String = wanted.iter().map(|(_, _, id)| format!("{id}\n")).collect();
    let writer = tokio::spawn(async move {
        let _ = stdin.write_all(ids.as_bytes()).await;
    });
    let mut stdout = child.stdout.take().ok_or("git has no output")?;
    let mut raw = Vec::new();
    stdout
        .read_to_end(&mut raw)
        .await
        .map_err(|e| format!("cannot read git's output: {e}"))?;
    let _ = writer.await;
    let _ = child.wait().await;
    // `<id> blob <size>\n<bytes>\n` per object.
    let mut m = Manifest::new();
    let mut at = 0usize;
    for (path, kind, _) in wanted {
        let Some(nl) = raw[at..].iter().position(|b| *b == b'\n') else {
            return Err("git's output ended early".into());
        };
        let header = String::from_utf8_lossy(&raw[at..at + nl]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("git could not read an object: {header}"))?;
        let start = at + nl + 1;
        let bytes = raw
            .get(start..start + size)
            .ok_or("git's output ended early")?;
        let hash = objects
            .put_bytes(bytes)
            .map_err(|e| format!("cannot store a file of the snapshot: {e}"))?;
        m.insert(
            path,
            Entry {
                kind,
                hash,
                size: size as u64,
            },
        );
        at = start + size + 1;
    }
    Ok(m)
}

/// Every old store (by directory).
pub fn stores(state_dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(state_dir.join("snapshots"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("HEAD").exists())
                .collect()
        })
        .unwrap_or_default()
}
