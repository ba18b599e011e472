//! The run scheduler: a per-session queue of inputs, one active run per session, a global cap on
//! concurrent runs, cancellation (the provider stream and any running tool's process group stop
//! within a second), and recovery at start-up (runs active when the server died become
//! `interrupted`; queued inputs are kept and started again).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::agent::{self, AgentDeps, RunSpec};
use crate::protocol::{RunStatus, RunTrigger, StopReason, Usage, WireError};
use crate::scheduler::{AfterRun, EndedRun, RunEnd};
use crate::store::StoreResult;
use crate::util::new_id;

pub mod wake;

pub use crate::slot::Slot;

/// Runs executing at once across all sessions.
pub const MAX_CONCURRENT_RUNS: usize = 8;

#[derive(Debug, Clone)]
struct Queued {
    run_id: crate::protocol::RunId,
    trigger: RunTrigger,
    text: String,
    /// Images sent with the prompt.
    images: Vec<crate::protocol::ImageRef>,
    /// The run's own limits on top of the server's (`tradewind run` through a server).
    limits: Option<crate::protocol::RunLimits>,
    /// When it was queued (ms since the epoch).
    queued_at: i64,
    /// The session as read when the input was queued: used by a run that starts at once, so its
    /// start reads nothing again. A run that waits reads the session when it starts.
    session: Option<crate::store::SessionRow>,
}

#[derive(Default)]
struct SessionState {
    worker: bool,
    queue: VecDeque<Queued>,
    active: Option<(crate::protocol::RunId, CancellationToken)>,
    /// A goal was set or resumed while a run was in progress: its next turn starts when the
    /// queue runs dry (unless a goal turn was queued meanwhile).
    goal_wanted: bool,
}

pub struct RunManager {
    deps: Arc<AgentDeps>,
    sessions: Mutex<HashMap<crate::protocol::SessionId, SessionState>>,
    global: Arc<Semaphore>,
    shutdown: CancellationToken,
    /// Every executing run, so a shutdown can wait for each to record how it ended.
    running: tokio_util::task::TaskTracker,
    /// Notified whenever a session's worker goes idle (wake-ups retry then).
    pub idle: tokio::sync::Notify,
    /// Itself, for the scheduler interface (whose calls start workers on an `Arc`).
    me: std::sync::OnceLock<std::sync::Weak<RunManager>>,
    /// What follows each run's end, in order (an approved plan's implementation, then a
    /// goal's next turn).
    hooks: Vec<Arc<dyn AfterRun>>,
}

impl crate::scheduler::Scheduler for RunManager {
    fn enqueue<'a>(
        &'a self,
        session: &'a crate::store::SessionRow,
        trigger: RunTrigger,
        text: &'a str,
    ) -> futures::future::BoxFuture<'a, StoreResult<crate::protocol::RunId>> {
        Box::pin(async move {
            match self.me.get().and_then(std::sync::Weak::upgrade) {
                Some(me) => me.enqueue_on(session, trigger, text).await,
                None => Err(crate::store::StoreError::Other(anyhow::anyhow!(
                    "the scheduler is stopping"
                ))),
            }
        })
    }
    fn is_busy(&self, session: &crate::protocol::SessionId) -> bool {
        RunManager::is_busy(self, session)
    }
    fn idle(&self) -> &tokio::sync::Notify {
        &self.idle
    }
    fn queued(&self, session: &crate::protocol::SessionId) -> bool {
        self.lock()
            .get(session)
            .is_some_and(|s| !s.queue.is_empty())
    }
    fn stopping(&self) -> bool {
        self.shutdown.is_cancelled()
    }
}

impl RunManager {
    /// Drop what is kept in memory for a deleted session.
    pub fn forget_session(&self, session_id: &crate::protocol::SessionId) {
        self.deps.events.forget(session_id);
        self.deps.lineages.lock().remove(session_id);
        drop(self.deps.history.take(session_id));
    }

