//! One broker for everything that waits for a person: approvals, questions and plan decisions.
//!
//! Asking is always the same five steps — register a waiter, persist the row, emit the request
//! event, await the answer (or a timeout, or the run's cancellation), and on no answer expire the
//! row and emit that — done once here for every kind. Answering is the mirror, used by the REST
//! API and the WebSocket alike through `services`: load the row, validate the answer against it,
//! move the row out of `pending` with a compare-and-set (so a replay or a late answer loses),
//! record the decision event, and wake the waiting run. Each waiter is keyed by its own id with a
//! oneshot, never a shared channel.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::events::EventBus;
use crate::protocol::{ApprovalDecision, ApprovalScope, EventPayload, PlanDecision, Question};
use crate::store::{
    ApprovalRow, ApprovalStatus, NewApproval, PlanRow, PlanStatus, QuestionRow, QuestionStatus,
    Store, StoreError, StoreResult,
};

/// One kind of prompt: how its rows are stored, what its events say, how answers are checked.
pub trait PromptKind: Send + Sync + 'static {
    /// What the run registers (the row to insert and what the request event shows).
    type Request: Send + Sync;
    /// The stored row an answer is checked against.
    type Row: Send;
    /// The person's answer.
    type Answer: Clone + Send + 'static;
    /// The prompt's typed id (`ApprovalId`, `QuestionId`, `PlanId`).
    type Id: std::ops::Deref<Target = str> + std::fmt::Display + Sync + Send;
    /// `approval`, `question`, `plan`: used in "… not found".
    const NAME: &'static str;
    /// Said when the row is no longer pending.
    const CLOSED: &'static str;
    /// The kind as `child_pending` names it.
    const KIND: crate::protocol::PromptKindName;

    /// One line on what is asked (shown to the sessions above a subagent).
    fn summary(req: &Self::Request) -> String;

    fn persist(store: &Store, req: &Self::Request) -> impl Future<Output = StoreResult<()>> + Send;
    fn requested(req: &Self::Request) -> EventPayload;
    /// Move a still-pending row to its expired state; true when this call did it.
    fn expire(store: &Store, id: &Self::Id) -> impl Future<Output = StoreResult<bool>> + Send;
    fn expired(req: &Self::Request) -> EventPayload;

    fn load(store: &Store, id: &Self::Id) -> impl Future<Output = StoreResult<Self::Row>> + Send;
    /// `(session_id, run_id)` of a row.
    fn owner(row: &Self::Row) -> (&crate::protocol::SessionId, &crate::protocol::RunId);
    fn validate(row: &Self::Row, answer: &Self::Answer) -> Result<(), String>;
    /// Move the row from `pending` to the answer's state; false when it was not pending.
    fn decide(
        store: &Store,
        id: &Self::Id,
        answer: &Self::Answer,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
    fn decided(id: &Self::Id, answer: &Self::Answer) -> EventPayload;
}

/// Where a prompt waits: the run that asks, and for how long.
pub struct Waiter<'a> {
    pub store: &'a Store,
    pub events: &'a EventBus,
    pub session: &'a crate::protocol::SessionId,
    pub run: &'a crate::protocol::RunId,
    pub timeout: Duration,
    pub cancel: &'a CancellationToken,
    /// The run's place in the global cap: given back while it waits.
    pub slot: Option<&'a crate::slot::Slot>,
    /// For a subagent: the sessions above it (parent first, root last), which hear
    /// `child_pending`.
    pub ancestors: &'a [crate::protocol::SessionId],
    /// Tells closed apps (Web Push) that the user is needed.
    pub push: Option<&'a Arc<crate::push::Push>>,
    /// The server's stop (the parent of `cancel`) and where a wait it ends is counted: such
    /// a wait is not expired but held — its row stays pending, the run records nothing more,
    /// and the next start goes on waiting ([`Pending::park`]).
    pub stopping: Option<(&'a CancellationToken, &'a Holding)>,
}

/// The waits a stopping server holds instead of ending (each one's run records no end).
#[derive(Default)]
pub struct Holding {
    held: std::sync::atomic::AtomicUsize,
    changed: tokio::sync::Notify,
}

