//! File tools: read_file, list_files, write_file, edit_file.
//!
//! Writes are atomic (temp file in the same directory, fsync, rename, fsync of the directory)
//! and never follow a symlink at the target. Edits require the SHA-256 fingerprint the model got
//! from read_file and an exact, unique match.

use std::path::{Path, PathBuf};

use super::{Gated, MAX_FILE_BYTES, MAX_MODEL_TEXT, PrepareError, ToolCtx, ToolOutput, bound_text};
use crate::policy::paths::PathPolicy as PolicyPaths;
use crate::policy::paths::content_denied;
use crate::protocol::Part;
use crate::util::sha256_hex;

/// Diff parts are cut at a line boundary after this many bytes.
pub const MAX_DIFF_BYTES: usize = 200 * 1024;

/// Read a file for a tool: size cap, no symlink (anywhere below `root`), text only, no key
/// material.
fn read_checked(root: &Path, path: &Path) -> Result<Vec<u8>, ToolOutput> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            ToolOutput::err("not_found", format!("{} does not exist", path.display()))
        }
        _ => ToolOutput::err("io", e),
    })?;
    if meta.file_type().is_symlink() {
        return Err(ToolOutput::err(
            "symlink_rejected",
            "file tools do not follow symbolic links",
        ));
    }
    if meta.is_dir() {
        return Err(ToolOutput::err(
            "is_directory",
            format!("{} is a directory; use list_files", path.display()),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolOutput::err(
            "too_large",
            format!(
                "the file is {} bytes; the limit is {MAX_FILE_BYTES}",
                meta.len()
            ),
        ));
    }
    let mut f = crate::beneath::open_read(root, path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            ToolOutput::err("symlink_rejected", e)
        } else {
            ToolOutput::err("io", e)
        }
    })?;
    match f.metadata() {
        Ok(m) if m.is_file() => {}
        _ => {
            return Err(ToolOutput::err(
                "not_a_file",
                "the path changed to something that is not a regular file",
            ));
        }
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    std::io::Read::by_ref(&mut f)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| ToolOutput::err("io", e))?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        return Err(ToolOutput::err(
            "too_large",
            format!("the file is larger than {MAX_FILE_BYTES} bytes"),
        ));
    }
    if let Some(why) = content_denied(&buf) {
        return Err(ToolOutput::err("path_denied", why));
    }
    Ok(buf)
}

use std::io::Read as _;

/// Files up to this size are read on the calling task, like the path checks before them: a few
/// system calls and a hash of at most this many bytes cost less than the trip to the blocking
/// pool and back, which is most of a small read's time. Larger files are read on the pool.
pub const INLINE_READ_BYTES: u64 = 32 * 1024;

pub async fn read_file(
    ctx: &ToolCtx<'_>,
    root: &Path,
    path: &Path,
    display: &str,
    offset: Option<usize>,
    limit: Option<usize>,
) -> ToolOutput {
    let raw = ctx.file_allowed(path);
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.len() <= INLINE_READ_BYTES) {
        return read_text(root, path, display, offset, limit, raw);
    }
    let (root, path) = (root.to_path_buf(), path.to_path_buf());
    let display = display.to_string();
    tokio::task::spawn_blocking(move || read_text(&root, &path, &display, offset, limit, raw))
        .await
        .unwrap_or_else(|e| ToolOutput::err("internal", e))
}

