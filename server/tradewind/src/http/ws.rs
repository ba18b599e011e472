//! `GET /api/ws`: subscribe to sessions and get every stored event after a seq, then live ones,
//! in order, without gaps or duplicates; send commands that mirror the REST calls.
//!
//! Each connection has one bounded outbound queue. Live frames never wait: a client that stops
//! reading overflows the queue and is dropped (close 1013 with a reason); the run goes on and the
//! client resumes from its last seq. Backlog replay is paced by the client instead (a client that
//! reads nothing for 15 s is dropped). Frames and messages are capped well below library defaults; connections are capped
//! globally and subscriptions per session. Ping every 20 s; a peer silent for 60 s is closed.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::AppState;
use super::outbound::Out;
use crate::error::ApiError;
use crate::events::{Cursor, Frame, Scope, Source};
use crate::protocol::{WsClientFrame, WsServerFrame};

/// Most queued messages one socket flush carries.
const WRITE_BATCH: usize = 64;
/// Initial read buffer and write batching threshold of a connection.
const IO_BUFFER_BYTES: usize = 8 * 1024;
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
pub const MAX_CONNECTIONS: usize = 2048;
pub const MAX_SUBSCRIBERS_PER_SESSION: usize = 1000;
/// Frames waiting to be written to one client before it counts as a slow consumer.
pub const SEND_QUEUE: usize = 8192;
const PING_EVERY: Duration = Duration::from_secs(20);
const IDLE_LIMIT: Duration = Duration::from_secs(60);
/// A client reading none of its backlog for this long is dropped.
const BACKLOG_STALL: Duration = Duration::from_secs(15);

pub const CLOSE_SLOW_CONSUMER: u16 = 1013;
pub const CLOSE_TOO_BIG: u16 = 1009;
pub const CLOSE_POLICY: u16 = 1008;

/// A server's live WebSocket connections (per server, not per process), and the signal that
/// the server is closing (long-lived responses such as SSE streams end on it).
#[derive(Debug, Default)]
pub struct Connections {
    live: AtomicUsize,
    pub closing: CancellationToken,
}

impl Connections {
    /// Live connections (for tests and metrics).
    pub fn count(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }
}

struct ConnGuard(Arc<Connections>);
impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The WebSocket: live events of any number of sessions, and commands.
///
/// Upgrade with `GET /api/ws` (same authentication as every call; a browser also needs its own
/// origin). Client → server JSON text frames: `{"type":"subscribe","session":ID,"after":SEQ}`
/// (the stored events after SEQ, then live ones: the same `EventFrame` JSON as SSE `data:`),
/// `{"type":"unsubscribe","session":ID}`, `{"type":"subscribe_sessions"}` (the session list,
/// live: `session_updated` / `session_deleted` / `sessions_resync`), and commands with a request
/// id mirroring REST: `prompt {id, session, text}`, `cancel {id, run}`, `approval {id, approval,
/// decision}`, `set_mode {id, session, mode}`, `ping {id}` → `{"type":"ack","id":…,"result":{…}}`
/// or `{"type":"error","id":…,"error":{code,message}}`. Messages are at most 64 KiB; the server
/// pings every 20 s and closes a peer silent for 60 s; a client that stops reading is closed
/// with 1013 and resumes from its last seq. See docs/PROTOCOL.md.
#[utoipa::path(get, path = "/api/ws", tag = "events", operation_id = "websocket",
    responses(
        (status = 101, description = "Switching to the WebSocket protocol"),
        (status = 400, description = "Not a WebSocket upgrade request", body = crate::error::ErrorBody),
        (status = 503, description = "Too many open connections (2,048)", body = crate::error::ErrorBody),
    ))]
