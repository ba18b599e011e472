//! The event log over plain HTTP: `GET /api/sessions/{id}/events/stream` (Server-Sent Events)
//! and the long-poll wait of `GET /api/sessions/{id}/events`. Both give what the WebSocket
//! gives: every stored event after a seq, then live ones, in order, without gaps or duplicates.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use utoipa::IntoParams;

use super::AppState;
use super::extract::ApiQuery;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::events::Frame;

/// Events queued for one SSE client before it counts as a slow consumer (it is then cut off and
/// resumes with `Last-Event-ID`, losing nothing).
const SSE_QUEUE: usize = 8192;
/// Default seconds between heartbeat comments.
const HEARTBEAT_DEFAULT: u64 = 15;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Send events with `seq > after` first, then live ones (default 0: the whole log). A
    /// `Last-Event-ID` header, sent by `EventSource` when it reconnects, takes precedence.
    #[param(minimum = 0, maximum = 9_007_199_254_740_991_i64)]
    pub after: Option<i64>,
    /// Seconds between heartbeat comments (`: keep-alive`) while nothing happens, 1..=60,
    /// default 15.
    #[param(minimum = 1, maximum = 60)]
    pub heartbeat: Option<u64>,
}

/// Stream a session's events (Server-Sent Events).
///
/// The stored events after `after` (or the `Last-Event-ID` header) first, then live ones as
/// they are stored, in `seq` order with no gaps or duplicates; the stream stays open until the
/// client leaves, the server stops, or the credential that opened it (a ticket's too) is
/// revoked. Each event has `id:` = its seq, `event:` = its type and `data:` = the `EventFrame`
/// JSON. A client that falls more than 8,192 events behind is cut off and reconnects with
/// `Last-Event-ID`, losing nothing. Same authentication as every call;
/// at most 1,000 live subscribers per session (WebSocket and SSE together).
#[utoipa::path(get, path = "/api/sessions/{id}/events/stream", tag = "events", operation_id = "stream_events",
    params(
        ("id" = String, Path, description = "Session id"),
        StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The last seq received (what `EventSource` sends when it reconnects): resume after it"),
    ),
    responses(
        (status = 200, description = "An endless `text/event-stream` of the session's events", content_type = "text/event-stream", body = String),
        (status = 404, description = "No such session", body = ErrorBody),
        (status = 503, description = "The session already has 1,000 live subscribers (`unavailable`)", body = ErrorBody),
    ))]
pub async fn stream_events(
    State(state): State<AppState>,
    axum::extract::Extension(principal): axum::extract::Extension<crate::auth::Principal>,
    Path(id): Path<crate::protocol::SessionId>,
    ApiQuery(q): ApiQuery<StreamQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    // Subscribed before anything is sent: a revocation from here on ends the stream.
    let revoked = state.auth.until_revoked(&principal);
    // One between the gate's check (or the ticket's redemption) and that subscription would be
    // missed, and the stream would never end: look at the credential again now.
    if !state.auth.is_live(&principal).await? {
        return Err(ApiError::Unauthorized);
    }
    let after_param = super::extract::seq_param("after", q.after, 0)?;
    let after = match headers.get("last-event-id") {
        Some(v) => v
            .to_str()
            .ok()
            .filter(|s| (1..=15).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| ApiError::BadRequest("Last-Event-ID must be a seq".into()))?,
        None => after_param.unwrap_or(0),
    };
    let heartbeat = match q.heartbeat {
        None => HEARTBEAT_DEFAULT,
        Some(n @ 1..=60) => n,
        Some(_) => {
            return Err(ApiError::Validation(
                "heartbeat must be between 1 and 60".into(),
            ));
        }
    };
    state.load_session(&id).await?;
    if state.events.receiver_count(&id) >= super::ws::MAX_SUBSCRIBERS_PER_SESSION {
        return Err(ApiError::Unavailable(
            "too many live subscribers for this session".into(),
        ));
    }
    let (tx, rx) = mpsc::channel(SSE_QUEUE);
    let task = tokio::spawn(super::ws::forward(
        state.clone(),
        id,
        after,
        tx,
        Frame::sse,
        CancellationToken::new(),
    ));
    let guard = AbortOnDrop(task);
    let every = Duration::from_secs(heartbeat);
    // Each live event is the frame's shared SSE bytes (rendered once for all subscribers); a
    // quiet spell of `every` sends a heartbeat comment instead.
    let body = futures::stream::unfold((rx, guard), move |(mut rx, guard)| async move {
        let next = match tokio::time::timeout(every, rx.recv()).await {
            Ok(Some(b)) => b,
            Ok(None) => return None,
            Err(_) => Bytes::from_static(b": keep-alive\n\n"),
        };
        Some((Ok::<_, Infallible>(next), (rx, guard)))
    })
    .take_until(futures::future::select(
        Box::pin(state.connections.closing.clone().cancelled_owned()),
        Box::pin(revoked),
    ));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            // Reverse proxies (nginx) must not buffer the stream.
            (
                header::HeaderName::from_static("x-accel-buffering"),
                HeaderValue::from_static("no"),
            ),
        ],
        axum::body::Body::from_stream(body),
    )
        .into_response())
}

/// The forwarding task ends with the response body (the client left).
struct AbortOnDrop(JoinHandle<()>);
impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Long-poll for `list_events` (`EventBus::follow`): what is stored after `after`, up to
/// `limit`; when nothing is, the first events stored within `wait`.
pub async fn page_after(
    state: &AppState,
    principal: &crate::auth::Principal,
    session: &crate::protocol::SessionId,
    after: i64,
    limit: i64,
    wait: Duration,
) -> ApiResult<Vec<Frame>> {
    if wait.is_zero() {
        return Ok(state.events.backlog(session, after, limit).await?);
    }
    let mut follower = state.events.follow(
        crate::events::Scope::Session(session.into()),
        crate::events::Cursor::After(after),
    );
    let limit = usize::try_from(limit).unwrap_or(1);
    let closing = state.connections.closing.clone();
    let revoked = state.auth.until_revoked(principal);
    tokio::select! {
        // Signed out or revoked while waiting: the wait ends with the credential.
        () = revoked => Err(ApiError::Unauthorized),
        page = follower.next_page(limit) => Ok(page?),
        () = tokio::time::sleep(wait) => Ok(vec![]),
        () = closing.cancelled() => Ok(vec![]),
    }
}