    pub fn new(deps: Arc<AgentDeps>, hooks: Vec<Arc<dyn AfterRun>>) -> Arc<RunManager> {
        let rm = Arc::new(RunManager {
            deps,
            sessions: Mutex::new(HashMap::new()),
            global: Arc::new(Semaphore::new(MAX_CONCURRENT_RUNS)),
            shutdown: CancellationToken::new(),
            running: tokio_util::task::TaskTracker::new(),
            idle: tokio::sync::Notify::new(),
            me: std::sync::OnceLock::new(),
            hooks,
        });
        let _ = rm.me.set(Arc::downgrade(&rm));
        let as_scheduler: Arc<dyn crate::scheduler::Scheduler> = rm.clone();
        let weak = Arc::downgrade(&as_scheduler);
        rm.deps.scheduler.set(weak);
        rm
    }

    /// Cancel what runs or waits in every subagent session below `session_id` (a parent's
    /// cancel reaches its whole tree).
    pub async fn cancel_tree(&self, session_id: &crate::protocol::SessionId) {
        let ids = match self.deps.store.descendant_ids(session_id).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "cannot find the subagents to cancel");
                return;
            }
        };
        for id in ids {
            self.drop_queue(&id).await;
            let token = self
                .lock()
                .get(&id)
                .and_then(|st| st.active.as_ref().map(|(_, t)| t.clone()));
            if let Some(t) = token {
                t.cancel();
            }
        }
    }

    pub fn deps(&self) -> &Arc<AgentDeps> {
        &self.deps
    }

    fn lock(
        &self,
    ) -> parking_lot::MutexGuard<'_, HashMap<crate::protocol::SessionId, SessionState>> {
        self.sessions.lock()
    }

    /// Queue an input on a session; starts a worker if the session is free.
    pub async fn enqueue(
        self: &Arc<Self>,
        session_id: &crate::protocol::SessionId,
        trigger: RunTrigger,
        text: &str,
    ) -> StoreResult<crate::protocol::RunId> {
        let session = self.deps.store.get_session(session_id).await?;
        self.enqueue_on(&session, trigger, text).await
    }

    /// `enqueue` for a session row the caller has just read.
    pub async fn enqueue_on(
        self: &Arc<Self>,
        session: &crate::store::SessionRow,
        trigger: RunTrigger,
        text: &str,
    ) -> StoreResult<crate::protocol::RunId> {
        self.enqueue_with_images(session, trigger, text, Vec::new(), None)
            .await
    }

    /// Queue a prompt with images (stored with its run, so a restart keeps them).
    pub async fn enqueue_with_images(
        self: &Arc<Self>,
        session: &crate::store::SessionRow,
        trigger: RunTrigger,
        text: &str,
        images: Vec<crate::protocol::ImageRef>,
        limits: Option<crate::protocol::RunLimits>,
    ) -> StoreResult<crate::protocol::RunId> {
        let session_id = &session.id;
        let run_id: crate::protocol::RunId = new_id().into();
        self.deps
            .store
            .create_run(&run_id, session_id, trigger, text, session.agent)
            .await?;
        if !images.is_empty() {
            let json = serde_json::to_string(&images)
                .map_err(|e| crate::store::StoreError::Other(e.into()))?;
            self.deps.store.set_run_images(&run_id, &json).await?;
        }
        if let Some(l) = &limits {
            let json =
                serde_json::to_string(l).map_err(|e| crate::store::StoreError::Other(e.into()))?;
            self.deps.store.set_run_limits(&run_id, &json).await?;
        }
        self.push(
            session_id,
            Queued {
                run_id: run_id.clone(),
                trigger,
                images,
                limits,
                text: text.to_string(),
                queued_at: crate::util::now_ms(),
                session: Some(session.clone()),
            },
        );
        Ok(run_id)
    }

    fn push(self: &Arc<Self>, session_id: &crate::protocol::SessionId, mut q: Queued) {
        let start = {
            let mut map = self.lock();
            let st = map.entry(session_id.clone()).or_default();
            if st.worker {
                q.session = None;
            }
            if q.trigger == RunTrigger::Goal {
                st.goal_wanted = false;
            }
            st.queue.push_back(q);
            !std::mem::replace(&mut st.worker, true)
        };
        if start {
            let me = self.clone();
            let sid = session_id.clone();
            tokio::spawn(async move { me.worker(sid).await });
        }
    }

    async fn worker(self: Arc<Self>, session_id: crate::protocol::SessionId) {
        loop {
            let next = {
                let mut map = self.lock();
                let st = map.entry(session_id.clone()).or_default();
                match st.queue.pop_front() {
                    Some(q) => {
                        let token = self.shutdown.child_token();
                        st.active = Some((q.run_id.clone(), token.clone()));
                        Some(Some((q, token)))
                    }
                    None if std::mem::take(&mut st.goal_wanted) => Some(None),
                    None => {
                        // Idle: forget the session (its queue's capacity included), so finished
                        // sessions cost nothing here.
                        map.remove(&session_id);
                        self.idle.notify_waiters();
                        None
                    }
                }
            };
            let Some(next) = next else { return };
            let Some((mut q, cancel)) = next else {
                // The queue ran dry with a goal waiting for its turn: queue it and go on.
                self.start_goal_turn(&session_id).await;
                continue;
            };
            let permit = match self.global.clone().try_acquire_owned() {
                Ok(p) => Some(p),
                Err(_) => {
                    // Waiting for a free slot: the session may change meanwhile.
                    q.session = None;
                    tokio::select! {
                        p = self.global.clone().acquire_owned() => p.ok(),
                        _ = cancel.cancelled() => None,
                    }
                }
            };
            if let Some(permit) = permit {
                // A panic inside a run must not wedge the session: run it as its own task and
                // record a failure if it dies.
                let me = self.clone();
                let sid = session_id.clone();
                let run_id = q.run_id.clone();
                let slot = Arc::new(Slot::new(self.global.clone(), permit));
                let handle = self
                    .running
                    .spawn(async move { me.execute(&sid, q, cancel, slot).await });
                if let Err(e) = handle.await {
                    tracing::error!(error = %e, run = %run_id, "run task died");
                    let error = werr("internal", "the run stopped on an internal error");
                    let end = RunEnd::at_once(RunStatus::Failed, None, Some(error));
                    self.end(&session_id, &run_id, &end).await;
                }
            } else {
                self.finish_unstarted(&session_id, &q.run_id, RunStatus::Cancelled)
                    .await;
            }
            let mut map = self.lock();
            if let Some(st) = map.get_mut(&session_id) {
                st.active = None;
            }
        }
    }

    async fn execute(
        self: &Arc<Self>,
        session_id: &crate::protocol::SessionId,
        q: Queued,
        cancel: CancellationToken,
        slot: Arc<Slot>,
    ) {
        let store = &self.deps.store;
        let child = q.trigger == RunTrigger::Task;
        if child {
            crate::probe::moment(crate::probe::MarkKind::Step("worker"));
        }
        match store.start_run(&q.run_id).await {
            Ok(true) if child => crate::probe::moment(crate::probe::MarkKind::Step("run started")),
            Ok(true) => {}
            Ok(false) => return, // cancelled while queued
            Err(e) => {
                tracing::error!(error = %e, "cannot start run");
                return;
            }
        }
        let fresh = match q.session {
            Some(s) => Ok(s),
            None => store.get_session(session_id).await,
        };
        let session = match fresh {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "session vanished before its run");
                let error = werr(
                    "not_found",
                    "the session was deleted before the run started",
                );
                let end = RunEnd::at_once(RunStatus::Failed, None, Some(error));
                self.end(session_id, &q.run_id, &end).await;
                return;
            }
        };
        let spec = RunSpec {
            run_id: q.run_id.clone(),
            session,
            trigger: q.trigger,
            text: q.text,
            images: q.images,
            limits: q.limits,
            cancel,
            server_stop: self.shutdown.clone(),
            slot,
        };
        // The run's row is final before its `run_finished` event is sent (agent::run does both).
        let span = tracing::info_span!("run", run_id = %spec.run_id, session = %session_id, trigger = spec.trigger.as_str());
        let done = tracing::Instrument::instrument(agent::run(&self.deps, &spec), span).await;
        let ended = EndedRun {
            session_id,
            run_id: &q.run_id,
            trigger: q.trigger,
            end: &done.end,
            goal_active: done.goal_active,
        };
        for hook in &self.hooks {
            hook.after_run(&ended).await;
        }
    }

    /// End a run from outside its loop (see `EventBus::end_run`); a failure is logged.
    async fn end(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
        end: &RunEnd,
    ) -> bool {
        match self
            .deps
            .events
            .end_run(session_id, run_id, end, false)
            .await
        {
            Ok(ended) => ended,
            Err(e) => {
                tracing::error!(error = %e, run = %run_id, "cannot record the run's end");
                false
            }
        }
    }

    /// Queue a goal turn with its continuation prompt (a failure is logged: the goal waits).
    async fn enqueue_goal_turn(
        self: &Arc<Self>,
        session_id: &crate::protocol::SessionId,
        text: &str,
    ) {
        match self.deps.store.get_session(session_id).await {
            Ok(session) => {
                if let Err(e) = self.enqueue_on(&session, RunTrigger::Goal, text).await {
                    tracing::warn!(error = %e, "cannot start the goal's next turn");
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot start the goal's next turn"),
        }
    }

    async fn finish_unstarted(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
        status: RunStatus,
    ) {
        let reason = (status == RunStatus::Cancelled).then_some(StopReason::User);
        self.end(session_id, run_id, &RunEnd::at_once(status, reason, None))
            .await;
    }

    /// Cancel a queued or active run. `Ok(false)`: the run had already ended.
    pub async fn cancel(&self, run_id: &crate::protocol::RunId) -> StoreResult<bool> {
        let run = self.deps.store.get_run(run_id).await?;
        let (removed, token) = {
            let mut map = self.lock();
            match map.get_mut(run.session_id.as_str()) {
                Some(st) => {
                    let before = st.queue.len();
                    st.queue.retain(|q| q.run_id != *run_id);
                    let removed = st.queue.len() != before;
                    let token = st
                        .active
                        .as_ref()
                        .filter(|(id, _)| id == run_id)
                        .map(|(_, t)| t.clone());
                    (removed, token)
                }
                None => (false, None),
            }
        };
        if let Some(t) = token {
            t.cancel();
            self.cancel_tree(&run.session_id).await;
            return Ok(true);
        }
        if removed || run.status == RunStatus::Queued {
            self.finish_unstarted(&run.session_id, run_id, RunStatus::Cancelled)
                .await;
            return Ok(true);
        }
        Ok(false)
    }

    /// The inputs waiting behind the session's active run, in order: `(run id, trigger, text,
    /// queued at)`.
    pub fn queue(
        &self,
        session_id: &crate::protocol::SessionId,
    ) -> Vec<(crate::protocol::RunId, RunTrigger, String, i64)> {
        self.lock().get(session_id).map_or_else(Vec::new, |st| {
            st.queue
                .iter()
                .map(|q| (q.run_id.clone(), q.trigger, q.text.clone(), q.queued_at))
                .collect()
        })
    }

    /// Change a queued input's text before it starts. False when it is no longer queued (it
    /// started, or was cancelled). The queue is changed first, so a run that starts right after
    /// uses the new text; the stored row follows.
    pub async fn edit_queued(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
        text: &str,
        trigger: RunTrigger,
    ) -> StoreResult<bool> {
        let found = {
            let mut map = self.lock();
            match map
                .get_mut(session_id)
                .and_then(|st| st.queue.iter_mut().find(|q| q.run_id == *run_id))
            {
                Some(q) => {
                    q.text = text.to_string();
                    q.trigger = trigger;
                    true
                }
                None => false,
            }
        };
        if found {
            self.deps
                .store
                .update_run_input(run_id, text, trigger)
                .await?;
        }
        Ok(found)
    }

    /// Cancel every input waiting on the session (not the active run); returns how many.
    pub async fn drop_queue(&self, session_id: &crate::protocol::SessionId) -> usize {
        let dropped: Vec<crate::protocol::RunId> = {
            let mut map = self.lock();
            map.get_mut(session_id)
                .map(|st| st.queue.drain(..).map(|q| q.run_id).collect())
                .unwrap_or_default()
        };
        for id in &dropped {
            self.finish_unstarted(session_id, id, RunStatus::Cancelled)
                .await;
        }
        dropped.len()
    }

    /// Whether the session is idle, waiting up to `within` for a worker that is only finishing:
    /// its last run already ended (`run_finished` is stored and sent before the worker lets the
    /// session go), so a client acting on that event is not told "busy". A session with a run
    /// queued or running is busy at once.
    pub async fn settled(
        &self,
        session_id: &crate::protocol::SessionId,
        within: std::time::Duration,
    ) -> bool {
        if !self.is_busy(session_id) {
            return true;
        }
        let ended = match self.deps.store.list_session_runs(session_id, 1).await {
            Ok(runs) => runs
                .first()
                .is_none_or(|r| !matches!(r.status, RunStatus::Queued | RunStatus::Running)),
            Err(_) => false,
        };
        if !ended {
            return false;
        }
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let notified = self.idle.notified();
            if !self.is_busy(session_id) {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return !self.is_busy(session_id);
            }
        }
    }

    /// True while a run is active or queued on the session.
    pub fn is_busy(&self, session_id: &crate::protocol::SessionId) -> bool {
        self.lock().get(session_id).is_some_and(|s| s.worker)
    }

    /// A goal was set or resumed. Returns true when the session is idle and the caller should
    /// queue the goal's turn now; otherwise the turn starts once the session's queue runs dry
    /// (the flag and the worker's idle check share one lock, so the turn is never lost to a run
    /// that ends at that moment).
    pub fn want_goal_turn(&self, session_id: &crate::protocol::SessionId) -> bool {
        let mut map = self.lock();
        match map.get_mut(session_id) {
            Some(st) if st.worker => {
                st.goal_wanted = true;
                false
            }
            _ => true,
        }
    }

    /// Queue the goal's next turn if the goal is still active.
    async fn start_goal_turn(self: &Arc<Self>, session_id: &crate::protocol::SessionId) {
        let g = match self.deps.store.get_goal(session_id).await {
            Ok(Some(g)) if g.status == crate::protocol::GoalStatus::Active => g,
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the session's goal");
                return;
            }
        };
        self.enqueue_goal_turn(session_id, &crate::goals::continuation(&g))
            .await;
    }

    /// At start-up: active runs of a dead server are `interrupted`; queued ones start again;
    /// pending approvals can no longer be answered.
    pub async fn recover(self: &Arc<Self>) -> StoreResult<()> {
        let store = &self.deps.store;
        store.expire_pending_approvals().await?;
        store.expire_pending_prompts().await?;
        for r in store.list_runs_with_status(RunStatus::Running).await? {
            // The server died mid-run: what it consumed is known only from what it stored.
            let (last, streamed) = store.run_trace(&r.id).await.unwrap_or((None, 0));
            let duration_ms = match (r.started_at, last) {
                (Some(s), Some(l)) if l > s => (l - s) as u64,
                _ => 0,
            };
            let usage = Usage {
                input_tokens: 0,
                output_tokens: crate::provider::estimate_tokens(streamed),
                ..Usage::default()
            };
            let end = RunEnd {
                status: RunStatus::Interrupted,
                reason: Some(StopReason::Crash),
                usage,
                error: Some(werr("interrupted", "the server stopped during this run")),
                duration_ms,
            };
            self.end(&r.session_id, &r.id, &end).await;
        }
        for r in store.list_runs_with_status(RunStatus::Queued).await? {
            let trigger = r.trigger;
            self.push(
                &r.session_id,
                Queued {
                    run_id: r.id,
                    trigger,
                    text: r.input,
                    images: r
                        .images
                        .as_deref()
                        .and_then(|j| serde_json::from_str(j).ok())
                        .unwrap_or_default(),
                    // Limits that no longer read are the narrowest: nothing beyond reading.
                    limits: r.limits.as_deref().map(|j| {
                        serde_json::from_str(j).unwrap_or(crate::protocol::RunLimits {
                            write: false,
                            process: false,
                            external: false,
                            read_only: true,
                            yolo: false,
                            interactive: false,
                        })
                    }),
                    queued_at: r.created_at,
                    session: None,
                },
            );
        }
        Ok(())
    }

    /// Stop everything (server shutdown).
    pub fn shutdown(&self) {
        self.shutdown.cancel();
        self.running.close();
    }

    /// After `shutdown`: wait (at most `limit`) until every stopped run has stored its end, so
    /// it reads `interrupted` with what it really consumed instead of being found unfinished.
    pub async fn stopped(&self, limit: std::time::Duration) -> bool {
        tokio::time::timeout(limit, self.running.wait())
            .await
            .is_ok()
    }
}

fn werr(code: &str, message: &str) -> WireError {
    WireError {
        code: code.into(),
        message: message.into(),
    }
}
