// "Needs you": the tab title and, when the page is hidden and the user allowed
// it, a browser notification for approvals, questions and plans, the session's own
// and those its subagents ask through it (`child_pending`).
import type { EventFrame } from "../api/types";

const notified = new Set<string>();

function label(ev: EventFrame): string {
  switch (ev.type) {
    case "approval_requested":
      return `Approval needed: ${ev.tool ?? "tool"}`;
    case "question_asked":
      return "The agent has a question";
    case "plan_proposed":
      return "A plan is ready for review";
    case "child_pending": {
      const what = ev.kind === "approval" ? "needs an approval" : ev.kind === "question" ? "has a question" : "has a plan for review";
      return ev.summary ? `A subagent ${what}: ${ev.summary}` : `A subagent ${what}`;
    }
    default:
      return "Tradewind needs you";
  }
}

export function notifyAttention(sessionId: string, ev: EventFrame): void {
  const key = `${sessionId}:${ev.seq}`;
  if (notified.has(key)) return;
  notified.add(key);
  // Only for fresh events, not for a replayed backlog.
  if (typeof ev.at === "number" && Date.now() - ev.at > 60_000) return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    const n = new Notification("Tradewind needs you", { body: label(ev), tag: key });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  } catch {
    // Some browsers only allow notifications from a service worker.
  }
}

export async function askNotificationPermission(): Promise<NotificationPermission | "unsupported"> {
  if (typeof Notification === "undefined") return "unsupported";
  if (Notification.permission !== "default") return Notification.permission;
  return Notification.requestPermission();
}
