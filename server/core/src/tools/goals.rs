//! The goal tools, offered only while the session's goal is active: `get_goal` and
//! `update_goal` (see `crate::goals`).

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::goals::{MAX_DETAIL_CHARS, MAX_EVIDENCE, MAX_SUMMARY_CHARS, announce};
use crate::protocol::{Effect, Evidence, EvidenceKind, GoalReport, GoalStatus, UnverifiedEvidence};
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
        let mut unverified = Vec::new();
        let text = match call.status {
            Report::Complete => {
                g.status = GoalStatus::Complete;
                unverified = verify(ctx, &call.evidence).await;
                if unverified.is_empty() {
                    g.reason = Some("reported complete".into());
                    "The goal is recorded as complete, with your evidence. Finish your turn with a short summary for the user.".to_string()
                } else {
                    g.reason = Some("reported complete — evidence unverified".into());
                    let mut t = String::from(
                        "The goal is recorded as complete, but the user sees it as \"evidence unverified\": ",
                    );
                    for u in &unverified {
                        t.push_str(&format!("item {}: {}; ", u.index + 1, u.reason));
                    }
                    t.push_str("Finish your turn with a short summary for the user that says so.");
                    t
                }
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
            unverified,
        });
        g.reports = serde_json::to_string(&reports).unwrap_or_else(|_| "[]".into());
        if let Err(e) = deps.store.save_goal(&mut g).await {
            return ToolOutput::err("internal", e);
        }
        announce(&deps.events, Some(&g), session, repeats).await;
        ToolOutput::ok(text)
    }
}

/// How many of the session's last `tool_call` events a report's evidence is checked against.
const CALLS_CHECKED: i64 = 2000;

/// What of a `complete` report's evidence the server cannot confirm, running nothing: a `file`
/// must name an existing path in the session's roots, a `command` or `test` must match a
/// command this session ran (`shell`, `run_process`, `bg_run`, a `!command`).
async fn verify(ctx: &ToolCtx<'_>, evidence: &[Evidence]) -> Vec<UnverifiedEvidence> {
    let mut commands: Option<Vec<String>> = None;
    let mut out = Vec::new();
    for (index, e) in evidence.iter().enumerate() {
        let reason = match e.kind {
            EvidenceKind::File => file_unverified(ctx, &e.detail).await,
            EvidenceKind::Command | EvidenceKind::Test => {
                if commands.is_none() {
                    commands = Some(session_commands(ctx).await);
                }
                let ran = commands.as_deref().unwrap_or_default();
                (!matches_command(&e.detail, ran))
                    .then(|| "no command this session ran matches it".to_string())
            }
            _ => None,
        };
        if let Some(reason) = reason {
            out.push(UnverifiedEvidence { index, reason });
        }
    }
    out
}

/// The path a `file` item names: its first `quoted` part, else its first word, without a
/// `:line` suffix or trailing punctuation.
fn named_path(detail: &str) -> &str {
    let word = match detail.split('`').nth(1) {
        Some(q) if detail.matches('`').count() >= 2 && !q.trim().is_empty() => q.trim(),
        _ => detail.split_whitespace().next().unwrap_or(""),
    };
    let word = word.trim_end_matches([',', '.', ';', ')', '"', '\'']);
    let word = word.trim_start_matches(['(', '"', '\'']);
    // `src/lib.rs:42` or `src/lib.rs:42:7`.
    let mut p = word;
    for _ in 0..2 {
        if let Some((head, tail)) = p.rsplit_once(':')
            && !tail.is_empty()
            && tail.bytes().all(|b| b.is_ascii_digit())
        {
            p = head;
        }
    }
    p.trim_end_matches(':')
}

async fn file_unverified(ctx: &ToolCtx<'_>, detail: &str) -> Option<String> {
    let raw = named_path(detail);
    let path = match ctx.paths.lexical(raw) {
        Ok(p) => p,
        Err(e) => return Some(format!("names no path ({e})")),
    };
    if !ctx.paths.is_inside(&path) {
        return Some(format!("`{raw}` is outside the session's folders"));
    }
    if ctx.paths.denied_reason(&path).is_some() {
        return Some(format!("`{raw}` is a protected path"));
    }
    match tokio::fs::symlink_metadata(&path).await {
        Ok(_) => None,
        Err(_) => Some(format!("`{raw}` does not exist")),
    }
}

/// The commands this session's calls ran, whitespace collapsed.
async fn session_commands(ctx: &ToolCtx<'_>) -> Vec<String> {
    let session = &ctx.host.session().id;
    let rows = ctx
        .services()
        .store
        .events_of_type(session, "tool_call", CALLS_CHECKED)
        .await
        .unwrap_or_default();
    rows.iter()
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
        .filter_map(|v| {
            let input = &v["input"];
            let line = match v["tool"].as_str()? {
                "shell" | "bg_run" => input["command"].as_str()?.to_string(),
                "run_process" => input["argv"]
                    .as_array()?
                    .iter()
                    .filter_map(serde_json::Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => return None,
            };
            Some(squash(&line))
        })
        .filter(|c| !c.is_empty())
        .collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a `command`/`test` item names one of `ran`: the item holds the command, or the
/// command holds what the item quotes (or its text before a `:`, ` — ` or ` (`).
fn matches_command(detail: &str, ran: &[String]) -> bool {
    let d = squash(&detail.replace('`', " "));
    let mut cores: Vec<String> = Vec::new();
    if detail.matches('`').count() >= 2
        && let Some(q) = detail.split('`').nth(1)
    {
        cores.push(squash(q));
    }
    let cut = [": ", " — ", " - ", " (", " → ", " => "]
        .iter()
        .filter_map(|sep| d.find(sep))
        .min()
        .unwrap_or(d.len());
    cores.push(d[..cut].to_string());
    cores.retain(|c| c.chars().count() >= 2);
    ran.iter()
        .any(|c| d.contains(c.as_str()) || cores.iter().any(|k| c.contains(k.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_names_paths_and_commands() {
        assert_eq!(named_path("src/lib.rs:42 — the fix"), "src/lib.rs");
        assert_eq!(named_path("`docs/a b.md` updated"), "docs/a b.md");
        assert_eq!(named_path("(README.md),"), "README.md");
        assert_eq!(named_path("src/x.rs:3:9"), "src/x.rs");
        let ran = vec![
            "cd app && cargo test --all".to_string(),
            "npm run lint".into(),
        ];
        assert!(matches_command("cargo test --all: 12 passed", &ran));
        assert!(matches_command("ran `npm run lint` with no warnings", &ran));
        assert!(matches_command("npm run lint", &ran));
        assert!(!matches_command("pytest -q: 3 passed", &ran));
        assert!(!matches_command("x", &ran));
    }
}
