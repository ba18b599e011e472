//! A running command's output as its card shows it while it runs: `tool_output` deltas of a
//! tool call (`shell`, `run_process`, `!command`) or `task_output` deltas of a background task.

use crate::protocol::{OutputStream, RunId, SessionId};

use super::{DeltaKind, EventBus};

/// The most bytes of one command's output sent live; the rest comes with the result (a call's
/// `tool_result`, a task's log).
pub const LIVE_MAX: usize = 256 * 1024;
/// Live output waits at most this long before it is sent…
const LIVE_EVERY: std::time::Duration = std::time::Duration::from_millis(100);
/// …or until this much of it waits.
const LIVE_BYTES: usize = 4 * 1024;

/// Whose output it is: the delta's id and kind.
#[derive(Debug, Clone, Copy)]
pub enum LiveOf<'a> {
    /// A tool call's: `tool_output`, per stream.
    Call(&'a str),
    /// A background task's: `task_output` (its two streams share one pipe, in arrival order).
    Task(&'a str),
}

/// Output decoded as UTF-8 across reads (a character split between two reads is kept whole),
/// coalesced, bounded by [`LIVE_MAX`], posted through [`EventBus::post_delta`].
pub struct LiveOutput<'a> {
    events: &'a EventBus,
    session: &'a SessionId,
    run: Option<&'a RunId>,
    of: LiveOf<'a>,
    /// Per stream (stdout, stderr): bytes of a character not complete yet, and text waiting.
    pending: [(Vec<u8>, String); 2],
    /// When the oldest waiting text arrived.
    since: Option<tokio::time::Instant>,
    sent: usize,
    stopped: bool,
}

impl<'a> LiveOutput<'a> {
    pub fn new(
        events: &'a EventBus,
        session: &'a SessionId,
        run: Option<&'a RunId>,
        of: LiveOf<'a>,
    ) -> Self {
        LiveOutput {
            events,
            session,
            run,
            of,
            pending: Default::default(),
            since: None,
            sent: 0,
            stopped: false,
        }
    }

    fn slot(stream: OutputStream) -> usize {
        match stream {
            OutputStream::Stdout => 0,
            OutputStream::Stderr => 1,
        }
    }

    pub fn push(&mut self, stream: OutputStream, bytes: &[u8]) {
        if self.stopped {
            return;
        }
        // What the other stream wrote before goes first: the card keeps the order of writes.
        let other = match stream {
            OutputStream::Stdout => OutputStream::Stderr,
            OutputStream::Stderr => OutputStream::Stdout,
        };
        if !self.pending[Self::slot(other)].1.is_empty() {
            self.send(other);
        }
        let (carry, text) = &mut self.pending[Self::slot(stream)];
        carry.extend_from_slice(bytes);
        let keep = match std::str::from_utf8(carry) {
            Ok(_) => 0,
            // An incomplete character at the end waits for the next read.
            Err(e) if e.error_len().is_none() => carry.len() - e.valid_up_to(),
            Err(_) => 0,
        };
        let whole = carry.len() - keep;
        text.push_str(&String::from_utf8_lossy(&carry[..whole]));
        carry.drain(..whole);
        if self.since.is_none() {
            self.since = Some(tokio::time::Instant::now());
        }
        if text.len() >= LIVE_BYTES {
            self.flush();
        }
    }

    /// When waiting text is due.
    pub fn due(&self) -> Option<tokio::time::Instant> {
        self.since.map(|t| t + LIVE_EVERY)
    }

    pub fn flush(&mut self) {
        self.since = None;
        for stream in [OutputStream::Stdout, OutputStream::Stderr] {
            self.send(stream);
        }
    }

    /// Post what waits of one stream.
    fn send(&mut self, stream: OutputStream) {
        let text = std::mem::take(&mut self.pending[Self::slot(stream)].1);
        if text.is_empty() || self.stopped {
            return;
        }
        let room = LIVE_MAX.saturating_sub(self.sent);
        let mut shown = crate::util::truncate_str(&text, room).to_string();
        if shown.len() < text.len() {
            self.stopped = true;
            shown.push_str(match self.of {
                LiveOf::Call(_) => {
                    "\n[live output stops here: the whole output comes with the result]\n"
                }
                LiveOf::Task(_) => "\n[live output stops here: the rest is in the task's log]\n",
            });
        }
        self.sent += shown.len();
        let (kind, id) = match self.of {
            LiveOf::Call(id) => (DeltaKind::Output(stream), id),
            LiveOf::Task(id) => (DeltaKind::Task, id),
        };
        self.events
            .post_delta(self.session, self.run, kind, id, &shown);
    }
}