pub async fn ws_handler(
    State(state): State<AppState>,
    axum::extract::Extension(principal): axum::extract::Extension<crate::auth::Principal>,
    axum::extract::Extension(granted): axum::extract::Extension<super::extract::Granted>,
    first_frame: Option<axum::extract::Extension<super::extract::PageInFirstFrame>>,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    let page_login = match (&principal, first_frame) {
        (crate::auth::Principal::Cookie { login_session_id }, Some(_)) => {
            Some(login_session_id.clone())
        }
        _ => None,
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(e) => return ApiError::BadRequest(e.body_text()).into_response(),
    };
    let conns = state.connections.clone();
    if conns.live.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
        conns.live.fetch_sub(1, Ordering::SeqCst);
        return ApiError::Unavailable("too many WebSocket connections".into()).into_response();
    }
    let guard = ConnGuard(conns);
    // Small per-connection buffers (the library's default is 128 KiB each way): clients send
    // short commands, and outgoing frames are flushed as soon as the queue is drained. Larger
    // messages still work, the buffers grow for them. 500 watchers of one session then cost
    // ~50 MiB less.
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .read_buffer_size(IO_BUFFER_BYTES)
        .write_buffer_size(IO_BUFFER_BYTES)
        .on_upgrade(move |socket| async move {
            let _guard = guard;
            connection(state, principal, granted, page_login, socket).await;
        })
}

/// How long a cookie socket has to send its page token.
const AUTH_FRAME_WAIT: Duration = Duration::from_secs(10);

async fn connection(
    state: AppState,
    principal: crate::auth::Principal,
    granted: super::extract::Granted,
    page_login: Option<String>,
    socket: WebSocket,
) {
    let revoked = state.auth.until_revoked(&principal);
    tokio::pin!(revoked);
    let (mut sink, mut stream) = socket.split();
    // A socket opened with the login cookie proves it comes from the app's page first: its
    // first frame is `{"type":"auth","page":…}` with the sign-in's page token.
    if let Some(login) = page_login {
        let first = tokio::time::timeout(AUTH_FRAME_WAIT, stream.next()).await;
        let ok = match first {
            Ok(Some(Ok(Message::Text(t)))) => matches!(
                serde_json::from_str::<WsClientFrame>(&t),
                Ok(WsClientFrame::Auth { page }) if state.auth.check_page(&login, &page)
            ),
            _ => false,
        };
        if !ok {
            let close = Message::Close(Some(CloseFrame {
                code: CLOSE_POLICY,
                reason: "the first frame must be {\"type\":\"auth\",\"page\":<the page token>}"
                    .into(),
            }));
            let _ = tokio::time::timeout(Duration::from_secs(1), sink.send(close)).await;
            // Finish the closing handshake: read (and drop) what the client already sent until
            // its close frame, so unread data does not turn the close into a reset (which a
            // browser reports as 1006, not 1008). Bounded.
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while let Some(Ok(m)) = stream.next().await {
                    if matches!(m, Message::Close(_)) {
                        break;
                    }
                }
            })
            .await;
            return;
        }
    }
    let (tx, rx) = mpsc::channel::<Out>(SEND_QUEUE);
    // Cancelled when the client is too slow: the writer stops, sends a close (bounded), and the
    // socket is dropped; the reader stops too.
    let overflow = CancellationToken::new();
    let writer = tokio::spawn(write_loop(sink, rx, overflow.clone()));
    let mut subs: HashMap<String, JoinHandle<()>> = HashMap::new();
    let mut terms = super::terminal::Channels::default();
    let owner = super::terminal::owner_of(&principal);
    loop {
        let next = tokio::select! {
            n = tokio::time::timeout(IDLE_LIMIT, stream.next()) => n,
            _ = overflow.cancelled() => break,
            () = &mut revoked => {
                let _ = tx.try_send(Out::Close(CLOSE_POLICY, "signed out"));
                state.terminals().close_owner(&owner);
                break;
            }
        };
        let text = match incoming(next.ok(), &tx) {
            Incoming::Text(t) => t,
            Incoming::Binary(b) => {
                if terms.input(&b).await {
                    continue;
                }
                let _ = tx.try_send(Out::Close(1003, "binary frames only on a terminal channel"));
                break;
            }
            Incoming::Skip => continue,
            Incoming::Stop => break,
        };
        let cmd = match serde_json::from_str::<WsClientFrame>(&text) {
            Ok(c) => c,
            Err(e) => {
                let message = format!("unrecognised message: {e}");
                send_error(&tx, None, "bad_request", &message);
                continue;
            }
        };
        let cmd = match cmd {
            WsClientFrame::TerminalOpen {
                id,
                session,
                terminal,
                cols,
                rows,
            } => {
                let frame = (&session, terminal.as_deref(), cols, rows);
                let r = terms.open(&state, granted, &owner, frame, &tx).await;
                reply(&tx, id, r);
                continue;
            }
            WsClientFrame::TerminalResize {
                id,
                terminal,
                cols,
                rows,
            } => {
                reply(&tx, id, terms.resize(&terminal, cols, rows));
                continue;
            }
            WsClientFrame::TerminalClose { id, terminal } => {
                reply(&tx, id, terms.close(&state, &terminal));
                continue;
            }
            other => other,
        };
        if !command(&state, granted, cmd, &mut subs, &tx, &overflow).await {
            break;
        }
    }
    terms.detach_all();
    for (_, h) in subs {
        h.abort();
    }
    drop(tx);
    let _ = writer.await;
}

