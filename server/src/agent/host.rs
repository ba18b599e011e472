//! Host tools: calls that need the run itself — `ask_user_question` waits for the user's answers,
//! `exit_plan` publishes a plan revision and waits for the review decision. Both always return a
//! tool result (never a hanging call): a timeout, a cancelled run or a closed page count as
//! expired / skipped.

use std::time::Duration;

use serde_json::Value;

use super::Turn;
use crate::plan::{self, ExitPlanArgs, MAX_PLAN_CHARS};
use crate::protocol::{Agent, EventPayload, PlanDecision, Question};
use crate::store::PlanRow;
use crate::tools::ToolOutput;
use crate::util::{new_id, now_ms};

pub fn is_host_tool(name: &str) -> bool {
    matches!(
        name,
        "ask_user_question" | "exit_plan" | "bg_run" | "bg_list" | "bg_output" | "bg_stop"
    )
}

/// The command a host tool would run, classified for the gate (bg_run follows shell's rules).
pub fn command_of(
    name: &str,
    input: &Value,
) -> Option<(String, crate::policy::command::CommandAnalysis)> {
    if name != "bg_run" {
        return None;
    }
    let c = input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let a = crate::policy::command::analyze_shell(&c);
    Some((c, a))
}

fn timeout_of(t: &Turn<'_>) -> Duration {
    Duration::from_secs(t.deps.cfg.agent.approval_timeout_secs.max(1))
}

/// Validate the questions of an `ask_user_question` call.
pub fn validate_questions(input: &Value) -> Result<Vec<Question>, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct A {
        questions: Vec<Question>,
    }
    let a: A = serde_json::from_value(input.clone()).map_err(|e| e.to_string())?;
    if !(1..=4).contains(&a.questions.len()) {
        return Err("ask 1 to 4 questions".into());
    }
    for q in &a.questions {
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
    Ok(a.questions)
}

/// Check answers against their questions (used by the HTTP handler).
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
            return Err(format!(
                "question `{}` takes {}",
                q.question,
                if q.multi_select {
                    "one or more options"
                } else {
                    "exactly one option"
                }
            ));
        }
        for l in labels {
            if !q.options.iter().any(|o| &o.label == l) {
                return Err(format!("`{l}` is not an option of `{}`", q.question));
            }
        }
    }
    Ok(())
}

pub(crate) async fn run(t: &Turn<'_>, call_id: &str, name: &str, input: &Value) -> ToolOutput {
    match name {
        "ask_user_question" => ask(t, call_id, input).await,
        "exit_plan" => exit_plan(t, call_id, input).await,
        "bg_run" | "bg_list" | "bg_output" | "bg_stop" => background(t, name, input).await,
        other => ToolOutput::err("unknown_tool", format!("unknown tool `{other}`")),
    }
}

fn json_out<T: serde::Serialize>(v: &T) -> ToolOutput {
    ToolOutput::ok(serde_json::to_string_pretty(v).unwrap_or_default())
}

fn task_err(e: crate::tasks::TaskError) -> ToolOutput {
    use crate::tasks::TaskError;
    match e {
        TaskError::NotFound => ToolOutput::err("not_found", "task not found"),
        TaskError::Invalid(m) => ToolOutput::err("invalid_input", m),
        TaskError::Limit(m) => ToolOutput::err("limit", m),
        other => ToolOutput::err("internal", other),
    }
}

