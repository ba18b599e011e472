//! Snapshots marked at their moment and resolved by the next scan. A run's `before` snapshot
//! (at its first change) and its `after` one (at its end) are *marked* then — cheap: nothing is
//! read — and *resolved* by the next walk of the workspace: that walk's manifest, with every file
//! a file tool changed since the mark put back as it was at the mark. That content (the file's
//! pre-image) is stored, and written down in the store's journal, before the tool writes the
//! file; so a turn that only writes files never waits for a walk, and the snapshot that undoes a
//! change is on disk before the change.
//!
//! What else can change files — a command, an outside tool, a subagent, a revert — resolves the
//! open marks first (one walk for all of them), exactly as a full snapshot before it would. A
//! server stopped with marks open finds them in the journal and resolves them with its next walk.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::objects::{Entry, Kind, Manifest, hex};
use super::owners::Taken;
use crate::protocol::{RunId, SessionId};

/// What a marked snapshot is recorded as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub session: SessionId,
    pub run: RunId,
    /// `before` or `after`.
    pub kind: String,
    /// Its moment (ms): the time it is recorded at.
    pub at: i64,
}

impl Label {
    pub fn new(session: &SessionId, run: &RunId, taken: Taken) -> Label {
        Label {
            session: session.clone(),
            run: run.clone(),
            kind: taken.as_str().into(),
            at: crate::util::now_ms(),
        }
    }
}

/// One open mark and the pre-images captured since it (`None`: the file did not exist).
#[derive(Debug, Clone)]
pub struct Mark {
    seq: u64,
    pub label: Label,
    patches: HashMap<String, Option<Entry>>,
}

impl Mark {
    /// The workspace at the mark: `scan` (taken since), each file a tool changed since the mark
    /// put back. A file the walk leaves out (ignored, or gone) stays out.
    pub fn resolve(&self, scan: &Manifest) -> Manifest {
        let mut m = scan.clone();
        for (path, pre) in &self.patches {
            if !m.contains_key(path) {
                continue;
            }
            match pre {
                Some(e) => {
                    m.insert(path.clone(), *e);
                }
                None => {
                    m.remove(path);
                }
            }
        }
        m
    }
}

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Mark {
        seq: u64,
        label: Label,
    },
    /// A pre-image, for the marks listed.
    Patch {
        path: String,
        /// `kind hash size`, or none.
        entry: Option<String>,
        marks: Vec<u64>,
    },
    Resolved {
        marks: Vec<u64>,
    },
}

/// A workspace's open marks, and their journal (`marks` in its store).
#[derive(Debug)]
pub struct Marks {
    journal: PathBuf,
    next: u64,
    open: Vec<Mark>,
}

impl Marks {
    /// The marks a stopped server left open, from the journal.
    pub fn load(dir: &std::path::Path) -> Marks {
        let journal = dir.join("marks");
        let mut open: Vec<Mark> = Vec::new();
        let mut next = 0;
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        for line in text.lines() {
            match serde_json::from_str::<Line>(line) {
                Ok(Line::Mark { seq, label }) => {
                    next = next.max(seq + 1);
                    open.push(Mark {
                        seq,
                        label,
                        patches: HashMap::new(),
                    });
                }
                Ok(Line::Patch { path, entry, marks }) => {
                    let entry = match entry.as_deref().map(parse_entry) {
                        None => None,
                        Some(Some(e)) => Some(e),
                        // A torn line: the mark cannot be trusted for this file; the walk's
                        // content stands.
                        Some(None) => continue,
                    };
                    for m in open.iter_mut().filter(|m| marks.contains(&m.seq)) {
                        m.patches.entry(path.clone()).or_insert(entry);
                    }
                }
                Ok(Line::Resolved { marks }) => open.retain(|m| !marks.contains(&m.seq)),
                Err(_) => {}
            }
        }
        Marks {
            journal,
            next,
            open,
        }
    }

