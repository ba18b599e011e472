//! Tools that wait for the person: `ask_user_question` waits for answers, `exit_plan` publishes
//! a plan revision and waits for the review decision. Both go through the one pending-prompt
//! broker and always return a tool result (never a hanging call): a timeout, a cancelled run or
//! a closed page count as expired / skipped.

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::pending::{Asked, PlanRequest, QuestionRequest};
use crate::plan::{self, ExitPlanArgs, MAX_PLAN_CHARS};
use crate::policy::paths::PathPolicy;
use crate::protocol::{Agent, Effect, EventPayload, PlanDecision, Question};
use crate::store::{PlanRow, PlanStatus};
use crate::util::{new_id, now_ms};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// 1 to 4 questions.
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<Question>,
}

/// Check the questions of an `ask_user_question` call beyond their shape.
pub fn validate_questions(questions: &[Question]) -> Result<(), String> {
    if !(1..=4).contains(&questions.len()) {
        return Err("ask 1 to 4 questions".into());
    }
    for q in questions {
        if q.question.trim().is_empty() || q.question.chars().count() > 1000 {
            return Err("each question needs 1 to 1000 characters of text".into());
        }
        if !(2..=4).contains(&q.options.len()) {
            return Err(format!("question `{}` needs 2 to 4 options", q.question));
        }
        if q.options.iter().filter(|o| o.recommended).count() > 1 {
            return Err(format!(
                "question `{}` marks more than one option recommended",
                q.question
            ));
        }
        let mut labels: Vec<&str> = q.options.iter().map(|o| o.label.trim()).collect();
        if labels
            .iter()
            .any(|l| l.is_empty() || l.chars().count() > 200)
        {
            return Err("option labels need 1 to 200 characters".into());
        }
        labels.sort_unstable();
        labels.dedup();
        if labels.len() != q.options.len() {
            return Err(format!("question `{}` repeats an option label", q.question));
        }
    }
    Ok(())
}

pub struct AskUserQuestion;

impl super::Tool for AskUserQuestion {
    const NAME: &'static str = "ask_user_question";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "Ask the user 1 to 4 multiple-choice questions (2 to 4 options each, at most one marked recommended) when there is a real fork in the approach. Waits for the answers.";
    const INTERACTIVE_ONLY: bool = true;
    const HOST: bool = true;
    const NESTED: bool = false;
    type Args = AskArgs;
    type Call = Vec<Question>;

    fn prepare(a: AskArgs, _: &PathPolicy) -> Result<Gated<Vec<Question>>, PrepareError> {
        validate_questions(&a.questions).map_err(PrepareError::Input)?;
        Ok(Gated::plain(a.questions))
    }

    async fn run(questions: Vec<Question>, ctx: &ToolCtx<'_>) -> ToolOutput {
        let t = ctx.host;
        let services = ctx.services();
        if !t.interactive() {
            return ToolOutput::err(
                "no_interactive_ui",
                "nobody can answer questions in this run; ask your question in plain text in your answer instead",
            );
        }
        let pending = &services.prompts.questions;
        let call_id = crate::protocol::CallId::from(ctx.call_id);
        // Waited on before the server restarted: the same questions, waited on again.
        let (asked, questions) = match pending.adopt(t.run_id(), &call_id, "") {
            Some(p) => {
                let stored = services
                    .store
                    .get_question(&p.id)
                    .await
                    .ok()
                    .and_then(|row| serde_json::from_str(&row.questions).ok());
                (
                    pending.resume(&t.waiter(), p).await,
                    stored.unwrap_or(questions),
                )
            }
            None => {
                let id = crate::protocol::QuestionId::from(new_id());
                let req = QuestionRequest {
                    id: id.clone(),
                    session_id: t.session().id.clone(),
                    run_id: t.run_id().into(),
                    call_id,
                    questions,
                };
                (pending.ask(&t.waiter(), &id, &req).await, req.questions)
            }
        };
        let answers = match asked {
            Asked::Answered(a) => a,
            Asked::Expired => {
                return ToolOutput::err(
                    "no_answer",
                    "the user did not answer; continue with your best judgement or ask in plain text",
                );
            }
            Asked::Failed(e) => return ToolOutput::err("internal", e),
        };
        let mut text = String::from("The user answered:\n");
        for (q, a) in questions.iter().zip(&answers) {
            match a {
                Some(labels) => {
                    text.push_str(&format!("- {} → {}\n", q.question, labels.join(", ")))
                }
                None => text.push_str(&format!("- {} → (skipped)\n", q.question)),
            }
        }
        ToolOutput::ok(text)
    }
}

