//! Sessions, their messages, events and pending prompts.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::AppState;
use super::extract::{ApiJson, ApiQuery, limit_of, seq_param};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::protocol::{
    CreateSessionParams, EventPage, Message, MessagePage, PatchSessionParams, PendingItems,
    Session, SessionPage,
};

/// Create a session.
///
/// Every field is optional. `workspace`: an absolute path to an existing directory outside
/// Tradewind's state directory (default: the server's workspace). `title`: 1 to 200
/// characters, no control characters (default `New session`, which the first prompt replaces).
/// `agent` defaults to `build`; another name must be `plan` or a custom agent the workspace
/// has (`GET /api/agents`; an unknown one answers 422 naming those there are); `mode` to the server's default mode (`default_mode` in `GET
/// /api/config`) for a caller with the `admin` scope, and to `ask` for one without it, whatever
/// the server's default. `worktree: true` makes the session its own git worktree
/// (`worktree` in the answer: its folder, branch `tw/<slug>` and base; `base` picks the branch
/// it starts from, `GET /api/fs/branches` lists them). Returns the new session.
#[utoipa::path(post, path = "/api/sessions", tag = "sessions", request_body = CreateSessionParams,
    responses((status = 201, description = "The new session", body = Session),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 409, description = "`mode_unsafe_here`: `full` where commands run in the sandbox's Landlock fallback, which cannot make it safe (the message says how to get the jail)", body = ErrorBody),
              (status = 422, description = "A workspace that is not an existing absolute directory, an invalid title, an unknown agent, or a worktree asked for outside a git repository or from a base that is not a commit", body = ErrorBody)))]
pub async fn create_session(
    State(state): State<AppState>,
    Extension(granted): Extension<super::extract::Granted>,
    ApiJson(mut p): ApiJson<CreateSessionParams>,
) -> ApiResult<(StatusCode, axum::Json<Session>)> {
    if p.mode.is_some_and(|m| m != crate::protocol::Mode::Ask) {
        granted.require(
            crate::protocol::TokenScope::Admin,
            "a session in a mode other than `ask`",
        )?;
    }
    // Without `admin`, leaving `mode` out must not get what asking for it would be refused:
    // the server's default may be `full`.
    if !granted.0.has(crate::protocol::TokenScope::Admin) {
        p.mode.get_or_insert(crate::protocol::Mode::Ask);
    }
    if p.workspace.as_deref().is_some_and(|w| !w.is_empty()) {
        granted.require(
            crate::protocol::TokenScope::Admin,
            "a session in another workspace",
        )?;
    }
    let session = state.create_session(&p).await?;
    Ok((StatusCode::CREATED, axum::Json(session)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// From a previous page's `next_cursor`; omit for the first page. A malformed cursor gives
    /// 400.
    #[param(pattern = "^[0-9]{1,18}_[0-9A-HJKMNP-TV-Z]{26}$")]
    pub cursor: Option<String>,
    /// Page size, 1..=200, default 50; outside that range the call fails with 422.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Include archived sessions (default `false`).
    pub archived: Option<bool>,
}

/// A session page cursor, `<ms>_<session id>` (the spec's `SESSION_CURSOR` pattern).
fn parse_session_cursor(c: &str) -> ApiResult<(i64, String)> {
    let bad = || ApiError::BadRequest("invalid cursor".into());
    let (ts, id) = c.split_once('_').ok_or_else(bad)?;
    if ts.is_empty() || ts.len() > 18 || !ts.bytes().all(|b| b.is_ascii_digit()) || !is_ulid(id) {
        return Err(bad());
    }
    Ok((ts.parse::<i64>().map_err(|_| bad())?, id.to_string()))
}

/// 26 characters of Crockford's base 32 (upper case): the shape of every id this server makes.
pub(crate) fn is_ulid(s: &str) -> bool {
    s.len() == 26
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_uppercase() && !b"ILOU".contains(&b)))
}