impl Holding {
    /// Waits held so far.
    pub fn count(&self) -> usize {
        self.held.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves at the next hold (or a run's end, [`Holding::changed`]); create it before
    /// checking, so nothing is missed.
    pub fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }

    /// Something the shutdown counts changed (a wait held, a run ended).
    pub fn changed(&self) {
        self.changed.notify_waiters();
    }

    /// Hold the calling wait for good: the server is stopping and nothing may be recorded.
    async fn hold(&self) {
        self.held.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.changed();
        std::future::pending::<()>().await;
    }
}

/// A prompt a run was waiting on when the server stopped, answerable again from the next
/// start: the run's continuation takes it ([`Pending::adopt`]) instead of asking anew.
pub struct Parked<K: PromptKind> {
    pub id: K::Id,
    answer: oneshot::Receiver<K::Answer>,
    /// When the wait's `agent.approvalTimeoutSecs` runs out, counted from when it was asked.
    deadline: tokio::time::Instant,
    /// What expiring it records.
    expired: EventPayload,
}

/// What a run's call was waiting for, to park at start-up.
pub struct ToPark<K: PromptKind> {
    pub id: K::Id,
    pub run: crate::protocol::RunId,
    pub call: crate::protocol::CallId,
    /// An approval's grant key ("" for the others): a continuation asking for another key does
    /// not take it.
    pub key: String,
    /// Left of the wait's time.
    pub left: Duration,
    pub expired: EventPayload,
}

/// How an ask ended.
#[derive(Debug)]
pub enum Asked<T> {
    Answered(T),
    /// No answer in time, or the run was cancelled: the row is expired.
    Expired,
    /// The row could not be stored; nothing was shown to anyone.
    Failed(StoreError),
}

/// Why an answer was refused.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Closed(&'static str),
    #[error(transparent)]
    Store(StoreError),
}

/// Where the prompts to the user wait — approvals, questions, plans — and who can answer.
#[derive(Default)]
pub struct Prompts {
    pub approvals: Pending<Approvals>,
    pub questions: Pending<Questions>,
    pub plans: Pending<Plans>,
    /// A person can answer them (a server; a headless run never asks).
    pub interactive: bool,
    /// Tells closed apps (Web Push) that the user is needed.
    pub push: Option<Arc<crate::push::Push>>,
    /// Waits a stopping server holds (see `Waiter::stopping`).
    pub holding: Holding,
}

impl Prompts {
    /// Whether `call` of `run` waits on a prompt a restart kept (it was announced before).
    pub fn parked(&self, run: &crate::protocol::RunId, call: &crate::protocol::CallId) -> bool {
        let k = (run.to_string(), call.to_string());
        self.approvals.parked.lock().contains_key(&k)
            || self.questions.parked.lock().contains_key(&k)
            || self.plans.parked.lock().contains_key(&k)
    }
}

/// (run, call) → the grant key and the prompt a restart kept.
type ParkedMap<K> = HashMap<(String, String), (String, Parked<K>)>;

pub struct Pending<K: PromptKind> {
    waiting: Mutex<HashMap<String, oneshot::Sender<K::Answer>>>,
    /// Prompts of subagents shown to the sessions above them: id → (those sessions, child).
    mirrored: Mutex<HashMap<String, (Vec<crate::protocol::SessionId>, String)>>,
    /// Waits a restart kept.
    parked: Mutex<ParkedMap<K>>,
}

impl<K: PromptKind> Default for Pending<K> {
    fn default() -> Self {
        Pending {
            waiting: Mutex::new(HashMap::new()),
            mirrored: Mutex::new(HashMap::new()),
            parked: Mutex::new(HashMap::new()),
        }
    }
}

/// The most bytes of a `child_pending` summary.
const SUMMARY_CHARS: usize = 200;

fn child_pending<K: PromptKind>(
    child: &str,
    id: &str,
    summary: String,
    status: crate::protocol::ChildPendingStatus,
) -> EventPayload {
    EventPayload::ChildPending {
        child_session: child.into(),
        kind: K::KIND,
        id: id.to_string(),
        summary,
        status,
    }
}

