//! The instruction files a path is under. In each directory, Codex's `AGENTS.override.md` wins
//! over `AGENTS.md`, and `CLAUDE.md` is read where a directory has neither (its `@path`
//! imports followed inside the session's roots, five deep at most). They apply from the
//! outermost directory above the workspace down to the path's own directory, nearest last: the
//! workspace's and its ancestors' go into every system prompt; a subdirectory's are added to
//! the conversation when a tool first touches a path beneath it.
//!
//! Only regular files count (a symlink named `AGENTS.md` is not followed); an import must be a
//! regular file inside a root and off the hard deny list, and secrets in any of them are
//! redacted as `read_file` redacts them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::policy::paths::PathPolicy;

/// The most instruction text that goes into a system prompt.
pub const MAX_TEXT: usize = 32 * 1024;
/// Imports followed from a `CLAUDE.md`, at most this deep.
pub const MAX_IMPORT_DEPTH: usize = 5;
/// An imported file larger than this is left out.
const MAX_IMPORT_BYTES: u64 = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `AGENTS.override.md` (Codex): wins over `AGENTS.md` in its directory.
    Override,
    Agents,
    /// `CLAUDE.md`, where a directory has neither.
    Claude,
}

/// One instruction file and the directory it governs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InstructionFile {
    pub path: PathBuf,
    pub dir: PathBuf,
    pub kind: Kind,
    pub bytes: u64,
}

/// The instruction file of one directory, if it has one.
pub fn in_dir(dir: &Path) -> Option<InstructionFile> {
    [
        ("AGENTS.override.md", Kind::Override),
        ("AGENTS.md", Kind::Agents),
        ("CLAUDE.md", Kind::Claude),
    ]
    .into_iter()
    .find_map(|(name, kind)| {
        let path = dir.join(name);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        meta.is_file().then(|| InstructionFile {
            path,
            dir: dir.to_path_buf(),
            kind,
            bytes: meta.len(),
        })
    })
}

/// The files of the workspace and every directory above it, outermost first.
pub fn above(workspace: &Path) -> Vec<InstructionFile> {
    let mut files: Vec<InstructionFile> = workspace.ancestors().filter_map(in_dir).collect();
    files.reverse();
    files
}

/// The directories strictly below the workspace down to `path` (its own directory, or itself
/// when it is one), root to leaf. None for a path outside it.
pub fn nested_dirs(workspace: &Path, path: &Path) -> Vec<PathBuf> {
    let Ok(rel) = path.strip_prefix(workspace) else {
        return Vec::new();
    };
    let leaf_is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let comps: Vec<_> = rel.components().collect();
    let upto = if leaf_is_dir {
        comps.len()
    } else {
        comps.len().saturating_sub(1)
    };
    let mut dir = workspace.to_path_buf();
    comps[..upto]
        .iter()
        .map(|c| {
            dir.push(c);
            dir.clone()
        })
        .collect()
}

/// The files of [`nested_dirs`], root to leaf.
pub fn nested(workspace: &Path, path: &Path) -> Vec<InstructionFile> {
    nested_dirs(workspace, path)
        .iter()
        .filter_map(|d| in_dir(d))
        .collect()
}

/// Every file that applies to `path`, in the order they apply (nearest last).
pub fn applying(workspace: &Path, path: &Path) -> Vec<InstructionFile> {
    let mut files = above(workspace);
    files.extend(nested(workspace, path));
    files
}

/// A file's text as the model reads it: secrets redacted, a `CLAUDE.md`'s imports in place.
pub fn read(f: &InstructionFile, paths: &PathPolicy) -> Option<String> {
    let text = std::fs::read_to_string(&f.path).ok()?;
    let text = if f.kind == Kind::Claude {
        let mut seen = HashSet::from([f.path.clone()]);
        with_imports(&text, &f.dir, paths, 1, &mut seen)
    } else {
        text
    };
    Some(crate::policy::secrets::redact(&text).0)
}

/// `@path` words of a text (outside code): the files a `CLAUDE.md` imports.
fn import_words(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for w in line.split_whitespace() {
            if let Some(p) = w.strip_prefix('@')
                && !p.is_empty()
                && !w.contains('`')
                && p.contains(['.', '/'])
            {
                out.push(p.trim_end_matches([',', ';', ')']));
            }
        }
    }
    out
}

/// The text followed by each file it imports (that file's own imports in turn, `depth` deep).
fn with_imports(
    text: &str,
    dir: &Path,
    paths: &PathPolicy,
    depth: usize,
    seen: &mut HashSet<PathBuf>,
) -> String {
    let mut out = text.to_string();
    if depth > MAX_IMPORT_DEPTH {
        return out;
    }
    for word in import_words(text) {
        let Some(file) = importable(dir, word, paths) else {
            continue;
        };
        if !seen.insert(file.clone()) {
            continue;
        }
        let Ok(inner) = std::fs::read_to_string(&file) else {
            continue;
        };
        let parent = file.parent().unwrap_or(dir).to_path_buf();
        let inner = with_imports(&inner, &parent, paths, depth + 1, seen);
        out.push_str(&format!("\n\n<!-- imported from @{word} -->\n{inner}"));
    }
    out
}

