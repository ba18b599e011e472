//! Durable, sequenced run events plus live fan-out.
//!
//! Every event of a session goes through that session's writer: a queue drained by one task at a
//! time, which stores everything queued so far in one transaction (group commit: one `seq` range,
//! one insert per table) and only then broadcasts the frames, in `seq` order. So an event is
//! stored before it is sent, and the broadcast order is the `seq` order.
//!
//! Text and reasoning deltas arrive already coalesced per ~50 ms or 512 bytes
//! (`agent::coalesce`); the writer merges them once more: consecutive deltas of one message
//! waiting in the queue become one stored event (up to `MAX_DELTA_BYTES`). So while the writer
//! is busy — a burst from the model, many subscribers — the log gets fewer, larger events
//! instead of a backlog.
//!
//! `append` waits until its event is stored; `post` does not (the agent loop posts, and waits with
//! `flush` only before an effect). Messages (the model's history) can ride in the same
//! transaction, so a message and the events around it are stored together.
//!
//! A subscriber takes the broadcast receiver *before* reading the backlog from the database, then
//! skips live frames it already sent: no gap and no duplicate, also when events are appended while
//! the backlog is being replayed.

mod follow;
mod live;
mod writer;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;

use tokio::sync::{broadcast, oneshot};

use crate::protocol::EventPayload;
use crate::store::{EventRow, NewEvent, NewMessage, Store, StoreError, StoreResult};
pub use follow::{Cursor, Follower, PAGE, Scope, Source};
pub use live::{LIVE_MAX, LiveOf, LiveOutput};
use writer::*;

/// Most items one writer cycle takes from the queue.
const MAX_BATCH: usize = 1024;

/// Largest text a merged delta event carries.
pub const MAX_DELTA_BYTES: usize = 16 * 1024;

/// Live channel capacity per session; a receiver that falls further behind re-reads the DB.
const CHANNEL_CAPACITY: usize = 4096;

/// A stored event, with its frame JSON rendered once and shared by every subscriber. Cloning
/// one (the live channel does, per subscriber) copies no text.
#[derive(Debug, Clone)]
pub struct Frame {
    pub seq: i64,
    pub session: Arc<str>,
    pub kind: Arc<str>,
    /// The rendered frame, shared (cheaply cloned) by every subscriber.
    pub json: bytes::Bytes,
    /// The frame as one Server-Sent Event, rendered by the first SSE subscriber and shared.
    sse: Arc<std::sync::OnceLock<bytes::Bytes>>,
}

impl Frame {
    pub fn from_row(row: &EventRow) -> Frame {
        Frame {
            seq: row.seq,
            session: row.session_id.as_str().into(),
            kind: row.kind.as_str().into(),
            json: bytes::Bytes::from(render_frame(row)),
            sse: Arc::default(),
        }
    }

    /// `id: <seq>` / `event: <type>` / `data: <frame JSON>` and a blank line (each line of the
    /// JSON its own `data:` line, should it ever hold one).
    pub fn sse(&self) -> bytes::Bytes {
        self.sse
            .get_or_init(|| {
                let json = String::from_utf8_lossy(&self.json);
                let mut out = String::with_capacity(json.len() + self.kind.len() + 40);
                out.push_str("id: ");
                out.push_str(&self.seq.to_string());
                out.push_str("\nevent: ");
                out.push_str(&self.kind);
                out.push('\n');
                for line in json.split('\n') {
                    out.push_str("data: ");
                    out.push_str(line.trim_end_matches('\r'));
                    out.push('\n');
                }
                out.push('\n');
                bytes::Bytes::from(out)
            })
            .clone()
    }
}

/// `{"seq":N,"session":…,"run":…,"at":…,<payload fields including "type">}`.
pub fn render_frame(row: &EventRow) -> String {
    let session = serde_json::to_string(&row.session_id).unwrap_or_else(|_| "\"\"".into());
    let run = serde_json::to_string(&row.run_id).unwrap_or_else(|_| "null".into());
    let body = row.data.trim();
    let rest = body.strip_prefix('{').unwrap_or("}");
    let sep = if rest.trim_start().starts_with('}') {
        ""
    } else {
        ","
    };
    format!(
        "{{\"seq\":{},\"session\":{},\"run\":{},\"at\":{}{}{}",
        row.seq, session, run, row.created_at, sep, rest
    )
}

