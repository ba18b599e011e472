//! Text-delta coalescing: provider deltas are stored as one event about every 50 ms, or as soon
//! as 512 bytes are waiting, so the log stays compact while the UI still streams. The first delta
//! after a quiet period goes out at once (leading edge), so the first token is never held back;
//! what follows within the window is merged.
//!
//! The size threshold is what keeps a fast stream fast: a model bursting text fills 512 bytes in
//! well under a millisecond, so during a burst a chunk waits about that long, not 50 ms. A slow
//! stream (a chunk every few ms or more) is merged per window: at most 20 delta events a second
//! per message, each at most 50 ms behind its first chunk. Downstream, the event writer merges
//! queued deltas again while it is busy (group commit), so a burst that outruns the disk becomes
//! fewer, larger events instead of a backlog.

use std::time::Duration;

use tokio::time::Instant;

pub const FLUSH_EVERY: Duration = Duration::from_millis(50);
pub const FLUSH_BYTES: usize = 512;

#[derive(Debug, Default)]
pub struct Coalescer {
    buf: String,
    since: Option<Instant>,
    last_flush: Option<Instant>,
}

impl Coalescer {
    /// Add text; returns what must be flushed now (leading edge or size threshold).
    pub fn push(&mut self, s: &str) -> Option<String> {
        let now = Instant::now();
        if self.buf.is_empty() {
            let quiet = self
                .last_flush
                .is_none_or(|t| now.duration_since(t) >= FLUSH_EVERY);
            if quiet {
                self.last_flush = Some(now);
                return Some(s.to_string());
            }
            self.since = Some(now);
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
        self.last_flush = Some(Instant::now());
        std::mem::take(&mut self.buf)
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn leading_edge_then_window_then_size() {
        let mut c = Coalescer::default();
        assert_eq!(
            c.push("a").as_deref(),
            Some("a"),
            "first delta goes out at once"
        );
        assert_eq!(c.push("b"), None, "then coalesced within the window");
        assert_eq!(c.push("c"), None);
        assert!(c.deadline().is_some());
        tokio::time::advance(FLUSH_EVERY).await;
        assert_eq!(c.take(), "bc");
        assert_eq!(c.push("d"), None, "right after a flush: still coalesced");
        tokio::time::advance(FLUSH_EVERY * 2).await;
        assert_eq!(c.take(), "d");
        tokio::time::advance(FLUSH_EVERY * 2).await;
        assert_eq!(
            c.push("e").as_deref(),
            Some("e"),
            "after a quiet period: immediate again"
        );
        let big = "x".repeat(FLUSH_BYTES);
        assert_eq!(
            c.push(&big),
            Some(big.clone()),
            "the size threshold flushes at once"
        );
        assert!(c.is_empty());
    }
}