/// What the reader got from the socket.
enum Incoming {
    Text(Utf8Bytes),
    /// Input for a terminal channel (refused on a socket without one).
    Binary(bytes::Bytes),
    /// A ping or pong: nothing to do.
    Skip,
    /// Closed, idle too long, an error, or a frame we refuse: the connection ends.
    Stop,
}

fn incoming(
    next: Option<Option<Result<Message, axum::Error>>>,
    tx: &mpsc::Sender<Out>,
) -> Incoming {
    let msg = match next {
        None | Some(None) => return Incoming::Stop,
        Some(Some(Err(e))) => {
            let e = e.to_string().to_ascii_lowercase();
            if e.contains("too long") || e.contains("too big") {
                let _ = tx.try_send(Out::Close(CLOSE_TOO_BIG, "message too big"));
            }
            return Incoming::Stop;
        }
        Some(Some(Ok(m))) => m,
    };
    match msg {
        Message::Text(t) => Incoming::Text(t),
        Message::Binary(b) => Incoming::Binary(b),
        Message::Close(_) => Incoming::Stop,
        Message::Ping(_) | Message::Pong(_) => Incoming::Skip,
    }
}

/// One client command, through the same services as REST. False: close the connection.
async fn command(
    state: &AppState,
    granted: super::extract::Granted,
    cmd: WsClientFrame,
    subs: &mut HashMap<String, JoinHandle<()>>,
    tx: &mpsc::Sender<Out>,
    overflow: &CancellationToken,
) -> bool {
    use crate::protocol::TokenScope;
    let need = match &cmd {
        WsClientFrame::Prompt { id, .. } | WsClientFrame::Cancel { id, .. } => {
            Some((TokenScope::Prompt, id.clone()))
        }
        WsClientFrame::Approval { id, .. } | WsClientFrame::SetMode { id, .. } => {
            Some((TokenScope::Admin, id.clone()))
        }
        // Back to the plan agent narrows what the agent may do; any other widens it.
        WsClientFrame::SetAgent { id, agent, .. } if !agent.is_plan() => {
            Some((TokenScope::Admin, id.clone()))
        }
        _ => None,
    };
    if let Some((scope, id)) = need
        && let Err(e) = granted.require(scope, "this command")
    {
        send_error(tx, id, e.code(), &e.client_message());
        return true;
    }
    match cmd {
        // The page token, once more (a browser that reconnected): nothing to do.
        WsClientFrame::Auth { .. } => {}
        WsClientFrame::Subscribe { session, after } => {
            if let Err(e) = state.load_session(&session).await {
                let e = ApiError::from(e);
                send_error(tx, None, e.code(), &e.client_message());
                return true;
            }
            if state.events.receiver_count(&session) >= MAX_SUBSCRIBERS_PER_SESSION {
                let _ = tx.try_send(Out::Close(
                    CLOSE_SLOW_CONSUMER,
                    "too many subscribers for this session",
                ));
                return false;
            }
            if let Some(old) = subs.remove(session.as_str()) {
                old.abort();
            }
            let h = tokio::spawn(forward(
                state.clone(),
                session.clone(),
                after.max(0),
                tx.clone(),
                ws_frame,
                overflow.clone(),
            ));
            subs.insert(session.into_string(), h);
        }
        WsClientFrame::Unsubscribe { session } => {
            if let Some(h) = subs.remove(session.as_str()) {
                h.abort();
            }
        }
        WsClientFrame::SubscribeSessions => {
            if let Some(old) = subs.remove(SESSIONS_SUB) {
                old.abort();
            }
            let h = tokio::spawn(forward_sessions(state.clone(), tx.clone()));
            subs.insert(SESSIONS_SUB.to_string(), h);
        }
        WsClientFrame::UnsubscribeSessions => {
            if let Some(h) = subs.remove(SESSIONS_SUB) {
                h.abort();
            }
        }
        WsClientFrame::Prompt {
            id,
            session,
            text,
            delivery,
        } => {
            let sent = crate::services::Sent {
                limits: None,
                delivery,
                by_admin: granted.0.has(TokenScope::Admin),
            };
            let r = state.post_prompt(&session, &text, &[], sent).await;
            reply(tx, id, r.map(|run| serde_json::json!({ "run_id": run })));
        }
        WsClientFrame::Cancel { id, run } => {
            let r = state.cancel_run(&run, false).await;
            reply(tx, id, r.map(|c| serde_json::json!({ "cancelled": c })));
        }
        WsClientFrame::Approval {
            id,
            approval,
            decision,
            reason,
        } => {
            let r = state
                .answer_approval(&approval, decision, reason.as_deref())
                .await;
            reply(
                tx,
                id,
                r.map(|()| serde_json::json!({ "approval_id": approval })),
            );
        }
        WsClientFrame::SetMode { id, session, mode } => {
            let r = state.set_mode(&session, mode).await;
            reply(tx, id, r.map(|_| serde_json::json!({ "mode": mode })));
        }
        WsClientFrame::SetAgent { id, session, agent } => {
            let patch = crate::protocol::PatchSessionParams {
                agent: Some(agent.clone()),
                ..Default::default()
            };
            let r = state.update_session(&session, &patch).await;
            reply(tx, id, r.map(|_| serde_json::json!({ "agent": agent })));
        }
        WsClientFrame::Ping { id } => {
            reply::<ApiError>(tx, id, Ok(serde_json::json!({ "pong": true })));
        }
        // Handled by the connection (its terminal channels).
        WsClientFrame::TerminalOpen { .. }
        | WsClientFrame::TerminalResize { .. }
        | WsClientFrame::TerminalClose { .. } => {}
    }
    true
}

