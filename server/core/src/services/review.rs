//! A session's review (`GET /api/sessions/{id}/review`): everything the session changed as one
//! diff — with a worktree, the worktree (committed and not) against its fork point; without,
//! its own runs' snapshots, with what something else changed after it shown apart — and the
//! hunk actions and line comments on it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Core, OrNotFound, ServiceError, ServiceResult};
use crate::protocol::{
    CommentSide, CommentStatus, CommentTarget, CommentsSent, EventPayload, HunkAction,
    HunkActionKind, NewReviewComment, PatchReviewComment, ReviewBase, ReviewComment,
    ReviewCommentId, ReviewFile, ReviewFileStatus, ReviewHunk, SendComments, SessionId,
    SessionReview, SessionWorktree,
};
use crate::store::SessionRow;

/// Files listed at most.
pub const MAX_FILES: usize = 2000;
/// Longest comment (characters).
pub const MAX_COMMENT_CHARS: usize = 20_000;
/// Lines a comment quotes at most.
const MAX_QUOTE_LINES: usize = 50;

/// `(start, lines)` of each hunk's new side, per file: where a diff touches the work tree.
type Ranges = HashMap<String, Vec<(u32, u32)>>;

fn ranges(diff: &str) -> Ranges {
    let mut out: Ranges = HashMap::new();
    for f in crate::review::parse_git_diff(diff) {
        out.insert(
            f.path.clone(),
            f.hunks.iter().map(|h| (h.new_start, h.new_lines)).collect(),
        );
    }
    out
}

fn overlaps(r: &Ranges, path: &str, h: &ReviewHunk) -> bool {
    r.get(path).is_some_and(|v| {
        v.iter().any(|&(s, n)| {
            let (a0, a1) = (h.new_start, h.new_start + h.new_lines.max(1) - 1);
            let (b0, b1) = (s, s + n.max(1) - 1);
            a0 <= b1 && b0 <= a1
        })
    })
}

fn worktree_of(row: &SessionRow) -> Option<SessionWorktree> {
    row.worktree
        .as_deref()
        .and_then(|w| serde_json::from_str(w).ok())
}

/// A path of the review as given: relative, `/`-separated, no `..`, no NUL.
fn check_rel(path: &str) -> ServiceResult<&str> {
    let ok = !path.is_empty()
        && path.len() <= 4096
        && !path.starts_with('/')
        && !path.contains('\0')
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    if ok {
        Ok(path)
    } else {
        Err(ServiceError::NotFound("file in the review"))
    }
}

/// A file of the workspace as it is now (`None`: missing, or a link or not a regular file).
fn read_now(ws: &Path, rel: &str) -> Option<Vec<u8>> {
    let p = ws.join(rel);
    let m = std::fs::symlink_metadata(&p).ok()?;
    if !m.is_file() {
        return None;
    }
    if m.len() > crate::review::MAX_TEXT as u64 {
        // Listed as binary: too large to show.
        return Some(vec![0]);
    }
    std::fs::read(p).ok()
}

impl Core {
    /// Everything session `id` changed.
    pub async fn session_review(&self, id: &SessionId) -> ServiceResult<SessionReview> {
        let row = self.load_session(id).await?;
        let mut review = match worktree_of(&row) {
            Some(wt) => self.worktree_review(&wt).await?,
            None => self.snapshot_review(&row).await?,
        };
        let comments = self.store.comments(id).await?;
        self.resolve_moved(&row, &comments).await;
        for f in &mut review.files {
            f.comments = u32::try_from(
                comments
                    .iter()
                    .filter(|c| {
                        c.target == CommentTarget::Diff
                            && c.path == f.path
                            && c.status != CommentStatus::Resolved
                    })
                    .count(),
            )
            .unwrap_or(u32::MAX);
        }
        Ok(review)
    }