/// read_file's work: the checked bytes, their SHA-256, and the requested lines, bounded.
pub(crate) fn read_text(
    root: &Path,
    path: &Path,
    display: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    raw: bool,
) -> ToolOutput {
    let buf = match read_checked(root, path) {
        Ok(b) => b,
        Err(e) => return e,
    };
    if buf.iter().take(8192).any(|&b| b == 0) {
        return ToolOutput::err(
            "binary",
            "the file looks binary; read_file reads text files",
        );
    }
    let sha = sha256_hex(&buf);
    let text = String::from_utf8_lossy(&buf);
    let total = text.lines().count();
    let start = offset.unwrap_or(1).max(1);
    let body: String = match (offset, limit) {
        (None, None) => text.into_owned(),
        _ => {
            let lim = limit.unwrap_or(usize::MAX);
            let mut s: String = text
                .lines()
                .skip(start - 1)
                .take(lim)
                .collect::<Vec<_>>()
                .join("\n");
            s.push('\n');
            s
        }
    };
    // Secret-looking values are not shown unless the user allowed this file for the session.
    let (body, note) = if raw {
        (body, String::new())
    } else {
        match crate::policy::secrets::redact(&body) {
            (_, found) if found.is_empty() => (body, String::new()),
            (redacted, found) => (
                redacted,
                format!(
                    "redacted: {} secret-looking value(s) ({}); the user can allow this file for the session to show them\n",
                    found.len(),
                    found.join(", ")
                ),
            ),
        }
    };
    ToolOutput::ok(format!(
        "path: {display}\nsha256: {sha}\nlines: {total}, bytes: {}\n{note}---\n{}",
        buf.len(),
        bound_text(&body, MAX_MODEL_TEXT)
    ))
}

pub async fn list_files(
    ctx: &ToolCtx<'_>,
    dir: PathBuf,
    glob: Option<String>,
    limit: usize,
) -> ToolOutput {
    let paths = ctx.paths.clone();
    let res = tokio::task::spawn_blocking(move || -> ToolOutput {
        if !dir.is_dir() {
            return ToolOutput::err(
                "not_a_directory",
                format!("{} is not a directory", dir.display()),
            );
        }
        let matcher = match glob
            .as_deref()
            .map(|g| globset::Glob::new(g).map(|g| g.compile_matcher()))
        {
            Some(Ok(m)) => Some(m),
            Some(Err(e)) => return ToolOutput::err("invalid_input", format!("bad glob: {e}")),
            None => None,
        };
        let walker = ignore::WalkBuilder::new(&dir)
            .hidden(false)
            .follow_links(false)
            .filter_entry(|e| e.file_name() != ".git")
            .build();
        let mut out = Vec::new();
        let mut more = false;
        for entry in walker.flatten() {
            let p = entry.path();
            if p == dir || paths.denied_reason(p).is_some() {
                continue;
            }
            let rel = p.strip_prefix(&dir).unwrap_or(p);
            if let Some(m) = &matcher
                && !m.is_match(rel)
            {
                continue;
            }
            if out.len() >= limit {
                more = true;
                break;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            out.push(format!(
                "{}{}",
                rel.display(),
                if is_dir { "/" } else { "" }
            ));
        }
        out.sort();
        let mut text = out.join("\n");
        if more {
            text.push_str(&format!(
                "\n[… more than {limit} entries; narrow the path or glob …]"
            ));
        }
        if text.is_empty() {
            text = "(no files)".into();
        }
        ToolOutput::ok(bound_text(&text, MAX_MODEL_TEXT))
    })
    .await;
    res.unwrap_or_else(|e| ToolOutput::err("internal", e))
}

/// Write `bytes` to `path` (below `root`) atomically: the old bytes or the new, never a mix,
/// never through a link (see `beneath`).
pub fn atomic_write(root: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::beneath::atomic_write(root, path, bytes)
}

/// Remove temp files left by a writer killed mid-write (called at start for the workspace).
pub fn remove_stray_temp_files(dir: &Path) -> usize {
    let mut n = 0;
    for entry in ignore::WalkBuilder::new(dir)
        .hidden(false)
        .git_ignore(false)
        .follow_links(false)
        .build()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy();
        if name.starts_with('.')
            && name.contains(".tw-tmp-")
            && std::fs::remove_file(entry.path()).is_ok()
        {
            n += 1;
        }
    }
    n
}