type Sink = futures::stream::SplitSink<WebSocket, Message>;

/// The connection's writer: queued frames go out in batches (fed, then one flush), with a ping
/// every `PING_EVERY`; a slow consumer gets a close frame (bounded) and the socket is dropped.
async fn write_loop(mut sink: Sink, mut rx: mpsc::Receiver<Out>, overflow: CancellationToken) {
    let probe_conn = crate::probe::next_conn();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        let msg = tokio::select! {
            biased;
            _ = overflow.cancelled() => break,
            m = rx.recv() => match m { Some(m) => m, None => break },
            _ = ping.tick() => Out::Ping,
        };
        // Everything already queued goes out with this message.
        let mut batch = vec![msg];
        while batch.len() < WRITE_BATCH {
            match rx.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        let go_on = tokio::select! {
            r = write_batch(&mut sink, batch, probe_conn) => matches!(r, Ok(true)),
            _ = overflow.cancelled() => false,
        };
        if !go_on {
            break;
        }
    }
    if overflow.is_cancelled() {
        let close = Message::Close(Some(CloseFrame {
            code: CLOSE_SLOW_CONSUMER,
            reason: "slow consumer: reconnect and resubscribe from your last seq".into(),
        }));
        let _ = tokio::time::timeout(Duration::from_secs(1), sink.send(close)).await;
    } else {
        let _ = tokio::time::timeout(Duration::from_secs(1), sink.close()).await;
    }
}