    fn append(&self, line: &Line) -> std::io::Result<()> {
        let mut text = serde_json::to_string(line).map_err(std::io::Error::other)?;
        text.push('\n');
        if let Some(dir) = self.journal.parent() {
            crate::state_dir::ensure_dir(dir).map_err(std::io::Error::other)?;
        }
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.journal)?
            .write_all(text.as_bytes())
    }

    /// Open a mark now.
    pub fn mark(&mut self, label: Label) -> std::io::Result<()> {
        let seq = self.next;
        self.append(&Line::Mark {
            seq,
            label: label.clone(),
        })?;
        self.next += 1;
        self.open.push(Mark {
            seq,
            label,
            patches: HashMap::new(),
        });
        Ok(())
    }

    /// Whether an open mark lacks `path`'s pre-image (the first one captured since a mark is
    /// the file as it was then).
    pub fn wants(&self, path: &str) -> bool {
        self.open.iter().any(|m| !m.patches.contains_key(path))
    }

    /// `path` as it is before a tool writes it, for each open mark that lacks it.
    pub fn patch(&mut self, path: &str, pre: Option<Entry>) -> std::io::Result<()> {
        let marks: Vec<u64> = self
            .open
            .iter()
            .filter(|m| !m.patches.contains_key(path))
            .map(|m| m.seq)
            .collect();
        if marks.is_empty() {
            return Ok(());
        }
        self.append(&Line::Patch {
            path: path.to_string(),
            entry: pre.map(|e| format_entry(&e)),
            marks: marks.clone(),
        })?;
        for m in self.open.iter_mut().filter(|m| marks.contains(&m.seq)) {
            m.patches.insert(path.to_string(), pre);
        }
        Ok(())
    }

    /// Whether any mark is open.
    pub fn any_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// The mark a walk starting now resolves up to (excluded).
    pub fn horizon(&self) -> u64 {
        self.next
    }

    /// Take the marks opened before `horizon` out (no later pre-image goes to them).
    pub fn take(&mut self, horizon: u64) -> Vec<Mark> {
        let (taken, open): (Vec<Mark>, Vec<Mark>) = std::mem::take(&mut self.open)
            .into_iter()
            .partition(|m| m.seq < horizon);
        self.open = open;
        taken
    }

    /// `marks` are recorded: the journal forgets them. It is written anew with the marks still
    /// open (a busy workspace always has one), so it never grows past them; none open, it goes.
    pub fn resolved(&mut self, marks: &[Mark]) {
        if marks.is_empty() {
            return;
        }
        if self.open.is_empty() {
            let _ = std::fs::remove_file(&self.journal);
            return;
        }
        if self.rewrite().is_err() {
            // The old journal stands; its marks are told resolved instead.
            let _ = self.append(&Line::Resolved {
                marks: marks.iter().map(|m| m.seq).collect(),
            });
        }
    }

    /// The journal of the open marks alone, replacing the old one at once.
    fn rewrite(&self) -> std::io::Result<()> {
        let mut text = String::new();
        for m in &self.open {
            let mark = Line::Mark {
                seq: m.seq,
                label: m.label.clone(),
            };
            text.push_str(&serde_json::to_string(&mark).map_err(std::io::Error::other)?);
            text.push('\n');
            for (path, pre) in &m.patches {
                let patch = Line::Patch {
                    path: path.clone(),
                    entry: pre.map(|e| format_entry(&e)),
                    marks: vec![m.seq],
                };
                text.push_str(&serde_json::to_string(&patch).map_err(std::io::Error::other)?);
                text.push('\n');
            }
        }
        crate::util::write_replace(&self.journal, text.as_bytes())
    }

    /// The blobs the open marks' pre-images name (a collection keeps them).
    pub fn blobs(&self) -> Vec<[u8; 32]> {
        self.open
            .iter()
            .flat_map(|m| m.patches.values().flatten().map(|e| e.hash))
            .collect()
    }
}

fn format_entry(e: &Entry) -> String {
    let kind = match e.kind {
        Kind::File => 'f',
        Kind::Executable => 'x',
        Kind::Symlink => 'l',
    };
    format!("{kind} {} {}", hex(&e.hash), e.size)
}

fn parse_entry(s: &str) -> Option<Entry> {
    let mut f = s.split(' ');
    let kind = match f.next()? {
        "f" => Kind::File,
        "x" => Kind::Executable,
        "l" => Kind::Symlink,
        _ => return None,
    };
    let hash: [u8; 32] = hex::decode(f.next()?).ok()?.try_into().ok()?;
    let size = f.next()?.parse().ok()?;
    Some(Entry { kind, hash, size })
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    fn entry(b: u8) -> Entry {
        Entry {
            kind: Kind::File,
            hash: [b; 32],
            size: u64::from(b),
        }
    }

    #[test]
    fn a_mark_is_the_walk_with_what_tools_changed_since_put_back() {
        let dir = std::env::temp_dir().join(format!("tw-marks-{}", crate::util::new_id()));
        let mut marks = Marks::load(&dir);
        let label = |k: Taken| Label::new(&"s".to_string().into(), &"r".to_string().into(), k);
        marks.mark(label(Taken::Before)).unwrap();
        assert!(marks.wants("a"));
        marks.patch("a", Some(entry(1))).unwrap();
        marks.patch("new", None).unwrap();
        // A second write of `a` keeps the first pre-image.
        assert!(!marks.wants("a"));
        marks.patch("a", Some(entry(2))).unwrap();
        marks.mark(label(Taken::After)).unwrap();
        marks.patch("a", Some(entry(3))).unwrap();
        // A stopped server finds them again.
        let again = Marks::load(&dir);
        assert_eq!(again.open.len(), 2);
        assert_eq!(again.open[0].patches, marks.open[0].patches);
        assert_eq!(again.open[1].patches, marks.open[1].patches);

        let walk: Manifest = [
            ("a".to_string(), entry(9)),
            ("new".to_string(), entry(8)),
            ("b".to_string(), entry(7)),
        ]
        .into();
        let horizon = marks.horizon();
        let taken = marks.take(horizon);
        let before = taken[0].resolve(&walk);
        assert_eq!(before.get("a"), Some(&entry(1)));
        assert_eq!(before.get("new"), None);
        assert_eq!(before.get("b"), Some(&entry(7)));
        let after = taken[1].resolve(&walk);
        assert_eq!(after.get("a"), Some(&entry(3)));
        assert_eq!(after.get("new"), Some(&entry(8)));
        marks.resolved(&taken);
        assert!(!dir.join("marks").exists());
        assert!(!Marks::load(&dir).any_open());

        // Resolved while a later mark is open: the journal keeps that one alone.
        marks.mark(label(Taken::Before)).unwrap();
        marks.patch("a", Some(entry(4))).unwrap();
        let horizon = marks.horizon();
        marks.mark(label(Taken::After)).unwrap();
        marks.patch("b", None).unwrap();
        let taken = marks.take(horizon);
        assert_eq!(taken.len(), 1);
        marks.resolved(&taken);
        let again = Marks::load(&dir);
        assert_eq!(again.open.len(), 1);
        assert_eq!(again.open[0].label.kind, "after");
        assert_eq!(again.open[0].patches, marks.open[0].patches);
        assert_eq!(again.horizon(), marks.horizon());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