/// List sessions, most recent activity first.
///
/// Sessions are ordered by `updated_at`, newest first. Pass the previous page's `next_cursor`
/// as `cursor` for the next page; `next_cursor` is null on the last page. Archived sessions are
/// left out unless `archived` is true. The WebSocket at `/api/ws` can push list changes instead
/// of polling this.
#[utoipa::path(get, path = "/api/sessions", tag = "sessions", params(ListQuery),
    responses((status = 200, description = "A page of sessions", body = SessionPage),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_sessions(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<axum::Json<SessionPage>> {
    let limit = limit_of(q.limit, 50, 200)?;
    let before = q.cursor.as_deref().map(parse_session_cursor).transpose()?;
    let rows = state
        .store
        .list_sessions(before, limit + 1, q.archived.unwrap_or(false))
        .await?;
    let more = rows.len() as i64 > limit;
    let data: Vec<Session> = rows
        .into_iter()
        .take(limit as usize)
        .map(Session::from)
        .collect();
    let next_cursor = if more {
        data.last().map(|s| format!("{}_{}", s.updated_at, s.id))
    } else {
        None
    };
    Ok(axum::Json(SessionPage { data, next_cursor }))
}

/// One session.
///
/// Returns its title, workspace, agent, mode, `archived` flag, `status` (`idle`, `running`, or
/// `waiting` for the user), the seq of its newest event (`last_seq`), its timestamps, and
/// `forked_from` for a fork.
#[utoipa::path(get, path = "/api/sessions/{id}", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session", body = Session),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn get_session(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<Session>> {
    Ok(axum::Json(Session::from(state.load_session(&id).await?)))
}

/// Rename, switch agent, permission mode or model, archive or unarchive.
///
/// Every field is optional; only those given change. `title` must be 1 to 200 characters with
/// no control characters. `provider` names one of `GET /api/providers` (422 otherwise) and
/// `model` any model it serves; both apply from the session's next model call, and null goes
/// back to the default (a new `provider` without `model` also resets the model). Returns the updated session and records a `session_updated` event,
/// so every client watching the session sees the change. An archived session accepts no new
/// prompts until it is unarchived.
#[utoipa::path(patch, path = "/api/sessions/{id}", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = PatchSessionParams,
    responses((status = 200, description = "The updated session", body = Session),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "`mode_unsafe_here`: `full` where commands run in the sandbox's Landlock fallback", body = ErrorBody),
              (status = 422, description = "An invalid title or model, an unknown provider, or an unknown agent (the message names the agents there are)", body = ErrorBody)))]
pub async fn patch_session(
    State(state): State<AppState>,
    Extension(granted): Extension<super::extract::Granted>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<PatchSessionParams>,
) -> ApiResult<axum::Json<Session>> {
    // Lowering to `ask` or going back to the plan agent narrows what the agent may do; any
    // other agent (`build`, a custom one) needs `admin`.
    if p.mode.is_some_and(|m| m != crate::protocol::Mode::Ask) {
        granted.require(
            crate::protocol::TokenScope::Admin,
            "changing a session's mode",
        )?;
    }
    if p.agent.as_ref().is_some_and(|a| !a.is_plan()) {
        granted.require(
            crate::protocol::TokenScope::Admin,
            "changing a session's agent",
        )?;
    }
    let session = state.update_session(&id, &p).await?;
    Ok(axum::Json(session))
}

/// Fork a session ("edit and resend") into a new session.
///
/// The new session holds the conversation before the `user_message` event at `seq` (cut before
/// the run that message opened), or all of it when `seq` is omitted; then `text`, if given, is
/// sent there as a new prompt. The original stays as it was; seq is gap-free in both. `title`
/// defaults to the original's with ` (fork)`. Returns the new session and the run `text`
/// started, if any.
#[utoipa::path(post, path = "/api/sessions/{id}/fork", tag = "sessions",
    params(("id" = String, Path, description = "Session id of the original")),
    request_body = crate::protocol::ForkParams,
    responses((status = 201, description = "The new session, and the run `text` started", body = crate::protocol::Forked),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or no event at `seq`", body = ErrorBody),
              (status = 409, description = "`seq` omitted while the session has an active run", body = ErrorBody),
              (status = 422, description = "`seq` is not a user message, or an invalid `title` or `text`", body = ErrorBody)))]