impl<K: PromptKind> Pending<K> {
    /// Register → persist → emit → await the answer, a timeout or cancellation → expire, once.
    pub async fn ask(&self, w: &Waiter<'_>, id: &K::Id, req: &K::Request) -> Asked<K::Answer> {
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().insert(id.to_string(), tx);
        // What led here (the model's answer with this call) is stored before the row, and the
        // request right after it: a server killed while this waits finds the call open in the
        // history, and the prompt shown, when it goes on waiting at its next start.
        let stored = async {
            w.events.flush(w.session).await?;
            K::persist(w.store, req).await
        };
        if let Err(e) = stored.await {
            self.waiting.lock().remove(&**id);
            return Asked::Failed(e);
        }
        if let Err(e) = w
            .events
            .append(w.session, Some(w.run), &K::requested(req))
            .await
        {
            tracing::warn!(error = %e, id = %id, "could not record the prompt's event");
        }
        if let Some(push) = w.push {
            push.notify(crate::push::Notice::prompt(
                K::KIND,
                w.session,
                id,
                &K::summary(req),
            ));
        }
        if !w.ancestors.is_empty() {
            self.mirrored.lock().insert(
                id.to_string(),
                (w.ancestors.to_vec(), w.session.to_string()),
            );
            let summary = crate::util::truncate_str(&K::summary(req), SUMMARY_CHARS).to_string();
            let p = child_pending::<K>(
                w.session,
                id,
                summary,
                crate::protocol::ChildPendingStatus::Pending,
            );
            for a in w.ancestors {
                w.events.post(a, None, &p);
            }
        }
        let deadline = tokio::time::Instant::now() + w.timeout;
        self.wait(w, id, rx, deadline, &K::expired(req)).await
    }

    /// At start-up: a prompt still pending of a run that goes on. Its answer is taken from now
    /// (one sent before the run's continuation reaches the call is kept for it).
    pub fn park(&self, p: ToPark<K>) {
        let (tx, answer) = oneshot::channel();
        self.waiting.lock().insert(p.id.to_string(), tx);
        let parked = Parked {
            id: p.id,
            answer,
            deadline: tokio::time::Instant::now() + p.left,
            expired: p.expired,
        };
        self.parked
            .lock()
            .insert((p.run.to_string(), p.call.to_string()), (p.key, parked));
    }

    /// The prompt `call` of `run` waited on before a restart, when it asked for `key` (an
    /// approval's grant key, "" for the others): taken once.
    pub fn adopt(
        &self,
        run: &crate::protocol::RunId,
        call: &crate::protocol::CallId,
        key: &str,
    ) -> Option<Parked<K>> {
        let mut parked = self.parked.lock();
        let k = (run.to_string(), call.to_string());
        if parked.get(&k).is_some_and(|(want, _)| want == key) {
            return parked.remove(&k).map(|(_, p)| p);
        }
        None
    }

    /// Wait again for a prompt taken with [`Pending::adopt`]: what is left of its time, then
    /// as [`Pending::ask`].
    pub async fn resume(&self, w: &Waiter<'_>, p: Parked<K>) -> Asked<K::Answer> {
        self.wait(w, &p.id, p.answer, p.deadline, &p.expired).await
    }

    /// What a run's continuation never took (it asked otherwise this time): expired.
    pub async fn release(&self, w: &Waiter<'_>) {
        let left: Vec<Parked<K>> = {
            let mut parked = self.parked.lock();
            let keys: Vec<_> = parked
                .keys()
                .filter(|(run, _)| run == &**w.run)
                .cloned()
                .collect();
            keys.into_iter()
                .filter_map(|k| parked.remove(&k).map(|(_, p)| p))
                .collect()
        };
        for p in left {
            self.expire_parked(w, p).await;
        }
    }

    /// A parked prompt that will not be waited on again: expired.
    pub async fn expire_parked(&self, w: &Waiter<'_>, p: Parked<K>) {
        self.waiting.lock().remove(&*p.id);
        if K::expire(w.store, &p.id).await.unwrap_or(false) {
            w.events.post(w.session, Some(w.run), &p.expired);
        }
    }

    /// Await the answer until `deadline` or the run's cancellation; on none, expire the row
    /// and record `expired`. A wait the server's stop ends is held instead (see `Waiter`).
    async fn wait(
        &self,
        w: &Waiter<'_>,
        id: &K::Id,
        rx: oneshot::Receiver<K::Answer>,
        deadline: tokio::time::Instant,
        expired: &EventPayload,
    ) -> Asked<K::Answer> {
        let wait = async {
            let answer = tokio::select! {
                r = rx => r.ok(),
                _ = tokio::time::sleep_until(deadline) => None,
                _ = w.cancel.cancelled() => None,
            };
            if answer.is_none()
                && let Some((stop, holding)) = w.stopping
                && stop.is_cancelled()
            {
                holding.hold().await;
            }
            answer
        };
        let answer = match w.slot {
            Some(slot) => slot.idle(w.cancel, wait).await,
            None => wait.await,
        };
        match answer {
            // The answering service already moved the row out of `pending` and recorded it.
            Some(a) => Asked::Answered(a),
            None => {
                self.waiting.lock().remove(&**id);
                if K::expire(w.store, id).await.unwrap_or(false) {
                    w.events.post(w.session, Some(w.run), expired);
                }
                if let Some((above, p)) =
                    self.unmirror(id, crate::protocol::ChildPendingStatus::Expired)
                {
                    for a in &above {
                        w.events.post(a, None, &p);
                    }
                }
                Asked::Expired
            }
        }
    }

