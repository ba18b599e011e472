//! Whose change each file is. Several sessions can work in one workspace, and the user edits it
//! too; a revert must put back only what its own session's runs changed. The snapshots every
//! session's runs take of the workspace (before a run's first change, after its end, and what
//! each revert and redo left) form one timeline. Each stretch between two snapshots in a row is
//! put down to the sessions whose runs were going during it (a run goes from its `before`
//! snapshot to its `after` one), or to the revert or redo that ended it for the files that
//! changed; a stretch with no run going is the user's own (by hand). A revert and its redo
//! undo and redo those changes (see `Steps`), so they do not make a file theirs. A file is this
//! session's when this session changed it and no other session's run changed it after that (a
//! hand edit after it is listed as one, and the revert then needs `force`); its revert puts it
//! back as it was before this session first changed it, so what others changed before is kept.
//! Stretches where two sessions' runs went at once cannot be split: a file changed there is
//! listed as the other session's and kept (nothing is lost; the user can tick it).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::objects::{self, Entry, Manifest};
use crate::protocol::SessionId;

/// What a snapshot was taken for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// Before a run's first call that can change files.
    Before,
    /// After a run ended.
    After,
    /// What a revert left.
    Revert,
    /// What a redo left.
    Redo,
}

impl Taken {
    /// Its stored `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Taken::Before => "before",
            Taken::After => "after",
            Taken::Revert => "revert",
            Taken::Redo => "redo",
        }
    }

    /// A stored snapshot's `kind` (an unknown one: none).
    pub fn parse(kind: &str) -> Option<Taken> {
        match kind {
            "before" => Some(Taken::Before),
            "after" => Some(Taken::After),
            "revert" => Some(Taken::Revert),
            "redo" => Some(Taken::Redo),
            _ => None,
        }
    }
}

/// One snapshot of a workspace, in the timeline's order (oldest first).
#[derive(Debug, Clone)]
pub struct Mark {
    pub session: SessionId,
    /// The run it was taken around, or (a revert or redo) the revert's id.
    pub run: String,
    pub taken: Option<Taken>,
    pub tree: String,
    /// When it was recorded (ms).
    pub at: i64,
    /// When its run ended (ms), if it has.
    pub run_ended: Option<i64>,
}

/// What a revert changed, by its id: its session and the paths.
pub type Reverts = HashMap<String, (SessionId, BTreeSet<String>)>;

/// The stretch of the timeline a revert or redo looks at: how the files were at its start
/// (`trees[0]`), each snapshot since, the workspace now (last); and for each stretch between two
/// of them (`k`: from `trees[k]` to `trees[k + 1]`) who changed the files then.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub trees: Vec<String>,
    /// The sessions whose runs were going during each stretch.
    pub open: Vec<BTreeSet<SessionId>>,
    /// The revert or redo that ended a stretch: its session and the paths it changed.
    pub reverted: Vec<Option<(SessionId, BTreeSet<String>)>>,
}

/// Where a timeline starts.
#[derive(Debug, Clone, Copy)]
pub enum Start<'a> {
    /// At a snapshot of the marks (a revert: the snapshot from before its message).
    At(usize),
    /// At a tree just before a snapshot of the marks (a redo: the files as they were just
    /// before the revert, whose own snapshot follows).
    Before(&'a str, usize),
}

/// For each mark (and, last, the workspace now): the sessions whose runs were going in the
/// stretch that ends there. A run goes from its `before` snapshot to its `after` one. One whose
/// `after` never came (the server stopped, or that snapshot failed) goes until its session's
/// next snapshot, and never past the stretch in which the run ended (so a run that died does
/// not claim every later change); one still going, until now. An `after` without a `before`
/// (that snapshot failed) covers the one stretch that ends at it.
fn going(marks: &[Mark]) -> Vec<BTreeSet<SessionId>> {
    let n = marks.len();
    let mut open = vec![BTreeSet::new(); n + 1];
    let same_run = |m: &Mark, b: &Mark| m.session == b.session && m.run == b.run;
    for (b, mb) in marks.iter().enumerate() {
        match mb.taken {
            Some(Taken::Before) => {
                let after = marks[b + 1..]
                    .iter()
                    .position(|m| m.taken == Some(Taken::After) && same_run(m, mb));
                let end = after
                    .or_else(|| marks[b + 1..].iter().position(|m| m.session == mb.session))
                    .map_or(n, |i| b + 1 + i);
                for j in b + 1..=end {
                    // The stretch ending at `j` begins at mark `j - 1`: after the run ended, it
                    // is not the run's.
                    let begins = marks[j - 1].at;
                    if after.is_none() && j > b + 1 && mb.run_ended.is_some_and(|e| begins >= e) {
                        break;
                    }
                    open[j].insert(mb.session.clone());
                }
            }
            Some(Taken::After)
                if !marks[..b]
                    .iter()
                    .any(|m| m.taken == Some(Taken::Before) && same_run(m, mb)) =>
            {
                open[b].insert(mb.session.clone());
            }
            _ => {}
        }
    }
    open
}

