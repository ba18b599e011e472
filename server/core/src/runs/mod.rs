//! The run scheduler: a per-session queue of inputs, one active run per session, a global cap on
//! concurrent runs, cancellation (the provider stream and any running tool's process group stop
//! within a second), and recovery at start-up (runs active when the server died become
//! `interrupted`; queued inputs are kept and started again).

use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::agent::{self, LoopEnv, RunSpec};
use crate::protocol::EventPayload;
use crate::protocol::{RunStatus, RunTrigger, StopReason, Usage, WireError};
use crate::scheduler::{AfterRun, EndedRun, OnIdle, Queued, RunEnd, RunQueue, Starts};
use crate::store::{PendingPrompt, StoreResult};

pub mod wake;

pub use crate::slot::Slot;

/// Runs executing at once across all sessions.
pub const MAX_CONCURRENT_RUNS: usize = 8;

pub struct RunManager {
    deps: Arc<LoopEnv>,
    /// The sessions' queues (shared with everything that queues runs).
    queue: RunQueue,
    global: Arc<Semaphore>,
    /// Every executing run, so a shutdown can wait for each to record how it ended.
    running: tokio_util::task::TaskTracker,
    /// What follows each run's end, in order (an approved plan's implementation, then a
    /// goal's next turn).
    hooks: Vec<Arc<dyn AfterRun>>,
    /// What a session's queue running dry starts (a goal's waiting turn).
    on_idle: Vec<Arc<dyn OnIdle>>,
}

impl RunManager {
    /// Drop what is kept in memory for a deleted session.
    pub fn forget_session(&self, session_id: &crate::protocol::SessionId) {
        self.deps.events.forget(session_id);
        self.deps.live.lineages.lock().remove(session_id);
        drop(self.deps.history.take(session_id));
    }

    /// The scheduler over `queue`: it starts a worker for each session `starts` names, until
    /// the server stops.
    pub fn new(
        deps: Arc<LoopEnv>,
        (queue, mut starts): (RunQueue, Starts),
        hooks: Vec<Arc<dyn AfterRun>>,
        on_idle: Vec<Arc<dyn OnIdle>>,
    ) -> Arc<RunManager> {
        let rm = Arc::new(RunManager {
            deps,
            queue,
            global: Arc::new(Semaphore::new(MAX_CONCURRENT_RUNS)),
            running: tokio_util::task::TaskTracker::new(),
            hooks,
            on_idle,
        });
        let me = rm.clone();
        tokio::spawn(async move {
            let stop = me.queue.shutdown_token().clone();
            loop {
                tokio::select! {
                    sid = starts.recv() => match sid {
                        Some(sid) => {
                            tokio::spawn(me.clone().worker(sid));
                        }
                        None => return,
                    },
                    () = stop.cancelled() => return,
                }
            }
        });
        rm
    }

    /// The run queue this scheduler runs.
    pub fn run_queue(&self) -> &RunQueue {
        &self.queue
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

    fn lock(&self) -> parking_lot::MutexGuard<'_, crate::scheduler::Sessions> {
        self.queue.lock()
    }

    /// Queue an input on a session; starts a worker if the session is free.
    pub async fn enqueue(
        &self,
        session_id: &crate::protocol::SessionId,
        trigger: RunTrigger,
        text: &str,
    ) -> StoreResult<crate::protocol::RunId> {
        let session = self.deps.store.get_session(session_id).await?;
        self.queue.enqueue(&session, trigger, text).await
    }

    /// `enqueue` for a session row the caller has just read.
    pub async fn enqueue_on(
        &self,
        session: &crate::store::SessionRow,
        trigger: RunTrigger,
        text: &str,
    ) -> StoreResult<crate::protocol::RunId> {
        self.queue.enqueue(session, trigger, text).await
    }

    /// Queue a prompt with images (stored with its run, so a restart keeps them), limits and
    /// how it was sent.
    pub async fn enqueue_with_images(
        &self,
        session: &crate::store::SessionRow,
        trigger: RunTrigger,
        text: &str,
        extras: crate::scheduler::Extras,
    ) -> StoreResult<crate::protocol::RunId> {
        self.queue
            .enqueue_with(session, trigger, text, extras)
            .await
    }

