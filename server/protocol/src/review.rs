//! A session's review: everything it changed as one diff (`GET /api/sessions/{id}/review`), the
//! line comments on it and on plans, and its git worktree.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;

/// The git worktree the server made for a session (`POST /api/sessions {worktree: true}`): the
/// session works in `dir`, on its own branch, so sessions of one repository never edit the same
/// files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SessionWorktree {
    /// The folder the session works in (its workspace).
    pub dir: String,
    /// The branch the worktree is on (`tw/<slug>`); deleting the session keeps it.
    pub branch: String,
    /// What it was made from: the branch chosen, else the main checkout's branch (or `HEAD`).
    pub base: String,
    /// The commit it was made from (the review's fork point).
    pub base_commit: String,
    /// The main checkout's folder (where "Apply to main checkout" merges the branch).
    pub repository: String,
    /// The repository's shared git directory (the main checkout's `.git`).
    pub git_dir: String,
}

/// `GET /api/fs/branches`: the branches a new worktree can start from.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BranchList {
    /// The main checkout's branch (absent: a detached `HEAD`).
    pub current: Option<String>,
    /// Local branches, most recently committed first (at most 200).
    pub branches: Vec<String>,
}

/// What a review compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewBase {
    /// The session's worktree (committed and not) against its fork point.
    Worktree,
    /// The session's own runs' snapshots: each file before its first change in the session
    /// against now.
    Snapshots,
    /// Nothing to compare against (undo off, or its snapshots expired): see `git_head`.
    None,
}

/// How one file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewFileStatus {
    Added,
    Modified,
    Deleted,
}

/// One line of a hunk: ` ` context, `+` added, `-` removed, with its numbers on each side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReviewLine {
    /// `context`, `add` or `del`.
    pub kind: ReviewLineKind,
    pub text: String,
    /// Its line number before (absent for an added line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<u32>,
    /// Its line number now (absent for a removed line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewLineKind {
    Context,
    Add,
    Del,
}

/// One hunk of a file's diff (three lines of context).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReviewHunk {
    /// The hunk's header as `git diff` writes it (`@@ -a,b +c,d @@`).
    pub header: String,
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<ReviewLine>,
    /// In a worktree review: the hunk is staged in the worktree's index.
    #[serde(default)]
    pub staged: bool,
}

/// One file a session changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ReviewFile {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub status: ReviewFileStatus,
    pub added: u32,
    pub removed: u32,
    /// Not text (or over 1 MiB): no hunks are shown.
    #[serde(default)]
    pub binary: bool,
    pub hunks: Vec<ReviewHunk>,
    /// Without a worktree: the file changed after the session's last change to it by something
    /// else (a hand edit, another session): `outside` is that change, apart from the session's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside: Option<Vec<ReviewHunk>>,
    /// Comments on this file's lines.
    #[serde(default)]
    pub comments: u32,
}

/// `GET /api/sessions/{id}/review`: everything a session changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SessionReview {
    pub base: ReviewBase,
    /// Why there is no base, when `base` is `none` (with `git diff HEAD` offered instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_base: Option<String>,
    /// With a worktree: its branch and fork point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<SessionWorktree>,
    pub files: Vec<ReviewFile>,
    /// More files changed than the 2,000 listed.
    #[serde(default)]
    pub truncated: bool,
    /// The workspace is in a git repository: its hunks can be staged (each hunk's `staged`
    /// says whether the index holds it).
    #[serde(default)]
    pub stageable: bool,
    pub added: u32,
    pub removed: u32,
}

/// `POST /api/sessions/{id}/review/hunk`: stage, unstage or revert one hunk of the review.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"path": "src/lib.rs", "header": "@@ -10,6 +10,8 @@", "action": "revert"})))]
pub struct HunkAction {
    #[schema(min_length = 1, max_length = 4096)]
    pub path: String,
    /// The hunk's `header` as the review gave it.
    #[schema(min_length = 1, max_length = 200)]
    pub header: String,
    pub action: HunkActionKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HunkActionKind {
    /// Into the repository's index (the worktree's own for a session in one).
    Stage,
    /// Out of the index again.
    Unstage,
    /// Put the hunk's lines back as they were (the file on disk changes).
    Revert,
}

/// What a comment is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommentTarget {
    /// Lines of a file in the session's review.
    Diff,
    /// Lines of a plan revision (`plan_id`).
    Plan,
}

/// Where a comment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommentStatus {
    /// Written, not yet sent to the agent.
    Draft,
    /// Sent; waiting for the agent's answer.
    Sent,
    /// The agent answered (`answer`).
    Answered,
    /// The user resolved it, or its lines changed after it was sent.
    Resolved,
}

/// Which side of a diff a comment's lines are numbered on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommentSide {
    /// The lines as they are now.
    #[default]
    New,
    /// The lines as they were (a removed line).
    Old,
}

/// A line comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReviewComment {
    pub id: ReviewCommentId,
    pub session: SessionId,
    pub target: CommentTarget,
    /// The plan a `plan` comment is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<PlanId>,
    /// The plan's revision it was written on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
    /// A `diff` comment's file (relative to the workspace); empty for a plan.
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub side: CommentSide,
    /// The lines it is on, as they read when it was written.
    pub quote: String,
    pub body: String,
    pub status: CommentStatus,
    /// The agent's answer to it (its reply, or the plan revision's `answers` entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Why it resolved: `user`, `lines_changed` or `answered`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `POST /api/sessions/{id}/review/comments`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"path": "src/lib.rs", "start_line": 12, "end_line": 14, "body": "This loses the error; return it instead."})))]