/// The timeline from `start` to `now`.
pub fn timeline(marks: &[Mark], start: Start<'_>, now: &str, reverts: &Reverts) -> Timeline {
    let (base, first) = match start {
        Start::At(i) => (marks.get(i).map_or(now, |m| m.tree.as_str()), i + 1),
        Start::Before(tree, i) => (tree, i),
    };
    let mut tl = Timeline {
        trees: vec![base.to_string()],
        ..Timeline::default()
    };
    for (j, open) in going(marks).into_iter().enumerate().skip(first) {
        let mark = marks.get(j);
        tl.trees
            .push(mark.map_or(now, |m| m.tree.as_str()).to_string());
        tl.open.push(open);
        let by_revert = mark
            .filter(|m| matches!(m.taken, Some(Taken::Revert | Taken::Redo)))
            .and_then(|m| reverts.get(&m.run))
            .cloned();
        tl.reverted.push(by_revert);
    }
    tl
}

/// One file as a revert would put it: as `entry` says, or deleted (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub path: String,
    pub entry: Option<Entry>,
}

impl Put {
    /// `restored` or `deleted`.
    pub fn action(&self) -> &'static str {
        if self.entry.is_some() {
            "restored"
        } else {
            "deleted"
        }
    }
}

/// A file left as it is, and who changed it last (no session: by hand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub put: Put,
    pub by: Vec<SessionId>,
}

/// The files that differ, sorted by whose change they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sorted {
    /// This session's changes, put back as they were before it first changed each.
    pub mine: Vec<Put>,
    /// Files of `mine` changed by hand since this session changed them.
    pub hand_edited: Vec<String>,
    /// The rest: left as they are unless the user names them.
    pub kept: Vec<Kept>,
    /// Files this session changed that something else changed after it (by hand, another
    /// session): how the file was after this session's last change to it.
    pub mine_last: BTreeMap<String, Option<Entry>>,
}

/// One change of a file: what it became, and who changed it (no session: by hand).
#[derive(Debug, Clone)]
struct Step {
    entry: Option<Entry>,
    by: BTreeSet<SessionId>,
}

/// A file's changes along the timeline, kept as an editor keeps its undo: a revert or redo that
/// puts the file back as it was at an earlier step takes the steps since off (undone, so a file
/// another session made and a revert took away and its redo brought back is still that
/// session's), one that puts it as it was at an undone step brings those back (redone), and
/// any other change is a step of its own.
#[derive(Debug, Default)]
struct Steps {
    /// How it was at the timeline's start.
    base: Option<Entry>,
    done: Vec<Step>,
    /// Steps taken off, in the order they were made; the latest taken off first.
    undone: Vec<Step>,
}

impl Steps {
    fn take(&mut self, step: Step, by_revert: bool) {
        if by_revert {
            let back = self.done.iter().rposition(|s| s.entry == step.entry);
            let back = back
                .map(|i| i + 1)
                .or((self.base == step.entry).then_some(0));
            if let Some(j) = back {
                let mut off = self.done.split_off(j);
                off.append(&mut self.undone);
                self.undone = off;
                return;
            }
            if let Some(i) = self.undone.iter().position(|s| s.entry == step.entry) {
                let rest = self.undone.split_off(i + 1);
                self.done.append(&mut self.undone);
                self.undone = rest;
                return;
            }
        }
        self.done.push(step);
    }

    /// How it was before step `i`.
    fn before(&self, i: usize) -> Option<Entry> {
        match i.checked_sub(1) {
            Some(j) => self.done.get(j).and_then(|s| s.entry),
            None => self.base,
        }
    }
}