/// Feed a batch to the socket and flush once; `Ok(false)` after a close frame.
async fn write_batch(
    sink: &mut Sink,
    batch: Vec<Out>,
    probe_conn: u64,
) -> Result<bool, axum::Error> {
    let mut probes = Vec::new();
    let mut go_on = true;
    for msg in batch {
        let m = match msg {
            Out::Frame(b) => {
                if crate::probe::enabled() {
                    probes.push(b.clone());
                }
                match Utf8Bytes::try_from(b) {
                    Ok(t) => Message::Text(t),
                    Err(_) => continue,
                }
            }
            Out::Text(s) => Message::Text(s.into()),
            Out::Binary(b) => Message::Binary(b),
            Out::Ping => Message::Ping(bytes::Bytes::new()),
            Out::Close(code, reason) => {
                go_on = false;
                Message::Close(Some(CloseFrame {
                    code,
                    reason: reason.into(),
                }))
            }
        };
        sink.feed(m).await?;
        if !go_on {
            break;
        }
    }
    sink.flush().await?;
    for b in probes {
        crate::probe::frame(probe_conn, &b);
    }
    Ok(go_on)
}

fn reply<E: Into<ApiError>>(
    tx: &mpsc::Sender<Out>,
    id: Option<String>,
    r: Result<serde_json::Value, E>,
) {
    match r.map_err(Into::into) {
        Ok(result) => {
            let _ = tx.try_send(Out::Text(WsServerFrame::Ack { id, result }.to_text()));
        }
        Err(e) => send_error(tx, id, e.code(), &e.client_message()),
    }
}

fn send_error(tx: &mpsc::Sender<Out>, id: Option<String>, code: &str, message: &str) {
    let error = crate::protocol::WireError {
        code: code.to_string(),
        message: message.to_string(),
    };
    let _ = tx.try_send(Out::Text(WsServerFrame::Error { id, error }.to_text()));
}

/// A WebSocket `event` frame: the stored frame's JSON as is.
fn ws_frame(f: &Frame) -> Out {
    Out::Frame(f.json.clone())
}