    /// A subagent's prompt is over: the sessions above it, and what to tell them.
    fn unmirror(
        &self,
        id: &K::Id,
        status: crate::protocol::ChildPendingStatus,
    ) -> Option<(Vec<crate::protocol::SessionId>, EventPayload)> {
        let (above, child) = self.mirrored.lock().remove(&**id)?;
        Some((above, child_pending::<K>(&child, id, String::new(), status)))
    }

    /// Answer once: load, validate, compare-and-set out of `pending`, record, wake the run.
    pub async fn answer(
        &self,
        store: &Store,
        events: &EventBus,
        id: &K::Id,
        answer: K::Answer,
    ) -> Result<(), AnswerError> {
        let row = K::load(store, id).await.map_err(|e| match e {
            StoreError::NotFound => AnswerError::NotFound(K::NAME),
            other => AnswerError::Store(other),
        })?;
        K::validate(&row, &answer).map_err(AnswerError::Invalid)?;
        if !K::decide(store, id, &answer)
            .await
            .map_err(AnswerError::Store)?
        {
            return Err(AnswerError::Closed(K::CLOSED));
        }
        let (session, run) = K::owner(&row);
        if let Err(e) = events
            .append(session, Some(run), &K::decided(id, &answer))
            .await
        {
            tracing::warn!(error = %e, id = %id, "could not record the decision event");
        }
        if let Some((above, p)) = self.unmirror(id, crate::protocol::ChildPendingStatus::Answered) {
            for a in &above {
                if let Err(e) = events.append(a, None, &p).await {
                    tracing::warn!(error = %e, id = %id, "could not tell a parent session");
                }
            }
        }
        let waiter = self.waiting.lock().remove(&**id);
        if waiter.is_none_or(|tx| tx.send(answer).is_err()) {
            tracing::warn!(
                id = %id,
                kind = K::NAME,
                "answered, but no run was waiting for it"
            );
        }
        Ok(())
    }

    /// Nobody can answer (a headless run, --read-only): persist, show, and settle at once with
    /// `answer`, through the same compare-and-set and events as a person's answer.
    pub async fn settle_at_once(
        &self,
        w: &Waiter<'_>,
        id: &K::Id,
        req: &K::Request,
        answer: K::Answer,
    ) -> Result<K::Answer, StoreError> {
        K::persist(w.store, req).await?;
        w.events.post(w.session, Some(w.run), &K::requested(req));
        if K::decide(w.store, id, &answer).await? {
            w.events
                .post(w.session, Some(w.run), &K::decided(id, &answer));
        }
        Ok(answer)
    }
}

// ---- Approvals ----

/// An approval a run asks for.
pub struct ApprovalRequest {
    pub row: NewApproval,
    pub event: EventPayload,
}

pub struct Approvals;

impl PromptKind for Approvals {
    type Request = ApprovalRequest;
    type Row = ApprovalRow;
    type Answer = ApprovalAnswer;
    type Id = crate::protocol::ApprovalId;
    const NAME: &'static str = "approval";
    const CLOSED: &'static str = "this approval was already answered or has expired";
    const KIND: crate::protocol::PromptKindName = crate::protocol::PromptKindName::Approval;

    fn summary(req: &ApprovalRequest) -> String {
        format!("{}: {}", req.row.tool, req.row.reason)
    }