async fn background(t: &Turn<'_>, name: &str, input: &Value) -> ToolOutput {
    let tasks = &t.deps.tasks;
    let session = t
        .run
        .session
        .parent_id
        .clone()
        .unwrap_or_else(|| t.run.session.id.clone());
    match name {
        "bg_run" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields, rename_all = "camelCase")]
            struct A {
                command: String,
                cwd: Option<String>,
                label: Option<String>,
                timeout_ms: Option<u64>,
            }
            let a: A = match serde_json::from_value(input.clone()) {
                Ok(a) => a,
                Err(e) => return ToolOutput::err("invalid_input", e),
            };
            let cwd = match crate::tools::process::resolve_cwd(a.cwd.as_deref(), &t.paths) {
                Ok(c) => c,
                Err(e) => return ToolOutput::err(e.code(), e),
            };
            match tasks
                .start(&session, &a.command, &cwd, a.label.as_deref(), a.timeout_ms)
                .await
            {
                Ok(row) => {
                    let note = if t.deps.interactive {
                        "Started. Keep working: you will be woken when it ends by itself. Read its output any time with bg_output (offset 0, then next_offset)."
                    } else {
                        "Started. Nothing will wake you in this headless run: read its output with bg_output (offset 0, then next_offset). Live tasks are stopped when the run ends."
                    };
                    json_out(
                        &serde_json::json!({"id": row.id, "label": row.label, "status": "running", "timeout_ms": row.timeout_ms, "note": note}),
                    )
                }
                Err(e) => task_err(e),
            }
        }
        "bg_list" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                status: Option<String>,
                limit: Option<i64>,
            }
            let a: A = match serde_json::from_value(input.clone()) {
                Ok(a) => a,
                Err(e) => return ToolOutput::err("invalid_input", e),
            };
            let limit = a.limit.unwrap_or(20).clamp(1, 50);
            match t
                .deps
                .store
                .list_tasks(&session, a.status.as_deref(), limit)
                .await
            {
                Ok(rows) => {
                    let tasks: Vec<crate::tasks::TaskInfo> =
                        rows.into_iter().map(Into::into).collect();
                    json_out(&serde_json::json!({ "tasks": tasks }))
                }
                Err(e) => ToolOutput::err("internal", e),
            }
        }
        "bg_output" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                id: String,
                offset: Option<u64>,
                limit: Option<usize>,
            }
            let a: A = match serde_json::from_value(input.clone()) {
                Ok(a) => a,
                Err(e) => return ToolOutput::err("invalid_input", e),
            };
            match tasks.get_for(&session, &a.id).await {
                Ok(row) => match tasks.output(&row, a.offset.unwrap_or(0), a.limit).await {
                    Ok(o) => json_out(&o),
                    Err(e) => task_err(e),
                },
                Err(e) => task_err(e),
            }
        }
        _ => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                id: String,
            }
            let a: A = match serde_json::from_value(input.clone()) {
                Ok(a) => a,
                Err(e) => return ToolOutput::err("invalid_input", e),
            };
            match tasks.stop(Some(&session), &a.id, "model").await {
                Ok(row) => json_out(&crate::tasks::TaskInfo::from(row)),
                Err(e) => task_err(e),
            }
        }
    }
}

async fn ask(t: &Turn<'_>, call_id: &str, input: &Value) -> ToolOutput {
    if !t.deps.interactive {
        return ToolOutput::err(
            "no_interactive_ui",
            "nobody can answer questions in this run; ask your question in plain text in your answer instead",
        );
    }
    let questions = match validate_questions(input) {
        Ok(q) => q,
        Err(e) => return ToolOutput::err("invalid_input", e),
    };
    let id = new_id();
    let store = &t.deps.store;
    let json = serde_json::to_string(&questions).unwrap_or_default();
    let rx = t.deps.questions.register(&id);
    if let Err(e) = store
        .create_question(&id, &t.run.session.id, &t.run.run_id, call_id, &json)
        .await
    {
        t.deps.questions.forget(&id);
        return ToolOutput::err("internal", e);
    }
    t.emit(EventPayload::QuestionAsked {
        question_id: id.clone(),
        call_id: call_id.to_string(),
        questions: questions.clone(),
    });
    let answer = tokio::select! {
        r = rx => r.ok(),
        _ = tokio::time::sleep(timeout_of(t)) => None,
        _ = t.run.cancel.cancelled() => None,
    };
    let Some(answers) = answer else {
        t.deps.questions.forget(&id);
        if store
            .answer_question(&id, "expired", None)
            .await
            .unwrap_or(false)
        {
            t.emit(EventPayload::QuestionAnswered {
                question_id: id,
                answers: vec![None; questions.len()],
            });
        }
        return ToolOutput::err(
            "no_answer",
            "the user did not answer; continue with your best judgement or ask in plain text",
        );
    };
    let mut text = String::from("The user answered:\n");
    for (q, a) in questions.iter().zip(&answers) {
        match a {
            Some(labels) => text.push_str(&format!("- {} → {}\n", q.question, labels.join(", "))),
            None => text.push_str(&format!("- {} → (skipped)\n", q.question)),
        }
    }
    ToolOutput::ok(text)
}

