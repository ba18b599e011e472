//! What the services below the run scheduler may ask of it: queue a run on a session (a
//! subagent's, a goal's next turn, an approved plan's implementation), see whether a session
//! is busy, and hear when a session's queue runs dry. `runs::RunManager` implements it; the
//! composition root hands it out once the scheduler exists.

use std::sync::{Arc, OnceLock, Weak};

use futures::future::BoxFuture;

use crate::protocol::{EventPayload, RunStatus, RunTrigger, StopReason, Usage, WireError};
use crate::store::{SessionRow, StoreResult};

/// How a run ended: what its row records and its `run_finished` event says. Every way a run
/// ends (its own loop, a cancel before it started, its task dying, the server found it
/// interrupted at start) builds one and goes through `EventBus::end_run`.
#[derive(Debug, Clone)]
pub struct RunEnd {
    pub status: RunStatus,
    /// Why it stopped early (`user`, `shutdown`, `crash`), if it did.
    pub reason: Option<StopReason>,
    pub usage: Usage,
    pub error: Option<WireError>,
    pub duration_ms: u64,
}

impl RunEnd {
    /// A run that ended before doing anything.
    pub fn at_once(
        status: RunStatus,
        reason: Option<StopReason>,
        error: Option<WireError>,
    ) -> RunEnd {
        RunEnd {
            status,
            reason,
            usage: Usage::default(),
            error,
            duration_ms: 0,
        }
    }

    /// Its `run_finished` event.
    pub fn event(&self, run_id: &crate::protocol::RunId) -> EventPayload {
        EventPayload::RunFinished {
            run_id: run_id.into(),
            status: self.status,
            error: self.error.clone(),
            usage: self.usage,
            duration_ms: self.duration_ms,
            reason: self.reason,
        }
    }
}

/// A run that ended, as the after-run hooks see it.
#[derive(Debug)]
pub struct EndedRun<'a> {
    pub session_id: &'a crate::protocol::SessionId,
    pub run_id: &'a crate::protocol::RunId,
    pub trigger: RunTrigger,
    pub end: &'a RunEnd,
    /// The session's goal was active when the run began (only then is it one of its turns).
    pub goal_active: bool,
}

/// What follows a run's end, owned by the feature it belongs to (an approved plan's
/// implementation, a goal's next turn). The scheduler runs its hooks in order after each run
/// ended (its end stored and sent), before the session's next queued input starts.
pub trait AfterRun: Send + Sync {
    fn after_run<'a>(&'a self, run: &'a EndedRun<'a>) -> BoxFuture<'a, ()>;
}

pub trait Scheduler: Send + Sync {
    /// Queue `text` on the session as a run with this trigger; its run id.
    fn enqueue<'a>(
        &'a self,
        session: &'a SessionRow,
        trigger: RunTrigger,
        text: &'a str,
    ) -> BoxFuture<'a, StoreResult<crate::protocol::RunId>>;
    /// A run of the session is active or queued.
    fn is_busy(&self, session: &crate::protocol::SessionId) -> bool;
    /// Notified each time a session's queue runs dry.
    fn idle(&self) -> &tokio::sync::Notify;
    /// Inputs wait in the session's queue.
    fn queued(&self, session: &crate::protocol::SessionId) -> bool;
    /// The server is stopping: nothing new should start.
    fn stopping(&self) -> bool;
}

/// The scheduler, once it exists (it is built after the services it runs, which hold this).
#[derive(Clone, Default)]
pub struct SchedulerHandle(Arc<OnceLock<Weak<dyn Scheduler>>>);

impl SchedulerHandle {
    /// Set it (once; later calls are ignored).
    pub fn set(&self, s: Weak<dyn Scheduler>) {
        let _ = self.0.set(s);
    }

    /// The scheduler while the server runs (`None` in a test or after shutdown).
    pub fn get(&self) -> Option<Arc<dyn Scheduler>> {
        self.0.get().and_then(Weak::upgrade)
    }
}

impl std::fmt::Debug for SchedulerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.get().is_some() {
            "SchedulerHandle(set)"
        } else {
            "SchedulerHandle(unset)"
        })
    }
}