pub async fn fork_session(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(p): ApiJson<crate::protocol::ForkParams>,
) -> ApiResult<(StatusCode, axum::Json<crate::protocol::Forked>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.fork_session(&id, &p).await?),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeleteQuery {
    /// Delete a session in a worktree although the worktree has uncommitted changes (they are
    /// lost; the branch is kept).
    #[serde(default)]
    pub force: bool,
}

/// Delete a session and everything it owns.
///
/// Deletes the session's records with its runs, messages, events, approvals, questions, plans,
/// artifacts, tasks and grants; its workspace's rules stay. It cannot be undone. Refused while
/// a run is active or waiting for the user: cancel it first. A session in a worktree takes its
/// worktree with it and keeps its branch (`worktree.branch`); while the worktree has
/// uncommitted changes that needs `force=true` (409 `uncommitted_changes` otherwise).
#[utoipa::path(delete, path = "/api/sessions/{id}", tag = "sessions",
    params(("id" = String, Path, description = "Session id"), DeleteQuery),
    responses((status = 204, description = "Deleted"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "The session has an active run (cancel it first), or `uncommitted_changes` in its worktree", body = ErrorBody)))]
pub async fn delete_session(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiQuery(q): ApiQuery<DeleteQuery>,
) -> ApiResult<StatusCode> {
    state.delete_session(&id, q.force).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessagesQuery {
    /// A message id from a previous page's `next_cursor`: the page starts after it. Omit for the
    /// first page.
    #[param(pattern = "^[0-9A-HJKMNP-TV-Z]{26}$")]
    pub cursor: Option<String>,
    /// Page size, 1..=500, default 100; outside that range the call fails with 422.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// The conversation as the model sees it, oldest first.
///
/// Returns the stored messages (`user`, `assistant` or `tool`, each with its parts and the run
/// that produced it) in id order. Pass the previous page's `next_cursor` (the last message's
/// id) as `cursor` for the next page; `next_cursor` is null on the last page. For what the UI
/// shows (tool calls, approvals, run status) read the event log instead.
#[utoipa::path(get, path = "/api/sessions/{id}/messages", tag = "sessions",
    params(("id" = String, Path, description = "Session id"), MessagesQuery),
    responses((status = 200, description = "A page of messages", body = MessagePage),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_messages(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiQuery(q): ApiQuery<MessagesQuery>,
) -> ApiResult<axum::Json<MessagePage>> {
    state.load_session(&id).await?;
    let limit = limit_of(q.limit, 100, 500)?;
    if q.cursor.as_deref().is_some_and(|c| !is_ulid(c)) {
        return Err(ApiError::BadRequest("invalid cursor".into()));
    }
    let rows = state
        .store
        .list_messages(&id, q.cursor.as_deref(), limit + 1)
        .await?;
    let more = rows.len() as i64 > limit;
    let page: Vec<_> = rows.into_iter().take(limit as usize).collect();
    // The cursor is the page's last row, read or not (a row left out is not read again).
    let next_cursor = if more {
        page.last().map(|m| m.id.to_string())
    } else {
        None
    };
    let data: Vec<Message> = crate::services::views::messages(page);
    Ok(axum::Json(MessagePage { data, next_cursor }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Return events with `seq > after` (default 0: from the start); a negative value gives 422.
    #[param(minimum = 0, maximum = 9_007_199_254_740_991_i64)]
    pub after: Option<i64>,
    /// Page size, 1..=5000, default 1000; outside that range the call fails with 422.
    #[param(minimum = 1, maximum = 5000)]
    pub limit: Option<i64>,
    /// Page backwards: the last `limit` events with `after < seq < before`, oldest first
    /// (`next_cursor` is then the first seq returned: pass it as `before` for the page before).
    /// Opening a long session at its end: `before` = the session's `last_seq` + 1.
    #[param(minimum = 1, maximum = 9_007_199_254_740_991_i64)]
    pub before: Option<i64>,
    /// Long-poll (without `before`): when no event is stored after `after`, wait up to this
    /// many seconds (0..=60, default 0) for the next one before answering (an empty page when
    /// none came). Above 60 the call fails with 422.
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<u64>,
}

/// The session's event log after a seq, oldest first.
///
/// A page of stored events with `seq > after`. `next_cursor` is never null: pass it as `after`
/// for the next page; `has_more` says more are stored already. With `wait`, an empty page is
/// held open until the next event is stored (long-poll); for a live stream use
/// `GET /api/sessions/{id}/events/stream` (SSE) or the WebSocket. With `before`, the page is
/// the newest events before that seq (oldest first), `next_cursor` its first seq (the `before`
/// of the page before it), and `has_more` says older ones exist.
#[utoipa::path(get, path = "/api/sessions/{id}/events", tag = "events", params(("id" = String, Path, description = "Session id"), EventsQuery),
    responses((status = 200, description = "A page of events, oldest first", body = EventPage), (status = 401, description = "Not authenticated", body = ErrorBody), (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn list_events(
    State(state): State<AppState>,
    Extension(principal): Extension<crate::auth::Principal>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiQuery(q): ApiQuery<EventsQuery>,
) -> ApiResult<axum::Json<EventPage>> {
    state.load_session(&id).await?;
    let limit = limit_of(q.limit, 1000, 5000)?;
    let after = seq_param("after", q.after, 0)?.unwrap_or(0);
    let wait = match q.wait {
        None => 0,
        Some(n @ 0..=60) => n,
        Some(_) => {
            return Err(ApiError::Validation(
                "wait must be between 0 and 60 seconds".into(),
            ));
        }
    };
    let (frames, has_more, next_cursor) = match seq_param("before", q.before, 1)? {
        Some(before) => {
            let mut frames = state
                .events
                .backlog_before(&id, after, before, limit + 1)
                .await?;
            let has_more = frames.len() as i64 > limit;
            if has_more {
                frames.remove(0);
            }
            let next = frames.first().map_or(before, |f| f.seq);
            (frames, has_more, next)
        }
        None => {
            let frames = super::stream::page_after(
                &state,
                &principal,
                &id,
                after,
                limit + 1,
                std::time::Duration::from_secs(wait),
            )
            .await?;
            let has_more = frames.len() as i64 > limit;
            let frames: Vec<_> = frames.into_iter().take(limit as usize).collect();
            let next = frames.last().map_or(after, |f| f.seq);
            (frames, has_more, next)
        }
    };
    let data = frames
        .iter()
        .filter_map(|f| serde_json::from_slice(&f.json).ok())
        .collect();
    Ok(axum::Json(EventPage {
        data,
        next_cursor,
        has_more,
    }))
}

/// What waits for the user in this session and its subagents.
///
/// Returns the approvals, questions and plan decisions still pending, each list oldest first,
/// with what is needed to show and answer them. A session's subagents (at every depth) ask
/// through it: their prompts are listed here too, each with the `session` that asks. Answer
/// with `POST /api/approvals/{id}`, `POST /api/questions/{id}` and
/// `POST /api/plans/{id}/decision`. Empty lists when nothing waits.
#[utoipa::path(get, path = "/api/sessions/{id}/pending", tag = "prompts",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The pending approvals, questions and plans", body = PendingItems),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn pending(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<PendingItems>> {
    state.load_session(&id).await?;
    let mut sessions = vec![id.clone()];
    sessions.extend(state.store.descendant_ids(&id).await?);
    let mut items = PendingItems {
        approvals: Vec::new(),
        questions: Vec::new(),
        plans: Vec::new(),
    };
    for sid in &sessions {
        pending_of(&state, sid, &mut items).await?;
    }
    items.approvals.sort_by_key(|a| a.created_at);
    items.questions.sort_by_key(|q| q.created_at);
    items.plans.sort_by_key(|p| p.created_at);
    Ok(axum::Json(items))
}

async fn pending_of(
    state: &AppState,
    id: &crate::protocol::SessionId,
    items: &mut PendingItems,
) -> ApiResult<()> {
    let approvals = state.store.pending_approvals(id).await?;
    let questions = state.store.pending_questions(id).await?;
    let plans = state.store.pending_plans(id).await?;
    crate::services::views::pending_of(id, approvals, questions, plans, items);
    Ok(())
}

/// The subagent sessions this session started.
///
/// Returns the sessions its `task` calls started, oldest first, each with its `parent_id`
/// (read their transcripts like any session's). Subagent sessions are not in
/// `GET /api/sessions`; they belong to their parent.
#[utoipa::path(get, path = "/api/sessions/{id}/children", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The subagent sessions", body = Vec<Session>),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn children(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<Vec<Session>>> {
    state.load_session(&id).await?;
    let rows = state.store.child_sessions(&id).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let last = state.store.list_session_runs(&row.id, 1).await?;
        let mut s = Session::from(row);
        s.last_run_status = last.first().map(|r| r.status).filter(|st| {
            !matches!(
                st,
                crate::protocol::RunStatus::Queued | crate::protocol::RunStatus::Running
            )
        });
        out.push(s);
    }
    Ok(axum::Json(out))
}

/// What the session may do without asking: the ceiling, its mode, and every grant.
///
/// Returns the server's startup ceiling and switches (`read_only`, `yolo`, extra roots, the
/// process sandbox), the session's mode, agent and workspace, and every grant: the session's
/// own and its workspace's rules, each with a readable label, its `scope` (`session` or
/// `workspace`) and the `key` that revokes it.
#[utoipa::path(get, path = "/api/sessions/{id}/permissions", tag = "prompts",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session's permissions and grants", body = crate::protocol::SessionPermissions),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn permissions(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<crate::protocol::SessionPermissions>> {
    Ok(axum::Json(state.permissions(&id).await?))
}

/// A path to let into a session's jail.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JailAllow {
    /// An absolute path the sandbox hid from one of the session's commands (a terminal part's
    /// `hidden`).
    pub path: String,
}

/// Let a path the sandbox hid into the session's later commands, read-only.
///
/// "Allow for this session" on a command's card: the path (a file or folder, as a terminal
/// part's `hidden` names it) is bound read-only into every later command of the session (a
/// subagent's: of its root session) until the grant is revoked (`DELETE
/// /api/sessions/{id}/permissions` with the returned `key`). Refused with 422 and the reason
/// for a relative or missing path, one the sandbox does not hide, `/`, HOME or a folder above
/// it, and anything holding or inside the server's state directory; 409 when no jail runs the
/// server's commands. Needs a token with the `admin` scope.
#[utoipa::path(post, path = "/api/sessions/{id}/jail-allows", tag = "prompts",
    params(("id" = String, Path, description = "Session id")),
    request_body = JailAllow,
    responses((status = 201, description = "Allowed: the new grant", body = crate::protocol::GrantInfo),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 403, description = "The token lacks the admin scope", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 409, description = "No jail runs this server's commands", body = ErrorBody),
              (status = 422, description = "The path may not be let in (the message says why)", body = ErrorBody)))]
