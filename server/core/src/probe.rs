//! A latency probe for benchmarks. When enabled, the agent marks the moment each provider text
//! chunk reaches it and how long each model call took, and the WebSocket writer marks the moment
//! each `message_delta` frame has been written to a socket, so a bench running the server
//! in-process can compute chunk→frame latency inside the server (without the provider's socket
//! backlog or the client's parsing) and a turn's overhead beyond the provider's own time.
//!
//! Compiled in only with the `probe` cargo feature, which the bench turns on; without it (every
//! release and test build) `enabled()` is a constant `false` and each call compiles to nothing.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

static ON: AtomicBool = AtomicBool::new(false);
static CONN: AtomicU64 = AtomicU64::new(0);
static MARKS: Mutex<Vec<Mark>> = Mutex::new(Vec::new());

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// A provider text chunk reached the agent loop (`bytes` of text).
    Chunk,
    /// A `message_delta` frame carrying `bytes` of text was written to connection `conn`.
    Frame,
    /// A model call ended; `took` is how long the provider took (from the request until its
    /// stream ended), so a bench can subtract the provider's own time.
    ModelCall,
    /// A `task` call began starting a subagent.
    Spawn,
    /// A subagent's run sent a model request.
    ChildRequest,
    /// A step between those two (the bench shows where the spawn time goes).
    Step(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub struct Mark {
    pub kind: MarkKind,
    pub at: Instant,
    pub conn: u64,
    /// Text bytes (chunks and frames).
    pub bytes: usize,
    /// The provider's time (model calls).
    pub took: std::time::Duration,
}

pub fn enable(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

pub fn enabled() -> bool {
    cfg!(feature = "probe") && ON.load(Ordering::Relaxed)
}

/// Everything recorded so far (and a fresh start).
pub fn take() -> Vec<Mark> {
    std::mem::take(&mut *MARKS.lock())
}

fn record(m: Mark) {
    MARKS.lock().push(m);
}

/// An id for a WebSocket connection's marks.
pub fn next_conn() -> u64 {
    CONN.fetch_add(1, Ordering::Relaxed)
}

pub fn chunk(bytes: usize) {
    if enabled() {
        record(Mark {
            kind: MarkKind::Chunk,
            at: Instant::now(),
            conn: 0,
            bytes,
            took: std::time::Duration::ZERO,
        });
    }
}

/// A model call took `took` (the provider's own time, as the agent saw it).
pub fn model_call(took: std::time::Duration) {
    if enabled() {
        record(Mark {
            kind: MarkKind::ModelCall,
            at: Instant::now(),
            conn: 0,
            bytes: 0,
            took,
        });
    }
}

/// A moment of the subagent bench: `Spawn`, a `Step`, or `ChildRequest`.
pub fn moment(kind: MarkKind) {
    if enabled() {
        record(Mark {
            kind,
            at: Instant::now(),
            conn: 0,
            bytes: 0,
            took: std::time::Duration::ZERO,
        });
    }
}

/// After a frame was written: if it is a `message_delta`, mark it with its text length.
pub fn frame(conn: u64, json: &[u8]) {
    if !enabled() {
        return;
    }
    let at = Instant::now();
    #[derive(serde::Deserialize)]
    struct Delta {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        text: String,
    }
    if let Ok(d) = serde_json::from_slice::<Delta>(json)
        && d.kind == "message_delta"
    {
        record(Mark {
            kind: MarkKind::Frame,
            at,
            conn,
            bytes: d.text.len(),
            took: std::time::Duration::ZERO,
        });
    }
}