pub struct ExitPlan;

impl super::Tool for ExitPlan {
    const NAME: &'static str = "exit_plan";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "Deliver your plan for review: Markdown (up to 60000 characters), an optional title, and up to 5 optional Mermaid diagrams {id (kebab-case), title, explanation, section (the plan heading it illustrates), type (overview|flow|components|architecture|sequence|data|state|other), mermaid}. Diagrams: flowchart/graph, sequenceDiagram, stateDiagram(-v2), erDiagram, classDiagram, gantt, mindmap, timeline or journey; at most 8 KB and about 40 nodes; no click/link/callback, href, URLs, HTML tags or %%{init}. Returns the user's decision.";
    const ONLY_AGENT: Option<Agent> = Some(Agent::Plan);
    const HOST: bool = true;
    const NESTED: bool = false;
    const IN_SUBAGENTS: bool = false;
    type Args = ExitPlanArgs;
    type Call = ExitPlanArgs;

    fn prepare(a: ExitPlanArgs, _: &PathPolicy) -> Result<Gated<ExitPlanArgs>, PrepareError> {
        if a.plan.trim().is_empty() || a.plan.chars().count() > MAX_PLAN_CHARS {
            return Err(PrepareError::Input(format!(
                "`plan` must be 1 to {MAX_PLAN_CHARS} characters of Markdown"
            )));
        }
        Ok(Gated::plain(a))
    }

    async fn run(args: ExitPlanArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        let t = ctx.host;
        let services = ctx.services();
        if t.agent() != Agent::Plan {
            return ToolOutput::err(
                "permission_denied",
                "exit_plan is only available to the plan agent",
            );
        }
        let (plan_id, artifact_id, rev, asked) = match resumed_plan(ctx).await {
            Some(resumed) => resumed,
            None => match propose(&args, ctx).await {
                Ok(proposed) => proposed,
                Err(out) => return out,
            },
        };
        let (decision, feedback) = match asked {
            Asked::Answered(a) => a,
            Asked::Expired => (PlanDecision::Skipped, None),
            Asked::Failed(e) => return ToolOutput::err("internal", e),
        };
        // What the browser could not draw reaches the model with the decision.
        let render_errors = services
            .store
            .get_plan(&plan_id)
            .await
            .ok()
            .and_then(|p| p.render_errors);
        let mut text = decision_text(decision, feedback, &artifact_id, &rev);
        if let Some(errs) = render_errors {
            text.push_str(&format!(
                "diagrams.render_errors: {errs}\nThese diagrams failed to render in the user's browser; fix them in the next revision (quote node labels that contain (), [] or {{}}, e.g. A[\"f(x)\"]).\n"
            ));
        }
        ToolOutput::ok(text)
    }
}

/// What exit_plan tells the model about the review.
/// A plan a run's call was waiting on when the server restarted: the same plan, waited on again.
async fn resumed_plan(
    ctx: &ToolCtx<'_>,
) -> Option<(
    crate::protocol::PlanId,
    String,
    plan::PlanRevision,
    Asked<crate::pending::PlanAnswer>,
)> {
    let t = ctx.host;
    let services = ctx.services();
    let plans = &services.prompts.plans;
    let p = plans.adopt(t.run_id(), &ctx.call_id.into(), "")?;
    let row = services.store.get_plan(&p.id).await.ok();
    let artifact = match &row {
        Some(r) => services.store.get_artifact(&r.artifact_id).await.ok(),
        None => None,
    };
    let rev: Option<plan::PlanRevision> = artifact.and_then(|a| serde_json::from_str(&a.meta).ok());
    let (Some(row), Some(rev)) = (row, rev) else {
        // Unreadable now: expired, and the call asks anew.
        plans.expire_parked(&t.waiter(), p).await;
        return None;
    };
    let id = p.id.clone();
    let asked = plans.resume(&t.waiter(), p).await;
    Some((id, row.artifact_id.to_string(), rev, asked))
}

/// Publish the plan and ask the user to decide on it.
async fn propose(
    args: &ExitPlanArgs,
    ctx: &ToolCtx<'_>,
) -> Result<
    (
        crate::protocol::PlanId,
        String,
        plan::PlanRevision,
        Asked<crate::pending::PlanAnswer>,
    ),
    ToolOutput,
