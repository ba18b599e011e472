//! A session's review as hunks: a line diff of two texts, git's unified diff read back, and a
//! hunk put back as it was (revert) — pure functions the review service builds on.

use crate::protocol::{ReviewFile, ReviewFileStatus, ReviewHunk, ReviewLine, ReviewLineKind};

/// Lines of context around each hunk.
pub const CONTEXT: usize = 3;

/// Files larger than this are listed without hunks.
pub const MAX_TEXT: usize = 1 << 20;

/// The hunks turning `old` into `new` (three lines of context), as `git diff` writes them.
pub fn hunks(old: &str, new: &str) -> Vec<ReviewHunk> {
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(old, new);
    let mut out = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    similar::ChangeTag::Equal => ReviewLineKind::Context,
                    similar::ChangeTag::Insert => ReviewLineKind::Add,
                    similar::ChangeTag::Delete => ReviewLineKind::Del,
                };
                lines.push(ReviewLine {
                    kind,
                    text: change.value().trim_end_matches(['\n', '\r']).to_string(),
                    old: change.old_index().map(|i| line_no(i + 1)),
                    new: change.new_index().map(|i| line_no(i + 1)),
                });
            }
        }
        out.push(hunk(
            start(old_range.start, old_range.len()),
            line_no(old_range.len()),
            start(new_range.start, new_range.len()),
            line_no(new_range.len()),
            lines,
        ));
    }
    out
}

fn line_no(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A hunk's first line as git numbers it: an empty side starts at the line before.
fn start(index: usize, len: usize) -> u32 {
    line_no(if len == 0 { index } else { index + 1 })
}

fn hunk(
    old_start: u32,
    old_lines: u32,
    new_start: u32,
    new_lines: u32,
    lines: Vec<ReviewLine>,
) -> ReviewHunk {
    ReviewHunk {
        header: format!("@@ -{old_start},{old_lines} +{new_start},{new_lines} @@"),
        old_start,
        old_lines,
        new_start,
        new_lines,
        lines,
        staged: false,
    }
}

/// One file of a review from its two sides (`None`: missing on that side). Bytes that are not
/// UTF-8 text, or over [`MAX_TEXT`], are listed as binary without hunks.
pub fn file(path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Option<ReviewFile> {
    if old == new {
        return None;
    }
    let status = match (old, new) {
        (None, _) => ReviewFileStatus::Added,
        (_, None) => ReviewFileStatus::Deleted,
        _ => ReviewFileStatus::Modified,
    };
    fn text(b: Option<&[u8]>) -> Option<&str> {
        match b {
            None => Some(""),
            Some(b) if b.len() > MAX_TEXT || b.contains(&0) => None,
            Some(b) => std::str::from_utf8(b).ok(),
        }
    }
    let mut f = ReviewFile {
        path: path.to_string(),
        status,
        added: 0,
        removed: 0,
        binary: false,
        hunks: Vec::new(),
        outside: None,
        comments: 0,
    };
    match (text(old), text(new)) {
        (Some(o), Some(n)) => f.hunks = hunks(o, n),
        _ => f.binary = true,
    }
    count(&mut f);
    Some(f)
}

/// A file's added and removed line counts, from its hunks.
pub fn count(f: &mut ReviewFile) {
    let (mut added, mut removed) = (0u32, 0u32);
    for l in f.hunks.iter().flat_map(|h| &h.lines) {
        match l.kind {
            ReviewLineKind::Add => added += 1,
            ReviewLineKind::Del => removed += 1,
            ReviewLineKind::Context => {}
        }
    }
    f.added = added;
    f.removed = removed;
}

/// Read `git diff` output (`--no-color --no-ext-diff -U3`, with `--no-renames`) back into files.
pub fn parse_git_diff(text: &str) -> Vec<ReviewFile> {
    let mut files: Vec<ReviewFile> = Vec::new();
    let mut old_no = 0u32;
    let mut new_no = 0u32;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            files.push(ReviewFile {
                path: git_path_of(rest),
                status: ReviewFileStatus::Modified,
                added: 0,
                removed: 0,
                binary: false,
                hunks: Vec::new(),
                outside: None,
                comments: 0,
            });
            continue;
        }
        let Some(f) = files.last_mut() else { continue };
        if f.hunks.is_empty() {
            if line.starts_with("new file mode") {
                f.status = ReviewFileStatus::Added;
            } else if line.starts_with("deleted file mode") {
                f.status = ReviewFileStatus::Deleted;
            } else if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
                f.binary = true;
            } else if let Some(p) = line.strip_prefix("+++ b/") {
                f.path = unquote(p);
            } else if let Some(p) = line.strip_prefix("--- a/")
                && f.status == ReviewFileStatus::Deleted
            {
                f.path = unquote(p);
            }
        }
        if let Some(h) = parse_header(line) {
            old_no = h.old_start;
            new_no = h.new_start;
            f.hunks.push(h);
            continue;
        }
        let Some(h) = f.hunks.last_mut() else {
            continue;
        };
        let (kind, text) = match line.chars().next() {
            Some(' ') => (ReviewLineKind::Context, &line[1..]),
            Some('+') => (ReviewLineKind::Add, &line[1..]),
            Some('-') => (ReviewLineKind::Del, &line[1..]),
            Some('\\') => continue,
            None => (ReviewLineKind::Context, ""),
            _ => continue,
        };
        // `old_no` and `new_no` are the next line's numbers on each side.
        let (old, new) = match kind {
            ReviewLineKind::Context => (Some(old_no), Some(new_no)),
            ReviewLineKind::Add => (None, Some(new_no)),
            ReviewLineKind::Del => (Some(old_no), None),
        };
        if old.is_some() {
            old_no += 1;
        }
        if new.is_some() {
            new_no += 1;
        }
        h.lines.push(ReviewLine {
            kind,
            text: text.to_string(),
            old,
            new,
        });
    }
    for f in &mut files {
        count(f);
    }
    files
}

