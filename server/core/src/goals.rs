//! Working towards a goal: while a session's goal is
//! active and budget remains, a new turn starts by itself after each one (trigger `goal`). The
//! model has two tools and nothing else: `get_goal` reads it, `update_goal` reports it
//! `complete` (with evidence) or `blocked` (repeated with new evidence on consecutive turns
//! before it stops; a `denied` piece of evidence stops it at once). Pausing, resuming, editing,
//! budgets and deleting are the user's alone (the API).

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::events::EventBus;
use crate::protocol::{EventPayload, GoalStatus, RunStatus, RunTrigger};
use crate::scheduler::{AfterRun, EndedRun, OnIdle, RunQueue};
use crate::store::{GoalRow, Store, StoreResult};

pub const DEFAULT_TURNS: i64 = 50;
pub const DEFAULT_MINUTES: i64 = 120;
pub const DEFAULT_TOKENS: i64 = 2_000_000;
pub const MAX_EVIDENCE: usize = 20;
/// Longest piece of evidence, and summary, in a report.
pub const MAX_DETAIL_CHARS: usize = 2_000;
pub const MAX_SUMMARY_CHARS: usize = 4_000;

/// What the model reads at the start of each goal turn.
pub fn continuation(g: &GoalRow) -> String {
    format!(
        "Keep working towards the goal: {}\n\nBudget left: {} turns, {} tokens, {} minutes. When it is done, call update_goal with status complete, a summary and evidence (files, tests, logs, commands). If you cannot go on, call update_goal with status blocked and evidence of what stops you.",
        g.objective,
        (g.budget_turns - g.used_turns).max(0),
        (g.budget_tokens - g.used_tokens).max(0),
        ((g.budget_minutes * 60_000 - g.used_ms).max(0)) / 60_000,
    )
}

/// Post the goal's new state to the session's stream.
pub async fn announce(
    events: &crate::events::EventBus,
    g: Option<&GoalRow>,
    session: &crate::protocol::SessionId,
    repeats: i64,
) {
    let p = EventPayload::GoalUpdated {
        goal: g.map(|g| g.view(repeats)),
    };
    let _ = events.append(session, None, &p).await;
}

/// After each run begun while the session's goal was active: its use is counted, a turn that
/// did not repeat `blocked` clears the streak, a spent budget stops the goal, a stopped or
/// failed run pauses it; while it stays active and nothing else waits in the session's queue,
/// its next turn starts by itself. An after-run hook of the scheduler's (after the plan's).
pub struct Continuation {
    pub store: Store,
    pub events: Arc<EventBus>,
    /// Shared with the goal tools and the goal API: one change of a goal at a time.
    pub lock: Arc<tokio::sync::Mutex<()>>,
    /// How many consecutive `blocked` reports stop the goal.
    pub blocked_repeats: i64,
    pub queue: RunQueue,
}

impl AfterRun for Continuation {
    fn after_run<'a>(&'a self, run: &'a EndedRun<'a>) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if !run.goal_active {
                return;
            }
            let tokens = run.end.usage.input_tokens + run.end.usage.output_tokens;
            let next = self
                .account(
                    run.session_id,
                    run.trigger,
                    run.end.status,
                    tokens,
                    run.end.duration_ms,
                )
                .await;
            let text = match next {
                Ok(Some(text)) => text,
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot account the run to the session's goal");
                    return;
                }
            };
            if self.queue.queued(run.session_id) || self.queue.stopping() {
                return;
            }
            let queued = match self.store.get_session(run.session_id).await {
                Ok(session) => self
                    .queue
                    .enqueue(&session, RunTrigger::Goal, &text)
                    .await
                    .map(drop),
                Err(e) => Err(e),
            };
            if let Err(e) = queued {
                tracing::warn!(error = %e, "cannot start the goal's next turn");
            }
        })
    }
}

impl Continuation {
    /// Count a finished run against the goal; the continuation prompt when another goal turn
    /// should start.
    async fn account(
        &self,
        session: &crate::protocol::SessionId,
        trigger: RunTrigger,
        status: RunStatus,
        tokens: u64,
        duration_ms: u64,
    ) -> StoreResult<Option<String>> {
        let _held = self.lock.lock().await;
        let Some(mut g) = self.store.get_goal(session).await? else {
            return Ok(None);
        };
        // A turn that ended the goal with a report still counts.
        let reported_now = g
            .reports()
            .last()
            .is_some_and(|r| r.turn == g.used_turns + 1)
            && matches!(g.status, GoalStatus::Complete | GoalStatus::Blocked);
        if !(g.status == GoalStatus::Active || reported_now) || trigger == RunTrigger::Compact {
            return Ok(None);
        }
        g.used_turns += 1;
        g.used_tokens = g.used_tokens.saturating_add(tokens as i64);
        g.used_ms = g.used_ms.saturating_add(duration_ms as i64);
        if g.last_blocked_turn != g.used_turns {
            g.blocked_streak = 0;
        }
        match status {
            _ if g.status != GoalStatus::Active => {}
            RunStatus::Completed => {
                if let Some(what) = g.exhausted() {
                    g.status = GoalStatus::BudgetExhausted;
                    g.reason = Some(format!(
                        "the {what} budget ran out: raise it and resume to go on"
                    ));
                }
            }
            RunStatus::Cancelled | RunStatus::Interrupted => {
                g.status = GoalStatus::Paused;
                g.reason = Some("a run of the goal was stopped: resume to go on".into());
            }
            RunStatus::Failed => {
                g.status = GoalStatus::Paused;
                g.reason = Some("a run of the goal failed: resume to try again".into());
            }
            RunStatus::Queued | RunStatus::Running => {}
        }
        self.store.save_goal(&mut g).await?;
        announce(&self.events, Some(&g), session, self.blocked_repeats).await;
        Ok((g.status == GoalStatus::Active).then(|| continuation(&g)))
    }
}

/// A goal set or resumed while its session was busy: its next turn starts when the session's
/// queue runs dry, if the goal is still active then. An idle hook of the scheduler's.
pub struct GoalTurns {
    pub store: Store,
}

impl OnIdle for GoalTurns {
    fn on_idle<'a>(
        &'a self,
        session: &'a crate::protocol::SessionId,
        queue: &'a RunQueue,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let g = match self.store.get_goal(session).await {
                Ok(Some(g)) if g.status == GoalStatus::Active => g,
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read the session's goal");
                    return;
                }
            };
            let queued = match self.store.get_session(session).await {
                Ok(row) => queue
                    .enqueue(&row, RunTrigger::Goal, &continuation(&g))
                    .await
                    .map(drop),
                Err(e) => Err(e),
            };
            if let Err(e) = queued {
                tracing::warn!(error = %e, "cannot start the goal's next turn");
            }
        })
    }
}

/// Whether the session has an active goal (its tools are offered only then).
pub async fn active(store: &Store, session: &crate::protocol::SessionId) -> bool {
    matches!(
        store.get_goal(session).await,
        Ok(Some(g)) if g.status == GoalStatus::Active
    )
}
