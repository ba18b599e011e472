//! The commands a client can give, one service each, used by the REST API and the WebSocket
//! alike: post a message, cancel a run, answer an approval, a question or a plan, change a
//! session (title, agent, mode, archive), create and delete sessions, set the provider. Each
//! validates its input, changes state, and records the events; the HTTP layer only extracts and
//! maps `ServiceError` to a status.

mod agents;
mod commands;
mod dirs;
pub mod files;
mod git;
mod goals;
mod mcp;
mod memory;
pub mod plugins;
mod provider;
mod review;
mod search;
mod sessions;
pub mod skills;
mod undo;
pub mod usage;
pub mod views;
mod websearch;
mod worktrees;

use std::sync::Arc;

use crate::agent::LoopEnv;

/// How a prompt was sent, beyond its text and images.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sent {
    /// The run's own limits on top of the server's start flags.
    pub limits: Option<crate::protocol::RunLimits>,
    pub delivery: crate::protocol::Delivery,
    /// The caller has the `admin` scope: a `!command` is the user's own (it passes the gate as
    /// `Origin::User`). Without it, it asks as a model's call would.
    pub by_admin: bool,
}
use crate::config::Config;
use crate::events::EventBus;
use crate::pending::{AnswerError, Answers, PlanAnswer};
use crate::protocol::{ApprovalDecision, RunStatus, RunTrigger};
use crate::runs::RunManager;
use crate::store::{SessionRow, Store, StoreError};

pub use provider::{DEFAULT_ID, SETTING_API_KEY, SETTING_PROVIDER, initial_providers};
pub use sessions::MAX_TITLE_CHARS;

/// Longest prompt accepted.
pub const MAX_PROMPT_CHARS: usize = 200_000;

/// Why a command was refused. `tradewind::error::ApiError` maps each to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// `{what} not found`.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The state does not allow it (already answered, archived, busy …).
    #[error("{0}")]
    Conflict(String),
    /// A conflict a client tells apart by its code (`session_busy`, `hand_edits` …).
    #[error("{message}")]
    Refused { code: &'static str, message: String },
    /// The input is well-formed but not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The model provider failed.
    #[error("{0}")]
    Upstream(String),
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> Self {
        ServiceError::Store(e)
    }
}

impl From<AnswerError> for ServiceError {
    fn from(e: AnswerError) -> Self {
        match e {
            AnswerError::NotFound(what) => ServiceError::NotFound(what),
            AnswerError::Invalid(m) => ServiceError::Invalid(m),
            AnswerError::Closed(m) => ServiceError::Conflict(m.to_string()),
            AnswerError::Store(e) => ServiceError::Store(e),
        }
    }
}

pub type ServiceResult<T> = Result<T, ServiceError>;

/// A store lookup whose `NotFound` names what was looked for.
pub trait OrNotFound<T> {
    fn or_not_found(self, what: &'static str) -> ServiceResult<T>;
}

impl<T> OrNotFound<T> for Result<T, StoreError> {
    fn or_not_found(self, what: &'static str) -> ServiceResult<T> {
        self.map_err(|e| match e {
            StoreError::NotFound => ServiceError::NotFound(what),
            other => ServiceError::Store(other),
        })
    }
}

/// The services over one store, one event log and one run scheduler.
#[derive(Clone)]
pub struct Core {
    pub cfg: Arc<Config>,
    pub store: Store,
    pub events: Arc<EventBus>,
    pub runs: Arc<RunManager>,
    /// What the runs use: the services reach the same handles.
    env: Arc<LoopEnv>,
    /// Each workspace's file list, for `@` mentions.
    files: Arc<crate::files::FileLists>,
}

pub use crate::util::{DEFAULT_TITLE, title_from_prompt};

/// A prompt's text checked, and what kind of run it makes (`!cmd` runs the command itself).
fn prompt_trigger(text: &str) -> ServiceResult<RunTrigger> {
    if text.trim().is_empty() {
        return Err(ServiceError::Invalid("text must not be empty".into()));
    }
    if text.chars().count() > MAX_PROMPT_CHARS {
        return Err(ServiceError::Invalid(format!(
            "text is longer than {MAX_PROMPT_CHARS} characters"
        )));
    }
    Ok(if text.starts_with('!') && text.len() > 1 {
        RunTrigger::Command
    } else {
        RunTrigger::Prompt
    })
}

impl Core {
    pub fn new(runs: Arc<RunManager>, env: Arc<LoopEnv>) -> Core {
        Core {
            cfg: env.cfg.clone(),
            store: env.store.clone(),
            events: env.events.clone(),
            runs,
            env,
            files: Arc::default(),
        }
    }

    /// The process sandbox commands run in.
    pub fn sandbox(&self) -> &crate::sandbox::SandboxHandle {
        &self.env.tools.sandbox
    }

