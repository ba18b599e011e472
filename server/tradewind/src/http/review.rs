//! A session's review: its diff, hunk actions and line comments; the branches a worktree can
//! start from.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;

use super::AppState;
use super::extract::{ApiJson, ApiQuery};
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{
    CommentTarget, CommentsSent, HunkAction, NewReviewComment, PatchReviewComment, ReviewComment,
    ReviewCommentId, ReviewCommentList, SendComments, SessionId, SessionReview,
};

/// Everything a session changed, as one diff.
///
/// With a worktree (`worktree` on the session): the worktree — committed and not, untracked
/// files included — against the commit it was made from, each hunk marked `staged` when the
/// worktree's index holds it. Without: the files the session's own runs changed, from their
/// snapshots (each as it was before the session first changed it, against now); what
/// something else (a hand edit, another session) changed after the session's last change to
/// a file is in that file's `outside`, apart. With snapshots off or expired `base` is `none`
/// and `no_base` says why. At most 2,000 files (`truncated`).
#[utoipa::path(get, path = "/api/sessions/{id}/review", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session's changes", body = SessionReview),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`git_failed`: the worktree's git failed (the message says how)", body = ErrorBody)))]
pub async fn get_review(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
) -> ApiResult<axum::Json<SessionReview>> {
    Ok(axum::Json(state.session_review(&id).await?))
}

/// Stage, unstage or revert one hunk of the review.
///
/// `revert` puts the hunk's lines back as they were in the file on disk (refused, 409
/// `hunk_changed`, when they read otherwise now); `stage` and `unstage` move it into or out of
/// the repository's index — a worktree's own — (409 `not_a_repository` outside git; the
/// review's `stageable` says which). The session must be idle. Returns the review as it then is.
#[utoipa::path(post, path = "/api/sessions/{id}/review/hunk", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = HunkAction,
    responses((status = 200, description = "The review after the change", body = SessionReview),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, file in the review (a path that is not one) or hunk", body = ErrorBody),
              (status = 409, description = "`session_busy`, `hunk_changed`, `not_a_repository`, `git_failed`, or nothing to stage", body = ErrorBody),
              (status = 422, description = "A field has the wrong type or size", body = ErrorBody)))]
pub async fn hunk_action(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
    ApiJson(a): ApiJson<HunkAction>,
) -> ApiResult<axum::Json<SessionReview>> {
    Ok(axum::Json(state.review_hunk(&id, &a).await?))
}

/// A session's line comments.
///
/// Every comment on its review's lines and on its plans' lines, oldest first, in every status
/// (draft, sent, answered, resolved), with the agent's answer where there is one.
#[utoipa::path(get, path = "/api/sessions/{id}/review/comments", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The comments", body = ReviewCommentList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_comments(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
) -> ApiResult<axum::Json<ReviewCommentList>> {
    Ok(axum::Json(ReviewCommentList {
        data: state.review_comments(&id).await?,
    }))
}

/// Comment on lines of the review (a file's, `side` `new` or `old`) or of a plan revision.
///
/// The comment is a draft, quoting its lines as they read now, until "Send comments". Clients
/// hear `review_comment_added`.
#[utoipa::path(post, path = "/api/sessions/{id}/review/comments", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = NewReviewComment,
    responses((status = 201, description = "The comment", body = ReviewComment),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, plan, file, or lines (the file or plan has fewer)", body = ErrorBody),
              (status = 409, description = "`bad_range`: `end_line` before `start_line`", body = ErrorBody),
              (status = 422, description = "An empty or too long comment", body = ErrorBody)))]
pub async fn add_comment(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
    ApiJson(p): ApiJson<NewReviewComment>,
) -> ApiResult<(StatusCode, axum::Json<ReviewComment>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.add_review_comment(&id, &p).await?),
    ))
}

/// Change a comment's text, or resolve it (or open it again).
///
/// Clients hear `review_comment_updated`, or `review_comment_resolved`.
#[utoipa::path(patch, path = "/api/review-comments/{id}", tag = "review",
    params(("id" = String, Path, description = "Comment id")),
    request_body = PatchReviewComment,
    responses((status = 200, description = "The comment", body = ReviewComment),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such comment", body = ErrorBody),
              (status = 422, description = "An empty or too long comment", body = ErrorBody)))]
