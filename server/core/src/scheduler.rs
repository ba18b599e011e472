//! The run queue, below everything that queues runs: a run on a session (a prompt, a
//! subagent's, a goal's next turn, an approved plan's implementation) is recorded and put in
//! its session's queue here, whether a session is busy is read here, and a session's queue
//! running dry is heard here. The scheduler (`runs::RunManager`, above) owns the receiving
//! end and runs the queues; the hooks it runs after each run ([`AfterRun`]) and when a queue
//! runs dry ([`OnIdle`]) belong to the features that own them.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use crate::protocol::{
    EventPayload, ImageRef, RunId, RunLimits, RunStatus, RunTrigger, SessionId, StopReason, Usage,
    WireError,
};
use crate::store::{SessionRow, Store, StoreResult};

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
    /// A `Stop` hook asked for one more turn, for this reason.
    pub continue_with: Option<&'a str>,
}

/// What follows a run's end, owned by the feature it belongs to (an approved plan's
/// implementation, a goal's next turn). The scheduler runs its hooks in order after each run
/// ended (its end stored and sent), before the session's next queued input starts.
pub trait AfterRun: Send + Sync {
    fn after_run<'a>(&'a self, run: &'a EndedRun<'a>) -> BoxFuture<'a, ()>;
}

/// What a session's queue running dry starts, owned by the feature it belongs to (a goal's
/// next turn). Asked for with [`RunQueue::want_idle_turn`]; the scheduler runs these hooks when
/// the session's last queued input has ended, and goes on with whatever they queued.
pub trait OnIdle: Send + Sync {
    fn on_idle<'a>(&'a self, session: &'a SessionId, queue: &'a RunQueue) -> BoxFuture<'a, ()>;
}

/// An input waiting for its run.
#[derive(Debug, Clone)]
pub struct Queued {
    pub run_id: RunId,
    pub trigger: RunTrigger,
    pub text: String,
    /// Images sent with the prompt.
    pub images: Vec<ImageRef>,
    /// The run's own limits on top of the server's (`tradewind run` through a server).
    pub limits: Option<RunLimits>,
    /// When it was queued (ms since the epoch).
    pub queued_at: i64,
    /// The session as read when the input was queued: used by a run that starts at once, so its
    /// start reads nothing again. A run that waits reads the session when it starts.
    pub session: Option<SessionRow>,
    /// Sent with `delivery: steer`: the active run takes it at its next tool boundary
    /// ([`RunQueue::take_steers`]); one it does not reach starts as any queued input.
    pub steer: bool,
    /// Sent by a caller with the `admin` scope: a `!command` is the user's own (the gate's
    /// `Origin::User`). Kept in memory only: after a restart a queued `!command` asks as a
    /// model's call would.
    pub by_admin: bool,
    /// The continuation of a run that waited on a person when the server stopped: its row is
    /// still `running` and its prompts are parked (`pending::Pending::park`); it goes on from
    /// the calls its last answer left open.
    pub resume: bool,
}

/// What goes with a queued input beyond its text.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    pub images: Vec<ImageRef>,
    pub limits: Option<RunLimits>,
    pub steer: bool,
    pub by_admin: bool,
}

/// One session's place in the scheduler.
#[derive(Default)]
pub struct SessionState {
    /// A worker runs the session's queue.
    pub worker: bool,
    pub queue: VecDeque<Queued>,
    pub active: Option<(RunId, CancellationToken)>,
    /// Something (a goal set or resumed while a run was in progress) waits for the queue to
    /// run dry: the idle hooks run then.
    pub idle_wanted: bool,
}

/// Every session with a run queued or active, by id.
pub type Sessions = HashMap<SessionId, SessionState>;

/// The run queue: what queues runs holds a clone (the services, the tools that start
/// subagents, the after-run hooks); the scheduler (`runs::RunManager`) owns the receiving end,
/// on which it hears that a session needs a worker. Built first by the composition root, so
/// nothing needs the scheduler itself.
#[derive(Clone)]
pub struct RunQueue(Arc<Shared>);

struct Shared {
    store: Store,
    sessions: Mutex<Sessions>,
    /// A session whose queue has no worker yet.
    start: tokio::sync::mpsc::UnboundedSender<SessionId>,
    /// Notified each time a session's queue runs dry.
    idle: tokio::sync::Notify,
    shutdown: CancellationToken,
}

/// The scheduler's end of the queue: sessions that need a worker.
pub type Starts = tokio::sync::mpsc::UnboundedReceiver<SessionId>;

impl std::fmt::Debug for RunQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunQueue")
            .field("sessions", &self.0.sessions.lock().len())
            .finish_non_exhaustive()
    }
}