    /// Background tasks.
    pub fn tasks(&self) -> &Arc<crate::tasks::TaskManager> {
        &self.env.tools.tasks
    }

    /// Images sent with prompts.
    pub fn attachments(&self) -> &crate::attachments::Attachments {
        &self.env.attachments
    }

    /// Web Push to closed apps (`None`: headless, or its key could not be read).
    pub fn push(&self) -> Option<&Arc<crate::push::Push>> {
        self.env.prompts.push.as_ref()
    }

    pub async fn load_session(&self, id: &crate::protocol::SessionId) -> ServiceResult<SessionRow> {
        self.store.get_session(id).await.or_not_found("session")
    }

    /// Queue a prompt (or a `!command`) on a session; returns the new run's id.
    pub async fn post_message(
        &self,
        session_id: &crate::protocol::SessionId,
        text: &str,
    ) -> ServiceResult<crate::protocol::RunId> {
        // Not known to come from an `admin` caller: a `!command` asks as a model's call.
        self.post_prompt(session_id, text, &[], Sent::default())
            .await
    }

    /// A prompt with images (pasted or dropped into the composer): each checked and stored
    /// before the run is queued, and only for a model that takes images.
    pub async fn post_prompt(
        &self,
        session_id: &crate::protocol::SessionId,
        text: &str,
        images: &[crate::protocol::ImageInput],
        sent: Sent,
    ) -> ServiceResult<crate::protocol::RunId> {
        let Sent {
            limits,
            delivery,
            by_admin,
        } = sent;
        let session = self.load_session(session_id).await?;
        if session.archived {
            return Err(ServiceError::Conflict(
                "the session is archived; unarchive it first".into(),
            ));
        }
        let trigger = prompt_trigger(text)?;
        let refs = self.store_images(&session, trigger, images).await?;
        // A `!command` is its own turn: steering is for words to the model.
        let steer = delivery == crate::protocol::Delivery::Steer && trigger == RunTrigger::Prompt;
        let extras = crate::scheduler::Extras {
            images: refs,
            limits,
            steer,
            by_admin,
        };
        let run_id = self
            .runs
            .enqueue_with_images(&session, trigger, text, extras)
            .await?;
        if session.title == DEFAULT_TITLE
            && trigger == RunTrigger::Prompt
            && let Some(title) = title_from_prompt(text)
        {
            // The first exchange names the session; a rename by the user always wins.
            let patch = crate::store::SessionPatch {
                title: Some(title),
                ..Default::default()
            };
            if let Ok(row) = self.store.update_session(session_id, &patch).await {
                self.events
                    .session_updated(&crate::protocol::Session::from(row))
                    .await;
            }
        }
        Ok(run_id)
    }

    async fn store_images(
        &self,
        session: &SessionRow,
        trigger: RunTrigger,
        images: &[crate::protocol::ImageInput],
    ) -> ServiceResult<Vec<crate::protocol::ImageRef>> {
        use crate::attachments::{Attachments, MAX_IMAGES};
        if images.is_empty() {
            return Ok(Vec::new());
        }
        if images.len() > MAX_IMAGES {
            return Err(ServiceError::Invalid(format!(
                "at most {MAX_IMAGES} images go with one prompt; this one has {}",
                images.len()
            )));
        }
        if trigger != RunTrigger::Prompt {
            return Err(ServiceError::Invalid(
                "images go with a prompt, not with a !command".into(),
            ));
        }
        let meta =
            crate::agent::context::ModelMeta::of(&self.env.provider, &self.cfg.models, session);
        if !meta.info.vision {
            let name = meta.name();
            return Err(ServiceError::Invalid(format!(
                "{name} does not take images: pick a model that does for this session, or set models.\"{name}\".vision to true in config.json if it does"
            )));
        }
        let mut checked = Vec::with_capacity(images.len());
        for (n, img) in images.iter().enumerate() {
            let bytes = Attachments::decode(img).map_err(|e| {
                let which = img.name.as_deref().map_or_else(
                    || format!("image {}", n + 1),
                    |name| format!("image {} ({name})", n + 1),
                );
                ServiceError::Invalid(format!("{which} {e}"))
            })?;
            checked.push((img.media_type, bytes, img.name.clone()));
        }
        let store = self.env.attachments.clone();
        tokio::task::spawn_blocking(move || {
            checked
                .iter()
                .map(|(t, b, name)| store.save(*t, b, name.as_deref()))
                .collect::<std::io::Result<Vec<_>>>()
        })
        .await
        .map_err(|e| crate::store::StoreError::Other(e.into()))?
        .map_err(|e| crate::store::StoreError::Other(e.into()).into())
    }