/// Where an import leads, if it may be read: a regular file inside a root, not denied.
fn importable(dir: &Path, word: &str, paths: &PathPolicy) -> Option<PathBuf> {
    if word.starts_with('~') {
        return None;
    }
    let raw = Path::new(word);
    let joined = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        dir.join(raw)
    };
    let real = joined.canonicalize().ok()?;
    let inside = std::iter::once(&paths.workspace)
        .chain(paths.extra_roots.iter())
        .any(|r| real.starts_with(r));
    let meta = std::fs::metadata(&real).ok()?;
    (inside
        && meta.is_file()
        && meta.len() <= MAX_IMPORT_BYTES
        && paths.denied_reason(&real).is_none())
    .then_some(real)
}

/// The files above and at the workspace as one prompt section (bounded), and the files it
/// holds (a subdirectory's are added later, once, beside the call that reached them).
pub fn prompt_section(paths: &PathPolicy) -> String {
    let mut out = String::new();
    for f in above(&paths.workspace) {
        let room = MAX_TEXT.saturating_sub(out.len());
        if room == 0 {
            break;
        }
        if let Some(text) = read(&f, paths) {
            out.push_str(&format!(
                "\n## {}\n{}\n",
                f.path.display(),
                crate::util::truncate_str(&text, room)
            ));
        }
    }
    out
}

/// What opens a subdirectory's instructions added to a tool's result (and tells that they
/// were added already).
pub fn added_mark(dir: &Path) -> String {
    format!("[Instructions for files under {} (", dir.display())
}

/// The instructions of a subdirectory, as added to a tool's result the first time a call
/// reaches beneath it.
pub fn added_note(f: &InstructionFile, paths: &PathPolicy) -> Option<String> {
    let text = read(f, paths)?;
    Some(format!(
        "\n\n{}{}); they apply beneath it, over the ones above:]\n{}",
        added_mark(&f.dir),
        f.path.display(),
        crate::util::truncate_str(&text, MAX_TEXT)
    ))
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    /// A fresh directory of this test's own (removed when dropped).
    struct Scratch(PathBuf);

    impl Scratch {
        fn new() -> Scratch {
            let p = std::env::temp_dir().join(format!("tw-instr-{}", crate::util::new_id()));
            std::fs::create_dir_all(&p).unwrap();
            Scratch(p.canonicalize().unwrap())
        }
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn nearest_last_override_wins_claude_where_nothing_else() {
        let root = Scratch::new();
        let ws = root.path().to_path_buf();
        std::fs::write(ws.join("AGENTS.md"), "root rules").unwrap();
        std::fs::create_dir_all(ws.join("pkg/a/src")).unwrap();
        std::fs::write(ws.join("pkg/AGENTS.md"), "pkg rules").unwrap();
        std::fs::write(ws.join("pkg/AGENTS.override.md"), "pkg override").unwrap();
        std::fs::write(ws.join("pkg/a/CLAUDE.md"), "see @notes.md and `@skip.md`").unwrap();
        std::fs::write(
            ws.join("pkg/a/notes.md"),
            "imported; and @../../AGENTS.md again",
        )
        .unwrap();
        std::fs::write(ws.join("pkg/a/src/lib.rs"), "").unwrap();
        std::fs::write(ws.join("pkg/a/skip.md"), "in code only").unwrap();
        let files = applying(&ws, &ws.join("pkg/a/src/lib.rs"));
        let kinds: Vec<(PathBuf, Kind)> = files
            .iter()
            .filter(|f| f.path.starts_with(&ws))
            .map(|f| (f.dir.strip_prefix(&ws).unwrap().to_path_buf(), f.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                (PathBuf::new(), Kind::Agents),
                (PathBuf::from("pkg"), Kind::Override),
                (PathBuf::from("pkg/a"), Kind::Claude),
            ]
        );
        let paths = PathPolicy::new(&ws, &[], Path::new("/nonexistent-state"));
        let claude = read(files.last().unwrap(), &paths).unwrap();
        assert!(claude.contains("imported;"), "{claude}");
        assert!(
            claude.contains("root rules"),
            "an import of an import: {claude}"
        );
        assert!(!claude.contains("in code only"), "code is not an import");
        // A directory is its own leaf.
        assert_eq!(nested(&ws, &ws.join("pkg")).len(), 1);
        assert!(nested(&ws, Path::new("/elsewhere/x")).is_empty());
    }

    #[test]
    fn imports_stay_inside_the_roots_and_off_the_deny_list() {
        let root = Scratch::new();
        let outside = Scratch::new();
        let ws = root.path().to_path_buf();
        std::fs::write(outside.path().join("secret.md"), "outside text").unwrap();
        std::fs::create_dir_all(ws.join(".ssh")).unwrap();
        std::fs::write(ws.join(".ssh/notes.md"), "denied text").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.join("link.md")).unwrap();
        std::fs::write(
            ws.join("CLAUDE.md"),
            format!(
                "@{} @link.md @.ssh/notes.md @~/x.md\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                outside.path().join("secret.md").display()
            ),
        )
        .unwrap();
        let paths = PathPolicy::new(&ws, &[], Path::new("/nonexistent-state"));
        let text = read(&in_dir(&ws).unwrap(), &paths).unwrap();
        assert!(!text.contains("outside text"), "{text}");
        assert!(!text.contains("denied text"), "{text}");
        assert!(
            !text.contains("wJalrXUtnFEMI"),
            "secrets are redacted: {text}"
        );
    }
}