    /// With a worktree: its files (committed and not, untracked included) against its fork
    /// point, each hunk marked staged when the worktree's index holds it.
    async fn worktree_review(&self, wt: &SessionWorktree) -> ServiceResult<SessionReview> {
        let dir = Path::new(&wt.dir);
        let repo = self.repo_of(dir)?;
        let job = self.git_read(&repo);
        let diff_args = |extra: &[&'static str]| -> Vec<&'static str> {
            let mut v = vec![
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--no-renames",
                "--ignore-submodules=all",
            ];
            v.extend(extra);
            v
        };
        let fail = |e: String| ServiceError::Refused {
            code: "git_failed",
            message: format!("git diff failed: {e}"),
        };
        let mut all = diff_args(&["-U3"]);
        all.push(&wt.base_commit);
        all.push("--");
        let plain = diff_args(&["-U0", "--"]);
        let mut head_args = diff_args(&["-U0", "HEAD"]);
        head_args.push("--");
        let untracked = ["ls-files", "--others", "--exclude-standard", "-z"];
        // Four reads of one repository, at once.
        let (text, unstaged, uncommitted, others) = tokio::join!(
            self.git_reading(&repo, &job, &all, None),
            self.git_reading(&repo, &job, &plain, None),
            self.git_reading(&repo, &job, &head_args, None),
            self.git_reading(&repo, &job, &untracked, None),
        );
        let mut files = crate::review::parse_git_diff(&text.map_err(fail)?);
        let unstaged = ranges(&unstaged.map_err(fail)?);
        let uncommitted = ranges(&uncommitted.map_err(fail)?);
        let others = others.map_err(fail)?;
        for f in &mut files {
            for h in &mut f.hunks {
                h.staged = overlaps(&uncommitted, &f.path, h) && !overlaps(&unstaged, &f.path, h);
            }
        }
        for rel in others.split('\0').filter(|p| !p.is_empty()) {
            if files.len() > MAX_FILES || check_rel(rel).is_err() {
                continue;
            }
            if let Some(f) = crate::review::file(rel, None, read_now(dir, rel).as_deref()) {
                files.push(f);
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(finish(
            ReviewBase::Worktree,
            None,
            Some(wt.clone()),
            files,
            true,
        ))
    }

    /// Without a worktree: the session's own changes from its snapshots.
    async fn snapshot_review(&self, row: &SessionRow) -> ServiceResult<SessionReview> {
        let changes = match self.session_changes(row).await? {
            Ok(c) => c,
            Err(why) => return Ok(finish(ReviewBase::None, Some(why), None, Vec::new(), false)),
        };
        let ws = PathBuf::from(&row.workspace);
        let mut hashes = Vec::new();
        for c in &changes {
            hashes.extend(c.before.map(|e| e.hash));
            hashes.extend(c.mine_last.flatten().map(|e| e.hash));
        }
        let blobs: HashMap<[u8; 32], Option<Vec<u8>>> = hashes
            .iter()
            .copied()
            .zip(self.env.snapshots.blobs(&ws, hashes.clone()).await)
            .collect();
        let blob = |e: Option<crate::undo::objects::Entry>| -> Option<Vec<u8>> {
            e.and_then(|e| blobs.get(&e.hash).cloned().flatten())
        };
        let mut files = Vec::new();
        for c in changes.into_iter().take(MAX_FILES + 1) {
            let before = blob(c.before);
            let now = read_now(&ws, &c.path);
            let Some(mine) = c.mine_last else {
                files.extend(crate::review::file(
                    &c.path,
                    before.as_deref(),
                    now.as_deref(),
                ));
                continue;
            };
            let mine = blob(mine);
            let Some(mut f) = crate::review::file(&c.path, before.as_deref(), mine.as_deref())
            else {
                continue;
            };
            if let Some(out) = crate::review::file(&c.path, mine.as_deref(), now.as_deref()) {
                f.outside = Some(out.hunks);
            }
            files.push(f);
        }
        // In a git repository: which hunks the index holds.
        let stageable = match self.repo_of(&ws) {
            Ok(repo) => {
                self.mark_staged(&repo, &mut files).await;
                true
            }
            Err(_) => false,
        };
        Ok(finish(ReviewBase::Snapshots, None, None, files, stageable))
    }

    /// Mark each hunk the index holds: changed against `HEAD`, not against the index.
    async fn mark_staged(&self, repo: &crate::tools::git::Repo, files: &mut [ReviewFile]) {
        let job = self.git_read(repo);
        let d = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "-U0",
        ];
        let plain: Vec<&str> = d.iter().copied().chain(["--"]).collect();
        let head: Vec<&str> = d.iter().copied().chain(["HEAD", "--"]).collect();
        let (unstaged, uncommitted) = tokio::join!(
            self.git_reading(repo, &job, &plain, None),
            self.git_reading(repo, &job, &head, None),
        );
        let (Ok(unstaged), Ok(uncommitted)) = (unstaged, uncommitted) else {
            return;
        };
        let (unstaged, uncommitted) = (ranges(&unstaged), ranges(&uncommitted));
        for f in files {
            for h in &mut f.hunks {
                h.staged = overlaps(&uncommitted, &f.path, h) && !overlaps(&unstaged, &f.path, h);
            }
        }
    }

    /// Sent comments whose lines read otherwise now (the agent changed them) resolve.
    async fn resolve_moved(&self, row: &SessionRow, comments: &[ReviewComment]) {
        let ws = Path::new(&row.workspace);
        for c in comments {
            let waiting = matches!(c.status, CommentStatus::Sent | CommentStatus::Answered);
            if !waiting || c.target != CommentTarget::Diff || c.side != CommentSide::New {
                continue;
            }
            let now = quote_of(ws, &c.path, c.start_line, c.end_line).unwrap_or_default();
            if now != c.quote {
                let mut c = c.clone();
                c.status = CommentStatus::Resolved;
                c.resolved_by = Some("lines_changed".into());
                if let Ok(c) = self.store.update_comment(&c).await {
                    let _ = self
                        .events
                        .append(
                            &row.id,
                            None,
                            &EventPayload::ReviewCommentResolved {
                                comment: c,
                                deleted: false,
                            },
                        )
                        .await;
                }
            }
        }
    }

    /// Stage, unstage or revert one hunk; the review as it then is.
    pub async fn review_hunk(
        &self,
        id: &SessionId,
        a: &HunkAction,
    ) -> ServiceResult<SessionReview> {
        let row = self.load_session(id).await?;
        check_rel(&a.path)?;
        if self.runs.is_busy(id) {
            return Err(ServiceError::Refused {
                code: "session_busy",
                message: "the session is working; change its hunks when the run ends".into(),
            });
        }
        let review = self.session_review(id).await?;
        let file = review
            .files
            .iter()
            .find(|f| f.path == a.path)
            .ok_or(ServiceError::NotFound("file in the review"))?;
        let hunk = file
            .hunks
            .iter()
            .find(|h| h.header == a.header)
            .ok_or(ServiceError::NotFound("hunk"))?;
        let wt = worktree_of(&row);
        match (a.action, wt) {
            (HunkActionKind::Revert, _) => {
                revert_on_disk(Path::new(&row.workspace), file, hunk)?;
            }
            (kind, wt) => {
                let dir = wt
                    .as_ref()
                    .map_or(row.workspace.as_str(), |w| w.dir.as_str());
                let repo = self.repo_of(Path::new(dir)).map_err(|_| ServiceError::Refused {
                    code: "not_a_repository",
                    message: "the workspace is not in a git repository: there is no index to stage into".into(),
                })?;
                let write = self.git_write_job(&repo, wt.as_ref());
                self.stage_hunk(&repo, write, file, hunk, kind).await?;
            }
        }
        self.session_review(id).await
    }

    /// Into (or out of) the repository's index (a worktree's own): the hunk of `git diff` (or
    /// `--cached`) over the same lines, applied with `git apply --cached` by a git that may
    /// write only what `write` lends it.
    async fn stage_hunk(
        &self,
        repo: &crate::tools::git::Repo,
        write: crate::sandbox::Job,
        file: &ReviewFile,
        hunk: &ReviewHunk,
        kind: HunkActionKind,
    ) -> ServiceResult<()> {
        let repo = repo.clone();
        let read = self.git_read(&repo);
        let fail = |e: String| ServiceError::Refused {
            code: "git_failed",
            message: format!("git failed: {e}"),
        };
        let tracked = self
            .git_reading(
                &repo,
                &read,
                &["ls-files", "--error-unmatch", "--", &file.path],
                None,
            )
            .await
            .is_ok();
        if !tracked {
            if kind == HunkActionKind::Stage {
                self.git_reading(&repo, &write, &["add", "--", &file.path], None)
                    .await
                    .map_err(fail)?;
            }
            return Ok(());
        }
        let cached = kind == HunkActionKind::Unstage;
        let mut args = vec![
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-U3",
        ];
        if cached {
            args.push("--cached");
        }
        args.extend(["--", file.path.as_str()]);
        let text = self
            .git_reading(&repo, &read, &args, None)
            .await
            .map_err(fail)?;
        let parsed = crate::review::parse_git_diff(&text);
        let Some(f) = parsed.first() else {
            return Err(ServiceError::Conflict(if cached {
                "nothing of this hunk is staged".into()
            } else {
                "this hunk is staged already".into()
            }));
        };
        // The index's lines sit above the work tree's by what unstaged hunks above added.
        let shift: i64 = if cached {
            let plain = self
                .git_reading(
                    &repo,
                    &read,
                    &["diff", "--no-color", "-U0", "--", &file.path],
                    None,
                )
                .await
                .map_err(fail)?;
            crate::review::parse_git_diff(&plain)
                .first()
                .map(|u| {
                    u.hunks
                        .iter()
                        .filter(|h| h.new_start + h.new_lines <= hunk.new_start)
                        .map(|h| i64::from(h.new_lines) - i64::from(h.old_lines))
                        .sum()
                })
                .unwrap_or(0)
        } else {
            0
        };
        let start = u32::try_from((i64::from(hunk.new_start) - shift).max(0)).unwrap_or(0);
        let end = start + hunk.new_lines.max(1) - 1;
        let Some(h) = f
            .hunks
            .iter()
            .find(|h| crate::review::touches(h, start, end, true))
        else {
            return Err(ServiceError::Conflict(if cached {
                "nothing of this hunk is staged".into()
            } else {
                "this hunk is staged already".into()
            }));
        };
        let patch = patch_of(&file.path, h);
        let mut args = vec!["apply", "--cached", "--recount", "--whitespace=nowarn"];
        if cached {
            args.push("-R");
        }
        args.push("-");
        self.git_reading(&repo, &write, &args, Some(patch.as_bytes()))
            .await
            .map_err(fail)?;
        Ok(())
    }

    // ---- Comments ----

    pub async fn review_comments(&self, id: &SessionId) -> ServiceResult<Vec<ReviewComment>> {
        self.load_session(id).await?;
        Ok(self.store.comments(id).await?)
    }

    /// A new draft comment: its lines quoted as they read now (a plan's from its revision).
    pub async fn add_review_comment(
        &self,
        id: &SessionId,
        p: &NewReviewComment,
    ) -> ServiceResult<ReviewComment> {
        let row = self.load_session(id).await?;
        let body = check_body(&p.body)?;
        let end = p.end_line.unwrap_or(p.start_line);
        if p.start_line == 0 || end < p.start_line || end > 10_000_000 {
            return Err(ServiceError::Refused {
                code: "bad_range",
                message: "start_line and end_line must be lines 1 and up, start first".into(),
            });
        }
        let target = p.target.unwrap_or(CommentTarget::Diff);
        let (path, quote, plan_id, revision) = match target {
            CommentTarget::Diff => {
                let path = check_rel(p.path.as_deref().unwrap_or(""))?.to_string();
                let quote = match p.side {
                    CommentSide::New => {
                        quote_of(Path::new(&row.workspace), &path, p.start_line, end)
                            .ok_or(ServiceError::NotFound("lines in the file"))?
                    }
                    CommentSide::Old => self.old_quote(id, &path, p.start_line, end).await?,
                };
                (path, quote, None, None)
            }
            CommentTarget::Plan => {
                let plan_id = p.plan_id.clone().ok_or(ServiceError::NotFound("plan"))?;
                let plan = self.store.get_plan(&plan_id).await.or_not_found("plan")?;
                if plan.session_id != *id {
                    return Err(ServiceError::NotFound("plan"));
                }
                let text = self
                    .store
                    .get_artifact(&plan.artifact_id)
                    .await
                    .ok()
                    .and_then(|a| {
                        serde_json::from_str::<crate::protocol::PlanRevision>(&a.meta).ok()
                    })
                    .map(|r| r.plan)
                    .unwrap_or_default();
                let quote = lines_of(&text, p.start_line, end)
                    .ok_or(ServiceError::NotFound("lines in the plan"))?;
                (
                    String::new(),
                    quote,
                    Some(plan_id),
                    u32::try_from(plan.revision).ok(),
                )
            }
        };
        let now = crate::util::now_ms();
        let c = ReviewComment {
            id: crate::util::new_id().into(),
            session: id.clone(),
            target,
            plan_id,
            revision,
            path,
            start_line: p.start_line,
            end_line: end,
            side: p.side,
            quote,
            body,
            status: CommentStatus::Draft,
            answer: None,
            resolved_by: None,
            created_at: now,
            updated_at: now,
        };
        self.store.add_comment(&c).await?;
        self.events
            .append(
                id,
                None,
                &EventPayload::ReviewCommentAdded { comment: c.clone() },
            )
            .await?;
        Ok(c)
    }

    /// The removed lines a comment on the old side quotes, from the review's hunks.
    async fn old_quote(
        &self,
        id: &SessionId,
        path: &str,
        start: u32,
        end: u32,
    ) -> ServiceResult<String> {
        let review = self.session_review(id).await?;
        let lines: Vec<&str> = review
            .files
            .iter()
            .filter(|f| f.path == path)
            .flat_map(|f| &f.hunks)
            .flat_map(|h| &h.lines)
            .filter(|l| l.old.is_some_and(|n| (start..=end).contains(&n)))
            .filter(|l| l.kind != crate::protocol::ReviewLineKind::Add)
            .take(MAX_QUOTE_LINES)
            .map(|l| l.text.as_str())
            .collect();
        if lines.is_empty() {
            return Err(ServiceError::NotFound("removed lines in the review"));
        }
        Ok(lines.join("\n"))
    }

    /// Change a comment's text, or resolve or reopen it.
    pub async fn patch_review_comment(
        &self,
        id: &ReviewCommentId,
        p: &PatchReviewComment,
    ) -> ServiceResult<ReviewComment> {
        let mut c = self.store.comment(id).await.or_not_found("comment")?;
        if let Some(b) = &p.body {
            c.body = check_body(b)?;
            if c.status != CommentStatus::Resolved {
                c.status = CommentStatus::Draft;
            }
        }
        let resolved = match p.resolved {
            Some(true) => {
                c.status = CommentStatus::Resolved;
                c.resolved_by = Some("user".into());
                true
            }
            Some(false) => {
                c.status = if c.answer.is_some() {
                    CommentStatus::Answered
                } else {
                    CommentStatus::Draft
                };
                c.resolved_by = None;
                false
            }
            None => false,
        };
        let c = self.store.update_comment(&c).await?;
        let payload = if resolved {
            EventPayload::ReviewCommentResolved {
                comment: c.clone(),
                deleted: false,
            }
        } else {
            EventPayload::ReviewCommentUpdated { comment: c.clone() }
        };
        self.events.append(&c.session, None, &payload).await?;
        Ok(c)
    }

    pub async fn delete_review_comment(&self, id: &ReviewCommentId) -> ServiceResult<()> {
        let c = self.store.comment(id).await.or_not_found("comment")?;
        self.store
            .delete_comment(id)
            .await
            .or_not_found("comment")?;
        self.events
            .append(
                &c.session,
                None,
                &EventPayload::ReviewCommentResolved {
                    comment: c.clone(),
                    deleted: true,
                },
            )
            .await?;
        Ok(())
    }

    /// "Send comments": the drafts (or the ones named) as one prompt — a message to the agent,
    /// or for a plan "Request changes" on the plan that waits.
    pub async fn send_review_comments(
        &self,
        id: &SessionId,
        p: &SendComments,
    ) -> ServiceResult<CommentsSent> {
        self.load_session(id).await?;
        let target = p.target.unwrap_or(CommentTarget::Diff);
        let all = self.store.comments(id).await?;
        let chosen: Vec<ReviewComment> = all
            .into_iter()
            .filter(|c| c.target == target)
            .filter(|c| {
                if p.ids.is_empty() {
                    c.status == CommentStatus::Draft
                } else {
                    p.ids.contains(&c.id) && c.status != CommentStatus::Resolved
                }
            })
            .collect();
        if chosen.is_empty() {
            return Err(ServiceError::Refused {
                code: "nothing_to_send",
                message: "there are no comments to send".into(),
            });
        }
        let text = crate::comments::prompt(&chosen, p.text.as_deref());
        let run_id = match target {
            CommentTarget::Diff => {
                let run = self.post_message(id, &text).await?;
                self.env
                    .awaiting
                    .wait(run.clone(), chosen.iter().map(|c| c.id.clone()).collect());
                Some(run)
            }
            CommentTarget::Plan => {
                let plans: std::collections::BTreeSet<_> =
                    chosen.iter().filter_map(|c| c.plan_id.clone()).collect();
                let plans: Vec<_> = plans.into_iter().collect();
                let [plan] = &plans[..] else {
                    return Err(ServiceError::Refused {
                        code: "several_plans",
                        message: "send the comments of one plan revision at a time".into(),
                    });
                };
                self.decide_plan(plan, (crate::protocol::PlanDecision::Feedback, Some(text)))
                    .await?;
                None
            }
        };
        let mut sent = Vec::new();
        for mut c in chosen {
            c.status = CommentStatus::Sent;
            c.answer = None;
            if let Ok(c) = self.store.update_comment(&c).await {
                sent.push(c.id.clone());
                let _ = self
                    .events
                    .append(id, None, &EventPayload::ReviewCommentUpdated { comment: c })
                    .await;
            }
        }
        Ok(CommentsSent { sent, run_id })
    }
}

fn finish(
    base: ReviewBase,
    no_base: Option<String>,
    worktree: Option<SessionWorktree>,
    mut files: Vec<ReviewFile>,
    stageable: bool,
) -> SessionReview {
    let truncated = files.len() > MAX_FILES;
    files.truncate(MAX_FILES);
    SessionReview {
        base,
        no_base,
        worktree,
        added: files.iter().map(|f| f.added).sum(),
        removed: files.iter().map(|f| f.removed).sum(),
        truncated,
        stageable,
        files,
    }
}

fn check_body(b: &str) -> ServiceResult<String> {
    if b.trim().is_empty() || b.chars().count() > MAX_COMMENT_CHARS {
        return Err(ServiceError::Invalid(format!(
            "a comment is 1 to {MAX_COMMENT_CHARS} characters"
        )));
    }
    Ok(b.trim().to_string())
}

/// Lines `start..=end` of `text` (at most 50), or `None` when it has fewer.
fn lines_of(text: &str, start: u32, end: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let (s, e) = (start as usize, end as usize);
    if s == 0 || e > lines.len() {
        return None;
    }
    Some(
        lines[s - 1..e]
            .iter()
            .take(MAX_QUOTE_LINES)
            .copied()
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The lines a comment is on, as the file reads now.
fn quote_of(ws: &Path, rel: &str, start: u32, end: u32) -> Option<String> {
    let bytes = read_now(ws, rel)?;
    lines_of(std::str::from_utf8(&bytes).ok()?, start, end)
}

/// One hunk as a patch `git apply` takes.
fn patch_of(path: &str, h: &ReviewHunk) -> String {
    let mut p = format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{}\n",
        h.header
    );
    for l in &h.lines {
        let mark = match l.kind {
            crate::protocol::ReviewLineKind::Context => ' ',
            crate::protocol::ReviewLineKind::Add => '+',
            crate::protocol::ReviewLineKind::Del => '-',
        };
        p.push(mark);
        p.push_str(&l.text);
        p.push('\n');
    }
    p
}

/// Take `hunk` back in the file on disk (written beneath the workspace, never through a link):
/// an added file whose every line goes is deleted.
fn revert_on_disk(ws: &Path, file: &ReviewFile, hunk: &ReviewHunk) -> ServiceResult<()> {
    if file.binary {
        return Err(ServiceError::Invalid(
            "a binary file has no hunks to revert".into(),
        ));
    }
    let path = ws.join(&file.path);
    let now = match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => std::fs::read_to_string(&path)
            .map_err(|e| ServiceError::Invalid(format!("cannot read {}: {e}", file.path)))?,
        Ok(_) => {
            return Err(ServiceError::Invalid(format!(
                "{} is not a regular file",
                file.path
            )));
        }
        Err(_) => String::new(),
    };
    let back = crate::review::revert_hunk(&now, hunk).map_err(|e| ServiceError::Refused {
        code: "hunk_changed",
        message: e,
    })?;
    if back.is_empty() && file.status == ReviewFileStatus::Added && file.hunks.len() == 1 {
        return crate::beneath::remove_file_and_empty_parents(ws, &path)
            .map_err(|e| ServiceError::Invalid(format!("cannot delete {}: {e}", file.path)));
    }
    crate::beneath::atomic_write(ws, &path, back.as_bytes())
        .map_err(|e| ServiceError::Invalid(format!("cannot write {}: {e}", file.path)))
}
