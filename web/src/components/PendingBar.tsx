import { useState } from "preact/hooks";
import { askNotificationPermission } from "../state/attention";
import { withTimeout } from "../util/timeout";
import { revealItem } from "../state/reveal";
import { type ChildPrompts, childPromptCount } from "../state/subagents";
import type { TranscriptSnapshot } from "../state/transcript";
import { ApprovalCard } from "./ApprovalCard";

/** How long the browser may take to answer "Notify me next time" (ms). */
const NOTIFY_TIMEOUT_MS = 10_000;

/** What the browser's answer means for the user. */
function permissionNote(p: NotificationPermission | "unsupported"): { ok: boolean; text: string } {
  if (p === "granted") return { ok: true, text: "Notifications on: you will be told when the agent needs you." };
  if (p === "denied") return { ok: false, text: "Notifications are blocked for this site in the browser's settings." };
  if (p === "unsupported") return { ok: false, text: "This browser cannot show notifications." };
  return { ok: false, text: "Notifications were not allowed." };
}

/**
 * Pinned summary of everything waiting for the user, with jump links: the session's own
 * prompts and those of its subagents (shown by `SubagentPrompts`).
 */
export function PendingBar({ snap, subagents: kids }: { snap: TranscriptSnapshot; subagents: ChildPrompts }) {
  const [shownHere, setShownHere] = useState<string | null>(null);
  const [perm, setPerm] = useState(() => (typeof Notification === "undefined" ? "unsupported" : Notification.permission));
  /** "Notify me next time": asking the browser, and what came of it (the bar says, never silence). */
  const [asking, setAsking] = useState(false);
  const [notifyNote, setNotifyNote] = useState<{ ok: boolean; text: string } | null>(null);
  const notifyMe = () => {
    setAsking(true);
    setNotifyNote(null);
    const answer = askNotificationPermission();
    // A prompt answered late still counts.
    void answer.then(setPerm, () => undefined);
    withTimeout(answer, NOTIFY_TIMEOUT_MS, "The browser did not answer within 10 seconds: notifications could not be turned on.")
      .then((p) => setNotifyNote(permissionNote(p)), (e: unknown) => setNotifyNote({ ok: false, text: e instanceof Error ? e.message : String(e) }))
      .finally(() => setAsking(false));
  };
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
            disabled={asking}
            aria-busy={asking || undefined}
            onClick={notifyMe}
            title="Get a browser notification when the agent needs you while this tab is in the background"
          >
            {asking ? "Asking the browser…" : "Notify me next time"}
          </button>
        )}
        {notifyNote && (
          <span class={`small notify-note ${notifyNote.ok ? "ok" : "error"}`} data-notify-note>
            {notifyNote.text}
          </span>
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