/// Sorts the files that changed along a timeline, one stretch at a time (so only the manifests
/// of the stretch at hand, and of the start, are held at once).
#[derive(Debug)]
pub struct Sorter<'a> {
    tl: &'a Timeline,
    /// How the files were at the timeline's start.
    base: Manifest,
    files: BTreeMap<String, Steps>,
}

impl<'a> Sorter<'a> {
    pub fn new(tl: &'a Timeline, base: Manifest) -> Sorter<'a> {
        Sorter {
            tl,
            base,
            files: Default::default(),
        }
    }

    /// Take stretch `k`: the files went from `from` (tree `k`) to `to` (tree `k + 1`).
    pub fn stretch(&mut self, k: usize, from: &Manifest, to: &Manifest) {
        let open = self.tl.open.get(k).cloned().unwrap_or_default();
        let reverted = self.tl.reverted.get(k).and_then(Option::as_ref);
        for path in objects::changed(from, to) {
            let (by, by_revert) = match reverted {
                Some((session, files)) if files.contains(&path) => {
                    (BTreeSet::from([session.clone()]), true)
                }
                _ => (open.clone(), false),
            };
            let (base, entry) = (self.base.get(&path).copied(), to.get(&path).copied());
            let steps = self.files.entry(path).or_insert_with(|| Steps {
                base,
                ..Steps::default()
            });
            steps.take(Step { entry, by }, by_revert);
        }
    }

    /// Whose change each file is, for session `me`.
    pub fn finish(self, me: &SessionId) -> Sorted {
        sorted(self.files, me)
    }
}

fn sorted(files: BTreeMap<String, Steps>, me: &SessionId) -> Sorted {
    let others = |by: &BTreeSet<SessionId>| -> Vec<SessionId> {
        by.iter().filter(|s| *s != me).cloned().collect()
    };
    let mut out = Sorted::default();
    for (path, steps) in files {
        let now = steps.before(steps.done.len());
        let first_mine = steps.done.iter().position(|s| s.by.contains(me));
        // How it goes back: as before this session first changed it, else as at the start.
        let put = Put {
            entry: steps.before(first_mine.unwrap_or(0)),
            path,
        };
        if put.entry == now {
            continue;
        }
        let Some(first) = first_mine else {
            // Never this session's: whoever changed it last.
            let by = steps.done.last().map(|s| others(&s.by)).unwrap_or_default();
            out.kept.push(Kept { put, by });
            continue;
        };
        let since = &steps.done[first..];
        let last_mine = since.iter().rposition(|s| s.by.contains(me));
        if let Some(i) = last_mine
            && i + 1 < since.len()
        {
            out.mine_last.insert(put.path.clone(), since[i].entry);
        }
        if let Some(s) = since.iter().rev().find(|s| !others(&s.by).is_empty()) {
            // Another session's run changed it after this session did (or at the same time).
            out.kept.push(Kept {
                put,
                by: others(&s.by),
            });
        } else if since.iter().any(|s| s.by.is_empty()) {
            out.hand_edited.push(put.path.clone());
            out.mine.push(put);
        } else {
            out.mine.push(put);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stretch of `tl` through a sorter; `trees` holds each tree's manifest.
    fn sort(tl: &Timeline, trees: &HashMap<String, Manifest>, me: &SessionId) -> Sorted {
        let empty = Manifest::new();
        let manifest = |k: usize| {
            tl.trees
                .get(k)
                .and_then(|id| trees.get(id))
                .unwrap_or(&empty)
        };
        let mut sorter = Sorter::new(tl, manifest(0).clone());
        for k in 0..tl.trees.len().saturating_sub(1) {
            if tl.trees[k] != tl.trees[k + 1] {
                sorter.stretch(k, manifest(k), manifest(k + 1));
            }
        }
        sorter.finish(me)
    }

    fn entry(n: u8) -> Entry {
        Entry {
            kind: objects::Kind::File,
            hash: [n; 32],
            size: 1,
        }
    }

    fn mark(session: &str, run: &str, taken: Taken, tree: &str) -> Mark {
        Mark {
            session: session.into(),
            run: run.into(),
            taken: Some(taken),
            tree: tree.into(),
            at: 0,
            run_ended: None,
        }
    }

    /// Trees named by their files: `"a1 b2"` holds `a` with content 1 and `b` with content 2.
    fn trees(names: &[&str]) -> HashMap<String, Manifest> {
        names
            .iter()
            .map(|n| {
                let m = n
                    .split_whitespace()
                    .map(|f| (f[..1].to_string(), entry(f.as_bytes()[1] - b'0')))
                    .collect();
                (n.to_string(), m)
            })
            .collect()
    }

    fn paths(puts: &[Put]) -> Vec<&str> {
        puts.iter().map(|p| p.path.as_str()).collect()
    }

    /// Session A wrote `a`, then session B wrote `b`, then the user edited `h`: A's revert puts
    /// back only `a`.
    #[test]
    fn only_this_session_s_changes_are_mine() {
        let marks = [
            mark("A", "r1", Taken::Before, "x1"),
            mark("A", "r1", Taken::After, "x1 a1"),
            mark("B", "r2", Taken::Before, "x1 a1"),
            mark("B", "r2", Taken::After, "x1 a1 b1"),
        ];
        let now = "x1 a1 b1 h1";
        let t = trees(&["x1", "x1 a1", "x1 a1 b1", now]);
        let tl = timeline(&marks, Start::At(0), now, &Reverts::new());
        let s = sort(&tl, &t, &"A".into());
        assert_eq!(paths(&s.mine), ["a"]);
        assert_eq!(s.mine[0].action(), "deleted");
        assert!(s.hand_edited.is_empty());
        let kept: Vec<(&str, Vec<SessionId>)> = s
            .kept
            .iter()
            .map(|k| (k.put.path.as_str(), k.by.clone()))
            .collect();
        assert_eq!(kept, [("b", vec!["B".into()]), ("h", vec![])]);
    }

    /// A file this session changed and the user edited after: still mine, but listed as a hand
    /// edit. One another session changed after this one: kept. One the user changed before this
    /// session did: put back as the user left it.
    #[test]
    fn later_changes_by_others_are_not_overwritten_silently() {
        let marks = [
            mark("A", "r1", Taken::Before, "p1 q1 r1"),
            mark("A", "r1", Taken::After, "p2 q2 r1"),
            mark("B", "r2", Taken::Before, "p2 q2 r3"),
            mark("B", "r2", Taken::After, "p2 q3 r3"),
            mark("A", "r4", Taken::Before, "p2 q3 r3"),
            mark("A", "r4", Taken::After, "p2 q3 r4"),
        ];
        let now = "p5 q3 r4";
        let t = trees(&[
            "p1 q1 r1", "p2 q2 r1", "p2 q2 r3", "p2 q3 r3", "p2 q3 r4", now,
        ]);
        let tl = timeline(&marks, Start::At(0), now, &Reverts::new());
        let s = sort(&tl, &t, &"A".into());
        assert_eq!(paths(&s.mine), ["p", "r"]);
        assert_eq!(s.mine[0].entry, Some(entry(1)));
        assert_eq!(
            s.mine[1].entry,
            Some(entry(3)),
            "the hand edit before it stays"
        );
        assert_eq!(s.hand_edited, ["p"]);
        assert_eq!(s.kept.len(), 1);
        assert_eq!(s.kept[0].put.path, "q");
        assert_eq!(s.kept[0].by, vec![SessionId::from("B")]);
        assert_eq!(s.kept[0].put.entry, Some(entry(1)));
    }

    /// Runs of two sessions at once: what changed then is not told apart, so it is kept.
    #[test]
    fn overlapping_runs_keep_what_changed_meanwhile() {
        let marks = [
            mark("A", "r1", Taken::Before, "x1"),
            mark("B", "r2", Taken::Before, "x1 a1"),
            mark("A", "r1", Taken::After, "x1 a1 b1"),
            mark("B", "r2", Taken::After, "x1 a1 b1 c1"),
        ];
        let now = "x1 a1 b1 c1";
        let t = trees(&["x1", "x1 a1", "x1 a1 b1", now]);
        let tl = timeline(&marks, Start::At(0), now, &Reverts::new());
        let s = sort(&tl, &t, &"A".into());
        assert_eq!(paths(&s.mine), ["a"]);
        let kept: Vec<&str> = s.kept.iter().map(|k| k.put.path.as_str()).collect();
        assert_eq!(kept, ["b", "c"]);
    }

    /// A redo starts just before the revert's snapshot: what the revert changed is this
    /// session's, so it comes back; what changed since is kept or a hand edit.
    #[test]
    fn a_redo_undoes_only_the_revert() {
        let marks = [
            mark("A", "r1", Taken::Before, "x1"),
            mark("A", "r1", Taken::After, "x1 a1 b1"),
            mark("A", "v1", Taken::Revert, "x1"),
        ];
        let reverts = Reverts::from([(
            "v1".to_string(),
            (
                SessionId::from("A"),
                BTreeSet::from(["a".into(), "b".into()]),
            ),
        )]);
        let now = "x1 b2 c1";
        let t = trees(&["x1", "x1 a1 b1", now]);
        let tl = timeline(&marks, Start::Before("x1 a1 b1", 2), now, &reverts);
        let s = sort(&tl, &t, &"A".into());
        assert_eq!(paths(&s.mine), ["a", "b"]);
        assert_eq!(s.hand_edited, ["b"]);
        assert_eq!(s.kept.len(), 1);
        assert_eq!((s.kept[0].put.action(), s.kept[0].by.len()), ("deleted", 0));
    }

    /// A file another session made, that this session's revert took away (ticked) and its
    /// redo brought back, is still the other session's; this session's own file, reverted and
    /// redone, is still this session's.
    #[test]
    fn a_revert_and_its_redo_leave_whose_change_it_is() {
        let marks = [
            mark("A", "r1", Taken::Before, "x1"),
            mark("A", "r1", Taken::After, "x1 a1"),
            mark("B", "r2", Taken::Before, "x1 a1"),
            mark("B", "r2", Taken::After, "x1 a1 b1"),
            mark("A", "v1", Taken::Revert, "x1"),
            mark("A", "v1", Taken::Redo, "x1 a1 b1"),
        ];
        let reverts = Reverts::from([(
            "v1".to_string(),
            (
                SessionId::from("A"),
                BTreeSet::from(["a".into(), "b".into()]),
            ),
        )]);
        let now = "x1 a1 b1";
        let t = trees(&["x1", "x1 a1", "x1 a1 b1"]);
        let tl = timeline(&marks, Start::At(0), now, &reverts);
        let s = sort(&tl, &t, &"A".into());
        assert_eq!(paths(&s.mine), ["a"]);
        assert_eq!(s.kept[0].by, vec![SessionId::from("B")]);
        let tl = timeline(&marks, Start::At(2), now, &reverts);
        let s = sort(&tl, &t, &"B".into());
        assert_eq!(paths(&s.mine), ["b"]);
        assert!(s.kept.is_empty() && s.hand_edited.is_empty(), "{s:?}");
    }

    /// A run whose `after` never came goes until its session's next snapshot.
    #[test]
    fn a_run_without_its_after_goes_until_its_session_s_next_snapshot() {
        let marks = [
            mark("A", "r1", Taken::Before, "x1"),
            mark("B", "r2", Taken::Before, "x1 a1"),
            mark("B", "r2", Taken::After, "x1 a1 b1"),
            mark("A", "r3", Taken::Before, "x1 a1 b1 a2"),
        ];
        let g = going(&marks);
        let names = |k: usize| g[k].iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(g[0].is_empty());
        assert_eq!(names(1), ["A"]);
        assert_eq!(names(2), ["A", "B"]);
        assert_eq!(names(3), ["A"]);
        assert_eq!(names(4), ["A"], "r3 goes on until now");
    }

    /// A run that died without its `after` (and whose session never ran again) goes no further
    /// than the stretch in which it ended: later changes are not its session's.
    #[test]
    fn a_run_that_died_claims_nothing_after_its_end() {
        let timed = |m: Mark, at: i64, ended: Option<i64>| Mark {
            at,
            run_ended: ended,
            ..m
        };
        let marks = [
            timed(mark("C", "r1", Taken::Before, "x1"), 10, Some(25)),
            timed(mark("A", "r2", Taken::Before, "x1 c1"), 20, Some(40)),
            timed(mark("A", "r2", Taken::After, "x1 c1 a1"), 30, Some(40)),
            timed(mark("A", "r3", Taken::Before, "x1 c1 a1"), 50, Some(60)),
            timed(mark("A", "r3", Taken::After, "x1 c1 a2"), 60, Some(60)),
        ];
        let g = going(&marks);
        let names = |k: usize| g[k].iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(names(1), ["C"]);
        assert_eq!(names(2), ["A", "C"], "C ended at 25, in this stretch");
        assert_eq!(names(3), Vec::<String>::new());
        assert_eq!(names(4), ["A"]);
        assert!(g[5].is_empty());
    }
}