    /// Cancel a queued or running run; false when it had already ended. `drop_queue` also
    /// cancels every input queued behind it on the session.
    pub async fn cancel_run(
        &self,
        run_id: &crate::protocol::RunId,
        drop_queue: bool,
    ) -> ServiceResult<bool> {
        if drop_queue {
            let run = self.store.get_run(run_id).await.or_not_found("run")?;
            self.runs.drop_queue(&run.session_id).await;
        }
        self.runs.cancel(run_id).await.or_not_found("run")
    }

    /// Resume a run that stopped early (interrupted, cancelled, failed): a new run on its
    /// session that tells the model to go on from where it stopped. Only the session's latest
    /// run, and only when nothing else runs there.
    pub async fn resume_run(
        &self,
        run_id: &crate::protocol::RunId,
    ) -> ServiceResult<crate::protocol::RunId> {
        let run = self.store.get_run(run_id).await.or_not_found("run")?;
        if !matches!(
            run.status,
            RunStatus::Interrupted | RunStatus::Cancelled | RunStatus::Failed
        ) {
            return Err(ServiceError::Conflict(format!(
                "only a run that stopped early can be resumed; this one is {}",
                run.status.as_str()
            )));
        }
        let session = self.load_session(&run.session_id).await?;
        if !self
            .runs
            .settled(&session.id, std::time::Duration::from_secs(5))
            .await
        {
            return Err(ServiceError::Conflict(
                "the session is busy; resume when its run ends".into(),
            ));
        }
        // Later runs that ended before this one did (a message steered into it, an input
        // removed from the queue) never ran after it: they do not count.
        let ended_within = |r: &crate::store::RunRow| {
            r.finished_at
                .zip(run.finished_at)
                .is_some_and(|(theirs, ours)| theirs <= ours)
        };
        let later = self
            .store
            .list_session_runs(&session.id, 100)
            .await?
            .into_iter()
            .take_while(|r| r.id != run.id)
            .any(|r| !ended_within(&r));
        if later {
            return Err(ServiceError::Conflict(
                "a later run exists; only the latest run can be resumed".into(),
            ));
        }
        let why = match run.status {
            RunStatus::Interrupted => "the server stopped during it",
            RunStatus::Cancelled => "it was cancelled",
            _ => "it failed",
        };
        const REQUEST: &str = "The request was:\n\n";
        // Resuming a resume: quote the original request, not the previous instruction.
        let request = match run.trigger {
            RunTrigger::Resume => run
                .input
                .split_once(REQUEST)
                .map_or(run.input.as_str(), |(_, r)| r),
            _ => run.input.as_str(),
        };
        let text = format!(
            "Continue the previous task from where it stopped ({why}). Check what was already done (files, tool results above) before repeating anything, then finish it. {REQUEST}{request}"
        );
        Ok(self
            .runs
            .enqueue_on(&session, RunTrigger::Resume, &text)
            .await?)
    }

    /// What waits behind the session's active run.
    pub async fn queue(
        &self,
        session_id: &crate::protocol::SessionId,
    ) -> ServiceResult<Vec<crate::protocol::QueueItem>> {
        self.load_session(session_id).await?;
        Ok(self
            .runs
            .queue(session_id)
            .into_iter()
            .enumerate()
            .map(|(i, q)| crate::protocol::QueueItem {
                id: q.run_id,
                position: i as u32 + 1,
                trigger: q.trigger,
                text: q.text,
                queued_at: q.queued_at,
                delivery: if q.steer {
                    crate::protocol::Delivery::Steer
                } else {
                    crate::protocol::Delivery::Queue
                },
            })
            .collect())
    }

    /// Change a queued input's text before it starts; a conflict once it has started.
    pub async fn edit_queued(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
        text: &str,
    ) -> ServiceResult<()> {
        self.load_session(session_id).await?;
        let trigger = prompt_trigger(text)?;
        if self
            .runs
            .edit_queued(session_id, run_id, text, trigger)
            .await?
        {
            Ok(())
        } else {
            Err(self.not_queued(session_id, run_id).await)
        }
    }

    /// Remove a queued input (its run ends `cancelled`).
    pub async fn remove_queued(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
    ) -> ServiceResult<()> {
        self.load_session(session_id).await?;
        if self
            .runs
            .queue(session_id)
            .iter()
            .any(|q| q.run_id == *run_id)
        {
            self.runs.cancel(run_id).await.or_not_found("run")?;
            Ok(())
        } else {
            Err(self.not_queued(session_id, run_id).await)
        }
    }

    /// Why a run is not in the queue: unknown here (404), or already started or ended (409).
    async fn not_queued(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
    ) -> ServiceError {
        match self.store.get_run(run_id).await {
            Ok(r) if r.session_id == *session_id => ServiceError::Conflict(format!(
                "that input is no longer queued (its run is {})",
                r.status.as_str()
            )),
            _ => ServiceError::NotFound("queue item"),
        }
    }