    async fn persist(store: &Store, req: &ApprovalRequest) -> StoreResult<()> {
        store.create_approval(&req.row).await
    }
    fn requested(req: &ApprovalRequest) -> EventPayload {
        req.event.clone()
    }
    async fn expire(store: &Store, id: &Self::Id) -> StoreResult<bool> {
        store.decide_approval(id, ApprovalStatus::Expired).await
    }
    fn expired(req: &ApprovalRequest) -> EventPayload {
        EventPayload::ApprovalDecided {
            approval_id: req.row.id.clone(),
            decision: crate::protocol::ApprovalOutcome::Expired,
            reason: None,
        }
    }
    async fn load(store: &Store, id: &Self::Id) -> StoreResult<ApprovalRow> {
        store.get_approval(id).await
    }
    fn owner(row: &ApprovalRow) -> (&crate::protocol::SessionId, &crate::protocol::RunId) {
        (&row.session_id, &row.run_id)
    }
    fn validate(row: &ApprovalRow, a: &ApprovalAnswer) -> Result<(), String> {
        use ApprovalDecision::{Deny, Directory, Once, Prefix, PrefixWorkspace, Session};
        let d = &a.decision;
        let valid = match (row.scope, d) {
            (_, Prefix | PrefixWorkspace) => row.prefix.is_some(),
            (ApprovalScope::Directory, d) => matches!(d, Once | Directory | Deny),
            (ApprovalScope::Effect, d) => matches!(d, Once | Session | Deny),
        };
        if valid {
            Ok(())
        } else {
            Err(format!(
                "`{}` is not an answer for a {} approval",
                d.as_str(),
                row.scope.as_ref()
            ))
        }
    }
    async fn decide(store: &Store, id: &Self::Id, a: &ApprovalAnswer) -> StoreResult<bool> {
        store
            .decide_approval(id, ApprovalStatus::from(a.decision))
            .await
    }
    fn decided(id: &Self::Id, a: &ApprovalAnswer) -> EventPayload {
        EventPayload::ApprovalDecided {
            approval_id: id.into(),
            decision: a.decision.into(),
            reason: a.reason.clone(),
        }
    }
}

/// A person's answer to an approval: the decision, and with a denial what the agent is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalAnswer {
    pub decision: ApprovalDecision,
    pub reason: Option<String>,
}

impl From<ApprovalDecision> for ApprovalAnswer {
    fn from(decision: ApprovalDecision) -> Self {
        ApprovalAnswer {
            decision,
            reason: None,
        }
    }
}

impl ApprovalAnswer {
    pub fn denied(&self) -> bool {
        self.decision == ApprovalDecision::Deny
    }
}

// ---- Questions ----

/// Answers: one entry per question; `None` = skipped.
pub type Answers = Vec<Option<Vec<String>>>;

pub struct QuestionRequest {
    pub id: crate::protocol::QuestionId,
    pub session_id: crate::protocol::SessionId,
    pub run_id: crate::protocol::RunId,
    pub call_id: crate::protocol::CallId,
    pub questions: Vec<Question>,
}

pub struct Questions;

impl PromptKind for Questions {
    type Request = QuestionRequest;
    type Row = (QuestionRow, Vec<Question>);
    type Answer = Answers;
    type Id = crate::protocol::QuestionId;
    const NAME: &'static str = "question";
    const CLOSED: &'static str = "this question was already answered or has expired";
    const KIND: crate::protocol::PromptKindName = crate::protocol::PromptKindName::Question;

    fn summary(q: &QuestionRequest) -> String {
        q.questions
            .first()
            .map_or_else(String::new, |x| x.question.clone())
    }

    async fn persist(store: &Store, q: &QuestionRequest) -> StoreResult<()> {
        let json = serde_json::to_string(&q.questions).map_err(anyhow::Error::from)?;
        store
            .create_question(&q.id, &q.session_id, &q.run_id, &q.call_id, &json)
            .await
    }
    fn requested(q: &QuestionRequest) -> EventPayload {
        EventPayload::QuestionAsked {
            question_id: q.id.clone(),
            call_id: q.call_id.clone(),
            questions: q.questions.clone(),
        }
    }
    async fn expire(store: &Store, id: &Self::Id) -> StoreResult<bool> {
        store
            .answer_question(id, QuestionStatus::Expired, None)
            .await
    }
    fn expired(q: &QuestionRequest) -> EventPayload {
        EventPayload::QuestionAnswered {
            question_id: q.id.clone(),
            answers: vec![None; q.questions.len()],
            reason: None,
        }
    }
    async fn load(store: &Store, id: &Self::Id) -> StoreResult<Self::Row> {
        let row = store.get_question(id).await?;
        let questions: Vec<Question> = serde_json::from_str(&row.questions).map_err(|e| {
            StoreError::Other(anyhow::anyhow!(
                "question {id} has unreadable questions: {e}"
            ))
        })?;
        Ok((row, questions))
    }
    fn owner(row: &Self::Row) -> (&crate::protocol::SessionId, &crate::protocol::RunId) {
        (&row.0.session_id, &row.0.run_id)
    }
    fn validate(row: &Self::Row, answers: &Answers) -> Result<(), String> {
        validate_answers(&row.1, answers)
    }
    async fn decide(store: &Store, id: &Self::Id, answers: &Answers) -> StoreResult<bool> {
        let json = serde_json::to_string(answers).map_err(anyhow::Error::from)?;
        store
            .answer_question(id, QuestionStatus::Answered, Some(&json))
            .await
    }
    fn decided(id: &Self::Id, answers: &Answers) -> EventPayload {
        EventPayload::QuestionAnswered {
            question_id: id.into(),
            answers: answers.clone(),
            reason: None,
        }
    }
}