/// Push one frame; a full queue means a slow consumer, which is dropped.
fn push<T>(
    tx: &mpsc::Sender<T>,
    encode: fn(&Frame) -> T,
    overflow: &CancellationToken,
    f: &Frame,
) -> bool {
    match tx.try_send(encode(f)) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            overflow.cancel();
            false
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

/// The key of the session-list subscription among a connection's subscriptions (session ids
/// are ULIDs, so it cannot collide).
const SESSIONS_SUB: &str = "*sessions";
/// Changes arriving within this window are sent together, each session once.
const SESSIONS_COALESCE: Duration = Duration::from_millis(30);

/// `subscribe_sessions`: each changed session re-read and sent as it is now.
async fn forward_sessions(state: AppState, tx: mpsc::Sender<Out>) {
    use tokio::sync::broadcast::error::RecvError;
    let mut rx = state.events.session_changes();
    loop {
        let mut ids = std::collections::BTreeSet::new();
        match rx.recv().await {
            Ok(id) => {
                ids.insert(id);
            }
            Err(RecvError::Lagged(_)) => {
                if tx
                    .send(Out::Text(WsServerFrame::SessionsResync.to_text()))
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
            Err(RecvError::Closed) => return,
        }
        let window = tokio::time::sleep(SESSIONS_COALESCE);
        tokio::pin!(window);
        loop {
            tokio::select! {
                () = &mut window => break,
                r = rx.recv() => match r {
                    Ok(id) => { ids.insert(id); }
                    Err(RecvError::Lagged(_)) => break,
                    Err(RecvError::Closed) => return,
                },
            }
        }
        for id in ids {
            let text = match state.store.get_session(&id).await {
                Ok(row) => WsServerFrame::SessionUpdated {
                    data: Box::new(crate::protocol::Session::from(row)),
                    session: id,
                }
                .to_text(),
                Err(crate::store::StoreError::NotFound) => {
                    WsServerFrame::SessionDeleted { session: id }.to_text()
                }
                Err(e) => {
                    tracing::debug!(error = %e, "cannot read a changed session");
                    continue;
                }
            };
            if tx.send(Out::Text(text)).await.is_err() {
                return;
            }
        }
    }
}

/// A session's events after `after` to one client (`EventBus::follow`): the stored backlog
/// paced by the client (it waits for room, but a client that makes no progress at all for a
/// while is dropped), live frames pushed (a full queue means a slow consumer, dropped: it
/// resumes from its last seq). `encode` turns a frame into what the transport's writer sends (a
/// WebSocket message, an SSE event).
pub(crate) async fn forward<T>(
    state: AppState,
    session: crate::protocol::SessionId,
    after: i64,
    tx: mpsc::Sender<T>,
    encode: fn(&Frame) -> T,
    overflow: CancellationToken,
) {
    let mut follower = state
        .events
        .follow(Scope::Session(session), Cursor::After(after));
    while let Some(next) = follower.next_from().await {
        let (f, source) = match next {
            Ok(x) => x,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read event backlog");
                return;
            }
        };
        match source {
            Source::Backlog => {
                match tokio::time::timeout(BACKLOG_STALL, tx.send(encode(&f))).await {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) => return,
                    Err(_) => {
                        overflow.cancel();
                        return;
                    }
                }
            }
            Source::Live => {
                if !push(&tx, encode, &overflow, &f) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]
        /// Whatever text a client sends, decoding a command never panics.
        #[test]
        fn any_text_decodes_or_errors(text in ".{0,300}") {
            let _ = serde_json::from_str::<WsClientFrame>(&text);
        }

        /// Well-formed commands with arbitrary strings decode to what was sent.
        #[test]
        fn commands_round_trip(session in ".{0,80}", text in ".{0,200}", after in any::<i64>()) {
            let sub = serde_json::json!({"type": "subscribe", "session": session, "after": after});
            match serde_json::from_str::<WsClientFrame>(&sub.to_string()) {
                Ok(WsClientFrame::Subscribe { session: s, after: a }) => {
                    prop_assert_eq!(&s, &session);
                    prop_assert_eq!(a, after);
                }
                other => prop_assert!(false, "{other:?}"),
            }
            let p = serde_json::json!({"type": "prompt", "session": session, "text": text});
            let is_prompt = matches!(serde_json::from_str::<WsClientFrame>(&p.to_string()), Ok(WsClientFrame::Prompt { .. }));
            prop_assert!(is_prompt);
        }
    }

    /// Invalid UTF-8 never reaches the decoder as text: the socket layer refuses it, and the
    /// lossy form still only decodes or errors.
    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        for bytes in [
            &b"{\"type\":\"ping\",\"id\":\"\xff\"}"[..],
            b"\xc3",
            b"{\"type\":\"\xed\xa0\x80\"}",
        ] {
            assert!(std::str::from_utf8(bytes).is_err());
            let _ = serde_json::from_str::<WsClientFrame>(&String::from_utf8_lossy(bytes));
        }
    }
}
