//! The workspace's files for `@` mentions: `GET /api/sessions/{id}/files?q=` ranks them like
//! fzf (nucleo's path scoring: word boundaries, consecutive letters, the file name over its
//! directories). The file list is kept per workspace and walked again in the background when it
//! is older than a few seconds, so a keystroke only scores; the walk respects `.gitignore` and
//! leaves out `.git` and every hard-denied path (keys, credentials, Tradewind's own state).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use parking_lot::Mutex;

use crate::policy::paths::PathPolicy;
use crate::protocol::{FileMatch, FileMatches};

/// Most entries one workspace's list holds (a bigger tree is cut, and says so).
pub const MAX_FILES: usize = 200_000;
/// A list older than this is walked again (in the background; the old one answers meanwhile).
const FRESH: Duration = Duration::from_secs(10);
/// Longest query.
pub const MAX_QUERY_CHARS: usize = 200;

/// One workspace's files: relative paths with `/`, directories ending in `/`.
struct FileList {
    paths: Vec<String>,
    truncated: bool,
    walked_at: Instant,
}

/// Every workspace's list, and which are being walked again.
#[derive(Default)]
pub struct FileLists {
    lists: Mutex<HashMap<PathBuf, Arc<FileList>>>,
    walking: Mutex<std::collections::HashSet<PathBuf>>,
}

fn walk(paths: &PathPolicy) -> FileList {
    let root = paths.workspace.clone();
    let mut out = Vec::new();
    let mut truncated = false;
    let walker = ignore::WalkBuilder::new(&root)
        .hidden(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walker.flatten() {
        let p = entry.path();
        if p == root || paths.denied_reason(p).is_some() {
            continue;
        }
        if out.len() >= MAX_FILES {
            truncated = true;
            break;
        }
        let Ok(rel) = p.strip_prefix(&root) else {
            continue;
        };
        let mut s = rel.to_string_lossy().replace('\\', "/");
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            s.push('/');
        }
        out.push(s);
    }
    out.sort_unstable();
    FileList {
        paths: out,
        truncated,
        walked_at: Instant::now(),
    }
}

impl FileLists {
    /// The workspace's list: walked now the first time, else the one held (walked again in the
    /// background once it is stale).
    async fn get(self: &Arc<Self>, paths: PathPolicy) -> Result<Arc<FileList>, String> {
        let key = paths.workspace.clone();
        let held = self.lists.lock().get(&key).cloned();
        if let Some(list) = held {
            if list.walked_at.elapsed() > FRESH && self.walking.lock().insert(key.clone()) {
                let me = self.clone();
                tokio::task::spawn_blocking(move || {
                    let list = Arc::new(walk(&paths));
                    me.lists.lock().insert(key.clone(), list);
                    me.walking.lock().remove(&key);
                });
            }
            return Ok(list);
        }
        let list = blocking(move || Arc::new(walk(&paths))).await?;
        self.lists.lock().insert(key, list.clone());
        Ok(list)
    }
}

/// `f` on the blocking pool (a walk or a ranking must not hold up the async workers).
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| format!("the file list task failed: {e}"))
}

/// The best `limit` matches of `q` among `paths` (for an empty query, the shortest paths: the
/// top of the tree), with the matched character positions for highlighting.
fn rank(paths: &[String], q: &str, limit: usize) -> Vec<FileMatch> {
    let pattern = Pattern::parse(q, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut scored = pattern.match_list(paths.iter(), &mut matcher);
    // Equal scores: shorter paths first, then in path order.
    scored.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(a.0.len().cmp(&b.0.len()))
            .then(a.0.cmp(b.0))
    });
    let mut buf = Vec::new();
    scored
        .into_iter()
        .take(limit)
        .map(|(path, score)| {
            let mut indices = Vec::new();
            pattern.indices(Utf32Str::new(path, &mut buf), &mut matcher, &mut indices);
            indices.sort_unstable();
            indices.dedup();
            FileMatch {
                path: path.clone(),
                score,
                indices,
            }
        })
        .collect()
}

impl FileLists {
    /// The files of the workspace `paths` names that match `q`, best first.
    pub async fn find(
        self: &Arc<Self>,
        paths: PathPolicy,
        q: &str,
        limit: usize,
    ) -> Result<FileMatches, String> {
        let list = self.get(paths).await?;
        let q = q.to_string();
        let data = blocking(move || {
            let data = rank(&list.paths, &q, limit);
            (data, list.paths.len(), list.truncated)
        })
        .await?;
        Ok(FileMatches {
            data: data.0,
            total: data.1 as u64,
            truncated: data.2,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_file_name_and_word_starts_rank_first() {
        let paths = list(&[
            "docs/server-notes.md",
            "server/core/src/services/sessions.rs",
            "server/core/src/store/sessions.rs",
            "web/src/state/sessions.ts",
            "tests/tests/steering.rs",
        ]);
        let got = rank(&paths, "sess.rs", 3);
        assert!(
            got[..2].iter().all(|m| m.path.ends_with("sessions.rs")),
            "{got:?}"
        );
        assert!(got.iter().all(|m| m.path != "web/src/state/sessions.ts"));
        let got = rank(&paths, "web sess", 5);
        assert_eq!(got[0].path, "web/src/state/sessions.ts");
        assert!(!got[0].indices.is_empty());
        assert!(rank(&paths, "zzz", 5).is_empty());
        // An empty query lists the shortest paths first (the top of the tree).
        assert_eq!(rank(&paths, "", 2)[0].path, "docs/server-notes.md");
        assert_eq!(rank(&paths, "", 2)[1].path, "tests/tests/steering.rs");
    }
}
