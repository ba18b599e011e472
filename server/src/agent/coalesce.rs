//! Text-delta coalescing: provider deltas are buffered and stored as one event about every
//! 50 ms (or sooner past a size threshold), so the log stays compact while the UI still streams.

use std::time::Duration;

use tokio::time::Instant;

pub const FLUSH_EVERY: Duration = Duration::from_millis(50);
pub const FLUSH_BYTES: usize = 8 * 1024;

#[derive(Debug, Default)]
pub struct Coalescer {
    buf: String,
    since: Option<Instant>,
}

impl Coalescer {
    /// Add text; returns what must be flushed now (size threshold).
    pub fn push(&mut self, s: &str) -> Option<String> {
        if self.buf.is_empty() {
            self.since = Some(Instant::now());
        }
        self.buf.push_str(s);
        (self.buf.len() >= FLUSH_BYTES).then(|| self.take())
    }

    /// When the buffered text is due.
    pub fn deadline(&self) -> Option<Instant> {
        self.since.map(|t| t + FLUSH_EVERY)
    }

    pub fn take(&mut self) -> String {
        self.since = None;
        std::mem::take(&mut self.buf)
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}