/// `@@ -a,b +c,d @@ …` → an empty hunk numbered from there.
fn parse_header(line: &str) -> Option<ReviewHunk> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (os, ol) = range(old)?;
    let (ns, nl) = range(new)?;
    Some(hunk(os, ol, ns, nl, Vec::new()))
}

/// The path of a `diff --git a/X b/X` line (the `b/` side; quoted names unquoted).
fn git_path_of(rest: &str) -> String {
    if let Some(i) = rest.rfind(" b/") {
        return unquote(&rest[i + 3..]);
    }
    if let Some(i) = rest.rfind(" \"b/") {
        return unquote(&format!("\"{}", &rest[i + 4..]));
    }
    rest.to_string()
}

/// A path git quoted (`"a\tb"`, octal escapes for bytes) as its text.
fn unquote(p: &str) -> String {
    let Some(inner) = p.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return p.to_string();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut it = inner.bytes().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match it.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = it.peek() {
                        v = v * 8 + u32::from(n - b'0');
                        it.next();
                    }
                }
                bytes.push(u8::try_from(v).unwrap_or(b'?'));
            }
            Some(o) => bytes.push(o),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `text` with `h` taken back: its new lines (which must read as the hunk says, else `Err`)
/// replaced by its old ones. Line endings of the file are kept.
pub fn revert_hunk(text: &str, h: &ReviewHunk) -> Result<String, String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let new_side: Vec<&str> = h
        .lines
        .iter()
        .filter(|l| l.kind != ReviewLineKind::Del)
        .map(|l| l.text.as_str())
        .collect();
    let old_side: Vec<String> = h
        .lines
        .iter()
        .filter(|l| l.kind != ReviewLineKind::Add)
        .map(|l| format!("{}{eol}", l.text))
        .collect();
    let from = if h.new_lines == 0 {
        h.new_start as usize
    } else {
        (h.new_start as usize).saturating_sub(1)
    };
    let to = from + new_side.len();
    if to > lines.len() {
        return Err("the file is shorter than the hunk: it changed since the review".into());
    }
    let matches = lines[from..to]
        .iter()
        .zip(&new_side)
        .all(|(a, b)| a.trim_end_matches(['\n', '\r']) == *b);
    if !matches {
        return Err("the hunk's lines changed since the review; reload it".into());
    }
    // The last line of the file without a newline keeps none.
    let last_had_eol = lines.last().is_none_or(|l| l.ends_with('\n'));
    let old_refs: Vec<&str> = old_side.iter().map(String::as_str).collect();
    lines.splice(from..to, old_refs);
    let mut out: String = lines.concat();
    if !last_had_eol && to >= text.split_inclusive('\n').count() && out.ends_with(eol) {
        out.truncate(out.len() - eol.len());
    }
    Ok(out)
}

/// Does `h` touch lines `start..=end` of its new side (`new`) or old side?
pub fn touches(h: &ReviewHunk, start: u32, end: u32, new: bool) -> bool {
    let (s, n) = if new {
        (h.new_start, h.new_lines)
    } else {
        (h.old_start, h.old_lines)
    };
    let last = s + n.max(1) - 1;
    start <= last && end >= s
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn hunks_number_lines_as_git_does() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l4\n", "four\n") + "l21\n";
        let h = hunks(&old, &new);
        assert_eq!(h.len(), 2, "{h:?}");
        assert_eq!(h[0].header, "@@ -1,7 +1,7 @@");
        assert_eq!(h[1].header, "@@ -18,3 +18,4 @@");
        let added: Vec<_> = h[1]
            .lines
            .iter()
            .filter(|l| l.kind == ReviewLineKind::Add)
            .collect();
        assert_eq!(added[0].text, "l21");
        assert_eq!(added[0].new, Some(21));
        // Both sides empty at the start: git numbers an added file from 0 on the old side.
        let h = hunks("", "x\n");
        assert_eq!(h[0].header, "@@ -0,0 +1,1 @@");
    }

    #[test]
    fn a_hunk_reverts_to_its_old_lines() {
        let old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
        let new = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n";
        let h = hunks(old, new);
        assert_eq!(h.len(), 2);
        let back = revert_hunk(new, &h[1]).unwrap();
        assert_eq!(
            back,
            "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
        );
        let back = revert_hunk(&back, &h[0]).unwrap();
        assert_eq!(back, old);
        assert!(revert_hunk("something else\n", &h[0]).is_err());
    }

    #[test]
    fn git_diff_reads_back() {
        let text = "diff --git a/src/a.rs b/src/a.rs\nindex 1..2 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,4 @@\n x\n-y\n+Y\n+Z\n z\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\ndiff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n";
        let f = parse_git_diff(text);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].path, "src/a.rs");
        assert_eq!((f[0].added, f[0].removed), (2, 1));
        let lines = &f[0].hunks[0].lines;
        assert_eq!(lines[0].old, Some(1));
        assert_eq!(lines[0].new, Some(1));
        assert_eq!(lines[1].old, Some(2));
        assert_eq!(lines[2].new, Some(2));
        assert_eq!(lines[3].new, Some(3));
        assert_eq!(lines[4].old, Some(3));
        assert_eq!(lines[4].new, Some(4));
        assert_eq!(f[1].status, ReviewFileStatus::Added);
        assert_eq!(f[1].hunks[0].new_start, 1);
        assert!(f[2].binary);
    }
}