impl RunQueue {
    pub fn new(store: Store) -> (RunQueue, Starts) {
        let (start, starts) = tokio::sync::mpsc::unbounded_channel();
        let q = RunQueue(Arc::new(Shared {
            store,
            sessions: Mutex::default(),
            start,
            idle: tokio::sync::Notify::new(),
            shutdown: CancellationToken::new(),
        }));
        (q, starts)
    }

    /// Queue `text` on the session as a run with this trigger; its run id.
    pub async fn enqueue(
        &self,
        session: &SessionRow,
        trigger: RunTrigger,
        text: &str,
    ) -> StoreResult<RunId> {
        self.enqueue_with(session, trigger, text, Extras::default())
            .await
    }

    /// Queue a prompt with images and limits (stored with its run in one statement, so a
    /// restart keeps them).
    pub async fn enqueue_with(
        &self,
        session: &SessionRow,
        trigger: RunTrigger,
        text: &str,
        extras: Extras,
    ) -> StoreResult<RunId> {
        let Extras {
            images,
            limits,
            steer,
            by_admin,
        } = extras;
        let run_id: RunId = crate::util::new_id().into();
        let to_json = |e: serde_json::Error| crate::store::StoreError::Other(e.into());
        let images_json = (!images.is_empty())
            .then(|| serde_json::to_string(&images))
            .transpose()
            .map_err(to_json)?;
        let limits_json = limits
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(to_json)?;
        self.0
            .store
            .queue_run(&crate::store::NewRun {
                id: &run_id,
                session_id: &session.id,
                trigger,
                input: text,
                agent: session.agent.clone(),
                images: images_json,
                limits: limits_json,
            })
            .await?;
        self.push(
            &session.id,
            Queued {
                run_id: run_id.clone(),
                trigger,
                images,
                limits,
                text: text.to_string(),
                queued_at: crate::util::now_ms(),
                session: Some(session.clone()),
                steer,
                by_admin,
                resume: false,
            },
        );
        Ok(run_id)
    }

    /// The steered inputs (`delivery: steer`) waiting on the session, taken out of its queue in
    /// order: the active run delivers them at a tool boundary. The rest of the queue stays.
    pub fn take_steers(&self, session: &SessionId) -> Vec<Queued> {
        let mut map = self.lock();
        let Some(st) = map.get_mut(session) else {
            return Vec::new();
        };
        if !st.queue.iter().any(|q| q.steer) {
            return Vec::new();
        }
        let (steers, rest): (VecDeque<Queued>, VecDeque<Queued>) = std::mem::take(&mut st.queue)
            .into_iter()
            .partition(|q| q.steer);
        st.queue = rest;
        steers.into()
    }

    /// Put a recorded run in the session's queue; the scheduler hears of a session that needs
    /// a worker. Once the server is stopping, nothing starts: the run stays queued in the store
    /// and starts again at the next start.
    pub fn push(&self, session_id: &SessionId, mut q: Queued) {
        if self.stopping() {
            return;
        }
        let start = {
            let mut map = self.lock();
            let st = map.entry(session_id.clone()).or_default();
            if st.worker {
                q.session = None;
            }
            st.queue.push_back(q);
            !std::mem::replace(&mut st.worker, true)
        };
        if start && self.0.start.send(session_id.clone()).is_err() {
            // The scheduler is gone (the server stopped): the run stays queued in the store.
            self.lock().remove(session_id);
        }
    }

    /// The sessions' states, for the scheduler.
    pub fn lock(&self) -> parking_lot::MutexGuard<'_, Sessions> {
        self.0.sessions.lock()
    }

    /// A run of the session is active or queued.
    pub fn is_busy(&self, session: &SessionId) -> bool {
        self.lock().get(session).is_some_and(|s| s.worker)
    }

    /// Inputs wait in the session's queue.
    pub fn queued(&self, session: &SessionId) -> bool {
        self.lock()
            .get(session)
            .is_some_and(|s| !s.queue.is_empty())
    }

    /// Notified each time a session's queue runs dry.
    pub fn idle(&self) -> &tokio::sync::Notify {
        &self.0.idle
    }

    /// The server is stopping: nothing new should start.
    pub fn stopping(&self) -> bool {
        self.0.shutdown.is_cancelled()
    }

    /// Cancelled when the server stops (every run's token is a child of it).
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.0.shutdown
    }

    /// Something should start when the session has nothing to do. True when the session is
    /// idle now and the caller should queue it at once; otherwise the idle hooks run once the
    /// session's queue runs dry (the flag and the worker's idle check share one lock, so the
    /// turn is never lost to a run that ends at that moment).
    pub fn want_idle_turn(&self, session: &SessionId) -> bool {
        let mut map = self.lock();
        match map.get_mut(session) {
            Some(st) if st.worker => {
                st.idle_wanted = true;
                false
            }
            _ => true,
        }
    }
}
