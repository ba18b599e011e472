import { Fragment } from "preact";
import { api } from "../api/client";
import type { ReviewComment } from "../api/types";
import { linesLabel } from "../state/comments";
import { keepComment } from "../state/sessions";
import type { PlanState } from "../state/transcript";
import { CommentForm } from "./CommentForm";
import { CommentThread } from "./CommentThread";
import { VisibleText } from "./VisibleText";
import "../review.css";

/** Lines of a plan picked for a new comment. */
export interface PlanPick {
  start: number;
  end: number;
}

/** The answer each comment got from a later revision, by comment id. */
export type PlanAnswers = ReadonlyMap<string, { text: string; revision: number }>;

const revisionOf = (p: PlanState) => p.event.revision;

/**
 * A plan's Markdown line by line, to comment on: a line's number, clicked, picks it (Shift: every
 * line from the one picked before); the comments show under their last line, the new comment's
 * form under the lines picked.
 */
export function PlanLines({
  plan,
  pick,
  answers,
  onPick,
  onDone,
}: {
  plan: PlanState;
  pick: PlanPick | null;
  answers: PlanAnswers;
  onPick: (line: number, extend: boolean) => void;
  onDone: () => void;
}) {
  const lines = plan.event.plan.split("\n");
  const last = lines.length;
  const at = new Map<number, ReviewComment[]>();
  for (const c of plan.comments) {
    const n = Math.min(c.end_line, last);
    const list = at.get(n);
    if (list) list.push(c);
    else at.set(n, [c]);
  }
  const session = plan.event.session;
  return (
    <div class="plan-lines" role="group" aria-label="plan.md, line by line">
      {lines.map((text, i) => {
        const n = i + 1;
        const on = pick !== null && n >= pick.start && n <= pick.end;
        return (
          <Fragment key={n}>
            <div class={`pl-row${on ? " picked" : ""}`} data-line={n}>
              <button
                type="button"
                class="pl-num ln-btn"
                aria-label={`Comment on line ${n}`}
                title="Comment on this line (Shift-click: on every line from the one picked)"
                onClick={(e) => onPick(n, e.shiftKey)}
              >
                {n}
              </button>
              <span class="pl-text">
                <VisibleText text={text} />
              </span>
            </div>
            {(at.get(n) ?? []).map((c) => (
              <div class="pl-extra" key={c.id}>
                <CommentThread comment={c} answer={answers.get(c.id)?.text} where={`${linesLabel(c)} of the plan`} />
              </div>
            ))}
            {pick?.end === n && (
              <div class="pl-extra">
                <CommentForm
                  label={`Comment on ${linesLabel({ start_line: pick.start, end_line: pick.end })} of the plan`}
                  onSubmit={async (body) => {
                    const c = await api.addComment(session, {
                      target: "plan",
                      plan_id: plan.id,
                      start_line: pick.start,
                      end_line: pick.end,
                      body,
                    });
                    keepComment(session, c);
                    onDone();
                  }}
                  onCancel={onDone}
                />
              </div>
            )}
          </Fragment>
        );
      })}
    </div>
  );
}

/** The comments on a plan revision, listed under it (when its text is shown rendered). */
export function PlanCommentList({ plan, answers }: { plan: PlanState; answers: PlanAnswers }) {
  if (plan.comments.length === 0) return null;
  return (
    <section class="plan-comments" aria-label="Comments on this revision">
      <h3>Comments ({plan.comments.length})</h3>
      {plan.comments.map((c) => (
        <CommentThread key={c.id} comment={c} answer={answers.get(c.id)?.text} where={`${linesLabel(c)} of the plan`} />
      ))}
    </section>
  );
}

/** In the revision comparison: the comments on earlier revisions that revision `to` answered, and how. */
export function RevisionAnswers({ to, revisions }: { to: PlanState; revisions: readonly PlanState[] }) {
  const answers = to.event.answers ?? [];
  if (answers.length === 0) return null;
  const all = new Map(revisions.flatMap((r) => r.comments.map((c) => [c.id, { c, revision: revisionOf(r) }] as const)));
  return (
    <div class="plan-answered" data-revision={revisionOf(to)}>
      <b>
        Revision {revisionOf(to)} answered {answers.length === 1 ? "1 comment" : `${answers.length} comments`}:
      </b>
      <ul>
        {answers.map((a) => {
          const known = all.get(a.comment);
          return (
            <li key={a.comment} data-comment-id={a.comment}>
              {known ? (
                <>
                  “<VisibleText text={known.c.body} />” <span class="muted small">(revision {known.revision}, {linesLabel(known.c)})</span>
                </>
              ) : (
                <span class="muted">A comment</span>
              )}
              <div class="comment-answer">
                <p>
                  <VisibleText text={a.text} />
                </p>
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