/// Which stream a delta belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaKind {
    Text,
    Reasoning,
    /// A running command's output (`tool_output`; the delta's id is the call's).
    Output(crate::protocol::OutputStream),
    /// A background task's output (`task_output`; the delta's id is the task's).
    Task,
}

enum Item {
    Event {
        run: Option<crate::protocol::RunId>,
        kind: String,
        data: String,
        /// A run's end, recorded on its row in the same transaction.
        ends: Option<crate::store::RunEndRow>,
        done: Option<oneshot::Sender<StoreResult<Frame>>>,
    },
    Delta {
        run: Option<crate::protocol::RunId>,
        kind: DeltaKind,
        message_id: String,
        text: String,
    },
    Message(NewMessage),
    /// Resolved once everything queued before it is stored.
    Barrier(oneshot::Sender<StoreResult<()>>),
}

impl Item {
    /// Somebody waits for it, or a user watches it stream: write without lingering.
    fn urgent(&self) -> bool {
        match self {
            Item::Event { done, .. } => done.is_some(),
            Item::Delta { .. } | Item::Barrier(_) => true,
            Item::Message(_) => false,
        }
    }
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Item>,
    writing: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Wakes a lingering writer when an urgent item arrives.
    urgent: tokio::sync::Notify,
}

struct Channel {
    tx: broadcast::Sender<Frame>,
    shared: Arc<Shared>,
}

type Channels = Arc<Mutex<HashMap<crate::protocol::SessionId, Channel>>>;

/// How long a writer holding only fire-and-forget events (tool calls, decisions, results) waits
/// for more before it commits, so a run's burst of small events becomes a few transactions
/// instead of one each (on two cores, fewer larger commits leave more CPU to the run). Anything
/// awaited, and every text delta, cuts the wait short.
const LINGER: std::time::Duration = std::time::Duration::from_millis(1);

/// The per-session channels (live broadcast + writer queue). A channel exists while it has
/// subscribers or queued writes; an idle one is dropped, so sessions that were once open do not
/// keep their broadcast buffers.
pub struct EventBus {
    store: Store,
    channels: Channels,
    /// Ids of sessions whose summary (status, title, archived, last activity) may have changed:
    /// what `subscribe_sessions` clients hear, so the session list needs no polling.
    touched: broadcast::Sender<crate::protocol::SessionId>,
    /// The last write failed because the disk is full (cleared by the next successful one):
    /// runs stop instead of streaming into nothing.
    full: Arc<std::sync::atomic::AtomicBool>,
}

/// Event kinds after which a session's listed state may differ.
const SUMMARY_KINDS: &[&str] = &[
    "run_started",
    "run_finished",
    "approval_requested",
    "approval_decided",
    "question_asked",
    "question_answered",
    "plan_proposed",
    "plan_decided",
    "child_pending",
    "session_updated",
    "user_message",
    "goal_updated",
];

/// A live subscription; dropping it lets the bus release an idle session's channel.
pub struct Subscription {
    rx: Option<broadcast::Receiver<Frame>>,
    channels: Channels,
    session: crate::protocol::SessionId,
}

impl Subscription {
    pub async fn recv(&mut self) -> Result<Frame, broadcast::error::RecvError> {
        match &mut self.rx {
            Some(rx) => rx.recv().await,
            None => Err(broadcast::error::RecvError::Closed),
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        drop(self.rx.take());
        release_if_idle(&self.channels, &self.session);
    }
}

/// Drop a session's channel when nobody listens and nothing is queued or being written.
fn release_if_idle(channels: &Channels, session: &crate::protocol::SessionId) {
    let mut map = lock(channels);
    let idle = map.get(session).is_some_and(|ch| {
        let q = lock(&ch.shared.queue);
        q.items.is_empty() && !q.writing && ch.tx.receiver_count() == 0
    });
    if idle {
        map.remove(session);
    }
}

/// The session's channel, created on first use (the id is copied only then: this runs for
/// every event and delta).
fn channel<'a>(
    map: &'a mut HashMap<crate::protocol::SessionId, Channel>,
    session: &crate::protocol::SessionId,
) -> &'a Channel {
    if map.contains_key(session) {
        return &map[session];
    }
    map.entry(session.clone()).or_insert_with(|| Channel {
        tx: broadcast::channel(CHANNEL_CAPACITY).0,
        shared: Arc::default(),
    })
}

