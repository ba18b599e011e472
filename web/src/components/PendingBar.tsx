import { useState } from "preact/hooks";
import { askNotificationPermission } from "../state/attention";
import { revealItem } from "../state/reveal";
import { type ChildPrompts, childPromptCount } from "../state/subagents";
import type { TranscriptSnapshot } from "../state/transcript";
import { ApprovalCard } from "./ApprovalCard";

/**
 * Pinned summary of everything waiting for the user, with jump links: the session's own
 * prompts and those of its subagents (shown by `SubagentPrompts`).
 */
export function PendingBar({ snap, subagents: kids }: { snap: TranscriptSnapshot; subagents: ChildPrompts }) {
  const [shownHere, setShownHere] = useState<string | null>(null);
  const [perm, setPerm] = useState(() => (typeof Notification === "undefined" ? "unsupported" : Notification.permission));
  const a = snap.pendingApprovals;
  const q = snap.pendingQuestions;
  const p = snap.pendingPlans;
  if (a.length + q.length + p.length + childPromptCount(kids) === 0) return null;
  const jump = (sel: string, id: string, key: string | null) => {
    const el = document.querySelector<HTMLElement>(sel);
    if (!el) {
      // Out of the transcript's window: the transcript scrolls to it. Not in the transcript at all
      // (its event is in a page not read yet): an approval is shown here instead.
      if (key && snap.items.some((i) => i.key === key)) revealItem(key);
      else setShownHere(id);
      return;
    }
    el.scrollIntoView({ block: "center", behavior: "smooth" });
    el.querySelector<HTMLElement>("button, textarea, input")?.focus({ preventScroll: true });
  };
  const here = a.find((x) => x.id === shownHere);
  return (
    <div class="pending-bar" role="status" aria-label="Waiting for you">
      <div class="pending-chips">
        <span class="pending-title">Needs you</span>
        {a.map((x) => (
          <button
            type="button"
            key={x.id}
            class="pending-chip"
            onClick={() => jump(`.transcript [data-approval-id="${CSS.escape(x.id)}"]`, x.id, `a:${x.id}`)}
          >
            Approve <b>{x.event.tool}</b>?
          </button>
        ))}
        {q.map((x) => (
          <button type="button" key={x.id} class="pending-chip" onClick={() => jump(`.question-panel[data-question-id="${CSS.escape(x.id)}"]`, x.id, null)}>
            Answer a question
          </button>
        ))}
        {p.map((x) => (
          <button type="button" key={x.id} class="pending-chip" onClick={() => jump(`.transcript [data-plan-id="${CSS.escape(x.id)}"]`, x.id, `p:${x.id}`)}>
            Review the plan
          </button>
        ))}
        {kids.approvals.map((x) => (
          <button
            type="button"
            key={x.approval_id}
            class="pending-chip"
            onClick={() => jump(`.subagent-prompts [data-approval-id="${CSS.escape(x.approval_id)}"]`, x.approval_id, null)}
          >
            Approve <b>{x.tool}</b> for a subagent?
          </button>
        ))}
        {kids.questions.map((x) => (
          <button
            type="button"
            key={x.question_id}
            class="pending-chip"
            onClick={() => jump(`.question-panel[data-question-id="${CSS.escape(x.question_id)}"]`, x.question_id, null)}
          >
            Answer a subagent's question
          </button>
        ))}
        {kids.plans.map((x) => (
          <button
            type="button"
            key={x.plan_id}
            class="pending-chip"
            onClick={() => jump(`.subagent-prompts [data-plan-id="${CSS.escape(x.plan_id)}"]`, x.plan_id, null)}
          >
            Review a subagent's plan
          </button>
        ))}
        {perm === "default" && (
          <button
            type="button"
            class="linklike small notify-btn"
            onClick={() => void askNotificationPermission().then(setPerm)}
            title="Get a browser notification when the agent needs you while this tab is in the background"
          >
            Notify me next time
          </button>
        )}
      </div>
      {here && (
        <div class="pending-here">
          <ApprovalCard approval={here} />
        </div>
      )}
    </div>
  );
}
