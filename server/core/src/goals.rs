//! Working towards a goal (seed 000, "Trabajar hacia un objetivo"): while a session's goal is
//! active and budget remains, a new turn starts by itself after each one (trigger `goal`). The
//! model has two tools and nothing else: `get_goal` reads it, `update_goal` reports it
//! `complete` (with evidence) or `blocked` (repeated with new evidence on consecutive turns
//! before it stops; a `denied` piece of evidence stops it at once). Pausing, resuming, editing,
//! budgets and deleting are the user's alone (the API).

use crate::protocol::{
    Effect, EventPayload, Evidence, EvidenceKind, GoalReport, GoalStatus, RunStatus, RunTrigger,
};
use crate::store::{GoalRow, Store, StoreResult};
use crate::tools::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::util::now_ms;

pub const DEFAULT_TURNS: i64 = 50;
pub const DEFAULT_MINUTES: i64 = 120;
pub const DEFAULT_TOKENS: i64 = 2_000_000;
pub const MAX_EVIDENCE: usize = 20;
const MAX_DETAIL_CHARS: usize = 2_000;
const MAX_SUMMARY_CHARS: usize = 4_000;

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
    session: &str,
    repeats: i64,
) {
    let p = EventPayload::GoalUpdated {
        goal: g.map(|g| g.view(repeats)),
    };
    let _ = events.append(session, None, &p).await;
}