pub async fn patch_comment(
    State(state): State<AppState>,
    Path(id): Path<ReviewCommentId>,
    ApiJson(p): ApiJson<PatchReviewComment>,
) -> ApiResult<axum::Json<ReviewComment>> {
    Ok(axum::Json(state.patch_review_comment(&id, &p).await?))
}

/// Delete a comment.
///
/// It is gone from the list; clients hear `review_comment_resolved` with `deleted`.
#[utoipa::path(delete, path = "/api/review-comments/{id}", tag = "review",
    params(("id" = String, Path, description = "Comment id")),
    responses((status = 204, description = "Deleted"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such comment", body = ErrorBody)))]
pub async fn delete_comment(
    State(state): State<AppState>,
    Path(id): Path<ReviewCommentId>,
) -> ApiResult<StatusCode> {
    state.delete_review_comment(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Send the draft comments (or those `ids` names) to the agent as one prompt.
///
/// Diff comments become a message (queued like any prompt; `run_id` is its run): each comment
/// with its file, lines and quoted code, and the agent is asked to reply to each on a line
/// starting with its tag `[c:ID]` — its answer's replies are stored on the comments
/// (`review_comment_updated`). Plan comments ("Request changes") answer the plan revision that
/// waits, with the comments as its feedback (this needs the `admin` scope, as a plan decision
/// does); the next revision's `answers` reply to each. Sent comments are `sent`.
#[utoipa::path(post, path = "/api/sessions/{id}/review/send", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = SendComments,
    responses((status = 200, description = "What was sent", body = CommentsSent),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "Plan comments from a token without `admin`", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`nothing_to_send`, `several_plans`, the plan was decided already, or the session is archived", body = ErrorBody),
              (status = 422, description = "A field has the wrong type or size", body = ErrorBody)))]
pub async fn send_comments(
    State(state): State<AppState>,
    axum::Extension(granted): axum::Extension<super::extract::Granted>,
    Path(id): Path<SessionId>,
    ApiJson(p): ApiJson<SendComments>,
) -> ApiResult<axum::Json<CommentsSent>> {
    if p.target == Some(CommentTarget::Plan) {
        granted.require(
            crate::protocol::TokenScope::Admin,
            "requesting changes to a plan",
        )?;
    }
    Ok(axum::Json(state.send_review_comments(&id, &p).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BranchesQuery {
    /// A folder in the repository (default: the server's workspace).
    pub workspace: Option<String>,
}

/// The branches a session's worktree can start from.
///
/// The repository's local branches, most recently committed first (at most 200), and the one
/// its main checkout is on. 409 `not_a_repository` when the folder is in no git repository.
#[utoipa::path(get, path = "/api/fs/branches", tag = "review", params(BranchesQuery),
    responses((status = 200, description = "The branches", body = crate::protocol::BranchList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 409, description = "`not_a_repository`", body = ErrorBody),
              (status = 422, description = "Not an existing absolute folder under the home folder or the server's workspace", body = ErrorBody)))]
pub async fn list_branches(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<BranchesQuery>,
) -> ApiResult<axum::Json<crate::protocol::BranchList>> {
    let ws = match q.workspace.as_deref() {
        None | Some("") => state.cfg.workspace.clone(),
        Some(w) => {
            let p = std::path::Path::new(w);
            if !p.is_absolute() || !p.is_dir() {
                return Err(crate::error::ApiError::from(
                    crate::services::ServiceError::Invalid(format!(
                        "workspace {w} is not an existing absolute folder"
                    )),
                ));
            }
            p.to_path_buf()
        }
    };
    Ok(axum::Json(state.branches(&ws).await?))
}

/// The repository the session works in, as the commit panel shows it.
///
/// Its branch and commit, upstream and how far ahead or behind, staged, unstaged and untracked
/// files, remotes, the identity commits are made with, and the pull-request tools installed.
#[utoipa::path(get, path = "/api/sessions/{id}/git", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The repository's state", body = crate::protocol::GitState),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`not_a_repository`: the session's workspace is in no git repository", body = ErrorBody)))]
pub async fn git_state(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
) -> ApiResult<axum::Json<crate::protocol::GitState>> {
    Ok(axum::Json(state.git_state(&id).await?))
}

/// Commit (the user's own action: it never asks for approval).
///
/// Commits what is staged — with `all`, every tracked change — with `message`, as the user's
/// own git identity (their global `user.name` and `user.email`), hooks not run. `amend`
/// replaces the last commit. Needs the `admin` scope; refused under `--read-only` and while the
/// session's run works.
#[utoipa::path(post, path = "/api/sessions/{id}/git/commit", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = crate::protocol::CommitParams,
    responses((status = 200, description = "The commit made", body = crate::protocol::GitDone),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "A token without `admin`", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`read_only`, `session_busy`, `no_identity`, `not_a_repository`, or git refused (`git_failed`: nothing to commit …)", body = ErrorBody),
              (status = 422, description = "An empty message", body = ErrorBody)))]
pub async fn git_commit(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
    ApiJson(p): ApiJson<crate::protocol::CommitParams>,
) -> ApiResult<axum::Json<crate::protocol::GitDone>> {
    Ok(axum::Json(state.git_commit(&id, &p).await?))
}

/// Push the session's branch (the user's own action, with the user's SSH keys).
///
/// Pushes `HEAD` to the branch of the same name on `remote` (default: the upstream's remote,
/// else `origin`), whose address is read from the repository's config and must be https, ssh
/// or a folder. The call gets the network and the user's SSH agent; refused (409
/// `network_denied`) under `sandbox.network: deny`. `force` (`--force-with-lease`) needs
/// `confirm` set to the branch's name. Needs the `admin` scope.
#[utoipa::path(post, path = "/api/sessions/{id}/git/push", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = crate::protocol::PushParams,
    responses((status = 200, description = "What git said", body = crate::protocol::GitDone),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "A token without `admin`", body = ErrorBody),
              (status = 404, description = "No such session or remote", body = ErrorBody),
              (status = 409, description = "`read_only`, `session_busy`, `network_denied`, `detached_head`, `remote_refused`, `confirm_branch` (a force push without the branch typed), or git refused (`git_failed`)", body = ErrorBody),
              (status = 422, description = "A field has the wrong type or size", body = ErrorBody)))]