pub async fn allow_in_jail(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiJson(body): ApiJson<JailAllow>,
) -> ApiResult<(StatusCode, axum::Json<crate::protocol::GrantInfo>)> {
    let g = state
        .allow_in_jail(&id, std::path::Path::new(&body.path))
        .await?;
    Ok((StatusCode::CREATED, axum::Json(g)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RevokeQuery {
    /// The grant's `key`, as listed by `GET /api/sessions/{id}/permissions` (required).
    pub key: String,
    /// `session` (default) or `workspace`; any other value gives 422.
    #[param(value_type = Option<crate::protocol::GrantScope>)]
    pub scope: Option<String>,
}

/// Revoke one grant; runs in flight see it at their next call.
///
/// With `scope` `session` (the default) the session's own grant with this `key` is removed;
/// with `workspace`, the rule kept for the session's workspace, which every session of that
/// workspace uses. Calls it covered are judged again by the mode and the remaining grants.
#[utoipa::path(delete, path = "/api/sessions/{id}/permissions", tag = "prompts",
    params(("id" = String, Path, description = "Session id"), RevokeQuery),
    responses((status = 204, description = "Revoked"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session, or no such grant in that scope", body = ErrorBody),
              (status = 422, description = "`scope` is not `session` or `workspace`", body = ErrorBody)))]
pub async fn revoke_permission(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiQuery(q): ApiQuery<RevokeQuery>,
) -> ApiResult<StatusCode> {
    let workspace = match q.scope.as_deref() {
        None | Some("session") => false,
        Some("workspace") => true,
        Some(other) => {
            return Err(ApiError::Validation(format!(
                "scope `{other}` is not session or workspace"
            )));
        }
    };
    state.revoke_grant(&id, &q.key, workspace).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ToolsQuery {
    /// The id of the session whose mode, agent and grants decide (required).
    pub session: crate::protocol::SessionId,
}

/// Every tool as a session sees it now: enabled, ask or disabled, and why.
///
/// For each tool: its effect, `status` (`enabled`: runs without asking, `ask`: the user is
/// asked, `disabled`: not offered or denied) and the reason, from the session's agent, mode and
/// grants and the server's ceiling and switches. It is judged without paths or a command, so
/// one particular call may still be decided otherwise (try it with `POST /api/policy/check`).
#[utoipa::path(get, path = "/api/tools", tag = "server", params(ToolsQuery),
    responses((status = 200, description = "Every tool with its status and reason", body = crate::protocol::ToolStatusList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn tools(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ToolsQuery>,
) -> ApiResult<axum::Json<crate::protocol::ToolStatusList>> {
    Ok(axum::Json(state.tool_status(&q.session).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FilesQuery {
    /// What to look for (fuzzy, like fzf: `srvsess` finds `server/…/sessions.rs`; a space
    /// separates words that must all match; upper case matches case-sensitively). Empty: the
    /// shortest paths (the top of the tree) first. At most 200 characters.
    #[param(max_length = 200)]
    pub q: Option<String>,
    /// How many matches, 1..=100, default 20; outside that range the call fails with 422.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// Find workspace files by a fuzzy query (`@` mentions).
///
/// Ranks the files and directories of the session's workspace against `q` the way fzf does
/// (word starts, consecutive letters and the file name count most) and returns the best, with
/// the matched positions for highlighting. The list respects `.gitignore` and leaves out `.git`
/// and every path the gate hard-denies (keys, credentials, Tradewind's own state); it is kept
/// per workspace and refreshed in the background every few seconds, so a new file may take a
/// moment to appear.
#[utoipa::path(get, path = "/api/sessions/{id}/files", tag = "sessions",
    params(("id" = String, Path, description = "Session id"), FilesQuery),
    responses((status = 200, description = "The best matches, best first", body = crate::protocol::FileMatches),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody),
              (status = 422, description = "`q` longer than 200 characters, or `limit` out of range", body = ErrorBody)))]
pub async fn files(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiQuery(q): ApiQuery<FilesQuery>,
) -> ApiResult<axum::Json<crate::protocol::FileMatches>> {
    let limit = limit_of(q.limit, 20, 100)?;
    Ok(axum::Json(
        state
            .find_files(&id, q.q.as_deref().unwrap_or(""), limit as usize)
            .await?,
    ))
}

/// The workspace's own slash commands (prompt templates).
///
/// Lists the Markdown files in the session workspace's `.tradewind/commands/` folder: each
/// `<name>.md` is a command `/name` whose text (front matter removed) is sent as a prompt, with
/// `$ARGUMENTS` replaced by what follows the command. Names are 1 to 40 of `a-z 0-9 - _`; links,
/// files over 64 KiB and other names are listed in `skipped` with the reason. Read on every
/// call, so an edited template applies at once.
#[utoipa::path(get, path = "/api/sessions/{id}/commands", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The templates, by name", body = crate::protocol::PromptCommands),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No such session", body = ErrorBody)))]
pub async fn commands(
    State(state): State<AppState>,
    Path(id): Path<crate::protocol::SessionId>,
) -> ApiResult<axum::Json<crate::protocol::PromptCommands>> {
    Ok(axum::Json(state.prompt_commands(&id).await?))
}
