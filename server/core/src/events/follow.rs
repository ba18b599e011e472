//! Following events: the one stream the WebSocket, SSE and long-poll all read. A follower takes
//! the live receiver first, then reads what was stored after its cursor page by page, then
//! hands out live frames; a gap in the live frames (a lagging receiver, a frame stored while
//! the backlog was read) is filled from the log, and frames already handed out are skipped by
//! seq — so whatever the transport, a client gets every event once, in order.
//!
//! A scope is one session today; every session a caller may see, and other nodes' sessions,
//! are further scopes of the same stream (their cursors a seq per session).

use std::collections::VecDeque;

use tokio::sync::broadcast::error::RecvError;

use super::{EventBus, Frame, Subscription};
use crate::store::StoreResult;

/// What a follower follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// One session's events.
    Session(crate::protocol::SessionId),
}

/// Where a follower starts: after this seq.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursor {
    After(i64),
}

/// Stored events are read this many at a time.
pub const PAGE: i64 = 1000;

/// Where the next frame comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The stored backlog: the reader paces it.
    Backlog,
    /// Live, as stored now: a reader that falls behind is told so (it lagged).
    Live,
}

pub struct Follower<'a> {
    bus: &'a EventBus,
    session: crate::protocol::SessionId,
    rx: Subscription,
    /// The seq of the last frame handed out.
    last: i64,
    /// Frames read from the log and not handed out yet.
    page: VecDeque<Frame>,
    /// Reading the backlog (until a page comes back short).
    catching_up: bool,
}

impl EventBus {
    /// Follow `scope` from `cursor`.
    pub fn follow(&self, scope: Scope, cursor: Cursor) -> Follower<'_> {
        let Scope::Session(session) = scope;
        let Cursor::After(after) = cursor;
        Follower {
            rx: self.subscribe(&session),
            bus: self,
            session,
            last: after,
            page: VecDeque::new(),
            catching_up: true,
        }
    }
}

impl Follower<'_> {
    /// Where the next frame will come from.
    pub fn source(&self) -> Source {
        if self.catching_up || !self.page.is_empty() {
            Source::Backlog
        } else {
            Source::Live
        }
    }

    /// The seq of the last frame handed out.
    pub fn last(&self) -> i64 {
        self.last
    }

    /// Read the next page of the backlog; false when it is caught up.
    async fn read_page(&mut self) -> StoreResult<bool> {
        let frames = self.bus.backlog(&self.session, self.last, PAGE).await?;
        let n = frames.len();
        self.page.extend(frames);
        self.catching_up = n as i64 == PAGE;
        Ok(n > 0)
    }

    /// The next frame in seq order, and where it came from: stored ones first, then live ones.
    /// `None`: the stream ended (the bus is gone).
    pub async fn next_from(&mut self) -> Option<StoreResult<(Frame, Source)>> {
        loop {
            if let Some(f) = self.page.pop_front() {
                if f.seq <= self.last {
                    continue;
                }
                self.last = f.seq;
                return Some(Ok((f, Source::Backlog)));
            }
            if self.catching_up {
                if let Err(e) = self.read_page().await {
                    return Some(Err(e));
                }
                continue;
            }
            match self.rx.recv().await {
                Ok(f) if f.seq <= self.last => continue,
                Ok(f) if f.seq == self.last + 1 => {
                    self.last = f.seq;
                    return Some(Ok((f, Source::Live)));
                }
                // A gap: frames stored that this receiver did not see; read them from the log
                // (this one among them).
                Ok(_) | Err(RecvError::Lagged(_)) => self.catching_up = true,
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// The next frame in seq order (see `next_from`).
    pub async fn next(&mut self) -> Option<StoreResult<Frame>> {
        self.next_from().await.map(|r| r.map(|(f, _)| f))
    }

    /// What is there to read now, up to `limit` frames, waiting for the first one if there is
    /// none yet (a long-poll: bound the wait from outside).
    pub async fn next_page(&mut self, limit: usize) -> StoreResult<Vec<Frame>> {
        let mut out = Vec::new();
        loop {
            while out.len() < limit {
                match self.page.pop_front() {
                    Some(f) if f.seq > self.last => {
                        self.last = f.seq;
                        out.push(f);
                    }
                    Some(_) => {}
                    None => break,
                }
            }
            if out.len() >= limit {
                return Ok(out);
            }
            if self.catching_up {
                self.read_page().await?;
                continue;
            }
            if !out.is_empty() {
                return Ok(out);
            }
            match self.next().await {
                Some(f) => out.push(f?),
                None => return Ok(out),
            }
        }
    }
}