/// What a finished run means for the session's goal: its use is counted, a turn that did not
/// repeat `blocked` clears the streak, a spent budget stops it, a stopped or failed run pauses
/// it. Returns the continuation prompt when another goal turn should start.
pub async fn after_run(
    deps: &crate::agent::AgentDeps,
    session: &str,
    trigger: RunTrigger,
    status: RunStatus,
    tokens: u64,
    duration_ms: u64,
) -> StoreResult<Option<String>> {
    let _held = deps.goal_lock.lock().await;
    let Some(mut g) = deps.store.get_goal(session).await? else {
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
    deps.store.save_goal(&mut g).await?;
    let repeats = deps.cfg.goal.blocked_repeats();
    announce(&deps.events, Some(&g), session, repeats).await;
    Ok((g.status == GoalStatus::Active).then(|| continuation(&g)))
}

/// Whether the session has an active goal (its tools are offered only then).
pub async fn active(store: &Store, session: &str) -> bool {
    matches!(
        store.get_goal(session).await,
        Ok(Some(g)) if g.status == GoalStatus::Active
    )
}

/// `get_goal`: the objective, its status and what remains of each budget.
pub struct GetGoal;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl crate::tools::Tool for GetGoal {
    const NAME: &'static str = "get_goal";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Read the session's goal: the objective, its status, and what remains of its turn, token and time budgets, with your earlier reports.";
    type Args = NoArgs;
    type Call = ();

    fn prepare(_: NoArgs, _: &crate::policy::paths::PathPolicy) -> Result<Gated<()>, PrepareError> {
        Ok(Gated::plain(()))
    }

    async fn run((): (), ctx: &ToolCtx<'_>) -> ToolOutput {
        let deps = ctx.turn.deps;
        match deps.store.get_goal(&ctx.turn.run.session.id).await {
            Ok(Some(g)) => {
                let mut v = g.view(deps.cfg.goal.blocked_repeats());
                // The model reads what is left; the current turn counts as started.
                v.budget.used_turns += 1;
                ToolOutput::json(&v)
            }
            Ok(None) => ToolOutput::err("no_goal", "this session has no goal"),
            Err(e) => ToolOutput::err("internal", e),
        }
    }
}

/// `update_goal`: report the goal complete or blocked.
pub struct UpdateGoal;

/// What `update_goal` may report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Report {
    Complete,
    Blocked,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateGoalArgs {
    /// `complete` (done: needs evidence) or `blocked` (cannot go on).
    pub status: Report,
    /// What was achieved, or what stops you (1 to 4,000 characters).
    pub summary: String,
    /// 1 to 20 items: `file` (a path), `test` (a test run), `log` (a log line), `command` (a
    /// command and its result), `denied` (a permission was denied), `other`.
    #[schemars(length(min = 1, max = 20))]
    pub evidence: Vec<Evidence>,
}

/// A checked report.
pub struct ReportCall {
    status: Report,
    summary: String,
    evidence: Vec<Evidence>,
}

impl crate::tools::Tool for UpdateGoal {
    const NAME: &'static str = "update_goal";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Report the session's goal `complete` (with a summary and 1 to 20 pieces of evidence: files, tests, logs, commands that show it is done) or `blocked` (with evidence of what stops you). A blocked report must be repeated with new evidence on the next turn before the goal stops; evidence of kind `denied` (a permission was refused) stops it at once. Only works while the goal is active.";
    type Args = UpdateGoalArgs;
    type Call = ReportCall;

    fn prepare(
        a: UpdateGoalArgs,
        _: &crate::policy::paths::PathPolicy,
    ) -> Result<Gated<ReportCall>, PrepareError> {
        let summary = a.summary.trim().to_string();
        if summary.is_empty() || summary.chars().count() > MAX_SUMMARY_CHARS {
            return Err(PrepareError::Input(format!(
                "summary must be 1 to {MAX_SUMMARY_CHARS} characters"
            )));
        }
        if a.evidence.is_empty() {
            return Err(PrepareError::Input(match a.status {
                Report::Complete => "complete needs evidence: 1 to 20 items (files, tests, logs, commands) that show the goal is done".into(),
                Report::Blocked => "blocked needs evidence: 1 to 20 items that show what stops you".into(),
            }));
        }
        if a.evidence.len() > MAX_EVIDENCE {
            return Err(PrepareError::Input(format!(
                "at most {MAX_EVIDENCE} pieces of evidence"
            )));
        }
        let mut evidence = Vec::with_capacity(a.evidence.len());
        for e in a.evidence {
            let detail = e.detail.trim().to_string();
            if detail.is_empty() || detail.chars().count() > MAX_DETAIL_CHARS {
                return Err(PrepareError::Input(format!(
                    "each piece of evidence needs a detail of 1 to {MAX_DETAIL_CHARS} characters"
                )));
            }
            evidence.push(Evidence {
                kind: e.kind,
                detail,
            });
        }
        Ok(Gated::plain(ReportCall {
            status: a.status,
            summary,
            evidence,
        }))
    }

    async fn run(call: ReportCall, ctx: &ToolCtx<'_>) -> ToolOutput {
        let deps = ctx.turn.deps;
        let session = &ctx.turn.run.session.id;
        let _held = deps.goal_lock.lock().await;
        let mut g = match deps.store.get_goal(session).await {
            Ok(Some(g)) if g.status == GoalStatus::Active => g,
            Ok(Some(g)) => {
                return ToolOutput::err(
                    "goal_not_active",
                    format!(
                        "the goal is {}: only the user can change that",
                        g.status.as_str()
                    ),
                );
            }
            Ok(None) => return ToolOutput::err("no_goal", "this session has no goal"),
            Err(e) => return ToolOutput::err("internal", e),
        };
        let repeats = deps.cfg.goal.blocked_repeats();
        let turn = g.used_turns + 1;
        let mut reports = g.reports();
        let text = match call.status {
            Report::Complete => {
                g.status = GoalStatus::Complete;
                g.reason = Some("reported complete".into());
                "The goal is recorded as complete, with your evidence. Finish your turn with a short summary for the user.".to_string()
            }
            Report::Blocked => {
                let previous = reports
                    .iter()
                    .rev()
                    .find(|r| r.status == GoalStatus::Blocked);
                if g.last_blocked_turn == turn - 1
                    && previous.is_some_and(|p| p.evidence == call.evidence)
                {
                    return ToolOutput::err(
                        "same_evidence",
                        "a repeated blocked report needs new evidence (what you tried since)",
                    );
                }
                if g.last_blocked_turn != turn {
                    g.blocked_streak = if g.last_blocked_turn == turn - 1 {
                        g.blocked_streak + 1
                    } else {
                        1
                    };
                }
                g.last_blocked_turn = turn;
                let denied = call.evidence.iter().any(|e| e.kind == EvidenceKind::Denied);
                if denied || g.blocked_streak >= repeats {
                    g.status = GoalStatus::Blocked;
                    g.reason = Some(if denied {
                        "blocked: a permission was denied".into()
                    } else {
                        format!("blocked on {} consecutive turns", g.blocked_streak)
                    });
                    "The goal stops as blocked; the user sees your summary and evidence. Finish your turn saying what you need from them.".to_string()
                } else {
                    format!(
                        "Blocked reported ({} of {repeats}). If the next turn reports blocked again with new evidence, the goal stops; otherwise it goes on. Try another way if there is one.",
                        g.blocked_streak
                    )
                }
            }
        };
        reports.push(GoalReport {
            status: match call.status {
                Report::Complete => GoalStatus::Complete,
                Report::Blocked => GoalStatus::Blocked,
            },
            summary: call.summary,
            evidence: call.evidence,
            turn,
            at: now_ms(),
        });
        g.reports = serde_json::to_string(&reports).unwrap_or_else(|_| "[]".into());
        if let Err(e) = deps.store.save_goal(&mut g).await {
            return ToolOutput::err("internal", e);
        }
        announce(&deps.events, Some(&g), session, repeats).await;
        ToolOutput::ok(text)
    }
}