pub async fn git_push(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
    ApiJson(p): ApiJson<crate::protocol::PushParams>,
) -> ApiResult<axum::Json<crate::protocol::GitDone>> {
    Ok(axum::Json(state.git_push(&id, &p).await?))
}

/// Apply a worktree session's branch to the main checkout.
///
/// Merges the branch into what the main checkout has checked out (`how: cherry_pick` picks
/// its commits instead), refused — nothing changed — on a conflict (409 `conflicts`, naming
/// the files), while the main checkout or the worktree has uncommitted changes, and for a
/// session without a worktree. Needs the `admin` scope.
#[utoipa::path(post, path = "/api/sessions/{id}/git/apply", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = crate::protocol::ApplyParams,
    responses((status = 200, description = "The main checkout's new commit", body = crate::protocol::GitDone),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "A token without `admin`", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`conflicts`, `main_checkout_dirty`, `uncommitted_changes`, `no_worktree`, `read_only`, `session_busy`", body = ErrorBody)))]
pub async fn git_apply(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
    ApiJson(p): ApiJson<crate::protocol::ApplyParams>,
) -> ApiResult<axum::Json<crate::protocol::GitDone>> {
    Ok(axum::Json(state.git_apply(&id, &p).await?))
}

/// Open a pull request for the session's branch with `gh` (or a merge request with `glab`).
///
/// Runs the forge's tool in the jail with its sign-in folder lent for the call and the
/// network on; the branch should be pushed first. Returns what it printed and the request's
/// address. 409 `no_forge_tool` when neither is installed. Needs the `admin` scope.
#[utoipa::path(post, path = "/api/sessions/{id}/git/pr", tag = "review",
    params(("id" = String, Path, description = "Session id")),
    request_body = crate::protocol::PullRequestParams,
    responses((status = 200, description = "The pull request", body = crate::protocol::GitDone),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "A token without `admin`", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`no_forge_tool`, `forge_failed`, `network_denied`, `bad_base`, `read_only`, `session_busy`", body = ErrorBody),
              (status = 422, description = "An invalid title", body = ErrorBody)))]
pub async fn git_pull_request(
    State(state): State<AppState>,
    Path(id): Path<SessionId>,
    ApiJson(p): ApiJson<crate::protocol::PullRequestParams>,
) -> ApiResult<axum::Json<crate::protocol::GitDone>> {
    Ok(axum::Json(state.git_pull_request(&id, &p).await?))
}