    /// Answer an approval once; replays and late answers are a conflict.
    pub async fn answer_approval(
        &self,
        id: &crate::protocol::ApprovalId,
        decision: ApprovalDecision,
        reason: Option<&str>,
    ) -> ServiceResult<()> {
        let reason =
            crate::protocol::deny_reason(decision, reason).map_err(ServiceError::Invalid)?;
        let approvals = &self.env.prompts.approvals;
        let answer = crate::pending::ApprovalAnswer { decision, reason };
        Ok(approvals
            .answer(&self.store, &self.events, id, answer)
            .await?)
    }

    /// Answer an `ask_user_question` (`None` skips a question).
    pub async fn answer_question(
        &self,
        id: &crate::protocol::QuestionId,
        answers: Answers,
    ) -> ServiceResult<()> {
        let questions = &self.env.prompts.questions;
        Ok(questions
            .answer(&self.store, &self.events, id, answers)
            .await?)
    }

    /// The browser's render errors for a pending plan's diagrams: kept with the plan and told
    /// to the model with the decision, so it can fix the diagram.
    pub async fn report_render_errors(
        &self,
        plan_id: &crate::protocol::PlanId,
        errors: &[crate::protocol::RenderError],
    ) -> ServiceResult<()> {
        if errors.is_empty() || errors.len() > 10 {
            return Err(ServiceError::Invalid(
                "errors must hold 1 to 10 items".into(),
            ));
        }
        for e in errors {
            if e.diagram_id.is_empty() || e.diagram_id.chars().count() > 80 {
                return Err(ServiceError::Invalid(
                    "diagram_id must be 1 to 80 characters".into(),
                ));
            }
            if e.message.trim().is_empty() || e.message.chars().count() > 2000 {
                return Err(ServiceError::Invalid(
                    "message must be 1 to 2000 characters".into(),
                ));
            }
        }
        let plan = self.store.get_plan(plan_id).await.or_not_found("plan")?;
        let json = serde_json::to_string(errors)
            .map_err(|e| ServiceError::Invalid(format!("cannot encode the errors: {e}")))?;
        if !self.store.set_plan_render_errors(&plan.id, &json).await? {
            return Err(ServiceError::Conflict(
                "the plan is no longer waiting for a decision".into(),
            ));
        }
        Ok(())
    }

    /// Approve a plan, send feedback, or skip it.
    /// Decide a plan; an approval may also set the session's mode for the implementation. The
    /// mode is set first (the implementation turn starts from the session as it then is), and
    /// put back if the answer is refused (the plan was decided meanwhile).
    pub async fn decide_plan_in_mode(
        &self,
        id: &crate::protocol::PlanId,
        answer: PlanAnswer,
        mode: Option<crate::protocol::Mode>,
    ) -> ServiceResult<()> {
        let Some(mode) = mode else {
            return self.decide_plan(id, answer).await;
        };
        if answer.0 != crate::protocol::PlanDecision::Approved {
            return Err(ServiceError::Invalid(
                "`mode` goes with `approved` only".into(),
            ));
        }
        let plan = self.store.get_plan(id).await.or_not_found("plan")?;
        if plan.status != crate::store::PlanStatus::Pending {
            return Err(ServiceError::Conflict(
                "this plan was already decided".into(),
            ));
        }
        let before = self.load_session(&plan.session_id).await?.mode;
        self.set_mode(&plan.session_id, mode).await?;
        let decided = self.decide_plan(id, answer).await;
        if decided.is_err()
            && let Err(e) = self.set_mode(&plan.session_id, before).await
        {
            tracing::warn!(error = %e, "cannot put the session's mode back");
        }
        decided
    }

    pub async fn decide_plan(
        &self,
        id: &crate::protocol::PlanId,
        answer: PlanAnswer,
    ) -> ServiceResult<()> {
        let (decision, feedback) = answer;
        let feedback = feedback
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty());
        let plans = &self.env.prompts.plans;
        Ok(plans
            .answer(&self.store, &self.events, id, (decision, feedback))
            .await?)
    }
}

#[cfg(test)]
mod title_tests {
    use super::title_from_prompt;

    #[test]
    fn titles_from_first_prompts() {
        assert_eq!(
            title_from_prompt("  fix the `login` bug\nmore").as_deref(),
            Some("fix the login bug")
        );
        assert_eq!(
            title_from_prompt("# Add a cache\n\ndetails").as_deref(),
            Some("Add a cache")
        );
        assert_eq!(title_from_prompt("```\ncode\n```"), Some("code".into()));
        assert_eq!(title_from_prompt("   \n  "), None);
        let long = "Refactor the session store so that every query goes through one typed row layer and nothing else";
        let t = title_from_prompt(long).unwrap_or_default();
        assert!(t.ends_with('…') && t.chars().count() <= 61, "{t}");
        assert!(t.starts_with("Refactor the session store"), "{t}");
    }
}