fn lock<T>(m: &Mutex<T>) -> parking_lot::MutexGuard<'_, T> {
    m.lock()
}

/// A store error for every waiter of a failed batch (the original is logged once).
fn copy_err(e: &StoreError) -> StoreError {
    match e {
        StoreError::NotFound => StoreError::NotFound,
        StoreError::Busy => StoreError::Busy,
        StoreError::DiskFull => StoreError::DiskFull,
        StoreError::Conflict(m) => StoreError::Conflict(m.clone()),
        StoreError::Other(e) => StoreError::Other(anyhow::anyhow!("{e:#}")),
    }
}

impl EventBus {
    pub fn new(store: Store) -> EventBus {
        EventBus {
            store,
            channels: Arc::default(),
            touched: broadcast::channel(1024).0,
            full: Arc::default(),
        }
    }

    /// True while the disk is full (the last write failed for it).
    pub fn storage_full(&self) -> bool {
        self.full.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Session ids whose listed state may have changed, from now on.
    pub fn session_changes(&self) -> broadcast::Receiver<crate::protocol::SessionId> {
        self.touched.subscribe()
    }

    /// Say that a session's listed state changed outside any event (created, deleted).
    pub fn touch(&self, session: &crate::protocol::SessionId) {
        let _ = self.touched.send(session.into());
    }

    /// Queue an item; start the session's writer if it is idle. Done under the map lock so a
    /// channel is never released between being looked up and being used.
    fn enqueue(&self, session: &crate::protocol::SessionId, item: Item) {
        let urgent = item.urgent();
        let mut map = lock(&self.channels);
        let ch = channel(&mut map, session);
        let start = {
            let mut q = lock(&ch.shared.queue);
            q.items.push_back(item);
            !std::mem::replace(&mut q.writing, true)
        };
        if urgent {
            ch.shared.urgent.notify_one();
        }
        if start {
            tokio::spawn(write_loop(
                self.store.clone(),
                session.into(),
                ch.tx.clone(),
                ch.shared.clone(),
                self.channels.clone(),
                self.touched.clone(),
                self.full.clone(),
            ));
        }
    }

    /// Store, then broadcast; returns once the event is stored, with its frame.
    pub async fn append(
        &self,
        session: &crate::protocol::SessionId,
        run: Option<&crate::protocol::RunId>,
        payload: &EventPayload,
    ) -> StoreResult<Frame> {
        let data = serde_json::to_string(payload).map_err(|e| anyhow::anyhow!(e))?;
        let (done, rx) = oneshot::channel();
        self.enqueue(
            session,
            Item::Event {
                run: run.cloned(),
                kind: payload.kind().to_string(),
                data,
                ends: None,
                done: Some(done),
            },
        );
        rx.await
            .map_err(|_| StoreError::Other(anyhow::anyhow!("the event writer stopped")))?
    }

    /// End a run: the one way every run ends, whatever ended it. `own`: the run's own loop
    /// ends it, and its row is made final in the same transaction that stores its
    /// `run_finished` (whoever hears the event and reads the run finds it ended, with no extra
    /// write before the event). Otherwise (a run cancelled before it started, one whose task
    /// died, one found interrupted at start) the row is made final first, and the event is
    /// stored and sent only if it was not final already. Returns whether this call ended it. A
    /// session deleted meanwhile still gets its run's row made final.
    pub async fn end_run(
        &self,
        session: &crate::protocol::SessionId,
        run: &crate::protocol::RunId,
        end: &crate::scheduler::RunEnd,
        own: bool,
    ) -> StoreResult<bool> {
        let row = crate::store::RunEndRow {
            run_id: run.into(),
            status: end.status,
            error: end
                .error
                .as_ref()
                .and_then(|e| serde_json::to_string(e).ok()),
            usage: serde_json::to_string(&end.usage).unwrap_or_else(|_| "{}".into()),
        };
        if !own && !self.store.finish_run(&row).await? {
            return Ok(false);
        }
        let payload = end.event(run);
        let data = serde_json::to_string(&payload).map_err(|e| anyhow::anyhow!(e))?;
        let (done, rx) = oneshot::channel();
        let ends = own.then(|| row.clone());
        self.enqueue(
            session,
            Item::Event {
                run: Some(run.clone()),
                kind: payload.kind().to_string(),
                data,
                ends,
                done: Some(done),
            },
        );
        let stored = rx
            .await
            .map_err(|_| StoreError::Other(anyhow::anyhow!("the event writer stopped")))?;
        match stored {
            Ok(_) => Ok(true),
            // No session any more: nothing can carry the event; the run's row still ends.
            Err(StoreError::NotFound) if own => Ok(self.store.finish_run(&row).await?),
            Err(StoreError::NotFound) => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// Queue an event without waiting for it to be stored (it is still stored before it is
    /// sent, in order). Failures are logged.
    pub fn post(
        &self,
        session: &crate::protocol::SessionId,
        run: Option<&crate::protocol::RunId>,
        payload: &EventPayload,
    ) {
        match serde_json::to_string(payload) {
            Ok(data) => self.enqueue(
                session,
                Item::Event {
                    run: run.cloned(),
                    kind: payload.kind().to_string(),
                    data,
                    ends: None,
                    done: None,
                },
            ),
            Err(e) => tracing::error!(error = %e, "cannot encode event"),
        }
    }

    /// Queue a text or reasoning delta; consecutive queued deltas of one message are merged.
    pub fn post_delta(
        &self,
        session: &crate::protocol::SessionId,
        run: Option<&crate::protocol::RunId>,
        kind: DeltaKind,
        message_id: &str,
        text: &str,
    ) {
        self.enqueue(
            session,
            Item::Delta {
                run: run.cloned(),
                kind,
                message_id: message_id.to_string(),
                text: text.to_string(),
            },
        );
    }

    /// Queue a history message, stored in the same transaction as the events around it.
    pub fn post_message(&self, session: &crate::protocol::SessionId, message: NewMessage) {
        self.enqueue(session, Item::Message(message));
    }

    /// Record a session's new state (`session_updated`, outside any run) and send it.
    pub async fn session_updated(&self, session: &crate::protocol::Session) {
        let payload = EventPayload::SessionUpdated {
            data: session.clone(),
        };
        if let Err(e) = self.append(&session.id, None, &payload).await {
            tracing::warn!(error = %e, "could not record session_updated");
        }
    }

    /// Wait until everything queued so far for the session is stored (and sent).
    pub async fn flush(&self, session: &crate::protocol::SessionId) -> StoreResult<()> {
        let (done, rx) = oneshot::channel();
        self.enqueue(session, Item::Barrier(done));
        rx.await
            .map_err(|_| StoreError::Other(anyhow::anyhow!("the event writer stopped")))?
    }

    /// Live frames of a session from now on. Take this before reading the backlog.
    pub fn subscribe(&self, session: &crate::protocol::SessionId) -> Subscription {
        let mut map = lock(&self.channels);
        let ch = channel(&mut map, session);
        Subscription {
            rx: Some(ch.tx.subscribe()),
            channels: self.channels.clone(),
            session: session.clone(),
        }
    }

    /// Stored frames with `seq > after`.
    pub async fn backlog(
        &self,
        session: &crate::protocol::SessionId,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<Frame>> {
        Ok(self
            .store
            .list_events(session, after, limit)
            .await?
            .iter()
            .map(Frame::from_row)
            .collect())
    }

    /// Stored frames with `after < seq < before`: the last `limit` of them, oldest first.
    pub async fn backlog_before(
        &self,
        session: &crate::protocol::SessionId,
        after: i64,
        before: i64,
        limit: i64,
    ) -> StoreResult<Vec<Frame>> {
        Ok(self
            .store
            .list_events_before(session, after, before, limit)
            .await?
            .iter()
            .map(Frame::from_row)
            .collect())
    }

    /// Number of live receivers of a session (for connection caps and tests).
    pub fn receiver_count(&self, session: &crate::protocol::SessionId) -> usize {
        lock(&self.channels)
            .get(session.as_str())
            .map_or(0, |ch| ch.tx.receiver_count())
    }

    /// Sessions that currently hold a channel (for tests of the release rule).
    pub fn open_channels(&self) -> usize {
        lock(&self.channels).len()
    }

    pub fn forget(&self, session: &crate::protocol::SessionId) {
        release_if_idle(&self.channels, session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(m: &str, kind: DeltaKind, t: &str) -> Item {
        Item::Delta {
            run: Some("R".into()),
            kind,
            message_id: m.into(),
            text: t.into(),
        }
    }

    #[tokio::test]
    #[expect(clippy::unwrap_used, reason = "tests fail loudly")]
    async fn posts_are_stored_in_order_and_idle_channels_are_released() {
        let dir = std::env::temp_dir().join(format!("tw-events-{}", crate::util::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open_sqlite(&dir.join("t.db")).await.unwrap();
        store
            .create_session(
                &"S".into(),
                "t",
                "/tmp",
                crate::protocol::AgentName::build(),
                crate::protocol::Mode::Ask,
                None,
            )
            .await
            .unwrap();
        let bus = EventBus::new(store.clone());
        let mut sub = bus.subscribe(&"S".into());
        for i in 0..50 {
            bus.post(
                &"S".into(),
                None,
                &EventPayload::Error {
                    code: "n".into(),
                    message: i.to_string(),
                    fatal: false,
                },
            );
        }
        bus.post_delta(&"S".into(), Some(&"R".into()), DeltaKind::Text, "m", "a");
        bus.post_delta(&"S".into(), Some(&"R".into()), DeltaKind::Text, "m", "b");
        let last = bus
            .append(
                &"S".into(),
                None,
                &EventPayload::Error {
                    code: "end".into(),
                    message: String::new(),
                    fatal: false,
                },
            )
            .await
            .unwrap();
        let mut live = Vec::new();
        while live.last() != Some(&last.seq) {
            live.push(sub.recv().await.unwrap().seq);
        }
        assert_eq!(
            live,
            (1..=last.seq).collect::<Vec<_>>(),
            "live frames in seq order"
        );
        let stored = store.list_events(&"S".into(), 0, 1000).await.unwrap();
        let messages: Vec<String> = stored
            .iter()
            .take(50)
            .map(|r| {
                serde_json::from_str::<serde_json::Value>(&r.data).unwrap()["message"].to_string()
            })
            .collect();
        assert_eq!(
            messages,
            (0..50).map(|i| format!("\"{i}\"")).collect::<Vec<_>>()
        );
        assert!(
            last.seq <= 52,
            "the two queued deltas may merge: {}",
            last.seq
        );
        assert_eq!(bus.open_channels(), 1, "a subscriber keeps the channel");
        drop(sub);
        for _ in 0..200 {
            if bus.open_channels() == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        assert_eq!(
            bus.open_channels(),
            0,
            "an idle channel without subscribers is released"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn consecutive_deltas_of_one_message_merge_and_nothing_else_does() {
        let items = vec![
            delta("m1", DeltaKind::Text, "a"),
            delta("m1", DeltaKind::Text, "b"),
            delta("m1", DeltaKind::Reasoning, "r"),
            delta("m1", DeltaKind::Text, "c"),
            Item::Event {
                run: None,
                kind: "error".into(),
                data: "{}".into(),
                ends: None,
                done: None,
            },
            delta("m1", DeltaKind::Text, "d"),
            delta("m2", DeltaKind::Text, "e"),
            delta("m2", DeltaKind::Text, &"x".repeat(MAX_DELTA_BYTES)),
        ];
        let b = build_batch(items);
        let texts: Vec<String> = b
            .events
            .iter()
            .map(|e| {
                let v: serde_json::Value = serde_json::from_str(&e.data).unwrap_or_default();
                format!(
                    "{}:{}",
                    e.kind,
                    v["text"].as_str().unwrap_or("-").len().min(3)
                )
            })
            .collect();
        assert_eq!(
            texts,
            [
                "message_delta:2",
                "reasoning_delta:1",
                "message_delta:1",
                "error:1",
                "message_delta:1",
                "message_delta:1",
                "message_delta:3",
            ]
        );
        assert_eq!(b.waiters.len(), b.events.len());
    }

    #[test]
    fn frame_rendering_merges_payload() {
        let row = EventRow {
            session_id: "S".into(),
            seq: 3,
            run_id: None,
            kind: "error".into(),
            data: r#"{"type":"error","code":"x","message":"y"}"#.into(),
            created_at: 7,
        };
        let v: serde_json::Value = serde_json::from_str(&render_frame(&row)).unwrap_or_default();
        assert_eq!(v["seq"], 3);
        assert_eq!(v["session"], "S");
        assert!(v["run"].is_null());
        assert_eq!(v["type"], "error");
        assert_eq!(v["code"], "x");
    }
}