/// Check answers against their questions.
pub fn validate_answers(
    questions: &[Question],
    answers: &[Option<Vec<String>>],
) -> Result<(), String> {
    if answers.len() != questions.len() {
        return Err(format!(
            "expected {} answers (null to skip a question)",
            questions.len()
        ));
    }
    for (q, a) in questions.iter().zip(answers) {
        let Some(labels) = a else { continue };
        if labels.is_empty() || (!q.multi_select && labels.len() != 1) {
            let takes = if q.multi_select {
                "one or more options"
            } else {
                "exactly one option"
            };
            return Err(format!("question `{}` takes {takes}", q.question));
        }
        if let Some(l) = labels
            .iter()
            .find(|l| !q.options.iter().any(|o| &o.label == *l))
        {
            return Err(format!("`{l}` is not an option of `{}`", q.question));
        }
    }
    Ok(())
}

// ---- Plans ----

/// A plan decision and the feedback text that goes with `feedback`.
pub type PlanAnswer = (PlanDecision, Option<String>);

pub struct PlanRequest {
    pub row: PlanRow,
    pub event: EventPayload,
}

pub struct Plans;

impl PromptKind for Plans {
    type Request = PlanRequest;
    type Row = PlanRow;
    type Answer = PlanAnswer;
    type Id = crate::protocol::PlanId;
    const NAME: &'static str = "plan";
    const CLOSED: &'static str = "this plan was already decided";
    const KIND: crate::protocol::PromptKindName = crate::protocol::PromptKindName::Plan;

    fn summary(p: &PlanRequest) -> String {
        p.row
            .title
            .clone()
            .unwrap_or_else(|| "a plan to review".into())
    }

    async fn persist(store: &Store, p: &PlanRequest) -> StoreResult<()> {
        store.create_plan(&p.row).await
    }
    fn requested(p: &PlanRequest) -> EventPayload {
        p.event.clone()
    }
    async fn expire(store: &Store, id: &Self::Id) -> StoreResult<bool> {
        store
            .transition_plan(id, PlanStatus::Pending, PlanStatus::Skipped, None)
            .await
    }
    fn expired(p: &PlanRequest) -> EventPayload {
        Self::decided(&p.row.id, &(PlanDecision::Skipped, None))
    }
    async fn load(store: &Store, id: &Self::Id) -> StoreResult<PlanRow> {
        store.get_plan(id).await
    }
    fn owner(row: &PlanRow) -> (&crate::protocol::SessionId, &crate::protocol::RunId) {
        (&row.session_id, &row.run_id)
    }
    fn validate(_row: &PlanRow, (decision, feedback): &PlanAnswer) -> Result<(), String> {
        if *decision == PlanDecision::Unavailable {
            return Err("decision must be approved, feedback or skipped".into());
        }
        if *decision == PlanDecision::Feedback && feedback.is_none() {
            return Err("feedback needs its text in `feedback`".into());
        }
        if feedback
            .as_ref()
            .is_some_and(|f| f.chars().count() > 20_000)
        {
            return Err("feedback is longer than 20000 characters".into());
        }
        Ok(())
    }
    async fn decide(store: &Store, id: &Self::Id, (d, feedback): &PlanAnswer) -> StoreResult<bool> {
        store
            .transition_plan(
                id,
                PlanStatus::Pending,
                PlanStatus::from(*d),
                feedback.as_deref(),
            )
            .await
    }
    fn decided(id: &Self::Id, (decision, feedback): &PlanAnswer) -> EventPayload {
        EventPayload::PlanDecided {
            plan_id: id.into(),
            decision: *decision,
            feedback: feedback.clone(),
            reason: None,
        }
    }
}