async fn exit_plan(t: &Turn<'_>, call_id: &str, input: &Value) -> ToolOutput {
    if t.agent != Agent::Plan {
        return ToolOutput::err(
            "permission_denied",
            "exit_plan is only available to the plan agent",
        );
    }
    let args: ExitPlanArgs = match serde_json::from_value(input.clone()) {
        Ok(a) => a,
        Err(e) => return ToolOutput::err("invalid_input", e),
    };
    if args.plan.trim().is_empty() || args.plan.chars().count() > MAX_PLAN_CHARS {
        return ToolOutput::err(
            "invalid_input",
            format!("`plan` must be 1 to {MAX_PLAN_CHARS} characters of Markdown"),
        );
    }
    let cfg = &t.deps.cfg;
    let root = cfg.state_dir.join("artifacts");
    let (artifact, rev) = match plan::publish(
        &t.deps.store,
        &root,
        &t.run.session.id,
        &args,
        cfg.plan.max_diagrams,
    )
    .await
    {
        Ok(x) => x,
        Err(e) => return ToolOutput::err("internal", format!("cannot publish the plan: {e}")),
    };
    let plan_id = new_id();
    let row = PlanRow {
        id: plan_id.clone(),
        session_id: t.run.session.id.clone(),
        run_id: t.run.run_id.clone(),
        call_id: call_id.to_string(),
        artifact_id: artifact.id.clone(),
        revision: rev.revision,
        title: rev.title.clone(),
        hash: rev.hash.clone(),
        status: "pending".into(),
        feedback: None,
        created_at: now_ms(),
        decided_at: None,
    };
    let unavailable = !t.deps.interactive || cfg.read_only;
    let rx = (!unavailable).then(|| t.deps.plans.register(&plan_id));
    if let Err(e) = t.deps.store.create_plan(&row).await {
        t.deps.plans.forget(&plan_id);
        return ToolOutput::err("internal", e);
    }
    t.emit(EventPayload::PlanProposed {
        plan_id: plan_id.clone(),
        artifact_id: artifact.id.clone(),
        call_id: call_id.to_string(),
        revision: rev.clone(),
    });
    let (decision, feedback) = match rx {
        None => {
            let _ = t
                .deps
                .store
                .transition_plan(&plan_id, "pending", "unavailable", None)
                .await;
            t.emit(EventPayload::PlanDecided {
                plan_id: plan_id.clone(),
                decision: PlanDecision::Unavailable,
                feedback: None,
            });
            (PlanDecision::Unavailable, None)
        }
        Some(rx) => {
            let answer = tokio::select! {
                r = rx => r.ok(),
                _ = tokio::time::sleep(timeout_of(t)) => None,
                _ = t.run.cancel.cancelled() => None,
            };
            match answer {
                Some(d) => d,
                None => {
                    t.deps.plans.forget(&plan_id);
                    if t.deps
                        .store
                        .transition_plan(&plan_id, "pending", "skipped", None)
                        .await
                        .unwrap_or(false)
                    {
                        t.emit(EventPayload::PlanDecided {
                            plan_id: plan_id.clone(),
                            decision: PlanDecision::Skipped,
                            feedback: None,
                        });
                    }
                    (PlanDecision::Skipped, None)
                }
            }
        }
    };
    let mut text = format!("decision: {}\n{}\n", decision.as_str(), decision.message());
    if let Some(f) = feedback.filter(|f| !f.trim().is_empty()) {
        text.push_str(&format!("feedback: {f}\n"));
    }
    text.push_str(&format!(
        "plan: artifact {} revision {} (hash {})\n",
        artifact.id, rev.revision, rev.hash
    ));
    let accepted: Vec<&str> = rev.diagrams.iter().map(|d| d.id.as_str()).collect();
    text.push_str(&format!(
        "diagrams.accepted: {}\n",
        serde_json::to_string(&accepted).unwrap_or_default()
    ));
    text.push_str(&format!(
        "diagrams.dropped: {}\n",
        serde_json::to_string(&rev.dropped).unwrap_or_default()
    ));
    text.push_str(&format!(
        "diagrams.removed: {}\n",
        serde_json::to_string(&rev.removed).unwrap_or_default()
    ));
    ToolOutput::ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn question_rules() {
        let ok = json!({"questions": [{"question": "Which DB?", "options": [{"label": "SQLite", "recommended": true}, {"label": "Postgres"}]}]});
        let qs = validate_questions(&ok).unwrap_or_default();
        assert_eq!(qs.len(), 1);
        for bad in [
            json!({"questions": []}),
            json!({"questions": [{"question": "q", "options": [{"label": "only"}]}]}),
            json!({"questions": [{"question": "q", "options": [{"label": "a", "recommended": true}, {"label": "b", "recommended": true}]}]}),
            json!({"questions": [{"question": "q", "options": [{"label": "a"}, {"label": "a"}]}]}),
            json!({"questions": [{"question": "", "options": [{"label": "a"}, {"label": "b"}]}]}),
        ] {
            assert!(validate_questions(&bad).is_err(), "{bad}");
        }
        assert!(validate_answers(&qs, &[Some(vec!["SQLite".into()])]).is_ok());
        assert!(validate_answers(&qs, &[None]).is_ok());
        assert!(validate_answers(&qs, &[Some(vec!["MySQL".into()])]).is_err());
        assert!(validate_answers(&qs, &[Some(vec!["SQLite".into(), "Postgres".into()])]).is_err());
        assert!(validate_answers(&qs, &[]).is_err());
    }
}