pub struct NewReviewComment {
    /// `diff` (default) or `plan`.
    #[serde(default)]
    pub target: Option<CommentTarget>,
    /// A plan comment's plan revision.
    pub plan_id: Option<PlanId>,
    /// A diff comment's file, relative to the workspace.
    #[schema(max_length = 4096)]
    pub path: Option<String>,
    #[serde(deserialize_with = "whole::line")]
    #[schema(minimum = 1, maximum = 10_000_000)]
    pub start_line: u32,
    /// Default: `start_line`.
    #[serde(default, deserialize_with = "whole::opt_line")]
    #[schema(minimum = 1, maximum = 10_000_000)]
    pub end_line: Option<u32>,
    #[serde(default)]
    pub side: CommentSide,
    /// 1 to 20,000 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 20000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub body: String,
}

/// `PATCH /api/review-comments/{id}`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"resolved": true})))]
pub struct PatchReviewComment {
    /// A new text (a draft's or a sent one's; a sent one goes back to the agent with the next
    /// "Send comments").
    #[schema(
        min_length = 1,
        max_length = 20000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub body: Option<String>,
    /// Resolve it, or open it again.
    pub resolved: Option<bool>,
}

/// `GET /api/sessions/{id}/review/comments`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ReviewCommentList {
    pub data: Vec<ReviewComment>,
}

/// `POST /api/sessions/{id}/review/send`: the drafts (or the ones named) go to the agent as one
/// prompt.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendComments {
    /// Only these (default: every draft of the target).
    #[serde(default)]
    #[schema(max_items = 200)]
    pub ids: Vec<ReviewCommentId>,
    /// `diff` (default) or `plan` (for a plan: "Request changes" on `plan_id`).
    #[serde(default)]
    pub target: Option<CommentTarget>,
    /// A few words sent before the comments.
    #[schema(max_length = 20000)]
    pub text: Option<String>,
}

/// What "Send comments" started.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CommentsSent {
    pub sent: Vec<ReviewCommentId>,
    /// The run that got them (or the queued message's run).
    pub run_id: Option<RunId>,
}

// ---- Commit, push, apply, pull request (the user's own actions) ----

/// One file of `git status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GitFile {
    pub path: String,
    /// `git status --porcelain` letter for its side: `M`, `A`, `D`, `R`, `?` …
    pub status: String,
}

/// `GET /api/sessions/{id}/git`: the repository the session works in, as the commit panel
/// shows it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GitState {
    /// The branch checked out (absent: a detached `HEAD`).
    pub branch: Option<String>,
    /// The commit checked out, and its first line.
    pub head: Option<String>,
    pub head_subject: Option<String>,
    /// The branch's upstream (`origin/main`), and how far it is ahead and behind.
    pub upstream: Option<String>,
    pub ahead: u32,
    pub behind: u32,
    pub staged: Vec<GitFile>,
    pub unstaged: Vec<GitFile>,
    pub untracked: Vec<GitFile>,
    /// The remotes' names.
    pub remotes: Vec<String>,
    /// The name and email commits are made with (the user's own git identity); absent when
    /// the user's git config has none (a commit is then refused, saying so).
    pub identity: Option<GitIdentity>,
    /// The session works in a worktree of its own (so "Apply to main checkout" applies).
    pub worktree: bool,
    /// The pull-request tools installed (`gh`, `glab`).
    pub forges: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GitIdentity {
    pub name: String,
    pub email: String,
}

/// `POST /api/sessions/{id}/git/commit`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"message": "Add the cache\n\nKeeps the last 100 answers."})))]
pub struct CommitParams {
    /// 1 to 20,000 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 20000,
        pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
    )]
    pub message: String,
    /// Stage every tracked file's changes first (`git commit -a`).
    #[serde(default)]
    pub all: bool,
    /// Replace the last commit (`--amend`).
    #[serde(default)]
    pub amend: bool,
}

/// `POST /api/sessions/{id}/git/push`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(examples(json!({"remote": "origin"})))]
pub struct PushParams {
    /// Default: the branch's upstream's remote, else `origin`.
    #[schema(max_length = 250)]
    pub remote: Option<String>,
    /// Force (`--force-with-lease`): needs `confirm` set to the branch's name.
    #[serde(default)]
    pub force: bool,
    #[schema(max_length = 250)]
    pub confirm: Option<String>,
}

/// How "Apply to main checkout" brings the worktree's branch in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApplyHow {
    /// `git merge` (a fast-forward where it can be).
    #[default]
    Merge,
    /// `git cherry-pick` of the branch's commits since its fork point.
    CherryPick,
}

/// `POST /api/sessions/{id}/git/apply`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyParams {
    #[serde(default)]
    pub how: ApplyHow,
}

/// `POST /api/sessions/{id}/git/pr`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PullRequestParams {
    /// One line: no control characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 250,
        pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    pub title: String,
    #[serde(default)]
    #[schema(max_length = 60000)]
    pub body: String,
    /// The branch to merge into (default: the forge's default branch).
    #[schema(max_length = 250)]
    pub base: Option<String>,
}

/// What a git action did.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GitDone {
    /// The commit made or now checked out, where there is one.
    pub commit: Option<String>,
    /// What git (or the forge tool) printed.
    pub output: String,
    /// The pull request's address (`pr`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}
