//! The goal tools, offered only while the session's goal is active: `get_goal` and
//! `update_goal` (see `crate::goals`).

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::goals::{MAX_DETAIL_CHARS, MAX_EVIDENCE, MAX_SUMMARY_CHARS, announce};
use crate::protocol::{Effect, Evidence, EvidenceKind, GoalReport, GoalStatus};
use crate::util::now_ms;

/// `get_goal`: the objective, its status and what remains of each budget.
pub struct GetGoal;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl super::Tool for GetGoal {
    const NAME: &'static str = "get_goal";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Read the session's goal: the objective, its status, and what remains of its turn, token and time budgets, with your earlier reports.";
    const NESTED: bool = false;
    type Args = NoArgs;
    type Call = ();

    fn prepare(_: NoArgs, _: &crate::policy::paths::PathPolicy) -> Result<Gated<()>, PrepareError> {
        Ok(Gated::plain(()))
    }

    async fn run((): (), ctx: &ToolCtx<'_>) -> ToolOutput {
        let deps = ctx.services();
        match deps.store.get_goal(&ctx.host.session().id).await {
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

impl super::Tool for UpdateGoal {
    const NAME: &'static str = "update_goal";
    const EFFECT: Effect = Effect::Internal;
    const DESCRIPTION: &'static str = "Report the session's goal `complete` (with a summary and 1 to 20 pieces of evidence: files, tests, logs, commands that show it is done) or `blocked` (with evidence of what stops you). A blocked report must be repeated with new evidence on the next turn before the goal stops; evidence of kind `denied` (a permission was refused) stops it at once. Only works while the goal is active.";
    const NESTED: bool = false;
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
        let deps = ctx.services();
        let session = &ctx.host.session().id;
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