fn lang_of(path: &str) -> String {
    Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// A unified patch of the change (`/dev/null` for a new file), cut at a line boundary.
pub fn diff_part(display: &str, old: Option<&str>, new: &str) -> Part {
    let diff = similar::TextDiff::from_lines(old.unwrap_or(""), new);
    let a = if old.is_some() {
        format!("a/{display}")
    } else {
        "/dev/null".to_string()
    };
    let patch = diff
        .unified_diff()
        .context_radius(3)
        .header(&a, &format!("b/{display}"))
        .to_string();
    let (patch, truncated) = if patch.len() > MAX_DIFF_BYTES {
        let cut = crate::util::truncate_str(&patch, MAX_DIFF_BYTES);
        let cut = match cut.rfind('\n') {
            Some(i) => &cut[..=i],
            None => cut,
        };
        (cut.to_string(), true)
    } else {
        (patch, false)
    };
    Part::Diff {
        path: display.to_string(),
        lang: lang_of(display),
        patch,
        truncated,
    }
}

pub async fn write_file(root: &Path, path: &Path, display: &str, content: String) -> ToolOutput {
    let (root, path) = (root.to_path_buf(), path.to_path_buf());
    let display = display.to_string();
    tokio::task::spawn_blocking(move || -> ToolOutput {
        let old = match std::fs::symlink_metadata(&path) {
            Ok(_) => match read_checked(&root, &path) {
                Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                Err(e) => return e,
            },
            Err(_) => None,
        };
        if old.as_deref() == Some(content.as_str()) {
            return ToolOutput::ok(format!(
                "{display} already has this content (unchanged); sha256: {}",
                sha256_hex(content.as_bytes())
            ));
        }
        if let Err(e) = atomic_write(&root, &path, content.as_bytes()) {
            return ToolOutput::err(
                if e.raw_os_error() == Some(28) {
                    "disk_full"
                } else {
                    "io"
                },
                e,
            );
        }
        let mut out = ToolOutput::ok(format!(
            "{} {display} ({} bytes); sha256: {}",
            if old.is_some() { "wrote" } else { "created" },
            content.len(),
            sha256_hex(content.as_bytes())
        ));
        out.parts
            .push(diff_part(&display, old.as_deref(), &content));
        out
    })
    .await
    .unwrap_or_else(|e| ToolOutput::err("internal", e))
}

pub async fn edit_file(
    root: &Path,
    path: &Path,
    display: &str,
    old: &str,
    new: &str,
    sha256: &str,
) -> ToolOutput {
    let (root, path, display, old_s, new_s, want) = (
        root.to_path_buf(),
        path.to_path_buf(),
        display.to_string(),
        old.to_string(),
        new.to_string(),
        sha256.to_string(),
    );
    tokio::task::spawn_blocking(move || -> ToolOutput {
        let buf = match read_checked(&root, &path) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let have = sha256_hex(&buf);
        if have != want {
            return ToolOutput::err("stale_fingerprint", format!("the file changed since you read it (sha256 is {have}); read it again before editing"));
        }
        let text = match String::from_utf8(buf) {
            Ok(t) => t,
            Err(_) => return ToolOutput::err("binary", "the file is not UTF-8 text"),
        };
        let count = text.matches(old_s.as_str()).count();
        if count == 0 {
            return ToolOutput::err("no_match", "`old` was not found in the file; copy it exactly from read_file");
        }
        if count > 1 {
            return ToolOutput::err("not_unique", format!("`old` occurs {count} times; include more surrounding text so it is unique"));
        }
        let updated = text.replacen(old_s.as_str(), &new_s, 1);
        if updated == text {
            return ToolOutput::ok(format!("{display} unchanged (old and new are identical); sha256: {have}"));
        }
        if let Err(e) = atomic_write(&root, &path, updated.as_bytes()) {
            return ToolOutput::err(if e.raw_os_error() == Some(28) { "disk_full" } else { "io" }, e);
        }
        let mut out = ToolOutput::ok(format!("edited {display}; sha256: {}", sha256_hex(updated.as_bytes())));
        out.parts.push(diff_part(&display, Some(&text), &updated));
        out
    })
    .await
    .unwrap_or_else(|e| ToolOutput::err("internal", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> PathBuf {
        let p = std::env::temp_dir().join(format!("tw-fs-{}", crate::util::new_id()));
        std::fs::create_dir_all(&p).ok();
        std::fs::canonicalize(&p).unwrap_or(p)
    }

    #[tokio::test]
    async fn write_then_edit_with_fingerprint_and_uniqueness() {
        let d = tmp();
        let f = d.join("a/b.txt");
        let out = write_file(&d, &f, "a/b.txt", "one\ntwo\ntwo\n".into()).await;
        assert!(out.ok, "{}", out.text);
        assert!(
            matches!(&out.parts[0], Part::Diff { patch, .. } if patch.starts_with("--- /dev/null"))
        );
        let same = write_file(&d, &f, "a/b.txt", "one\ntwo\ntwo\n".into()).await;
        assert!(
            same.ok && same.parts.is_empty(),
            "identical write adds no part"
        );
        let sha = sha256_hex(b"one\ntwo\ntwo\n");
        let stale = edit_file(&d, &f, "a/b.txt", "one", "1", &"0".repeat(64)).await;
        assert!(!stale.ok && stale.text.contains("stale_fingerprint"));
        let dup = edit_file(&d, &f, "a/b.txt", "two", "2", &sha).await;
        assert!(!dup.ok && dup.text.contains("not_unique"));
        let missing = edit_file(&d, &f, "a/b.txt", "zzz", "2", &sha).await;
        assert!(!missing.ok && missing.text.contains("no_match"));
        let ok = edit_file(&d, &f, "a/b.txt", "one", "1", &sha).await;
        assert!(ok.ok, "{}", ok.text);
        assert_eq!(
            std::fs::read_to_string(&f).unwrap_or_default(),
            "1\ntwo\ntwo\n"
        );
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn large_diff_is_cut_on_a_line_boundary() {
        let new: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        match diff_part("x.rs", None, &new) {
            Part::Diff {
                patch,
                truncated,
                lang,
                ..
            } => {
                assert!(truncated);
                assert!(patch.len() <= MAX_DIFF_BYTES && patch.ends_with('\n'));
                assert_eq!(lang, "rs");
            }
            _ => panic!("not a diff"),
        }
    }

    #[test]
    fn atomic_write_refuses_to_follow_a_symlink_temp() {
        let d = tmp();
        let f = d.join("x");
        assert!(atomic_write(&d, &f, b"new").is_ok());
        assert_eq!(std::fs::read(&f).unwrap_or_default(), b"new");
        assert_eq!(remove_stray_temp_files(&d), 0);
        std::fs::write(d.join(".x.tw-tmp-01ABC"), b"junk").ok();
        assert_eq!(remove_stray_temp_files(&d), 1);
        std::fs::remove_dir_all(&d).ok();
    }
}

// ---- The tools ----

/// A path as the model gave it, resolved.
#[derive(Debug)]
pub struct PathCall<A> {
    /// Where the file is opened from (`openat2` beneath it): its root, or an approved directory.
    pub root: PathBuf,
    pub path: PathBuf,
    pub display: String,
    pub args: A,
}

/// A call on one file: resolve its path; the gate sees that path.
fn on_file<A>(
    paths: &PolicyPaths,
    path: &str,
    args: A,
) -> Result<Gated<PathCall<A>>, PrepareError> {
    let r = paths.resolve(path)?;
    Ok(Gated {
        paths: vec![super::use_of(&r)],
        command: None,
        url: None,
        call: PathCall {
            root: paths.anchor(&r),
            path: r.path,
            display: path.to_string(),
            args,
        },
    })
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file, relative to the workspace or absolute.
    pub path: String,
    /// First line to return (1-based).
    #[schemars(range(min = 1))]
    pub offset: Option<usize>,
    /// How many lines to return.
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

pub struct ReadFile;

impl super::Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const EFFECT: crate::protocol::Effect = crate::protocol::Effect::Read;
    const DESCRIPTION: &'static str = "Read a text file (up to 1 MiB). Returns its SHA-256, which edit_file requires. Optional 1-based `offset` line and `limit` lines.";
    type Args = ReadFileArgs;
    type Call = PathCall<ReadFileArgs>;

    fn prepare(a: ReadFileArgs, paths: &PolicyPaths) -> Result<Gated<Self::Call>, PrepareError> {
        let path = a.path.clone();
        on_file(paths, &path, a)
    }

    async fn run(c: Self::Call, ctx: &ToolCtx<'_>) -> ToolOutput {
        read_file(
            ctx,
            &c.root,
            &c.path,
            &c.display,
            c.args.offset,
            c.args.limit,
        )
        .await
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// The directory (default: the workspace).
    pub path: Option<String>,
    /// Only paths matching this glob, e.g. `src/**/*.rs`.
    pub glob: Option<String>,
    /// At most this many entries (default 1000).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<usize>,
}

pub struct ListFiles;

impl super::Tool for ListFiles {
    const NAME: &'static str = "list_files";
    const EFFECT: crate::protocol::Effect = crate::protocol::Effect::Read;
    const DESCRIPTION: &'static str = "List files under a directory (default: the workspace), honouring .gitignore. Optional glob filter, e.g. `src/**/*.rs`.";
    type Args = ListFilesArgs;
    type Call = (PathBuf, Option<String>, usize);

    fn prepare(a: ListFilesArgs, paths: &PolicyPaths) -> Result<Gated<Self::Call>, PrepareError> {
        let r = paths.resolve(a.path.as_deref().unwrap_or("."))?;
        Ok(Gated {
            paths: vec![super::dir_use(&r)],
            command: None,
            url: None,
            call: (r.path, a.glob, a.limit.unwrap_or(1000).clamp(1, 5000)),
        })
    }

    async fn run((dir, glob, limit): Self::Call, ctx: &ToolCtx<'_>) -> ToolOutput {
        list_files(ctx, dir, glob, limit).await
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// The file, relative to the workspace or absolute.
    pub path: String,
    /// The whole new content.
    pub content: String,
}

pub struct WriteFile;

impl super::Tool for WriteFile {
    const NAME: &'static str = "write_file";
    const EFFECT: crate::protocol::Effect = crate::protocol::Effect::Write;
    const DESCRIPTION: &'static str = "Write a whole file (created with its parent directories if needed). Atomic: the old or the new content, never a mix.";
    type Args = WriteFileArgs;
    type Call = PathCall<String>;

    fn prepare(a: WriteFileArgs, paths: &PolicyPaths) -> Result<Gated<Self::Call>, PrepareError> {
        if a.content.len() as u64 > MAX_FILE_BYTES {
            return Err(PrepareError::Input(format!(
                "content is larger than {MAX_FILE_BYTES} bytes"
            )));
        }
        on_file(paths, &a.path, a.content)
    }

    async fn run(c: Self::Call, _ctx: &ToolCtx<'_>) -> ToolOutput {
        write_file(&c.root, &c.path, &c.display, c.args).await
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// The file, relative to the workspace or absolute.
    pub path: String,
    /// The exact text to replace; it must occur once.
    pub old: String,
    /// The replacement.
    pub new: String,
    /// The file's current SHA-256, from read_file.
    pub sha256: String,
}

pub struct EditFile;

impl super::Tool for EditFile {
    const NAME: &'static str = "edit_file";
    const EFFECT: crate::protocol::Effect = crate::protocol::Effect::Write;
    const DESCRIPTION: &'static str = "Replace one exact, unique occurrence of `old` with `new` in a file. `sha256` must be the file's current SHA-256 from read_file.";
    type Args = EditFileArgs;
    type Call = PathCall<EditFileArgs>;

    fn prepare(
        mut a: EditFileArgs,
        paths: &PolicyPaths,
    ) -> Result<Gated<Self::Call>, PrepareError> {
        if a.old.is_empty() {
            return Err(PrepareError::Input("`old` must not be empty".into()));
        }
        a.sha256 = a.sha256.trim().to_ascii_lowercase();
        let path = a.path.clone();
        on_file(paths, &path, a)
    }

    async fn run(c: Self::Call, _ctx: &ToolCtx<'_>) -> ToolOutput {
        let a = c.args;
        edit_file(&c.root, &c.path, &c.display, &a.old, &a.new, &a.sha256).await
    }
}
