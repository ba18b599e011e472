import type { PendingApproval, PendingPlan, PendingQuestion, Session } from "../api/types";
import { linkClick, sessionPath } from "../state/router";
import { type ChildPrompts, childPromptCount, useSessionById } from "../state/subagents";
import { ApprovalCard } from "./ApprovalCard";
import { QuestionPanel } from "./QuestionPanel";
import { VisibleText } from "./VisibleText";
import "../subagents.css";

/** The subagent's title as its prompts are labelled with it. */
function titleOf(s: Session | null | "gone"): string {
  return s && s !== "gone" ? s.title || "Untitled subagent" : "a subagent";
}

/** "From the subagent <title>", linking to its session. */
function From({ session, title }: { session: string; title: string }) {
  const path = sessionPath(session);
  return (
    <p class="subagent-from">
      From the subagent{" "}
      <a href={path} onClick={(e) => linkClick(e, path)}>
        <VisibleText text={title} />
      </a>
    </p>
  );
}

function ChildApproval({ a, known }: { a: PendingApproval; known: readonly Session[] }) {
  const title = titleOf(useSessionById(a.session, known));
  return (
    <div class="subagent-prompt" role="group" aria-label={`Subagent “${title}” asks`} data-subagent={a.session}>
      <From session={a.session} title={title} />
      {/* The pending approval carries the event's details: reasons, warnings, directory, prefix. */}
      <ApprovalCard approval={{ id: a.approval_id, event: a, decision: null, expired: false }} />
    </div>
  );
}

function ChildQuestion({ q, known }: { q: PendingQuestion; known: readonly Session[] }) {
  const title = titleOf(useSessionById(q.session, known));
  return (
    <div class="subagent-prompt" data-subagent={q.session}>
      <From session={q.session} title={title} />
      <QuestionPanel
        key={q.question_id}
        question={{ id: q.question_id, seq: 0, run: q.run_id, questions: q.questions, answers: null, expired: false, reason: null }}
        asker={`The subagent “${title}”`}
      />
    </div>
  );
}

/** A plan is reviewed in the subagent's own page, where its card shows the whole of it. */
function ChildPlan({ p, known }: { p: PendingPlan; known: readonly Session[] }) {
  const title = titleOf(useSessionById(p.session, known));
  const path = sessionPath(p.session);
  return (
    <div class="subagent-prompt subagent-plan" data-subagent={p.session} data-plan-id={p.plan_id}>
      <p>
        <span class="approval-icon" aria-hidden="true">!</span> The subagent{" "}
        <b>
          <VisibleText text={title} />
        </b>{" "}
        has a plan for review{p.title ? <>: <VisibleText text={p.title} /></> : null}.{" "}
        <a href={path} onClick={(e) => linkClick(e, path)}>
          Review it in the subagent
        </a>
      </p>
    </div>
  );
}

/**
 * What the session's subagents ask the user, answered here with the usual cards, each labelled
 * with the subagent that asks and a link to it. `ownQuestion`: the session's own question panel
 * is up, so a subagent's waits behind it (one question panel at a time).
 */
export function SubagentPrompts({
  prompts,
  known,
  ownQuestion,
}: {
  prompts: ChildPrompts;
  known: readonly Session[];
  ownQuestion: boolean;
}) {
  if (childPromptCount(prompts) === 0) return null;
  const q = ownQuestion ? undefined : prompts.questions[0];
  return (
    <section class="subagent-prompts" aria-label="Your subagents ask">
      {prompts.approvals.map((a) => (
        <ChildApproval key={a.approval_id} a={a} known={known} />
      ))}
      {q && <ChildQuestion key={q.question_id} q={q} known={known} />}
      {prompts.plans.map((p) => (
        <ChildPlan key={p.plan_id} p={p} known={known} />
      ))}
    </section>
  );
}