> {
    let t = ctx.host;
    let services = ctx.services();
    let cfg = &services.cfg;
    let root = cfg.state_dir.join("artifacts");
    let published = plan::publish(
        &services.store,
        &root,
        &t.session().id,
        args,
        cfg.plan.max_diagrams,
    )
    .await;
    let (artifact, rev) = match published {
        Ok(x) => x,
        Err(e) => {
            return Err(ToolOutput::err(
                "internal",
                format!("cannot publish the plan: {e}"),
            ));
        }
    };
    let plan_id = crate::protocol::PlanId::from(new_id());
    let row = PlanRow {
        id: plan_id.clone(),
        session_id: t.session().id.clone(),
        run_id: t.run_id().into(),
        call_id: ctx.call_id.into(),
        artifact_id: artifact.id.clone(),
        revision: rev.revision,
        title: rev.title.clone(),
        hash: rev.hash.clone(),
        status: PlanStatus::Pending,
        feedback: None,
        created_at: now_ms(),
        decided_at: None,
        render_errors: None,
    };
    // Its answers reply to the comments on earlier revisions.
    for a in &rev.answers {
        crate::comments::answer(
            &services.store,
            &services.events,
            &t.session().id,
            &a.comment,
            &a.text,
        )
        .await;
    }
    let event = EventPayload::PlanProposed {
        plan_id: plan_id.clone(),
        artifact_id: artifact.id.clone(),
        call_id: ctx.call_id.into(),
        revision: rev.clone(),
    };
    let req = PlanRequest { row, event };
    let plans = &services.prompts.plans;
    let asked = if !t.interactive() || cfg.read_only {
        let unavailable = (PlanDecision::Unavailable, None);
        match plans
            .settle_at_once(&t.waiter(), &plan_id, &req, unavailable)
            .await
        {
            Ok(a) => Asked::Answered(a),
            Err(e) => Asked::Failed(e),
        }
    } else {
        plans.ask(&t.waiter(), &plan_id, &req).await
    };
    Ok((plan_id, artifact.id.to_string(), rev, asked))
}

fn decision_text(
    decision: PlanDecision,
    feedback: Option<String>,
    artifact_id: &str,
    rev: &plan::PlanRevision,
) -> String {
    let mut text = format!("decision: {}\n{}\n", decision.as_str(), decision.message());
    if let Some(f) = feedback.filter(|f| !f.trim().is_empty()) {
        text.push_str(&format!("feedback: {f}\n"));
    }
    text.push_str(&format!(
        "plan: artifact {artifact_id} revision {} (hash {})\n",
        rev.revision, rev.hash
    ));
    let accepted: Vec<&str> = rev.diagrams.iter().map(|d| d.id.as_str()).collect();
    text.push_str(&format!("diagrams.accepted: {}\n", json(&accepted)));
    text.push_str(&format!("diagrams.dropped: {}\n", json(&rev.dropped)));
    text.push_str(&format!("diagrams.removed: {}\n", json(&rev.removed)));
    text
}

/// Compact JSON for one line of a tool result.
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pending::validate_answers;
    use serde_json::json;

    fn questions(v: serde_json::Value) -> Result<Vec<Question>, String> {
        let a: AskArgs = serde_json::from_value(v).map_err(|e| e.to_string())?;
        validate_questions(&a.questions)?;
        Ok(a.questions)
    }

    #[test]
    fn question_rules() {
        let ok = json!({"questions": [{"question": "Which DB?", "options": [{"label": "SQLite", "recommended": true}, {"label": "Postgres"}]}]});
        let qs = questions(ok).unwrap_or_default();
        assert_eq!(qs.len(), 1);
        for bad in [
            json!({"questions": []}),
            json!({"questions": [{"question": "q", "options": [{"label": "only"}]}]}),
            json!({"questions": [{"question": "q", "options": [{"label": "a", "recommended": true}, {"label": "b", "recommended": true}]}]}),
            json!({"questions": [{"question": "q", "options": [{"label": "a"}, {"label": "a"}]}]}),
            json!({"questions": [{"question": "", "options": [{"label": "a"}, {"label": "b"}]}]}),
        ] {
            assert!(questions(bad.clone()).is_err(), "{bad}");
        }
        assert!(validate_answers(&qs, &[Some(vec!["SQLite".into()])]).is_ok());
        assert!(validate_answers(&qs, &[None]).is_ok());
        assert!(validate_answers(&qs, &[Some(vec!["MySQL".into()])]).is_err());
        assert!(validate_answers(&qs, &[Some(vec!["SQLite".into(), "Postgres".into()])]).is_err());
        assert!(validate_answers(&qs, &[]).is_err());
    }
}
