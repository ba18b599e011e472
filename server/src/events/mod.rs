//! Durable, sequenced run events plus live fan-out.
//!
//! `append` stores an event (allocating the session's next gap-free `seq`) and only then
//! broadcasts it. Appends of one session are serialized by a per-session lock so the broadcast
//! order is the `seq` order. A subscriber takes the broadcast receiver *before* reading the
//! backlog from the database, then skips live frames it already sent: no gap and no duplicate,
//! also when events are appended while the backlog is being replayed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::protocol::EventPayload;
use crate::store::{EventRow, Store, StoreResult};

/// Live channel capacity per session; a receiver that falls further behind re-reads the DB.
const CHANNEL_CAPACITY: usize = 4096;

/// A stored event, with its frame JSON rendered once and shared by every subscriber.
#[derive(Debug, Clone)]
pub struct Frame {
    pub seq: i64,
    pub session: String,
    pub kind: String,
    /// The rendered frame, shared (cheaply cloned) by every subscriber.
    pub json: bytes::Bytes,
}

impl Frame {
    pub fn from_row(row: &EventRow) -> Frame {
        Frame {
            seq: row.seq,
            session: row.session_id.clone(),
            kind: row.kind.clone(),
            json: bytes::Bytes::from(render_frame(row)),
        }
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

struct Channel {
    tx: broadcast::Sender<Frame>,
    append_lock: Arc<tokio::sync::Mutex<()>>,
}

pub struct EventBus {
    store: Store,
    channels: Mutex<HashMap<String, Channel>>,
}

impl EventBus {
    pub fn new(store: Store) -> EventBus {
        EventBus {
            store,
            channels: Mutex::new(HashMap::new()),
        }
    }

    fn channel(&self, session: &str) -> (broadcast::Sender<Frame>, Arc<tokio::sync::Mutex<()>>) {
        let mut map = match self.channels.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        let ch = map.entry(session.to_string()).or_insert_with(|| Channel {
            tx: broadcast::channel(CHANNEL_CAPACITY).0,
            append_lock: Arc::new(tokio::sync::Mutex::new(())),
        });
        (ch.tx.clone(), ch.append_lock.clone())
    }

    /// Store, then broadcast. Returns the stored frame.
    pub async fn append(
        &self,
        session: &str,
        run: Option<&str>,
        payload: &EventPayload,
    ) -> StoreResult<Frame> {
        let data = serde_json::to_string(payload).map_err(|e| anyhow::anyhow!(e))?;
        self.append_raw(session, run, payload.kind(), &data).await
    }

    pub async fn append_raw(
        &self,
        session: &str,
        run: Option<&str>,
        kind: &str,
        data: &str,
    ) -> StoreResult<Frame> {
        let (tx, lock) = self.channel(session);
        let _guard = lock.lock().await;
        let row = self.store.append_event(session, run, kind, data).await?;
        let frame = Frame::from_row(&row);
        // No receivers is fine: the event is durable and will be replayed.
        let _ = tx.send(frame.clone());
        Ok(frame)
    }

    /// Live frames of a session from now on. Take this before reading the backlog.
    pub fn subscribe(&self, session: &str) -> broadcast::Receiver<Frame> {
        self.channel(session).0.subscribe()
    }

    /// Stored frames with `seq > after`.
    pub async fn backlog(&self, session: &str, after: i64, limit: i64) -> StoreResult<Vec<Frame>> {
        Ok(self
            .store
            .list_events(session, after, limit)
            .await?
            .iter()
            .map(Frame::from_row)
            .collect())
    }

    /// Number of live receivers of a session (for connection caps and tests).
    pub fn receiver_count(&self, session: &str) -> usize {
        self.channel(session).0.receiver_count()
    }

    pub fn forget(&self, session: &str) {
        if let Ok(mut m) = self.channels.lock() {
            m.remove(session);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