    async fn worker(self: Arc<Self>, session_id: crate::protocol::SessionId) {
        loop {
            let next = {
                let mut map = self.lock();
                let st = map.entry(session_id.clone()).or_default();
                match st.queue.pop_front() {
                    Some(q) => {
                        let token = self.queue.shutdown_token().child_token();
                        st.active = Some((q.run_id.clone(), token.clone()));
                        Some(Some((q, token)))
                    }
                    None if std::mem::take(&mut st.idle_wanted) => Some(None),
                    None => {
                        // Idle: forget the session (its queue's capacity included), so finished
                        // sessions cost nothing here.
                        map.remove(&session_id);
                        self.queue.idle().notify_waiters();
                        None
                    }
                }
            };
            let Some(next) = next else { return };
            let Some((mut q, cancel)) = next else {
                // The queue ran dry with something waiting for that (a goal's turn): its hooks
                // queue it, and the worker goes on.
                for hook in &self.on_idle {
                    hook.on_idle(&session_id, &self.queue).await;
                }
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
                let ended = handle.await;
                // A shutdown counting the runs still to end hears of this one (its task is
                // gone from `running` by now).
                self.deps.prompts.holding.changed();
                if let Err(e) = ended {
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
        let started = if q.resume {
            Ok(true)
        } else {
            store.start_run(&q.run_id).await
        };
        match started {
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
            by_admin: q.by_admin,
            resumed: q.resume,
            cancel,
            server_stop: self.queue.shutdown_token().clone(),
            slot,
            queue: self.queue.clone(),
        };
        // The run's row is final before its `run_finished` event is sent (agent::run does both).
        let span = tracing::info_span!("run", run_id = %spec.run_id, session = %session_id, trigger = spec.trigger.as_str());
        let done = tracing::Instrument::instrument(agent::run(&self.deps, &spec), span).await;
        // A session's first exchange gets the title the model writes (in the background).
        agent::titles::after_run(&self.deps, &spec, &done);
        let ended = EndedRun {
            session_id,
            run_id: &q.run_id,
            trigger: q.trigger,
            end: &done.end,
            goal_active: done.goal_active,
            continue_with: done.continue_with.as_deref(),
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
    pub fn queue(&self, session_id: &crate::protocol::SessionId) -> Vec<Queued> {
        self.lock().get(session_id).map_or_else(Vec::new, |st| {
            st.queue
                .iter()
                .map(|q| Queued {
                    session: None,
                    images: Vec::new(),
                    ..q.clone()
                })
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
            let notified = self.queue.idle().notified();
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
        self.queue.is_busy(session_id)
    }

    /// At start-up: active runs of a dead server are `interrupted` — but for those that were
    /// waiting on a person, which go on waiting (`recover_waiting`); queued ones start again;
    /// prompts no run waits for any more are expired.
    pub async fn recover(&self) -> StoreResult<()> {
        let store = &self.deps.store;
        let mut prompts = store.pending_prompts().await?;
        for r in store.list_runs_with_status(RunStatus::Running).await? {
            let (mine, rest): (Vec<_>, Vec<_>) =
                prompts.into_iter().partition(|p| p.run_id == r.id);
            prompts = rest;
            if !mine.is_empty() {
                self.recover_waiting(r, mine).await;
                continue;
            }
            // The server died mid-run: what it consumed is known only from what it stored — its
            // recorded model calls, and the text of a call that never finished.
            let (last, streamed) = store.run_trace(&r.id).await.unwrap_or((None, 0));
            let duration_ms = match (r.started_at, last) {
                (Some(s), Some(l)) if l > s => (l - s) as u64,
                _ => 0,
            };
            let usage = match store.run_usage(&r.id).await {
                Ok(Some(u)) => u,
                // Its first model call never finished: it read about what the session's last
                // call held, and the prompt.
                _ => {
                    let context = match store.last_model_call(&r.session_id).await {
                        Ok(Some(c)) => u64::try_from(c.input_tokens + c.output_tokens).unwrap_or(0),
                        _ => 0,
                    };
                    Usage {
                        input_tokens: context + crate::provider::estimate_tokens(r.input.len()),
                        output_tokens: crate::provider::estimate_tokens(streamed),
                        estimated: true,
                        ..Usage::default()
                    }
                }
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
        // Their runs ended before the server stopped: nobody waits for them.
        for p in &prompts {
            store.expire_prompt(p).await?;
        }
        for r in store.list_runs_with_status(RunStatus::Queued).await? {
            let session = r.session_id.clone();
            self.queue.push(&session, queued_of(r, false));
        }
        Ok(())
    }

    /// A run that waited on a person when the server stopped (cleanly or not) goes on waiting:
    /// its prompts stay answerable and an answer continues it. When a wait's
    /// `agent.approvalTimeoutSecs` ran out while the server was down — or the run is a
    /// subagent's, whose parent's run did not wait — it ends `interrupted` instead, each prompt
    /// reading [`NOT_ANSWERED`], as the model is told.
    async fn recover_waiting(&self, r: crate::store::RunRow, prompts: Vec<PendingPrompt>) {
        let now = crate::util::now_ms();
        let timeout = self.deps.cfg.agent.approval_timeout_secs.max(1);
        let timeout_ms = i64::try_from(timeout.saturating_mul(1000)).unwrap_or(i64::MAX);
        let left = |p: &PendingPrompt| timeout_ms.saturating_sub(now - p.created_at);
        let root = self
            .deps
            .store
            .get_session(&r.session_id)
            .await
            .is_ok_and(|s| s.parent_id.is_none());
        // A prompt stored but never shown (the server died between the two writes): a
        // question is shown now, as asked; an approval or a plan ends the run as if it had
        // not started waiting (what it shows is only in its request).
        let mut shown = true;
        for p in &prompts {
            if !self.announced(p).await {
                shown = false;
            }
        }
        if shown && root && r.trigger != RunTrigger::Compact && prompts.iter().all(|p| left(p) > 0)
        {
            for p in prompts {
                let wait = std::time::Duration::from_millis(left(&p).unsigned_abs());
                park(&self.deps.prompts, p, wait);
            }
            let session = r.session_id.clone();
            self.queue.push(&session, queued_of(r, true));
            return;
        }
        for p in &prompts {
            self.not_answered(p).await;
        }
        let usage = self
            .deps
            .store
            .run_usage(&r.id)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        let end = RunEnd {
            status: RunStatus::Interrupted,
            reason: Some(StopReason::Shutdown),
            usage,
            error: Some(werr("interrupted", NOT_ANSWERED)),
            duration_ms: 0,
        };
        self.end(&r.session_id, &r.id, &end).await;
    }

    /// Whether a waiting prompt's request is in its session's log; a question that is not is
    /// recorded now (its row holds all it asks).
    async fn announced(&self, p: &PendingPrompt) -> bool {
        let (kind, field) = match p.kind.as_str() {
            "approval" => ("approval_requested", "approval_id"),
            "question" => ("question_asked", "question_id"),
            _ => ("plan_proposed", "plan_id"),
        };
        let store = &self.deps.store;
        match store
            .has_event_naming(&p.session_id, kind, field, &p.id)
            .await
        {
            Ok(true) => true,
            Ok(false) if p.kind == "question" => {
                let Ok(questions) = serde_json::from_str(&p.questions) else {
                    return false;
                };
                let asked = EventPayload::QuestionAsked {
                    question_id: p.id.as_str().into(),
                    call_id: p.call_id.clone(),
                    questions,
                };
                self.deps
                    .events
                    .append(&p.session_id, Some(&p.run_id), &asked)
                    .await
                    .is_ok()
            }
            // An approval or a plan never shown.
            Ok(false) => false,
            // The log could not be read: taken as shown, as before this check.
            Err(_) => true,
        }
    }

    /// A prompt of a run that ends at start-up: expired with [`NOT_ANSWERED`], and its call's
    /// result says so to the model.
    async fn not_answered(&self, p: &PendingPrompt) {
        let (store, events) = (&self.deps.store, &self.deps.events);
        if !store.expire_prompt(p).await.unwrap_or(false) {
            return;
        }
        let (decided, tool) = closed(p, Some(NOT_ANSWERED.to_string()));
        let (session, run) = (&p.session_id, Some(&p.run_id));
        let result = EventPayload::ToolResult {
            call_id: p.call_id.clone(),
            tool: tool.to_string(),
            ok: false,
            text: NOT_ANSWERED.to_string(),
            parts: Vec::new(),
        };
        for e in [decided, result] {
            if let Err(err) = events.append(session, run, &e).await {
                tracing::warn!(error = %err, "cannot record a prompt nobody answered");
            }
        }
        let parts = crate::store::StoredParts {
            call_id: p.call_id.to_string(),
            name: tool.to_string(),
            text: NOT_ANSWERED.to_string(),
            ..Default::default()
        };
        events.post_message(
            session,
            crate::store::NewMessage {
                id: crate::util::new_id().into(),
                run_id: Some(p.run_id.clone()),
                role: crate::protocol::MessageRole::Tool,
                parts: serde_json::to_string(&parts).unwrap_or_default(),
            },
        );
    }

    /// Stop everything (server shutdown).
    pub fn shutdown(&self) {
        self.queue.shutdown_token().cancel();
        self.running.close();
    }

    /// After `shutdown`: wait (at most `limit`) until every stopped run has stored its end, so
    /// it reads `interrupted` with what it really consumed instead of being found unfinished —
    /// but for the runs waiting on a person, which are held as they are: the next start goes
    /// on waiting (`recover`).
    pub async fn stopped(&self, limit: std::time::Duration) -> bool {
        let holding = &self.deps.prompts.holding;
        let settled = async {
            loop {
                let changed = holding.notified();
                if self.running.len() <= holding.count() {
                    return;
                }
                tokio::select! {
                    () = self.running.wait() => return,
                    () = changed => {}
                }
            }
        };
        tokio::time::timeout(limit, settled).await.is_ok()
    }
}

/// What a prompt reads, and the model is told, when the server restarted past its wait.
pub const NOT_ANSWERED: &str = "not answered — the server restarted";

/// A stored run as its queue entry: a queued input, or (`resume`) a waiting run's continuation.
fn queued_of(r: crate::store::RunRow, resume: bool) -> Queued {
    Queued {
        session: None,
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
        run_id: r.id,
        trigger: r.trigger,
        text: r.input,
        queued_at: r.created_at,
        // A steer not delivered before the server stopped runs as its own turn.
        steer: false,
        by_admin: false,
        resume,
    }
}

/// How many questions a stored question row asks.
fn question_count(json: &str) -> usize {
    serde_json::from_str::<Vec<serde_json::Value>>(json).map_or(0, |v| v.len())
}

/// Keep a waiting run's prompt answerable for its continuation, `left` more to wait.
fn park(prompts: &crate::pending::Prompts, p: PendingPrompt, left: std::time::Duration) {
    let (expired, _) = closed(&p, None);
    match p.kind.as_str() {
        "approval" => prompts.approvals.park(to_park(p, left, expired)),
        "question" => prompts.questions.park(to_park(p, left, expired)),
        _ => prompts.plans.park(to_park(p, left, expired)),
    }
}

fn to_park<K: crate::pending::PromptKind<Id: From<String>>>(
    p: PendingPrompt,
    left: std::time::Duration,
    expired: EventPayload,
) -> crate::pending::ToPark<K> {
    crate::pending::ToPark {
        id: p.id.into(),
        run: p.run_id,
        call: p.call_id,
        // An approval's grant key; the others have none.
        key: p.grant_key,
        left,
        expired,
    }
}

/// What closing a prompt unanswered records (with why, when known), and its call's tool.
fn closed(p: &PendingPrompt, reason: Option<String>) -> (EventPayload, &str) {
    match p.kind.as_str() {
        "approval" => (
            EventPayload::ApprovalDecided {
                approval_id: p.id.as_str().into(),
                decision: crate::protocol::ApprovalOutcome::Expired,
                reason,
            },
            p.tool.as_str(),
        ),
        "question" => (
            EventPayload::QuestionAnswered {
                question_id: p.id.as_str().into(),
                answers: vec![None; question_count(&p.questions)],
                reason,
            },
            "ask_user_question",
        ),
        _ => (
            EventPayload::PlanDecided {
                plan_id: p.id.as_str().into(),
                decision: crate::protocol::PlanDecision::Skipped,
                feedback: None,
                reason,
            },
            "exit_plan",
        ),
    }
}

fn werr(code: &str, message: &str) -> WireError {
    WireError {
        code: code.into(),
        message: message.into(),
    }
}
