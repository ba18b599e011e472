//! Read models: stored rows as the API shows them. Their JSON columns are decoded here, once,
//! with the row named in any error; a list leaves out (and logs) a row that does not read.

use crate::protocol::{
    Artifact, Message, PendingApproval, PendingItems, PendingPlan, PendingQuestion, PlanRevision,
    RunInfo,
};
use crate::store::json::{decode, decode_opt, readable};
use crate::store::{
    ApprovalDetail, ApprovalRow, ArtifactRow, MessageRow, PlanRow, QuestionRow, RunRow, StoreResult,
};

pub fn message(r: MessageRow) -> StoreResult<Message> {
    Ok(Message {
        parts: decode("message", &r.id, "parts", &r.parts)?,
        role: r.role,
        id: r.id,
        run_id: r.run_id,
        created_at: r.created_at,
    })
}

pub fn messages(rows: Vec<MessageRow>) -> Vec<Message> {
    readable(rows.into_iter().map(message))
}

pub fn run(r: RunRow) -> StoreResult<RunInfo> {
    Ok(RunInfo {
        error: decode_opt("run", &r.id, "error", r.error.as_deref())?,
        usage: decode_opt("run", &r.id, "usage", r.usage.as_deref())?,
        id: r.id,
        session_id: r.session_id,
        status: r.status,
        trigger: r.trigger,
        agent: r.agent,
        created_at: r.created_at,
        started_at: r.started_at,
        finished_at: r.finished_at,
    })
}

pub fn runs(rows: Vec<RunRow>) -> Vec<RunInfo> {
    readable(rows.into_iter().map(run))
}

/// An artifact's listing and its revision's metadata.
pub fn artifact(r: ArtifactRow) -> StoreResult<(Artifact, PlanRevision)> {
    let meta: PlanRevision = decode("artifact", &r.id, "meta", &r.meta)?;
    Ok((
        Artifact {
            title: meta.title.clone(),
            files: meta.files.clone(),
            id: r.id,
            kind: r.kind,
            name: r.name,
            revision: r.revision,
            created_at: r.created_at,
        },
        meta,
    ))
}

pub fn artifacts(rows: Vec<ArtifactRow>) -> Vec<Artifact> {
    readable(rows.into_iter().map(|r| artifact(r).map(|(a, _)| a)))
}

fn approval(session: &crate::protocol::SessionId, a: ApprovalRow) -> StoreResult<PendingApproval> {
    let detail: ApprovalDetail =
        decode_opt("approval", &a.id, "detail", a.detail.as_deref())?.unwrap_or_default();
    Ok(PendingApproval {
        session: session.into(),
        reasons: detail.reasons,
        warnings: detail.warnings,
        directory: detail.directory,
        session_keeps: detail.session_keeps,
        prefix: decode_opt("approval", &a.id, "prefix", a.prefix.as_deref())?,
        effect: a.effect,
        scope: a.scope,
        input: decode("approval", &a.id, "input", &a.input)?,
        approval_id: a.id,
        run_id: a.run_id,
        call_id: a.call_id,
        tool: a.tool,
        reason: a.reason,
        created_at: a.created_at,
    })
}

fn question(session: &crate::protocol::SessionId, q: QuestionRow) -> StoreResult<PendingQuestion> {
    Ok(PendingQuestion {
        session: session.into(),
        questions: decode("question", &q.id, "questions", &q.questions)?,
        question_id: q.id,
        run_id: q.run_id,
        created_at: q.created_at,
    })
}

fn plan(session: &crate::protocol::SessionId, p: PlanRow) -> PendingPlan {
    PendingPlan {
        session: session.into(),
        plan_id: p.id,
        run_id: p.run_id,
        artifact_id: p.artifact_id,
        revision: p.revision,
        title: p.title,
        created_at: p.created_at,
    }
}

/// Add one session's pending approvals, questions and plans to `items`.
pub fn pending_of(
    session: &crate::protocol::SessionId,
    approvals: Vec<ApprovalRow>,
    questions: Vec<QuestionRow>,
    plans: Vec<PlanRow>,
    items: &mut PendingItems,
) {
    items.approvals.extend(readable(
        approvals.into_iter().map(|a| approval(session, a)),
    ));
    items.questions.extend(readable(
        questions.into_iter().map(|q| question(session, q)),
    ));
    items
        .plans
        .extend(plans.into_iter().map(|p| plan(session, p)));
}
